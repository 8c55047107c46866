// Server-side apply's field sets and merge, without a server: FieldsV1 as the apiserver writes it (list items
// by their keys, set lists by value), conflicts worded as the apiserver words them, force, fields released when
// a manager stops applying them, and Update entries taking the fields they change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverSideApply } from '../../src/cluster/apiserver/apply/apply.js';
import { FieldSet, fieldsOf, pathString } from '../../src/cluster/apiserver/apply/field-set.js';
import { recordUpdate } from '../../src/cluster/apiserver/apply/managed-fields.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { KubeError } from '../../src/cluster/apimachinery/status.js';

type Obj = any;

function deployment(spec: Obj, labels: Record<string, string> = {}): Obj {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels }, spec };
}

const POD_SPEC = {
  containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }],
};

function managers(obj: Obj): Record<string, Obj> {
  return Object.fromEntries((obj.metadata.managedFields ?? []).map((m: Obj) => [m.manager, m]));
}

function conflictOf(fn: () => unknown): KubeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof KubeError) return e;
    throw e;
  }
  assert.fail('no conflict');
}

test('FieldsV1: list items by their keys (ports by containerPort and the defaulted protocol), set lists by value, leaves as {}', () => {
  const obj = deployment({ replicas: 1, template: { spec: POD_SPEC } }, { app: 'web' });
  obj.metadata.finalizers = ['example.com/a'];
  const v1 = fieldsOf(obj).toFieldsV1() as Obj;
  assert.deepEqual(v1['f:metadata'], { 'f:labels': { 'f:app': {} }, 'f:finalizers': { 'v:"example.com/a"': {} } });
  const container = v1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'];
  assert.deepEqual(container['.'], {});
  assert.deepEqual(container['f:image'], {});
  assert.deepEqual(container['f:ports']['k:{"containerPort":80,"protocol":"TCP"}'], { '.': {}, 'f:containerPort': {} });
  assert.deepEqual(container['f:env']['k:{"name":"A"}'], { '.': {}, 'f:name': {}, 'f:value': {} });
  assert.deepEqual(v1['f:spec']['f:replicas'], {});
  assert.equal(FieldSet.fromFieldsV1(v1).size, fieldsOf(obj).size, 'FieldsV1 reads back as the same set');
  assert.equal(
    pathString(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image']),
    '.spec.template.spec.containers[name="web"].image',
  );
  assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"x"']), '.metadata.finalizers[="x"]');
});

test('apply: the same value is shared, another is a conflict worded as the apiserver words it; force takes the fields', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const live = serverSideApply(undefined, deployment({ replicas: 1, paused: false }), {
    manager: 'm1',
    apiVersion: 'apps/v1',
    force: false,
    now,
  }) as KubeObject;
  assert.equal(managers(live).m1.operation, 'Apply');
  assert.equal(managers(live).m1.time, '2026-01-01T00:00:00Z');
  const shared = serverSideApply(live, deployment({ replicas: 1 }), { manager: 'm2', apiVersion: 'apps/v1', force: false, now });
  assert.ok(managers(shared).m1.fieldsV1['f:spec']['f:replicas'] && managers(shared).m2.fieldsV1['f:spec']['f:replicas'], 'both own replicas');
  const one = conflictOf(() => serverSideApply(live, deployment({ replicas: 2 }), { manager: 'm2', apiVersion: 'apps/v1', force: false, now }));
  assert.equal(one.code, 409);
  assert.equal(one.reason, 'Conflict');
  assert.equal(one.message, 'Apply failed with 1 conflict: conflict with "m1": .spec.replicas');
  assert.deepEqual(one.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.spec.replicas' }]);
  const two = conflictOf(() => serverSideApply(live, deployment({ replicas: 2, paused: true }), { manager: 'm2', apiVersion: 'apps/v1', force: false, now }));
  assert.equal(two.message, 'Apply failed with 2 conflicts: conflicts with "m1":\n- .spec.replicas\n- .spec.paused');
  const forced = serverSideApply(live, deployment({ replicas: 2 }), { manager: 'm2', apiVersion: 'apps/v1', force: true, now }) as Obj;
  assert.equal(forced.spec.replicas, 2);
  assert.equal(managers(forced).m1.fieldsV1['f:spec']['f:replicas'], undefined);
  assert.deepEqual(managers(forced).m2.fieldsV1['f:spec']['f:replicas'], {});
  // An Update manager is named with its apiVersion.
  const updated = structuredClone(live) as Obj;
  updated.spec.replicas = 5;
  recordUpdate(live, updated, { manager: 'kubectl-scale', apiVersion: 'apps/v1', now });
  const byUpdate = conflictOf(() => serverSideApply(updated, deployment({ replicas: 3 }), { manager: 'm1', apiVersion: 'apps/v1', force: false, now }));
  assert.equal(byUpdate.message, 'Apply failed with 1 conflict: conflict with "kubectl-scale" using apps/v1: .spec.replicas');
});

test('apply: fields a manager stops applying go unless another owns them; list items merge by key', () => {
  const req = (manager: string) => ({ manager, apiVersion: 'apps/v1', force: false });
  let live = serverSideApply(undefined, deployment({ template: { spec: POD_SPEC } }, { a: '1', b: '2' }), req('m1')) as Obj;
  live = serverSideApply(live, deployment({}, { a: '1' }), req('m1')) as Obj;
  assert.deepEqual(live.metadata.labels, { a: '1' }, 'b released and removed');
  assert.equal((live.spec.template?.spec?.containers ?? []).length, 0, 'the containers m1 no longer applies are gone');
  live = serverSideApply(live, deployment({}, { a: '1', c: '3' }), req('m2')) as Obj;
  live = serverSideApply(live, deployment({}, { c: '3' }), req('m1')) as Obj;
  assert.deepEqual(live.metadata.labels, { a: '1', c: '3' }, 'a stays: m2 owns it');
  const sidecar = { containers: [{ name: 'side', image: 'busybox' }] };
  live = serverSideApply(live, deployment({ template: { spec: POD_SPEC } }, { c: '3' }), req('m1')) as Obj;
  live = serverSideApply(live, deployment({ template: { spec: sidecar } }, { a: '1', c: '3' }), req('m2')) as Obj;
  assert.deepEqual(
    live.spec.template.spec.containers.map((c: Obj) => c.name),
    ['web', 'side'],
  );
});

test('update: a create owns everything it set; an update takes the fields it changed from the others', () => {
  const created = deployment({ replicas: 1, paused: false }) as KubeObject;
  recordUpdate(undefined, created, { manager: 'kubectl-create', apiVersion: 'apps/v1' });
  const m = managers(created);
  assert.equal(m['kubectl-create'].operation, 'Update');
  assert.deepEqual(m['kubectl-create'].fieldsV1['f:spec'], { 'f:replicas': {}, 'f:paused': {} });
  const scaled = structuredClone(created) as Obj;
  scaled.spec.replicas = 3;
  recordUpdate(created, scaled, { manager: 'kubectl-scale', apiVersion: 'apps/v1' });
  const after = managers(scaled);
  assert.deepEqual(after['kubectl-create'].fieldsV1['f:spec'], { 'f:paused': {} });
  assert.deepEqual(after['kubectl-scale'].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  const same = structuredClone(scaled) as Obj;
  recordUpdate(scaled, same, { manager: 'noop', apiVersion: 'apps/v1' });
  assert.equal(managers(same).noop, undefined, 'a write that changes nothing adds no entry');
});

test('apply and update stay linear in the size of the object (a 20,000-item list applied, then dropped)', () => {
  const env = Array.from({ length: 20_000 }, (_, i) => ({ name: `V${i}`, value: String(i) }));
  const spec = (e: Obj[]) => ({ template: { spec: { containers: [{ name: 'web', image: 'nginx', env: e }] } } });
  const t0 = Date.now();
  const live = serverSideApply(undefined, deployment(spec(env)), { manager: 'm1', apiVersion: 'apps/v1', force: false }) as Obj;
  const changed = structuredClone(live) as Obj;
  changed.spec.template.spec.containers[0].env[5].value = 'changed';
  recordUpdate(live, changed, { manager: 'editor', apiVersion: 'apps/v1' });
  const dropped = serverSideApply(changed, deployment(spec([])), { manager: 'm1', apiVersion: 'apps/v1', force: false }) as Obj;
  assert.deepEqual(
    dropped.spec.template.spec.containers[0].env.map((e: Obj) => e.name),
    ['V5'],
    'only the item another manager owns a field of stays',
  );
  // Linear work is a second or two on a loaded machine; a walk per item (quadratic) would take minutes.
  assert.ok(Date.now() - t0 < 20_000, `${Date.now() - t0} ms`);
});
