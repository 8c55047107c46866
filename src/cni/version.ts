// CNI spec versions: comparing them, and asking a plugin binary which ones it speaks (the VERSION command).
// The answer is cached per binary path + mtime + size, so a runtime can validate every list on every ADD at the
// cost of one stat per plugin, and a replaced binary is asked again.
import { statSync } from 'node:fs';
import { CNI_CODES, CniError, execPlugin } from './exec.js';

/** The newest spec this runtime implements (what libcni's version.Current() says). */
export const CURRENT_CNI_VERSION = '1.1.0';

function parts(v: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  if (!m) throw new CniError({ code: CNI_CODES.decodeFailure, msg: `invalid CNI version "${v}"`, details: 'a CNI version is MAJOR.MINOR.PATCH' });
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** <0, 0, >0 as a is older than, equal to or newer than b; throws CniError for a malformed version. */
export function compareVersions(a: string, b: string): number {
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}

export function versionAtLeast(v: string, min: string): boolean {
  return compareVersions(v, min) >= 0;
}

interface PluginVersionInfo {
  binary: string;
  supportedVersions: string[];
}

interface CacheEntry {
  stamp: string;
  info: Promise<PluginVersionInfo>;
}

const probes = new Map<string, CacheEntry>();

/**
 * The versions a plugin binary supports, from its VERSION answer (cached per path + mtime + size).
 * As libcni's PluginDecoder: a 0.2.0 answer without supportedVersions means 0.1.0 and 0.2.0; a plugin that does
 * not know the VERSION command at all (spec 0.1.0) speaks 0.1.0 only.
 */
export function pluginVersions(binary: string, options: { hostNetns?: string; timeoutMs?: number } = {}): Promise<PluginVersionInfo> {
  let stamp: string;
  try {
    const st = statSync(binary);
    stamp = `${st.mtimeMs}:${st.size}`;
  } catch (e) {
    return Promise.reject(new CniError({ code: CNI_CODES.ioFailure, msg: `cannot stat plugin ${binary}`, details: (e as Error).message }));
  }
  const cached = probes.get(binary);
  if (cached && cached.stamp === stamp) return cached.info;
  const info = askVersion(binary, options);
  probes.set(binary, { stamp, info });
  // A failed probe (timeout, a broken binary being replaced) is not remembered.
  info.catch(() => {
    if (probes.get(binary)?.info === info) probes.delete(binary);
  });
  return info;
}

async function askVersion(binary: string, options: { hostNetns?: string; timeoutMs?: number }): Promise<PluginVersionInfo> {
  const type = binary.slice(binary.lastIndexOf('/') + 1);
  let out: Record<string, unknown> | undefined;
  try {
    out = await execPlugin({
      command: 'VERSION',
      type,
      binary,
      path: [binary.slice(0, binary.lastIndexOf('/')) || '/'],
      config: { cniVersion: CURRENT_CNI_VERSION },
      ...(options.hostNetns ? { hostNetns: options.hostNetns } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  } catch (e) {
    if (e instanceof CniError && /unknown CNI_COMMAND: VERSION/i.test(e.error.msg)) return { binary, supportedVersions: ['0.1.0'] };
    throw e;
  }
  const supported = out?.['supportedVersions'];
  if (Array.isArray(supported) && supported.length > 0 && supported.every((v) => typeof v === 'string')) {
    return { binary, supportedVersions: supported as string[] };
  }
  if (out?.['cniVersion'] === '0.2.0') return { binary, supportedVersions: ['0.1.0', '0.2.0'] };
  throw new CniError({
    code: CNI_CODES.decodeFailure,
    msg: `plugin "${type}" gave no supportedVersions in its VERSION answer`,
    details: JSON.stringify(out ?? null),
  });
}
