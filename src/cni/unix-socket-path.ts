// A unix socket's path is limited to 107 bytes (sun_path), and a node's root under a temp AKSEMU_HOME makes
// <nodeRoot>/var/run/cilium/cilium.sock or a cluster's <cluster dir>/apiserver.sock longer than that. Linux
// resolves /proc/self/fd/<fd> of an open directory to that directory, so binding or connecting through it names the
// same socket file with a short path (a symlink on the way, as a node's apiserver.sock, is followed as usual). This
// is aksemu's one way to reach such a socket: every listener and client of a unix socket goes through it.
import { closeSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** sun_path holds 108 bytes with the terminating NUL. */
export const SUN_PATH_MAX = 107;

/** A path to bind or connect to that names `path`; `release` closes what it opened (call it once done). */
export function shortSocketPath(path: string): { path: string; release: () => void } {
  if (Buffer.byteLength(path) <= SUN_PATH_MAX) return { path, release: () => {} };
  const fd = openSync(dirname(path), 'r');
  let open = true;
  return {
    path: `/proc/self/fd/${fd}/${basename(path)}`,
    release: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
