// Microsoft.Authorization through the official @azure/arm-authorization SDK against a real server,
// and the exact requests az 2.45 makes around `aks create --vnet-subnet-id` (docs/clients.md §3.4.3).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { AuthorizationManagementClient } from '@azure/arm-authorization';
import { bearer, EmulatorCredential, https } from '../e2e/harness.js';
import { clientOptions, groupId, POLL, resourcesClient, restError, vnetId, withServer, type Env } from '../network/harness.js';

const NETWORK_CONTRIBUTOR = '4d97b98b-1d4f-4787-a291-c67834d212e7';
const READER = 'acdd72a7-3385-48ef-bd42-f606fba81ae7';

function authorization(env: Env): AuthorizationManagementClient {
  return new AuthorizationManagementClient(new EmulatorCredential(env.server), env.sub, clientOptions(env.server));
}

async function subnet(env: Env): Promise<string> {
  await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
    'rg',
    'myVnet',
    { location: 'eastus', addressSpace: { addressPrefixes: ['10.224.0.0/12'] }, subnets: [{ name: 'aks-subnet', addressPrefix: '10.224.0.0/16' }] },
    POLL,
  );
  return `${vnetId(env, 'myVnet')}/subnets/aks-subnet`;
}

describe('role definitions and role assignments through @azure/arm-authorization', () => {
  test('built-in roles: Network Contributor by name filter at a subnet scope, and by id', () =>
    withServer(async (env) => {
      const scope = await subnet(env);
      const client = authorization(env);
      const found = [];
      for await (const r of client.roleDefinitions.list(scope, { filter: "roleName eq 'Network Contributor'" })) found.push(r);
      assert.equal(found.length, 1);
      const nc = found[0]!;
      assert.equal(nc.id, `/subscriptions/${env.sub}/providers/Microsoft.Authorization/roleDefinitions/${NETWORK_CONTRIBUTOR}`);
      assert.equal(nc.name, NETWORK_CONTRIBUTOR);
      assert.equal(nc.type, 'Microsoft.Authorization/roleDefinitions');
      assert.equal(nc.roleName, 'Network Contributor');
      assert.equal(nc.roleType, 'BuiltInRole');
      assert.ok(nc.permissions![0]!.actions!.includes('Microsoft.Network/*'));

      const owner = await client.roleDefinitions.get(`/subscriptions/${env.sub}`, '8e3af657-a8ff-443c-a75c-2fe8c4bcb635');
      assert.equal(owner.roleName, 'Owner');
      const all = [];
      for await (const r of client.roleDefinitions.list(`/subscriptions/${env.sub}`)) all.push(r.roleName);
      for (const name of ['Owner', 'Contributor', 'Reader', 'Network Contributor']) assert.ok(all.includes(name), name);
      const missing = await restError(client.roleDefinitions.get(`/subscriptions/${env.sub}`, randomUUID()));
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.code, 'RoleDefinitionDoesNotExist');
    }));

  test('assignments: create at a subnet, list atScope / below / by principal, duplicates, get, delete', () =>
    withServer(async (env) => {
      const scope = await subnet(env);
      const client = authorization(env);
      const principalId = randomUUID();
      const name = randomUUID();
      const roleDefinitionId = `/subscriptions/${env.sub}/providers/Microsoft.Authorization/roleDefinitions/${NETWORK_CONTRIBUTOR}`;
      const created = await client.roleAssignments.create(scope, name, { roleDefinitionId, principalId, principalType: 'ServicePrincipal' });
      assert.equal(created.id, `${scope}/providers/Microsoft.Authorization/roleAssignments/${name}`);
      assert.equal(created.name, name);
      assert.equal(created.type, 'Microsoft.Authorization/roleAssignments');
      assert.equal(created.scope, scope);
      assert.equal(created.roleDefinitionId, roleDefinitionId);
      assert.equal(created.principalId, principalId);
      assert.equal(created.principalType, 'ServicePrincipal');

      const reader = randomUUID();
      await client.roleAssignments.create(groupId(env), randomUUID(), {
        roleDefinitionId: `/subscriptions/${env.sub}/providers/Microsoft.Authorization/roleDefinitions/${READER}`,
        principalId: reader,
      });

      const names = async (at: string, filter?: string) => {
        const out: string[] = [];
        for await (const a of client.roleAssignments.listForScope(at, filter ? { filter } : {})) out.push(a.principalId!);
        return out.sort();
      };
      // atScope(): at the scope and above; no filter: above and below too.
      assert.deepEqual(await names(scope, 'atScope()'), [principalId, reader].sort());
      assert.deepEqual(await names(groupId(env), 'atScope()'), [reader]);
      assert.deepEqual(await names(`/subscriptions/${env.sub}`), [principalId, reader].sort());
      assert.deepEqual(await names(`/subscriptions/${env.sub}`, `principalId eq '${principalId}'`), [principalId]);
      assert.deepEqual(await names(`/subscriptions/${env.sub}`, `assignedTo('${reader}')`), [reader]);

      const duplicate = await restError(client.roleAssignments.create(scope, randomUUID(), { roleDefinitionId, principalId }));
      assert.equal(duplicate.statusCode, 409);
      assert.equal(duplicate.code, 'RoleAssignmentExists');
      assert.equal(duplicate.message, 'The role assignment already exists.');
      const badName = await restError(client.roleAssignments.create(scope, 'not-a-guid', { roleDefinitionId, principalId: randomUUID() }));
      assert.equal(badName.code, 'InvalidRoleAssignmentId');
      const badRole = await restError(
        client.roleAssignments.create(scope, randomUUID(), { roleDefinitionId: `${roleDefinitionId.slice(0, -4)}0000`, principalId: randomUUID() }),
      );
      assert.equal(badRole.code, 'RoleDefinitionDoesNotExist');
      const noScope = await restError(client.roleAssignments.create(`${scope}x`, randomUUID(), { roleDefinitionId, principalId: randomUUID() }));
      assert.equal(noScope.statusCode, 404);

      assert.equal((await client.roleAssignments.get(scope, name)).principalId, principalId);
      const deleted = await client.roleAssignments.delete(scope, name);
      assert.equal(deleted.name, name);
      const gone = await restError(client.roleAssignments.get(scope, name));
      assert.equal(gone.statusCode, 404);
      assert.equal(gone.code, 'RoleAssignmentNotFound');
    }));

  test("az's requests: atScope list on the subnet, roleDefinitions by name, PUT at 2020-04-01-preview is 201; a group delete takes its assignments", () =>
    withServer(async (env) => {
      const scope = await subnet(env);
      const headers = { ...(await bearer(env.server)), 'content-type': 'application/json' };
      const empty = await https(
        env.server,
        'GET',
        `${scope}/providers/Microsoft.Authorization/roleAssignments?$filter=atScope%28%29&api-version=2020-04-01-preview`,
        { headers },
      );
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.json, { value: [] });

      const defs = await https(
        env.server,
        'GET',
        `${scope}/providers/Microsoft.Authorization/roleDefinitions?$filter=roleName%20eq%20%27Network%20Contributor%27&api-version=2018-01-01-preview`,
        { headers },
      );
      assert.equal(defs.json.value.length, 1);
      const definitionId = defs.json.value[0].id as string;

      const name = randomUUID();
      const put = await https(env.server, 'PUT', `${scope}/providers/Microsoft.Authorization/roleAssignments/${name}?api-version=2020-04-01-preview`, {
        headers,
        body: JSON.stringify({ properties: { roleDefinitionId: definitionId, principalId: randomUUID() } }),
      });
      assert.equal(put.status, 201);

      // What az checks before skipping its role work: scope equal to the id it was given, role id's tail.
      const listed = await https(
        env.server,
        'GET',
        `${scope}/providers/Microsoft.Authorization/roleAssignments?$filter=atScope%28%29&api-version=2020-04-01-preview`,
        { headers },
      );
      assert.equal(listed.json.value.length, 1);
      assert.equal(listed.json.value[0].properties.scope, scope);
      assert.ok((listed.json.value[0].properties.roleDefinitionId as string).endsWith(NETWORK_CONTRIBUTOR));

      const badFilter = await https(
        env.server,
        'GET',
        `${scope}/providers/Microsoft.Authorization/roleAssignments?$filter=foo&api-version=2020-04-01-preview`,
        { headers },
      );
      assert.equal(badFilter.status, 400);

      await resourcesClient(env.server).resourceGroups.beginDeleteAndWait('rg', POLL);
      const after = await https(env.server, 'GET', `/subscriptions/${env.sub}/providers/Microsoft.Authorization/roleAssignments?api-version=2022-04-01`, {
        headers,
      });
      assert.deepEqual(after.json.value, []);
    }));
});
