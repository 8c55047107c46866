// Starts pod-server.js (the backend images' server) in a pod's network namespace with spawnInNetns: as nobody, or as
// root when a listener's port is below 1024 (the script drops to nobody once it has bound them, as a container's
// runtime lets a pod bind low ports in its own namespace). Killed with SIGKILL when the signal aborts.
import { fileURLToPath } from 'node:url';
import type { PodServerSpec } from './pod-server.js';
import { spawnInNetns } from './spawn.js';

export type { PodServerListener } from './pod-server.js';

const SCRIPT = fileURLToPath(new URL('./pod-server.js', import.meta.url));
const MAX_ERROR = 2000;

interface PodServerProcess {
  /** Resolves once every listener is bound; rejects with the server's error when it could not start. */
  listening: Promise<void>;
  /** The exit status (1 with `error` when it failed). */
  exited: Promise<{ code: number; error: string }>;
}

export function startPodServer(netns: string, spec: PodServerSpec, signal: AbortSignal, onLog: (line: string) => void): PodServerProcess {
  const user = spec.listeners.some((l) => l.port < 1024) ? 'root' : 'nobody';
  const child = spawnInNetns(netns, [process.execPath, SCRIPT, JSON.stringify(spec)], { user, signal, stdio: ['pipe', 'pipe', 'pipe'] });
  let error = '';
  let pending = '';
  let onListening: () => void = () => undefined;
  let onFailed: (e: Error) => void = () => undefined;
  const listening = new Promise<void>((resolve, reject) => {
    onListening = resolve;
    onFailed = reject;
  });
  listening.catch(() => undefined);
  child.stdout?.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'listening') onListening();
      else onLog(line);
    }
  });
  child.stderr?.on('data', (d: Buffer) => {
    if (error.length < MAX_ERROR) error += d.toString().slice(0, MAX_ERROR - error.length);
  });
  child.on('error', () => undefined);
  const exited = new Promise<{ code: number; error: string }>((resolve) => {
    child.on('close', (code, sig) => {
      const status = code ?? (sig === 'SIGKILL' ? 137 : 1);
      onFailed(new Error(error.trim() || `the server exited (${status})`));
      resolve({ code: status, error: error.trim() });
    });
  });
  return { listening, exited };
}
