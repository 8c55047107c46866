// The requests `aksemu az network …`, `aks nodepool …` and `role assignment …` build (docs/clients.md §3.7, §3.9),
// with a fake ARM in-process: the server's Microsoft.Network/Authorization/ContainerService are not there yet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeAz, on, BASE, SUB, type Recorded } from './helpers.js';

const RG = `/subscriptions/${SUB}/resourceGroups/myResourceGroup`;
const VNET = `${RG}/providers/Microsoft.Network/virtualNetworks/myVnet`;
const NET_OP = `${BASE}/subscriptions/${SUB}/providers/Microsoft.Network/locations/eastus/operations/n1?api-version=2022-01-01`;

/** Network style: 201 Updating + Azure-AsyncOperation, op Succeeded, then the GET echoes what was PUT. */
function networkLro(path: string) {
  let stored: any;
  return [
    on('PUT', path, (r: Recorded) => {
      stored = { id: path, name: path.split('/').pop(), type: 'x', ...r.body, properties: { ...r.body.properties, provisioningState: 'Succeeded' } };
      return {
        status: 201,
        headers: { 'azure-asyncoperation': NET_OP },
        body: { ...stored, properties: { ...stored.properties, provisioningState: 'Updating' } },
      };
    }),
    on('GET', new URL(NET_OP).pathname, { status: 200, body: { status: 'Succeeded' } }),
    on('GET', path, () => ({ status: 200, body: stored })),
  ];
}

test('network vnet create: group location, az 2.45 body, {"newVNet": …} with properties flattened', async () => {
  const r = await fakeAz(
    [
      'network',
      'vnet',
      'create',
      '-g',
      'myResourceGroup',
      '-n',
      'myVnet',
      '--address-prefixes',
      '10.224.0.0/12',
      '--subnet-name',
      'default',
      '--subnet-prefixes',
      '10.224.0.0/16',
    ],
    [on('GET', `/subscriptions/${SUB}/resourcegroups/myResourceGroup`, { status: 200, body: { location: 'eastus' } }), ...networkLro(VNET)],
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.requests[1]!.query.get('api-version'), '2022-01-01');
  assert.equal(
    JSON.stringify(r.requests[1]!.body),
    JSON.stringify({
      location: 'eastus',
      properties: {
        addressSpace: { addressPrefixes: ['10.224.0.0/12'] },
        enableDdosProtection: false,
        enableVmProtection: false,
        subnets: [{ name: 'default', properties: { addressPrefix: '10.224.0.0/16' } }],
      },
    }),
  );
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.newVNet.addressSpace, { addressPrefixes: ['10.224.0.0/12'] });
  assert.equal(out.newVNet.provisioningState, 'Succeeded');
  assert.equal(out.newVNet.resourceGroup, 'myResourceGroup');
  assert.equal(out.newVNet.subnets[0].addressPrefix, '10.224.0.0/16');

  const defaults = await fakeAz(
    ['network', 'vnet', 'create', '-g', 'myResourceGroup', '-n', 'myVnet', '-l', 'eastus', '--subnet-name', 's', '--no-wait'],
    networkLro(VNET),
  );
  assert.deepEqual(defaults.requests[0]!.body.properties.addressSpace, { addressPrefixes: ['10.0.0.0/16'] });
  assert.deepEqual(defaults.requests[0]!.body.properties.subnets, [{ name: 's', properties: { addressPrefix: '10.0.0.0/24' } }]);
  assert.equal(defaults.requests.length, 1);
});

test('network vnet subnet create/update: delegations, NSG and route table by name, one PUT (no GET of the vnet)', async () => {
  const subnet = `${VNET}/subnets/aks-subnet`;
  const r = await fakeAz(
    [
      'network',
      'vnet',
      'subnet',
      'create',
      '-g',
      'myResourceGroup',
      '--vnet-name',
      'myVnet',
      '-n',
      'aks-subnet',
      '--address-prefixes',
      '10.225.0.0/16',
      '--delegations',
      'Microsoft.ContainerService/managedClusters',
      '--network-security-group',
      'myNsg',
      '--route-table',
      'myRt',
    ],
    networkLro(subnet),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.requests.map((q) => q.method),
    ['PUT', 'GET', 'GET'],
  );
  assert.deepEqual(r.requests[0]!.body, {
    name: 'aks-subnet',
    properties: {
      addressPrefix: '10.225.0.0/16',
      delegations: [{ name: '0', properties: { serviceName: 'Microsoft.ContainerService/managedClusters' } }],
      networkSecurityGroup: { id: `${RG}/providers/Microsoft.Network/networkSecurityGroups/myNsg` },
      routeTable: { id: `${RG}/providers/Microsoft.Network/routeTables/myRt` },
    },
  });
  assert.equal(JSON.parse(r.stdout).addressPrefix, '10.225.0.0/16');

  const update = await fakeAz(
    [
      'network',
      'vnet',
      'subnet',
      'update',
      '-g',
      'myResourceGroup',
      '--vnet-name',
      'myVnet',
      '-n',
      'aks-subnet',
      '--route-table',
      '',
      '--address-prefixes',
      '10.225.0.0/17',
      '10.226.0.0/17',
    ],
    [
      on('GET', subnet, {
        status: 200,
        body: { id: subnet, name: 'aks-subnet', properties: { addressPrefix: '10.225.0.0/16', provisioningState: 'Succeeded', routeTable: { id: 'rt' } } },
      }),
      on('PUT', subnet, (q) => ({ status: 200, body: { ...q.body, properties: { ...q.body.properties, provisioningState: 'Succeeded' } } })),
    ],
  );
  assert.equal(update.code, 0, update.stderr);
  assert.deepEqual(update.requests[1]!.body, {
    name: 'aks-subnet',
    properties: { routeTable: null, addressPrefixes: ['10.225.0.0/17', '10.226.0.0/17'] },
    id: subnet,
  });
});

test('network nsg / route-table create, show (404 → exit 3), list table, delete', async () => {
  const nsg = `${RG}/providers/Microsoft.Network/networkSecurityGroups/myNsg`;
  const created = await fakeAz(['network', 'nsg', 'create', '-g', 'myResourceGroup', '-n', 'myNsg', '-l', 'eastus'], networkLro(nsg));
  assert.equal(created.code, 0, created.stderr);
  assert.deepEqual(created.requests[0]!.body, { location: 'eastus' });
  assert.ok(JSON.parse(created.stdout).NewNSG);

  const rt = `${RG}/providers/Microsoft.Network/routeTables/myRt`;
  const table = await fakeAz(
    ['network', 'route-table', 'create', '-g', 'myResourceGroup', '-n', 'myRt', '-l', 'eastus', '--disable-bgp-route-propagation', 'true'],
    networkLro(rt),
  );
  assert.equal(table.code, 0, table.stderr);
  assert.equal(table.requests[0]!.query.get('api-version'), '2021-08-01');
  assert.deepEqual(table.requests[0]!.body, { location: 'eastus', properties: { disableBgpRoutePropagation: true } });
  assert.equal(JSON.parse(table.stdout).disableBgpRoutePropagation, true);

  const missing = await fakeAz(['network', 'vnet', 'show', '-g', 'myResourceGroup', '-n', 'nope'], []);
  assert.equal(missing.code, 3);
  const list = await fakeAz(
    ['network', 'vnet', 'list', '-g', 'myResourceGroup', '-o', 'table'],
    [
      on('GET', `${RG}/providers/Microsoft.Network/virtualNetworks`, {
        status: 200,
        body: {
          value: [
            {
              id: VNET,
              name: 'myVnet',
              location: 'eastus',
              properties: { addressSpace: { addressPrefixes: ['10.224.0.0/12'] }, subnets: [{}], enableDdosProtection: false, enableVmProtection: false },
            },
          ],
        },
      }),
    ],
  );
  assert.equal(
    list.stdout,
    'Name    ResourceGroup    Location    NumSubnets    Prefixes       DnsServers    DDOSProtection    VMProtection\n' +
      '------  ---------------  ----------  ------------  -------------  ------------  ----------------  --------------\n' +
      'myVnet  myResourceGroup  eastus      1             10.224.0.0/12                False             False\n',
  );
  const del = await fakeAz(['network', 'nsg', 'delete', '-g', 'myResourceGroup', '-n', 'myNsg'], [on('DELETE', nsg, { status: 204 })]);
  assert.equal(del.code, 0, del.stderr);
  assert.equal(del.stdout, '');
});

test('aks nodepool add/scale/delete: az 2.45 sequences and bodies', async () => {
  const MC = `${RG}/providers/Microsoft.ContainerService/managedClusters/myAKSCluster`;
  const POOL = `${MC}/agentPools/userpool1`;
  const op = `${BASE}/subscriptions/${SUB}/providers/Microsoft.ContainerService/locations/eastus/operations/p1?api-version=2022-11-01`;
  const poolBody = {
    id: POOL,
    name: 'userpool1',
    type: 'Microsoft.ContainerService/managedClusters/agentPools',
    properties: {
      count: 2,
      vmSize: 'Standard_DS2_v2',
      osDiskSizeGB: 128,
      provisioningState: 'Succeeded',
      currentOrchestratorVersion: '1.25.5',
      powerState: { code: 'Running' },
      mode: 'User',
      type: 'VirtualMachineScaleSets',
    },
  };
  const handlers = [
    on('GET', `${MC}/agentPools`, { status: 200, body: { value: [{ ...poolBody, name: 'nodepool1' }] } }),
    on('PUT', POOL, { status: 201, headers: { 'azure-asyncoperation': op }, body: poolBody }),
    on('GET', new URL(op).pathname, { status: 200, body: { status: 'Succeeded' } }),
    on('GET', POOL, { status: 200, body: poolBody }),
  ];
  const add = await fakeAz(
    ['aks', 'nodepool', 'add', '-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster', '-n', 'userpool1', '--node-count', '2'],
    handlers,
  );
  assert.equal(add.code, 0, add.stderr);
  assert.deepEqual(
    add.requests.map((q) => q.method),
    ['GET', 'PUT', 'GET', 'GET'],
  );
  assert.equal(
    JSON.stringify(add.requests[1]!.body),
    JSON.stringify({
      properties: {
        count: 2,
        vmSize: 'Standard_DS2_v2',
        osDiskSizeGB: 0,
        osType: 'Linux',
        enableAutoScaling: false,
        scaleDownMode: 'Delete',
        type: 'VirtualMachineScaleSets',
        mode: 'User',
        upgradeSettings: {},
        enableNodePublicIP: false,
        scaleSetPriority: 'Regular',
        scaleSetEvictionPolicy: 'Delete',
        spotMaxPrice: -1,
        nodeTaints: [],
        enableEncryptionAtHost: false,
        enableUltraSSD: false,
        enableFIPS: false,
      },
    }),
  );
  const out = JSON.parse(add.stdout);
  assert.equal(out.typePropertiesType, 'VirtualMachineScaleSets');
  assert.equal(out.osDiskSizeGb, 128);
  const clash = await fakeAz(['aks', 'nodepool', 'add', '-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster', '-n', 'nodepool1'], handlers);
  assert.equal(
    clash.stderr,
    "ERROR: Node pool nodepool1 already exists, please try a different name, use 'aks nodepool list' to get current list of node pool\n",
  );

  const same = await fakeAz(['aks', 'nodepool', 'scale', '-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster', '-n', 'userpool1', '-c', '2'], handlers);
  assert.equal(same.stderr, 'ERROR: The new node count is the same as the current node count.\n');
  assert.equal(same.requests.length, 1);
  const scale = await fakeAz(['aks', 'nodepool', 'scale', '-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster', '-n', 'userpool1', '-c', '5'], handlers);
  assert.equal(scale.code, 0, scale.stderr);
  assert.deepEqual(scale.requests[1]!.body, {
    properties: { count: 5, vmSize: 'Standard_DS2_v2', osDiskSizeGB: 128, type: 'VirtualMachineScaleSets', mode: 'User', powerState: { code: 'Running' } },
  });

  const table = await fakeAz(['aks', 'nodepool', 'list', '-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster', '-o', 'table'], handlers);
  assert.equal(
    table.stdout,
    'Name       VmSize           OsDiskSizeGB    Count    ProvisioningState    Mode\n---------  ---------------  --------------  -------  -------------------  ------\nnodepool1  Standard_DS2_v2  128             2        Succeeded            User\n',
  );

  const del = await fakeAz(
    ['aks', 'nodepool', 'delete', '-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster', '-n', 'nodepool1'],
    [...handlers, on('DELETE', `${MC}/agentPools/nodepool1`, { status: 202, headers: { 'azure-asyncoperation': op } })],
  );
  assert.equal(del.code, 0, del.stderr);
  assert.deepEqual(
    del.requests.map((q) => q.method),
    ['GET', 'DELETE', 'GET'],
  );
  const gone = await fakeAz(['aks', 'nodepool', 'delete', '-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster', '-n', 'nope'], handlers);
  assert.equal(gone.stderr, "ERROR: Node pool nope doesnt exist, use 'aks nodepool list' to get current node pool list\n");
});

test('role assignment create: role name resolved at the scope, PUT of a new assignment (201 only)', async () => {
  const scope = `${RG}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/aks-subnet`;
  const roleId = `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/4d97b98b-1d4f-4787-a291-c67834d212e7`;
  const principal = '11111111-2222-3333-4444-555555555555';
  const r = await fakeAz(
    ['role', 'assignment', 'create', '--assignee', principal, '--role', 'Network Contributor', '--scope', scope],
    [
      on('GET', `${scope}/providers/Microsoft.Authorization/roleDefinitions`, { status: 200, body: { value: [{ id: roleId }] } }),
      (q) =>
        q.method === 'PUT'
          ? { status: 201, body: { id: `${q.path}`, name: 'x', type: 'Microsoft.Authorization/roleAssignments', properties: { ...q.body.properties, scope } } }
          : undefined,
    ],
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.requests[1]!.query.get('api-version'), '2020-04-01-preview');
  assert.deepEqual(r.requests[1]!.body, { properties: { roleDefinitionId: roleId, principalId: principal } });
  const out = JSON.parse(r.stdout);
  assert.equal(out.principalId, principal);
  assert.equal(out.scope, scope);
});
