// access.ts against a store with assignments written by the real handlers' storage: inheritance from
// parent scopes, wildcards, NotActions, other principals.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, test } from 'node:test';
import { actionMatches } from '../../src/providers/authorization/actions.js';
import { effectiveActions, hasPermission } from '../../src/providers/authorization/access.js';
import { CONTRIBUTOR, NETWORK_CONTRIBUTOR, READER } from '../../src/providers/authorization/builtInRoles.js';
import { putAssignment, ROLE_ASSIGNMENT_TYPE } from '../../src/providers/authorization/roleAssignmentStore.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';

const SUB = '/subscriptions/00000000-0000-0000-0000-000000000001';
const RG = `${SUB}/resourceGroups/rg`;
const SUBNET = `${RG}/providers/Microsoft.Network/virtualNetworks/v/subnets/s`;
const ROUTE_TABLE = `${RG}/providers/Microsoft.Network/routeTables/rt`;
const JOIN = 'Microsoft.Network/virtualNetworks/subnets/join/action';
const READ = 'Microsoft.Network/virtualNetworks/subnets/read';

function assign(store: Store, principalId: string, role: string, scope: string): void {
  const name = randomUUID();
  const now = new Date().toISOString();
  putAssignment(store, {
    id: `${scope}/providers/Microsoft.Authorization/roleAssignments/${name}`,
    name,
    type: ROLE_ASSIGNMENT_TYPE,
    properties: {
      roleDefinitionId: `${SUB}/providers/Microsoft.Authorization/roleDefinitions/${role}`,
      principalId,
      principalType: 'ServicePrincipal',
      scope,
      condition: null,
      conditionVersion: null,
      description: null,
      delegatedManagedIdentityResourceId: null,
      createdOn: now,
      updatedOn: now,
      createdBy: null,
      updatedBy: null,
    },
  });
}

describe('access', () => {
  let store: Store;
  const identity = randomUUID();
  const stranger = randomUUID();

  beforeEach(() => {
    store = new SqliteStore(':memory:');
  });

  test('wildcard matching as ARM does it', () => {
    assert.ok(actionMatches('*', JOIN));
    assert.ok(actionMatches('Microsoft.Network/*', JOIN));
    assert.ok(actionMatches('*/read', READ));
    assert.ok(actionMatches('Microsoft.Authorization/*/Write', 'microsoft.authorization/roleAssignments/write'));
    assert.ok(!actionMatches('Microsoft.Network/*', 'Microsoft.NetworkX/foo/read'.replace('X', 'Function')));
    assert.ok(!actionMatches('*/read', JOIN));
    // Without a RegExp (issue 25): metacharacters are plain characters, many stars stay fast.
    assert.ok(actionMatches('a.b(c)+[d]', 'A.B(C)+[D]'));
    assert.ok(!actionMatches('a.b', 'axb'));
    assert.ok(actionMatches('**a*', 'xxa'));
    assert.ok(!actionMatches('a*b*c', 'a-c-b'));
    const started = performance.now();
    assert.ok(!actionMatches(`${'*a'.repeat(2000)}*b`, 'a'.repeat(20_000)));
    assert.ok(performance.now() - started < 2000);
  });

  test('Network Contributor on the group reaches the subnet below it; nobody else gets anything', () => {
    assign(store, identity, NETWORK_CONTRIBUTOR, RG);
    assert.equal(hasPermission(store, identity, SUBNET, JOIN), true);
    assert.equal(hasPermission(store, identity.toUpperCase(), SUBNET.toLowerCase(), READ), true);
    assert.equal(hasPermission(store, identity, ROUTE_TABLE, 'Microsoft.Network/routeTables/join/action'), true);
    assert.equal(hasPermission(store, identity, SUBNET, 'Microsoft.Compute/virtualMachineScaleSets/write'), false);
    assert.equal(hasPermission(store, stranger, SUBNET, JOIN), false);
    // An assignment below the scope asked about does not count.
    assign(store, stranger, NETWORK_CONTRIBUTOR, SUBNET);
    assert.equal(hasPermission(store, stranger, RG, 'Microsoft.Network/virtualNetworks/write'), false);
    assert.equal(hasPermission(store, stranger, SUBNET, JOIN), true);

    const actions = effectiveActions(store, identity, SUBNET);
    assert.ok(actions.includes(JOIN));
    assert.ok(actions.includes(READ));
    assert.ok(actions.includes('Microsoft.Network/routeTables/join/action'));
    assert.ok(!actions.some((a) => a.startsWith('Microsoft.ContainerService/')));
    assert.deepEqual(effectiveActions(store, randomUUID(), SUBNET), []);
  });

  test('Reader reads only; Contributor does everything but write role assignments', () => {
    assign(store, identity, READER, SUB);
    assert.equal(hasPermission(store, identity, SUBNET, READ), true);
    assert.equal(hasPermission(store, identity, SUBNET, JOIN), false);
    assert.deepEqual(
      effectiveActions(store, identity, SUBNET).filter((a) => !a.endsWith('/read')),
      [],
    );

    assign(store, stranger, CONTRIBUTOR, SUB);
    assert.equal(hasPermission(store, stranger, SUBNET, JOIN), true);
    assert.equal(hasPermission(store, stranger, SUBNET, 'Microsoft.Authorization/roleAssignments/write'), false);
    assert.equal(hasPermission(store, stranger, SUBNET, 'Microsoft.Authorization/roleAssignments/read'), true);
    assert.ok(!effectiveActions(store, stranger, SUBNET).includes('Microsoft.Authorization/roleAssignments/write'));
  });
});
