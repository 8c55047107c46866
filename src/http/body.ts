// A request body read with a size limit. A body past the limit is still read, and dropped, up to eight
// times the limit: a client still writing when the server answers would see its connection reset
// (EPIPE) instead of the 413 it is owed. Past that the connection is cut.
import type { Readable } from 'node:stream';

export const TOO_LARGE = 'too large';

export function readBoundedBody(stream: Readable, limit: number): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 8 * limit) stream.destroy();
      else if (size <= limit) chunks.push(chunk);
    });
    stream.on('end', () => resolve(size > limit ? TOO_LARGE : Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
