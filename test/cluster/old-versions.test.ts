// A version before held as what differs from its successor (apiserver/storage/old-versions.ts): read back, it is
// the same object to the byte, its members in the same order, whatever differs and however (docs/performance.md §7.13).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { OldVersion, restore, shrink } from '../../src/cluster/apiserver/storage/old-versions.js';

const spec = { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'REPLICA', value: '7' }] }], tolerations: [] };
const labels = { app: 'web' };
const pod = (rv: string, status: unknown, extra: Record<string, unknown> = {}) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'default', labels, uid: 'u-1', creationTimestamp: '2026-12-07T00:00:00Z', resourceVersion: rv },
    spec,
    status,
    ...extra,
  }) as unknown as KubeObject;

/** shrink() then restore(): the same JSON as before, and whether it was held shrunk. */
function roundTrip(before: KubeObject, after: KubeObject): { json: string; shrunk: boolean } {
  const held = shrink(before, after);
  const back = held instanceof OldVersion ? restore(held, after) : held;
  return { json: JSON.stringify(back), shrunk: held instanceof OldVersion };
}

test("a status write's version before is held as its status and revision, and read back the same to the byte", () => {
  const before = pod('1001', { phase: 'Pending' });
  const after = { ...pod('1050', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] }), spec: before.spec as never };
  (after.metadata as { labels: unknown }).labels = before.metadata.labels;
  const held = shrink(before, after);
  assert.ok(held instanceof OldVersion);
  assert.equal(held.revision, 1001);
  assert.deepEqual(held.own, { phase: 'Pending' });
  const back = restore(held, after);
  assert.equal(JSON.stringify(back), JSON.stringify(before));
  assert.deepEqual(Object.keys(back.metadata), Object.keys(before.metadata));
  // Shared members are the successor's own values, not copies; each read is a new object.
  assert.equal((back as unknown as { spec: unknown }).spec, spec);
  assert.notEqual(restore(held, after), back);
});

test('whatever differs, in whatever order, reads back the same: members added, dropped, reordered, metadata of every form', () => {
  const base = pod('1001', { phase: 'Pending' });
  const cases: [string, KubeObject, KubeObject][] = [
    ['a member the successor dropped', pod('5', { phase: 'Pending' }, { extra: { a: 1 } }), base],
    ['a member the successor added', base, pod('6', base.status, { extra: 1 })],
    ['members in another order', base, { status: base.status, spec, kind: 'Pod', apiVersion: 'v1', metadata: base.metadata } as never],
    ['metadata in another order', base, { ...base, metadata: { resourceVersion: '7', uid: 'u-1', name: 'web-1', namespace: 'default', labels } }],
    ['a resourceVersion that is not a canonical number', pod('0012', 1), base],
    ['a resourceVersion of letters', pod('abc', 1), base],
    ['an empty resourceVersion', pod('', 1), base],
    ['no resourceVersion', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } } as never, base],
    ['metadata that is not an object', { apiVersion: 'v1', kind: 'Pod', metadata: 'x' } as never, base],
    ["the successor's metadata not an object", base, { ...base, metadata: null } as never],
    ['members that are null, empty or undefined', pod('9', null, { a: undefined, b: '', c: [] }), pod('10', null, { a: undefined, b: '' })],
    ['more values of its own than it holds shrunk', pod('11', 1, { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 }), base],
    ['two values of its own', pod('12', 'x', { a: { y: 1 } }), base],
    ['nothing of its own', base, base],
  ];
  for (const [what, before, after] of cases) {
    assert.equal(roundTrip(before, after).json, JSON.stringify(before), what);
  }
  assert.equal(roundTrip(pod('11', 1, { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 }), base).shrunk, false, 'kept whole past six values');
  assert.equal(roundTrip(pod('12', 'x', { a: { y: 1 } }), base).shrunk, true);
});

test('a member named __proto__ is kept whole, and read back as an own member, not as a prototype', () => {
  const before = JSON.parse(
    '{"apiVersion":"v1","kind":"X","metadata":{"name":"a","resourceVersion":"3","__proto__":{"polluted":1}},"__proto__":{"x":1}}',
  ) as KubeObject;
  const after = JSON.parse('{"apiVersion":"v1","kind":"X","metadata":{"name":"a","resourceVersion":"4"}}') as KubeObject;
  const { json, shrunk } = roundTrip(before, after);
  assert.equal(shrunk, false);
  assert.equal(json, JSON.stringify(before));
  assert.equal(({} as { polluted?: unknown; x?: unknown }).polluted, undefined);
});

test('the shapes of many versions written the same way are one, and one of many other shapes each read back', () => {
  const a = shrink(pod('100', { phase: 'Pending' }), pod('101', { phase: 'Running' }));
  const b = shrink(pod('200', { phase: 'Pending' }), pod('201', { phase: 'Running' }));
  assert.ok(a instanceof OldVersion && b instanceof OldVersion);
  assert.equal(a.shape, b.shape);
  // Members a client names: each shape reads back, whether interned or (past the table's bound) kept whole.
  for (let i = 0; i < 1_000; i++) {
    const before = { ...pod(String(i), 1), [`k${i}`]: i } as KubeObject;
    assert.equal(roundTrip(before, pod(String(i + 1), 2)).json, JSON.stringify(before));
  }
});
