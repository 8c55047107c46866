// The tigera operator's program (src/cluster/images/tigera-operator.ts) against an in-memory API: what it
// creates from an Installation (calico-system, its workloads, the cni-config conflist, IPPools), the defaults it
// writes back, TigeraStatus as the workloads become ready, the APIServer's honest Degraded status, and the
// teardown in the operator's order when the Installation is deleted. The cluster test with the real kubectl is
// test/cluster/calico-operator-install.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/cluster/apimachinery/object.js';
import { FakeApi, imageOf } from './agent-client-fake.js';
import { CATALOGUE, imageSpecOf, programOf } from '../../../src/cluster/images/catalogue.js';
import { fillDefaults, imageRef } from '../../../src/cluster/images/tigera-installation.js';
import { typhaReplicas } from '../../../src/cluster/images/tigera-render.js';
import type { ProgramContext } from '../../../src/cluster/images/program.js';

const AKS_BYO = {
  kubernetesProvider: 'AKS',
  cni: { type: 'Calico' },
  calicoNetwork: { bgp: 'Disabled', ipPools: [{ cidr: '10.244.0.0/16', encapsulation: 'VXLAN' }] },
};

function start(api: FakeApi): { ctx: ProgramContext; logs: string[]; stop: () => Promise<number> } {
  const spec = imageSpecOf('quay.io/tigera/operator:v1.42.3');
  assert.ok(spec, 'the operator image is in the catalogue');
  const program = programOf(spec, 'operator');
  assert.ok(program);
  const logs: string[] = [];
  const ac = new AbortController();
  const ctx = {
    pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tigera-operator-abc', namespace: 'tigera-operator' } },
    node: 'aks-nodepool1-0',
    nodeIp: '10.224.0.4',
    container: 'tigera-operator',
    image: 'quay.io/tigera/operator:v1.42.3',
    argv: ['operator', '-manage-crds=true'],
    env: {},
    files: { read: () => undefined, write() {}, remove() {}, list: () => [], host: () => undefined, installImageFile() {} },
    nodeRoot: '/nonexistent',
    api,
    write: (_s: string, text: string) => logs.push(text),
    signal: ac.signal,
    setReady() {},
  } as unknown as ProgramContext;
  const done = program(ctx);
  return { ctx, logs, stop: () => (ac.abort(), done) };
}

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const cond = (o: KubeObject | undefined, type: string) =>
  ((o?.['status'] as { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } | undefined)?.conditions ?? []).find(
    (c) => c.type === type,
  );

test("defaults: the AKS BYO CNI Installation of Calico's docs, and custom-resources.yaml's", () => {
  const aks = fillDefaults(AKS_BYO);
  assert.equal(aks.variant, 'Calico');
  assert.deepEqual(aks.cni, { type: 'Calico', ipam: { type: 'Calico' }, binDir: '/opt/cni/bin', confDir: '/etc/cni/net.d' });
  assert.deepEqual(aks.calicoNetwork.ipPools, [
    {
      name: 'default-ipv4-ippool',
      cidr: '10.244.0.0/16',
      blockSize: 26,
      encapsulation: 'VXLAN',
      natOutgoing: 'Enabled',
      nodeSelector: 'all()',
      allowedUses: ['Workload', 'Tunnel'],
      disableNewAllocations: false,
      assignmentMode: 'Automatic',
    },
  ]);
  assert.equal(aks.flexVolumePath, '/etc/kubernetes/volumeplugins/');
  // Without a provider and pools: Calico CNI, BGP on, the 192.168.0.0/16 pool with IPIP.
  const bare = fillDefaults({});
  assert.equal(bare.calicoNetwork.bgp, 'Enabled');
  assert.equal(bare.calicoNetwork.ipPools[0]?.cidr, '192.168.0.0/16');
  assert.equal(bare.calicoNetwork.ipPools[0]?.encapsulation, 'IPIP');
  // AKS without cni.type means Azure's own CNI (fillDefaults), which aksemu does not deploy.
  assert.equal(fillDefaults({ kubernetesProvider: 'AKS' }).cni.type, 'AzureVNET');
  assert.throws(() => fillDefaults({ calicoNetwork: { ipPools: [{ cidr: 'not-a-cidr' }] } }), /IP pool CIDR \(not-a-cidr\) is invalid/);
  assert.throws(() => fillDefaults({ calicoNetwork: { ipPools: [{ cidr: '10.0.0.0/16', blockSize: 12 }] } }), /blockSize/);
  assert.equal(imageRef({}, 'node'), 'quay.io/calico/node:v3.32.1');
  assert.equal(imageRef({ registry: 'myregistry.azurecr.io', imagePath: 'mirror' }, 'cni'), 'myregistry.azurecr.io/mirror/cni:v3.32.1');
  assert.deepEqual([1, 2, 3, 4, 5, 400, 1000].map(typhaReplicas), [1, 1, 2, 2, 3, 4, 7]);
});

test('the operator reconciles an Installation into calico-system, IPPools and TigeraStatus', { timeout: 90_000 }, async () => {
  const api = new FakeApi();
  for (const n of ['aks-nodepool1-0', 'aks-nodepool1-1'])
    api.put('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: n, labels: { 'kubernetes.io/os': 'linux' } } });
  const op = start(api);
  try {
    api.put('/apis/operator.tigera.io/v1/installations', {
      apiVersion: 'operator.tigera.io/v1',
      kind: 'Installation',
      metadata: { name: 'default' },
      spec: AKS_BYO,
    });
    api.put('/apis/operator.tigera.io/v1/apiservers', { apiVersion: 'operator.tigera.io/v1', kind: 'APIServer', metadata: { name: 'default' }, spec: {} });
    api.put('/apis/operator.tigera.io/v1/whiskers', { apiVersion: 'operator.tigera.io/v1', kind: 'Whisker', metadata: { name: 'default' } });
    await until('calico-node', () => api.get('/apis/apps/v1/namespaces/calico-system/daemonsets/calico-node') !== undefined);
    const ns = api.get('/api/v1/namespaces/calico-system')!;
    assert.equal(ns.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'privileged');
    assert.equal((ns.metadata['ownerReferences'] as Array<{ kind: string }>)[0]?.kind, 'Installation');

    const installation = api.get('/apis/operator.tigera.io/v1/installations/default')!;
    assert.deepEqual(installation.metadata['finalizers'], ['operator.tigera.io/installation-controller', 'tigera.io/operator-cleanup']);
    assert.equal((installation['spec'] as { variant: string }).variant, 'Calico');

    const ds = api.get('/apis/apps/v1/namespaces/calico-system/daemonsets/calico-node')!;
    const podSpec = (ds['spec'] as { template: { spec: unknown } }).template.spec as {
      initContainers: Array<{ name: string; image: string; command?: string[]; env?: Array<{ name: string; value?: string }> }>;
      containers: Array<{ name: string; image: string; env: Array<{ name: string; value?: string }> }>;
    };
    assert.deepEqual(
      podSpec.initContainers.map((c) => [c.name, c.image]),
      [
        ['flexvol-driver', 'quay.io/calico/pod2daemon-flexvol:v3.32.1'],
        ['ebpf-bootstrap', 'quay.io/calico/node:v3.32.1'],
        ['install-cni', 'quay.io/calico/cni:v3.32.1'],
      ],
    );
    const nodeEnv = Object.fromEntries(podSpec.containers[0]!.env.map((e) => [e.name, e.value]));
    assert.equal(nodeEnv['CALICO_NETWORKING_BACKEND'], 'vxlan');
    assert.equal(nodeEnv['CLUSTER_TYPE'], 'k8s,operator,aks');
    assert.equal(imageOf(api, 'deployments', 'calico-typha'), 'quay.io/calico/typha:v3.32.1');
    assert.equal(imageOf(api, 'deployments', 'calico-kube-controllers'), 'quay.io/calico/kube-controllers:v3.32.1');
    assert.equal(imageOf(api, 'daemonsets', 'csi-node-driver'), 'quay.io/calico/csi:v3.32.1');
    await until('whisker', () => api.get('/apis/apps/v1/namespaces/calico-system/deployments/whisker') !== undefined);
    assert.equal(imageOf(api, 'deployments', 'whisker'), 'quay.io/calico/whisker:v3.32.1');
    assert.equal(api.get('/apis/apps/v1/namespaces/calico-system/deployments/goldmane'), undefined, 'no Goldmane resource, no goldmane');
    assert.equal((api.get('/apis/apps/v1/namespaces/calico-system/deployments/calico-typha')!['spec'] as { replicas: number }).replicas, 1);

    const conflist = JSON.parse((api.get('/api/v1/namespaces/calico-system/configmaps/cni-config')!['data'] as { config: string }).config);
    assert.equal(conflist.name, 'k8s-pod-network');
    assert.equal(conflist.cniVersion, '0.3.1');
    assert.deepEqual(
      conflist.plugins.map((p: { type: string }) => p.type),
      ['calico', 'portmap'],
    );
    assert.deepEqual(conflist.plugins[0].ipam, { type: 'calico-ipam', assign_ipv4: 'true', assign_ipv6: 'false' });
    assert.equal(conflist.plugins[0].kubernetes.kubeconfig, '__KUBECONFIG_FILEPATH__');

    const pool = api.get('/apis/crd.projectcalico.org/v1/ippools/default-ipv4-ippool')!;
    assert.deepEqual(pool['spec'], {
      allowedUses: ['Workload', 'Tunnel'],
      assignmentMode: 'Automatic',
      blockSize: 26,
      cidr: '10.244.0.0/16',
      ipipMode: 'Never',
      natOutgoing: true,
      nodeSelector: 'all()',
      vxlanMode: 'Always',
    });

    await until('TigeraStatus calico', () => cond(api.get('/apis/operator.tigera.io/v1/tigerastatuses/calico'), 'Available') !== undefined);
    const calico = api.get('/apis/operator.tigera.io/v1/tigerastatuses/calico');
    assert.equal(cond(calico, 'Available')?.status, 'False');
    assert.equal(cond(calico, 'Progressing')?.status, 'True');
    assert.match(
      cond(calico, 'Progressing')!.message,
      /^DaemonSet "calico-system\/calico-node" update is being processed \(generation 1, observed generation 0\)$/m,
    );
    assert.equal(cond(api.get('/apis/operator.tigera.io/v1/tigerastatuses/ippools'), 'Available')?.status, 'True');
    const apiserver = api.get('/apis/operator.tigera.io/v1/tigerastatuses/apiserver');
    assert.equal(cond(apiserver, 'Degraded')?.status, 'True');
    assert.match(cond(apiserver, 'Degraded')!.message, /aggregated API server, which aksemu does not run/);

    // The workloads become ready: everything Available, and the Installation's status filled in.
    for (const name of ['calico-node', 'csi-node-driver'])
      api.setStatus(`/apis/apps/v1/namespaces/calico-system/daemonsets/${name}`, {
        desiredNumberScheduled: 2,
        numberAvailable: 2,
        numberReady: 2,
        updatedNumberScheduled: 2,
        observedGeneration: 1,
      });
    for (const [name, n] of [
      ['calico-typha', 1],
      ['calico-kube-controllers', 1],
    ] as const)
      api.setStatus(`/apis/apps/v1/namespaces/calico-system/deployments/${name}`, {
        replicas: n,
        availableReplicas: n,
        readyReplicas: n,
        updatedReplicas: n,
        observedGeneration: 1,
      });
    await until('calico Available', () => cond(api.get('/apis/operator.tigera.io/v1/tigerastatuses/calico'), 'Available')?.status === 'True');
    await until(
      'Installation status',
      () => (api.get('/apis/operator.tigera.io/v1/installations/default')!['status'] as { calicoVersion?: string } | undefined)?.calicoVersion === 'v3.32.1',
    );
    const status = api.get('/apis/operator.tigera.io/v1/installations/default')!['status'] as {
      variant: string;
      conditions: Array<{ type: string; status: string }>;
    };
    assert.equal(status.variant, 'Calico');
    assert.equal(status.conditions.find((c) => c.type === 'Available')?.status, 'True');

    // Uninstall: the Installation is deleted; the operator removes kube-controllers and its finalizers. calico-system
    // is left to the garbage collector through its ownerReference to the Installation (this fake API has none; the
    // real server's collector removes it, calico-operator-install.test.ts); the IPPools stay (no ownerReference).
    const uid = api.get('/apis/operator.tigera.io/v1/installations/default')!.metadata.uid;
    const owners = (api.get('/api/v1/namespaces/calico-system')!.metadata['ownerReferences'] ?? []) as Array<{ kind?: string; uid?: string }>;
    assert.ok(
      owners.some((r) => r.kind === 'Installation' && r.uid === uid),
      JSON.stringify(owners),
    );
    api.markDeleted('/apis/operator.tigera.io/v1/installations/default');
    await until('Installation gone', () => api.get('/apis/operator.tigera.io/v1/installations/default') === undefined);
    assert.ok(api.get('/apis/crd.projectcalico.org/v1/ippools/default-ipv4-ippool'));
    await until('TigeraStatus calico removed', () => api.get('/apis/operator.tigera.io/v1/tigerastatuses/calico') === undefined);
    assert.ok(op.logs.some((l) => l.includes('Installation object is terminating')));
  } finally {
    assert.equal(await op.stop(), 0);
  }
  assert.ok(CATALOGUE.length > 0);
});
