// Route matching: case-insensitive literals, ignored empty segments, literal beats parameter, 405.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Provider, Route } from '../../src/arm/provider.js';
import { Registry, splitPath } from '../../src/arm/registry.js';

function route(method: Route['method'], path: string, name: string): Route {
  return { method, path, handle: () => ({ status: 200, body: name }) };
}

function registry(): Registry {
  const provider: Provider = {
    namespace: 'Test.Space',
    apiVersions: ['2022-01-01'],
    routes: [
      route('GET', '/subscriptions/{subscriptionId}/providers/{ns}/locations/{location}/operations/{id}', 'generic'),
      route('GET', '/subscriptions/{subscriptionId}/providers/Test.Space/locations/{location}/operations/{id}', 'specific'),
      route('PUT', '/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}', 'put-group'),
    ],
  };
  const r = new Registry();
  r.add(provider);
  return r;
}

test('splitPath drops empty segments and decodes each one', () => {
  assert.deepEqual(splitPath('//a/b%20c//d/'), ['a', 'b c', 'd']);
  assert.deepEqual(splitPath('/bad%zz'), ['bad%zz']);
});

test('literal segments match case-insensitively; parameters keep the request casing', () => {
  const match = registry().match('PUT', splitPath('/SUBSCRIPTIONS/Sub1/resourceGroups/MyRG'));
  assert.equal(match.kind, 'route');
  if (match.kind === 'route') assert.deepEqual(match.params, { subscriptionId: 'Sub1', resourceGroupName: 'MyRG' });
});

test('a literal segment beats a parameter', async () => {
  const r = registry();
  const specific = r.match('GET', splitPath('/subscriptions/s/providers/test.space/locations/eastus/operations/1'));
  const generic = r.match('GET', splitPath('/subscriptions/s/providers/Other.Space/locations/eastus/operations/1'));
  assert.ok(specific.kind === 'route' && generic.kind === 'route');
  assert.equal((await specific.route.handle({} as never)).body, 'specific');
  assert.equal((await generic.route.handle({} as never)).body, 'generic');
});

test('a known path with another method is method-not-allowed; an unknown path is none', () => {
  const r = registry();
  assert.equal(r.match('DELETE', splitPath('/subscriptions/s/resourcegroups/g')).kind, 'method-not-allowed');
  assert.equal(r.match('GET', splitPath('/nowhere')).kind, 'none');
});

test('a namespace or operation kind registered twice is a programming error', () => {
  const r = registry();
  assert.throws(() => r.add({ namespace: 'test.space', apiVersions: [], routes: [] }), /registered twice/);
});
