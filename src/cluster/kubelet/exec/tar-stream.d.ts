// The part of tar-stream (a streaming tar parser and generator; 2.x and 3.x share it) that busybox-tar.ts uses.
declare module 'tar-stream' {
  import type { Readable, Writable } from 'node:stream';

  export interface Headers {
    name: string;
    size?: number;
    mode?: number;
    mtime?: Date;
    type?:
      | 'file'
      | 'link'
      | 'symlink'
      | 'character-device'
      | 'block-device'
      | 'directory'
      | 'fifo'
      | 'contiguous-file'
      | 'pax-header'
      | 'pax-global-header'
      | 'gnu-long-link-path'
      | 'gnu-long-path'
      | null;
    linkname?: string | null;
    uid?: number;
    gid?: number;
    uname?: string;
    gname?: string;
  }
  export interface Extract extends Writable {
    on(event: 'entry', listener: (header: Headers, stream: Readable, next: (error?: unknown) => void) => void): this;
    on(event: 'finish' | 'close', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    destroy(error?: Error): this;
  }
  export interface Pack extends Readable {
    entry(header: Headers, buffer?: Buffer | string, callback?: (error?: Error | null) => void): Writable;
    finalize(): void;
  }
  const tar: { extract(): Extract; pack(): Pack };
  export default tar;
}
