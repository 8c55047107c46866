// Calico installed with the tigera operator on a BYO CNI cluster, on the real data plane (`--dataplane netns`,
// root only): the operator's unmodified manifests (test/fixtures/calico/SOURCE.md; skipped without them), the
// Installation of Calico's AKS page (kubernetesProvider AKS, Calico CNI, BGP off, one VXLAN pool on the pod CIDR:
// https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/aks). calico-node programs
// vxlan.calico in each node's namespace, pods get addresses from calico-ipam's /26 blocks, and a pod reaches a
// pod on the other node with its own address (VXLAN keeps the source; natOutgoing applies only outside the pool).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { imageSpecOf } from '../../src/cluster/cni-agents/catalogue.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { DataplaneWorld, PORT, skipReason } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'k1';
const POD_CIDR = '10.244.0.0/16';
const DIR = fileURLToPath(new URL('../../../test/fixtures/calico/v3.32.1/', import.meta.url));
const INSTALLATION = `kind: Installation
apiVersion: operator.tigera.io/v1
metadata:
  name: default
spec:
  kubernetesProvider: AKS
  cni:
    type: Calico
  calicoNetwork:
    bgp: Disabled
    ipPools:
     - cidr: ${POD_CIDR}
       encapsulation: VXLAN
`;

function skip(): string | false {
  const reason = skipReason();
  if (reason) return reason;
  if (['operator-crds.yaml', 'tigera-operator.yaml'].some((f) => !existsSync(join(DIR, f))))
    return `Calico v3.32.1 manifests not in ${DIR}: put them there as test/fixtures/calico/SOURCE.md says (tools/copy-calico-manifests.mjs)`;
  if (!imageSpecOf('quay.io/calico/node:v3.32.1')) return 'the CNI agent catalogue has no calico/node entry yet (src/cluster/cni-agents/calico.ts)';
  return false;
}

describe('Calico operator + VXLAN on the netns data plane: pod → pod across nodes', { skip: skip() }, () => {
  let world: DataplaneWorld;
  let pods: Obj[];

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.cluster(CLUSTER, ['--network-plugin', 'none', '--pod-cidr', POD_CIDR]);
    await world.kubectlOk(['create', '-f', join(DIR, 'operator-crds.yaml')]);
    await world.kubectlOk(['wait', '--for=condition=established', '--all', 'crd', '--timeout=60s']);
    await world.create('tigera-operator.yaml', readFileSync(join(DIR, 'tigera-operator.yaml'), 'utf8'));
    await world.create('installation.yaml', INSTALLATION);
    await world.kubectlOk(['wait', '--for=condition=Available', 'tigerastatus/calico', '--timeout=120s']);
    await world.kubectlOk(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
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
    assert.deepEqual(await world.seen('pod/default/web-0', `${b}:${PORT}`, CLUSTER), [true, a]);
    assert.deepEqual(await world.seen('pod/default/web-1', `${a}:${PORT}`, CLUSTER), [true, b]);
  });

  it('stopping the server removes every namespace of this run', async () => {
    await world.server.close();
    world.assertClean();
  });
});
