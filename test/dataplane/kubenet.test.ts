// kubenet on real namespaces: the source-address table of docs/dataplane.md §1, the UDRs that carry VM→pod
// traffic, and NSGs in the VNet router.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import type { NodeTopology, NsgRule } from '../../src/dataplane/topology.js';
import { CLUSTER_ID, kubenetRoutes, nsgRules, pod, rootSnapshot, skipReason, testPrefix, topology, VM, closeAndAssertClean } from './harness.js';
import { fromPod, fromVm, openDataplane } from './harness.js';

const prefix = testPrefix();
const skip = await skipReason(prefix);

const kubenet = (i: number): NodeTopology => ({ clusterId: CLUSTER_ID, wiring: 'bridge', podCidr: `10.244.${i}.0/24`, clusterPodCidr: '10.244.0.0/16' });
const PODS = [pod(0, 'web-0', '10.244.0.2'), pod(1, 'web-1', '10.244.1.2'), pod(1, 'web-2', '10.244.1.3')];

describe('kubenet data plane', { skip }, () => {
  let dp: NetnsDataplane;
  let root: Record<string, string>;

  before(async () => {
    root = rootSnapshot();
    dp = await openDataplane(prefix);
    await dp.apply(topology(kubenet, { routes: kubenetRoutes() }));
    for (const p of PODS) await dp.attachPod(p);
  });
  after(async () => {
    await dp?.close({ removeAll: true });
  });

  it('pod → pod on another node: the far pod sees the pod IP', async () => {
    const r = await dp.probe(fromPod('web-0', '10.244.1.2'));
    assert.deepEqual([r.connected, r.seenSource, r.error], [true, '10.244.0.2', undefined]);
  });

  it('pod → VM in the VNet: the VM sees the node IP (ip-masq-agent)', async () => {
    const r = await dp.probe(fromPod('web-0', VM.ip));
    assert.deepEqual([r.connected, r.seenSource], [true, '10.224.0.4']);
  });

  it('pod → internet: the internet host sees the node IP', async () => {
    const r = await dp.probe(fromPod('web-2', '198.51.100.10'));
    assert.deepEqual([r.connected, r.seenSource], [true, '10.224.0.5']);
  });

  it('VM → pod IP works through the UDR, and the pod sees the VM', async () => {
    const r = await dp.probe(fromVm('10.244.1.2'));
    assert.deepEqual([r.connected, r.seenSource], [true, VM.ip]);
  });

  it('without the UDR for node 1, VM → its pods breaks; with it back, it works again', async () => {
    await dp.apply(topology(kubenet, { routes: kubenetRoutes().slice(0, 1) }));
    const broken = await dp.probe(fromVm('10.244.1.2', 1500));
    assert.equal(broken.connected, false);
    const other = await dp.probe(fromVm('10.244.0.2'));
    assert.deepEqual([other.connected, other.seenSource], [true, VM.ip]);
    await dp.apply(topology(kubenet, { routes: kubenetRoutes() }));
    const back = await dp.probe(fromVm('10.244.1.2'));
    assert.deepEqual([back.connected, back.seenSource], [true, VM.ip]);
  });

  it('a route whose next hop is on no subnet fails the apply with the command; the next good apply converges', async () => {
    const bad = [...kubenetRoutes(), { name: 'nva', prefix: '10.250.0.0/16', nextHopType: 'VirtualAppliance' as const, nextHopIp: '192.0.2.50' }];
    await assert.rejects(
      dp.apply(topology(kubenet, { routes: bad })),
      /route replace 10\.250\.0\.0\/16 via 192\.0\.2\.50 table \d+: Error: Nexthop has invalid gateway/,
    );
    await dp.apply(topology(kubenet, { routes: kubenetRoutes() }));
    const r = await dp.probe(fromVm('10.244.1.2'));
    assert.deepEqual([r.connected, r.seenSource], [true, VM.ip]);
  });

  it("an NSG with Azure's default rules: the VNet and outbound internet work (stateful), inbound internet does not", async () => {
    await dp.apply(topology(kubenet, { routes: kubenetRoutes(), nsg: { id: 'nsg', rules: nsgRules() } }));
    const podToPod = await dp.probe(fromPod('web-0', '10.244.1.2'));
    assert.deepEqual([podToPod.connected, podToPod.seenSource], [true, '10.244.0.2']);
    const toInternet = await dp.probe(fromPod('web-2', '198.51.100.10'));
    assert.deepEqual([toInternet.connected, toInternet.seenSource], [true, '10.224.0.5']);
    const fromInternet = await dp.probe({ from: { kind: 'internet' }, to: { ip: VM.ip, port: 8080 }, timeoutMs: 1500 });
    assert.equal(fromInternet.connected, false);
  });

  it('an NSG rule denying the node CIDR breaks pod traffic; removing it restores it', async () => {
    const deny: NsgRule = {
      name: 'deny-nodes',
      priority: 100,
      direction: 'Inbound',
      access: 'Deny',
      protocol: '*',
      sourcePrefixes: ['10.224.0.0/16'],
      sourcePorts: ['*'],
      destinationPrefixes: ['*'],
      destinationPorts: ['*'],
    };
    await dp.apply(topology(kubenet, { routes: kubenetRoutes(), nsg: { id: 'nsg', rules: nsgRules([deny]) } }));
    const podToVm = await dp.probe(fromPod('web-0', VM.ip, 1500));
    assert.equal(podToVm.connected, false, 'pod → VM leaves as the node IP, which the NSG denies');
    const vmToPod = await dp.probe(fromVm('10.244.1.2', 1500));
    assert.equal(vmToPod.connected, false);
    await dp.apply(topology(kubenet, { routes: kubenetRoutes() }));
    const back = await dp.probe(fromPod('web-0', VM.ip));
    assert.deepEqual([back.connected, back.seenSource], [true, '10.224.0.4']);
  });

  it('refuses a pod address outside the node /24 and detaches pods by deleting their namespace', async () => {
    await assert.rejects(dp.attachPod(pod(0, 'stray', '10.244.1.9')), /10\.244\.1\.9 is not a pod address of node .*10\.244\.0\.0\/24/);
    await dp.detachPod(PODS[2]!);
    const r = await dp.probe(fromPod('web-0', '10.244.1.3', 1500));
    assert.equal(r.connected, false);
    assert.equal(r.error !== undefined, true);
  });

  it('removes every namespace it made, and the root namespace is unchanged', async () => {
    await closeAndAssertClean(dp, prefix, root);
  });
});
