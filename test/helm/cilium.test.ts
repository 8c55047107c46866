// Cilium's own Helm chart (test/fixtures/cilium/SOURCE.md), unmodified, installed with the real helm on a BYO CNI
// cluster as Cilium's "Installation using Helm" tells AKS users (AKS tab: `helm install cilium cilium/cilium
// --namespace kube-system --set aksbyocni.enabled=true`, cilium/cilium Documentation/installation/k8s-install-helm.rst;
// cluster-pool IPAM is the BYOCNI default there, Documentation/installation/requirements-aks.rst), with the pool on the
// cluster's pod CIDR (`--set ipam.operator.clusterPoolIPv4PodCIDRList`). Then: the agents and the operator Running,
// a CiliumNode per node with its block of the pool, nodes Ready, coredns Ready, a 6-replica Deployment Running with
// addresses from its nodes' blocks and none twice, CiliumEndpoints; `helm uninstall` leaves the conflist
// (cni.uninstall=false), so nodes stay Ready and a new pod fails with cilium-cni's error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, kubectl, withCluster } from '../cluster/harness.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { aksByocniValues, CILIUM_CHART, ciliumChartSkip } from './cilium-chart.js';
import { HELM_SKIP, helmOk, kubectlJson, kubectlOk } from './harness.js';

const POD_CIDR = '192.168.0.0/16';

const SKIP = HELM_SKIP || ciliumChartSkip();

const ready = (pod: any) => pod.status?.phase === 'Running' && (pod.status?.containerStatuses ?? []).every((c: any) => c.ready);

async function pods(env: any, args: string[]): Promise<any[]> {
  return (await kubectlJson(env, ['get', 'pods', ...args])).items;
}

test('Cilium chart with aksbyocni on a BYO CNI cluster: install, pods get pool addresses, uninstall', { skip: SKIP, timeout: 180_000 }, (t) =>
  withCluster({ networkPlugin: 'none', podCidr: POD_CIDR }, async (env) => {
    await t.test('before: BYO CNI nodes are NotReady', async () => {
      const nodes = (await kubectlJson(env, ['get', 'nodes'])).items;
      assert.equal(nodes.length, 3);
      for (const n of nodes) assert.equal(n.status.conditions.find((c: any) => c.type === 'Ready')?.status, 'False');
    });

    await t.test('helm install as the AKS BYOCNI docs say', async () => {
      const out = await helmOk(env, ['install', 'cilium', CILIUM_CHART, ...aksByocniValues(POD_CIDR)]);
      assert.match(out, /^STATUS: deployed$/m);
      const config = await kubectlJson(env, ['get', 'configmap', 'cilium-config', '-n', 'kube-system']);
      assert.equal(config.data['cluster-pool-ipv4-cidr'], POD_CIDR);
      assert.equal(config.data['routing-mode'], 'tunnel');
    });

    await t.test('the agents and the operator run; a CiliumNode per node with its block; nodes and coredns Ready', async () => {
      await eventually(async () => (await pods(env, ['-n', 'kube-system', '-l', 'k8s-app=cilium'])).filter(ready).length === 3, 90_000, 'cilium agents Ready');
      await eventually(
        async () => (await pods(env, ['-n', 'kube-system', '-l', 'io.cilium/app=operator'])).filter(ready).length === 2,
        30_000,
        'cilium-operator Ready',
      );
      const cns = (await kubectlJson(env, ['get', 'ciliumnodes'])).items;
      assert.equal(cns.length, 3);
      const blocks = cns.map((cn: any) => cn.spec.ipam.podCIDRs[0]);
      assert.equal(new Set(blocks).size, 3);
      for (const b of blocks) assert.ok(Cidr.parse(POD_CIDR).containsCidr(Cidr.parse(b)) && b.endsWith('/24'), b);
      await eventually(
        async () =>
          (await kubectlJson(env, ['get', 'nodes'])).items.every((n: any) => n.status.conditions.find((c: any) => c.type === 'Ready')?.status === 'True'),
        30_000,
        'nodes Ready',
      );
      await eventually(async () => (await pods(env, ['-n', 'kube-system', '-l', 'k8s-app=kube-dns'])).some(ready), 60_000, 'coredns Ready');
      const logs = await kubectlOk(env, ['logs', '-n', 'kube-system', 'ds/cilium']);
      assert.match(logs, /Wrote CNI configuration file to \/host\/etc\/cni\/net\.d\/05-cilium\.conflist/);
    });

    await t.test('a 6-replica Deployment runs with addresses from its nodes’ blocks, none twice, with CiliumEndpoints', async () => {
      await kubectlOk(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=6']);
      await eventually(async () => (await pods(env, ['-l', 'app=web'])).filter(ready).length === 6, 60_000, 'web pods Running');
      const blockOf = new Map<string, string>(
        (await kubectlJson(env, ['get', 'ciliumnodes'])).items.map((cn: any) => [cn.metadata.name, cn.spec.ipam.podCIDRs[0]]),
      );
      const ips = new Set<string>();
      for (const p of await pods(env, ['-l', 'app=web'])) {
        const block = blockOf.get(p.spec.nodeName) ?? '';
        assert.ok(Cidr.parse(block).contains(IpAddress.parse(p.status.podIP)), `${p.metadata.name} ${p.status.podIP} in ${block}`);
        ips.add(p.status.podIP);
      }
      assert.equal(ips.size, 6);
      const ceps = (await kubectlJson(env, ['get', 'ciliumendpoints'])).items;
      assert.deepEqual(new Set(ceps.map((c: any) => c.status.networking.addressing[0].ipv4)), ips);
    });

    await t.test('helm uninstall leaves the conflist: nodes stay Ready, a new pod fails with cilium-cni’s error', async () => {
      await helmOk(env, ['uninstall', 'cilium', '--namespace', 'kube-system']);
      await eventually(async () => (await pods(env, ['-n', 'kube-system', '-l', 'k8s-app=cilium'])).length === 0, 60_000, 'agents gone');
      const nodes = (await kubectlJson(env, ['get', 'nodes'])).items;
      for (const n of nodes) assert.equal(n.status.conditions.find((c: any) => c.type === 'Ready')?.status, 'True', n.metadata.name);
      await kubectlOk(env, ['run', 'late', '--image=nginx']);
      await eventually(
        async () => {
          const r = await kubectl(env, ['get', 'events', '--field-selector', 'involvedObject.name=late,reason=FailedCreatePodSandBox', '-o', 'json']);
          return (
            r.code === 0 &&
            JSON.parse(r.stdout).items.some((e: any) => /plugin type="cilium-cni" failed \(add\): unable to connect to Cilium daemon/.test(e.message))
          );
        },
        60_000,
        'FailedCreatePodSandBox with cilium-cni’s error',
      );
    });
  }),
);
