// A CNI agent's VXLAN overlay on real namespaces (docs/dataplane.md §6.4): two BYO CNI nodes behind a subnet
// whose NSG has Azure's default rules, pods from the reference bridge + host-local (one /24 per node, no
// masquerade, as flannel's conflist delegates), and flannel's overlay shape programmed through the driver:
// pod → pod across nodes keeps the pod IP. Converging again writes nothing; a changed peer list removes what is
// stale; a removed device takes its routes with it. Root only; names carry a test prefix, removed by name.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataplaneController } from '../../src/dataplane/controller.js';
import { NullDataplane, type PodAttachment, type VxlanOverlay } from '../../src/dataplane/dataplane.js';
import type { NodeTopology, NsgRule } from '../../src/dataplane/topology.js';
import { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import { desiredOverlay, overlayCommands } from '../../src/dataplane/netns/overlay.js';
import { TEST_OVERLAY_DEVICE, testNodeSubnet, testOverlay } from '../e2e/byo-cni-overlay-shape.js';
import { CLUSTER_ID, NODES, nodeId, nsgRules, pod, rootSnapshot, skipReason, testPrefix, topology, closeAndAssertClean } from './harness.js';

const prefix = testPrefix();
const PLUGINS = '/usr/lib/cni';
const skip = (await skipReason(prefix)) || (existsSync(join(PLUGINS, 'bridge')) ? false : `the CNI plugins are not installed in ${PLUGINS}`);

const DEV = TEST_OVERLAY_DEVICE;
const NODE_IPS = NODES.map((n) => n.ip);
const range = (i: number): string => testNodeSubnet(i, 246);
const flannel = (i: number, peers?: number[]): VxlanOverlay => testOverlay(i, NODE_IPS, 246, peers);

describe("the agents' node network", () => {
  it('is absent without a data plane (--dataplane none): agents do their control-plane part only', () => {
    const controller = new DataplaneController({ store: undefined as never, dataplane: new NullDataplane(), log: () => undefined });
    assert.equal(controller.nodeNetwork(CLUSTER_ID), undefined);
  });
});

describe('VXLAN overlays of CNI agents on the netns data plane', { skip }, () => {
  let dp: NetnsDataplane;
  let root: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'aksemu-overlay-'));
  const pods: PodAttachment[] = [];
  const ips: string[] = [];
  const nodeNs = (i: number): string => dp.names.host(nodeId(i));
  const inNode = (i: number, args: string[]): string =>
    execFileSync('nsenter', [`--net=/run/netns/${nodeNs(i)}`, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const probe = (from: number, ip: string) =>
    dp.probe({ from: { kind: 'pod', clusterId: CLUSTER_ID, namespace: 'default', name: `web-${from}` }, to: { ip, port: 8080 }, timeoutMs: 1500 });

  const byo = (): NodeTopology => ({ clusterId: CLUSTER_ID, wiring: 'none' });
  const withNsg = (custom: NsgRule[] = []) => topology(byo, { nsg: { id: 'nsg', rules: nsgRules(custom) } });

  before(async () => {
    root = rootSnapshot();
    dp = new NetnsDataplane({ prefix });
    await dp.gc();
    await dp.apply(withNsg());
    for (const i of [0, 1]) {
      const cni = { confDir: join(dir, `net.d-${i}`), pluginDirs: [PLUGINS], cacheDir: join(dir, `cache-${i}`), ipamDataDir: join(dir, `ipam-${i}`) };
      mkdirSync(cni.confDir, { recursive: true });
      const bridge = {
        type: 'bridge',
        bridge: 'cni0',
        isGateway: true,
        ipMasq: false,
        ipam: { type: 'host-local', ranges: [[{ subnet: range(i) }]], routes: [{ dst: '10.246.0.0/16' }] },
      };
      writeFileSync(join(cni.confDir, '10-test.conflist'), JSON.stringify({ cniVersion: '1.0.0', name: 'overlay-test', plugins: [bridge] }));
      pods.push(pod(i, `web-${i}`, undefined, { cni }));
      ips.push((await dp.attachPod(pods[i]!)).ip);
    }
  });
  after(async () => {
    await dp?.close({ removeAll: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('without the overlay a pod cannot reach a pod on the other node', async () => {
    assert.deepEqual(ips, ['10.246.0.2', '10.246.1.2']);
    assert.equal((await probe(0, ips[1]!)).connected, false);
  });

  it('with it, pod → pod across nodes connects and the far side sees the pod IP (UDP 8472 passes the default NSG)', async () => {
    await Promise.all([0, 1].map((i) => dp.applyOverlay(nodeId(i), flannel(i))));
    const link = inNode(0, ['ip', '-d', '-o', 'link', 'show', 'dev', DEV]);
    assert.match(link, /mtu 1450 /);
    assert.match(link, /link\/ether 02:fa:00:00:00:00 /);
    assert.match(link, /vxlan id 1 local 10\.224\.0\.4 dev eth0 srcport \d+ \d+ dstport 8472 nolearning/);
    assert.match(inNode(0, ['bridge', 'fdb', 'show', 'dev', DEV]), /^02:fa:00:00:00:01 dst 10\.224\.0\.5 self permanent\s*$/m);
    assert.match(inNode(0, ['ip', 'neigh', 'show', 'dev', DEV]), /^10\.246\.1\.0 lladdr 02:fa:00:00:00:01 PERMANENT\s*$/m);
    assert.match(inNode(0, ['ip', 'route', 'show', 'dev', DEV]), /^10\.246\.1\.0\/24 via 10\.246\.1\.0 onlink\s*$/m);
    for (const [from, to] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const r = await probe(from, ips[to]!);
      assert.deepEqual([r.connected, r.seenSource], [true, ips[from]], `web-${from} → web-${to}: ${r.error ?? ''}`);
    }
  });

  it('converging on the same overlay writes nothing; a changed one writes only the difference', () => {
    const { state } = desiredOverlay(flannel(0), NODES[0]!.ip);
    assert.deepEqual(overlayCommands(DEV, state, desiredOverlay(flannel(0), NODES[0]!.ip).state), { ip: [], fdb: [] });
    const moved = { ...flannel(0), mtu: 1400 };
    moved.peers = [{ ...moved.peers[0]!, nodeIp: '10.224.0.9' }];
    assert.deepEqual(overlayCommands(DEV, state, desiredOverlay(moved, NODES[0]!.ip).state), {
      ip: [`link set ${DEV} mtu 1400`],
      fdb: [
        { line: `fdb del 02:fa:00:00:00:01 dev ${DEV} dst 10.224.0.5 self`, mayFail: true },
        `fdb append 02:fa:00:00:00:01 dev ${DEV} dst 10.224.0.9 self permanent`,
      ],
    });
  });

  it('a peer that goes takes its FDB entry, neighbour and route with it; the connection breaks', async () => {
    await dp.applyOverlay(nodeId(0), flannel(0, []));
    assert.equal(inNode(0, ['ip', 'route', 'show', 'dev', DEV]).trim(), '');
    assert.equal(inNode(0, ['ip', 'neigh', 'show', 'dev', DEV]).trim(), '');
    assert.doesNotMatch(inNode(0, ['bridge', 'fdb', 'show', 'dev', DEV]), /dst 10\.224\.0\.5/);
    assert.equal((await probe(0, ips[1]!)).connected, false);
    await dp.applyOverlay(nodeId(0), flannel(0));
    assert.equal((await probe(0, ips[1]!)).connected, true);
  });

  it("an NSG rule denying the tunnel's UDP port cuts pod → pod across nodes, as on Azure; removing it restores it", async () => {
    const deny: NsgRule = {
      name: 'deny-vxlan',
      priority: 100,
      direction: 'Inbound',
      access: 'Deny',
      protocol: 'Udp',
      sourcePrefixes: ['*'],
      sourcePorts: ['*'],
      destinationPrefixes: ['*'],
      destinationPorts: ['8472'],
    };
    await dp.apply(withNsg([deny]));
    assert.equal((await probe(0, ips[1]!)).connected, false);
    await dp.apply(withNsg());
    assert.equal((await probe(0, ips[1]!)).connected, true);
  });

  it('a device of another kind with the same name is never touched; a bad overlay is refused before anything runs', async () => {
    await assert.rejects(dp.applyOverlay(nodeId(0), { ...flannel(0), device: 'cni0' }), /already has a link of that name that is not a VXLAN device/);
    assert.match(inNode(0, ['ip', '-o', 'link', 'show', 'dev', 'cni0']), /cni0/);
    await assert.rejects(dp.applyOverlay(nodeId(0), { ...flannel(0), device: 'eth0' }), /not allowed/);
    await assert.rejects(dp.applyOverlay(nodeId(0), { ...flannel(0), device: 'x\nlink del eth0' }), /not allowed/);
    await assert.rejects(dp.applyOverlay(nodeId(0), { ...flannel(0), mac: '01:00:5e:00:00:01' }), /not a unicast MAC/);
    await assert.rejects(dp.applyOverlay(nodeId(0), { ...flannel(0), localIp: NODES[1]!.ip }), /not the node's address/);
    const looping = flannel(0);
    looping.peers[0]!.cidrs = ['10.224.0.0/16'];
    await assert.rejects(dp.applyOverlay(nodeId(0), looping), /holds the node address/);
    await assert.rejects(dp.applyOverlay(`${CLUSTER_ID}/nodes/nope`, flannel(0)), /is not in the data plane/);
    assert.equal((await probe(0, ips[1]!)).connected, true);
  });

  it('removing the overlay deletes the device and its routes; removing again is a no-op', async () => {
    await dp.removeOverlay(nodeId(1), DEV);
    await dp.removeOverlay(nodeId(1), DEV);
    assert.throws(() => inNode(1, ['ip', 'link', 'show', 'dev', DEV]));
    assert.equal((await probe(0, ips[1]!)).connected, false);
  });

  it("a node rebuilt because its shape changed gets its agent's overlay again", async () => {
    const before = inNode(0, ['ip', '-o', 'link', 'show', 'dev', 'eth0']);
    await dp.apply(topology((i) => ({ ...byo(), ...(i === 0 ? { podCidr: '10.99.0.0/24' } : {}) }), { nsg: { id: 'nsg', rules: nsgRules() } }));
    assert.notEqual(inNode(0, ['ip', '-o', 'link', 'show', 'dev', 'eth0']), before, 'the node was made again');
    assert.match(inNode(0, ['ip', '-d', '-o', 'link', 'show', 'dev', DEV]), /vxlan id 1 local 10\.224\.0\.4 /);
    assert.match(inNode(0, ['ip', 'route', 'show', 'dev', DEV]), /^10\.246\.1\.0\/24 via 10\.246\.1\.0 onlink/m);
  });

  it('removes every namespace it made, and the root namespace is unchanged', async () => {
    await closeAndAssertClean(dp, prefix, root);
  });
});
