// A TCP probe between two namespaces: a whoami listener in the target's namespace (when it is one of ours)
// and a connector in the source's. The result says whether it connected and which source address the
// listener saw — the observable that tells the network models apart (docs/dataplane.md §1). Both processes are bounded
// in time and killed afterwards. A probe of a Service starts a listener in each backend pod instead, on the port it
// serves the Service on, where nothing listens yet (an agnhost backend answers its name itself), and says which
// backend answered.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProbeResult } from '../dataplane.js';
import { inNetns, run } from './exec.js';

const WHOAMI = fileURLToPath(new URL('./whoami.js', import.meta.url));

/** A backend pod of a probed Service: where its listener runs, and the name it is reported by. */
export interface BackendEnd {
  label: string;
  /** The name its own server answers with (agnhost: the pod's hostname). */
  hostname: string;
  netns: string;
  port: number;
}

interface Listener {
  stop(): void;
  /** The source address it saw, once a client came. */
  seen?: string;
}

/** Starts the listener; resolves once it listens. */
function listen(netns: string, port: number, lifetimeMs: number): Promise<Listener> {
  const [file, args] = inNetns(netns, process.execPath, [WHOAMI, 'serve', String(port), String(lifetimeMs)]);
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const listener: Listener = {
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      const text = d.toString();
      const seen = /^seen (\S+)$/m.exec(text)?.[1];
      if (seen) listener.seen = seen;
      if (text.includes('listening')) resolve(listener);
    });
    child.on('error', (e) => reject(new Error(`cannot start the probe listener in ${netns}: ${e.message}`)));
    child.on('exit', (code) => reject(new Error(`the probe listener in ${netns} exited (${code}): ${err.trim()}`)));
  });
}

/** How long a backend's listener may take to report the client after the connector read its answer. */
const SEEN_GRACE_MS = 500;

export async function probeTcp(
  fromNetns: string,
  to: { ip: string; port: number },
  targetNetns: string | undefined,
  timeoutMs: number,
  backends?: BackendEnd[],
): Promise<ProbeResult> {
  const t0 = performance.now();
  const listeners: { listener: Listener; backend?: BackendEnd }[] = [];
  try {
    // A pod whose listener cannot start already has a server on that port (its own, or a probe's still running):
    // the probe talks to it, as HTTP (what the backend images serve).
    let busy = false;
    if (targetNetns) {
      try {
        listeners.push({ listener: await listen(targetNetns, to.port, timeoutMs + 5000) });
      } catch (e) {
        if (!/EADDRINUSE/.test((e as Error).message)) throw e;
        busy = true;
      }
    }
    const started = await Promise.allSettled((backends ?? []).map((b) => listen(b.netns, b.port, timeoutMs + 5000)));
    started.forEach((r, i) => {
      if (r.status === 'fulfilled') listeners.push({ listener: r.value, backend: backends![i]! });
    });
    const http = backends || busy ? ['http'] : [];
    const [file, args] = inNetns(fromNetns, process.execPath, [WHOAMI, 'ask', to.ip, String(to.port), String(timeoutMs), ...http]);
    const r = await run(file, args, undefined, timeoutMs + 5000);
    const line = r.stdout.trim().split('\n').pop() ?? '';
    let parsed: { connected?: boolean; seen?: string; answer?: string; error?: string };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      parsed = { connected: false, error: (r.stderr || r.stdout).trim() || `probe exited ${r.code}` };
    }
    const backend = backends && parsed.connected ? await answeredBy(listeners, backends, parsed.answer) : undefined;
    const ms = performance.now() - t0;
    return {
      connected: parsed.connected === true,
      ...(parsed.seen ? { seenSource: parsed.seen } : {}),
      ...(backend ? { backend } : {}),
      ...(parsed.error ? { error: parsed.error } : {}),
      ms,
    };
  } catch (e) {
    return { connected: false, error: (e as Error).message, ms: performance.now() - t0 };
  } finally {
    for (const { listener } of listeners) listener.stop();
  }
}

/** The backend whose probe listener saw the client, or whose own server answered with its name. */
async function answeredBy(
  listeners: { listener: Listener; backend?: BackendEnd }[],
  backends: BackendEnd[],
  answer: string | undefined,
): Promise<string | undefined> {
  if (answer !== undefined) {
    // agnhost answers with its hostname alone; a page (nginx's here) names it among other words.
    const words = new Set(answer.split(/[^A-Za-z0-9.-]+/).map((w) => w.replace(/\.+$/, '')));
    return (backends.find((b) => b.hostname === answer) ?? backends.find((b) => words.has(b.hostname)))?.label;
  }
  const deadline = performance.now() + SEEN_GRACE_MS;
  for (;;) {
    const hit = listeners.find((l) => l.backend && l.listener.seen);
    if (hit || performance.now() > deadline) return hit?.backend?.label;
    await new Promise((r) => setTimeout(r, 20));
  }
}
