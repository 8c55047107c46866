// What a pod asks of its node, as kube-scheduler's NodeResourcesFit counts it: the larger of the sum of its
// containers' requests and its largest init container's, plus spec.overhead. A container with limits but no
// requests requests its limits (the apiserver's defaulting). Quantities are parsed per apimachinery's rules.
import type { KubeObject } from './object.js';

export interface Usage {
  pods: number;
  /** millicores */
  cpu: number;
  /** bytes */
  memory: number;
}

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A resource.Quantity (`100m`, `1.5`, `128Mi`, `1e3`, `2G`) as a number; NaN when it is not one. */
export function parseQuantity(text: unknown): number {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return NaN;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]?))$/.exec(text.trim());
  if (!m) return NaN;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  if (m[3]) return base * BINARY[m[3]]!;
  return base * DECIMAL[m[4] ?? '']!;
}

type Resources = { requests?: Record<string, unknown>; limits?: Record<string, unknown> };

function requestOf(resources: Resources | undefined, name: 'cpu' | 'memory'): number {
  const v = parseQuantity(resources?.requests?.[name] ?? resources?.limits?.[name] ?? 0);
  if (!Number.isFinite(v) || v < 0) return 0;
  return name === 'cpu' ? Math.ceil(v * 1000) : Math.ceil(v);
}

const cache = new WeakMap<KubeObject, Usage>();

/** Stored objects are never modified in place, so the answer is kept per object. */
export function podRequests(pod: KubeObject): Usage {
  const known = cache.get(pod);
  if (known) return known;
  const spec =
    (pod as { spec?: { containers?: Array<{ resources?: Resources }>; initContainers?: Array<{ resources?: Resources }>; overhead?: Record<string, unknown> } })
      .spec ?? {};
  const usage: Usage = { pods: 1, cpu: 0, memory: 0 };
  for (const name of ['cpu', 'memory'] as const) {
    const sum = (spec.containers ?? []).reduce((total, c) => total + requestOf(c.resources, name), 0);
    const init = Math.max(0, ...(spec.initContainers ?? []).map((c) => requestOf(c.resources, name)));
    usage[name] = Math.max(sum, init) + requestOf({ requests: spec.overhead }, name);
  }
  cache.set(pod, usage);
  return usage;
}

/** The node's allocatable pods, cpu (millicores) and memory (bytes). */
export function allocatable(node: KubeObject): Usage {
  const status = (node as { status?: { allocatable?: Record<string, unknown>; capacity?: Record<string, unknown> } }).status ?? {};
  const of = (name: string) => status.allocatable?.[name] ?? status.capacity?.[name];
  const pods = Number(of('pods') ?? 110);
  const cpu = parseQuantity(of('cpu') ?? NaN);
  const memory = parseQuantity(of('memory') ?? NaN);
  return {
    pods: Number.isFinite(pods) ? pods : 110,
    cpu: Number.isFinite(cpu) ? Math.round(cpu * 1000) : Infinity,
    memory: Number.isFinite(memory) ? memory : Infinity,
  };
}
