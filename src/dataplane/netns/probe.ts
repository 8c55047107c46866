// A TCP probe between two namespaces: a whoami listener in the target's namespace (when it is one of ours)
// and a connector in the source's. The result says whether it connected and which source address the
// listener saw — the observable that tells the network models apart (docs/dataplane.md §1). Both processes are bounded
// in time and killed afterwards.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProbeResult } from '../dataplane.js';
import { inNetns, run } from './exec.js';

const WHOAMI = fileURLToPath(new URL('./whoami.js', import.meta.url));

/** Starts the listener; resolves with a stop function once it listens. */
function listen(netns: string, port: number, lifetimeMs: number): Promise<() => void> {
  const [file, args] = inNetns(netns, process.execPath, [WHOAMI, 'serve', String(port), String(lifetimeMs)]);
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('listening')) resolve(stop);
    });
    child.on('error', (e) => reject(new Error(`cannot start the probe listener in ${netns}: ${e.message}`)));
    child.on('exit', (code) => reject(new Error(`the probe listener in ${netns} exited (${code}): ${err.trim()}`)));
  });
}

export async function probeTcp(fromNetns: string, to: { ip: string; port: number }, targetNetns: string | undefined, timeoutMs: number): Promise<ProbeResult> {
  const t0 = performance.now();
  let stop: (() => void) | undefined;
  try {
    if (targetNetns) stop = await listen(targetNetns, to.port, timeoutMs + 5000);
    const [file, args] = inNetns(fromNetns, process.execPath, [WHOAMI, 'ask', to.ip, String(to.port), String(timeoutMs)]);
    const r = await run(file, args, undefined, timeoutMs + 5000);
    const line = r.stdout.trim().split('\n').pop() ?? '';
    let parsed: { connected?: boolean; seen?: string; error?: string };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      parsed = { connected: false, error: (r.stderr || r.stdout).trim() || `probe exited ${r.code}` };
    }
    const ms = performance.now() - t0;
    return { connected: parsed.connected === true, ...(parsed.seen ? { seenSource: parsed.seen } : {}), ...(parsed.error ? { error: parsed.error } : {}), ms };
  } catch (e) {
    return { connected: false, error: (e as Error).message, ms: performance.now() - t0 };
  } finally {
    stop?.();
  }
}
