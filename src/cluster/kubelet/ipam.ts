// Pod addresses per network model (issue 4 §5), behind the kubelet's PodSandboxes calls; the model's
// podAddresses say where they come from:
//   node-pod-cidr      the node's podCIDR /24 (.1 is cbr0), in memory (ipam-range.ts): kubenet, overlay
//   node-subnet        the node NIC's pre-allocated secondary IPs, lowest free first: Azure CNI node subnet; on a
//                      node with a pod subnet, its pod-subnet addresses instead, through CNS: a static block's, or
//                      dynamic batches of 16, another asked for (growPodSubnet) when the node's are all in use
//   user-cni           the default network of the node's conf dir: when its main (first) plugin is one of aksemu's
//                      (src/cni/plugins/registry.ts) that plugin itself, run address-only (CNI_ARGS
//                      AKSEMU_ADDRESS_ONLY=true); else its IPAM plugin run for real (ipam-exec.ts), or, when that
//                      binary is not installed, host-local's walk over the config's ranges or the node's podCIDR:
//                      BYO CNI (and an unknown plugin). Plugins are found as the kubelet on AKS finds them: in the
//                      node's /opt/cni/bin (node-root.ts), after `aksemu cni install --plugin-dir`'s dir
//   hostNetwork        the node IP
// The words of an exhausted node are those of the model's IPAM (host-local, CNS, azure-vnet-ipam).
// Failures read as the runtime's: `rpc error: code = Unknown desc = failed to setup network for sandbox "<id>":
// plugin type="<type>" failed (add): <plugin error>` (libcni names the plugin; `name=` only when the plugin
// object carries one). Only addresses are kept here; interfaces and routes are the data plane's.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { networkModelOf, type PodIpam } from '../../aks/network-models/index.js';
import { CniError, findPlugin, type CniErrorContext } from '../../cni/exec.js';
import type { ClusterRecord, NodeRecord } from '../../model/cluster-records.js';
import { loadDefaultNetwork, type LoadedNetwork } from '../../cni/confdir.js';
import { PLUGINS } from '../../cni/plugins/registry.js';
import { asNodePaths, NODE_CNI_BIN, onNode } from '../nodefs/node-root.js';
import { cniInstallRecord, nodesDir } from '../nodefs/paths.js';
import { hostLocalOwner, ipamAdd, ipamConfig, ipamDel, nodeCniDataDir, type IpamExec } from './ipam-exec.js';
import { AddressListPool, GrowingAddressPool, RangeSetPool, rangesOfIpam } from './ipam-range.js';
import type { PodSandboxes, SandboxRequest, SandboxResult } from './sandbox.js';

/** What the IPAM needs of a cluster's runtime: ClusterRuntime has it all (tests give it another home). */
export interface IpamHost {
  readonly home: string;
  readonly record: ClusterRecord;
  nodeRecord(name: string): NodeRecord | undefined;
  /** prepare: the node's /opt/cni/bin and API socket link, before it first runs a plugin (kubelet.ts). */
  readonly kubelets: {
    confDir(node: string): string;
    prepare?(node: string): void;
    /** The node's default network now (loadDefaultNetwork of its conf dir), answered from what the kubelet read when it can. */
    network?(node: string): LoadedNetwork | undefined;
  };
  /**
   * Azure CNI with a pod subnet, dynamic mode: CNS asks for another batch of the pod subnet for the node; the new
   * addresses, or undefined when none can be had (the subnet is full, or the node holds maxPods' worth already).
   */
  growPodSubnet?(node: string): string[] | undefined;
}

interface Pool {
  allocate(): string | undefined;
  claim(ip: string): boolean;
  release(ip: string): void;
  /** A pool that grows (GrowingAddressPool): more addresses the node now holds. */
  add?(ips: readonly string[]): void;
}

type Plan =
  | {
      kind: 'pool';
      key: string;
      make: () => Pool;
      owner: CniErrorContext;
      exhausted: (pool: Pool, req: SandboxRequest) => string;
      /** The node's addresses as its record has them now, for a pool that grows. */
      addresses?: readonly string[];
      /** Asks for more addresses when the pool is used up (CNS's next batch). */
      grow?: () => string[] | undefined;
    }
  | { kind: 'exec'; exec: IpamExec; network: string }
  | { kind: 'fail'; message: string };

type Holding = { uid: string; sandboxId: string; ip: string } & ({ kind: 'pool'; pool: Pool } | { kind: 'exec'; exec: IpamExec; containerId: string });

/** Azure CNI's azure-vnet-ipam when the NIC's secondary IPs are all in use (Azure/AKS#2532, containerd). */
const AZURE_VNET_EXHAUSTED = 'Failed to allocate pool: Failed to delegate: Failed to allocate address: No available addresses';

/** CNS (overlay) when the node's block is used up: the text Azure's troubleshooting guide quotes. */
function cnsExhausted(node: string, req: SandboxRequest): string {
  const h = createHash('sha1').update(`nc:${node}`).digest('hex');
  const nc = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  return (
    `IPAM Invoker Add failed with error: Failed to get IP address from CNS with error: %w: AllocateIPConfig failed: not enough IPs available for ${nc}, ` +
    `waiting on Azure CNS to allocate more with NC Status: , IP config request is [IPConfigRequest: DesiredIPAddress , PodInterfaceID ${req.sandboxId.slice(0, 8)}-eth0, ` +
    `InfraContainerID ${req.sandboxId}, OrchestratorContext {"PodName":"${req.name}","PodNamespace":"${req.namespace}"}]`
  );
}

/** What a pod sees when its node's addresses are used up, in the words of the model's IPAM. */
const EXHAUSTED: Record<PodIpam, (pool: Pool, req: SandboxRequest, node: string) => string> = {
  'host-local': (pool) => (pool as RangeSetPool).exhausted(),
  'azure-cns': (_, req, node) => cnsExhausted(node, req),
  'azure-vnet-ipam': () => AZURE_VNET_EXHAUSTED,
};

/**
 * A failure in containerd's words (what the kubelet puts in FailedCreatePodSandBox); files under the node's root
 * are named as the node names them (`[/opt/cni/bin]`, as the kubelet on AKS would say).
 */
export function sandboxFailure(req: SandboxRequest, inner: string, nodeRoot?: string): SandboxResult {
  const text = nodeRoot ? asNodePaths(inner, nodeRoot) : inner;
  return { ok: false, message: `rpc error: code = Unknown desc = failed to setup network for sandbox "${req.sandboxId}": ${text}` };
}

function inPlugin(owner: CniErrorContext, err: unknown): string {
  if (err instanceof CniError) return err.inPlugin(owner).message;
  return new CniError({ code: 999, msg: (err as Error).message }).inPlugin(owner).message;
}

function pluginsOf(net: LoadedNetwork): Array<Record<string, unknown>> {
  const list = net.config['plugins'];
  return Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [net.config];
}

/** The plugin that assigns addresses: the first with an `ipam` section, else the first of the chain. */
function ipamOwner(net: LoadedNetwork): { plugin: Record<string, unknown>; ipam?: Record<string, unknown>; context: CniErrorContext } {
  const plugins = pluginsOf(net);
  const plugin = plugins.find((p) => typeof (p['ipam'] as Record<string, unknown> | undefined)?.['type'] === 'string') ?? plugins[0]!;
  const name = typeof plugin['name'] === 'string' && plugin['name'] !== '' ? plugin['name'] : undefined;
  return {
    plugin,
    ...(plugin['ipam'] && typeof plugin['ipam'] === 'object' ? { ipam: plugin['ipam'] as Record<string, unknown> } : {}),
    context: { type: String(plugin['type']), command: 'ADD', ...(name ? { name } : {}) },
  };
}

export class Sandboxes implements PodSandboxes {
  private readonly pools = new Map<string, Pool>();
  private readonly bySandbox = new Map<string, Holding>();
  private readonly byUid = new Map<string, Holding>();
  /** restorePlan's answers, kept for one turn. */
  private readonly restorePlans = new Map<string, { node?: NodeRecord; plan?: Plan }>();

  constructor(private readonly host: IpamHost) {}

  nodeDir(node: string): string {
    const r = this.host.record;
    return join(nodesDir(this.host.home, r.resourceGroup, r.name), node);
  }

  /** A node's plugin search path (CNI_PATH): `aksemu cni install --plugin-dir` first, then the node's /opt/cni/bin. */
  pluginPath(node: string): string[] {
    this.host.kubelets.prepare?.(node);
    const r = this.host.record;
    const bin = onNode(this.nodeDir(node), NODE_CNI_BIN);
    try {
      const installed = JSON.parse(readFileSync(cniInstallRecord(this.host.home, r.resourceGroup, r.name), 'utf8')) as { pluginDir?: unknown };
      if (typeof installed.pluginDir === 'string' && installed.pluginDir !== '') return [installed.pluginDir, bin];
    } catch {
      // no install record: the node's plugins only
    }
    return [bin];
  }

  private pool(plan: Extract<Plan, { kind: 'pool' }>): Pool {
    let pool = this.pools.get(plan.key);
    if (!pool) this.pools.set(plan.key, (pool = plan.make()));
    return pool;
  }

  /**
   * A node's record and plan for the pods restored on it in this turn of the event loop: a restart restores
   * thousands of pods at once, and each node's record and conf dir are read once for all of its pods.
   */
  private restorePlan(name: string): { node?: NodeRecord; plan?: Plan } {
    let known = this.restorePlans.get(name);
    if (!known) {
      const node = this.host.nodeRecord(name);
      known = node ? { node, plan: this.plan(node) } : {};
      if (this.restorePlans.size === 0) setImmediate(() => this.restorePlans.clear());
      this.restorePlans.set(name, known);
    }
    return known;
  }

  /** How a node gives addresses right now: its model, its conf dir and what is installed decide. */
  private plan(node: NodeRecord): Plan {
    const { kubelets } = this.host;
    const net = kubelets.network ? kubelets.network(node.name) : loadDefaultNetwork(kubelets.confDir(node.name));
    // containerd refuses sandboxes while its CNI config is missing (go-cni's ErrCNINotInitialized).
    if (!net) return { kind: 'fail', message: 'cni plugin not initialized' };
    const owner = ipamOwner(net);
    const source = networkModelOf(this.host.record.resolved)?.podAddresses;
    if (source?.from === 'node-pod-cidr') {
      const ranges = node.podCidr ? rangesOfIpam({ subnet: node.podCidr }, undefined) : undefined;
      if (!ranges) return { kind: 'fail', message: inPlugin(owner.context, new Error(`node ${node.name} has no podCIDR to allocate from`)) };
      return {
        kind: 'pool',
        key: `${node.name}\0${node.podCidr}`,
        make: () => new RangeSetPool(ranges),
        owner: owner.context,
        exhausted: (p, req) => EXHAUSTED[source.ipam](p, req, node.name),
      };
    }
    if (source?.from === 'node-subnet' && node.podSubnetIps) {
      // Azure CNI with a pod subnet: CNS hands out the node's batches or blocks of the pod subnet.
      const ips = node.podSubnetIps;
      const grow = node.podSubnetBlocks ? undefined : () => this.host.growPodSubnet?.(node.name);
      return {
        kind: 'pool',
        key: `${node.name}\0pod-subnet`,
        make: () => new GrowingAddressPool(ips),
        owner: owner.context,
        exhausted: (_, req) => cnsExhausted(node.name, req),
        addresses: ips,
        ...(grow ? { grow } : {}),
      };
    }
    if (source?.from === 'node-subnet') {
      const ips = node.secondaryIps ?? [];
      return {
        kind: 'pool',
        key: `${node.name}\0secondary`,
        make: () => new AddressListPool(ips),
        owner: owner.context,
        exhausted: (p, req) => EXHAUSTED[source.ipam](p, req, node.name),
      };
    }
    return this.byoPlan(node, net, owner);
  }

  /**
   * BYO CNI: aksemu's own main plugin address-only; else the network's IPAM plugin when it is installed; otherwise
   * emulate host-local where we can.
   */
  private byoPlan(node: NodeRecord, net: LoadedNetwork, owner: ReturnType<typeof ipamOwner>): Plan {
    const path = this.pluginPath(node.name);
    const nodeDir = this.nodeDir(node.name);
    const main = pluginsOf(net)[0]!;
    if (Object.hasOwn(PLUGINS, main['type'] as string)) return this.addressOnlyPlan(node, net, main, path);
    const ipamType = typeof owner.ipam?.['type'] === 'string' ? (owner.ipam['type'] as string) : undefined;
    const binary = ipamType ? findPlugin(ipamType, path) : undefined;
    if (ipamType && binary) {
      const dataDir = nodeCniDataDir(nodeDir);
      const exec: IpamExec = {
        type: ipamType,
        binary,
        path,
        config: ipamConfig(owner.plugin, { name: net.name, ...(net.cniVersion ? { cniVersion: net.cniVersion } : {}) }, dataDir),
        owner: owner.context,
        netnsDir: join(nodeDir, 'var', 'run', 'netns'),
        dataDir,
      };
      return { kind: 'exec', exec, network: net.name };
    }
    const ranges = owner.ipam ? rangesOfIpam(owner.ipam, node.podCidr) : undefined;
    const subnet = ranges ? undefined : node.podCidr;
    const fallback = ranges ?? (subnet ? rangesOfIpam({ subnet }, undefined) : undefined);
    if (fallback) {
      const pool = () => new RangeSetPool(fallback);
      const key = `${node.name}\0${net.name}\0${fallback.map((r) => `${r.start.toString()}-${r.end.toString()}`).join(',')}`;
      return { kind: 'pool', key, make: pool, owner: owner.context, exhausted: (p) => (p as RangeSetPool).exhausted() };
    }
    // Nothing to emulate: the runtime's own words for the plugin it could not run.
    const missing = ipamType ?? (findPlugin(owner.context.type, path) ? undefined : owner.context.type);
    const why = missing
      ? `failed to find plugin "${missing}" in path [${path.join(' ')}]`
      : `network "${net.name}" assigns addresses without an ipam section and node ${node.name} has no podCIDR: aksemu cannot emulate plugin "${owner.context.type}"`;
    return { kind: 'fail', message: inPlugin(owner.context, new Error(why)) };
  }

  /** One of aksemu's plugins is the network's main plugin: it assigns the address itself (plugin.ts, addressOnly). */
  private addressOnlyPlan(node: NodeRecord, net: LoadedNetwork, main: Record<string, unknown>, path: string[]): Plan {
    const type = main['type'] as string;
    const name = typeof main['name'] === 'string' && main['name'] !== '' ? main['name'] : undefined;
    const context: CniErrorContext = { type, command: 'ADD', ...(name ? { name } : {}) };
    const binary = findPlugin(type, path);
    if (!binary) return { kind: 'fail', message: inPlugin(context, new Error(`failed to find plugin "${type}" in path [${path.join(' ')}]`)) };
    const nodeDir = this.nodeDir(node.name);
    const exec: IpamExec = {
      type,
      binary,
      path,
      config: { ...main, name: net.name, ...(net.cniVersion ? { cniVersion: net.cniVersion } : {}) },
      owner: context,
      netnsDir: join(nodeDir, 'var', 'run', 'netns'),
      dataDir: nodeCniDataDir(nodeDir),
      args: { AKSEMU_ADDRESS_ONLY: 'true' },
    };
    return { kind: 'exec', exec, network: net.name };
  }

  private remember(h: Holding): void {
    this.bySandbox.set(h.sandboxId, h);
    this.byUid.set(h.uid, h);
  }

  private forget(h: Holding): void {
    if (this.bySandbox.get(h.sandboxId) === h) this.bySandbox.delete(h.sandboxId);
    if (this.byUid.get(h.uid) === h) this.byUid.delete(h.uid);
  }

  private async release(h: Holding, req: SandboxRequest): Promise<void> {
    this.forget(h);
    if (h.kind === 'pool') h.pool.release(h.ip);
    else await ipamDel(h.exec, { ...req, sandboxId: h.sandboxId }, h.containerId).catch(() => undefined);
  }

  async setUp(req: SandboxRequest): Promise<SandboxResult> {
    const node = this.host.nodeRecord(req.node);
    if (!node) return sandboxFailure(req, `node "${req.node}" not found`);
    if (req.hostNetwork) return { ok: true, ip: node.ip };
    const nodeRoot = this.nodeDir(req.node);
    const held = this.byUid.get(req.uid);
    if (held?.sandboxId === req.sandboxId) return { ok: true, ip: held.ip };
    // A new sandbox for the same pod replaces the old one (the kubelet kills it first).
    if (held) await this.release(held, req);
    const plan = this.plan(node);
    if (plan.kind === 'fail') return sandboxFailure(req, plan.message, nodeRoot);
    if (plan.kind === 'pool') {
      const pool = this.pool(plan);
      if (plan.addresses) pool.add?.(plan.addresses);
      let ip = pool.allocate();
      const more = ip === undefined ? plan.grow?.() : undefined;
      if (more?.length) {
        pool.add?.(more);
        ip = pool.allocate();
      }
      if (ip === undefined) return sandboxFailure(req, inPlugin(plan.owner, new Error(plan.exhausted(pool, req))));
      this.remember({ kind: 'pool', pool, uid: req.uid, sandboxId: req.sandboxId, ip });
      return { ok: true, ip };
    }
    try {
      const ip = await ipamAdd(plan.exec, req);
      this.remember({ kind: 'exec', exec: plan.exec, containerId: req.sandboxId, uid: req.uid, sandboxId: req.sandboxId, ip });
      return { ok: true, ip };
    } catch (e) {
      return sandboxFailure(req, inPlugin(plan.exec.owner, e), nodeRoot);
    }
  }

  async tearDown(req: SandboxRequest): Promise<void> {
    if (req.hostNetwork) return;
    const held = this.bySandbox.get(req.sandboxId) ?? this.byUid.get(req.uid);
    if (held) await this.release(held, req);
  }

  restore(req: SandboxRequest, ip: string): void {
    if (req.hostNetwork) return;
    const { node, plan } = this.restorePlan(req.node);
    if (!node || !plan || ip === node.ip) return;
    if (plan.kind === 'pool') {
      const pool = this.pool(plan);
      if (pool.claim(ip)) this.remember({ kind: 'pool', pool, uid: req.uid, sandboxId: req.sandboxId, ip });
    } else if (plan.kind === 'exec') {
      // host-local kept its reservation on disk; DEL must name the container it was made for.
      const owner = hostLocalOwner(plan.exec.dataDir, plan.network, ip);
      this.remember({ kind: 'exec', exec: plan.exec, containerId: owner ?? req.sandboxId, uid: req.uid, sandboxId: req.sandboxId, ip });
    }
  }
}

export function createSandboxes(runtime: IpamHost): PodSandboxes {
  return new Sandboxes(runtime);
}
