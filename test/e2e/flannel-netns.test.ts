// flannel v0.28.9's kube-flannel.yml on the netns data plane (aksemu start --dataplane netns), root only, on the
// shared BYO CNI world (byo-cni-harness.ts): the manifest applied unmodified with the real kubectl, a pod CIDR
// patched onto each node (AKS gives BYO CNI nodes none), and then each node's flanneld has programmed flannel.1
// (VNI 1, port 8472, MTU 1450, the node subnet's network address /32, the other node as a peer), and a pod on one
// node reaches a pod on the other seeing the pod's own address: flannel does not masquerade inside its network.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { ByoCniWorld, byoSkipReason, eventually, PORT } from './byo-cni-harness.js';
import { VM } from './dataplane-harness.js';
import { thirdPartyFile } from '../third-party.js';

type Obj = any;
const FIXTURE = thirdPartyFile('flannel', 'v0.28.9', 'kube-flannel.yml');
const skip =
  byoSkipReason() || (existsSync(FIXTURE) ? false : `kube-flannel.yml is not in ${FIXTURE} (test/fixtures/flannel/SOURCE.md says how to copy it in)`);

describe('flannel kube-flannel.yml on the netns data plane', { skip }, () => {
  let world: ByoCniWorld;
  let nodes: string[];
  let pods: Obj[];
  const cidrs = ['10.244.0.0/24', '10.244.1.0/24'];

  before(async () => {
    world = new ByoCniWorld();
    await world.setUp({ name: 'fl1' });
    await world.kubectlOk(['apply', '-f', FIXTURE]);
    nodes = await world.nodeNames();
    for (const [i, n] of nodes.entries()) {
      await world.kubectlOk(['patch', 'node', n, '-p', JSON.stringify({ spec: { podCIDR: cidrs[i], podCIDRs: [cidrs[i]] } })]);
    }
    // Rather than wait out the crash-loop back-off, as a user does: the DaemonSet starts them again at once.
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
    await world.waitNodesReady();
    pods = await world.podsOnEachNode();
  });
  after(async () => {
    await world?.close();
  });

  it("flanneld programmed flannel.1 on each node, with the other node's VTEP as its peer", async () => {
    const annotated = (await world.nodes()).map((n) => ({
      ip: n.status.addresses.find((a: Obj) => a.type === 'InternalIP').address,
      mac: JSON.parse(n.metadata.annotations['flannel.alpha.coreos.com/backend-data']).VtepMAC,
    }));
    for (const [i, node] of nodes.entries()) {
      const link = JSON.parse(world.inNode(node, ['ip', '-d', '-j', 'link', 'show', 'flannel.1']))[0];
      assert.equal(link.mtu, 1450);
      assert.equal(link.address, annotated[i]!.mac);
      assert.equal(link.linkinfo.info_data.id, 1);
      assert.equal(link.linkinfo.info_data.port, 8472);
      const addr = JSON.parse(world.inNode(node, ['ip', '-j', 'addr', 'show', 'flannel.1']))[0];
      assert.deepEqual(
        addr.addr_info.filter((a: Obj) => a.family === 'inet').map((a: Obj) => `${a.local}/${a.prefixlen}`),
        [`${Cidr.parse(cidrs[i]!).first}/32`],
      );
      const other = 1 - i;
      const fdb = world.inNode(node, ['bridge', 'fdb', 'show', 'dev', 'flannel.1']);
      assert.match(fdb, new RegExp(`${annotated[other]!.mac} dst ${annotated[other]!.ip.replace(/\./g, '\\.')}`));
      const route = world.inNode(node, ['ip', 'route', 'show', cidrs[other]!]);
      assert.match(route, new RegExp(`via ${Cidr.parse(cidrs[other]!).first.toString().replace(/\./g, '\\.')} dev flannel\\.1 onlink`));
    }
  });

  it("pods take addresses from their node's pod CIDR", () => {
    for (const [i, p] of pods.entries()) assert.ok(Cidr.parse(cidrs[i]!).contains(IpAddress.parse(p.status.podIP)), `${p.metadata.name} ${p.status.podIP}`);
  });

  it('pod → pod across nodes connects both ways over vxlan, with the pod addresses as sources', async () => {
    await world.assertPodToPod(pods);
  });

  it("flanneld --ip-masq (kube-flannel.yml passes it): its masquerade rules in each node's namespace, and a pod going out of the network is seen as its node", async () => {
    const nodeIps = await world.nodeIps();
    for (const [i, node] of nodes.entries()) {
      const table = world.inNode(node, ['nft', 'list', 'table', 'ip', 'flannel-ipv4']);
      assert.match(table, /hook postrouting priority srcnat/);
      assert.match(table, new RegExp(`ip saddr ${cidrs[i]!.replace(/\./g, '\\.')} ip daddr 10\\.244\\.0\\.0/16 return`));
      assert.match(table, /ip saddr 10\.244\.0\.0\/16 ip daddr != 224\.0\.0\.0\/4 masquerade fully-random/);
      assert.deepEqual(await world.seen(`pod/default/${pods[i].metadata.name}`, `${VM.ip}:${PORT}`, 'fl1'), [true, nodeIps[i]]);
    }
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
