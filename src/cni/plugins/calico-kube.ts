// How aksemu's calico and calico-ipam plugins reach the cluster's API server, as Calico's plugins do through the
// kubeconfig install-cni writes (/etc/cni/net.d/calico-kubeconfig, cni-plugin/pkg/install/install.go): its bearer
// token authenticates every request. Pod namespaces never connect to the host, so the transport is the node's
// unix socket <nodeRoot>/run/aksemu/apiserver.sock, which serves the same API with the same authentication; the
// kubeconfig's `server` (the kubernetes Service address) is not dialled.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shortSocketPath } from '../unix-socket-path.js';
import { NODE_API_SOCKET } from './node-api.js';

/** JSON in, JSON out: the status and the decoded body (a Kubernetes `Status` on failure). */
export interface KubeApi {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** The `token:` of the kubeconfig's user, or undefined when the file has none. */
export function kubeconfigToken(text: string): string | undefined {
  const m = /^\s*token:\s*"?([^"\s]+)"?\s*$/m.exec(text);
  return m?.[1];
}

/** Upper bound of a response read from the socket: Calico objects are small; a list of blocks stays far below. */
const MAX_RESPONSE = 32 * 1024 * 1024;

/**
 * A client for the plugin's view of the API: the kubeconfig is read at `kubeconfigPath` under the node's root (the
 * netconf's `kubernetes.kubeconfig`). Throws Calico's wording when the file is missing.
 */
export function nodeKubeApi(nodeRoot: string, kubeconfigPath: string): KubeApi {
  let text: string;
  try {
    text = readFileSync(join(nodeRoot, kubeconfigPath), 'utf8');
  } catch {
    throw new Error(`stat ${kubeconfigPath}: no such file or directory`);
  }
  const token = kubeconfigToken(text);
  // The node's socket, reached through unix-socket-path.ts when its path is past sun_path.
  const socketPath = join(nodeRoot, NODE_API_SOCKET);
  return {
    request: (method, path, body) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const short = shortSocketPath(socketPath);
        const req = request(
          {
            socketPath: short.path,
            // No pooled connection: /proc/self/fd/<n> names another directory once the fd number is reused.
            agent: false,
            method,
            path,
            headers: {
              accept: 'application/json',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              // A PATCH is a JSON merge patch (what Calico's KDD backend sends for a pod's annotations).
              ...(payload
                ? { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json', 'content-length': String(payload.length) }
                : {}),
            },
            timeout: 30_000,
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (c: Buffer) => {
              size += c.length;
              if (size > MAX_RESPONSE) req.destroy(new Error('response too large'));
              else chunks.push(c);
            });
            res.on('end', () => {
              const raw = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = raw;
              try {
                parsed = raw ? JSON.parse(raw) : undefined;
              } catch {
                // not JSON: keep the text
              }
              resolve({ status: res.statusCode ?? 0, body: parsed });
            });
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
        req.on('close', short.release);
        req.on('error', (e: NodeJS.ErrnoException) =>
          reject(new Error(e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? `dial unix ${socketPath}: connect: connection refused` : e.message)),
        );
        req.end(payload);
      }),
  };
}
