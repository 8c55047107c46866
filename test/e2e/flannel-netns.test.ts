// flannel v0.28.9's kube-flannel.yml on the netns data plane (aksemu start --dataplane netns), root only: the
// manifest applied unmodified with the real kubectl, a pod CIDR patched onto each node (AKS gives BYO CNI nodes
// none), and then a pod on one node reaches a pod on the other through flannel's vxlan overlay (flannel.1 in each
// node's namespace, a peer per node from the nodes' flannel annotations), seeing the pod's own address: flannel
// does not masquerade inside its network. The namespaces of this run are removed when the server stops.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { DataplaneWorld, eventually, PORT, skipReason } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'fl1';
const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/flannel/v0.28.9/kube-flannel.yml', import.meta.url));
/** The runtime that runs catalogue programs, and the data plane's overlays (issue 16's runtime and dataplane branches). */
const built = (p: string) => existsSync(fileURLToPath(new URL(p, import.meta.url)));
const skip =
  skipReason(true) ||
  (!built('../../src/cluster/cni-agents/runner.js') && 'the node runtime that runs catalogue programs is not built (src/cluster/cni-agents/runner.ts)') ||
  (!built('../../src/dataplane/netns/overlay.js') && "the data plane's VXLAN overlays are not built (src/dataplane/netns/overlay.ts)") ||
  (existsSync(FIXTURE) ? false : 'kube-flannel.yml is not copied in (test/fixtures/flannel/SOURCE.md says how)');

describe('flannel kube-flannel.yml on the netns data plane', { skip }, () => {
  let world: DataplaneWorld;
  let pods: Obj[];
  const cidrs = ['10.244.0.0/24', '10.244.1.0/24'];

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.cluster(CLUSTER, ['--network-plugin', 'none']);
    await world.kubectlOk(['apply', '-f', FIXTURE]);
    const nodes = await world.nodes();
    for (const [i, n] of nodes.entries()) {
      await world.kubectlOk(['patch', 'node', n.metadata.name, '-p', JSON.stringify({ spec: { podCIDR: cidrs[i], podCIDRs: [cidrs[i]] } })]);
    }
    await world.kubectlOk(['delete', 'pod', '-n', 'kube-flannel', '-l', 'app=flannel', '--wait=false']);
    await eventually(
      async () => {
        const ds = (await world.json(['get', 'pods', '-n', 'kube-flannel', '-l', 'app=flannel'])).items as Obj[];
        return (
          ds.length === 2 && ds.every((p) => !p.metadata.deletionTimestamp && p.status.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True'))
        );
      },
      120_000,
      'kube-flannel pods Ready',
    );
    await world.kubectlOk(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
    pods = await world.podsOnEachNode();
  });
  after(async () => {
    await world?.close();
  });

  it("pods take addresses from their node's pod CIDR", () => {
    for (const [i, p] of pods.entries()) assert.ok(Cidr.parse(cidrs[i]!).contains(IpAddress.parse(p.status.podIP)), `${p.metadata.name} ${p.status.podIP}`);
  });

  it('pod → pod across nodes connects over vxlan, with the pod address as the source', async () => {
    assert.deepEqual(await world.seen('pod/default/web-0', `${pods[1].status.podIP}:${PORT}`, CLUSTER), [true, pods[0].status.podIP]);
    assert.deepEqual(await world.seen('pod/default/web-1', `${pods[0].status.podIP}:${PORT}`, CLUSTER), [true, pods[1].status.podIP]);
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
