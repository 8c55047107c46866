// Cilium's catalogue programs on their own (against program.ts's contract, with the fakes of cni-agent-fakes.ts):
// the operator registers the CRDs and gives each CiliumNode a cluster-pool block; each agent creates its
// CiliumNode, takes its router IP, serves its API on the node's cilium.sock, writes 05-cilium.conflist and renames
// the other confs; cilium-cni (in-process, address only) gets addresses from the agent, none twice, each inside its
// node's block, with CiliumEndpoints; DEL releases; a stopped agent leaves the conflist and cilium-cni fails with
// its own words; cni-uninstall.sh honours cni-uninstall=false; install-plugin.sh installs cilium-cni.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { imageSpecOf, programOf } from '../../src/cluster/images/catalogue.js';
import { ciliumCrds } from '../../src/cluster/images/cilium-crds.js';
import { evaluate, parseJsonPath } from '../../src/cluster/apiserver/crd/columns.js';
import type { Program, VxlanOverlay } from '../../src/cluster/images/program.js';
import { ciliumCni } from '../../src/cni/plugins/cilium-cni.js';
import type { PluginRequest } from '../../src/cni/plugins/plugin.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { FakeApi, fakeContext, fakeFiles } from './cni-agent-fakes.js';

const IMAGE = 'quay.io/cilium/cilium:v1.19.6@sha256:0df5b2750b64c49843aba1d649e9eaf61467cb0645ad3171db6f6962c095ac92';
const OPERATOR = 'quay.io/cilium/operator-generic:v1.19.6@sha256:0db4ca4e06969d8904ee036617795d0e9c3228cf7b8d902ba74fc2bb98d2d665';
const NODES = [
  { name: 'aks-nodepool1-12345678-vmss000000', ip: '10.224.0.4' },
  { name: 'aks-nodepool1-12345678-vmss000001', ip: '10.224.0.5' },
];
/** The agent pod's hostPath mounts that matter here (the chart's DaemonSet). */
const AGENT_MOUNTS = { '/var/run/cilium': 'var/run/cilium', '/host/etc/cni/net.d': 'etc/cni/net.d', '/host/opt/cni/bin': 'opt/cni/bin' };

function program(image: string, argv0: string): Program {
  const spec = imageSpecOf(image);
  assert.ok(spec, `no catalogue entry for ${image}`);
  const p = programOf(spec, argv0);
  assert.ok(p, `no program ${argv0} in ${image}`);
  return p;
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('cilium catalogue programs', () => {
  // A long root, as under a temp AKSEMU_HOME: the socket path is longer than sun_path holds.
  const home = mkdtempSync(join(tmpdir(), 'aksemu-cilium-'));
  const root = join(home, 'clusters', 'x'.repeat(40), 'nodes');
  const api = new FakeApi();
  const stops: Array<() => void> = [];
  const runs: Array<Promise<number>> = [];
  const agents: Array<ReturnType<typeof fakeContext>> = [];
  const overlays: VxlanOverlay[] = [];
  const nodeRoot = (i: number) => join(root, NODES[i]?.name ?? '');
  /** A container of node i running argv, with these hostPath mounts. */
  const on = (i: number, argv: string[], mounts: Record<string, string>, extra: Partial<Parameters<typeof fakeContext>[0]> = {}, installed?: string[]) =>
    fakeContext({ node: NODES[i]!.name, nodeIp: NODES[i]!.ip, argv, files: fakeFiles(nodeRoot(i), mounts, installed), nodeRoot: nodeRoot(i), api, ...extra });

  before(() => {
    api.missing.add('/apis/cilium.io/v2/ciliumnodes');
    api.missing.add('/apis/cilium.io/v2/ciliumendpoints');
    api.missing.add('/apis/cilium.io/v2/ciliumidentities');
    for (const n of NODES)
      api.put('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: n.name, labels: { 'kubernetes.io/hostname': n.name } } });
    api.put('/api/v1/namespaces/kube-system/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cilium-config', namespace: 'kube-system' },
      data: {
        ipam: 'cluster-pool',
        'cluster-pool-ipv4-cidr': '10.244.0.0/16',
        'cluster-pool-ipv4-mask-size': '24',
        'write-cni-conf-when-ready': '/host/etc/cni/net.d/05-cilium.conflist',
        'cni-exclusive': 'true',
        'cni-log-file': '/var/run/cilium/cilium-cni.log',
        debug: 'false',
      },
    });
    api.put('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' } },
      spec: {},
    });
    for (let i = 0; i < NODES.length; i++) {
      mkdirSync(join(nodeRoot(i), 'etc/cni/net.d'), { recursive: true });
      // What another CNI left: cni-exclusive renames it away.
      writeFileSync(join(nodeRoot(i), 'etc/cni/net.d/10-other.conflist'), '{"cniVersion":"1.0.0","name":"other","plugins":[{"type":"bridge"}]}');
    }
  });

  after(async () => {
    for (const s of stops) s();
    await Promise.all(runs);
    rmSync(home, { recursive: true, force: true });
  });

  it("the CRDs' printer columns parse; CiliumIdentity's Namespace reads an escaped label key", () => {
    for (const crd of ciliumCrds()) {
      for (const v of (crd['spec'] as { versions: Array<{ additionalPrinterColumns?: Array<{ jsonPath: string }> }> }).versions) {
        for (const c of v.additionalPrinterColumns ?? []) assert.ok(parseJsonPath(c.jsonPath), `${crd.metadata.name} ${c.jsonPath}`);
      }
    }
    const steps = parseJsonPath('.metadata.labels.io\\.kubernetes\\.pod\\.namespace');
    assert.deepEqual(evaluate(steps!, { metadata: { labels: { 'io.kubernetes.pod.namespace': 'default' } } }), ['default']);
  });

  it('build-config writes the ConfigMap as files into the config dir', async () => {
    const { ctx } = on(0, ['cilium-dbg', 'build-config'], AGENT_MOUNTS);
    assert.equal(await program(IMAGE, 'cilium-dbg')(ctx), 0);
    assert.equal(ctx.files.read('/tmp/cilium/config-map/cluster-pool-ipv4-cidr'), '10.244.0.0/16');
  });

  it('install-plugin.sh installs cilium-cni (and loopback, missing) into the host bin dir', async () => {
    const installed: string[] = [];
    const { ctx, log } = on(0, ['/install-plugin.sh'], AGENT_MOUNTS, {}, installed);
    assert.equal(await program(IMAGE, '/install-plugin.sh')(ctx), 0);
    assert.deepEqual(installed, ['/cni/loopback -> /host/opt/cni/bin/loopback', '/opt/cni/bin/cilium-cni -> /host/opt/cni/bin/cilium-cni']);
    assert.match(log.join(''), /Installing cilium-cni to \/host\/opt\/cni\/bin\/cilium-cni \.\.\.\nWrote \/host\/opt\/cni\/bin\/cilium-cni\n/);
    assert.deepEqual(imageSpecOf(IMAGE)?.files?.['/opt/cni/bin/cilium-cni'], { plugin: 'cilium-cni' });
  });

  it('operator registers the CRDs; agents get distinct blocks, serve their API, write the conflist and rename the others', async () => {
    for (let r = 0; r < 2; r++) {
      const op = on(
        r,
        ['cilium-operator-generic', '--config-dir=/tmp/cilium/config-map'],
        {},
        { pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: `cilium-operator-${r}`, namespace: 'kube-system' } } },
      );
      stops.push(op.stop);
      runs.push(program(OPERATOR, 'cilium-operator-generic')(op.ctx));
    }
    for (let i = 0; i < NODES.length; i++) {
      const network = { applyOverlay: async (_n: string, o: VxlanOverlay) => void overlays.push(o), removeOverlay: async () => {} };
      const agent = on(i, ['cilium-agent', '--config-dir=/tmp/cilium/config-map'], AGENT_MOUNTS, { network });
      agents.push(agent);
      stops.push(agent.stop);
      runs.push(program(IMAGE, 'cilium-agent')(agent.ctx));
    }
    await until(() => agents.every((a) => a.ready.value), 'agents ready');
    const crds = [...(api.objects.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')?.keys() ?? [])];
    for (const name of [
      'ciliumnodes.cilium.io',
      'ciliumendpoints.cilium.io',
      'ciliumidentities.cilium.io',
      'ciliumnetworkpolicies.cilium.io',
      'ciliumclusterwidenetworkpolicies.cilium.io',
    ])
      assert.ok(crds.includes(name), name);
    const lease = api.get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cilium-operator-resource-lock');
    assert.match(String((lease?.['spec'] as { holderIdentity?: string }).holderIdentity), /^cilium-operator-[01]-/);
    const cidrs = NODES.map((n) => (api.get(`/apis/cilium.io/v2/ciliumnodes/${n.name}`)?.['spec'] as { ipam: { podCIDRs: string[] } }).ipam.podCIDRs);
    assert.deepEqual(cidrs.flat().sort(), ['10.244.0.0/24', '10.244.1.0/24']);
    for (let i = 0; i < NODES.length; i++) {
      const dir = join(nodeRoot(i), 'etc/cni/net.d');
      assert.deepEqual(readdirSync(dir).sort(), ['05-cilium.conflist', '10-other.conflist.cilium_bak']);
      const conf = JSON.parse(readFileSync(join(dir, '05-cilium.conflist'), 'utf8'));
      assert.deepEqual(conf, {
        cniVersion: '0.3.1',
        name: 'cilium',
        plugins: [{ type: 'cilium-cni', 'enable-debug': false, 'log-file': '/var/run/cilium/cilium-cni.log' }],
      });
      assert.ok(existsSync(join(nodeRoot(i), 'var/run/cilium/cilium.sock')));
      const cn = api.get(`/apis/cilium.io/v2/ciliumnodes/${NODES[i]!.name}`);
      const addrs = (cn?.['spec'] as { addresses: Array<{ type: string; ip: string }> }).addresses;
      assert.deepEqual(addrs[0], { type: 'InternalIP', ip: NODES[i]!.ip });
      assert.ok(Cidr.parse(cidrs[i]![0]!).contains(IpAddress.parse(addrs.find((a) => a.type === 'CiliumInternalIP')!.ip)));
    }
    await until(() => overlays.some((o) => o.peers.length === 1), 'an overlay with its peer');
    const o = overlays.find((x) => x.peers.length === 1)!;
    assert.equal(o.device, 'cilium_vxlan');
    assert.equal(o.port, 8472);
  });

  const req = (i: number, command: 'ADD' | 'DEL', id: string, pod = 'web-0'): PluginRequest => ({
    command,
    containerId: id,
    netns: '',
    ifName: 'eth0',
    args: { K8S_POD_NAMESPACE: 'default', K8S_POD_NAME: pod, IgnoreUnknown: '1' },
    path: [join(nodeRoot(i), 'opt/cni/bin')],
    config: { cniVersion: '0.3.1', name: 'cilium', type: 'cilium-cni' },
    nodeRoot: nodeRoot(i),
    addressOnly: true,
  });

  it('cilium-cni gets each pod an address from its node block, none twice, and a CiliumEndpoint; DEL releases', async () => {
    const seen = new Set<string>();
    for (let k = 0; k < 6; k++) {
      const i = k % 2;
      const res = (await ciliumCni.run(req(i, 'ADD', `c${k}`, `web-${k}`))) as { ips: Array<{ address: string; gateway: string }>; routes: unknown[] };
      const ip = res.ips[0]!.address.replace('/32', '');
      assert.ok(!seen.has(ip), `${ip} twice`);
      seen.add(ip);
      const block = (api.get(`/apis/cilium.io/v2/ciliumnodes/${NODES[i]!.name}`)?.['spec'] as { ipam: { podCIDRs: string[] } }).ipam.podCIDRs[0]!;
      assert.ok(Cidr.parse(block).contains(IpAddress.parse(ip)), `${ip} in ${block}`);
      assert.deepEqual(res.routes[1], { dst: '0.0.0.0/0', gw: res.ips[0]!.gateway });
      const cep = api.get(`/apis/cilium.io/v2/namespaces/default/ciliumendpoints/web-${k}`);
      assert.equal((cep?.['status'] as { networking: { addressing: Array<{ ipv4: string }> } }).networking.addressing[0]!.ipv4, ip);
    }
    assert.ok((api.objects.get('/apis/cilium.io/v2/ciliumidentities')?.size ?? 0) >= 1);
    await ciliumCni.run(req(0, 'DEL', 'c0', 'web-0'));
    assert.equal(api.get('/apis/cilium.io/v2/namespaces/default/ciliumendpoints/web-0'), undefined);
  });

  it('a stopped agent leaves the conflist (cni-uninstall false) and cilium-cni fails in its own words', async () => {
    const pre = on(0, ['/cni-uninstall.sh'], AGENT_MOUNTS);
    assert.equal(await program(IMAGE, '/cni-uninstall.sh')(pre.ctx), 0);
    assert.equal(pre.log.join(''), 'cni-uninstall disabled, not removing CNI configuration\n');
    agents[0]!.stop();
    await until(() => !existsSync(join(nodeRoot(0), 'var/run/cilium/cilium.sock')), 'the socket gone');
    assert.ok(existsSync(join(nodeRoot(0), 'etc/cni/net.d/05-cilium.conflist')));
    await assert.rejects(ciliumCni.run(req(0, 'ADD', 'late')), (e: Error) => {
      assert.equal(
        e.message,
        'unable to connect to Cilium daemon: failed to create cilium agent client after 30.000000 seconds timeout: Get "http://localhost/v1/config": dial unix /var/run/cilium/cilium.sock: connect: no such file or directory\nIs the agent running?',
      );
      return true;
    });
    // DEL still succeeds: the deletion waits in the agent's queue.
    await ciliumCni.run(req(0, 'DEL', 'c2', 'web-2'));
    assert.deepEqual(readdirSync(join(nodeRoot(0), 'var/run/cilium/deleteQueue')), ['c2.delete']);
  });
});
