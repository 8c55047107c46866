// The in-process API the deployment engine uses: invokeRoute() (route matching, api-version and
// strict body checks without HTTP) and Lro.immediate() (an operation's work runs inside the
// caller's transaction, so a failure rolls back everything the caller did).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ArmError } from '../../src/arm/errors.js';
import { loadOrCreateIdentity, type Identity } from '../../src/arm/identity.js';
import { invokeRoute, type InProcessCaller } from '../../src/arm/invoke.js';
import { Lro } from '../../src/arm/lro.js';
import { Registry } from '../../src/arm/registry.js';
import { defaultProviders } from '../../src/providers/index.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { removeHome, tempHome } from '../e2e/harness.js';
import { widgetsProvider } from './widgets.js';

describe('invokeRoute and Lro.immediate', () => {
  let home: string;
  let store: SqliteStore;
  let registry: Registry;
  let lro: Lro;
  let identity: Identity;
  let caller: InProcessCaller;
  const widget = (name: string) => `/subscriptions/${identity.subscriptionId}/resourceGroups/rg/providers/Test.Widgets/widgets/${name}`;

  beforeEach(() => {
    home = tempHome();
    store = new SqliteStore(join(home, 'state.db'));
    registry = new Registry();
    for (const p of [...defaultProviders(), widgetsProvider()]) registry.add(p);
    lro = new Lro(store, registry, { delayMs: 60_000, log: () => {} });
    identity = loadOrCreateIdentity(store);
    caller = {
      registry,
      store,
      lro: lro.immediate(),
      identity,
      principal: { appId: 'a', objectId: 'o', tenantId: identity.tenantId },
      baseUrl: 'https://127.0.0.1:1',
      loose: false,
      strict: false,
      requestId: 'r',
    };
    invokeRoute(caller, {
      method: 'PUT',
      path: `/subscriptions/${identity.subscriptionId}/resourcegroups/rg`,
      apiVersion: '2021-04-01',
      body: { location: 'eastus' },
    });
  });
  afterEach(() => {
    lro.close();
    store.close();
    removeHome(home);
  });

  test('a PUT through invokeRoute with an immediate engine finishes its operation before returning', () => {
    const res = invokeRoute(caller, { method: 'PUT', path: widget('w1'), apiVersion: '2023-01-01', body: { location: 'eastus', properties: { size: 2 } } });
    assert.equal(res.status, 201);
    assert.match(String(res.headers?.['Azure-AsyncOperation']), /\/providers\/Test\.Widgets\/locations\/eastus\/operations\//);
    const got = invokeRoute(caller, { method: 'GET', path: widget('w1'), apiVersion: '2023-01-01' });
    assert.equal((got.body as any).properties.provisioningState, 'Succeeded');
    const opId = String(res.headers?.['Azure-AsyncOperation']).split('/operations/')[1]!.split('?')[0]!;
    assert.equal(lro.get(opId)?.status, 'Succeeded');
  });

  test('the normal engine still only records the operation (the timer runs it later)', () => {
    const res = invokeRoute({ ...caller, lro }, { method: 'PUT', path: widget('w2'), apiVersion: '2023-01-01', body: { location: 'eastus' } });
    const opId = String(res.headers?.['Azure-AsyncOperation']).split('/operations/')[1]!.split('?')[0]!;
    assert.equal(lro.get(opId)?.status, 'InProgress');
    assert.equal((store.get(widget('w2')) as any).properties.provisioningState, 'Creating');
  });

  test('the same checks as a request: strict body, api-version, unknown resource type', () => {
    assert.throws(
      () => invokeRoute(caller, { method: 'PUT', path: widget('w3'), apiVersion: '2023-01-01', body: { location: 'eastus', colour: 'red' } }),
      (e: unknown) => e instanceof ArmError && e.code === 'InvalidRequestContent' && /Could not find member 'colour'/.test(e.message),
    );
    assert.throws(
      () => invokeRoute(caller, { method: 'GET', path: widget('w3'), apiVersion: '2001-01-01' }),
      (e: unknown) => e instanceof ArmError && e.code === 'NoRegisteredProviderFound',
    );
    assert.throws(
      () =>
        invokeRoute(caller, {
          method: 'GET',
          path: `/subscriptions/${identity.subscriptionId}/resourceGroups/rg/providers/Test.Widgets/gadgets/g`,
          apiVersion: '2023-01-01',
        }),
      (e: unknown) => e instanceof ArmError && e.code === 'InvalidResourceType',
    );
    assert.equal(
      invokeRoute({ ...caller, loose: true }, { method: 'PUT', path: widget('w3'), apiVersion: '2023-01-01', body: { location: 'eastus', colour: 'red' } })
        .status,
      201,
    );
  });

  test('a body built in process is held to the depth limit (no text to scan), and names stay checked', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.throws(
      () => invokeRoute(caller, { method: 'PUT', path: widget('deep'), apiVersion: '2023-01-01', body: { location: 'eastus', properties: { size: deep } } }),
      (e: unknown) =>
        e instanceof ArmError &&
        e.code === 'InvalidRequestContent' &&
        e.message.endsWith(`MaxDepth of 64 has been exceeded. Path 'properties.size${'[0]'.repeat(62)}'.'.`),
    );
    assert.throws(
      () => invokeRoute(caller, { method: 'PUT', path: widget('a%2Fb'), apiVersion: '2023-01-01', body: { location: 'eastus' } }),
      (e: unknown) => e instanceof ArmError && e.code === 'InvalidResourceName',
    );
    assert.equal(store.get(widget('deep')), undefined);
  });

  test("a failing operation throws its ArmError and rolls back the caller's whole transaction", () => {
    assert.throws(
      () =>
        store.transaction(() => {
          invokeRoute(caller, { method: 'PUT', path: widget('ok'), apiVersion: '2023-01-01', body: { location: 'eastus' } });
          invokeRoute(caller, { method: 'PUT', path: widget('broken'), apiVersion: '2023-01-01', body: { location: 'eastus', properties: { fail: true } } });
        }),
      (e: unknown) => e instanceof ArmError && e.code === 'WidgetBroken',
    );
    assert.equal(store.get(widget('ok')), undefined);
    assert.equal(store.get(widget('broken')), undefined);
    assert.deepEqual(
      store.list('aksemu:operations/').filter((e) => (e.value as any).resourceId.includes('/widgets/')),
      [],
    );
  });
});
