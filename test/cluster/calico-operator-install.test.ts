// Calico installed with its operator on a BYO CNI cluster (`--network-plugin none`, pod CIDR 10.244.0.0/16), as
// Calico's AKS page shows it ("Microsoft Azure Kubernetes Service (AKS)", Bring your own CNI, Operator tab:
// https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/aks): `kubectl create -f
// tigera-operator.yaml`, then an Installation with kubernetesProvider AKS, Calico CNI, BGP disabled and one
// VXLAN pool on the pod CIDR, and an APIServer. The project's unmodified v3.32.1 manifests (test/fixtures/calico/
// SOURCE.md; skipped without them); the Installation is this test's own YAML. The operator (the catalogue's
// tigera entry) creates calico-system and its workloads, the IPPool, TigeraStatus; calico-node (the calico
// entries) writes the conflist; nodes turn Ready, coredns Ready, and a 6-replica Deployment runs with addresses
// from the pool (calico-ipam's blocks), none twice. Uninstall as Calico's docs say (delete the custom resources,
// then the operator manifest): calico-system goes, the IPPool and the CRDs stay.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { aksInstallation, OPERATOR_DIR as DIR, operatorSkipReason } from './calico-operator-fixture.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const POD_CIDR = '10.244.0.0/16';
const skip = !HAVE_KUBECTL ? 'no /usr/bin/kubectl on this machine' : operatorSkipReason();

async function ok(env: ClusterEnv, args: string[], timeoutMs?: number): Promise<string> {
  const r = await kubectl(env, args, timeoutMs);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 4000)}`);
  return r.stdout;
}

const json = async (env: ClusterEnv, args: string[]) => JSON.parse(await ok(env, [...args, '-o', 'json']));

test(
  'Calico operator on a BYO CNI cluster: Installation → calico-system, IPPool, nodes Ready, pods from the pool; uninstall',
  { skip, timeout: 240_000 },
  (t) =>
    withCluster({ networkPlugin: 'none', podCidr: POD_CIDR }, async (env) => {
      const resources = join(env.scratch, 'calico-aks.yaml');
      writeFileSync(resources, aksInstallation(POD_CIDR));

      await t.test('kubectl create: the operator CRDs, the operator, the Installation and APIServer', async () => {
        await ok(env, ['create', '-f', join(DIR, 'operator-crds.yaml')], 120_000);
        await ok(env, ['wait', '--for=condition=established', '--all', 'crd', '--timeout=60s']);
        await ok(env, ['create', '-f', join(DIR, 'tigera-operator.yaml')]);
        const out = await ok(env, ['create', '-f', resources]);
        assert.match(out, /^installation\.operator\.tigera\.io\/default created$/m);
        assert.match(out, /^apiserver\.operator\.tigera\.io\/default created$/m);
        await ok(env, ['-n', 'tigera-operator', 'rollout', 'status', 'deployment/tigera-operator', '--timeout=60s']);
      });

      await t.test('the operator creates calico-system and its workloads with Calico v3.32.1 images', async () => {
        await eventually(
          async () => (await kubectl(env, ['-n', 'calico-system', 'get', 'deployment', 'calico-kube-controllers'])).code === 0,
          60_000,
          'calico-system workloads',
        );
        const ds = await json(env, ['-n', 'calico-system', 'get', 'daemonset']);
        assert.deepEqual(ds.items.map((d: { metadata: { name: string } }) => d.metadata.name).sort(), ['calico-node', 'csi-node-driver']);
        const node = ds.items.find((d: { metadata: { name: string } }) => d.metadata.name === 'calico-node');
        assert.equal(node.spec.template.spec.containers[0].image, 'quay.io/calico/node:v3.32.1');
        const installCni = node.spec.template.spec.initContainers.find((c: { name: string }) => c.name === 'install-cni');
        assert.equal(installCni.image, 'quay.io/calico/cni:v3.32.1');
        assert.deepEqual(installCni.command, ['/opt/cni/bin/install']);
        const deploys = await json(env, ['-n', 'calico-system', 'get', 'deployment']);
        assert.deepEqual(deploys.items.map((d: { metadata: { name: string } }) => d.metadata.name).sort(), ['calico-kube-controllers', 'calico-typha']);
        const installation = await json(env, ['get', 'installation', 'default']);
        assert.deepEqual(installation.metadata.finalizers, ['operator.tigera.io/installation-controller', 'tigera.io/operator-cleanup']);
        assert.equal(installation.spec.cni.ipam.type, 'Calico');
      });

      await t.test('the IPPool: the pod CIDR, VXLAN always, blocks of /26, NAT outgoing, all nodes', async () => {
        const pool = await json(env, ['get', 'ippools.crd.projectcalico.org', 'default-ipv4-ippool']);
        assert.deepEqual(
          [pool.spec.cidr, pool.spec.vxlanMode, pool.spec.ipipMode, pool.spec.blockSize, pool.spec.natOutgoing, pool.spec.nodeSelector],
          [POD_CIDR, 'Always', 'Never', 26, true, 'all()'],
        );
      });

      await t.test('calico-system Running, TigeraStatus calico Available, nodes Ready, coredns Ready', async () => {
        await ok(env, ['wait', '--for=condition=Available', 'tigerastatus/calico', '--timeout=120s'], 130_000);
        await ok(env, ['wait', '--for=condition=Ready', 'nodes', '--all', '--timeout=60s']);
        await ok(env, ['-n', 'kube-system', 'wait', '--for=condition=Ready', 'pods', '-l', 'k8s-app=kube-dns', '--timeout=90s'], 100_000);
        const out = await ok(env, ['get', 'tigerastatus']);
        assert.match(out, /^NAME\s+AVAILABLE\s+PROGRESSING\s+DEGRADED\s+SINCE/m);
        assert.match(out, /^calico\s+True\s+False\s+False\s/m);
        assert.match(out, /^ippools\s+True\s+False\s+False\s/m);
        // The Calico API server needs an aggregated API server: reported, not pretended.
        assert.match(out, /^apiserver\s+False\s+False\s+True\s/m);
        const installation = await json(env, ['get', 'installation', 'default']);
        assert.equal(installation.status.variant, 'Calico');
        assert.equal(installation.status.calicoVersion, 'v3.32.1');
      });

      await t.test('a 6-replica Deployment Running with addresses from the pool, none twice', async () => {
        await ok(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=6']);
        await ok(env, ['rollout', 'status', 'deployment/web', '--timeout=90s'], 100_000);
        const pods = await json(env, ['get', 'pods', '-l', 'app=web']);
        const ips: string[] = pods.items.map((p: { status: { podIP: string } }) => p.status.podIP);
        assert.equal(ips.length, 6);
        assert.equal(new Set(ips).size, 6, `duplicate pod IPs: ${ips}`);
        const pool = Cidr.parse(POD_CIDR);
        for (const ip of ips) assert.ok(pool.contains(IpAddress.parse(ip)), `${ip} outside ${POD_CIDR}`);
        const blocks = await json(env, ['get', 'ipamblocks.crd.projectcalico.org']);
        assert.ok(blocks.items.length >= 1, 'calico-ipam made no blocks');
        for (const b of blocks.items) assert.match(b.spec.cidr, /\/26$/);
      });

      await t.test('uninstall: custom resources, then the operator; calico-system goes, the IPPool and CRDs stay', async () => {
        await ok(env, ['delete', 'deployment', 'web']);
        await ok(env, ['delete', '-f', resources, '--timeout=120s'], 130_000);
        await ok(env, ['wait', '--for=delete', 'namespace/calico-system', '--timeout=90s'], 100_000);
        const statuses = await json(env, ['get', 'tigerastatus']);
        assert.deepEqual(statuses.items, []);
        await ok(env, ['delete', '-f', join(DIR, 'tigera-operator.yaml'), '--timeout=120s'], 130_000);
        await ok(env, ['wait', '--for=delete', 'namespace/tigera-operator', '--timeout=90s'], 100_000);
        assert.match(await ok(env, ['get', 'ippools.crd.projectcalico.org']), /^default-ipv4-ippool\s/m);
        await ok(env, ['get', 'crd', 'installations.operator.tigera.io']);
      });
    }),
);
