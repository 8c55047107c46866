// Resource ids under hostile encoding (issue 11, defect 5): an encoded '/' must never make one path
// segment reach another record's key. Ids are parsed after decoding, segment by segment; a decoded
// segment that ARM refuses in a name is ARM's 400, and nothing is stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, waitForResult } from './helpers.js';

const RG = '2021-04-01';
const NET = '2022-07-01';
const AKS = '2022-11-01';

describe('hostile resource ids', () => {
  let home: string;
  let server: TestServer;
  let sub: string;
  let subPath: string;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    sub = server.identity.subscriptionId;
    subPath = `/subscriptions/${sub}`;
    assert.equal((await arm(server, 'PUT', `${subPath}/resourcegroups/r?api-version=${RG}`, { body: { location: 'eastus' } })).status, 201);
    const vnet = await arm(server, 'PUT', `${subPath}/resourceGroups/r/providers/Microsoft.Network/virtualNetworks/v?api-version=${NET}`, {
      body: { location: 'eastus', properties: { addressSpace: { addressPrefixes: ['10.0.0.0/16'] } } },
    });
    assert.equal(vnet.status, 201);
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  /** Every key the store holds: the proof that a refused request stored nothing. */
  const keys = () => server.store.list('').map((e) => e.key);

  test("an encoded '/' in the subscription id is InvalidSubscriptionId, not the group 'r' read as a subscription", async () => {
    const before = keys();
    const put = await arm(server, 'PUT', `/subscriptions/${sub}%2FresourceGroups%2Fr/resourcegroups/evil?api-version=${RG}`, { body: { location: 'eastus' } });
    assert.equal(put.status, 400);
    assert.deepEqual(put.body, {
      error: { code: 'InvalidSubscriptionId', message: `The provided subscription identifier '${sub}/resourceGroups/r' is malformed or invalid.` },
    });
    const get = await arm(server, 'GET', `/subscriptions/${sub}%2FresourceGroups%2Fr?api-version=${RG}`);
    assert.equal(get.status, 400);
    assert.equal(get.body.error.code, 'InvalidSubscriptionId');
    const notGuid = await arm(server, 'GET', `/subscriptions/not-a-guid/resourcegroups?api-version=${RG}`);
    assert.equal(notGuid.status, 400);
    assert.equal(notGuid.body.error.message, "The provided subscription identifier 'not-a-guid' is malformed or invalid.");
    assert.deepEqual(keys(), before);
    assert.ok(!keys().some((k) => k.includes('undefined')));
  });

  test("an encoded '/' in a resource group name is InvalidResourceGroup, for reads too (no record is read through it)", async () => {
    const before = keys();
    const put = await arm(server, 'PUT', `${subPath}/resourcegroups/a%2Fb?api-version=${RG}`, { body: { location: 'eastus' } });
    assert.equal(put.status, 400);
    assert.equal(put.body.error.code, 'InvalidResourceGroup');
    // The VNet's id, reached as a group name: it must not come back as a resource group.
    const read = await arm(server, 'GET', `${subPath}/resourcegroups/r%2Fproviders%2FMicrosoft.Network%2FvirtualNetworks%2Fv?api-version=${RG}`);
    assert.equal(read.status, 400);
    assert.deepEqual(read.body.error, {
      code: 'InvalidResourceGroup',
      message:
        "The provided resource group name 'r/providers/Microsoft.Network/virtualNetworks/v' has these invalid characters: '////'. The name can only be a letter, digit, '-', '.', '(', ')' or '_'.",
    });
    const del = await arm(server, 'DELETE', `${subPath}/resourcegroups/r%2Fproviders%2FMicrosoft.Network%2FvirtualNetworks%2Fv?api-version=${RG}`);
    assert.equal(del.status, 400);
    assert.deepEqual(keys(), before);
  });

  test("an encoded '/' in a resource name is InvalidResourceName: a VNet named 'v/subnets/x' does not land on a subnet's key", async () => {
    const before = keys();
    const put = await arm(server, 'PUT', `${subPath}/resourceGroups/r/providers/Microsoft.Network/virtualNetworks/v%2Fsubnets%2Fx?api-version=${NET}`, {
      body: { location: 'eastus', properties: { addressSpace: { addressPrefixes: ['10.1.0.0/16'] } } },
    });
    assert.equal(put.status, 400);
    assert.deepEqual(put.body.error, {
      code: 'InvalidResourceName',
      message:
        "The resource name 'v/subnets/x' is invalid. A name cannot contain '<', '>', '%', '&', ':', '\\', '?', '/', '#' or control characters, and has at most 260 characters.",
    });
    const read = await arm(
      server,
      'GET',
      `${subPath}/resourceGroups/r/providers/Microsoft.ContainerService/managedClusters/c%2FagentPools%2Fnodepool1?api-version=${AKS}`,
    );
    assert.equal(read.status, 400);
    assert.equal(read.body.error.code, 'InvalidResourceName');
    assert.deepEqual(keys(), before);
  });

  test("inline children are named by the same rule: a subnet, route, security rule or IP configuration named 'a/b' is InvalidResourceName (found by the ARM fuzzer)", async () => {
    const before = keys();
    const rg = `${subPath}/resourceGroups/r/providers/Microsoft.Network`;
    const bodies: Array<[string, unknown]> = [
      [
        `${rg}/virtualNetworks/v1`,
        {
          location: 'eastus',
          properties: { addressSpace: { addressPrefixes: ['10.1.0.0/16'] }, subnets: [{ name: 'a/b', properties: { addressPrefix: '10.1.0.0/24' } }] },
        },
      ],
      [
        `${rg}/routeTables/t1`,
        { location: 'eastus', properties: { routes: [{ name: 'a/b', properties: { addressPrefix: '10.9.0.0/16', nextHopType: 'None' } }] } },
      ],
      [
        `${rg}/networkSecurityGroups/n1`,
        {
          location: 'eastus',
          properties: {
            securityRules: [
              {
                name: 'a/b',
                properties: {
                  priority: 100,
                  direction: 'Inbound',
                  access: 'Allow',
                  protocol: '*',
                  sourceAddressPrefix: '*',
                  sourcePortRange: '*',
                  destinationAddressPrefix: '*',
                  destinationPortRange: '*',
                },
              },
            ],
          },
        },
      ],
    ];
    for (const [path, body] of bodies) {
      const put = await arm(server, 'PUT', `${path}?api-version=${NET}`, { body });
      assert.equal(put.status, 400, `${path}: ${JSON.stringify(put.body)}`);
      assert.equal(put.body.error.code, 'InvalidResourceName', path);
    }
    assert.deepEqual(keys(), before);
  });

  test("a cluster's node resource group is a new group of its own, never a path into another record", async () => {
    const cluster = (nodeResourceGroup: string) => ({
      location: 'eastus',
      identity: { type: 'SystemAssigned' },
      properties: {
        dnsPrefix: 'n',
        nodeResourceGroup,
        agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }],
        networkProfile: { networkPlugin: 'kubenet' },
      },
    });
    const url = `${subPath}/resourceGroups/r/providers/Microsoft.ContainerService/managedClusters/n?api-version=${AKS}`;
    const before = keys();
    for (const name of ['../../etc', 'r/providers/Microsoft.Network/virtualNetworks/v', 'a\u0000b', 'x'.repeat(91)]) {
      const res = await arm(server, 'PUT', url, { body: cluster(name) });
      assert.equal(res.status, 400, name);
      assert.deepEqual(res.body.error, {
        code: 'InvalidParameter',
        message: 'The value of parameter nodeResourceGroupName is invalid. Please see https://aka.ms/aks-naming-rules for more details.',
        target: 'nodeResourceGroupName',
      });
    }
    // Deleting the cluster would delete its node resource group: another group may not be it.
    const same = await arm(server, 'PUT', url, { body: cluster('R') });
    assert.equal(same.status, 400);
    assert.deepEqual(same.body.error, {
      code: 'NodeResourceGroupSameAsResourceGroup',
      message: "Node resource group 'R' is the same as ResourceGroup 'r', which is not allowed, please provide a different node resource group.",
    });
    await arm(server, 'PUT', `${subPath}/resourcegroups/other?api-version=${RG}`, { body: { location: 'eastus' } });
    const taken = await arm(server, 'PUT', url, { body: cluster('Other') });
    assert.equal(taken.status, 400);
    assert.deepEqual(taken.body.error, {
      code: 'NodeResourceGroupAlreadyExists',
      message: `Node resource group 'Other' under subscription '${sub}' already exists, please provide a new one.`,
    });
    assert.deepEqual(
      keys().filter((k) => !k.toLowerCase().endsWith('/resourcegroups/other')),
      before,
    );
    const deleted = await arm(server, 'DELETE', `${subPath}/resourcegroups/other?api-version=${RG}`);
    assert.equal((await waitForResult(server, deleted.headers['location'])).status, 204);
  });

  test('control characters and the other characters ARM refuses in names', async () => {
    for (const name of ['a%00b', 'a%0Ab', 'a%3Cb', 'a%3Eb', 'a%25b', 'a%26b', 'a%3Ab', 'a%5Cb', 'a%3Fb', 'a%23b', 'a%7Fb', 'x'.repeat(261)]) {
      const res = await arm(server, 'PUT', `${subPath}/resourceGroups/r/providers/Microsoft.Network/routeTables/${name}?api-version=${NET}`, {
        body: { location: 'eastus' },
      });
      assert.equal(res.status, 400, name);
      assert.equal(res.body.error.code, 'InvalidResourceName', name);
    }
    const group = await arm(server, 'PUT', `${subPath}/resourcegroups/a%0Ab?api-version=${RG}`, { body: { location: 'eastus' } });
    assert.equal(group.status, 400);
    assert.equal(group.body.error.code, 'InvalidResourceGroup');
  });

  test("bad percent-encoding is 400 in ARM's envelope, without echoing the query", async () => {
    for (const path of [`${subPath}/resourcegroups/rg%ZZ`, `${subPath}/resourcegroups/%E0%A4%A`, `/subscriptions/%C0%AF/resourcegroups`]) {
      const res = await arm(server, 'PUT', `${path}?api-version=${RG}&secret=<script>`, { body: { location: 'eastus' } });
      assert.equal(res.status, 400, path);
      assert.deepEqual(Object.keys(res.body), ['error'], path);
      assert.equal(res.body.error.code, 'BadRequest');
      assert.equal(res.body.error.message, 'The request URL is invalid.');
      assert.ok(res.headers['x-ms-request-id']);
    }
  });

  test('segments are matched after decoding, so an encoded literal still names the same route', async () => {
    const res = await arm(server, 'GET', `${subPath}/resource%47roups/r?api-version=${RG}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'r');
  });

  test('the server still answers, with only what valid requests stored', async () => {
    const groups = await arm(server, 'GET', `${subPath}/resourcegroups?api-version=${RG}`);
    assert.equal(groups.status, 200);
    assert.deepEqual(
      groups.body.value.map((g: { name: string }) => g.name),
      ['r'],
    );
  });
});
