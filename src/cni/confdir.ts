// CNI network configuration as containerd's CRI plugin loads it (go-cni / libcni): the files in a node's
// /etc/cni/net.d with extension .conf, .conflist or .json, in name order; the first one that parses is the
// default network. Until one does, the runtime reports `cni plugin not initialized` (docs/aks-rules.md §3.1).
// The kubelet emulation (src/cluster) and the data plane's BYO pods (src/dataplane) both load conf dirs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const CNI_EXTENSIONS = ['.conf', '.conflist', '.json'];

export interface LoadedNetwork {
  file: string;
  name: string;
  cniVersion?: string;
  /** Plugin types in chain order. */
  types: string[];
  config: Record<string, unknown>;
}

/** Parses one file's text as libcni does (ConfListFromBytes, or ConfFromBytes for .conf/.json); throws why not. */
export function parseNetworkConfig(file: string, text: string): LoadedNetwork {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`error parsing configuration: ${(e as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('error parsing configuration: not a JSON object');
  const conf = raw as Record<string, unknown>;
  const name = conf['name'];
  const version = typeof conf['cniVersion'] === 'string' ? conf['cniVersion'] : undefined;
  if (file.endsWith('.conflist') || Array.isArray(conf['plugins'])) {
    if (typeof name !== 'string' || name === '') throw new Error('error parsing configuration list: no name');
    const plugins = conf['plugins'];
    if (!Array.isArray(plugins) || plugins.length === 0) throw new Error(`error parsing configuration list: no plugins in list`);
    const types = plugins.map((p, i) => {
      const t = (p as Record<string, unknown> | null)?.['type'];
      if (typeof t !== 'string' || t === '') throw new Error(`error parsing configuration list: plugin ${i} has no type`);
      return t;
    });
    return { file, name, ...(version ? { cniVersion: version } : {}), types, config: conf };
  }
  const type = conf['type'];
  if (typeof type !== 'string' || type === '') throw new Error("error parsing configuration: missing 'type'");
  if (typeof name !== 'string' || name === '') throw new Error("error parsing configuration: missing 'name'");
  return { file, name, ...(version ? { cniVersion: version } : {}), types: [type], config: conf };
}

/** The default network in a conf dir, or undefined (missing dir, no files, none valid). */
export function loadDefaultNetwork(confDir: string): LoadedNetwork | undefined {
  if (!existsSync(confDir)) return undefined;
  let files: string[];
  try {
    files = readdirSync(confDir)
      .filter((f) => CNI_EXTENSIONS.some((ext) => f.endsWith(ext)))
      .sort();
  } catch {
    return undefined;
  }
  return firstNetwork(confDir, files);
}

/** The default network of a conf dir whose config files (CNI_EXTENSIONS) are known, in name order. */
export function firstNetwork(confDir: string, files: readonly string[]): LoadedNetwork | undefined {
  for (const f of files) {
    try {
      return parseNetworkConfig(f, readFileSync(join(confDir, f), 'utf8'));
    } catch {
      // libcni skips files it cannot load; the next one may be the default.
    }
  }
  return undefined;
}
