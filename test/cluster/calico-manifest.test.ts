// Calico installed with its single manifest on a BYO CNI cluster, as a user types it: `kubectl apply -f
// calico.yaml` (v3.32.1, unmodified; test/fixtures/calico/SOURCE.md, skipped without it). The cluster's pod CIDR is
// 192.168.0.0/16, the manifest's default pool (CALICO_IPV4POOL_CIDR stays commented out, so calico-node creates
// default-ipv4-ippool on 192.168.0.0/16): the manifest is not edited. Asserted: calico-node Running on every node,
// the nodes Ready, coredns Ready, a 6-replica Deployment Running with addresses inside IPAMBlocks affine to the
// pod's node (read with kubectl), none twice. `kubectl delete -f` then removes the objects; what calico.yaml's
// install-cni wrote on the nodes stays there (the real one has no uninstall step), so the nodes stay Ready.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { nodesDir } from '../../src/cluster/nodefs/paths.js';
import { CALICO_MANIFEST, calicoSkip } from './calico-fixture.js';
import { type ClusterEnv, kubectl, withCluster } from './harness.js';

// The node runtime that runs the catalogue's programs and installs aksemu's plugins on the nodes (issue 16's
// runtime part: src/cni/plugins/install.ts); without it nothing of calico.yaml runs.
const RUNTIME = existsSync(fileURLToPath(new URL('../../src/cni/plugins/install.js', import.meta.url)));
const skip = calicoSkip || (RUNTIME ? false : 'the node runtime of issue 16 (src/cni/plugins/install.ts) is not in this build');

async function ok(env: ClusterEnv, args: string[], timeoutMs = 90_000): Promise<string> {
  const r = await kubectl(env, args, timeoutMs);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 4000)}`);
  return r.stdout;
}

const json = async (env: ClusterEnv, args: string[]) => JSON.parse(await ok(env, [...args, '-o', 'json'])) as { items: any[] } & Record<string, any>;

function toInt(ip: string): number {
  return ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, len] = cidr.split('/');
  const size = 2 ** (32 - Number(len));
  return toInt(ip) >= toInt(base!) && toInt(ip) < toInt(base!) + size;
}

test(
  'calico.yaml: kubectl apply → calico-node Running, nodes and coredns Ready, 6 pods from affine /26 blocks; kubectl delete -f',
  { skip, timeout: 180_000 },
  () =>
    withCluster({ networkPlugin: 'none', podCidr: '192.168.0.0/16' }, async (env) => {
      await ok(env, ['apply', '-f', CALICO_MANIFEST]);
      await ok(env, ['-n', 'kube-system', 'rollout', 'status', 'daemonset/calico-node', '--timeout=90s'], 100_000);
      await ok(env, ['-n', 'kube-system', 'rollout', 'status', 'deployment/calico-kube-controllers', '--timeout=60s'], 70_000);
      const nodes = (await json(env, ['get', 'nodes'])).items;
      const calicoPods = (await json(env, ['-n', 'kube-system', 'get', 'pods', '-l', 'k8s-app=calico-node'])).items;
      assert.deepEqual(calicoPods.map((p) => p.spec.nodeName).sort(), nodes.map((n) => n.metadata.name).sort(), 'one calico-node per node');
      for (const p of calicoPods) assert.equal(p.status.phase, 'Running');
      await ok(env, ['wait', '--for=condition=Ready', 'nodes', '--all', '--timeout=60s']);
      await ok(env, ['-n', 'kube-system', 'wait', '--for=condition=Ready', 'pod', '-l', 'k8s-app=kube-dns', '--timeout=60s'], 70_000);
      // What calico-node wrote: the default pool from the manifest's env, and the node's address annotation.
      const pool = await json(env, ['get', 'ippools.crd.projectcalico.org', 'default-ipv4-ippool']);
      assert.deepEqual(
        {
          cidr: pool.spec.cidr,
          blockSize: pool.spec.blockSize,
          ipipMode: pool.spec.ipipMode,
          vxlanMode: pool.spec.vxlanMode,
          natOutgoing: pool.spec.natOutgoing,
        },
        { cidr: '192.168.0.0/16', blockSize: 26, ipipMode: 'Always', vxlanMode: 'Never', natOutgoing: true },
      );
      for (const n of (await json(env, ['get', 'nodes'])).items)
        assert.ok(n.metadata.annotations['projectcalico.org/IPv4Address'], `${n.metadata.name} has its Calico address`);
      await ok(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=6']);
      await ok(env, ['rollout', 'status', 'deployment/web', '--timeout=90s'], 100_000);
      const pods = (await json(env, ['get', 'pods', '-l', 'app=web'])).items;
      assert.equal(pods.length, 6);
      const blocks = (await json(env, ['get', 'ipamblocks.crd.projectcalico.org'])).items;
      const ips = pods.map((p) => String(p.status.podIP));
      assert.equal(new Set(ips).size, 6, `no address twice: ${ips.join(' ')}`);
      for (const p of pods) {
        assert.equal(p.status.phase, 'Running');
        const block = blocks.find((b) => inCidr(p.status.podIP, b.spec.cidr));
        assert.ok(block, `${p.status.podIP} is in an IPAMBlock`);
        assert.equal(block.spec.affinity, `host:${p.spec.nodeName}`, `${p.status.podIP}'s block is affine to ${p.spec.nodeName}`);
        assert.match(block.spec.cidr, /^192\.168\.\d+\.\d+\/26$/);
      }
      // Uninstall: the manifest's objects go; the files install-cni put on the nodes stay, and so do the nodes' Ready.
      await ok(env, ['delete', '-f', CALICO_MANIFEST, '--wait=true'], 120_000);
      const left = await kubectl(env, ['-n', 'kube-system', 'get', 'daemonset', 'calico-node']);
      assert.notEqual(left.code, 0);
      const root = nodesDir(env.home, 'rg', 'c1');
      for (const n of nodes) {
        for (const f of ['etc/cni/net.d/10-calico.conflist', 'etc/cni/net.d/calico-kubeconfig', 'opt/cni/bin/calico', 'opt/cni/bin/calico-ipam'])
          assert.ok(existsSync(join(root, n.metadata.name, f)), `${n.metadata.name}: ${f} stays after kubectl delete -f`);
      }
      await ok(env, ['wait', '--for=condition=Ready', 'nodes', '--all', '--timeout=30s']);
    }),
);
