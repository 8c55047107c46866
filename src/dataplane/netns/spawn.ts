// A process inside one of aksemu's network namespaces (a pod's or a node's): `nsenter --net=<path>` and,
// unless it must be root, `setpriv` to the unprivileged user nobody. Servers a pod runs (agnhost, the cluster
// DNS) and the tools `kubectl exec` runs start here; nothing else of the host changes for them (docs/dataplane.md §2).
import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';

/** nobody:nogroup on Debian. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

export interface NetnsSpawnOptions {
  /** Default 'nobody'. */
  user?: 'root' | 'nobody';
  env?: Record<string, string>;
  stdio?: StdioOptions;
  /** Killed with SIGKILL when aborted. */
  signal?: AbortSignal;
}

/** The argv that runs `argv` in the namespace at `netnsPath` as the given user. */
export function netnsArgv(netnsPath: string, argv: readonly string[], user: 'root' | 'nobody' = 'nobody'): string[] {
  const drop = user === 'nobody' ? ['setpriv', `--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups', '--'] : [];
  return ['nsenter', `--net=${netnsPath}`, '--', ...drop, ...argv];
}

export function spawnInNetns(netnsPath: string, argv: readonly string[], options: NetnsSpawnOptions = {}): ChildProcess {
  const [file, ...args] = netnsArgv(netnsPath, argv, options.user);
  return spawn(file!, args, {
    stdio: options.stdio ?? ['pipe', 'pipe', 'pipe'],
    env: options.env ?? { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    ...(options.signal ? { signal: options.signal, killSignal: 'SIGKILL' as const } : {}),
  });
}
