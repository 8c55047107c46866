// The body check: ARM's case-insensitive member names, strict unknown members, loose dropping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArmError } from '../../src/arm/errors.js';
import { checkBody, parseJsonBody, s } from '../../src/arm/schema.js';

const model = s.object('Thing', {
  location: s.string(),
  count: s.integer(),
  tags: s.map(s.string()),
  properties: s.object('ThingProperties', { items: s.array(s.object('Item', { name: s.string() })) }),
});

function armError(fn: () => unknown): ArmError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ArmError);
    return err;
  }
  assert.fail('expected an ArmError');
}

test('member names match case-insensitively and come out in the model casing', () => {
  assert.deepEqual(checkBody(model, { Location: 'eastus', TAGS: { Any: 'x' } }, true), { location: 'eastus', tags: { Any: 'x' } });
});

test('null means not given', () => {
  assert.deepEqual(checkBody(model, { location: null, tags: null }, true), { location: null, tags: null });
});

test('strict: every unknown member is named, with its path and model', () => {
  const err = armError(() => checkBody(model, { location: 'x', extra: 1, properties: { items: [{ name: 'a', bogus: true }], more: 2 } }, true));
  assert.equal(err.status, 400);
  assert.equal(err.code, 'InvalidRequestContent');
  assert.deepEqual(
    err.details?.map((d) => d.target),
    ['extra', 'properties.items[0].bogus', 'properties.more'],
  );
  assert.match(err.message, /Could not find member 'extra' on object of type 'Thing'\. Path 'extra'\./);
  assert.match(err.message, /Could not find member 'bogus' on object of type 'Item'\. Path 'properties\.items\[0\]\.bogus'\./);
  assert.match(err.message, /--loose/);
});

test('loose: unknown members are dropped', () => {
  assert.deepEqual(checkBody(model, { location: 'x', extra: 1, properties: { items: [{ name: 'a', bogus: 1 }] } }, false), {
    location: 'x',
    properties: { items: [{ name: 'a' }] },
  });
});

test('a wrong type is a deserialization error in either mode', () => {
  for (const strict of [true, false]) {
    const err = armError(() => checkBody(model, { count: 1.5 }, strict));
    assert.equal(err.code, 'InvalidRequestContent');
    assert.equal(err.target, 'count');
    assert.match(err.message, /Error converting value 1\.5 to type 'System\.Int32'\. Path 'count'/);
  }
  assert.equal(armError(() => checkBody(model, [], true)).code, 'InvalidRequestContent');
});

test('malformed JSON is InvalidRequestContent', () => {
  const err = armError(() => parseJsonBody('{"a":'));
  assert.equal(err.status, 400);
  assert.match(err.message, /^The request content was invalid and could not be deserialized: '/);
});
