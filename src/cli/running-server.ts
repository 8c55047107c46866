// The server a client command talks to: endpoint.json in the aksemu home, checked to be answering now
// (a stale endpoint.json from a killed server must not send users off with dead URLs).
import { readFileSync } from 'node:fs';
import { readEndpoint, type Endpoint } from './az/endpoint.js';
import { HttpsTransport } from './az/transport.js';

export class NoServerError extends Error {}

/** The endpoint of the server serving home, or NoServerError with a one-line reason. */
export async function runningServer(home: string): Promise<Endpoint> {
  let endpoint: Endpoint;
  try {
    endpoint = readEndpoint(home);
  } catch {
    throw new NoServerError(`no aksemu server is running for ${home} (start one with: aksemu start)`);
  }
  try {
    const transport = new HttpsTransport(readFileSync(endpoint.caFile, 'utf8'));
    const reply = await Promise.race([
      transport.send({ method: 'GET', url: `${endpoint.url}/metadata/endpoints?api-version=2015-01-01`, headers: {} }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), 5000).unref()),
    ]);
    if (reply.status !== 200) throw new Error(`status ${reply.status}`);
  } catch (e) {
    throw new NoServerError(`the aksemu server for ${home} at ${endpoint.url} is not answering (${(e as Error).message}); start it with: aksemu start`);
  }
  return endpoint;
}

/** A POSIX shell word: single quotes, with embedded quotes closed and reopened. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export function exportLine(name: string, value: string): string {
  return `export ${name}=${shellQuote(value)}`;
}
