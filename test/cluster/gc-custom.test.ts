// The garbage collector follows ownerReferences to any served kind, custom resources included, with the real
// kubectl: a custom resource that owns a ConfigMap and a Namespace takes them along when it is deleted (the
// Namespace through Terminating, with what it holds), a custom resource owned by a ConfigMap goes with it, and
// one whose owner was deleted while the server was down is collected when it starts again.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { objectsKey } from '../../src/cluster/apiserver/storage/persistence.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { startTestServer } from '../e2e/harness.js';
import { networkClient } from '../network/harness.js';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

/** A namespaced kind, for a custom resource owned by a namespaced object (a cluster-scoped one may not be). */
const GADGETS = {
  ...CRD,
  metadata: { name: 'gadgets.example.com' },
  spec: { ...CRD.spec, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' } },
};

async function apply(env: ClusterEnv, obj: object): Promise<void> {
  const r = await api(env, 'POST', collectionOf(obj as { apiVersion: string; kind: string; metadata: { namespace?: string } }), { body: JSON.stringify(obj) });
  assert.equal(r.status, 201, r.text);
}

function collectionOf(obj: { apiVersion: string; kind: string; metadata: { namespace?: string } }): string {
  const plural = {
    Widget: 'widgets',
    Gadget: 'gadgets',
    ConfigMap: 'configmaps',
    Namespace: 'namespaces',
    CustomResourceDefinition: 'customresourcedefinitions',
  }[obj.kind]!;
  const base = obj.apiVersion.includes('/') ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
  return `${base}${obj.metadata.namespace ? `/namespaces/${obj.metadata.namespace}` : ''}/${plural}`;
}

async function uid(env: ClusterEnv, path: string): Promise<string> {
  const r = await api(env, 'GET', path);
  assert.equal(r.status, 200, r.text);
  return r.json.metadata.uid;
}

/** Whether the object is gone (false while a connection pooled before a restart is reset). */
const gone = async (env: ClusterEnv, path: string) => (await api(env, 'GET', path).catch(() => ({ status: 0 }))).status === 404;

function ownedBy(apiVersion: string, kind: string, name: string, ownerUid: string) {
  return [{ apiVersion, kind, name, uid: ownerUid, blockOwnerDeletion: true }];
}

describe('garbage collection across served kinds', { skip }, () => {
  test('custom resources own and are owned; a deleted owner takes its dependents, before and across a restart', { timeout: 120_000 }, () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      await apply(env, CRD);
      await apply(env, GADGETS);
      await eventually(async () => (await api(env, 'GET', '/apis/example.com/v1/widgets')).status === 200, 10_000, 'the CRD Established');
      await eventually(async () => (await api(env, 'GET', '/apis/example.com/v1/gadgets')).status === 200, 10_000, 'the CRD Established');
      await apply(env, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'owner' } });
      const owner = await uid(env, '/apis/example.com/v1/widgets/owner');
      const ref = ownedBy('example.com/v1', 'Widget', 'owner', owner);
      await apply(env, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'widget-system', ownerReferences: ref } });
      await apply(env, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', namespace: 'default', ownerReferences: ref } });
      await apply(env, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inside', namespace: 'widget-system' } });
      await apply(env, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bystander', namespace: 'default' } });
      // A custom resource as the dependent.
      await apply(env, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'parent', namespace: 'default' } });
      const parent = await uid(env, '/api/v1/namespaces/default/configmaps/parent');
      await apply(env, {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'child', namespace: 'default', ownerReferences: ownedBy('v1', 'ConfigMap', 'parent', parent) },
      });

      const del = await kubectl(env, ['delete', 'widget', 'owner']);
      assert.equal(del.code, 0, del.stderr);
      await eventually(() => gone(env, '/api/v1/namespaces/default/configmaps/owned'), 10_000, 'the owned ConfigMap collected');
      await eventually(() => gone(env, '/api/v1/namespaces/widget-system'), 20_000, 'the owned Namespace collected');
      assert.ok(await gone(env, '/api/v1/namespaces/widget-system/configmaps/inside'), 'what the Namespace held went with it');
      assert.equal((await api(env, 'GET', '/api/v1/namespaces/default/configmaps/bystander')).status, 200, 'an object owned by nothing stays');

      const delParent = await kubectl(env, ['delete', 'configmap', 'parent']);
      assert.equal(delParent.code, 0, delParent.stderr);
      await eventually(() => gone(env, '/apis/example.com/v1/namespaces/default/gadgets/child'), 10_000, 'the owned Gadget collected');

      // An owner deleted while the server is down (its stored entry removed): its dependent goes at the next start.
      await apply(env, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'again' } });
      const again = await uid(env, '/apis/example.com/v1/widgets/again');
      await apply(env, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'orphaned', namespace: 'default', ownerReferences: ownedBy('example.com/v1', 'Widget', 'again', again) },
      });
      await new Promise((r) => setTimeout(r, 100));
      await env.server.close();
      const store = new SqliteStore(join(env.home, 'state.db'));
      const key = `${objectsKey(env.clusterId)}/example.com/widgets//again`;
      assert.ok(store.get(key), `${key} is stored`);
      store.delete(key);
      store.close();
      env.server = await startTestServer({ home: env.home });
      env.network = networkClient(env.server);
      await eventually(() => gone(env, '/api/v1/namespaces/default/configmaps/orphaned'), 10_000, 'the orphan collected at start');
      assert.equal((await api(env, 'GET', '/api/v1/namespaces/default/configmaps/bystander')).status, 200);
    }),
  );
});
