// `helm upgrade` and `helm rollback` with the real helm 3: the upgrade's values reach the ConfigMap, the custom
// resource and the Deployment, its post-upgrade hook Job runs and is deleted once it succeeded
// (hook-succeeded), `helm history` lists the revisions, and the history is kept as helm keeps it: one Secret of
// type helm.sh/release.v1 per revision, labelled owner=helm, name, status and version, holding the gzipped
// release. `helm rollback` applies revision 1's stored manifest again as a new revision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kubectl, withCluster, type ClusterEnv } from '../cluster/harness.js';
import { chartDir, HELM_SKIP, helmOk, helmRows, kubectlJson, releaseOf } from './harness.js';

const NS = 'apps';
const WAIT = ['--wait', '--timeout', '60s'];
const UPGRADE = ['--set', 'greeting=bonjour', '--set', 'widget.size=5', '--set', 'widget.color=green', '--set', 'replicas=2'];

/** The release's Secrets, oldest revision first. */
async function releaseSecrets(env: ClusterEnv): Promise<any[]> {
  const list = await kubectlJson(env, ['get', 'secrets', '-n', NS, '-l', 'owner=helm,name=widgets']);
  return list.items.sort((a: any, b: any) => Number(a.metadata.labels.version) - Number(b.metadata.labels.version));
}

/** What the chart's objects say now: the ConfigMap's data, the Widget's spec, the Deployment's replicas. */
async function deployed(env: ClusterEnv): Promise<{ config: unknown; widget: unknown; replicas: number; ready: number }> {
  const config = await kubectlJson(env, ['get', 'configmap', 'widgets-config', '-n', NS]);
  const widget = await kubectlJson(env, ['get', 'widget', 'widgets-widget', '-n', NS]);
  const deploy = await kubectlJson(env, ['get', 'deployment', 'widgets-web', '-n', NS]);
  return { config: config.data, widget: widget.spec, replicas: deploy.spec.replicas, ready: deploy.status.readyReplicas };
}

test('helm upgrade with a post-upgrade hook, history in Secrets, and rollback', { skip: HELM_SKIP, timeout: 120_000 }, (t) =>
  withCluster(
    { networkPlugin: 'kubenet' },
    async (env) => {
      await t.test('helm install', async () => {
        await helmOk(env, ['install', 'widgets', chartDir('widgets'), '-n', NS, '--create-namespace', ...WAIT]);
        assert.deepEqual(await deployed(env), { config: { greeting: 'hello', revision: '1' }, widget: { size: 3, color: 'blue' }, replicas: 1, ready: 1 });
      });

      await t.test('helm upgrade --wait applies the new values', async () => {
        const out = await helmOk(env, ['upgrade', 'widgets', chartDir('widgets'), '-n', NS, ...UPGRADE, ...WAIT]);
        assert.match(out, /Release "widgets" has been upgraded\. Happy Helming!/);
        assert.match(out, /^STATUS: deployed$/m);
        assert.match(out, /^REVISION: 2$/m);
        assert.deepEqual(await deployed(env), { config: { greeting: 'bonjour', revision: '2' }, widget: { size: 5, color: 'green' }, replicas: 2, ready: 2 });
        const values = JSON.parse(await helmOk(env, ['get', 'values', 'widgets', '-n', NS, '-o', 'json']));
        assert.deepEqual(values, { greeting: 'bonjour', replicas: 2, widget: { color: 'green', size: 5 } });
      });

      await t.test('the post-upgrade hook ran and was deleted; the pre-install hook did not run again', async () => {
        const status = JSON.parse(await helmOk(env, ['status', 'widgets', '-n', NS, '-o', 'json']));
        const hook = (status.hooks ?? []).find((h: any) => h.name === 'widgets-post-upgrade');
        assert.ok(hook, `no post-upgrade hook in the release: ${JSON.stringify(status.hooks)}`);
        assert.deepEqual(hook.events, ['post-upgrade']);
        assert.equal(hook.last_run.phase, 'Succeeded');
        const gone = await kubectl(env, ['get', 'job', 'widgets-post-upgrade', '-n', NS]);
        assert.equal(gone.code, 1, `hook-succeeded Job still there: ${gone.stdout}`);
        assert.match(gone.stderr, /NotFound|not found/);
        const pre = await kubectlJson(env, ['get', 'job', 'widgets-pre-install', '-n', NS]);
        assert.equal(pre.status.succeeded, 1);
      });

      await t.test('helm history lists both revisions', async () => {
        const table = helmRows(await helmOk(env, ['history', 'widgets', '-n', NS]));
        assert.deepEqual(table[0], ['REVISION', 'UPDATED', 'STATUS', 'CHART', 'APP VERSION', 'DESCRIPTION']);
        assert.deepEqual(
          table.slice(1).map((r) => [r[0], ...r.slice(2)]),
          [
            ['1', 'superseded', 'widgets-0.1.0', '1.0.0', 'Install complete'],
            ['2', 'deployed', 'widgets-0.1.0', '1.0.0', 'Upgrade complete'],
          ],
        );
      });

      await t.test('the history is kept in Secrets of type helm.sh/release.v1', async () => {
        const secrets = await releaseSecrets(env);
        assert.deepEqual(
          secrets.map((s) => [s.metadata.name, s.type, s.metadata.labels.owner, s.metadata.labels.name, s.metadata.labels.status, s.metadata.labels.version]),
          [
            ['sh.helm.release.v1.widgets.v1', 'helm.sh/release.v1', 'helm', 'widgets', 'superseded', '1'],
            ['sh.helm.release.v1.widgets.v2', 'helm.sh/release.v1', 'helm', 'widgets', 'deployed', '2'],
          ],
        );
        const release = releaseOf(secrets[1]);
        assert.equal(release.name, 'widgets');
        assert.equal(release.namespace, NS);
        assert.equal(release.version, 2);
        assert.equal(release.info.status, 'deployed');
        assert.deepEqual(release.config, { greeting: 'bonjour', replicas: 2, widget: { color: 'green', size: 5 } });
        assert.equal(release.chart.metadata.name, 'widgets');
        // The apiserver's field selector on a Secret's type finds the same objects.
        const byType = await kubectlJson(env, ['get', 'secrets', '-n', NS, '--field-selector', 'type=helm.sh/release.v1']);
        assert.deepEqual(byType.items.map((s: any) => s.metadata.name).sort(), ['sh.helm.release.v1.widgets.v1', 'sh.helm.release.v1.widgets.v2']);
      });

      await t.test('helm rollback to revision 1 applies its manifest again as revision 3', async () => {
        assert.match(await helmOk(env, ['rollback', 'widgets', '1', '-n', NS, ...WAIT]), /Rollback was a success! Happy Helming!/);
        // Revision 1's rendered manifest, as stored: its ConfigMap still says revision "1".
        assert.deepEqual(await deployed(env), { config: { greeting: 'hello', revision: '1' }, widget: { size: 3, color: 'blue' }, replicas: 1, ready: 1 });
        const table = helmRows(await helmOk(env, ['history', 'widgets', '-n', NS]));
        assert.deepEqual(
          table.slice(1).map((r) => [r[0], r[2], r.at(-1)]),
          [
            ['1', 'superseded', 'Install complete'],
            ['2', 'superseded', 'Upgrade complete'],
            ['3', 'deployed', 'Rollback to 1'],
          ],
        );
        const secrets = await releaseSecrets(env);
        assert.deepEqual(
          secrets.map((s) => [s.metadata.labels.version, s.metadata.labels.status]),
          [
            ['1', 'superseded'],
            ['2', 'superseded'],
            ['3', 'deployed'],
          ],
        );
        const status = JSON.parse(await helmOk(env, ['status', 'widgets', '-n', NS, '-o', 'json']));
        assert.equal(status.version, 3);
        assert.equal(status.info.status, 'deployed');
      });
    },
    { count: 1 },
  ),
);
