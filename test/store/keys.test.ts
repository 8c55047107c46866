// The store's internal key families (src/store/keys.ts): the store lists and deletes by prefix, comparing keys
// without case, so no family may begin another, and none may look like an ARM id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as keys from '../../src/store/keys.js';

test('store keys: no internal key family begins another, and none is an ARM id', () => {
  const all = Object.entries(keys);
  assert.ok(all.length > 0);
  for (const [name, key] of all) {
    assert.ok(key.startsWith('aksemu:'), `${name} (${key}) is not under aksemu:`);
    for (const [other, otherKey] of all) {
      if (other === name) continue;
      assert.ok(!otherKey.toLowerCase().startsWith(key.toLowerCase()), `${other} (${otherKey}) begins with ${name} (${key})`);
    }
  }
});
