// The CNI runtime: runs a network configuration list's plugins for one attachment with libcni's semantics
// (containernetworking/cni libcni/api.go, SPEC.md 1.0.0 and 1.1.0):
// - each plugin's stdin is its own object plus the list's `name` and `cniVersion`, a `runtimeConfig` holding only
//   the capability args the plugin declares in `capabilities`, and on ADD the previous plugin's result as
//   `prevResult`;
// - ADD runs the plugins in order and caches the final result; CHECK runs them in order and DEL in reverse, both
//   with the cached result as `prevResult`;
// - STATUS and GC (1.1.0) go to the plugins that speak 1.1.0.
// Where we go beyond libcni it is said below: ADD rolls back on failure (containerd's CRI does this by tearing the
// sandbox's network down), DEL goes on past a failing plugin, and GC falls back to DEL per plugin.
// Plugins run inside the node's network namespace when the caller gives one (never the host's, for a node).
import { CNI_CODES, CniError, execPlugin, findPlugin, type CniCommand } from './exec.js';
import { ResultCache, type CachedAttachment } from './cache.js';
import { readNetworkList, withVersion, type NetworkList, type PluginConf } from './conflist.js';
import { NodeGate } from './node-gate.js';
import { CURRENT_CNI_VERSION, pluginVersions, versionAtLeast } from './version.js';

export { parseNetworkList, readNetworkList, toNetworkList, type NetworkList } from './conflist.js';

interface CniRuntimeOptions {
  /** Where cached results live (<cacheDir>/results/…); the caller's, never /var/lib/cni. */
  cacheDir: string;
  /** CNI_PATH, searched in order: a user's plugin dir goes before /usr/lib/cni. */
  pluginDirs: string[];
  /** Per plugin execution (default 60 s, as the kubelet's CNI timeout order of magnitude). */
  timeoutMs?: number;
}

/** The Kubernetes pod an attachment belongs to; becomes the K8S_* CNI_ARGS the kubelet's runtime passes. */
interface PodRef {
  namespace: string;
  name: string;
  uid?: string;
}

export interface Attachment {
  /** CNI_CONTAINERID: the pod sandbox id. */
  containerId: string;
  /** CNI_NETNS: the pod's network namespace path (e.g. /run/netns/NAME). DEL works without it. */
  netns?: string;
  /** CNI_IFNAME, e.g. eth0. */
  ifName: string;
  pod?: PodRef;
  /** More CNI_ARGS (after IgnoreUnknown=1 and the K8S_* ones). */
  args?: Record<string, string>;
  /** Runtime data offered to plugins by capability: portMappings, bandwidth, ipRanges, dns, mac, ips, … */
  capabilityArgs?: Record<string, unknown>;
  /** The node's network namespace path; plugins run inside it. */
  hostNetns?: string;
}

/** One entry of `cni.dev/valid-attachments` (GC). */
interface GcAttachment {
  containerID: string;
  ifname: string;
}

interface ResolvedPlugin {
  conf: PluginConf;
  binary: string;
  supportedVersions: string[];
}

interface CheckReport {
  /** Plugin types that were asked. */
  checked: string[];
  /** Failures known to be plugin bugs rather than a broken attachment (pitfall 12), reported not raised. */
  warnings: string[];
}

interface StatusReport {
  /** Plugin types asked for STATUS (they speak 1.1.0), in order. */
  asked: string[];
  /** Plugin types that do not speak 1.1.0 and so were not asked. */
  skipped: string[];
}

interface GcReport {
  /** Cached attachments not in the valid list, DELeted by us for the plugins without GC (and uncached). */
  stale: GcAttachment[];
  /** Plugin types sent GC. */
  collected: string[];
}

const ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** The checks libcni makes (utils.ValidateContainerID / ValidateInterfaceName / ValidateNetworkName). */
function validateAttachment(networkName: string, att: Pick<Attachment, 'containerId' | 'ifName'>): void {
  if (!ID_PATTERN.test(networkName)) {
    throw new CniError({ code: CNI_CODES.invalidConfig, msg: `invalid characters found in network name`, details: networkName });
  }
  if (typeof att.containerId !== 'string' || att.containerId === '') throw new CniError({ code: CNI_CODES.invalidEnv, msg: 'missing containerID' });
  if (!ID_PATTERN.test(att.containerId)) throw new CniError({ code: CNI_CODES.invalidEnv, msg: 'invalid characters in containerID', details: att.containerId });
  const ifName = att.ifName;
  if (typeof ifName !== 'string' || ifName === '') throw new CniError({ code: CNI_CODES.invalidEnv, msg: 'interface name is empty' });
  if (ifName.length > 15)
    throw new CniError({
      code: CNI_CODES.invalidEnv,
      msg: 'interface name is too long',
      details: `interface name should be less than 16 characters: ${ifName}`,
    });
  if (ifName === '.' || ifName === '..') throw new CniError({ code: CNI_CODES.invalidEnv, msg: 'interface name is . or ..' });
  if (/[/:\s]/.test(ifName))
    throw new CniError({ code: CNI_CODES.invalidEnv, msg: 'interface name contains / or : or whitespace characters', details: ifName });
}

/** CNI_ARGS pairs as the kubelet's runtime sends them: IgnoreUnknown, then the pod's K8S_* keys, then the rest. */
function argPairs(att: Attachment): Array<[string, string]> {
  const pairs: Array<[string, string]> = [['IgnoreUnknown', '1']];
  if (att.pod) {
    pairs.push(['K8S_POD_NAMESPACE', att.pod.namespace], ['K8S_POD_NAME', att.pod.name], ['K8S_POD_INFRA_CONTAINER_ID', att.containerId]);
    if (att.pod.uid) pairs.push(['K8S_POD_UID', att.pod.uid]);
  }
  for (const [k, v] of Object.entries(att.args ?? {})) if (k !== 'IgnoreUnknown') pairs.push([k, v]);
  return pairs;
}

/** exec.ts adds IgnoreUnknown=1 itself. */
function argRecord(pairs: Array<[string, string]>): Record<string, string> {
  return Object.fromEntries(pairs.filter(([k]) => k !== 'IgnoreUnknown'));
}

/** libcni's buildOneConfig + injectRuntimeConfig. */
function pluginStdin(
  net: NetworkList,
  plugin: PluginConf,
  prevResult?: Record<string, unknown>,
  capabilityArgs?: Record<string, unknown>,
): Record<string, unknown> {
  const conf: Record<string, unknown> = { ...plugin, name: net.name, cniVersion: net.cniVersion };
  if (prevResult) conf['prevResult'] = prevResult;
  const caps = plugin['capabilities'];
  if (caps && typeof caps === 'object' && capabilityArgs) {
    const rc: Record<string, unknown> = {};
    for (const [cap, enabled] of Object.entries(caps as Record<string, unknown>)) {
      if (enabled === true && cap in capabilityArgs) rc[cap] = capabilityArgs[cap];
    }
    if (Object.keys(rc).length > 0) conf['runtimeConfig'] = rc;
  }
  return conf;
}

/** portmap 1.1.x fails CHECK for IPv4-only pods with port mappings (containernetworking/plugins#819). */
function isKnownCheckBug(plugin: PluginConf, err: CniError): boolean {
  return plugin.type === 'portmap' && /^could not check ipv6 dnat/.test(err.error.msg);
}

function isResolved(p: ResolvedPlugin | PluginConf): p is ResolvedPlugin {
  return (
    Array.isArray((p as ResolvedPlugin).supportedVersions) && typeof (p as ResolvedPlugin).binary === 'string' && typeof (p as ResolvedPlugin).conf === 'object'
  );
}

function confOf(p: ResolvedPlugin | PluginConf): PluginConf {
  return isResolved(p) ? p.conf : p;
}

function pluginName(plugin: PluginConf): string | undefined {
  return typeof plugin['name'] === 'string' && plugin['name'] !== '' ? plugin['name'] : undefined;
}

function asCniError(e: unknown): CniError {
  return e instanceof CniError ? e : new CniError({ code: 999, msg: (e as Error)?.message ?? String(e) });
}

/** The version a plugin gets STATUS and GC in: the list's when it is 1.1.0+, else 1.1.0 when the plugin speaks it. */
function verbVersion(net: NetworkList, plugin: ResolvedPlugin): string | undefined {
  if (versionAtLeast(net.cniVersion, '1.1.0')) return net.cniVersion;
  // Our choice: a chain of 1.0.0 plugins (Debian's) with one 1.1.0 plugin still lets that plugin hear STATUS/GC,
  // in its own 1.1.0 config; libcni would ask nobody for a list below 1.1.0.
  return plugin.supportedVersions.includes(CURRENT_CNI_VERSION) ? CURRENT_CNI_VERSION : undefined;
}

export class CniRuntime {
  readonly cache: ResultCache;
  private readonly gate = new NodeGate();

  constructor(readonly options: CniRuntimeOptions) {
    if (!options.cacheDir) throw new Error('CniRuntime needs a cacheDir');
    if (!options.pluginDirs?.length) throw new Error('CniRuntime needs at least one plugin dir');
    this.cache = new ResultCache(options.cacheDir);
  }

  /** Reads a .conflist/.conf/.json file and validates it against the plugin dirs (see resolve). */
  async load(file: string, options: { hostNetns?: string } = {}): Promise<NetworkList> {
    return (await this.resolve(readNetworkList(file), options.hostNetns)).net;
  }

  /**
   * Finds every plugin's binary in the plugin dirs and asks it which versions it speaks (libcni's
   * ValidateNetworkList), choosing the list's version: its cniVersion, or with `cniVersions` the newest entry every
   * plugin supports (libcni takes the newest it implements and would then fail on older plugins).
   */
  async resolve(net: NetworkList, hostNetns?: string): Promise<{ net: NetworkList; plugins: ResolvedPlugin[] }> {
    const missing = [...new Set(net.plugins.map((p) => p.type).filter((t) => !findPlugin(t, this.options.pluginDirs)))];
    if (missing.length > 0) {
      throw new CniError({
        code: CNI_CODES.invalidConfig,
        msg: `failed to find plugin${missing.length > 1 ? 's' : ''} ${missing.map((t) => `"${t}"`).join(', ')} in path [${this.options.pluginDirs.join(' ')}]`,
        details: `network "${net.name}" needs ${net.plugins.map((p) => p.type).join(', ')}`,
      });
    }
    const plugins = await Promise.all(
      net.plugins.map(async (conf) => {
        const binary = findPlugin(conf.type, this.options.pluginDirs)!;
        const info = await pluginVersions(binary, {
          ...(hostNetns ? { hostNetns } : {}),
          ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
        }).catch((e: unknown) => {
          throw asCniError(e).inPlugin({ type: conf.type, command: 'VERSION' });
        });
        return { conf, binary, supportedVersions: info.supportedVersions };
      }),
    );
    const chosen = net.versionCandidates.find((v) => plugins.every((p) => p.supportedVersions.includes(v)));
    if (!chosen) {
      const wanted =
        net.versionCandidates.length > 1
          ? `any of the config versions ${net.versionCandidates.map((v) => `"${v}"`).join(', ')}`
          : `config version "${net.cniVersion}"`;
      const lacking = plugins.filter((p) => !net.versionCandidates.some((v) => p.supportedVersions.includes(v)));
      const culprits = (lacking.length > 0 ? lacking : plugins).map((p) => `${p.conf.type} (${p.binary}) supports ${p.supportedVersions.join(', ')}`);
      throw new CniError({
        code: CNI_CODES.incompatibleVersion,
        msg: `incompatible CNI versions: network "${net.name}" needs ${wanted}, which not every plugin supports`,
        details: culprits.join('; '),
      });
    }
    return { net: withVersion(net, chosen), plugins };
  }

  /** One plugin call; `att` for ADD/CHECK/DEL, `hostNetns` alone for STATUS/GC. */
  private run(
    command: CniCommand,
    plugin: ResolvedPlugin | PluginConf,
    config: Record<string, unknown>,
    target: { att?: Attachment; hostNetns?: string; cniArgs?: Array<[string, string]> },
  ): Promise<Record<string, unknown> | undefined> {
    const conf = confOf(plugin);
    const name = pluginName(conf);
    const { att } = target;
    const hostNetns = att?.hostNetns ?? target.hostNetns;
    return execPlugin({
      command,
      type: conf.type,
      ...(isResolved(plugin) ? { binary: plugin.binary } : {}),
      path: this.options.pluginDirs,
      config,
      ...(att ? { containerId: att.containerId, ifName: att.ifName, args: argRecord(target.cniArgs ?? argPairs(att)) } : {}),
      ...(att?.netns ? { netns: att.netns } : {}),
      ...(hostNetns ? { hostNetns } : {}),
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
    }).catch((e: unknown) => {
      throw asCniError(e).inPlugin({ type: conf.type, command, ...(name ? { name } : {}) });
    });
  }

  private nodeKey(hostNetns: string | undefined): string {
    return hostNetns ?? '';
  }

  /** ADD: plugins in order, each given the previous one's result; the final result is cached and returned. */
  async add(network: NetworkList, att: Attachment): Promise<Record<string, unknown>> {
    validateAttachment(network.name, att);
    return this.gate.container(this.nodeKey(att.hostNetns), att.containerId, async () => {
      const key = { networkName: network.name, containerId: att.containerId, ifName: att.ifName };
      // The spec forbids a second ADD without DEL; rolling back a failed duplicate would also tear down the first.
      if (this.cache.read(key) !== undefined) {
        throw new CniError({
          code: CNI_CODES.invalidEnv,
          msg: `container "${att.containerId}" already has interface "${att.ifName}" in network "${network.name}"`,
          details: 'DEL it first',
        });
      }
      const { net, plugins } = await this.resolve(network, att.hostNetns);
      let result: Record<string, unknown> | undefined;
      for (let k = 0; k < plugins.length; k++) {
        const plugin = plugins[k]!;
        try {
          const out = await this.run('ADD', plugin, pluginStdin(net, plugin.conf, result, att.capabilityArgs), { att });
          if (out === undefined)
            throw new CniError({ code: CNI_CODES.decodeFailure, msg: 'plugin printed no result on ADD' }).inPlugin({ type: plugin.conf.type, command: 'ADD' });
          result = out;
        } catch (e) {
          // Undo plugins 0..k (k may have half-finished), newest first, with the last result we have. The first
          // error is what the caller sees; rollback errors would only hide it.
          await this.delPlugins(net, plugins.slice(0, k + 1), att, result, att.capabilityArgs, argPairs(att));
          throw asCniError(e);
        }
      }
      this.cache.write({
        kind: 'cniCacheV1',
        containerId: att.containerId,
        config: Buffer.from(net.bytes).toString('base64'),
        ifName: att.ifName,
        networkName: net.name,
        ...(att.netns ? { netns: att.netns } : {}),
        cniArgs: argPairs(att),
        ...(att.capabilityArgs ? { capabilityArgs: att.capabilityArgs } : {}),
        result: result!,
      });
      return result!;
    });
  }

  /** DEL of some plugins, newest first, going on past errors; resolves to the first error (or undefined). */
  private async delPlugins(
    net: NetworkList,
    plugins: Array<ResolvedPlugin | PluginConf>,
    att: Attachment,
    prevResult: Record<string, unknown> | undefined,
    capabilityArgs: Record<string, unknown> | undefined,
    cniArgs: Array<[string, string]>,
  ): Promise<CniError | undefined> {
    let first: CniError | undefined;
    for (let i = plugins.length - 1; i >= 0; i--) {
      const plugin = plugins[i]!;
      const conf = confOf(plugin);
      try {
        await this.run('DEL', plugin, pluginStdin(net, conf, prevResult, capabilityArgs), { att, cniArgs });
      } catch (e) {
        first ??= asCniError(e);
      }
    }
    return first;
  }

  /** CHECK (0.4.0+): plugins in order with the cached result; a failure is raised unless it is a known plugin bug. */
  async check(network: NetworkList, att: Attachment): Promise<CheckReport> {
    validateAttachment(network.name, att);
    return this.gate.container(this.nodeKey(att.hostNetns), att.containerId, async () => {
      const { net, plugins } = await this.resolve(network, att.hostNetns);
      if (!versionAtLeast(net.cniVersion, '0.4.0')) {
        throw new CniError({ code: CNI_CODES.incompatibleVersion, msg: `configuration version "${net.cniVersion}" does not support the CHECK command` });
      }
      if (net.disableCheck) return { checked: [], warnings: [] };
      const cached = this.cache.read({ networkName: net.name, containerId: att.containerId, ifName: att.ifName });
      if (cached === undefined) {
        throw new CniError({
          code: CNI_CODES.unknownContainer,
          msg: `no cached result for container "${att.containerId}" interface "${att.ifName}" in network "${net.name}"`,
          details: 'CHECK needs a previous ADD',
        });
      }
      if (cached === 'corrupt')
        throw new CniError({
          code: CNI_CODES.decodeFailure,
          msg: `failed to get network "${net.name}" cached result`,
          details: this.cache.path({ networkName: net.name, containerId: att.containerId, ifName: att.ifName }),
        });
      const report: CheckReport = { checked: [], warnings: [] };
      for (const plugin of plugins) {
        report.checked.push(plugin.conf.type);
        try {
          await this.run('CHECK', plugin, pluginStdin(net, plugin.conf, cached.result, att.capabilityArgs ?? cached.capabilityArgs), { att });
        } catch (e) {
          const err = asCniError(e);
          if (!isKnownCheckBug(plugin.conf, err)) throw err;
          report.warnings.push(`${err.message} (known plugin bug containernetworking/plugins#819; not treated as a failure)`);
        }
      }
      return report;
    });
  }

  /**
   * DEL: plugins in reverse with the cached result (0.4.0+), going on past errors and raising the first; works
   * when the netns is gone or nothing is cached. The cache entry goes on success (kept on failure, so a retry
   * still has its prevResult, as the spec asks).
   */
  async del(network: NetworkList, att: Attachment): Promise<void> {
    validateAttachment(network.name, att);
    return this.gate.container(this.nodeKey(att.hostNetns), att.containerId, async () => {
      const first = await this.delLocked(network, att);
      if (first) throw first;
    });
  }

  private async delLocked(network: NetworkList, att: Attachment, only?: (p: ResolvedPlugin) => boolean): Promise<CniError | undefined> {
    const key = { networkName: network.name, containerId: att.containerId, ifName: att.ifName };
    // A plugin that vanished or cannot answer VERSION must not stop the others' cleanup: run with what we have.
    let net = network;
    let plugins: Array<ResolvedPlugin | PluginConf> = network.plugins;
    try {
      ({ net, plugins } = await this.resolve(network, att.hostNetns));
    } catch {
      // exec reports the missing plugin when its turn comes
    }
    let cached: CachedAttachment | undefined;
    if (versionAtLeast(net.cniVersion, '0.4.0')) {
      const read = this.cache.read(key);
      if (read === 'corrupt') this.cache.remove(key);
      else cached = read;
    }
    const selected = only ? plugins.filter((p) => isResolved(p) && only(p)) : plugins;
    const cniArgs = att.args || att.pod || !cached?.cniArgs ? argPairs(att) : cached.cniArgs;
    const target: Attachment = { ...att, ...((att.netns ?? cached?.netns) ? { netns: att.netns ?? cached!.netns! } : {}) };
    const first = await this.delPlugins(net, selected, target, cached?.result, att.capabilityArgs ?? cached?.capabilityArgs, cniArgs);
    if (!first) this.cache.remove(key);
    return first;
  }

  /** STATUS (1.1.0): asks, in order, the plugins that speak 1.1.0; the first error is raised (codes 50/51). */
  async status(network: NetworkList, options: { hostNetns?: string } = {}): Promise<StatusReport> {
    const { net, plugins } = await this.resolve(network, options.hostNetns);
    const report: StatusReport = { asked: [], skipped: [] };
    for (const plugin of plugins) {
      const version = verbVersion(net, plugin);
      if (!version) {
        report.skipped.push(plugin.conf.type);
        continue;
      }
      report.asked.push(plugin.conf.type);
      const config = { ...plugin.conf, name: net.name, cniVersion: version };
      await this.run('STATUS', plugin, config, options);
    }
    return report;
  }

  /**
   * GC (1.1.0) with the attachments still valid: plugins that speak 1.1.0 get GC with
   * `cni.dev/valid-attachments`; for the others, our choice: every cached attachment of this network that is not
   * valid is DELeted for just those plugins (libcni DELs the whole chain for it, then sends GC), and its cache
   * entry removed. All errors are collected; the first is raised at the end.
   */
  gc(network: NetworkList, valid: GcAttachment[], options: { hostNetns?: string } = {}): Promise<GcReport> {
    return this.gate.node(this.nodeKey(options.hostNetns), async () => {
      const report: GcReport = { stale: [], collected: [] };
      if (network.disableGC) return report;
      const { net, plugins } = await this.resolve(network, options.hostNetns);
      const validKeys = new Set(valid.map((a) => `${a.containerID}\u0000${a.ifname}`));
      const collects = (p: ResolvedPlugin): boolean => verbVersion(net, p) !== undefined;
      let first: CniError | undefined;
      for (const entry of this.cache.list(net.name)) {
        if (validKeys.has(`${entry.containerId}\u0000${entry.ifName}`)) continue;
        report.stale.push({ containerID: entry.containerId, ifname: entry.ifName });
        const att: Attachment = {
          containerId: entry.containerId,
          ifName: entry.ifName,
          ...(entry.netns ? { netns: entry.netns } : {}),
          ...(entry.capabilityArgs ? { capabilityArgs: entry.capabilityArgs } : {}),
          ...(options.hostNetns ? { hostNetns: options.hostNetns } : {}),
        };
        try {
          validateAttachment(net.name, att);
          const err = await this.delLocked(net, att, (p) => !collects(p));
          first ??= err;
        } catch (e) {
          first ??= asCniError(e);
        }
      }
      for (const plugin of plugins.filter(collects)) {
        // libcni sends the list under both names: the 1.1.0 spec text had `cni.dev/attachments` (cni#1101).
        const config = {
          ...plugin.conf,
          name: net.name,
          cniVersion: verbVersion(net, plugin)!,
          'cni.dev/valid-attachments': valid,
          'cni.dev/attachments': valid,
        };
        try {
          await this.run('GC', plugin, config, options);
          report.collected.push(plugin.conf.type);
        } catch (e) {
          first ??= asCniError(e);
        }
      }
      if (first) throw first;
      return report;
    });
  }
}
