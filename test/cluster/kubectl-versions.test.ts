// /usr/bin/kubectl is the gcloud dispatcher: it reads the server's /version and runs kubectl.1.<minor> beside it
// when that build exists (docs/clients.md §5.1). One server, one cluster per Kubernetes minor the catalogue
// offers from 1.27 on, all driven in parallel: each dispatched build must agree on the version, print nodes
// (plain, wide, describe), apply a manifest and follow a watch.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { realpathSync } from 'node:fs';
import { describe, test } from 'node:test';
import { KUBERNETES_VERSIONS, minorOf } from '../../src/aks/kubernetes-versions.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer } from '../network/harness.js';
import { eventually, HAVE_KUBECTL, KUBECTL, kubectl } from './harness.js';

/** The newest catalogue patch of every minor from 1.27 on that the dispatcher has a build for. */
function versionsUnderTest(): string[] {
  if (!HAVE_KUBECTL) return [];
  const dir = dirname(realpathSync(KUBECTL));
  const newest = new Map<number, string>();
  for (const v of KUBERNETES_VERSIONS) if (minorOf(v) >= 27) newest.set(minorOf(v), v);
  return [...newest.entries()].filter(([minor]) => existsSync(join(dir, `kubectl.1.${minor}`))).map(([, v]) => v);
}

const VERSIONS = versionsUnderTest();
const skip = VERSIONS.length > 0 ? false : 'no dispatched kubectl builds on this machine';

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: kube-system
data:
  mode: test
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: kube-system
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: busybox:1.36
`;

function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

describe('kubectl 1.27–1.33 through the dispatcher', { skip }, () => {
  test(`clusters at ${VERSIONS.join(', ')}: version, get nodes (-o wide), describe node, apply -f, get -w`, () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await Promise.all(
        VERSIONS.map(async (version) => {
          const minor = String(minorOf(version));
          const name = `k${minor}`;
          const created = await aks.managedClusters.beginCreateOrUpdateAndWait(
            'rg',
            name,
            { ...cluster({ networkPlugin: 'kubenet' }, { count: 2 }), kubernetesVersion: `1.${minor}`, dnsPrefix: name },
            POLL,
          );
          assert.equal(created.currentKubernetesVersion, version);
          const creds = await aks.managedClusters.listClusterUserCredentials('rg', name);
          const scratch = mkdtempSync(join(tmpdir(), `aksemu-kubectl-${name}-`));
          const kenv = { scratch, kubeconfig: join(scratch, 'kubeconfig') };
          writeFileSync(kenv.kubeconfig, Buffer.from(creds.kubeconfigs![0]!.value!), { mode: 0o600 });
          try {
            const ok = async (args: string[]) => {
              const got = await kubectl(kenv, args);
              assert.equal(got.code, 0, `${version}: kubectl ${args.join(' ')}: ${got.stderr}`);
              return got.stdout;
            };

            // The dispatcher ran the build of the server's minor.
            const v = JSON.parse(await ok(['version', '-o', 'json']));
            assert.equal(v.serverVersion.gitVersion, `v${version}`);
            assert.equal(v.serverVersion.minor, minor);
            // For 1.32 the dispatcher runs its own build, whose minor reads "32+".
            assert.equal(String(parseInt(v.clientVersion.minor, 10)), minor, `${version}: client ${v.clientVersion.gitVersion}`);

            const nodes = rows(await ok(['get', 'nodes']));
            assert.deepEqual(nodes[0], ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'], version);
            assert.equal(nodes.length, 3, version);
            for (const row of nodes.slice(1)) {
              assert.match(row[0]!, /^aks-nodepool1-\d{8}-vmss00000[01]$/);
              assert.deepEqual([row[1], row[2], row[4]], ['Ready', 'agent', `v${version}`], version);
            }
            const wide = rows(await ok(['get', 'nodes', '-o', 'wide']));
            assert.deepEqual(
              wide[0],
              ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'],
              version,
            );
            assert.deepEqual(
              wide.slice(1).map((r) => r[6]),
              ['<none>', '<none>'],
              version,
            );
            assert.ok(
              wide.slice(1).every((r) => /^10\.224\.0\.\d+$/.test(r[5]!)),
              `${version}: ${JSON.stringify(wide)}`,
            );

            const described = await ok(['describe', 'node', nodes[1]![0]!]);
            assert.match(described, new RegExp(`^Name:\\s+${nodes[1]![0]!}$`, 'm'), version);
            assert.match(described, /^Roles:\s+agent$/m, version);
            assert.match(described, new RegExp(`^\\s+Kubelet Version:\\s+v${version.replace(/\./g, '\\.')}$`, 'm'), version);
            assert.match(described, /^\s+Ready\s+True\s/m, version);
            assert.match(described, /^PodCIDR:\s+10\.244\.\d+\.0\/24$/m, version);

            // A watch (listing a ConfigMap that is already there), then an apply it must report.
            const baseline = join(scratch, 'baseline.yaml');
            writeFileSync(baseline, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: baseline\n  namespace: kube-system\n');
            assert.equal((await ok(['apply', '-f', baseline])).trim(), 'configmap/baseline created', version);
            const watcher = spawn(KUBECTL, [`--cache-dir=${join(scratch, 'watch-cache')}`, 'get', 'configmaps', '-n', 'kube-system', '-w'], {
              env: { ...process.env, KUBECONFIG: kenv.kubeconfig, HOME: scratch },
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let watched = '';
            let watchErr = '';
            watcher.stdout.on('data', (d) => (watched += d));
            watcher.stderr.on('data', (d) => (watchErr += d));
            try {
              await eventually(
                () => /^NAME\s+DATA\s+AGE$/m.test(watched) && /^baseline\s+0\s/m.test(watched),
                30_000,
                `${version}: get -w to list (${watchErr})`,
              );
              const file = join(scratch, 'manifest.yaml');
              writeFileSync(file, MANIFEST);
              assert.deepEqual((await ok(['apply', '-f', file])).trim().split('\n'), ['configmap/settings created', 'daemonset.apps/agent created'], version);
              assert.deepEqual(
                (await ok(['apply', '-f', file])).trim().split('\n'),
                ['configmap/settings unchanged', 'daemonset.apps/agent unchanged'],
                version,
              );
              await eventually(
                () => /^settings\s+1\s+\d+s$/m.test(watched),
                30_000,
                `${version}: get -w to show the applied ConfigMap (${watched}${watchErr})`,
              );
            } finally {
              watcher.kill();
            }
            const ds = JSON.parse(await ok(['get', 'daemonset', 'agent', '-n', 'kube-system', '-o', 'json']));
            assert.equal(ds.spec.template.spec.containers[0].image, 'busybox:1.36', version);
          } finally {
            rmSync(scratch, { recursive: true, force: true });
          }
        }),
      );
    }));
});
