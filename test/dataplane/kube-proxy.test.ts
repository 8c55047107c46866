// kube-proxy's rules on real namespaces (docs/dataplane.md §12), kubenet, Azure CNI (node subnet) and overlay: pod →
// ClusterIP reaches every backend, the node itself reaches it (output hook), NodePort from a VM is masqueraded
// with eTP Cluster and keeps the VM's address with eTP Local, no endpoints rejects, a pod reaching itself
// through its Service (hairpin), ClientIP affinity, an endpoint change, a rebuilt node getting its rules back;
// the root namespace unchanged and no namespace left.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import { netnsPath } from '../../src/dataplane/netns/exec.js';
import type { NodeTopology } from '../../src/dataplane/topology.js';
import { CLUSTER_ID, kubenetRoutes, NODES, nodeId, pod, rootSnapshot, skipReason, testPrefix, topology, VM, closeAndAssertClean } from './harness.js';
import { ask, backend, type TestService, tableFor } from './kube-proxy-harness.js';

const prefix = testPrefix();
const skip = await skipReason(prefix);
const TRIES = 30;

interface Model {
  label: string;
  node: (i: number) => NodeTopology;
  routes: boolean;
  /** web-0 on node 0, web-1 and web-2 on node 1, client on node 0. */
  ips: { web: [string, string, string]; client: string };
  clusterCidr: string;
  /** What a pod on node 0 reaching itself through its Service is masqueraded to. */
  hairpinSource: string;
}

const MODELS: Model[] = [
  {
    label: 'kubenet',
    node: (i) => ({ clusterId: CLUSTER_ID, wiring: 'bridge', podCidr: `10.244.${i}.0/24`, clusterPodCidr: '10.244.0.0/16' }),
    routes: true,
    ips: { web: ['10.244.0.2', '10.244.1.2', '10.244.1.3'], client: '10.244.0.3' },
    clusterCidr: '10.244.0.0/16',
    hairpinSource: '10.244.0.1',
  },
  {
    label: 'Azure CNI (node subnet)',
    node: (i) => ({ clusterId: CLUSTER_ID, wiring: 'transparent', secondaryIps: Array.from({ length: 30 }, (_, k) => `10.224.0.${10 + 30 * i + k}`) }),
    routes: false,
    ips: { web: ['10.224.0.10', '10.224.0.40', '10.224.0.41'], client: '10.224.0.11' },
    clusterCidr: 'node-subnet',
    hairpinSource: '10.224.0.4',
  },
  {
    // No route table: the VNet's overlay routing carries the /24s between the nodes (docs/dataplane.md §5.1).
    label: 'Azure CNI Overlay',
    node: (i) => ({ clusterId: CLUSTER_ID, wiring: 'overlay', podCidr: `10.244.${i}.0/24`, clusterPodCidr: '10.244.0.0/16' }),
    routes: false,
    ips: { web: ['10.244.0.2', '10.244.1.2', '10.244.1.3'], client: '10.244.0.3' },
    clusterCidr: '10.244.0.0/16',
    hairpinSource: '10.224.0.4',
  },
];

for (const m of MODELS) {
  describe(`kube-proxy on ${m.label}`, { skip }, () => {
    let dp: NetnsDataplane;
    let root: Record<string, string>;
    const paths = new Map<string, string>();
    const listeners: ChildProcess[] = [];
    const [w0, w1, w2] = m.ips.web;
    const apply = (shape = m.node) => dp.apply(topology(shape, m.routes ? { routes: kubenetRoutes() } : {}));
    const nodePath = (i: number): string => netnsPath(dp.names.host(nodeId(i)));
    let services: TestService[] = [];
    const program = async (list: TestService[]): Promise<void> => {
      services = list;
      const cidr = m.clusterCidr === 'node-subnet' ? 'node-subnet' : m.clusterCidr;
      for (const i of [0, 1]) await dp.applyServices(nodeId(i), tableFor(i, list, cidr));
    };
    const all = (): TestService[] => [
      {
        name: 'web',
        clusterIp: '10.0.0.20',
        port: 80,
        nodePort: 30080,
        externalLocal: false,
        internalLocal: false,
        endpoints: [
          { ip: w0, port: 8080, node: 0 },
          { ip: w1, port: 8080, node: 1 },
          { ip: w2, port: 8080, node: 1 },
        ],
      },
      {
        name: 'local',
        clusterIp: '10.0.0.21',
        port: 80,
        nodePort: 30081,
        externalLocal: true,
        internalLocal: false,
        endpoints: [{ ip: w0, port: 8080, node: 0 }],
      },
      {
        name: 'remote',
        clusterIp: '10.0.0.22',
        port: 80,
        nodePort: 30082,
        externalLocal: false,
        internalLocal: false,
        endpoints: [{ ip: w1, port: 8080, node: 1 }],
      },
      { name: 'empty', clusterIp: '10.0.0.23', port: 80, nodePort: 30083, externalLocal: false, internalLocal: false, endpoints: [] },
      {
        name: 'sticky',
        clusterIp: '10.0.0.24',
        port: 80,
        externalLocal: false,
        internalLocal: false,
        affinitySeconds: 600,
        endpoints: [
          { ip: w0, port: 8080, node: 0 },
          { ip: w1, port: 8080, node: 1 },
          { ip: w2, port: 8080, node: 1 },
        ],
      },
    ];

    before(async () => {
      root = rootSnapshot();
      dp = new NetnsDataplane({ prefix });
      await dp.gc();
      await apply();
      const pods = [pod(0, 'web-0', w0), pod(1, 'web-1', w1), pod(1, 'web-2', w2), pod(0, 'client', m.ips.client)];
      for (const p of pods) paths.set(p.name, (await dp.attachPod(p)).netns!);
      for (const name of ['web-0', 'web-1', 'web-2']) listeners.push(await backend(paths.get(name)!, name, 8080));
      await program(all());
    });
    after(async () => {
      for (const l of listeners) l.kill('SIGKILL');
      await dp?.close({ removeAll: true });
    });

    it(`pod → ClusterIP reaches every backend over ${TRIES} tries, with the pod's own address`, async () => {
      const seen = new Map<string, Set<string>>();
      for (let i = 0; i < TRIES; i++) {
        const r = await ask(paths.get('client')!, '10.0.0.20', 80);
        assert.equal(r.error, undefined);
        seen.set(r.name!, (seen.get(r.name!) ?? new Set()).add(r.source!));
      }
      assert.deepEqual([...seen.keys()].sort(), ['web-0', 'web-1', 'web-2']);
      for (const sources of seen.values()) assert.deepEqual([...sources], [m.ips.client]);
    });

    it('the node itself reaches a ClusterIP (output hook)', async () => {
      const r = await ask(nodePath(0), '10.0.0.22', 80);
      assert.deepEqual([r.name, r.error], ['web-1', undefined]);
    });

    it('NodePort from a VM, eTP Cluster: the backend on the other node sees the node the VM asked, masqueraded', async () => {
      const r = await ask(netnsPath(dp.names.host(VM.id)), NODES[0]!.ip, 30082);
      assert.deepEqual([r.name, r.source], ['web-1', NODES[0]!.ip]);
    });

    it("NodePort from a VM, eTP Local: the local backend sees the VM's address; a node without one drops", async () => {
      const r = await ask(netnsPath(dp.names.host(VM.id)), NODES[0]!.ip, 30081);
      assert.deepEqual([r.name, r.source], ['web-0', VM.ip]);
      const none = await ask(netnsPath(dp.names.host(VM.id)), NODES[1]!.ip, 30081, 1000);
      assert.match(none.error ?? '', /timed out/);
    });

    it('no endpoints: the ClusterIP and the NodePort reject the connection', async () => {
      assert.equal((await ask(paths.get('client')!, '10.0.0.23', 80)).error, 'ECONNREFUSED');
      assert.equal((await ask(netnsPath(dp.names.host(VM.id)), NODES[0]!.ip, 30083)).error, 'ECONNREFUSED');
      assert.equal((await ask(paths.get('client')!, '10.0.0.20', 81)).error, 'ECONNREFUSED', 'a port the ClusterIP does not serve');
    });

    it('hairpin: a pod reaching itself through its Service is masqueraded', async () => {
      const r = await ask(paths.get('web-0')!, '10.0.0.21', 80);
      assert.deepEqual([r.name, r.source], ['web-0', m.hairpinSource]);
    });

    it('ClientIP affinity keeps a client on one backend', async () => {
      const names = new Set<string>();
      for (let i = 0; i < 8; i++) names.add((await ask(paths.get('client')!, '10.0.0.24', 80)).name ?? 'none');
      assert.equal(names.size, 1, [...names].join(','));
    });

    it("one Service's endpoints changing: only the remaining endpoint answers", async () => {
      const next = all();
      next[0]!.endpoints = next[0]!.endpoints.slice(2);
      await program(next);
      for (let i = 0; i < 6; i++) assert.equal((await ask(paths.get('client')!, '10.0.0.20', 80)).name, 'web-2');
      await program(all());
    });

    it('a node rebuilt because its shape changed gets its rules back', async () => {
      // Node 0 keeps its address; a new cluster pod CIDR changes its shape, so its namespace (and pods) are made again.
      await apply((i) => (i === 0 ? { ...m.node(i), clusterPodCidr: '10.96.0.0/12' } : m.node(i)));
      const r = await ask(nodePath(0), '10.0.0.22', 80);
      assert.deepEqual([r.name, r.error], ['web-1', undefined]);
      assert.equal(services.length, 5);
    });

    it('removes every namespace it made, and the root namespace is unchanged', async () => {
      for (const l of listeners) l.kill('SIGKILL');
      await closeAndAssertClean(dp, prefix, root);
    });
  });
}
