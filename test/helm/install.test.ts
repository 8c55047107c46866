// `helm install --wait` of a chart with CRDs in crds/ against a kubenet cluster, with the real helm 3: the CRD is
// created and Established before the templates are applied, the pre-install hook Job runs to completion before
// the release's objects exist, the custom resource is created and shown with its printer columns, the
// Deployment is ready, and `helm status` / `helm list` report the release deployed. `helm uninstall` then
// removes the release's objects and its history, and keeps the CRD (Helm never deletes what crds/ installed).
// A pre-install hook Job that fails fails the install, and the release is recorded as failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kubectl, withCluster } from '../cluster/harness.js';
import { chartDir, HELM_SKIP, helm, helmOk, helmRows, kubectlJson, kubectlOk, rows } from './harness.js';

const NS = 'apps';
const WAIT = ['--wait', '--timeout', '60s'];

test('helm install --wait, status, list and uninstall of a chart with CRDs and a hook Job', { skip: HELM_SKIP, timeout: 120_000 }, (t) =>
  withCluster(
    { networkPlugin: 'kubenet' },
    async (env) => {
      await t.test('helm version runs the unpacked binary', async () => {
        assert.match(await helmOk(env, ['version', '--short']), /^v3\.\d+\.\d+/);
      });

      await t.test('helm install --wait deploys the release', async () => {
        const out = await helmOk(env, ['install', 'widgets', chartDir('widgets'), '-n', NS, '--create-namespace', ...WAIT]);
        assert.match(out, /^NAME: widgets$/m);
        assert.match(out, /^NAMESPACE: apps$/m);
        assert.match(out, /^STATUS: deployed$/m);
        assert.match(out, /^REVISION: 1$/m);
      });

      await t.test('the CRD from crds/ is Established and its kind is served', async () => {
        const crd = await kubectlJson(env, ['get', 'crd', 'widgets.demo.aksemu.dev']);
        const established = (crd.status?.conditions ?? []).find((c: any) => c.type === 'Established');
        assert.equal(established?.status, 'True');
        assert.match(await kubectlOk(env, ['api-resources', '--api-group=demo.aksemu.dev']), /^widgets\s+wdg\s+demo\.aksemu\.dev\/v1\s+true\s+Widget$/m);
        // The CRD carries no release labels: helm creates crds/ as they are and does not track them.
        assert.equal(crd.metadata.labels?.['app.kubernetes.io/managed-by'], undefined);
      });

      await t.test('the pre-install hook Job completed before the release objects were created', async () => {
        const job = await kubectlJson(env, ['get', 'job', 'widgets-pre-install', '-n', NS]);
        assert.equal(job.status.succeeded, 1);
        assert.equal(job.status.conditions.find((c: any) => c.type === 'Complete')?.status, 'True');
        const config = await kubectlJson(env, ['get', 'configmap', 'widgets-config', '-n', NS]);
        assert.ok(
          Date.parse(job.status.completionTime) <= Date.parse(config.metadata.creationTimestamp),
          `hook completed ${job.status.completionTime}, ConfigMap created ${config.metadata.creationTimestamp}`,
        );
        assert.match(await kubectlOk(env, ['logs', 'job/widgets-pre-install', '-n', NS]), /^pre-install widgets revision 1$/m);
      });

      await t.test('the custom resource is created, defaulted and printed with its columns', async () => {
        const widget = await kubectlJson(env, ['get', 'widget', 'widgets-widget', '-n', NS]);
        assert.deepEqual(widget.spec, { size: 3, color: 'blue' });
        assert.equal(widget.metadata.labels['app.kubernetes.io/managed-by'], 'Helm');
        assert.equal(widget.metadata.annotations['meta.helm.sh/release-name'], 'widgets');
        assert.equal(widget.metadata.annotations['meta.helm.sh/release-namespace'], NS);
        // The status subresource: a status written through it shows in the Phase column.
        await kubectlOk(env, ['patch', 'widget', 'widgets-widget', '-n', NS, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Ready"}}']);
        const table = rows(await kubectlOk(env, ['get', 'widgets', '-n', NS]));
        assert.deepEqual(table[0], ['NAME', 'SIZE', 'COLOR', 'PHASE', 'AGE']);
        assert.deepEqual(table[1]!.slice(0, 4), ['widgets-widget', '3', 'blue', 'Ready']);
        assert.match(table[1]![4]!, /^\d+s$/);
        // The short name and the category find it too.
        assert.match(await kubectlOk(env, ['get', 'wdg', '-n', NS, '-o', 'name']), /^widget\.demo\.aksemu\.dev\/widgets-widget$/m);
        assert.match(await kubectlOk(env, ['get', 'all-widgets', '-n', NS, '-o', 'name']), /^widget\.demo\.aksemu\.dev\/widgets-widget$/m);
      });

      await t.test('the Deployment is ready and the Service and ConfigMap exist', async () => {
        const deploy = await kubectlJson(env, ['get', 'deployment', 'widgets-web', '-n', NS]);
        assert.equal(deploy.status.readyReplicas, 1);
        const service = await kubectlJson(env, ['get', 'service', 'widgets-web', '-n', NS]);
        assert.equal(service.spec.ports[0].port, 80);
        const config = await kubectlJson(env, ['get', 'configmap', 'widgets-config', '-n', NS]);
        assert.deepEqual(config.data, { greeting: 'hello', revision: '1' });
      });

      await t.test('helm status reports the release deployed with its hook run', async () => {
        assert.match(await helmOk(env, ['status', 'widgets', '-n', NS]), /^STATUS: deployed$/m);
        const status = JSON.parse(await helmOk(env, ['status', 'widgets', '-n', NS, '-o', 'json']));
        assert.equal(status.info.status, 'deployed');
        assert.equal(status.version, 1);
        const hook = (status.hooks ?? []).find((h: any) => h.name === 'widgets-pre-install');
        assert.ok(hook, `no pre-install hook in the release: ${JSON.stringify(status.hooks)}`);
        assert.deepEqual(hook.events, ['pre-install']);
        assert.equal(hook.last_run.phase, 'Succeeded');
      });

      await t.test('helm list shows the release in its namespace and across namespaces', async () => {
        const table = helmRows(await helmOk(env, ['list', '-n', NS]));
        assert.deepEqual(table[0], ['NAME', 'NAMESPACE', 'REVISION', 'UPDATED', 'STATUS', 'CHART', 'APP VERSION']);
        assert.deepEqual([...table[1]!.slice(0, 3), ...table[1]!.slice(4)], ['widgets', NS, '1', 'deployed', 'widgets-0.1.0', '1.0.0']);
        const all = JSON.parse(await helmOk(env, ['list', '-A', '-o', 'json']));
        assert.deepEqual(
          all.map((r: any) => [r.name, r.namespace, r.revision, r.status]),
          [['widgets', NS, '1', 'deployed']],
        );
      });

      await t.test('helm uninstall removes the release objects and history, and keeps the CRD', async () => {
        assert.match(await helmOk(env, ['uninstall', 'widgets', '-n', NS, ...WAIT]), /release "widgets" uninstalled/);
        for (const [kind, name] of [
          ['configmap', 'widgets-config'],
          ['deployment', 'widgets-web'],
          ['service', 'widgets-web'],
          ['widget', 'widgets-widget'],
        ]) {
          const r = await kubectl(env, ['get', kind!, name!, '-n', NS]);
          assert.equal(r.code, 1, `${kind}/${name} still there: ${r.stdout}`);
          assert.match(r.stderr, /NotFound|not found/);
        }
        assert.equal((await kubectlJson(env, ['get', 'secrets', '-n', NS, '-l', 'owner=helm'])).items.length, 0);
        assert.deepEqual(JSON.parse(await helmOk(env, ['list', '-A', '-o', 'json'])), []);
        await kubectlOk(env, ['get', 'crd', 'widgets.demo.aksemu.dev']);
        const status = await helm(env, ['status', 'widgets', '-n', NS]);
        assert.notEqual(status.code, 0);
        assert.match(status.stderr, /release: not found/);
      });

      await t.test('a failing pre-install hook Job fails the install before any template is applied', async () => {
        const r = await helm(env, [
          'install',
          'broken',
          chartDir('widgets'),
          '-n',
          'broken',
          '--create-namespace',
          '--set',
          'hooks.preInstallExitCode=3',
          ...WAIT,
        ]);
        assert.equal(r.code, 1, r.stdout);
        assert.match(r.stderr, /INSTALLATION FAILED: failed pre-install/);
        assert.match(r.stderr, /BackoffLimitExceeded/);
        const job = await kubectlJson(env, ['get', 'job', 'broken-pre-install', '-n', 'broken']);
        assert.equal(job.status.failed, 1);
        assert.equal(job.status.conditions.find((c: any) => c.type === 'Failed')?.reason, 'BackoffLimitExceeded');
        assert.match(await kubectlOk(env, ['logs', 'job/broken-pre-install', '-n', 'broken']), /^pre-install broken failing$/m);
        const status = JSON.parse(await helmOk(env, ['status', 'broken', '-n', 'broken', '-o', 'json']));
        assert.equal(status.info.status, 'failed');
        const config = await kubectl(env, ['get', 'configmap', 'broken-config', '-n', 'broken']);
        assert.equal(config.code, 1, `the ConfigMap was applied: ${config.stdout}`);
      });
    },
    { count: 1 },
  ),
);
