// How a plugin on a node reaches the cluster's API server: a node's network namespace never connects to the
// host, so aksemu serves each cluster's API on a unix socket in the node's root, <nodeRoot>/run/aksemu/apiserver.sock
// (plain HTTP, the same API and authentication as the HTTPS listener: a bearer token, such as a service-account
// token from a CNI's kubeconfig). The node's path is a symlink to the cluster's one socket (connect() follows
// it); a unix socket address holds at most 107 bytes (sun_path), so when the node's path is longer a client
// connects to the link's target instead: connect to what apiSocketPath returns.
import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { SUN_PATH_MAX } from '../unix-socket-path.js';

/** The socket's node path. */
export const NODE_API_SOCKET = '/run/aksemu/apiserver.sock';

/** The path a client on the node connects to. */
export function apiSocketPath(nodeRoot: string): string {
  const primary = join(nodeRoot, NODE_API_SOCKET);
  if (Buffer.byteLength(primary) <= SUN_PATH_MAX) return primary;
  try {
    return readlinkSync(primary);
  } catch {
    return primary;
  }
}
