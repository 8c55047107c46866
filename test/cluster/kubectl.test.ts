// The real kubectl (/usr/bin/kubectl, the gcloud dispatcher picking kubectl 1.32 for our v1.32.9) against a
// cluster created through ARM: the seed's BYO CNI story end to end (NotReady with the kubelet's message →
// `aksemu cni install` → `kubectl wait` succeeds while `get -w` shows the flip), kubenet and Azure CNI nodes,
// describe, cluster-info, auth failures and restarts keeping the URL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse as parseYaml, stringify } from 'yaml';
import { nodeConfDir } from '../../src/cluster/nodefs/paths.js';
import { https } from '../e2e/harness.js';
import { restart } from '../network/harness.js';
import { aksClient, POLL } from '../containerservice/harness.js';
import { cniInstall, eventually, HAVE_KUBECTL, KUBECTL, kubectl, withCluster } from './harness.js';

const MESSAGE =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';
const READY_COLUMNS = 'custom-columns=NAME:.metadata.name,STATUS:.status.conditions[?(@.type=="Ready")].message';
const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

const FLANNEL = {
  name: 'cbr0',
  cniVersion: '0.3.1',
  plugins: [
    { type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } },
    { type: 'portmap', capabilities: { portMappings: true } },
  ],
};

function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

describe('the real kubectl against an emulated AKS cluster', { skip }, () => {
  test('BYO CNI: NotReady agent nodes with the kubelet message; cni install makes `kubectl wait` succeed and `get -w` show Ready', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const got = await kubectl(env, ['get', 'nodes']);
      assert.equal(got.code, 0, got.stderr);
      const table = rows(got.stdout);
      assert.deepEqual(table[0], ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
      assert.equal(table.length, 4);
      for (const [i, row] of table.slice(1).entries()) {
        assert.match(row[0]!, new RegExp(`^aks-nodepool1-\\d{8}-vmss00000${i}$`));
        assert.deepEqual([row[1], row[2], row[4]], ['NotReady', 'agent', 'v1.32.9']);
        assert.match(row[3]!, /^\d+s$/);
      }

      const cols = await kubectl(env, ['get', 'node', '-o', READY_COLUMNS]);
      assert.equal(cols.code, 0, cols.stderr);
      const lines = cols.stdout.trim().split('\n');
      assert.match(lines[0]!, /^NAME\s+STATUS$/);
      assert.equal(lines.length, 4);
      for (const line of lines.slice(1)) assert.ok(line.endsWith(`   ${MESSAGE}`), line);

      const wide = await kubectl(env, ['get', 'nodes', '-o', 'wide']);
      assert.deepEqual(rows(wide.stdout)[0], [
        'NAME',
        'STATUS',
        'ROLES',
        'AGE',
        'VERSION',
        'INTERNAL-IP',
        'EXTERNAL-IP',
        'OS-IMAGE',
        'KERNEL-VERSION',
        'CONTAINER-RUNTIME',
      ]);
      assert.deepEqual(
        rows(wide.stdout)
          .slice(1)
          .map((r) => r.slice(5)),
        ['10.224.0.4', '10.224.0.5', '10.224.0.6'].map((ip) => [ip, '<none>', 'Ubuntu 22.04.5 LTS', '5.15.0-1092-azure', 'containerd://1.7.27-1']),
      );

      // Before any CNI: waiting times out, as on AKS.
      const early = await kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=2s']);
      assert.equal(early.code, 1);
      assert.match(early.stderr, /timed out waiting for the condition on nodes\/aks-nodepool1-\d{8}-vmss000000/);

      const names = rows(got.stdout)
        .slice(1)
        .map((r) => r[0]!);
      const described = await kubectl(env, ['describe', 'node', names[0]!]);
      assert.equal(described.code, 0, described.stderr);
      assert.match(described.stdout, /^Roles:\s+agent$/m);
      assert.match(described.stdout, /^Taints:\s+node\.kubernetes\.io\/not-ready:NoSchedule$/m);
      assert.match(described.stdout, /^\s+HolderIdentity:\s+aks-nodepool1-/m);
      assert.ok(described.stdout.includes(`KubeletNotReady              ${MESSAGE}`), described.stdout);
      assert.match(described.stdout, /^\s+InternalIP:\s+10\.224\.0\.4$/m);
      // A BYO CNI pool's maxPods is 250, as real clusters report (docs/aks-rules.md §3.7).
      assert.match(described.stdout, /^\s+pods:\s+250$/m);
      assert.doesNotMatch(described.stdout, /PodCIDR/);

      // Watch and wait in the background, then install the CNI.
      const cache = join(env.scratch, 'watch-cache');
      const watcher = spawn(KUBECTL, [`--cache-dir=${cache}`, 'get', 'nodes', '-w'], {
        env: { ...process.env, KUBECONFIG: env.kubeconfig, HOME: env.scratch },
      });
      let watched = '';
      watcher.stdout.on('data', (d) => (watched += d));
      const waiting = kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
      try {
        await eventually(() => watched.split('\n').filter((l) => l.includes('NotReady')).length === 3, 45_000, 'get -w to list the nodes');
        const conflist = join(env.scratch, '10-flannel.conflist');
        writeFileSync(conflist, JSON.stringify(FLANNEL));
        const installed = await cniInstall(env, conflist, ['--plugin-dir', '/usr/lib/cni']);
        assert.equal(installed.code, 0, installed.stderr);
        assert.match(installed.stdout, /Installed CNI network 'cbr0' \(flannel, portmap\) on 3 node\(s\) of c1/);
        assert.match(installed.stderr, /plugin 'flannel' not found in \/usr\/lib\/cni/);

        const waited = await waiting;
        assert.equal(waited.code, 0, waited.stderr);
        assert.deepEqual(
          waited.stdout.trim().split('\n'),
          names.map((n) => `node/${n} condition met`),
        );
        await eventually(() => watched.split('\n').filter((l) => /\sReady\s+agent/.test(l)).length === 3, 45_000, 'get -w to show the nodes Ready');
      } finally {
        watcher.kill();
      }
      const after = await kubectl(env, ['get', 'nodes']);
      assert.deepEqual(
        rows(after.stdout)
          .slice(1)
          .map((r) => r[1]),
        ['Ready', 'Ready', 'Ready'],
      );
      const readyCols = await kubectl(env, ['get', 'node', '-o', READY_COLUMNS]);
      for (const line of readyCols.stdout.trim().split('\n').slice(1)) assert.match(line, /\s{3}kubelet is posting ready status$/);
      const describedAfter = await kubectl(env, ['describe', 'node', names[0]!]);
      assert.match(describedAfter.stdout, /^Taints:\s+<none>$/m);
      assert.ok(existsSync(join(nodeConfDir(env.home, 'rg', 'c1', names[0]!), '10-flannel.conflist')));
    }));

  test('kubenet: Ready nodes with their /24 podCIDRs and the bridge conflist in each conf dir', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const got = await kubectl(env, ['get', 'nodes']);
      assert.deepEqual(
        rows(got.stdout)
          .slice(1)
          .map((r) => [r[1], r[2]]),
        [
          ['Ready', 'agent'],
          ['Ready', 'agent'],
          ['Ready', 'agent'],
        ],
      );
      const cidrs = await kubectl(env, ['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR} {.spec.podCIDRs[0]}{"\\n"}{end}']);
      assert.equal(cidrs.code, 0, cidrs.stderr);
      const lines = cidrs.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' '));
      assert.deepEqual(
        lines.map((l) => l.slice(1)),
        [
          ['10.244.0.0/24', '10.244.0.0/24'],
          ['10.244.1.0/24', '10.244.1.0/24'],
          ['10.244.2.0/24', '10.244.2.0/24'],
        ],
      );
      const conf = JSON.parse(readFileSync(join(nodeConfDir(env.home, 'rg', 'c1', lines[1]![0]!), '10-containerd-net.conflist'), 'utf8'));
      assert.equal(conf.plugins[0].bridge, 'cbr0');
      assert.equal(conf.plugins[0].ipam.subnet, '10.244.1.0/24');
      const conditions = await kubectl(env, ['get', 'node', lines[0]![0]!, '-o', 'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason} {end}']);
      assert.equal(
        conditions.stdout.trim(),
        'NetworkUnavailable=False/RouteCreated MemoryPressure=False/KubeletHasSufficientMemory DiskPressure=False/KubeletHasNoDiskPressure PIDPressure=False/KubeletHasSufficientPID Ready=True/KubeletReady',
      );
      const waited = await kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=30s']);
      assert.equal(waited.code, 0, waited.stderr);
      assert.equal(waited.stdout.trim().split('\n').length, 3);
    }));

  test('Azure CNI: Ready nodes, maxPods 30, no podCIDR', () =>
    withCluster({ networkPlugin: 'azure' }, async (env) => {
      const out = await kubectl(env, [
        'get',
        'nodes',
        '-o',
        'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {.status.capacity.pods} [{.spec.podCIDR}]{"\\n"}{end}',
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.deepEqual(out.stdout.trim().split('\n'), ['True 30 []', 'True 30 []', 'True 30 []']);
    }));

  test('kubectl version, get --raw /version, cluster-info and the system namespaces and services', () =>
    withCluster({ networkPlugin: 'kubenet', serviceCidr: '10.2.0.0/16', dnsServiceIP: '10.2.0.10' }, async (env) => {
      const version = await kubectl(env, ['version']);
      assert.match(version.stdout, /^Server Version: v1\.32\.9$/m);
      const raw = await kubectl(env, ['get', '--raw', '/version']);
      assert.equal(JSON.parse(raw.stdout).gitVersion, 'v1.32.9');
      const info = await kubectl(env, ['cluster-info']);
      const server = parseYaml(env.kubeconfigYaml).clusters[0].cluster.server as string;
      assert.match(info.stdout, new RegExp(`Kubernetes control plane is running at ${server}`));
      assert.match(info.stdout, /CoreDNS is running at .*\/services\/kube-dns:dns\/proxy/);
      const ns = await kubectl(env, ['get', 'ns', '-o', 'name']);
      assert.deepEqual(ns.stdout.trim().split('\n'), ['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
      const svc = await kubectl(env, ['get', 'svc', '-A']);
      const table = rows(svc.stdout);
      assert.deepEqual(table[1]!.slice(0, 4), ['default', 'kubernetes', 'ClusterIP', '10.2.0.1']);
      assert.deepEqual(table[2]!.slice(0, 4), ['kube-system', 'kube-dns', 'ClusterIP', '10.2.0.10']);
    }));

  test('anonymous and foreign credentials get 401; the token alone works; a restart keeps the URL', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const config = parseYaml(env.kubeconfigYaml);
      const server = config.clusters[0].cluster.server as string;
      const target = { url: server, caPem: env.server.caPem };
      const anon = await https(target, 'GET', '/api/v1/nodes');
      assert.equal(anon.status, 401);
      assert.deepEqual(anon.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
      assert.equal((await https(target, 'GET', '/version', { headers: { authorization: 'Bearer nope' } })).status, 401);
      const token = config.users[0].user.token as string;
      const withToken = await https(target, 'GET', '/api/v1/nodes', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(withToken.status, 200);
      assert.equal(withToken.json.items.length, 3);

      // kubectl with a token the cluster never issued (and no certificate).
      const bare = structuredClone(config);
      bare.users[0].user = { token: 'not-a-token-of-this-cluster' };
      const bareFile = join(env.scratch, 'bare');
      writeFileSync(bareFile, stringify(bare));
      const denied = await kubectl({ ...env, kubeconfig: bareFile }, ['get', 'nodes']);
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /error: You must be logged in to the server \(the server has asked for the client to provide credentials\)/);

      // The admin credential names itself as AKS does.
      const admin = await aksClient(env.server).managedClusters.listClusterAdminCredentials('rg', 'c1');
      assert.equal(admin.kubeconfigs?.[0]?.name, 'clusterAdmin');
      const adminConfig = parseYaml(Buffer.from(admin.kubeconfigs![0]!.value!).toString('utf8'));
      assert.equal(adminConfig['current-context'], 'c1-admin');
      assert.equal(adminConfig.users[0].name, 'clusterAdmin_rg_c1');
      assert.equal(config.users[0].name, 'clusterUser_rg_c1');
      assert.equal(adminConfig.clusters[0].cluster.server, server);

      await restart(env);
      const again = await kubectl(env, ['get', 'nodes', '-o', 'name']);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout.trim().split('\n').length, 3);
    }));

  test('apply -f (client- and server-side) and delete -f of a ConfigMap, a DaemonSet and a Pod; get all', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const file = join(env.scratch, 'manifest.yaml');
      writeFileSync(
        file,
        [
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cni-config\n  namespace: kube-system\ndata:\n  10-flannel.conflist: "{}"\n',
          'apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: calico-node\n  namespace: kube-system\nspec:\n  selector:\n    matchLabels: {k8s-app: calico-node}\n  template:\n    metadata:\n      labels: {k8s-app: calico-node}\n    spec:\n      containers:\n      - name: calico-node\n        image: calico/node:v3.27.0\n',
          'apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.25\n',
        ].join('---\n'),
      );
      const created = await kubectl(env, ['apply', '-f', file]);
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(created.stdout.trim().split('\n'), ['configmap/cni-config created', 'daemonset.apps/calico-node created', 'pod/nginx created']);
      const again = await kubectl(env, ['apply', '-f', file]);
      assert.deepEqual(again.stdout.trim().split('\n'), ['configmap/cni-config unchanged', 'daemonset.apps/calico-node unchanged', 'pod/nginx unchanged']);
      writeFileSync(file, readFileSync(file, 'utf8').replace('nginx:1.25', 'nginx:1.26'));
      const changed = await kubectl(env, ['apply', '-f', file]);
      assert.match(changed.stdout, /^pod\/nginx configured$/m);
      const image = await kubectl(env, ['get', 'pod', 'nginx', '-o', 'jsonpath={.spec.containers[0].image}']);
      assert.equal(image.stdout, 'nginx:1.26');
      const ssa = await kubectl(env, ['apply', '--server-side', '-f', file]);
      assert.equal(ssa.code, 0, ssa.stderr);
      assert.match(ssa.stdout, /^daemonset\.apps\/calico-node serverside-applied$/m);
      const pods = await kubectl(env, ['get', 'pods', '-A']);
      assert.deepEqual(rows(pods.stdout)[1]!.slice(0, 4), ['default', 'nginx', '0/1', 'Pending']);
      const all = await kubectl(env, ['get', 'all', '-n', 'kube-system', '-o', 'name']);
      assert.ok(all.stdout.includes('daemonset.apps/calico-node'), all.stdout);
      const deleted = await kubectl(env, ['delete', '-f', file]);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.deepEqual(deleted.stdout.trim().split('\n'), ['configmap "cni-config" deleted', 'daemonset.apps "calico-node" deleted', 'pod "nginx" deleted']);
      const missing = await kubectl(env, ['get', 'pod', 'nginx']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /Error from server \(NotFound\): pods "nginx" not found/);
    }));

  test('scaling adds and removes nodes (with their conf dirs); deleting the cluster stops its API server', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const aks = aksClient(env.server);
      await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { count: 4, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }, POLL);
      await eventually(async () => (await kubectl(env, ['get', 'nodes', '-o', 'name'])).stdout.trim().split('\n').length === 4, 10_000, 'four nodes');
      const names = (await kubectl(env, ['get', 'nodes', '-o', 'name'])).stdout
        .trim()
        .split('\n')
        .map((n) => n.replace('node/', ''));
      await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { count: 2, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }, POLL);
      await eventually(async () => (await kubectl(env, ['get', 'nodes', '-o', 'name'])).stdout.trim().split('\n').length === 2, 10_000, 'two nodes');
      assert.ok(!existsSync(nodeConfDir(env.home, 'rg', 'c1', names[3]!)));
      assert.ok(existsSync(nodeConfDir(env.home, 'rg', 'c1', names[0]!)));

      await aks.managedClusters.beginDeleteAndWait('rg', 'c1', POLL);
      await eventually(async () => (await kubectl(env, ['get', 'nodes'], 10_000)).code !== 0, 10_000, 'the API server to stop');
      assert.ok(!existsSync(join(env.home, 'clusters', 'rg_c1')));
    }));
});
