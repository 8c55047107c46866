// BYO CNI (`--network-plugin none`, created with a pod CIDR) on the real data plane, end to end (issue 6,
// docs/dataplane.md §1, §6). BYO nodes have no podCIDR (AKS carves none), so per-node pod ranges come the way
// CNI DaemonSets bring them (flannel, Calico): a host-network DaemonSet applied with the real kubectl whose
// init container copies its node's conflist — bridge + host-local, ipMasq on — from a ConfigMap into the
// node's /etc/cni/net.d. The nodes turn Ready, the data plane runs the whole conflist with the real plugins
// of /usr/lib/cni inside each node's namespace, and pods take the addresses host-local gave (one allocation
// per pod: no separate IPAM call). Pods reach out as the node (the bridge plugin's masquerade); the VM cannot
// reach a pod (the VNet has no route for the user's range: the seed's warning come true). Root only.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nodesDir } from '../../src/cluster/nodefs/paths.js';
import { nodeCniDataDir } from '../../src/cluster/kubelet/ipam-exec.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { DataplaneWorld, eventually, INTERNET, PORT, RG, skipReason, VM } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'b1';
const NETWORK = 'byo-net';
const nodeRange = (i: number, second = 245) => `10.${second}.${i}.0/24`;

function conflist(i: number, second = 245): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: NETWORK,
    plugins: [
      {
        type: 'bridge',
        bridge: 'cni0',
        isGateway: true,
        ipMasq: true,
        ipam: { type: 'host-local', ranges: [[{ subnet: nodeRange(i, second) }]], routes: [{ dst: '0.0.0.0/0' }] },
      },
    ],
  });
}

/** The ConfigMap (one conflist per node, keyed by node name) and the DaemonSet that installs it. */
function installer(nodes: string[], second = 245): string {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'byo-cni', namespace: 'kube-system' },
    data: Object.fromEntries(nodes.map((n, i) => [`${n}.conflist`, conflist(i, second)])),
  };
  const daemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'byo-cni', namespace: 'kube-system' },
    spec: {
      selector: { matchLabels: { app: 'byo-cni' } },
      template: {
        metadata: { labels: { app: 'byo-cni' } },
        spec: {
          hostNetwork: true,
          tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
          initContainers: [
            {
              name: 'install-cni',
              image: 'docker.io/library/busybox:1.36',
              command: ['sh', '-c', 'cp /etc/byo-cni/$NODE_NAME.conflist /etc/cni/net.d/10-byo.conflist'],
              env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              volumeMounts: [
                { name: 'cfg', mountPath: '/etc/byo-cni' },
                { name: 'cni', mountPath: '/etc/cni/net.d' },
              ],
            },
          ],
          containers: [{ name: 'agent', image: 'docker.io/library/busybox:1.36', command: ['sleep', 'infinity'] }],
          volumes: [
            { name: 'cfg', configMap: { name: 'byo-cni' } },
            { name: 'cni', hostPath: { path: '/etc/cni/net.d' } },
          ],
        },
      },
    },
  };
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [configMap, daemonSet] });
}

describe('BYO CNI pods on the netns data plane (aksemu start --dataplane netns)', { skip: skipReason(true) }, () => {
  let world: DataplaneWorld;
  let pods: Obj[];
  let nodes: Obj[];
  let nodeIps: string[];
  const ip = (i: number): string => pods[i].status.podIP;
  const fromPod = (i: number) => `pod/default/web-${i}`;
  /** The addresses host-local holds in a node's own /var/lib/cni/networks (under $AKSEMU_HOME). */
  const held = (i: number): string[] => {
    const dir = join(nodeCniDataDir(join(nodesDir(world.home, RG, CLUSTER), nodes[i].metadata.name)), NETWORK);
    return readdirSync(dir)
      .filter((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f))
      .sort();
  };
  /** Every pod-network pod's address on a node (the add-ons' too, once the node is Ready). */
  const podIpsOn = async (i: number): Promise<string[]> =>
    (await world.json(['get', 'pods', '-A', '--field-selector', `spec.nodeName=${nodes[i].metadata.name}`])).items
      .filter((p: Obj) => !p.spec.hostNetwork && p.status.podIP)
      .map((p: Obj) => p.status.podIP)
      .sort();

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.cluster(CLUSTER, ['--network-plugin', 'none', '--pod-cidr', '10.245.0.0/16']);
    nodes = await world.nodes();
    nodeIps = await world.nodeIps();
    assert.deepEqual(
      nodes.map((n) => n.spec.podCIDR),
      [undefined, undefined],
      'BYO CNI nodes get no podCIDR',
    );
    await world.create('byo-cni.json', installer(nodes.map((n) => n.metadata.name)));
    await world.kubectlOk(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
    pods = await world.podsOnEachNode();
  });
  after(async () => {
    await world?.close();
  });

  it("pods get addresses from their node's conflist, allocated once, in the node's own IPAM state", async () => {
    for (const i of [0, 1]) {
      assert.ok(Cidr.parse(nodeRange(i)).contains(IpAddress.parse(ip(i))), `${ip(i)} in ${nodeRange(i)}`);
      // The add-ons scheduled once the node turned Ready hold addresses too: one file per pod, no more.
      const onNode = await podIpsOn(i);
      assert.ok(onNode.includes(ip(i)));
      assert.deepEqual(held(i), onNode);
    }
  });

  it("pod → VM sees the node IP (the bridge plugin masquerades: ipMasq); pod → internet the cluster's outbound IP (aksemu probe)", async () => {
    const r = await world.probeCli(['--from', fromPod(0), '-g', RG, '-n', CLUSTER, '--to', `${VM.ip}:${PORT}`]);
    assert.deepEqual(r, { code: 0, stdout: `connected from ${nodeIps[0]}\n`, stderr: '' });
    assert.deepEqual(await world.seen(fromPod(1), `${INTERNET}:${PORT}`, CLUSTER), [true, (await world.outboundIps(CLUSTER))[0]]);
  });

  it('VM → pod fails: the VNet has no route for the user range (ENETUNREACH)', async () => {
    const [connected, error] = await world.seen(`vm/${VM.name}`, `${ip(0)}:${PORT}`, undefined, 1500);
    assert.equal(connected, false);
    assert.match(String(error), /ENETUNREACH/);
  });

  it("control plane → pod goes through the tunnel when the cluster has a pod CIDR, and has no route without one (the seed's warning)", async () => {
    // The konnectivity agent dials from the pod's node: the pod sees the node's bridge address (host-local's gateway).
    const bridge = Cidr.parse(nodeRange(1)).addressAt(1n).toString();
    assert.deepEqual(await world.seen('controlplane', `${ip(1)}:${PORT}`, CLUSTER), [true, bridge]);
    // A second BYO cluster on the subnet, created without --pod-cidr, its pods in 10.246.<node>.0/24.
    const first = world.kubeconfig;
    try {
      await world.cluster('b2', ['--network-plugin', 'none']);
      const b2Nodes = await world.nodes();
      await world.create(
        'byo-cni-b2.json',
        installer(
          b2Nodes.map((n) => n.metadata.name),
          246,
        ),
      );
      await world.kubectlOk(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
      const b2Pods = await world.podsOnEachNode();
      const target = `${b2Pods[0].status.podIP}:${PORT}`;
      const [connected, error] = await world.seen('controlplane', target, 'b2', 1500);
      assert.equal(connected, false);
      assert.match(String(error), /EHOSTUNREACH/);
      // The pod itself is fine: its own node reaches it.
      assert.equal((await world.probe(`node/${b2Nodes[0].metadata.name}`, target, undefined, 3000)).connected, true);
    } finally {
      world.kubeconfig = first;
    }
  });

  it('after a restart the pods get their own addresses back from the plugins (CNI_ARGS IP=)', async () => {
    await world.server.close();
    assert.deepEqual(world.namespaces(), []);
    await world.start();
    await eventually(async () => (await world.probe(fromPod(0), `${VM.ip}:${PORT}`, CLUSTER, 1000)).connected, 30_000, 'the restored pods to be attached');
    assert.deepEqual(await world.seen(fromPod(1), `${VM.ip}:${PORT}`, CLUSTER), [true, nodeIps[1]]);
    for (const i of [0, 1]) assert.deepEqual(held(i), await podIpsOn(i));
  });

  it('deleting a pod runs CNI DEL: host-local gives its address back', async () => {
    await world.kubectlOk(['delete', 'pod', 'web-1', '--wait=true']);
    await eventually(async () => !held(1).includes(ip(1)), 10_000, `${ip(1)} to be released`);
    assert.deepEqual(held(1), await podIpsOn(1));
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
