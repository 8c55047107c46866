// What aksemu's programs of other builds' tools (busybox's wget and nc, beside this module) share: strerror(3)'s
// words for the errors a socket meets, and running as a program in a pod's sandbox. They import nothing but
// node's modules and this one: the sandbox holds only this folder (dataplane/netns/exec-sandbox.ts).
import { pathToFileURL } from 'node:url';

/** strerror(3)'s words (glibc) for the errors connects, reads and opens meet. */
const STRERROR: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ETIMEDOUT: 'Connection timed out',
  EHOSTUNREACH: 'No route to host',
  ENETUNREACH: 'Network is unreachable',
  ECONNRESET: 'Connection reset by peer',
  EPIPE: 'Broken pipe',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  EADDRINUSE: 'Address in use',
  EEXIST: 'File exists',
  ENOENT: 'No such file or directory',
  EROFS: 'Read-only file system',
};

export function strerror(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  return STRERROR[code] ?? (e as Error)?.message ?? String(e);
}

/** Runs `main` when the module at `url` is the program node was started with; its status is the exit code. */
export function runAsProgram(url: string, name: string, main: (args: string[]) => Promise<number>): void {
  if (!process.argv[1] || url !== pathToFileURL(process.argv[1]).href) return;
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${name}: ${(e as Error)?.message ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
