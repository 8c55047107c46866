// aksemu az network … and role assignment … as a user runs them: the CLI as a child process against a
// real server started in-process. What az prints (AAZ's flattened view), what the server keeps
// (associations, delegations, back-references) and its errors as az prints them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az } from './helpers.js';

let server: TestServer;
let home: string;
let sub: string;
let rg: string;

const json = async (args: string[]) => {
  const r = await az(home, args);
  assert.equal(r.code, 0, `${args.join(' ')}\n${r.stderr}`);
  assert.equal(r.stderr, '', args.join(' '));
  return JSON.parse(r.stdout);
};

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  sub = server.identity.subscriptionId;
  rg = `/subscriptions/${sub}/resourceGroups/netRG`;
  const r = await az(home, ['group', 'create', '-l', 'eastus', '-n', 'netRG', '-o', 'none']);
  assert.equal(r.code, 0, r.stderr);
});

after(async () => {
  await server.close();
  removeHome(home);
});

test('vnet create: the location from the group, --subnet-name/--subnet-prefixes, output wrapped as newVNet', async () => {
  const out = await json([
    'network',
    'vnet',
    'create',
    '-g',
    'netRG',
    '-n',
    'myVnet',
    '--address-prefixes',
    '10.224.0.0/12',
    '--subnet-name',
    'aks-subnet',
    '--subnet-prefixes',
    '10.224.0.0/16',
  ]);
  const v = out.newVNet;
  assert.deepEqual(Object.keys(out), ['newVNet']);
  assert.equal(v.id, `${rg}/providers/Microsoft.Network/virtualNetworks/myVnet`);
  assert.equal(v.location, 'eastus');
  assert.equal(v.resourceGroup, 'netRG');
  assert.equal(v.provisioningState, 'Succeeded');
  assert.equal(v.properties, undefined, 'AAZ output has properties flattened');
  assert.deepEqual(v.addressSpace, { addressPrefixes: ['10.224.0.0/12'] });
  assert.equal(v.subnets.length, 1);
  assert.equal(v.subnets[0].name, 'aks-subnet');
  assert.equal(v.subnets[0].addressPrefix, '10.224.0.0/16');
  assert.equal(v.subnets[0].id, `${v.id}/subnets/aks-subnet`);
  assert.equal(v.subnets[0].type, 'Microsoft.Network/virtualNetworks/subnets');

  // Defaults: 10.0.0.0/16, and the subnet the first prefix with a /24 mask.
  const d = (await json(['network', 'vnet', 'create', '-g', 'netRG', '-n', 'defaults', '--subnet-name', 'default'])).newVNet;
  assert.deepEqual(d.addressSpace.addressPrefixes, ['10.0.0.0/16']);
  assert.equal(d.subnets[0].addressPrefix, '10.0.0.0/24');

  const table = await az(home, ['network', 'vnet', 'list', '-g', 'netRG', '-o', 'table']);
  assert.equal(table.code, 0, table.stderr);
  assert.deepEqual(
    table.stdout.split('\n').map((l) => l.trimEnd()),
    [
      'Name      ResourceGroup    Location    NumSubnets    Prefixes       DnsServers    DDOSProtection    VMProtection',
      '--------  ---------------  ----------  ------------  -------------  ------------  ----------------  --------------',
      'defaults  netRG            eastus      1             10.0.0.0/16                  False             False',
      'myVnet    netRG            eastus      1             10.224.0.0/12                False             False',
      '',
    ],
  );
  assert.deepEqual(await json(['network', 'vnet', 'show', '-g', 'netRG', '-n', 'myVnet', '--query', 'subnets[].name']), ['aks-subnet']);

  const gone = await az(home, ['network', 'vnet', 'delete', '-g', 'netRG', '-n', 'defaults']);
  assert.equal(gone.code, 0, gone.stderr);
  assert.equal(gone.stdout, '');
  const show = await az(home, ['network', 'vnet', 'show', '-g', 'netRG', '-n', 'defaults']);
  assert.equal(show.code, 3);
  assert.match(
    show.stderr,
    /^ERROR: \(ResourceNotFound\) The Resource 'Microsoft.Network\/virtualNetworks\/defaults' under resource group 'netRG' was not found\./,
  );
});

test('nsg create, route-table create, and a subnet that names them and a delegation', async () => {
  const nsg = await json(['network', 'nsg', 'create', '-g', 'netRG', '-n', 'myNsg']);
  assert.deepEqual(Object.keys(nsg), ['NewNSG']);
  assert.equal(nsg.NewNSG.id, `${rg}/providers/Microsoft.Network/networkSecurityGroups/myNsg`);
  assert.equal(nsg.NewNSG.provisioningState, 'Succeeded');
  assert.deepEqual(
    nsg.NewNSG.defaultSecurityRules.map((r: { name: string }) => r.name),
    ['AllowVnetInBound', 'AllowAzureLoadBalancerInBound', 'DenyAllInBound', 'AllowVnetOutBound', 'AllowInternetOutBound', 'DenyAllOutBound'],
  );
  const rt = await json(['network', 'route-table', 'create', '-g', 'netRG', '-n', 'myRt']);
  assert.equal(rt.id, `${rg}/providers/Microsoft.Network/routeTables/myRt`);
  assert.equal(rt.disableBgpRoutePropagation, false);
  assert.deepEqual(rt.routes, []);

  const s = await json([
    'network',
    'vnet',
    'subnet',
    'create',
    '-g',
    'netRG',
    '--vnet-name',
    'myVnet',
    '-n',
    'nodes',
    '--address-prefixes',
    '10.225.0.0/24',
    '--network-security-group',
    'myNsg',
    '--route-table',
    'myRt',
  ]);
  assert.equal(s.id, `${rg}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/nodes`);
  assert.equal(s.addressPrefix, '10.225.0.0/24');
  assert.equal(s.networkSecurityGroup.id, `${rg}/providers/Microsoft.Network/networkSecurityGroups/myNsg`);
  assert.equal(s.routeTable.id, `${rg}/providers/Microsoft.Network/routeTables/myRt`);
  assert.equal(s.provisioningState, 'Succeeded');

  const d = await json([
    'network',
    'vnet',
    'subnet',
    'create',
    '-g',
    'netRG',
    '--vnet-name',
    'myVnet',
    '-n',
    'aci',
    '--address-prefixes',
    '10.226.0.0/24',
    '--delegations',
    'Microsoft.ContainerInstance/containerGroups',
  ]);
  assert.equal(d.delegations.length, 1);
  assert.equal(d.delegations[0].serviceName, 'Microsoft.ContainerInstance/containerGroups');
  assert.equal(d.delegations[0].name, '0');
  assert.deepEqual(d.delegations[0].actions, ['Microsoft.Network/virtualNetworks/subnets/action']);

  // The server keeps the back-references: the NSG and route table know their subnet.
  assert.deepEqual(await json(['network', 'nsg', 'show', '-g', 'netRG', '-n', 'myNsg', '--query', 'subnets[].id']), [s.id]);
  assert.deepEqual(await json(['network', 'route-table', 'show', '-g', 'netRG', '-n', 'myRt', '--query', 'subnets[].id']), [s.id]);
  // …and the VNet lists the subnets the subnet PUTs added.
  assert.deepEqual(await json(['network', 'vnet', 'show', '-g', 'netRG', '-n', 'myVnet', '--query', 'sort(subnets[].name)']), ['aci', 'aks-subnet', 'nodes']);
});

test('subnet show, list, update (associate, dissociate, re-delegate), delete', async () => {
  const shown = await json(['network', 'vnet', 'subnet', 'show', '-g', 'netRG', '--vnet-name', 'myVnet', '-n', 'aks-subnet']);
  assert.equal(shown.addressPrefix, '10.224.0.0/16');
  assert.equal(shown.networkSecurityGroup, undefined);
  assert.deepEqual(await json(['network', 'vnet', 'subnet', 'list', '-g', 'netRG', '--vnet-name', 'myVnet', '--query', '[].[name, addressPrefix]']), [
    ['aci', '10.226.0.0/24'],
    ['aks-subnet', '10.224.0.0/16'],
    ['nodes', '10.225.0.0/24'],
  ]);

  const updated = await json([
    'network',
    'vnet',
    'subnet',
    'update',
    '-g',
    'netRG',
    '--vnet-name',
    'myVnet',
    '-n',
    'aks-subnet',
    '--nsg',
    'myNsg',
    '--route-table',
    'myRt',
  ]);
  assert.equal(updated.networkSecurityGroup.id, `${rg}/providers/Microsoft.Network/networkSecurityGroups/myNsg`);
  assert.equal(updated.routeTable.id, `${rg}/providers/Microsoft.Network/routeTables/myRt`);
  assert.equal(updated.addressPrefix, '10.224.0.0/16', 'update keeps what it does not change');

  const cleared = await json([
    'network',
    'vnet',
    'subnet',
    'update',
    '-g',
    'netRG',
    '--vnet-name',
    'myVnet',
    '-n',
    'nodes',
    '--network-security-group',
    '',
    '--route-table',
    '',
  ]);
  assert.equal(cleared.networkSecurityGroup, undefined);
  assert.equal(cleared.routeTable, undefined);
  assert.deepEqual(await json(['network', 'nsg', 'show', '-g', 'netRG', '-n', 'myNsg', '--query', 'subnets[].id']), [updated.id]);

  const redelegated = await json([
    'network',
    'vnet',
    'subnet',
    'update',
    '-g',
    'netRG',
    '--vnet-name',
    'myVnet',
    '-n',
    'aci',
    '--delegations',
    'Microsoft.Sql/managedInstances',
  ]);
  assert.deepEqual(
    redelegated.delegations.map((x: { serviceName: string }) => x.serviceName),
    ['Microsoft.Sql/managedInstances'],
  );

  const del = await az(home, ['network', 'vnet', 'subnet', 'delete', '-g', 'netRG', '--vnet-name', 'myVnet', '-n', 'aci']);
  assert.equal(del.code, 0, del.stderr);
  assert.equal(del.stdout, '');
  const missing = await az(home, ['network', 'vnet', 'subnet', 'show', '-g', 'netRG', '--vnet-name', 'myVnet', '-n', 'aci']);
  assert.equal(missing.code, 3);
  assert.equal(
    missing.stderr,
    `ERROR: (NotFound) Resource ${rg}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/aci not found.\nCode: NotFound\nMessage: Resource ${rg}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/aci not found.\n`,
  );
});

test('Microsoft.Network rejections print as az prints them, exit 1', async () => {
  const overlap = await az(home, [
    'network',
    'vnet',
    'subnet',
    'create',
    '-g',
    'netRG',
    '--vnet-name',
    'myVnet',
    '-n',
    'clash',
    '--address-prefixes',
    '10.224.128.0/24',
  ]);
  assert.equal(overlap.code, 1);
  assert.equal(overlap.stdout, '');
  assert.equal(
    overlap.stderr,
    "ERROR: (NetcfgSubnetRangesOverlap) Subnet 'clash' is not valid because its IP address range overlaps with that of an existing subnet in virtual network 'myVnet'.\n" +
      "Code: NetcfgSubnetRangesOverlap\nMessage: Subnet 'clash' is not valid because its IP address range overlaps with that of an existing subnet in virtual network 'myVnet'.\n",
  );
  const outside = await az(home, [
    'network',
    'vnet',
    'subnet',
    'create',
    '-g',
    'netRG',
    '--vnet-name',
    'myVnet',
    '-n',
    'out',
    '--address-prefixes',
    '192.168.0.0/24',
  ]);
  assert.equal(outside.code, 1);
  assert.match(
    outside.stderr,
    /^ERROR: \(NetcfgSubnetRangeOutsideVnet\) Subnet 'out' is not valid because its IP address range is outside the IP address range of virtual network 'myVnet'\.\n/,
  );
  const noVnet = await az(home, ['network', 'vnet', 'subnet', 'create', '-g', 'netRG', '--vnet-name', 'nope', '-n', 's', '--address-prefixes', '10.0.0.0/24']);
  assert.notEqual(noVnet.code, 0);
  assert.match(noVnet.stderr, /^ERROR: \(/);
  const usage = await az(home, ['network', 'vnet', 'subnet', 'create', '-g', 'netRG', '-n', 's']);
  assert.equal(usage.code, 2);
  assert.equal(usage.stderr, 'ERROR: the following arguments are required: --vnet-name\n');
});

test('role assignment create/list: by role name at a subnet scope, the exact-scope list, --all, table', async () => {
  const scope = `${rg}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/nodes`;
  const principal = '11111111-2222-3333-4444-555555555555';
  const created = await json(['role', 'assignment', 'create', '--role', 'Network Contributor', '--assignee', principal, '--scope', scope]);
  assert.equal(created.scope, scope);
  assert.equal(created.principalId, principal);
  assert.equal(created.roleDefinitionId, `/subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions/4d97b98b-1d4f-4787-a291-c67834d212e7`);
  assert.match(created.id, new RegExp(`^${scope}/providers/Microsoft.Authorization/roleAssignments/[0-9a-f-]{36}$`));
  assert.equal(created.type, 'Microsoft.Authorization/roleAssignments');
  assert.equal(created.resourceGroup, 'netRG');

  const byGroup = await json([
    'role',
    'assignment',
    'create',
    '--role',
    'Reader',
    '--assignee-object-id',
    principal,
    '--assignee-principal-type',
    'ServicePrincipal',
    '-g',
    'netRG',
  ]);
  assert.equal(byGroup.scope, rg);
  assert.equal(byGroup.principalType, 'ServicePrincipal');

  const listed = await json(['role', 'assignment', 'list', '--scope', scope]);
  assert.equal(listed.length, 1, 'only the assignments made at exactly the scope');
  assert.equal(listed[0].roleDefinitionName, 'Network Contributor');
  assert.equal(listed[0].principalName, '');
  assert.deepEqual(await json(['role', 'assignment', 'list', '-g', 'netRG', '--query', '[].roleDefinitionName']), ['Reader']);
  assert.deepEqual((await json(['role', 'assignment', 'list', '--all', '--assignee', principal, '--query', '[].roleDefinitionName'])).sort(), [
    'Network Contributor',
    'Reader',
  ]);

  const table = await az(home, ['role', 'assignment', 'list', '--scope', scope, '-o', 'table']);
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.split('\n');
  assert.match(lines[0]!, /^Principal\s+Role\s+Scope$/);
  assert.match(lines[2]!, new RegExp(`^\\s+Network Contributor\\s+${scope}$`));

  const unknownRole = await az(home, ['role', 'assignment', 'create', '--role', 'Nope', '--assignee', principal, '--scope', scope]);
  assert.equal(unknownRole.code, 1);
  assert.equal(unknownRole.stderr, "ERROR: Role 'Nope' doesn't exist.\n");
  const allAndScope = await az(home, ['role', 'assignment', 'list', '--all', '-g', 'netRG']);
  assert.equal(allAndScope.code, 1);
  assert.equal(allAndScope.stderr, 'ERROR: group or scope are not required when --all is used\n');
});
