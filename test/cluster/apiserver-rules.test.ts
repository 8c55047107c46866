// The apiserver's rules installers meet, through the real kubectl against a real server: a namespace's
// lifecycle (Terminating, the controller's conditions, new content refused, its objects deleted, then gone),
// finalizers holding any object, propagation policies (foreground waits for ReplicaSets and pods, orphan
// keeps them), optimistic concurrency, dry runs, server-side apply with field managers and conflicts, and
// the 256 KiB annotation limit that client-side apply's last-applied annotation runs into.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

function manifest(env: ClusterEnv, name: string, text: string): string {
  const file = join(env.scratch, name);
  writeFileSync(file, text);
  return file;
}

async function ok(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function getJson(env: ClusterEnv, path: string): Promise<any> {
  const r = await api(env, 'GET', path);
  return r.status === 200 ? r.json : undefined;
}

/** A Deployment `web` of nginx with `replicas` replicas in `namespace`, as a manifest. */
function webDeployment(replicas: number, namespace: string): string {
  const spec = `  replicas: ${replicas}\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n`;
  return `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ${namespace}\nspec:\n${spec}    spec:\n      containers:\n      - name: web\n        image: nginx\n`;
}

const APP = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n---\n${webDeployment(2, 'shop')}`;

describe('apiserver rules', { skip }, () => {
  test('namespaces: delete -f of a namespace and its objects exits 0 through Terminating; new content refused; finalizers hold objects and namespaces', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const file = manifest(env, 'app.yaml', APP);
      await ok(env, ['apply', '-f', file]);
      const deleting = kubectl(env, ['delete', '-f', file, '--timeout=50s']);
      await eventually(async () => (await getJson(env, '/api/v1/namespaces/shop'))?.status?.phase === 'Terminating', 10_000, 'shop Terminating');
      const ns = await getJson(env, '/api/v1/namespaces/shop');
      assert.ok(ns.metadata.deletionTimestamp);
      assert.deepEqual(ns.spec.finalizers, ['kubernetes']);
      const refused = await kubectl(env, ['create', 'configmap', 'late', '-n', 'shop']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /configmaps "late" is forbidden: unable to create new content in namespace shop because it is being terminated/);
      const deleted = await deleting;
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.match(deleted.stdout, /namespace "shop" deleted/);
      assert.match(deleted.stdout, /configmap "settings" deleted/);
      assert.match(deleted.stdout, /deployment.apps "web" deleted/);
      assert.equal(await getJson(env, '/api/v1/namespaces/shop'), undefined);

      // spec.finalizers: the controller's is added to the client's; a name without a domain must be a standard one.
      const nsBody = (finalizers: string[]) => ({ body: JSON.stringify({ metadata: { name: 'extra' }, spec: { finalizers } }) });
      const badNs = await api(env, 'POST', '/api/v1/namespaces', nsBody(['foo']));
      assert.equal(badNs.status, 422, badNs.text);
      assert.equal(
        badNs.json.message,
        'Namespace "extra" is invalid: spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
      );
      const extra = await api(env, 'POST', '/api/v1/namespaces', nsBody(['example.com/x']));
      assert.deepEqual(extra.json.spec.finalizers, ['example.com/x', 'kubernetes']);

      // A finalizer holds a ConfigMap, and so its namespace, with the controller's conditions saying why.
      await ok(env, ['create', 'namespace', 'held']);
      const held = manifest(
        env,
        'held.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: held\n  finalizers: [example.com/hold]\n',
      );
      await ok(env, ['create', '-f', held]);
      await ok(env, ['delete', 'configmap', 'keep', '-n', 'held', '--wait=false']);
      const marked = await getJson(env, '/api/v1/namespaces/held/configmaps/keep');
      assert.ok(marked.metadata.deletionTimestamp, 'marked, not gone');
      assert.deepEqual(marked.metadata.finalizers, ['example.com/hold']);
      const finalizers = (list: string[] | null) =>
        kubectl(env, ['patch', 'configmap', 'keep', '-n', 'held', '--type=merge', '-p', JSON.stringify({ metadata: { finalizers: list } })]);
      const added = await finalizers(['example.com/hold', 'example.com/more']);
      assert.equal(added.code, 1);
      assert.match(
        added.stderr,
        /metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example.com\/more"\}/,
      );
      await ok(env, ['delete', 'namespace', 'held', '--wait=false']);
      await eventually(
        async () =>
          ((await getJson(env, '/api/v1/namespaces/held'))?.status?.conditions ?? []).some(
            (c: any) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True',
          ),
        15_000,
        'the finalizers condition',
      );
      const conditions = Object.fromEntries((await getJson(env, '/api/v1/namespaces/held')).status.conditions.map((c: any) => [c.type, c]));
      assert.equal(conditions.NamespaceFinalizersRemaining.reason, 'SomeFinalizersRemain');
      assert.equal(
        conditions.NamespaceFinalizersRemaining.message,
        'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      );
      assert.equal(conditions.NamespaceContentRemaining.message, 'Some resources are remaining: configmaps. has 1 resource instances');
      assert.equal(conditions.NamespaceDeletionDiscoveryFailure.status, 'False');
      assert.equal(conditions.NamespaceDeletionDiscoveryFailure.reason, 'ResourcesDiscovered');
      assert.equal((await finalizers(null)).code, 0);
      await ok(env, ['wait', '--for=delete', 'namespace/held', '--timeout=20s']);
    }));

  test('writes: server-side apply conflicts and force, managedFields, stale updates, dry runs, propagation policies, the annotation limit', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const deploy = (replicas: number) => manifest(env, `web-${replicas}.yaml`, webDeployment(replicas, 'default'));
      await ok(env, ['apply', '--server-side', '--field-manager=m1', '-f', deploy(1)]);
      const clash = await kubectl(env, ['apply', '--server-side', '--field-manager=m2', '-f', deploy(2)]);
      assert.equal(clash.code, 1);
      assert.match(clash.stderr, /Apply failed with 1 conflict: conflict with "m1": \.spec\.replicas/);
      await ok(env, ['apply', '--server-side', '--field-manager=m2', '--force-conflicts', '-f', deploy(2)]);
      const applied = await getJson(env, '/apis/apps/v1/namespaces/default/deployments/web');
      assert.equal(applied.spec.replicas, 2);
      const managers = Object.fromEntries(applied.metadata.managedFields.map((m: any) => [m.manager, m]));
      assert.equal(managers.m2.operation, 'Apply');
      assert.deepEqual(managers.m2.fieldsV1['f:spec']['f:replicas'], {});
      assert.equal(managers.m1.fieldsV1['f:spec']['f:replicas'], undefined, 'm1 lost .spec.replicas');
      assert.ok(managers.m1.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'], 'containers by name');

      // An update with a stale resourceVersion is refused as the apiserver words it.
      const stale = (await getJson(env, '/apis/apps/v1/namespaces/default/deployments/web')) as any;
      await ok(env, ['label', 'deployment', 'web', 'tier=front']);
      stale.metadata.labels = { changed: 'yes' };
      const replaced = await kubectl(env, ['replace', '-f', manifest(env, 'stale.json', JSON.stringify(stale))]);
      assert.equal(replaced.code, 1);
      assert.match(
        replaced.stderr,
        /Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again/,
      );
      const scale = {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'web', namespace: 'default', resourceVersion: '1' },
        spec: { replicas: 3 },
      };
      const scaled = await api(env, 'PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', { body: JSON.stringify(scale) });
      assert.equal(scaled.status, 409, scaled.text);
      assert.equal(scaled.json.reason, 'Conflict');
      const labelled = await getJson(env, '/apis/apps/v1/namespaces/default/deployments/web');
      assert.ok(labelled.metadata.managedFields.some((m: any) => m.manager === 'kubectl-label' && m.operation === 'Update'));
      assert.equal(labelled.metadata.generation, applied.metadata.generation, 'a metadata write keeps the generation');

      // A dry run stores nothing.
      assert.match(await ok(env, ['create', 'configmap', 'dry', '--dry-run=server']), /configmap\/dry created \(server dry run\)/);
      assert.equal(await getJson(env, '/api/v1/namespaces/default/configmaps/dry'), undefined);

      // Foreground deletion waits for the ReplicaSets and their pods; orphan keeps them without their owner.
      await eventually(async () => (await getJson(env, '/api/v1/namespaces/default/pods'))?.items?.length === 2, 20_000, 'two pods');
      await ok(env, ['delete', 'deployment', 'web', '--cascade=foreground', '--timeout=30s']);
      assert.equal((await getJson(env, '/apis/apps/v1/namespaces/default/replicasets')).items.length, 0);
      assert.equal((await getJson(env, '/api/v1/namespaces/default/pods')).items.length, 0);
      await ok(env, ['create', 'deployment', 'kept', '--image=nginx']);
      await eventually(async () => (await getJson(env, '/apis/apps/v1/namespaces/default/replicasets'))?.items?.length === 1, 10_000, 'a ReplicaSet');
      await ok(env, ['delete', 'deployment', 'kept', '--cascade=orphan']);
      const orphaned = (await getJson(env, '/apis/apps/v1/namespaces/default/replicasets')).items;
      assert.equal(orphaned.length, 1);
      assert.equal(orphaned[0].metadata.ownerReferences, undefined);

      // DELETE's options: preconditions, dry runs and policies are checked as the apiserver checks them.
      await ok(env, ['create', 'configmap', 'opts', '--from-literal=a=b']);
      const cm = await getJson(env, '/api/v1/namespaces/default/configmaps/opts');
      const del = (options: object, query = '') => {
        // Node sends a DELETE's body unframed unless told its length.
        const body = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...options });
        return api(env, 'DELETE', `/api/v1/namespaces/default/configmaps/opts${query}`, {
          body,
          headers: { 'content-length': String(Buffer.byteLength(body)) },
        });
      };
      const wrongUid = await del({ preconditions: { uid: 'nope' } });
      assert.equal(wrongUid.status, 409, wrongUid.text);
      assert.equal(
        wrongUid.json.message,
        `Operation cannot be fulfilled on configmaps "opts": Precondition failed: UID in precondition: nope, UID in object meta: ${cm.metadata.uid}`,
      );
      const badPolicy = await del({ propagationPolicy: 'Sideways' });
      assert.equal(badPolicy.status, 422, badPolicy.text);
      assert.match(badPolicy.json.message, /propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"/);
      assert.equal((await del({}, '?dryRun=All')).status, 200);
      assert.ok(await getJson(env, '/api/v1/namespaces/default/configmaps/opts'), 'a dry-run delete keeps it');
      assert.equal((await del({ preconditions: { resourceVersion: cm.metadata.resourceVersion } })).status, 200);
      assert.equal(await getJson(env, '/api/v1/namespaces/default/configmaps/opts'), undefined);

      // kubectl moves a client-side applied object to server-side apply (it rewrites managedFields): no conflict.
      const cfg = (v: string) => manifest(env, `cfg-${v}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  k: ${v}\n`);
      await ok(env, ['apply', '-f', cfg('one')]);
      await ok(env, ['apply', '--server-side', '-f', cfg('two')]);
      const moved = await getJson(env, '/api/v1/namespaces/default/configmaps/cfg');
      assert.equal(moved.data.k, 'two');
      assert.ok(
        moved.metadata.managedFields.some((m: any) => m.manager === 'kubectl' && m.operation === 'Apply'),
        JSON.stringify(moved.metadata.managedFields),
      );

      // Client-side apply keeps the whole object in an annotation: past 256 KiB the apiserver refuses it.
      const big = manifest(env, 'big.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: ${'x'.repeat(300 * 1024)}\n`);
      const tooLong = await kubectl(env, ['apply', '-f', big]);
      assert.equal(tooLong.code, 1);
      assert.match(tooLong.stderr, /metadata.annotations: Too long: must have at most 262144 bytes/);
      await ok(env, ['create', '-f', big]);
      const again = await kubectl(env, ['apply', '-f', big]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /metadata.annotations: Too long: must have at most 262144 bytes/);
    }));
});
