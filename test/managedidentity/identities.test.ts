// Microsoft.ManagedIdentity/userAssignedIdentities over raw ARM requests against a real server, at the api-versions
// az 2.45 sends (2022-01-31-preview from `az identity`, 2018-11-30 from `az aks`): create, read, list, delete, ARM's
// errors, stable ids across a PUT and a restart; then clusters naming them as control-plane and kubelet identities
// (docs/aks-rules.md §13), with AKS's and ARM's errors for a missing, malformed or misplaced identity.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arm, pathOf, waitForOperation, type Reply } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { rawCluster } from '../containerservice/harness.js';
import { azBody, deploy } from '../deployments/harness.js';

const MSI = 'api-version=2022-01-31-preview';
const MSI_AKS = 'api-version=2018-11-30';
const AKS = 'api-version=2022-11-01';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Microsoft.ManagedIdentity/userAssignedIdentities and cluster identities', () => {
  let home: string;
  let server: TestServer;
  let group: string;
  const ids = () => `${group}/providers/Microsoft.ManagedIdentity/userAssignedIdentities`;
  const settled = async (res: Reply) => {
    assert.ok(res.status < 300, JSON.stringify(res.body));
    assert.equal((await waitForOperation(server, pathOf(res.headers['azure-asyncoperation']))).status, 'Succeeded');
  };
  const identity = async (name: string) => {
    const res = await arm(server, 'PUT', `${ids()}/${name}?${MSI}`, { body: { location: 'eastus' } });
    assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
    return res.body;
  };
  const clusterUrl = (name: string) => `${group}/providers/Microsoft.ContainerService/managedClusters/${name}`;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    group = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/idrg`;
    assert.equal((await arm(server, 'PUT', `${group}?api-version=2021-04-01`, { body: { location: 'eastus' } })).status, 201);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('create, read, PUT again, list by group and subscription; the ids stay', async () => {
    const created = await arm(server, 'PUT', `${ids()}/id1?${MSI}`, { body: { location: 'eastus', tags: { team: 'a' } } });
    assert.equal(created.status, 201);
    assert.equal(created.body.type, 'Microsoft.ManagedIdentity/userAssignedIdentities');
    assert.equal(created.body.name, 'id1');
    assert.equal(created.body.location, 'eastus');
    const p = created.body.properties;
    assert.match(p.principalId, GUID);
    assert.match(p.clientId, GUID);
    assert.equal(p.tenantId, server.identity.tenantId);
    assert.notEqual(p.principalId, p.clientId);

    const again = await arm(server, 'PUT', `${ids()}/id1?${MSI}`, { body: { location: 'eastus' } });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.properties, p, 'a PUT of the same identity keeps its ids');

    const got = await arm(server, 'GET', `${ids()}/ID1?${MSI_AKS}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.properties, p);

    await identity('id2');
    const inGroup = await arm(server, 'GET', `${ids()}?${MSI}`);
    assert.deepEqual(inGroup.body.value.map((i: { name: string }) => i.name).sort(), ['id1', 'id2']);
    const inSub = await arm(
      server,
      'GET',
      `/subscriptions/${server.identity.subscriptionId}/providers/Microsoft.ManagedIdentity/userAssignedIdentities?${MSI}`,
    );
    assert.ok(inSub.body.value.some((i: { id: string }) => i.id === created.body.id));
  });

  test("ARM's errors: location required, a bad name, an unserved api-version, a missing identity", async () => {
    const noLocation = await arm(server, 'PUT', `${ids()}/nolocation?${MSI}`, { body: {} });
    assert.equal(noLocation.status, 400);
    assert.equal(noLocation.body.error.code, 'LocationRequired');
    const badName = await arm(server, 'PUT', `${ids()}/a?${MSI}`, { body: { location: 'eastus' } });
    assert.equal(badName.status, 400);
    assert.equal(badName.body.error.code, 'InvalidResourceName');
    const badVersion = await arm(server, 'GET', `${ids()}/id1?api-version=2017-01-01`);
    assert.equal(badVersion.status, 400);
    assert.equal(badVersion.body.error.code, 'NoRegisteredProviderFound');
    const missing = await arm(server, 'GET', `${ids()}/nope?${MSI}`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'ResourceNotFound');
  });

  test('delete answers 200, then 204; the identity is gone', async () => {
    await identity('gone');
    assert.equal((await arm(server, 'DELETE', `${ids()}/gone?${MSI}`)).status, 200);
    assert.equal((await arm(server, 'DELETE', `${ids()}/gone?${MSI}`)).status, 204);
    assert.equal((await arm(server, 'GET', `${ids()}/gone?${MSI}`)).status, 404);
  });

  test('a cluster with a user-assigned control-plane and kubelet identity reads them back as AKS returns them', async () => {
    const control = await identity('control');
    const kubelet = await identity('kubelet');
    const body = {
      ...rawCluster('uami', { identityProfile: { kubeletidentity: { resourceId: kubelet.id } } }),
      identity: { type: 'UserAssigned', userAssignedIdentities: { [control.id]: {} } },
    };
    await settled(await arm(server, 'PUT', `${clusterUrl('uami')}?${AKS}`, { body }));
    const got = (await arm(server, 'GET', `${clusterUrl('uami')}?${AKS}`)).body;
    assert.deepEqual(got.identity, {
      type: 'UserAssigned',
      userAssignedIdentities: { [control.id]: { principalId: control.properties.principalId, clientId: control.properties.clientId } },
    });
    assert.deepEqual(got.properties.identityProfile.kubeletidentity, {
      resourceId: kubelet.id,
      clientId: kubelet.properties.clientId,
      objectId: kubelet.properties.principalId,
    });
    assert.equal(got.properties.servicePrincipalProfile.clientId, 'msi');

    // A PUT of what was read changes nothing.
    const { properties, identity: sentIdentity, location } = got;
    await settled(await arm(server, 'PUT', `${clusterUrl('uami')}?${AKS}`, { body: { location, identity: sentIdentity, properties } }));
    const again = (await arm(server, 'GET', `${clusterUrl('uami')}?${AKS}`)).body;
    assert.deepEqual(again.identity, got.identity);
    assert.deepEqual(again.properties.identityProfile, got.properties.identityProfile);
  });

  test("a SystemAssigned cluster gets its own principal and AKS's <cluster>-agentpool kubelet identity in the node resource group", async () => {
    await settled(await arm(server, 'PUT', `${clusterUrl('sys')}?${AKS}`, { body: rawCluster('sys') }));
    const got = (await arm(server, 'GET', `${clusterUrl('sys')}?${AKS}`)).body;
    assert.equal(got.identity.type, 'SystemAssigned');
    assert.match(got.identity.principalId, GUID);
    assert.equal(got.identity.tenantId, server.identity.tenantId);
    const k = got.properties.identityProfile.kubeletidentity;
    const nodeGroup = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/${got.properties.nodeResourceGroup}`;
    assert.equal(k.resourceId, `${nodeGroup}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/sys-agentpool`);
    const made = await arm(server, 'GET', `${k.resourceId}?${MSI}`);
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.properties.clientId, k.clientId);
    assert.equal(made.body.properties.principalId, k.objectId);
  });

  test('a user-assigned identity sent with a service principal is kept: both read back, as the spec example answers', async () => {
    const control = await identity('withsp');
    const body = {
      ...rawCluster('withsp', { servicePrincipalProfile: { clientId: '11111111-2222-3333-4444-555555555555', secret: 's3cret-never-returned' } }),
      identity: { type: 'UserAssigned', userAssignedIdentities: { [control.id]: {} } },
    };
    await settled(await arm(server, 'PUT', `${clusterUrl('withsp')}?${AKS}`, { body }));
    const got = (await arm(server, 'GET', `${clusterUrl('withsp')}?${AKS}`)).body;
    assert.equal(got.identity.type, 'UserAssigned');
    assert.ok(got.identity.userAssignedIdentities[control.id]);
    assert.deepEqual(got.identity.userAssignedIdentities[control.id], { principalId: control.properties.principalId, clientId: control.properties.clientId });
    assert.deepEqual(got.properties.servicePrincipalProfile, { clientId: '11111111-2222-3333-4444-555555555555' });
    assert.ok(!JSON.stringify(got).includes('s3cret-never-returned'));
  });

  test("AKS's and ARM's errors for identities that are missing, malformed, absent or misplaced; nothing is stored", async () => {
    const control = await identity('ctl2');
    const kubelet = await identity('kub2');
    const put = (name: string, extra: Record<string, unknown>, properties: Record<string, unknown> = {}) =>
      arm(server, 'PUT', `${clusterUrl(name)}?${AKS}`, { body: { ...rawCluster(name, properties), ...extra } });

    const missingId = `${ids()}/doesnotexist`;
    const missing = await put('e1', { identity: { type: 'UserAssigned', userAssignedIdentities: { [missingId]: {} } } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'FailedIdentityOperation');
    assert.match(missing.body.error.message, /Resource '.*doesnotexist' was not found/);

    const malformed = await put('e2', { identity: { type: 'UserAssigned', userAssignedIdentities: { '/subscriptions/x/identities/y': {} } } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.code, 'InvalidIdentityId');
    assert.match(malformed.body.error.message, /The identity ids '\/subscriptions\/x\/identities\/y' are invalid/);

    const empty = await put('e3', { identity: { type: 'UserAssigned', userAssignedIdentities: {} } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.code, 'MissingIdentityIds');

    const kubeletOnSystem = await put('e4', { identity: { type: 'SystemAssigned' } }, { identityProfile: { kubeletidentity: { resourceId: kubelet.id } } });
    assert.equal(kubeletOnSystem.status, 400);
    assert.equal(kubeletOnSystem.body.error.code, 'CustomKubeletIdentityOnlySupportedOnUserAssignedMSICluster');

    const missingKubelet = await put(
      'e5',
      { identity: { type: 'UserAssigned', userAssignedIdentities: { [control.id]: {} } } },
      { identityProfile: { kubeletidentity: { resourceId: `${ids()}/nokubelet` } } },
    );
    assert.equal(missingKubelet.status, 400);
    assert.equal(missingKubelet.body.error.code, 'FailedIdentityOperation');
    assert.equal(missingKubelet.body.error.target, 'identityProfile.kubeletidentity');

    for (const name of ['e1', 'e2', 'e3', 'e4', 'e5']) assert.equal((await arm(server, 'GET', `${clusterUrl(name)}?${AKS}`)).status, 404);
  });

  test('a template makes an identity and a cluster naming it (dependsOn, resourceId, reference().principalId)', async () => {
    const uami = "[resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'tmpl-id')]";
    const template = {
      $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
      contentVersion: '1.0.0.0',
      resources: [
        { type: 'Microsoft.ManagedIdentity/userAssignedIdentities', apiVersion: '2023-01-31', name: 'tmpl-id', location: 'eastus' },
        {
          type: 'Microsoft.ContainerService/managedClusters',
          apiVersion: '2022-11-01',
          name: 'tmpl',
          location: 'eastus',
          dependsOn: [uami],
          identity: { type: 'UserAssigned', userAssignedIdentities: { [uami]: {} } },
          properties: rawCluster('tmpl').properties,
        },
      ],
      outputs: { principalId: { type: 'string', value: `[reference(${uami.slice(1, -1)}, '2023-01-31').principalId]` } },
    };
    const { status, final } = await deploy(server, server.identity.subscriptionId, 'idrg', 'withidentity', azBody(JSON.stringify(template)));
    assert.equal(status?.status, 'Succeeded', JSON.stringify(final.body));
    const made = (await arm(server, 'GET', `${ids()}/tmpl-id?${MSI}`)).body;
    assert.equal(final.body.properties.outputs.principalId.value, made.properties.principalId);
    const cluster = (await arm(server, 'GET', `${clusterUrl('tmpl')}?${AKS}`)).body;
    assert.equal(cluster.identity.type, 'UserAssigned');
    assert.deepEqual(Object.values(cluster.identity.userAssignedIdentities), [
      { principalId: made.properties.principalId, clientId: made.properties.clientId },
    ]);
  });

  test('identities and the clusters naming them survive a restart with the same ids', async () => {
    const before = (await arm(server, 'GET', `${ids()}/id1?${MSI}`)).body;
    const cluster = (await arm(server, 'GET', `${clusterUrl('uami')}?${AKS}`)).body;
    await server.close();
    server = await startTestServer({ home });
    const afterRestart = (await arm(server, 'GET', `${ids()}/id1?${MSI}`)).body;
    assert.deepEqual(afterRestart, before);
    const clusterAfter = (await arm(server, 'GET', `${clusterUrl('uami')}?${AKS}`)).body;
    assert.deepEqual(clusterAfter.identity, cluster.identity);
    assert.deepEqual(clusterAfter.properties.identityProfile, cluster.properties.identityProfile);
  });
});
