// calico/node's programs (node/pkg/lifecycle/startup/startup.go and node/pkg/allocateip, v3.32.1, Kubernetes
// datastore), as calico.yaml runs them: `calico-node -init -best-effort` (the ebpf-bootstrap init container: the
// BPF mounts, nothing to do for the iptables data plane) and the image's `start_runit` (the calico-node container):
//   - the node's IPv4 address (IP=autodetect: the node's InternalIP with its subnet's prefix) on the Node as the
//     projectcalico.org/IPv4Address annotation;
//   - the default IPPool `default-ipv4-ippool` when no IPv4 pool exists: CALICO_IPV4POOL_CIDR or 192.168.0.0/16,
//     CALICO_IPV4POOL_IPIP / _VXLAN modes, NAT outgoing (CALICO_IPV4POOL_NAT_OUTGOING, default true), block size
//     CALICO_IPV4POOL_BLOCK_SIZE or 26;
//   - ClusterInformation `default` (datastoreReady: the CNI plugin refuses pods until it is) and FelixConfiguration
//     `default`; /var/lib/calico/nodename for the CNI plugin;
//   - the tunnel address the pool's encapsulation needs, from the node's block (handle ipip-tunnel-addr-<node> or
//     vxlan-tunnel-addr-<node>), on the Node (IPv4IPIPTunnelAddr, or IPv4VXLANTunnelAddr + VXLANTunnelMACAddr);
//   - NetworkUnavailable False (CalicoIsUp), then Ready.
// With a data plane, a VXLAN pool gets Felix's vxlan.calico (VNI 4096, port 4789): one peer per other node with a
// VXLAN tunnel address, routing that node's affine blocks, kept in step with the blocks and nodes.
//
// IP-in-IP (calico.yaml's default, CALICO_IPV4POOL_IPIP=Always) is not programmed: Azure's network fabric drops
// IP protocol 4 between VMs ("IPIP packets are blocked by the Azure network fabric", docs.tigera.io/calico/latest/
// reference/public-cloud/azure; the Azure VNet FAQ lists IP-in-IP encapsulated packets among what VNets block), so
// on AKS pods on different nodes cannot reach each other with that pool, and here neither: no route leaves the node
// for another node's block. Pods on one node still reach each other through their routed veths. A VXLAN pool
// (CALICO_IPV4POOL_IPIP=Never, CALICO_IPV4POOL_VXLAN=Always, or the operator's default on AKS) works.
import { createHash } from 'node:crypto';
import { DEFAULTS } from '../../aks/defaults.js';
import { affineBlocks, autoAssign, CALICO_GROUP, listPools, parseCidr4, type Pool } from '../../cni/plugins/calico-ipam-blocks.js';
import type { KubeObject } from '../apimachinery/object.js';
import { agentKubeApi, CALICO_VERSION, calicoLogger } from './calico-log.js';
import type { OutgoingMasquerade } from '../../dataplane/dataplane.js';
import type { Program, ProgramContext, VxlanOverlay } from './program.js';

const NODE_ANNOTATION = 'projectcalico.org';
export const VXLAN_DEVICE = 'vxlan.calico';
export const VXLAN_VNI = 4096;
export const VXLAN_PORT = 4789;

const env = (ctx: ProgramContext, k: string, d = '') => (Object.hasOwn(ctx.env, k) ? ctx.env[k]! : d);

/** calico-node -init -best-effort: mounts bpffs and the cgroup2 fs for eBPF mode; nothing to do here. */
export const calicoNodeInit: Program = (ctx) => {
  if (ctx.argv.includes('-init')) calicoLogger(ctx, 'init').info('init.go 64', 'Calico node initialisation complete (best effort, iptables data plane).');
  return Promise.resolve(0);
};

/** The node address with its subnet's prefix: AKS nodes sit in the managed subnet unless the cluster brings one. */
function nodeCidr(ip: string): string {
  const managed = parseCidr4(DEFAULTS.managedSubnetCidr)!;
  const n = parseCidr4(`${ip}/${managed.prefix}`);
  return n && n.base === managed.base ? `${ip}/${managed.prefix}` : `${ip}/24`;
}

/** A stable VTEP MAC for the node (Felix draws a random one once and keeps it on the Node). */
function vtepMac(node: string): string {
  const h = createHash('sha256').update(`vxlan.calico:${node}`).digest();
  h[0] = (h[0]! & 0xfe) | 0x02;
  return [...h.subarray(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function annotate(ctx: ProgramContext, node: string, annotations: Record<string, string>): void {
  ctx.api.patch(`/api/v1/nodes/${node}`, { metadata: { annotations } });
}

function mode(value: string, what: string, log: ReturnType<typeof calicoLogger>): string | undefined {
  switch (value.toLowerCase()) {
    case '':
    case 'off':
    case 'never':
      return 'Never';
    case 'crosssubnet':
    case 'cross-subnet':
      return 'CrossSubnet';
    case 'always':
      return 'Always';
    default:
      log.error('startup.go 1093', `Unrecognized ${what} mode specified in CALICO_IPV4POOL_${what} '${value}'`);
      return undefined;
  }
}

/** configureIPPools for IPv4 (FELIX_IPV6SUPPORT=false in calico.yaml: no IPv6 pool). False: terminate. */
function configurePools(ctx: ProgramContext, log: ReturnType<typeof calicoLogger>): boolean {
  let cidr = env(ctx, 'CALICO_IPV4POOL_CIDR');
  if (env(ctx, 'NO_DEFAULT_POOLS').toLowerCase() === 'true') {
    log.info('startup.go 914', 'Skipping IP pool configuration');
    return true;
  }
  if (cidr === 'none') {
    log.info('startup.go 924', 'Skipping IPv4 pool configuration');
    return true;
  }
  const blockSize = env(ctx, 'CALICO_IPV4POOL_BLOCK_SIZE') ? Number(env(ctx, 'CALICO_IPV4POOL_BLOCK_SIZE')) : 26;
  if (!Number.isInteger(blockSize) || blockSize < 20 || blockSize > 32) {
    log.error('startup.go 812', `Invalid blocksize ${blockSize} for version 4`);
    return false;
  }
  if (cidr === '') {
    cidr = '192.168.0.0/16';
    log.info('startup.go 995', `Selected default IP pool is '${cidr}'`);
  }
  const net = parseCidr4(cidr);
  if (!net) {
    log.error('startup.go 999', `Invalid CIDR specified in CALICO_IPV4POOL_CIDR '${cidr}'`);
    return false;
  }
  const pools = ctx.api.list(`${CALICO_GROUP}/ippools`);
  const v4 = (p: KubeObject) => {
    const c = (p as { spec?: { cidr?: unknown } }).spec?.cidr;
    return typeof c === 'string' && !c.includes(':');
  };
  if (pools.some(v4)) return true;
  const ipip = mode(env(ctx, 'CALICO_IPV4POOL_IPIP'), 'IPIP', log);
  const vxlan = mode(env(ctx, 'CALICO_IPV4POOL_VXLAN'), 'VXLAN', log);
  if (!ipip || !vxlan) return false;
  const natRaw = env(ctx, 'CALICO_IPV4POOL_NAT_OUTGOING').toLowerCase();
  const nat = natRaw === '' ? true : natRaw === 'true';
  log.info('startup.go 853', `CALICO_IPV4POOL_NAT_OUTGOING is ${nat}${natRaw === '' ? ' (defaulted)' : ''} through environment variable`);
  const bgpExport = env(ctx, 'CALICO_IPV4POOL_DISABLE_BGP_EXPORT').toLowerCase() === 'true';
  log.info(
    'startup.go 853',
    `CALICO_IPV4POOL_DISABLE_BGP_EXPORT is ${bgpExport}${env(ctx, 'CALICO_IPV4POOL_DISABLE_BGP_EXPORT') === '' ? ' (defaulted)' : ''} through environment variable`,
  );
  log.info('startup.go 1125', `Ensure default IPv4 pool is created. IPIP mode: ${ipip}, VXLAN mode: ${vxlan}, DisableBGPExport: ${bgpExport}`);
  const poolCidr = cidr;
  const created = ctx.api.create(`${CALICO_GROUP}/ippools`, {
    apiVersion: 'crd.projectcalico.org/v1',
    kind: 'IPPool',
    metadata: { name: 'default-ipv4-ippool' },
    spec: {
      cidr: poolCidr,
      blockSize,
      ipipMode: ipip,
      vxlanMode: vxlan,
      natOutgoing: nat,
      nodeSelector: env(ctx, 'CALICO_IPV4POOL_NODE_SELECTOR', 'all()') || 'all()',
      allowedUses: ['Workload', 'Tunnel'],
      assignmentMode: 'Automatic',
      ...(bgpExport ? { disableBGPExport: true } : {}),
    },
  });
  if (created.object)
    log.info(
      'startup.go 1135',
      `Created default IPv4 pool (${poolCidr}) with NAT outgoing ${nat}. IPIP mode: ${ipip}, VXLAN mode: ${vxlan}, DisableBGPExport: ${bgpExport}`,
    );
  else if (created.status !== 409) {
    log.error('startup.go 1131', `Failed to create default IPv4 IP pool: ${poolCidr}`);
    return false;
  }
  return true;
}

/** ensureDefaultConfig: ClusterInformation (datastoreReady) and the default FelixConfiguration. */
function ensureDefaultConfig(ctx: ProgramContext): void {
  const path = `${CALICO_GROUP}/clusterinformations/default`;
  const current = ctx.api.get(path);
  const clusterType = env(ctx, 'CLUSTER_TYPE');
  const spec = {
    clusterGUID: createHash('md5')
      .update(`${ctx.pod.metadata.uid ?? ''}${Date.now()}`)
      .digest('hex'),
    clusterType: clusterType.includes('kdd') ? clusterType : clusterType ? `${clusterType},kdd` : 'kdd',
    calicoVersion: CALICO_VERSION,
    datastoreReady: true,
    variant: 'Calico',
  };
  if (!current)
    ctx.api.create(`${CALICO_GROUP}/clusterinformations`, {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'ClusterInformation',
      metadata: { name: 'default' },
      spec,
    });
  else {
    const old = (current as { spec?: Record<string, unknown> }).spec ?? {};
    if (old['datastoreReady'] !== true || old['calicoVersion'] !== CALICO_VERSION)
      ctx.api.update(path, { ...current, spec: { ...spec, ...old, calicoVersion: CALICO_VERSION, datastoreReady: true } });
  }
  if (!ctx.api.get(`${CALICO_GROUP}/felixconfigurations/default`))
    ctx.api.create(`${CALICO_GROUP}/felixconfigurations`, {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'FelixConfiguration',
      metadata: { name: 'default' },
      spec: { bpfLogLevel: '', floatingIPs: 'Disabled', logSeverityScreen: 'Info', reportingInterval: '0s' },
    });
}

const annotationOf = (n: KubeObject | undefined, k: string) => n?.metadata.annotations?.[`${NODE_ANNOTATION}/${k}`];

/** The tunnel address the node's pool needs (allocateip.go), kept on the Node; undefined when none is needed. */
async function tunnelAddress(ctx: ProgramContext, node: string, kind: 'IPIP' | 'VXLAN', log: ReturnType<typeof calicoLogger>): Promise<string | undefined> {
  const key = kind === 'IPIP' ? 'IPv4IPIPTunnelAddr' : 'IPv4VXLANTunnelAddr';
  const existing = annotationOf(ctx.api.get(`/api/v1/nodes/${node}`), key);
  if (existing) return existing;
  const handleId = `${kind === 'IPIP' ? 'ipip' : 'vxlan'}-tunnel-addr-${node}`;
  const assigned = await autoAssign(agentKubeApi(ctx.api), {
    host: node,
    handleId,
    attrs: { node, type: kind === 'IPIP' ? 'ipipTunnelAddress' : 'vxlanTunnelAddress' },
  });
  log.info('allocateip.go 480', `Assigned tunnel address to node IP="${assigned.ip}" type="${kind === 'IPIP' ? 'ipipTunnelAddress' : 'vxlanTunnelAddress'}"`);
  annotate(ctx, node, {
    [`${NODE_ANNOTATION}/${key}`]: assigned.ip,
    ...(kind === 'VXLAN' ? { [`${NODE_ANNOTATION}/VXLANTunnelMACAddr`]: vtepMac(node) } : {}),
  });
  return assigned.ip;
}

function internalIp(n: KubeObject): string | undefined {
  const addresses = (n as { status?: { addresses?: Array<{ type?: string; address?: string }> } }).status?.addresses ?? [];
  return addresses.find((a) => a.type === 'InternalIP')?.address;
}

/** Felix's VXLAN view: this node's VTEP, and one peer per other node with a VXLAN tunnel address, routing its blocks. */
/**
 * Felix's NAT outgoing: traffic from a pool with natOutgoing to anywhere outside every pool is masqueraded (felix's
 * cali-nat-outgoing chain: source in the natOutgoing pools, destination in none of the pools, MASQUERADE).
 */
function natOutgoing(ctx: ProgramContext): OutgoingMasquerade {
  const pools = ctx.api
    .list(`${CALICO_GROUP}/ippools`)
    .map((p) => (p as { spec?: { cidr?: unknown; natOutgoing?: unknown; disabled?: unknown } }).spec ?? {})
    .filter((s): s is { cidr: string; natOutgoing?: unknown; disabled?: unknown } => typeof s.cidr === 'string' && parseCidr4(s.cidr) !== undefined);
  return { sources: pools.filter((s) => s.natOutgoing === true && s.disabled !== true).map((s) => s.cidr), keep: pools.map((s) => s.cidr) };
}

async function vxlanOverlay(ctx: ProgramContext, node: string, tunnelIp: string, mtu: number): Promise<VxlanOverlay> {
  const api = agentKubeApi(ctx.api);
  const peers: VxlanOverlay['peers'] = [];
  for (const other of ctx.api.list('/api/v1/nodes')) {
    if (other.metadata.name === node) continue;
    const ip = internalIp(other);
    const tunnel = annotationOf(other, 'IPv4VXLANTunnelAddr');
    const mac = annotationOf(other, 'VXLANTunnelMACAddr');
    if (!ip || !tunnel || !mac) continue;
    peers.push({ nodeIp: ip, mac, tunnelIp: tunnel, cidrs: await affineBlocks(api, other.metadata.name) });
  }
  return { device: VXLAN_DEVICE, vni: VXLAN_VNI, port: VXLAN_PORT, mtu, mac: vtepMac(node), localIp: ctx.nodeIp, addresses: [`${tunnelIp}/32`], peers };
}

function untilStopped(ctx: ProgramContext): Promise<number> {
  return new Promise((resolve) => {
    if (ctx.signal.aborted) resolve(0);
    else ctx.signal.addEventListener('abort', () => resolve(0), { once: true });
  });
}

/** The calico-node container (start_runit: startup, then Felix and BIRD). */
export const calicoNode: Program = async (ctx) => {
  const log = calicoLogger(ctx, 'startup');
  const node = env(ctx, 'NODENAME') || env(ctx, 'KUBERNETES_NODE_NAME') || ctx.node;
  log.info('startup.go 111', `Starting node ${node} with version ${CALICO_VERSION}`);
  if (env(ctx, 'WAIT_FOR_DATASTORE') === 'true') {
    log.info('startup.go 558', 'Checking datastore connection');
    log.info('startup.go 581', 'Datastore connection verified');
    log.info('startup.go 121', 'Datastore is ready');
  } else log.info('startup.go 123', 'Skipping datastore connection test');
  const ipEnv = env(ctx, 'IP', 'autodetect');
  let address: string;
  if (ipEnv === '' || ipEnv === 'autodetect') {
    address = nodeCidr(ctx.nodeIp);
    log.info('autodetection_methods.go 103', `Using autodetected IPv4 address on interface eth0: ${address}`);
  } else if (ipEnv === 'none') address = '';
  else {
    address = ipEnv.includes('/') ? ipEnv : `${ipEnv}/32`;
    log.info('startup.go 756', `Using IPv4 address from environment: IP=${ipEnv}`);
  }
  if (address) annotate(ctx, node, { [`${NODE_ANNOTATION}/IPv4Address`]: address });
  if (!configurePools(ctx, log)) {
    log.error('utils.go 130', 'Terminating');
    return 1;
  }
  ensureDefaultConfig(ctx);
  ctx.files.write('/var/lib/calico/nodename', node);
  log.info('startup.go 241', `Using node name: ${node}`);
  const pools = await listPools(agentKubeApi(ctx.api));
  const pool: Pool | undefined = pools[0];
  const vxlan = pool !== undefined && pool.vxlanMode !== 'Never';
  const ipip = pool !== undefined && !vxlan && pool.ipipMode !== 'Never';
  let tunnel: string | undefined;
  try {
    if (vxlan) tunnel = await tunnelAddress(ctx, node, 'VXLAN', log);
    else if (ipip) tunnel = await tunnelAddress(ctx, node, 'IPIP', log);
  } catch (e) {
    log.error('allocateip.go 150', `Unable to assign tunnel address: ${(e as Error).message}`);
  }
  log.info('startup.go 281', 'Waiting for Calico to become ready before continuing...');
  ctx.api.patch(
    `/api/v1/nodes/${node}/status`,
    {
      status: {
        conditions: [
          {
            type: 'NetworkUnavailable',
            status: 'False',
            reason: 'CalicoIsUp',
            message: 'Calico is running on this node',
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
            lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    },
    'application/strategic-merge-patch+json',
  );
  log.info('startup.go 346', 'Calico started successfully');
  ctx.setReady(true);
  const network = ctx.network;
  if (network && vxlan && tunnel) {
    const mtu = Number(env(ctx, 'FELIX_VXLANMTU')) > 0 ? Number(env(ctx, 'FELIX_VXLANMTU')) : 1450;
    const felix = calicoLogger(ctx, 'felix');
    let pending: Promise<void> = Promise.resolve();
    const converge = () => {
      pending = pending
        .then(async () => {
          if (ctx.signal.aborted) return;
          await network.applyOverlay(node, await vxlanOverlay(ctx, node, tunnel!, mtu));
          await network.applyMasquerade?.(node, natOutgoing(ctx));
        })
        .catch((e: Error) => felix.error('vxlan_mgr.go 300', `Failed to apply VXLAN routes: ${e.message}`));
    };
    converge();
    const stops = [
      ctx.api.watch('/api/v1/nodes', converge),
      ctx.api.watch(`${CALICO_GROUP}/ipamblocks`, converge),
      ctx.api.watch(`${CALICO_GROUP}/ippools`, converge),
    ];
    await untilStopped(ctx);
    for (const stop of stops) stop();
    await pending;
    return 0;
  }
  if (network && ipip)
    calicoLogger(ctx, 'felix').warn(
      'ipip_mgr.go 120',
      'IPIP pool: traffic to other nodes leaves as IP protocol 4, which the Azure network fabric blocks; pods on other nodes are unreachable',
    );
  return untilStopped(ctx);
};

/** calico-kube-controllers (ENABLED_CONTROLLERS node,loadbalancer): starts its controllers and stays Ready. */
export const calicoKubeControllers: Program = (ctx) => {
  const log = calicoLogger(ctx, 'kube-controllers');
  log.info(
    'main.go 111',
    `Loaded configuration from environment config=&config.Config{EnabledControllers:"${env(ctx, 'ENABLED_CONTROLLERS', 'node')}", DatastoreType:"${env(ctx, 'DATASTORE_TYPE', 'kubernetes')}"}`,
  );
  for (const c of env(ctx, 'ENABLED_CONTROLLERS', 'node').split(',').filter(Boolean)) log.info('main.go 214', `Starting ${c} controller`);
  ctx.setReady(true);
  return untilStopped(ctx);
};

/**
 * calico-typha (the tigera operator's calico-typha Deployment): Felix reads the API itself in aksemu, so the fan-out
 * proxy has nothing to do; it starts, says so in Typha's words, and answers its health probes (/readiness,
 * /liveness) as ready while it runs (cluster/kubelet/probes.ts).
 */
export const calicoTypha: Program = (ctx) => {
  const log = calicoLogger(ctx, 'typha');
  log.info('daemon.go 157', 'Typha starting up');
  log.info('daemon.go 316', 'Starting the Typha server');
  ctx.setReady(true);
  return untilStopped(ctx);
};
