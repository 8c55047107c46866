// Shared by the end-to-end data-plane tests (test/e2e/dataplane-*.test.ts): a real server in-process with the
// netns driver `aksemu start --dataplane netns` loads, its own $AKSEMU_HOME (and so its own namespace prefix),
// the network of docs/dataplane.md §3.6 made through ARM with aksemu az (VNet 10.224.0.0/12, subnet 10.224.0.0/16, a VM at
// .100), a 2-node cluster on that subnet with the real kubectl pointed at it, pods pinned one per node, and
// probes through the server's probe route (aksemu probe's code, and once its binary). Closing the world
// removes every namespace with its prefix; the root namespace must be as it was.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFrom, parseTo, runProbe } from '../../src/cli/probe.js';
import type { ProbeResult } from '../../src/dataplane/dataplane.js';
import { loadDataplane, netnsPrerequisiteProblem } from '../../src/dataplane/load.js';
import { listNetns } from '../../src/dataplane/netns/exec.js';
import { aksClient } from '../containerservice/harness.js';
import { HAVE_KUBECTL, kubectl, type KubectlResult } from '../cluster/harness.js';
export { eventually } from '../cluster/harness.js';
import { aksemu } from '../az/helpers.js';
import { azIn } from '../compute/helpers.js';
import { rootSnapshot } from '../dataplane/harness.js';
import { removeHome, startTestServer, tempHome, type TestServer } from './harness.js';

export const PLUGINS = '/usr/lib/cni';

export const RG = 'rg';
export const VNET = 'vnet1';
export const SUBNET = 'nodes';
export const VM = { name: 'vm1', ip: '10.224.0.100' };
export const INTERNET = '198.51.100.10';
/** Every probe connects to this port; the listener runs in the target's namespace. */
export const PORT = 8080;
/** kubenet with Calico's network policy, the client-pod tests' cluster unless they say otherwise. */
export const KUBENET_CALICO: readonly string[] = ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16', '--network-policy', 'calico'];

type Obj = any;

/** Why these tests cannot run here, or false. */
export function skipReason(needPlugins = false): string | false {
  const problem = netnsPrerequisiteProblem();
  if (problem) return `${problem} (the data-plane tests need root and iproute2/nftables)`;
  if (!HAVE_KUBECTL) return 'no /usr/bin/kubectl on this machine';
  if (needPlugins && !existsSync(join(PLUGINS, 'bridge')))
    return `the CNI plugins are not installed in ${PLUGINS} (apt-get install containernetworking-plugins)`;
  return false;
}

/** kubectl's two transports for exec and attach: the websocket it tries first, and SPDY when told to (docs/clients.md §5.18). */
export const REMOTE_COMMAND_TRANSPORTS: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ['websocket', {}],
  ['SPDY', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' }],
];

export class DataplaneWorld {
  readonly root = rootSnapshot();
  readonly home = tempHome();
  readonly scratch = mkdtempSync(join(tmpdir(), 'aksemu-dpe2e-'));
  readonly log: string[] = [];
  server!: TestServer;
  prefix!: string;
  subnetId = '';
  /** The kubeconfig of the cluster made by cluster(), for kubectl(). */
  kubeconfig = '';

  /** Starts (or restarts, on the same home) the server with a fresh netns driver. */
  async start(): Promise<void> {
    const dataplane = await loadDataplane('netns', { home: this.home, log: (l) => this.log.push(l) });
    this.prefix = (dataplane as unknown as { names: { prefix: string } }).names.prefix;
    this.server = await startTestServer({ home: this.home, dataplane, dataplaneDebounceMs: 5 });
  }

  async az(args: string[]): Promise<Obj> {
    const r = await azIn(this.home, args);
    assert.equal(r.code, 0, `az ${args.join(' ')}: ${r.stderr}`);
    return r.json;
  }

  /** The network of docs/dataplane.md §3.6: VNet 10.224.0.0/12, subnet 10.224.0.0/16, and the VM at 10.224.0.100. */
  /** start(), network() and a 2-node cluster(name, flags). */
  async withCluster(name: string, flags: string[]): Promise<void> {
    await this.withNetwork();
    await this.cluster(name, flags);
  }

  /** start() and network(): the VNet of docs/dataplane.md §3.6 with its VM, no cluster yet. */
  async withNetwork(): Promise<void> {
    await this.start();
    await this.network();
  }

  async network(): Promise<void> {
    await this.az(['group', 'create', '-l', 'eastus', '-n', RG]);
    const vnet = await this.az([
      'network',
      'vnet',
      'create',
      '-g',
      RG,
      '-n',
      VNET,
      '--address-prefixes',
      '10.224.0.0/12',
      '--subnet-name',
      SUBNET,
      '--subnet-prefixes',
      '10.224.0.0/16',
    ]);
    this.subnetId = vnet.newVNet.subnets[0].id;
    await this.vm(VM.name, VNET, SUBNET, VM.ip);
  }

  /** A VM at `ip` on a subnet, without a public IP or NSG, as the data-plane tests make them. */
  async vm(name: string, vnet: string, subnet: string, ip: string): Promise<void> {
    await this.az([
      'vm',
      'create',
      '-g',
      RG,
      '-n',
      name,
      '--vnet-name',
      vnet,
      '--subnet',
      subnet,
      '--private-ip-address',
      ip,
      '--admin-username',
      'azureuser',
      '--generate-ssh-keys',
      '--public-ip-address',
      '',
      '--nsg',
      '',
    ]);
  }

  /** A 2-node cluster on the subnet, and its user kubeconfig. */
  async cluster(name: string, flags: string[]): Promise<Obj> {
    const created = await this.az(['aks', 'create', '-g', RG, '-n', name, '-c', '2', '--vnet-subnet-id', this.subnetId, '--generate-ssh-keys', ...flags]);
    // listClusterUserCredential through the SDK (az aks get-credentials prints to the process's own stderr).
    const credentials = await aksClient(this.server).managedClusters.listClusterUserCredentials(RG, name);
    this.kubeconfig = join(this.scratch, `${name}.kubeconfig`);
    writeFileSync(this.kubeconfig, Buffer.from(credentials.kubeconfigs![0]!.value!), { mode: 0o600 });
    return created;
  }

  /** The addresses of a cluster's effectiveOutboundIPs: what the internet host sees of it (docs/dataplane.md §17). */
  async outboundIps(name: string): Promise<string[]> {
    const c = await this.az(['aks', 'show', '-g', RG, '-n', name]);
    const refs: Obj[] = c.networkProfile.loadBalancerProfile?.effectiveOutboundIPs ?? c.networkProfile.natGatewayProfile?.effectiveOutboundIPs ?? [];
    const out: string[] = [];
    for (const { id } of refs) {
      const parts = id.split('/');
      out.push((await this.az(['network', 'public-ip', 'show', '-g', parts[4], '-n', parts[8]])).ipAddress);
    }
    return out;
  }

  kubectl(args: string[]): Promise<KubectlResult> {
    return kubectl({ kubeconfig: this.kubeconfig, scratch: this.scratch }, args);
  }

  async kubectlOk(args: string[]): Promise<string> {
    const r = await this.kubectl(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  async json(args: string[]): Promise<Obj> {
    return JSON.parse(await this.kubectlOk([...args, '-o', 'json']));
  }

  /** `kubectl create -f` of a manifest written to the scratch dir. */
  async create(file: string, manifest: string): Promise<string> {
    const path = join(this.scratch, file);
    writeFileSync(path, manifest);
    return this.kubectlOk(['create', '-f', path]);
  }

  async nodes(): Promise<Obj[]> {
    return (await this.json(['get', 'nodes'])).items.sort((a: Obj, b: Obj) => a.metadata.name.localeCompare(b.metadata.name));
  }

  /** The nodes' InternalIPs, in node-name order. */
  async nodeIps(): Promise<string[]> {
    return (await this.nodes()).map((n) => n.status.addresses.find((a: Obj) => a.type === 'InternalIP').address);
  }

  /**
   * Pods web-0 and web-1 (nginx unless a container is given, with more of the pod's spec per pod), one per node: the scheduler has no inter-pod anti-affinity, so each names its node
   * (spec.nodeName, as a user pins pods). Waits until both are Ready and returns them in order.
   */
  async podsOnEachNode(
    container: Obj = { name: 'web', image: 'nginx', ports: [{ containerPort: PORT }] },
    spec: (i: number) => Obj = () => ({}),
  ): Promise<Obj[]> {
    const nodes = await this.nodes();
    assert.equal(nodes.length, 2);
    const pods = nodes.map((n, i) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `web-${i}`, labels: { app: 'web' } },
      spec: { nodeName: n.metadata.name, containers: [container], ...spec(i) },
    }));
    await this.create('web.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
    await this.kubectlOk(['wait', '--for=condition=Ready', 'pod', '-l', 'app=web', '--timeout=60s']);
    const got = (await this.json(['get', 'pods', '-l', 'app=web'])).items.sort((a: Obj, b: Obj) => a.metadata.name.localeCompare(b.metadata.name));
    assert.deepEqual(
      got.map((p: Obj) => p.spec.nodeName),
      nodes.map((n) => n.metadata.name),
    );
    return got;
  }

  /**
   * The world of the client-pod tests: a cluster made with `flags` (kubenet with Calico's network policy unless
   * told), the pods web-0 and web-1 (nginx) behind the Service `web`, cluster DNS answering. Returns web's ClusterIP.
   */
  async startWebCluster(name: string, flags: readonly string[] = KUBENET_CALICO): Promise<string> {
    await this.withCluster(name, [...flags]);
    return this.webBackends();
  }

  /** On a cluster whose pod network works: web-0 and web-1 (nginx, one per node) and the Service `web`; its ClusterIP. */
  async webBackends(): Promise<string> {
    await this.podsOnEachNode();
    return this.webService();
  }

  /** The Service `web` (port 80) in front of podsOnEachNode's pods, once cluster DNS answers; its ClusterIP. */
  async webService(): Promise<string> {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 80 }] } };
    await this.create('svc-web.json', JSON.stringify(service));
    await this.kubectlOk(['wait', '--for=condition=Ready', 'pod', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--timeout=90s']);
    return (await this.json(['get', 'service', 'web'])).spec.clusterIP;
  }

  /** A probe through the server's route, as `aksemu probe -o json` makes it. */
  async probe(from: string, to: string, cluster?: string, timeout = 3000): Promise<ProbeResult> {
    let stdout = '';
    let stderr = '';
    const code = await runProbe(
      { from: parseFrom(from), to: parseTo(to), output: 'json', timeout, ...(cluster ? { resourceGroup: RG, name: cluster } : {}) },
      { env: { AKSEMU_HOME: this.home }, stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } },
    );
    assert.equal(stderr, '', `probe --from ${from} --to ${to}`);
    const result = JSON.parse(stdout) as ProbeResult;
    assert.equal(code, result.connected ? 0 : 1);
    return result;
  }

  /** Where a probe got: [connected, the source the far side saw] (the error when it did not connect). */
  async seen(from: string, to: string, cluster?: string, timeout?: number): Promise<[boolean, string | undefined]> {
    const r = await this.probe(from, to, cluster, timeout);
    return [r.connected, r.connected ? r.seenSource : r.error];
  }

  /** The aksemu binary itself: `aksemu probe … --home HOME`. */
  async probeCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const r = await aksemu(this.home, ['probe', ...args, '--home', this.home], { timeoutMs: 30_000 });
    return { ...r, code: r.code ?? 1 };
  }

  namespaces(): string[] {
    return this.prefix ? listNetns((n) => n.startsWith(`${this.prefix}-`)) : [];
  }

  /** Stops the server (its driver removes every namespace it made) and removes the home. */
  async close(): Promise<void> {
    try {
      await this.server?.close();
    } finally {
      removeHome(this.home);
      rmSync(this.scratch, { recursive: true, force: true });
    }
  }

  /** After close: no namespace of this run is left, and the host's network is as it was. */
  assertClean(): void {
    assert.deepEqual(this.namespaces(), [], 'close removes every namespace of this run');
    assert.deepEqual(rootSnapshot(), this.root, 'the root namespace is unchanged');
  }
}

/**
 * The world of the per-plugin files (dataplane-{kubenet,azure,overlay}.test.ts): the network, a 2-node cluster made
 * with `flags`, and web-0 and web-1, one per node; `ip(i)` is web-i's address, `from(i)` its probe source.
 */
export class PodsWorld extends DataplaneWorld {
  pods: Obj[] = [];
  nodeAddresses: string[] = [];

  /** start(), network(), cluster(name, flags), the pods; returns the cluster as az printed it. */
  async setUp(name: string, flags: string[]): Promise<Obj> {
    await this.start();
    await this.network();
    const created = await this.cluster(name, flags);
    this.pods = await this.podsOnEachNode();
    this.nodeAddresses = await this.nodeIps();
    return created;
  }

  ip(i: number): string {
    return this.pods[i].status.podIP;
  }

  from(i: number): string {
    return `pod/default/web-${i}`;
  }
}
