// Calico installed with the tigera operator on a BYO CNI cluster, on the real data plane (`--dataplane netns`,
// root only): the operator's unmodified manifests (test/fixtures/calico/SOURCE.md; skipped without them), the
// Installation of Calico's AKS page (kubernetesProvider AKS, Calico CNI, BGP off, one VXLAN pool on the pod CIDR:
// https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/aks). calico-node programs
// vxlan.calico in each node's namespace, pods get addresses from calico-ipam's /26 blocks, and a pod reaches a
// pod on the other node with its own address (VXLAN keeps the source; natOutgoing applies only outside the pool).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { calicoSkipReason, installCalicoOperator } from './calico-install.js';
import { DataplaneWorld, eventually, PORT } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'k1';
const POD_CIDR = '10.244.0.0/16';

describe('Calico operator + VXLAN on the netns data plane: pod → pod across nodes', { skip: calicoSkipReason() }, () => {
  let world: DataplaneWorld;
  let pods: Obj[];

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.cluster(CLUSTER, ['--network-plugin', 'none', '--pod-cidr', POD_CIDR]);
    await installCalicoOperator(world, POD_CIDR);
    pods = await world.podsOnEachNode();
  });
  after(async () => {
    await world?.close();
  });

  it('pods have addresses from the pool, in different /26 blocks (one per node)', () => {
    const pool = Cidr.parse(POD_CIDR);
    const ips = pods.map((p) => p.status.podIP as string);
    for (const ip of ips) assert.ok(pool.contains(IpAddress.parse(ip)), `${ip} outside ${POD_CIDR}`);
    const blocks = ips.map((ip) => Cidr.parse(`${ip}/26`, { canonical: false }).toString());
    assert.notEqual(blocks[0], blocks[1]);
  });

  it('pod → pod across nodes connects through VXLAN, the far side seeing the pod address', async () => {
    const [a, b] = pods.map((p) => p.status.podIP as string);
    // calico-node programs each node's overlay once it sees the other node's tunnel address: allow it to converge.
    await eventually(async () => (await world.seen('pod/default/web-0', `${b}:${PORT}`, CLUSTER, 1000))[0], 30_000, 'the VXLAN overlay');
    assert.deepEqual(await world.seen('pod/default/web-0', `${b}:${PORT}`, CLUSTER), [true, a]);
    assert.deepEqual(await world.seen('pod/default/web-1', `${a}:${PORT}`, CLUSTER), [true, b]);
  });

  it('stopping the server removes every namespace of this run', async () => {
    await world.server.close();
    world.assertClean();
  });
});
