// flanneld with --kube-subnet-mgr and the vxlan backend (flannel v0.28.9: main.go, pkg/subnet/kube/kube.go,
// pkg/backend/vxlan, pkg/subnet/subnet.go), as it runs in kube-flannel.yml's kube-flannel container:
//   1. finds its node (NODE_NAME, else the pod POD_NAMESPACE/POD_NAME's spec.nodeName), reads net-conf.json;
//   2. reads the node's stored MAC and public IP (its flannel annotations), creates flannel.<VNI>;
//   3. AcquireLease: the node's spec.podCIDR is its subnet. Without one — a BYO CNI node on AKS, which gets none
//      (docs/aks-rules.md) — it logs `Error registering network: failed to acquire lease: node "N" pod cidr not
//      assigned` and exits 1, so the pod crash-loops as on AKS. Otherwise it annotates the node (backend-type,
//      backend-data {"VNI","VtepMAC"}, public-ip, kube-subnet-manager) through nodes/status as flannel does;
//   4. writes /run/flannel/subnet.env (FLANNEL_NETWORK, FLANNEL_SUBNET = the lease's first address, FLANNEL_MTU =
//      the interface's 1500 less vxlan's 50, FLANNEL_IPMASQ) and is ready (its /readyz);
//   5. sets NodeNetworkUnavailable False (FlannelIsUp), then runs: every other node with flannel's annotations
//      is a peer of the overlay (FDB + neighbour + route of its subnet through flannel.<VNI>), re-applied when
//      the nodes change, until the container is stopped. The overlay is programmed only with a data plane, and
//      with --ip-masq its masquerade rules with it (the data plane's flannel-ip-masq.ts).
// The log lines are flanneld's, at their source lines (flannel-log.ts).
import { randomBytes } from 'node:crypto';
import { Cidr, IpAddress } from '../../net/ip.js';
import type { KubeObject } from '../apimachinery/object.js';
import { FlagError, type FlannelOptions, parseFlannelFlags } from './flannel-flags.js';
import { goStringMap, klog } from './flannel-log.js';
import type { Program, ProgramContext, VxlanOverlay } from './program.js';

/** The external interface's MTU (an Azure VM's eth0) and what vxlan's header takes from it (vxlan_network.go). */
const IFACE_MTU = 1500;
const ENCAP_OVERHEAD = 50;
/** Linux's vxlan port when flannel leaves it 0 (the kernel default, IANA's 8472 of the first implementations). */
const KERNEL_VXLAN_PORT = 8472;
/** AcquireLease's poll for its node and for its patch: every 3 s, 30 s at most (kube.go). */
const LEASE_POLL_MS = 3000;
const LEASE_TIMEOUT_MS = 30_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** net-conf.json as subnet.ParseConfig reads it (IPv4 and the backend). */
interface NetConfig {
  network: Cidr;
  backendType: string;
  vni: number;
  port: number;
  mtu: number;
}

function parseNetConf(text: string): NetConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error((e as Error).message);
  }
  if (!isObj(raw)) throw new Error('json: cannot unmarshal into Go value of type subnet.Config');
  const backend = raw['Backend'];
  if (backend !== undefined && !isObj(backend))
    throw new Error('error decoding Backend property of config: json: cannot unmarshal into Go value of type struct { Type string }');
  const type = backend === undefined ? 'udp' : typeof backend['Type'] === 'string' ? backend['Type'] : '';
  let network: Cidr;
  try {
    network = Cidr.parse(String(raw['Network'] ?? ''), { family: 4, canonical: false });
  } catch {
    throw new Error('please define a correct Network parameter in the flannel config');
  }
  const num = (key: string, fallback: number): number => {
    const v = isObj(backend) ? (backend[key] ?? backend[key.toLowerCase()]) : undefined;
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 24 ? v : fallback;
  };
  return { network, backendType: type, vni: num('VNI', 1), port: num('Port', 0), mtu: num('MTU', IFACE_MTU) };
}

/** The message of a Status the API answered. */
function statusMessage(body: unknown, fallback: string): string {
  return isObj(body) && typeof body['message'] === 'string' ? body['message'] : fallback;
}

/** A node's IPv4 pod CIDR (podCIDRs first, then podCIDR), as AcquireLease and nodeToLease read it. */
function podCidrOf(node: KubeObject): { cidr?: Cidr; error?: string } {
  const spec = isObj(node['spec']) ? node['spec'] : {};
  const list = Array.isArray(spec['podCIDRs']) ? spec['podCIDRs'].map(String) : [];
  const texts = list.length > 0 ? list : typeof spec['podCIDR'] === 'string' && spec['podCIDR'] !== '' ? [spec['podCIDR']] : [];
  if (texts.length > 2) return { error: `node "${node.metadata.name}" pod cidrs should be IPv4/IPv6 only or dualstack` };
  for (const t of texts) {
    try {
      const c = Cidr.parse(t, { canonical: false });
      if (c.family === 4) return { cidr: Cidr.of(4, c.network, c.prefix) };
    } catch {
      return { error: `invalid CIDR address: ${t}` };
    }
  }
  return {};
}

/** A random locally administered unicast MAC (pkg/mac). */
function newMac(): string {
  const b = randomBytes(6);
  b[0] = (b[0]! & 0xfe) | 0x02;
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** flannel's annotation names under a prefix (annotations.go). */
function annotationNames(prefix: string) {
  const p = prefix.includes('/') ? (prefix.endsWith('/') || prefix.endsWith('-') ? prefix : `${prefix}-`) : `${prefix}/`;
  return {
    kubeManaged: `${p}kube-subnet-manager`,
    backendData: `${p}backend-data`,
    backendType: `${p}backend-type`,
    publicIp: `${p}public-ip`,
    nodePublicIp: `${p}node-public-ip`,
    publicIpOverwrite: `${p}public-ip-overwrite`,
  };
}

class Flanneld {
  private readonly log: ReturnType<typeof klog>;
  private readonly names: ReturnType<typeof annotationNames>;
  private nodeName = '';

  constructor(
    private readonly ctx: ProgramContext,
    private readonly opts: FlannelOptions,
  ) {
    this.log = klog(ctx);
    this.names = annotationNames(opts.string('kube-annotation-prefix'));
  }

  private nodePath(): string {
    return `/api/v1/nodes/${encodeURIComponent(this.nodeName)}`;
  }

  /** kube.NewSubnetManager: the node's name and the network config. */
  private newSubnetManager(): NetConfig {
    const env = this.ctx.env;
    this.nodeName = env['NODE_NAME'] ?? '';
    if (this.nodeName === '') {
      const pod = env['POD_NAME'] ?? '';
      const ns = env['POD_NAMESPACE'] ?? '';
      if (pod === '' || ns === '') throw new Error('env variables POD_NAME and POD_NAMESPACE must be set');
      const r = this.ctx.api.request('GET', `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(pod)}`);
      if (r.status !== 200) throw new Error(`error retrieving pod spec for '${ns}/${pod}': ${statusMessage(r.body, `status ${r.status}`)}`);
      const spec = isObj(r.body) && isObj(r.body['spec']) ? r.body['spec'] : {};
      this.nodeName = typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
      if (this.nodeName === '') throw new Error(`node name not present in pod spec '${ns}/${pod}'`);
    }
    const path = this.opts.string('net-config-path');
    const text = this.ctx.files.read(path);
    if (typeof text !== 'string') throw new Error(`failed to read net conf: open ${path}: no such file or directory`);
    let config: NetConfig;
    try {
      config = parseNetConf(text);
    } catch (e) {
      throw new Error(`error parsing subnet config: ${(e as Error).message}`);
    }
    this.log.info('kube.go:139', 'Waiting 10m0s for node controller to sync');
    this.log.info('kube.go:537', 'Starting kube subnet manager');
    this.log.info('kube.go:163', 'Node controller sync successful');
    return config;
  }

  private node(): KubeObject | undefined {
    return this.ctx.api.get(this.nodePath());
  }

  private annotations(node: KubeObject | undefined): Record<string, string> {
    return { ...(node?.metadata.annotations ?? {}) };
  }

  /** AcquireLease: the node's subnet, after publishing this node's VTEP in its annotations. */
  private async acquireLease(config: NetConfig, mac: string, publicIp: string): Promise<Cidr> {
    const deadline = Date.now() + LEASE_TIMEOUT_MS;
    let node = this.node();
    while (!node) {
      if (this.ctx.signal.aborted) throw new Error('context canceled');
      if (Date.now() >= deadline) throw new Error(`timeout contacting kube-api, failed to patch node "${this.nodeName}". Error: context deadline exceeded`);
      await sleep(LEASE_POLL_MS, this.ctx.signal);
      node = this.node();
    }
    const podCidr = podCidrOf(node);
    if (podCidr.error) throw new Error(podCidr.error);
    if (!podCidr.cidr) throw new Error(`node "${this.nodeName}" pod cidr not assigned`);
    const data = `{"VNI":${config.vni},"VtepMAC":"${mac}"}`;
    const have = this.annotations(node);
    const n = this.names;
    const want: Record<string, string> = { [n.backendType]: 'vxlan', [n.backendData]: data, [n.kubeManaged]: 'true' };
    const overwrite = have[n.publicIpOverwrite] ?? '';
    if (overwrite !== '') {
      if (have[n.publicIp] !== overwrite)
        this.log.info('kube.go:438', `Overriding public ip with '${overwrite}' from node annotation '${n.publicIpOverwrite}'`);
      want[n.publicIp] = overwrite;
    } else want[n.publicIp] = publicIp;
    if (Object.entries(want).some(([k, v]) => have[k] !== v)) {
      // Through nodes/status, as flannel patches (its ClusterRole grants nodes/status patch only).
      for (;;) {
        const r = this.ctx.api.patch(`${this.nodePath()}/status`, { metadata: { annotations: want } }, 'application/strategic-merge-patch+json');
        if (r.object) break;
        if (Date.now() >= deadline || this.ctx.signal.aborted)
          throw new Error(`timeout contacting kube-api, failed to patch node "${this.nodeName}". Error: context deadline exceeded`);
        await sleep(LEASE_POLL_MS, this.ctx.signal);
      }
    }
    if (!config.network.containsCidr(podCidr.cidr))
      throw new Error(
        `subnet "${config.network}" specified in the flannel net config doesn't contain "${podCidr.cidr}" PodCIDR of the "${this.nodeName}" node`,
      );
    return podCidr.cidr;
  }

  /** Every other node with a vxlan lease, as the overlay's peers (nodeToLease, handleSubnetEvents). */
  private peers(): VxlanOverlay['peers'] {
    const n = this.names;
    const peers: VxlanOverlay['peers'] = [];
    for (const node of this.ctx.api.list('/api/v1/nodes')) {
      if (node.metadata.name === this.nodeName) continue;
      const a = node.metadata.annotations ?? {};
      if (a[n.kubeManaged] !== 'true' || a[n.backendType] !== 'vxlan') continue;
      const cidr = podCidrOf(node).cidr;
      const ip = IpAddress.tryParse(a[n.publicIp] ?? '');
      let mac: unknown;
      try {
        mac = (JSON.parse(a[n.backendData] ?? '') as Obj)['VtepMAC'];
      } catch {
        mac = undefined;
      }
      if (!cidr || !ip || ip.family !== 4 || typeof mac !== 'string' || !/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(mac)) continue;
      peers.push({ nodeIp: ip.toString(), mac: mac.toLowerCase(), tunnelIp: cidr.first.toString(), cidrs: [cidr.toString()] });
    }
    return peers.sort((x, y) => (x.cidrs[0]! < y.cidrs[0]! ? -1 : 1));
  }

  async run(): Promise<number> {
    const ctx = this.ctx;
    const opts = this.opts;
    ctx.setReady(false);
    this.log.info('main.go:229', `CLI flags config: ${opts.describe()}`);
    const margin = opts.int('subnet-lease-renew-margin');
    if (margin >= 24 * 60 || margin <= 0) {
      this.log.error('main.go:233', 'Invalid subnet-lease-renew-margin option, out of acceptable range');
      return 1;
    }
    if (!opts.bool('kube-subnet-mgr')) {
      // The etcd subnet manager needs an etcd cluster; aksemu emulates the Kubernetes one only.
      this.log.error('main.go:251', 'Failed to create SubnetManager: aksemu emulates flanneld with --kube-subnet-mgr only (no etcd here)');
      return 1;
    }
    let config: NetConfig;
    try {
      config = this.newSubnetManager();
    } catch (e) {
      this.log.error('main.go:251', `Failed to create SubnetManager: ${(e as Error).message}`);
      return 1;
    }
    this.log.info('main.go:255', `Created subnet manager: Kubernetes Subnet Manager - ${this.nodeName}`);
    this.log.info('main.go:258', 'Installing signal handlers');
    const port = opts.int('healthz-port');
    if (port > 0) this.log.info('main.go:554', `Start healthz server on ${opts.string('healthz-ip')}:${port}`);
    this.log.info('main.go:540', `Found network config - Backend type: ${config.backendType}`);
    if (config.backendType !== 'vxlan') {
      this.log.error('main.go:376', `Error fetching backend: aksemu emulates flannel's vxlan backend only, not ${JSON.stringify(config.backendType)}`);
      return this.exit(1);
    }
    // GetStoredPublicIP, then the default interface (the node's eth0 and InternalIP).
    const stored = this.annotations(this.node());
    this.log.info('kube.go:743', `List of node(${this.nodeName}) annotations: ${goStringMap(stored)}`);
    const publicIp = stored[this.names.nodePublicIp] || opts.string('public-ip') || ctx.nodeIp;
    this.log.info('match.go:211', 'Determining IP address of default interface');
    this.log.info('match.go:269', `Using interface with name eth0 and address ${ctx.nodeIp}`);
    if (publicIp !== ctx.nodeIp) this.log.info('match.go:287', `Using ${publicIp} as external address`);
    else this.log.info('match.go:291', `Defaulting external address to interface address (${ctx.nodeIp})`);
    this.log.info('vxlan.go:128', `VXLAN config: VNI=${config.vni} Port=${config.port} GBP=false Learning=false DirectRouting=false`);
    // GetStoredMacAddresses: a restarted flanneld keeps the VTEP MAC the other nodes know.
    const current = this.annotations(this.node());
    this.log.info('kube.go:710', `List of node(${this.nodeName}) annotations: ${goStringMap(current)}`);
    const storedMac = /"VtepMAC":"(([0-9a-f]{2}:){5}[0-9a-f]{2})"/i.exec(current[this.names.backendData] ?? '')?.[1]?.toLowerCase();
    if (storedMac) this.log.info('vxlan.go:199', `Interface flannel.${config.vni} mac address set to: ${storedMac}`);
    const mac = storedMac ?? newMac();
    const overlay: VxlanOverlay = {
      device: `flannel.${config.vni}`,
      vni: config.vni,
      port: config.port || KERNEL_VXLAN_PORT,
      mtu: config.mtu - ENCAP_OVERHEAD,
      mac,
      localIp: ctx.nodeIp,
      addresses: [],
      peers: [],
    };
    let lease: Cidr;
    try {
      // The device exists before the lease (createVXLANDevice), also on a node whose lease then fails.
      await this.apply(overlay).catch((e: unknown) => {
        throw new Error(`failed to create vxlan device: ${(e as Error).message}`);
      });
      lease = await this.acquireLease(config, mac, publicIp).catch((e: unknown) => {
        // RegisterNetwork passes a cancelled context's error on as it is.
        throw ctx.signal.aborted ? e : new Error(`failed to acquire lease: ${(e as Error).message}`);
      });
      overlay.addresses = [`${lease.first}/32`];
      // --ip-masq (kube-flannel.yml passes it): SetupAndEnsureMasqRules for the network and this lease.
      if (opts.bool('ip-masq')) overlay.ipMasq = { network: config.network.toString(), subnet: lease.toString() };
      await this.apply(overlay);
    } catch (e) {
      this.log.error('main.go:384', `Error registering network: ${(e as Error).message}`);
      return this.exit(1);
    }
    this.log.info('main.go:392', 'Cleaning-up unused traffic manager rules');
    this.log.info('iptables.go:50', 'Starting flannel in iptables mode...');
    if (opts.bool('ip-masq')) this.log.info('iptables.go:111', 'Setting up masking rules');
    if (opts.bool('iptables-forward-rules')) this.log.info('iptables.go:212', 'Changing default FORWARD chain policy to ACCEPT');
    const subnetFile = opts.string('subnet-file');
    const mtu = config.mtu - ENCAP_OVERHEAD;
    const text = `FLANNEL_NETWORK=${config.network}\nFLANNEL_SUBNET=${lease.addressAt(1)}/${lease.prefix}\nFLANNEL_MTU=${mtu}\nFLANNEL_IPMASQ=${opts.bool('ip-masq')}\n`;
    try {
      ctx.files.write(subnetFile, text, 0o644);
      this.log.info('main.go:481', `Wrote subnet file to ${subnetFile}`);
      this.log.info('main.go:484', 'flannel is ready');
      ctx.setReady(true);
    } catch (e) {
      this.log.warning('main.go:479', `Failed to write subnet file: ${(e as Error).message}`);
    }
    this.log.info('main.go:488', 'Running backend.');
    if (opts.bool('set-node-network-unavailable')) this.completeLease();
    this.log.info('main.go:509', 'Waiting for all goroutines to exit');
    this.log.info('vxlan_network.go:68', 'watching for new subnet leases');
    await this.watchPeers(overlay);
    this.log.info('main.go:524', 'shutdownHandler sent cancel signal...');
    this.log.info('main.go:512', 'Exiting cleanly...');
    return 0;
  }

  /** The main context cancelled on a failure: the shutdown handler's line, then the exit status. */
  private exit(code: number): number {
    this.log.info('main.go:520', 'Stopping shutdownHandler...');
    return code;
  }

  private async apply(overlay: VxlanOverlay): Promise<void> {
    if (this.ctx.network) await this.ctx.network.applyOverlay(this.ctx.node, { ...overlay, peers: [...overlay.peers], addresses: [...overlay.addresses] });
  }

  /** CompleteLease: NodeNetworkUnavailable False, the condition flannel reports when it is up. */
  private completeLease(): void {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const condition = {
      type: 'NetworkUnavailable',
      status: 'False',
      reason: 'FlannelIsUp',
      message: 'Flannel is running on this node',
      lastTransitionTime: now,
      lastHeartbeatTime: now,
    };
    const r = this.ctx.api.patch(`${this.nodePath()}/status`, { status: { conditions: [condition] } }, 'application/strategic-merge-patch+json');
    if (!r.object) this.log.error('main.go:502', `CompleteLease execute error err: ${statusMessage(r.error, `status ${r.status}`)}`);
  }

  /** The lease watch: the other nodes' leases as the overlay's peers, converged on every change of the nodes. */
  private watchPeers(overlay: VxlanOverlay): Promise<void> {
    const ctx = this.ctx;
    return new Promise((resolve) => {
      let applied = '';
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<void> = Promise.resolve();
      const converge = () => {
        timer = undefined;
        if (ctx.signal.aborted) return;
        const peers = this.peers();
        const key = JSON.stringify(peers);
        if (key === applied) return;
        const before = new Map(JSON.parse(applied || '[]').map((p: VxlanOverlay['peers'][number]) => [p.cidrs[0], p]));
        for (const p of peers) {
          if (!before.has(p.cidrs[0])) {
            const data = `{"VNI":${overlay.vni},"VtepMAC":"${p.mac}"}`;
            this.log.info(
              'vxlan_network.go:270',
              `Received Subnet Event with VxLan: BackendType: vxlan, PublicIP: ${p.nodeIp}, PublicIPv6: (nil), BackendData: ${data}, BackendV6Data: (nil)`,
            );
          }
        }
        applied = key;
        overlay.peers = peers;
        running = running
          .then(() => this.apply(overlay))
          .catch((e: unknown) => this.log.error('vxlan_network.go:383', `failed to add vxlanRoute: ${(e as Error).message}`));
      };
      const schedule = () => {
        if (!timer) timer = setTimeout(converge, 100);
      };
      const stop = ctx.api.watch('/api/v1/nodes', schedule);
      converge();
      ctx.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          stop();
          void running.then(resolve);
        },
        { once: true },
      );
    });
  }
}

/** /opt/bin/flanneld of the flannel image. */
export const flanneld: Program = async (ctx) => {
  let opts: FlannelOptions;
  try {
    opts = parseFlannelFlags(ctx.argv.slice(1), ctx.env);
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    ctx.write('stderr', `${e.message}\nUsage: ${ctx.argv[0]} [OPTION]...\n`);
    return 2;
  }
  if (opts.bool('version')) {
    ctx.write('stderr', 'v0.28.9\n');
    return 0;
  }
  return new Flanneld(ctx, opts).run();
};
