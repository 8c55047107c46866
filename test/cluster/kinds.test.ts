// The kind table (docs/architecture.md §7) agrees with the served resources: every kind that serves a scale
// subresource has the view behind it, and only kinds that serve status hand it to the controllers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { behaviourOf, behaviourOfKey, kindNamed } from '../../src/cluster/apiserver/kinds.js';
import { NODES, RESOURCES, resourceKey } from '../../src/cluster/apimachinery/resources.js';

test('each served kind has a behaviour that matches its subresources', () => {
  for (const r of RESOURCES) {
    const b = behaviourOf(r);
    const subresources = r.subresources ?? [];
    assert.equal(subresources.includes('scale'), b.scale !== undefined, `${r.kind}: scale subresource and view`);
    if (b.controllerStatus) assert.ok(subresources.includes('status'), `${r.kind}: controllers own a status it serves`);
    assert.equal(behaviourOfKey(resourceKey(r)), b, `${r.kind} by its storage key`);
    assert.equal(kindNamed(r.kind), b, `${r.kind} by its kind`);
  }
  assert.deepEqual(
    RESOURCES.filter((r) => behaviourOf(r).storage === 'derived'),
    [NODES],
  );
});
