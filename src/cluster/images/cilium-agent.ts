// cilium-agent (quay.io/cilium/cilium, `cilium-agent --config-dir=/tmp/cilium/config-map`) on one node, as it
// runs with cluster-pool IPAM in tunnel mode (the chart's aksbyocni defaults):
//   1. waits for the CRDs the operator registers, then creates or updates its CiliumNode (name = the node;
//      spec.addresses with the node's InternalIP) and waits for the operator's spec.ipam.podCIDRs;
//   2. takes the router IP (cilium_host) from that CIDR and publishes it as the CiliumInternalIP;
//   3. serves its API on /var/run/cilium/cilium.sock (cilium-api.ts), which cilium-cni asks for addresses and
//      tells about endpoints; each endpoint becomes a CiliumEndpoint (and its labels a CiliumIdentity);
//      deletions cilium-cni queued while the agent was away (/var/run/cilium/deleteQueue) are finished;
//   4. with a data plane, programs the VXLAN overlay (cilium_vxlan, UDP 8472) to every other CiliumNode's pod CIDR;
//   5. once up, writes write-cni-conf-when-ready (05-cilium.conflist) and, with cni-exclusive, renames the other
//      CNI configurations to *.cilium_bak (daemon/cmd/cni/config.go), and keeps doing so (it watches the dir);
//   6. is Ready; when stopped it stops serving (the socket goes), leaving the conflist and the datapath.
import { join } from 'node:path';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { Cidr } from '../../net/ip.js';
import type { KubeObject } from '../apimachinery/object.js';
import { type AgentEndpoint, AgentApi } from './cilium-api.js';
import { ciliumNamespace, listValue, logLine, pause, readCiliumConfig } from './cilium-config.js';
import { CILIUM_GROUP, ciliumPath } from './cilium-crds.js';
import { NodeIpam } from './cilium-node-ipam.js';
import type { Program, ProgramContext, VxlanOverlay } from './program.js';

const SUBSYS = 'daemon';
const RUN_DIR = '/var/run/cilium';
/** Cilium's VXLAN port (pkg/defaults TunnelPortVXLAN) and device. */
const VXLAN_PORT = 8472;
const VXLAN_DEVICE = 'cilium_vxlan';
/** Tunnel MTU: the NIC's 1500 minus VXLAN's 50 bytes (pkg/mtu). */
const TUNNEL_MTU = 1450;
/** Cluster-local identities start here (pkg/identity: MinimalAllocationIdentity). */
const FIRST_IDENTITY = 256;
const MAX_IDENTITY = 65_535;
const RESYNC_MS = 5_000;

/** The conflist the agent writes with no chaining (daemon/cmd/cni/config.go, cniConfigs["none"]). */
export function ciliumConflist(debug: boolean, logFile: string): string {
  return `
{
  "cniVersion": "0.3.1",
  "name": "cilium",
  "plugins": [
    {
       "type": "cilium-cni",
       "enable-debug": ${debug},
       "log-file": ${JSON.stringify(logFile)}
    }
  ]
}`;
}

/** A VTEP MAC for the node derived from its IP: every agent computes every peer's without publishing it. */
export function vtepMac(nodeIp: string): string {
  const octets = nodeIp.split('.').map((o) => Number(o) & 0xff);
  return ['0a', 'c1', ...octets.map((o) => o.toString(16).padStart(2, '0'))].join(':');
}

function addressOf(cn: KubeObject, type: string): string | undefined {
  const addrs = (cn['spec'] as { addresses?: unknown } | undefined)?.addresses;
  if (!Array.isArray(addrs)) return undefined;
  const hit = addrs.find((a) => a !== null && typeof a === 'object' && (a as { type?: unknown }).type === type) as { ip?: unknown } | undefined;
  return typeof hit?.ip === 'string' ? hit.ip : undefined;
}

function podCidrs(cn: KubeObject | undefined): string[] {
  const c = ((cn?.['spec'] as { ipam?: { podCIDRs?: unknown } } | undefined)?.ipam?.podCIDRs ?? []) as unknown;
  return Array.isArray(c) ? c.filter((x): x is string => typeof x === 'string') : [];
}

/** Creates the CiliumNode or updates its addresses; returns it. */
function upsertCiliumNode(ctx: ProgramContext, addresses: Array<{ type: string; ip: string }>): KubeObject | undefined {
  const path = ciliumPath('ciliumnodes');
  const existing = ctx.api.get(`${path}/${ctx.node}`);
  if (!existing) {
    const node = ctx.api.get(`/api/v1/nodes/${ctx.node}`);
    const created = ctx.api.create(path, {
      apiVersion: `${CILIUM_GROUP}/v2`,
      kind: 'CiliumNode',
      metadata: {
        name: ctx.node,
        labels: node?.metadata.labels ?? {},
        ...(node?.metadata.uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: ctx.node, uid: node.metadata.uid }] } : {}),
      },
      spec: { addresses, encryption: {}, eni: {}, health: {}, ingress: {}, ipam: {} },
    });
    return created.object;
  }
  const spec = (existing['spec'] ?? {}) as Record<string, unknown>;
  const updated = ctx.api.update(`${path}/${ctx.node}`, { ...existing, spec: { ...spec, addresses } });
  return updated.object ?? ctx.api.get(`${path}/${ctx.node}`);
}

/** The security labels of a pod's identity (the k8s: labels Cilium derives from the pod and its namespace). */
function securityLabels(pod: KubeObject | undefined, namespace: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(pod?.metadata.labels ?? {})) {
    if (k === 'pod-template-hash' || k === 'controller-revision-hash' || k === 'pod-template-generation') continue;
    out[`k8s:${k}`] = v;
  }
  out['k8s:io.cilium.k8s.policy.cluster'] = 'default';
  out['k8s:io.cilium.k8s.policy.serviceaccount'] = String((pod?.['spec'] as { serviceAccountName?: unknown } | undefined)?.serviceAccountName ?? 'default');
  out['k8s:io.kubernetes.pod.namespace'] = namespace;
  return out;
}

/** The CiliumIdentity for a label set: the existing one, else a new one (identity-allocation-mode crd). */
function identityFor(ctx: ProgramContext, labels: Record<string, string>, namespace: string): number {
  const key = JSON.stringify(Object.entries(labels).sort());
  const all = ctx.api.list(ciliumPath('ciliumidentities'));
  const used = new Set<number>();
  for (const id of all) {
    used.add(Number(id.metadata.name));
    const sl = (id['security-labels'] ?? {}) as Record<string, string>;
    if (JSON.stringify(Object.entries(sl).sort()) === key) return Number(id.metadata.name);
  }
  for (let n = FIRST_IDENTITY; n <= MAX_IDENTITY; n++) {
    if (used.has(n)) continue;
    const metaLabels: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries(labels))
      if (k.length - 4 <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(v) && v.length <= 63) metaLabels[k.slice(4)] = v;
    const res = ctx.api.create(ciliumPath('ciliumidentities'), {
      apiVersion: `${CILIUM_GROUP}/v2`,
      kind: 'CiliumIdentity',
      metadata: { name: String(n), labels: { ...metaLabels, 'io.kubernetes.pod.namespace': namespace } },
      'security-labels': labels,
    });
    if (res.object || res.status === 409) return n;
    break;
  }
  return 0;
}

function createCiliumEndpoint(ctx: ProgramContext, ep: AgentEndpoint): void {
  const pod = ctx.api.get(`/api/v1/namespaces/${ep.namespace}/pods/${ep.podName}`);
  const labels = securityLabels(pod, ep.namespace);
  const identity = identityFor(ctx, labels, ep.namespace);
  const body = {
    apiVersion: `${CILIUM_GROUP}/v2`,
    kind: 'CiliumEndpoint',
    metadata: {
      name: ep.podName,
      namespace: ep.namespace,
      ...(pod?.metadata.uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: ep.podName, uid: pod.metadata.uid, blockOwnerDeletion: true }] } : {}),
    },
    status: {
      id: ep.id,
      'external-identifiers': {
        'container-id': ep.containerId,
        'k8s-namespace': ep.namespace,
        'k8s-pod-name': ep.podName,
        'pod-name': `${ep.namespace}/${ep.podName}`,
      },
      identity: { id: identity, labels: Object.entries(labels).map(([k, v]) => `${k}=${v}`) },
      networking: { addressing: [{ ipv4: ep.ipv4 }], node: ctx.nodeIp },
      state: 'ready',
      encryption: {},
      policy: { ingress: { enforcing: false, state: '<status disabled>' }, egress: { enforcing: false, state: '<status disabled>' } },
    },
  };
  const path = ciliumPath('ciliumendpoints', ep.namespace);
  const res = ctx.api.create(path, body);
  if (res.status === 409) {
    const old = ctx.api.get(`${path}/${ep.podName}`);
    if (old) ctx.api.update(`${path}/${ep.podName}`, { ...body, metadata: { ...old.metadata, ...body.metadata } });
  }
}

/** Restores the endpoints of this node the CiliumEndpoints still record (a restarted agent keeps its pods). */
function restoredEndpoints(ctx: ProgramContext, ipam: NodeIpam): AgentEndpoint[] {
  const out: AgentEndpoint[] = [];
  for (const cep of ctx.api.list(ciliumPath('ciliumendpoints'))) {
    const st = (cep['status'] ?? {}) as {
      id?: unknown;
      networking?: { node?: unknown; addressing?: Array<{ ipv4?: unknown }> };
      'external-identifiers'?: { 'container-id'?: unknown };
    };
    const ip = String(st.networking?.addressing?.[0]?.ipv4 ?? '');
    if (st.networking?.node !== ctx.nodeIp || ipam.ownerOf(ip) === undefined) continue;
    out.push({
      id: Number(st.id) || 0,
      containerId: String(st['external-identifiers']?.['container-id'] ?? ''),
      podName: cep.metadata.name,
      namespace: cep.metadata.namespace ?? '',
      ipv4: ip,
      interfaceName: '',
    });
  }
  return out;
}

/** Writes the conflist when it differs and renames the other configurations away (setupCNIConfFile). */
function writeCniConf(ctx: ProgramContext, dest: string, content: string, exclusive: boolean): void {
  const dir = dest.slice(0, dest.lastIndexOf('/')) || '/';
  const file = dest.slice(dest.lastIndexOf('/') + 1);
  if (ctx.files.read(dest) !== content) {
    ctx.files.write(dest, content, 0o644);
    logLine(ctx, 'cni-config', 'info', `Wrote CNI configuration file to ${dest}`);
  }
  const renames = ctx.files.list(dir).filter((n) => n === '05-cilium.conf' || (exclusive && n !== file && /\.(conf|conflist|json)$/.test(n)));
  for (const name of renames) {
    const text = ctx.files.read(`${dir}/${name}`);
    if (typeof text !== 'string') continue;
    if (name !== '05-cilium.conf') logLine(ctx, 'cni-config', 'info', `Renaming non-Cilium CNI configuration file ${name} to ${name}.cilium_bak`);
    ctx.files.write(`${dir}/${name}.cilium_bak`, text);
    ctx.files.remove(`${dir}/${name}`);
  }
}

/** The overlay to every other CiliumNode that has a pod CIDR and a router IP. */
function overlayOf(ctx: ProgramContext, router: string): VxlanOverlay {
  const peers: VxlanOverlay['peers'] = [];
  for (const cn of ctx.api.list(ciliumPath('ciliumnodes'))) {
    if (cn.metadata.name === ctx.node) continue;
    const nodeIp = addressOf(cn, 'InternalIP');
    const tunnelIp = addressOf(cn, 'CiliumInternalIP');
    const cidrs = podCidrs(cn);
    if (nodeIp && tunnelIp && cidrs.length > 0) peers.push({ nodeIp, mac: vtepMac(nodeIp), tunnelIp, cidrs });
  }
  return { device: VXLAN_DEVICE, vni: 2, port: VXLAN_PORT, mtu: TUNNEL_MTU, mac: vtepMac(ctx.nodeIp), localIp: ctx.nodeIp, addresses: [`${router}/32`], peers };
}

/** Finishes the deletions cilium-cni queued while the agent was away (lib/deletion_queue.go). */
function drainDeleteQueue(ctx: ProgramContext, runDir: string, api: AgentApi): void {
  const dir = join(runDir, 'deleteQueue');
  let names: string[] = [];
  try {
    names = readdirSync(dir).slice(0, 10_000);
  } catch {
    return;
  }
  for (const name of names) {
    const file = join(dir, name);
    let id = '';
    try {
      id = readFileSync(file, 'utf8').slice(0, 512);
    } catch {
      continue;
    }
    if (id.startsWith('container-id:')) api.deleteEndpoint(id.slice('container-id:'.length));
    rmSync(file, { force: true });
    logLine(ctx, 'cilium-dbg', 'info', 'Processed queued endpoint deletion', { endpointID: id });
  }
}

export const ciliumAgent: Program = async (ctx) => {
  // The chart's readinessProbe (/healthz on 9879) fails until the daemon is initialized (step 6): not Ready before,
  // so `kubectl rollout status ds/cilium` does not end before the CiliumNodes and the conflist exist.
  ctx.setReady(false);
  logLine(ctx, SUBSYS, 'info', "  --config-dir='/tmp/cilium/config-map'");
  logLine(ctx, SUBSYS, 'info', 'Cilium 1.19.6 go version go1.24');
  const config = readCiliumConfig(ctx);
  if (!config) {
    logLine(ctx, SUBSYS, 'error', `Unable to read configuration: configmaps "cilium-config" not found in namespace ${ciliumNamespace(ctx)}`);
    return 1;
  }
  if ((config['ipam'] ?? 'cluster-pool') !== 'cluster-pool') {
    logLine(ctx, SUBSYS, 'error', `aksemu emulates cilium-agent with cluster-pool IPAM only, not ${config['ipam']}`);
    return 1;
  }
  // 1. The CRDs, then the CiliumNode.
  logLine(ctx, 'k8s', 'info', 'Waiting until all Cilium CRDs are available');
  while (ctx.api.request('GET', ciliumPath('ciliumnodes')).status !== 200) {
    await pause(ctx.signal, 500);
    if (ctx.signal.aborted) return 0;
  }
  logLine(ctx, 'k8s', 'info', 'All Cilium CRDs have been found and are available');
  const internal = [{ type: 'InternalIP', ip: ctx.nodeIp }];
  let cn = upsertCiliumNode(ctx, internal);
  logLine(ctx, 'ipam', 'info', "Waiting for initial IP to become available in 'ciliumnodes.cilium.io' custom resource", { node: ctx.node });
  while (podCidrs(cn).length === 0) {
    await pause(ctx.signal, 300);
    if (ctx.signal.aborted) return 0;
    cn = ctx.api.get(ciliumPath('ciliumnodes', undefined, ctx.node)) ?? upsertCiliumNode(ctx, internal);
  }
  // 2. The router IP.
  const runDir = ctx.files.host(RUN_DIR) ?? join(ctx.nodeRoot, RUN_DIR);
  const cidr = Cidr.parse(podCidrs(cn)[0] ?? '');
  const ipam = NodeIpam.open(join(runDir, 'state', 'ipam.json'), cidr);
  logLine(ctx, 'ipam', 'info', 'Initializing CRD-based IPAM', { podCIDR: cidr.toString() });
  upsertCiliumNode(ctx, [...internal, { type: 'CiliumInternalIP', ip: ipam.router }]);
  logLine(ctx, SUBSYS, 'info', 'Setting up host router IP', { ipv4: ipam.router, device: 'cilium_host' });
  // 3. The API.
  const sock = join(runDir, 'cilium.sock');
  const api = new AgentApi(
    { ipam, mtu: TUNNEL_MTU, ipamMode: 'cluster-pool' },
    {
      endpointCreated: (ep) => {
        createCiliumEndpoint(ctx, ep);
        logLine(ctx, 'endpoint', 'info', 'New endpoint', { ciliumEndpointName: `${ep.namespace}/${ep.podName}`, endpointID: ep.id, ipv4: ep.ipv4 });
      },
      endpointDeleted: (ep) => {
        ctx.api.delete(ciliumPath('ciliumendpoints', ep.namespace, ep.podName));
        logLine(ctx, 'endpoint', 'info', 'Removed endpoint', { ciliumEndpointName: `${ep.namespace}/${ep.podName}`, endpointID: ep.id, ipv4: ep.ipv4 });
      },
    },
  );
  api.restore(restoredEndpoints(ctx, ipam));
  try {
    await api.listen(sock);
  } catch (e) {
    logLine(ctx, SUBSYS, 'error', 'Unable to start the API server', { error: (e as Error).message, socket: '/var/run/cilium/cilium.sock' });
    return 1;
  }
  logLine(ctx, SUBSYS, 'info', 'Serving cilium API at unix:///var/run/cilium/cilium.sock');
  drainDeleteQueue(ctx, runDir, api);
  // 4. The overlay, converged on every CiliumNode change.
  let applied = '';
  const converge = async () => {
    if (!ctx.network || ctx.signal.aborted) return;
    const overlay = overlayOf(ctx, ipam.router);
    const key = JSON.stringify(overlay);
    if (key === applied) return;
    applied = key;
    try {
      await ctx.network.applyOverlay(ctx.node, overlay);
      // enable-ipv4-masquerade (the chart's default true): pods' traffic leaving the cluster's pod ranges takes the
      // node's address; the native-routing CIDR, when given, is kept as well.
      if (config['enable-ipv4-masquerade'] !== 'false') {
        const pool = listValue(config['cluster-pool-ipv4-cidr']);
        await ctx.network.applyMasquerade?.(ctx.node, { sources: pool, keep: [...pool, ...listValue(config['ipv4-native-routing-cidr'])] });
      }
    } catch (e) {
      applied = '';
      logLine(ctx, 'datapath', 'warning', 'Unable to program the tunnel', { device: VXLAN_DEVICE, error: (e as Error).message });
    }
  };
  let queued = false;
  const kick = () => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      void converge();
    });
  };
  const unwatch = ctx.network ? ctx.api.watch(ciliumPath('ciliumnodes'), kick) : () => {};
  await converge();
  // 5. The CNI configuration, once up.
  const dest = (config['write-cni-conf-when-ready'] ?? '').trim();
  const exclusive = config['cni-exclusive'] === 'true';
  const conflist = ciliumConflist(config['debug'] === 'true', config['cni-log-file'] || '/var/run/cilium/cilium-cni.log');
  let ready = false;
  try {
    if (dest !== '') logLine(ctx, 'cni-config', 'info', 'Generating CNI configuration file with mode none');
    for (;;) {
      if (dest !== '') {
        try {
          writeCniConf(ctx, dest, conflist, exclusive);
        } catch (e) {
          logLine(ctx, 'cni-config', 'warning', `Failed to write CNI config file (will retry): ${(e as Error).message}`);
        }
      }
      if (!applied && ctx.network) await converge();
      if (!ready) logLine(ctx, SUBSYS, 'info', 'Daemon initialization completed');
      ready = true;
      ctx.setReady(true);
      if (ctx.signal.aborted) break;
      await pause(ctx.signal, RESYNC_MS);
      if (ctx.signal.aborted) break;
    }
  } finally {
    unwatch();
    await api.close(sock);
  }
  logLine(ctx, SUBSYS, 'info', 'Stopped serving cilium API at unix:///var/run/cilium/cilium.sock');
  return 0;
};
