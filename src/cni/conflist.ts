// A network configuration list as libcni holds it (NetworkConfFromBytes): name, the version candidates, the
// disableCheck / disableGC switches and the plugin objects in chain order. Files are parsed by the conf-dir
// loader the kubelet emulation uses (confdir.ts); a single-plugin .conf is upconverted to a one-plugin list
// as libcni's ConfListFromConf does.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseNetworkConfig, type LoadedNetwork } from './confdir.js';
import { CNI_CODES, CniError } from './exec.js';
import { compareVersions, CURRENT_CNI_VERSION } from './version.js';

export type PluginConf = Record<string, unknown> & { type: string };

export interface NetworkList {
  name: string;
  /**
   * The spec version the plugins are spoken to in. With `cniVersions`, libcni takes the highest entry it
   * implements; CniRuntime.load narrows that to the highest one every plugin also supports (see runtime.ts).
   */
  cniVersion: string;
  /** `cniVersion` plus `cniVersions` (1.1.0), newest first, without versions newer than this runtime. */
  versionCandidates: string[];
  disableCheck: boolean;
  disableGC: boolean;
  plugins: PluginConf[];
  /** The list as JSON (what libcni caches as `config`). */
  bytes: string;
  file?: string;
}

function invalid(msg: string, details?: string): CniError {
  return new CniError({ code: CNI_CODES.invalidConfig, msg, ...(details ? { details } : {}) });
}

/** libcni accepts a boolean or the strings "true"/"false" (any case) for the list's switches. */
function readBool(conf: Record<string, unknown>, key: string): boolean {
  const v = conf[key];
  if (v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && ['true', 'false'].includes(v.toLowerCase())) return v.toLowerCase() === 'true';
  throw invalid(`error parsing configuration list: invalid value ${JSON.stringify(v)} for ${key}`);
}

function versionCandidates(conf: Record<string, unknown>): string[] {
  const raw = conf['cniVersion'];
  if (raw !== undefined && typeof raw !== 'string') throw invalid(`error parsing configuration list: invalid cniVersion type ${typeof raw}`);
  const declared = raw === undefined || raw === '' ? [] : [raw];
  const many = conf['cniVersions'];
  if (many !== undefined) {
    if (!Array.isArray(many)) throw invalid('error parsing configuration list: invalid type for cniVersions');
    many.forEach((v, i) => {
      if (typeof v !== 'string') throw invalid(`error parsing configuration list: invalid type for cniVersions index ${i}`);
      declared.push(v);
    });
  }
  for (const v of declared) compareVersions(v, '0.0.0'); // throws on a malformed entry
  // As libcni: entries newer than the implemented spec are skipped when there is a list to choose from.
  const usable = many === undefined ? declared : declared.filter((v) => compareVersions(v, CURRENT_CNI_VERSION) <= 0);
  return [...new Set(usable)].sort((a, b) => compareVersions(b, a));
}

/** The list for a parsed network config; a single plugin config becomes a list of one. */
export function toNetworkList(loaded: LoadedNetwork): NetworkList {
  const conf = loaded.config;
  const single = !Array.isArray(conf['plugins']);
  const plugins = (single ? [conf] : (conf['plugins'] as unknown[])).map((p, i) => {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw invalid(`failed to parse plugin config ${i}: not a JSON object`);
    return p as PluginConf;
  });
  const list = single ? { name: loaded.name, cniVersion: conf['cniVersion'] ?? '', plugins } : conf;
  const candidates = versionCandidates(list as Record<string, unknown>);
  if (!single && Array.isArray(conf['cniVersions']) && candidates.length === 0) {
    throw invalid(`error parsing configuration list: no usable version in cniVersions (this runtime implements up to ${CURRENT_CNI_VERSION})`);
  }
  return {
    name: loaded.name,
    // libcni treats a missing version as 0.1.0 when validating.
    cniVersion: candidates[0] ?? '0.1.0',
    versionCandidates: candidates.length > 0 ? candidates : ['0.1.0'],
    disableCheck: readBool(conf, 'disableCheck'),
    disableGC: readBool(conf, 'disableGC'),
    plugins,
    bytes: JSON.stringify(list),
    file: loaded.file,
  };
}

/** Parses a network config's text (file name decides .conflist vs .conf as libcni's loaders do). */
export function parseNetworkList(file: string, text: string): NetworkList {
  let loaded: LoadedNetwork;
  try {
    loaded = parseNetworkConfig(file, text);
  } catch (e) {
    throw invalid(`${basename(file)}: ${(e as Error).message}`);
  }
  return toNetworkList(loaded);
}

export function readNetworkList(path: string): NetworkList {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CniError({ code: CNI_CODES.ioFailure, msg: `error reading ${path}`, details: (e as Error).message });
  }
  return { ...parseNetworkList(path, text), file: path };
}

/** The list with one version chosen; the same plugins and bytes (plugins get the version injected anyway). */
export function withVersion(net: NetworkList, cniVersion: string): NetworkList {
  return { ...net, cniVersion };
}
