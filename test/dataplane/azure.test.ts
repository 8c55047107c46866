// Azure CNI (node subnet) on real namespaces: pods on pre-allocated VNet addresses in azure-vnet's
// transparent mode; the VNet sees pod IPs, the internet the node IP (docs/dataplane.md §1, §5).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import type { NodeTopology, NsgRule } from '../../src/dataplane/topology.js';
import { CLUSTER_ID, NODES, nsgRules, pod, rootSnapshot, skipReason, testPrefix, topology, VM, closeAndAssertClean } from './harness.js';
import { fromPod, fromVm, openDataplane } from './harness.js';

const prefix = testPrefix();
const skip = await skipReason(prefix);

// Node i owns .10+30i … .39+30i, as the azurecni prototype's pools.
const azure = (i: number): NodeTopology => ({
  clusterId: CLUSTER_ID,
  wiring: 'transparent',
  secondaryIps: Array.from({ length: 30 }, (_, k) => `10.224.0.${10 + 30 * i + k}`),
});
const PODS = [pod(0, 'api-0', '10.224.0.10'), pod(1, 'api-1', '10.224.0.40'), pod(1, 'api-2', '10.224.0.41')];

describe('Azure CNI data plane', { skip }, () => {
  let dp: NetnsDataplane;
  let root: Record<string, string>;

  before(async () => {
    root = rootSnapshot();
    dp = await openDataplane(prefix);
    await dp.apply(topology(azure));
    await Promise.all(PODS.map((p) => dp.attachPod(p)));
  });
  after(async () => {
    await dp?.close({ removeAll: true });
  });

  it('pod → pod on another node: the far pod sees the pod IP', async () => {
    const r = await dp.probe(fromPod('api-0', '10.224.0.40'));
    assert.deepEqual([r.connected, r.seenSource, r.error], [true, '10.224.0.10', undefined]);
  });

  it('pod → VM in the VNet: the VM sees the POD IP', async () => {
    const r = await dp.probe(fromPod('api-0', VM.ip));
    assert.deepEqual([r.connected, r.seenSource], [true, '10.224.0.10']);
  });

  it('pod → internet: the internet host sees the node IP', async () => {
    const r = await dp.probe(fromPod('api-2', '198.51.100.10'));
    assert.deepEqual([r.connected, r.seenSource], [true, NODES[1]!.ip]);
  });

  it('VM → pod IP works directly (no UDR), and the pod sees the VM', async () => {
    const r = await dp.probe(fromVm('10.224.0.41'));
    assert.deepEqual([r.connected, r.seenSource], [true, VM.ip]);
  });

  it('node → pod on its own node works; the pod sees the node IP', async () => {
    const r = await dp.probe({ from: { kind: 'node', name: NODES[1]!.name, clusterId: CLUSTER_ID }, to: { ip: '10.224.0.40', port: 8080 } });
    assert.deepEqual([r.connected, r.seenSource], [true, NODES[1]!.ip]);
  });

  it('an NSG rule denying the node CIDR breaks pod traffic (pod IPs are in it); removing it restores it', async () => {
    const deny: NsgRule = {
      name: 'deny-nodes',
      priority: 100,
      direction: 'Inbound',
      access: 'Deny',
      protocol: 'Tcp',
      sourcePrefixes: ['10.224.0.0/16'],
      sourcePorts: ['*'],
      destinationPrefixes: ['*'],
      destinationPorts: ['8080'],
    };
    await dp.apply(topology(azure, { nsg: { id: 'nsg', rules: nsgRules([deny]) } }));
    const podToPod = await dp.probe(fromPod('api-0', '10.224.0.40', 1500));
    assert.equal(podToPod.connected, false);
    const podToVm = await dp.probe(fromPod('api-0', VM.ip, 1500));
    assert.equal(podToVm.connected, false);
    // Outbound to the internet is not from the subnet's Inbound side: still allowed.
    const out = await dp.probe(fromPod('api-2', '198.51.100.10'));
    assert.deepEqual([out.connected, out.seenSource], [true, NODES[1]!.ip]);
    await dp.apply(topology(azure));
    const back = await dp.probe(fromPod('api-0', '10.224.0.40'));
    assert.deepEqual([back.connected, back.seenSource], [true, '10.224.0.10']);
  });

  it("refuses an address that is not one of the node's pre-allocated IPs; a pod attach is idempotent", async () => {
    await assert.rejects(dp.attachPod(pod(0, 'stray', '10.224.0.40')), /10\.224\.0\.40 is not one of node .* pre-allocated pod addresses/);
    const again = await dp.attachPod(PODS[0]!);
    assert.equal(again.ip, '10.224.0.10');
  });

  it('removes every namespace it made, and the root namespace is unchanged', async () => {
    await closeAndAssertClean(dp, prefix, root);
  });
});
