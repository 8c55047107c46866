// A replica bomb (issue 11): `kubectl create deployment huge --replicas=1000000000` is valid to the apiserver,
// so it is stored; the controllers then create pods as kube-controller-manager does (slow-start batches of at
// most 500 per sync, yielding between them), so ARM and every cluster keep answering, during the bomb and
// after a restart with it stored, and `kubectl delete deployment huge` removes it and its pods in slices.
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { ObjectBudget, ObjectCeiling } from '../../src/cluster/apiserver/storage/ceiling.js';
import { DEPLOYMENTS, PODS } from '../../src/cluster/apimachinery/resources.js';
import { bearer, https } from '../e2e/harness.js';
import { restart } from '../network/harness.js';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

/** The slowest of back-to-back ARM and cluster API requests over `ms`, and the event loop's worst stall. */
async function responsiveness(env: ClusterEnv, ms: number): Promise<{ armMs: number; clusterMs: number; stallMs: number; requests: number }> {
  const headers = await bearer(env.server);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let armMs = 0;
  let clusterMs = 0;
  let requests = 0;
  const end = Date.now() + ms;
  try {
    while (Date.now() < end) {
      let t0 = Date.now();
      const arm = await https(env.server, 'GET', `/subscriptions/${env.sub}/resourcegroups/rg?api-version=2021-04-01`, { headers });
      assert.equal(arm.status, 200, arm.text);
      armMs = Math.max(armMs, Date.now() - t0);
      t0 = Date.now();
      const cluster = await api(env, 'GET', '/api/v1/namespaces/kube-system/configmaps');
      assert.equal(cluster.status, 200, cluster.text);
      clusterMs = Math.max(clusterMs, Date.now() - t0);
      requests += 2;
    }
  } finally {
    delay.disable();
  }
  return { armMs, clusterMs, stallMs: delay.max / 1e6, requests };
}

type Responsiveness = Awaited<ReturnType<typeof responsiveness>>;

/**
 * Prompt enough: no request beyond 3 s and no event-loop stall beyond 2 s, or beyond four times what the same server
 * showed before the bomb on this machine, whichever is larger — so a loaded CI machine does not fail a server that
 * stays responsive, while a loop blocked for seconds still does. (Alone, while the bomb's pods go, the slowest
 * request takes ~0.6 s and the longest stall is ~0.3 s here; with another test file running beside it on 2 cores
 * they reached 2.2 s and 1.04 s, past the 2 s and 1 s bounds this had before.)
 */
function prompt(r: Responsiveness, quiet: Responsiveness): boolean {
  return r.armMs < Math.max(3000, 4 * quiet.armMs) && r.clusterMs < Math.max(3000, 4 * quiet.clusterMs) && r.stallMs < Math.max(2000, 4 * quiet.stallMs);
}

/** The bomb's pods (in default; kube-system's add-ons stay). */
function podCount(env: ClusterEnv): number {
  return env.server.clusterApis.runtimeOf(env.clusterId)?.objects.list(PODS, 'default').length ?? -1;
}

describe('a replica bomb', { skip }, () => {
  test('ARM and the cluster API answer promptly during it and after a restart with it stored; kubectl deletes it and its pods go in slices', (t) =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const quiet = await responsiveness(env, 1000);
      const created = await kubectl(env, ['create', 'deployment', 'huge', '--image=nginx', '--replicas=1000000000']);
      assert.equal(created.code, 0, created.stderr);
      const during = await responsiveness(env, 4000);
      assert.ok(prompt(during, quiet), JSON.stringify({ during, quiet }));
      assert.ok(podCount(env) > 500, `pods are being created (${podCount(env)})`);
      t.diagnostic(`during the bomb: ${JSON.stringify(during)}, ${podCount(env)} pods`);
      const shown = await kubectl(env, ['get', 'deployment', 'huge', '-o', 'jsonpath={.spec.replicas}']);
      assert.equal(shown.stdout, '1000000000');

      const t0 = Date.now();
      await restart(env);
      const restartMs = Date.now() - t0;
      assert.ok(restartMs < 20_000, `restart took ${restartMs} ms`);
      const after = await responsiveness(env, 3000);
      assert.ok(prompt(after, quiet), JSON.stringify({ after, quiet }));
      t.diagnostic(`restart: ${restartMs} ms; after it: ${JSON.stringify(after)}`);

      const before = podCount(env);
      const deleting = kubectl(env, ['delete', 'deployment', 'huge', '--timeout=60s']);
      const whileDeleting = await responsiveness(env, 2000);
      const deleted = await deleting;
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout.trim(), 'deployment.apps "huge" deleted');
      assert.ok(prompt(whileDeleting, quiet), JSON.stringify({ whileDeleting, quiet }));
      const t1 = Date.now();
      await eventually(() => podCount(env) === 0, 60_000, `the bomb's ${before} pods to go`);
      t.diagnostic(`while deleting: ${JSON.stringify(whileDeleting)}; ${before} pods gone ${Date.now() - t1} ms after kubectl returned`);
      const rs = await kubectl(env, ['get', 'replicasets', '-o', 'name']);
      assert.equal(rs.stdout.trim(), '');
    }));

  test("past the cluster's object ceiling creates are 403 exceeded quota; the ReplicaSet says FailedCreate; its events are aggregated; deleting makes room", () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const ceiling = env.server.clusterApis.runtimeOf(env.clusterId)!.objects.ceiling;
      ceiling.limits.objects = ceiling.count.objects + 100;
      const created = await kubectl(env, ['create', 'deployment', 'full', '--image=nginx', '--replicas=1000']);
      assert.equal(created.code, 0, created.stderr);
      const failed = async () => JSON.parse((await kubectl(env, ['get', 'events', '--field-selector', 'reason=FailedCreate', '-o', 'json'])).stdout).items;
      let events: any[] = [];
      await eventually(async () => (events = await failed()).length > 0, 30_000, 'a FailedCreate event');
      assert.equal(events[0].type, 'Warning');
      assert.equal(events[0].source.component, 'replicaset-controller');
      assert.match(
        events[0].message,
        /^Error creating: pods "full-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: aksemu-cluster-objects, requested: count\/objects=1, used: count\/objects=\d+, limited: count\/objects=\d+$/,
      );
      const refused = await kubectl(env, ['create', 'configmap', 'extra', '--from-literal=a=b']);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /configmaps "extra" is forbidden: exceeded quota: aksemu-cluster-objects/);
      const raw = await api(env, 'POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ metadata: { name: 'extra' } }) });
      assert.equal(raw.status, 403, raw.text);
      assert.equal(raw.json.reason, 'Forbidden');
      assert.deepEqual(raw.json.details, { name: 'extra', kind: 'configmaps' });
      // A thousand creations are ten events and one combined one, not a thousand (client-go's aggregation).
      const made = JSON.parse((await kubectl(env, ['get', 'events', '--field-selector', 'reason=SuccessfulCreate', '-o', 'json'])).stdout).items.filter(
        (e: any) => e.involvedObject.kind === 'ReplicaSet' && e.involvedObject.name.startsWith('full-'),
      );
      assert.ok(made.length <= 10, `${made.length} SuccessfulCreate events`);
      const combined = made.find((e: any) => e.message.startsWith('(combined from similar events): Created pod: full-'));
      assert.ok(combined && combined.count > 20, JSON.stringify(made.map((e: any) => [e.message, e.count])));

      const deleted = await kubectl(env, ['delete', 'deployment', 'full']);
      assert.equal(deleted.code, 0, deleted.stderr);
      await eventually(() => podCount(env) === 0, 30_000, 'the pods to go');
      const room = await kubectl(env, ['create', 'configmap', 'extra', '--from-literal=a=b']);
      assert.equal(room.code, 0, room.stderr);
    }));

  test('a namespace holding a bomb is emptied in slices: Terminating, new content refused, then gone; the server answers throughout', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      assert.equal((await kubectl(env, ['create', 'namespace', 'team'])).code, 0);
      assert.equal((await kubectl(env, ['create', 'deployment', 'huge', '-n', 'team', '--image=nginx', '--replicas=1000000000'])).code, 0);
      const runtime = env.server.clusterApis.runtimeOf(env.clusterId)!;
      await eventually(() => runtime.objects.list(PODS, 'team').length > 1000, 30_000, 'pods in team');
      const deleted = await api(env, 'DELETE', '/api/v1/namespaces/team');
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.json.status.phase, 'Terminating');
      const refused = await api(env, 'POST', '/api/v1/namespaces/team/configmaps', { body: JSON.stringify({ metadata: { name: 'late' } }) });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.json.message, 'configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated');
      // The namespace controller starts emptying after its 5 s grace period (as the real one does): measure then.
      await eventually(() => !runtime.objects.get(DEPLOYMENTS, 'team', 'huge'), 15_000, 'the emptying to start');
      const during = await responsiveness(env, 1500);
      assert.ok(during.armMs < 2000 && during.clusterMs < 2000 && during.stallMs < 1000, JSON.stringify(during));
      const waited = await kubectl(env, ['wait', '--for=delete', 'namespace/team', '--timeout=60s']);
      assert.equal(waited.code, 0, waited.stderr);
      assert.equal(runtime.objects.list(PODS, 'team').length, 0);
      assert.equal((await kubectl(env, ['create', 'namespace', 'team'])).code, 0);
    }));

  test('the ceiling counts every cluster of a server together, events apart; nodes do not count; releasing a cluster frees its share', () => {
    const budget = new ObjectBudget({ objects: 3, events: 1 });
    const a = new ObjectCeiling(budget);
    const b = new ObjectCeiling(budget);
    const cm = { group: '', resource: 'configmaps' };
    a.admit(cm, 'x');
    a.added('/configmaps');
    a.added('/configmaps');
    b.added('/configmaps');
    b.added('/nodes');
    assert.deepEqual(budget.used, { objects: 3, events: 0 });
    assert.throws(
      () => b.admit(cm, 'y'),
      /configmaps "y" is forbidden: exceeded quota: aksemu-server-objects, requested: count\/objects=1, used: count\/objects=3, limited: count\/objects=3/,
    );
    b.admit({ group: '', resource: 'nodes' }, 'n');
    b.admit({ group: '', resource: 'events' }, 'e');
    b.added('/events');
    assert.throws(
      () => a.admit({ group: '', resource: 'events' }, 'e2'),
      /events "e2" is forbidden: exceeded quota: aksemu-server-objects, requested: count\/events=1/,
    );
    a.release();
    assert.deepEqual(budget.used, { objects: 1, events: 1 });
    b.admit(cm, 'y');
  });

  test("replicas outside int32 are the apiserver's decode error (400); negative ones its 422", () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const created = await kubectl(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=1']);
      assert.equal(created.code, 0, created.stderr);
      const path = '/apis/apps/v1/namespaces/default/deployments/web';
      const merge = (body: string) => api(env, 'PATCH', path, { body, contentType: 'application/merge-patch+json' });
      const huge = await merge('{"spec":{"replicas":3000000000}}');
      assert.equal(huge.status, 400, huge.text);
      assert.equal(huge.json.reason, 'BadRequest');
      assert.equal(
        huge.json.message,
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
      const fraction = await merge('{"spec":{"replicas":1.5}}');
      assert.equal(
        fraction.json.message,
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
      const negative = await merge('{"spec":{"replicas":-1}}');
      assert.equal(negative.status, 422, negative.text);
      assert.equal(negative.json.message, 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
      const scale = await api(env, 'PATCH', `${path}/scale`, { body: '{"spec":{"replicas":3000000000}}', contentType: 'application/merge-patch+json' });
      assert.equal(scale.status, 400, scale.text);
      assert.equal(
        scale.json.message,
        'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 3000000000 into Go struct field ScaleSpec.spec.replicas of type int32',
      );
      const scaled = await kubectl(env, ['scale', 'deployment', 'web', '--replicas=-1']);
      assert.notEqual(scaled.code, 0);
      const still = await kubectl(env, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}']);
      assert.equal(still.stdout, '1');
    }));
});
