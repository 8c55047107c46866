// The body check: ARM's case-insensitive member names, strict unknown members, loose dropping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArmError, unknownMembers } from '../../src/arm/errors.js';
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
  assert.deepEqual(checkBody(model, { Location: 'eastus', TAGS: { Any: 'x' } }, unknownMembers), { location: 'eastus', tags: { Any: 'x' } });
});

test('null means not given', () => {
  assert.deepEqual(checkBody(model, { location: null, tags: null }, unknownMembers), { location: null, tags: null });
});

test('strict: every unknown member is named, with its path and model', () => {
  const err = armError(() => checkBody(model, { location: 'x', extra: 1, properties: { items: [{ name: 'a', bogus: true }], more: 2 } }, unknownMembers));
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

test('a refusal of its own gets the unknown members in document order, each with its name as sent', () => {
  let seen: unknown;
  const refuse = (members: readonly { member: string; path: string }[]) => {
    seen = members.map((m) => [m.member, m.path]);
    return new ArmError(400, 'UnmarshalError', 'first');
  };
  assert.equal(armError(() => checkBody(model, { properties: { items: [{ 'a.b': 1 }] }, zz: 2 }, refuse)).code, 'UnmarshalError');
  assert.deepEqual(seen, [
    ['a.b', 'properties.items[0].a.b'],
    ['zz', 'zz'],
  ]);
});

test('without a refusal (--loose, or a service that ignores them): unknown members are dropped', () => {
  assert.deepEqual(checkBody(model, { location: 'x', extra: 1, properties: { items: [{ name: 'a', bogus: 1 }] } }, undefined), {
    location: 'x',
    properties: { items: [{ name: 'a' }] },
  });
});

test('a wrong type is a deserialization error in either mode', () => {
  for (const refuse of [unknownMembers, undefined]) {
    const err = armError(() => checkBody(model, { count: 1.5 }, refuse));
    assert.equal(err.code, 'InvalidRequestContent');
    assert.equal(err.target, 'count');
    assert.match(err.message, /Error converting value 1\.5 to type 'System\.Int32'\. Path 'count'/);
  }
  assert.equal(armError(() => checkBody(model, [], unknownMembers)).code, 'InvalidRequestContent');
});

test('malformed JSON is InvalidRequestContent', () => {
  const err = armError(() => parseJsonBody('{"a":'));
  assert.equal(err.status, 400);
  assert.match(err.message, /^The request content was invalid and could not be deserialized: '/);
});
