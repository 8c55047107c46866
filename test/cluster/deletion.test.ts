// DELETE as the generic registry does it, on any kind, without a server: finalizers hold a marked object until
// the last one goes; a propagation policy replaces the garbage collector's finalizers with its own, also on an
// object already marked; no policy keeps what the object has.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { CONFIGMAPS } from '../../src/cluster/apimachinery/resources.js';
import { deleteObject, finalizersOf, removeFinalizer } from '../../src/cluster/apiserver/deletion.js';

function stored(objects: ObjectStore, finalizers: string[]) {
  return objects.put(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', finalizers } });
}

test('finalizers hold a deleted object; policies swap the garbage collector finalizers; the last finalizer removed deletes it', () => {
  const objects = new ObjectStore();
  const first = deleteObject(objects, CONFIGMAPS, stored(objects, ['example.com/x']), { propagationPolicy: 'Background' });
  assert.equal(first.removed, false);
  assert.ok(first.object.metadata.deletionTimestamp);
  assert.equal(first.object.metadata.deletionGracePeriodSeconds, 0);
  const foreground = deleteObject(objects, CONFIGMAPS, first.object, { propagationPolicy: 'Foreground' });
  assert.deepEqual(finalizersOf(foreground.object), ['example.com/x', 'foregroundDeletion']);
  assert.equal(foreground.object.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp, 'the mark stays as it was');
  const orphan = deleteObject(objects, CONFIGMAPS, foreground.object, { propagationPolicy: 'Orphan' });
  assert.deepEqual(finalizersOf(orphan.object), ['example.com/x', 'orphan']);
  const none = deleteObject(objects, CONFIGMAPS, orphan.object);
  assert.deepEqual(finalizersOf(none.object), ['example.com/x', 'orphan'], 'no policy keeps them');
  const background = deleteObject(objects, CONFIGMAPS, none.object, { propagationPolicy: 'Background' });
  assert.deepEqual(finalizersOf(background.object), ['example.com/x']);
  removeFinalizer(objects, CONFIGMAPS, background.object, 'example.com/x');
  assert.equal(objects.get(CONFIGMAPS, 'default', 'c'), undefined, 'gone with its last finalizer');
  const plain = deleteObject(objects, CONFIGMAPS, stored(objects, []));
  assert.equal(plain.removed, true);
  assert.equal(objects.get(CONFIGMAPS, 'default', 'c'), undefined);
});
