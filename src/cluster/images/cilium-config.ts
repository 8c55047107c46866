// The cilium-config ConfigMap as Cilium's binaries read it: `--config-dir=/tmp/cilium/config-map`, one file per key
// (the operator mounts the ConfigMap there; the agent's `config` init container, `cilium-dbg build-config`, writes
// it there into the pod's emptyDir). When the directory is not there the ConfigMap is read through the API, as
// build-config itself reads it. Also the log line shape Cilium's binaries print (logfmt with a subsys).
import type { ProgramContext } from './program.js';

export const CONFIG_MAP = 'cilium-config';
export const DEFAULT_CONFIG_DIR = '/tmp/cilium/config-map';
/** At most this many keys are read (the chart's ConfigMap has about 200). */
const MAX_KEYS = 1000;

/** The value of `--config-dir=…` (or `--config-dir …`) in argv. */
export function configDirOf(argv: string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a.startsWith('--config-dir=')) return a.slice('--config-dir='.length);
    if (a === '--config-dir' && argv[i + 1] !== undefined) return argv[i + 1] ?? DEFAULT_CONFIG_DIR;
  }
  return DEFAULT_CONFIG_DIR;
}

/** The namespace the pod runs in (CILIUM_K8S_NAMESPACE, else the pod's). */
export function ciliumNamespace(ctx: Pick<ProgramContext, 'env' | 'pod'>): string {
  return ctx.env['CILIUM_K8S_NAMESPACE'] || ctx.pod.metadata.namespace || 'kube-system';
}

/** The ConfigMap's data through the API; undefined when it is not there. */
export function configMapData(ctx: Pick<ProgramContext, 'api' | 'env' | 'pod'>): Record<string, string> | undefined {
  const cm = ctx.api.get(`/api/v1/namespaces/${ciliumNamespace(ctx)}/configmaps/${CONFIG_MAP}`);
  const data = (cm as { data?: unknown } | undefined)?.data;
  if (data === null || typeof data !== 'object') return cm ? {} : undefined;
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(data as Record<string, unknown>).slice(0, MAX_KEYS)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The configuration from the config dir, else from the ConfigMap; undefined when neither is there. */
export function readCiliumConfig(ctx: Pick<ProgramContext, 'api' | 'env' | 'pod' | 'files' | 'argv'>): Record<string, string> | undefined {
  const dir = configDirOf(ctx.argv);
  const names = ctx.files.list(dir).slice(0, MAX_KEYS);
  if (names.length > 0) {
    const out = Object.create(null) as Record<string, string>;
    for (const name of names) {
      const v = ctx.files.read(`${dir}/${name}`);
      if (typeof v === 'string') out[name] = v.trim();
    }
    return out;
  }
  return configMapData(ctx);
}

/** A list value (`cluster-pool-ipv4-cidr`: space or comma separated). */
export function listValue(v: string | undefined): string[] {
  return (v ?? '').split(/[\s,]+/).filter((s) => s !== '');
}

/** Prints one log line as Cilium's binaries do (logfmt). */
export function logLine(
  ctx: Pick<ProgramContext, 'write'>,
  subsys: string,
  level: 'info' | 'warning' | 'error',
  msg: string,
  fields: Record<string, string | number> = {},
): void {
  const extra = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === 'number' || /^[\w./:-]+$/.test(v) ? v : JSON.stringify(v)}`)
    .join('');
  ctx.write('stderr', `time="${new Date().toISOString()}" level=${level} msg=${JSON.stringify(msg)}${extra} subsys=${subsys}\n`);
}

/** Resolves after ms, or at once when the signal aborts. */
export function pause(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
