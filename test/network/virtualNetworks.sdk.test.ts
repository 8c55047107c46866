// Virtual networks and subnets through the official @azure/arm-network SDK (its LRO pollers) against
// a real server, plus the wire details az relies on, checked with raw requests.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, https } from '../e2e/harness.js';
import { POLL, restError, vnetId, withServer } from './harness.js';

describe('virtualNetworks and subnets through @azure/arm-network', () => {
  test('vnet with an inline subnet, a second subnet, get, list, delete', () =>
    withServer(async (env) => {
      const vnet = await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'myVnet',
        { location: 'East US', addressSpace: { addressPrefixes: ['10.224.0.0/12'] }, subnets: [{ name: 'default', addressPrefix: '10.224.0.0/16' }] },
        POLL,
      );
      assert.equal(vnet.id, vnetId(env, 'myVnet'));
      assert.equal(vnet.name, 'myVnet');
      assert.equal(vnet.type, 'Microsoft.Network/virtualNetworks');
      assert.equal(vnet.location, 'eastus');
      assert.match(vnet.etag!, /^W\/"[0-9a-f-]{36}"$/);
      assert.equal(vnet.provisioningState, 'Succeeded');
      assert.match(vnet.resourceGuid!, /^[0-9a-f-]{36}$/);
      assert.deepEqual(vnet.addressSpace?.addressPrefixes, ['10.224.0.0/12']);
      assert.equal(vnet.subnets?.length, 1);
      assert.equal(vnet.subnets![0]!.id, `${vnetId(env, 'myVnet')}/subnets/default`);
      assert.equal(vnet.subnets![0]!.type, 'Microsoft.Network/virtualNetworks/subnets');
      assert.equal(vnet.subnets![0]!.addressPrefix, '10.224.0.0/16');
      assert.equal(vnet.subnets![0]!.provisioningState, 'Succeeded');

      const subnet = await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'myVnet', 'aks-subnet', { addressPrefix: '10.225.0.0/16' }, POLL);
      assert.equal(subnet.id, `${vnetId(env, 'myVnet')}/subnets/aks-subnet`);
      assert.equal(subnet.provisioningState, 'Succeeded');
      assert.equal(subnet.privateEndpointNetworkPolicies, 'Disabled');

      // The server keeps the parent's subnets itself (az never re-reads the vnet).
      const again = await env.network.virtualNetworks.get('rg', 'MYVNET');
      assert.deepEqual(again.subnets!.map((s) => s.name).sort(), ['aks-subnet', 'default']);
      const listed: string[] = [];
      for await (const s of env.network.subnets.list('rg', 'myVnet')) listed.push(s.name!);
      assert.deepEqual(listed.sort(), ['aks-subnet', 'default']);

      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'other',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.1.0.0/16'] } },
        POLL,
      );
      const inGroup: string[] = [];
      for await (const v of env.network.virtualNetworks.list('rg')) inGroup.push(v.name!);
      assert.deepEqual(inGroup.sort(), ['myVnet', 'other']);
      const inSub: string[] = [];
      for await (const v of env.network.virtualNetworks.listAll()) inSub.push(v.name!);
      assert.deepEqual(inSub.sort(), ['myVnet', 'other']);

      // A subnet can carry both forms of prefix; addressPrefixes is echoed as sent.
      const multi = await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'other', 'two', { addressPrefixes: ['10.1.0.0/24', '10.1.1.0/24'] }, POLL);
      assert.deepEqual(multi.addressPrefixes, ['10.1.0.0/24', '10.1.1.0/24']);
      assert.equal(multi.addressPrefix, undefined);

      // Delegations come back with the actions Azure fills in.
      const delegated = await env.network.subnets.beginCreateOrUpdateAndWait(
        'rg',
        'myVnet',
        'aci',
        { addressPrefix: '10.226.0.0/24', delegations: [{ name: 'aci', serviceName: 'Microsoft.ContainerInstance/containerGroups' }] },
        POLL,
      );
      assert.deepEqual(
        delegated.delegations!.map((d) => [d.id, d.type, d.serviceName, d.actions, d.provisioningState]),
        [
          [
            `${vnetId(env, 'myVnet')}/subnets/aci/delegations/aci`,
            'Microsoft.Network/virtualNetworks/subnets/delegations',
            'Microsoft.ContainerInstance/containerGroups',
            ['Microsoft.Network/virtualNetworks/subnets/action'],
            'Succeeded',
          ],
        ],
      );

      await env.network.subnets.beginDeleteAndWait('rg', 'myVnet', 'aks-subnet', POLL);
      const gone = await restError(env.network.subnets.get('rg', 'myVnet', 'aks-subnet'));
      assert.equal(gone.statusCode, 404);
      assert.equal(gone.code, 'NotFound');
      assert.equal(gone.message, `Resource ${vnetId(env, 'myVnet')}/subnets/aks-subnet not found.`);

      await env.network.virtualNetworks.beginDeleteAndWait('rg', 'myVnet', POLL);
      const missing = await restError(env.network.virtualNetworks.get('rg', 'myVnet'));
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.code, 'ResourceNotFound');
      assert.equal(
        missing.message,
        "The Resource 'Microsoft.Network/virtualNetworks/myVnet' under resource group 'rg' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
      );
      // Deleting what is not there is not an error.
      await env.network.virtualNetworks.beginDeleteAndWait('rg', 'myVnet', POLL);
    }));

  test('a subnet outside the vnet, overlapping subnets and bad prefixes are refused with the RP codes', () =>
    withServer(async (env) => {
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'vnet1',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets: [{ name: 'a', addressPrefix: '10.0.0.0/24' }] },
        POLL,
      );
      const outside = await restError(env.network.subnets.beginCreateOrUpdateAndWait('rg', 'vnet1', 'b', { addressPrefix: '10.1.0.0/24' }, POLL));
      assert.equal(outside.statusCode, 400);
      assert.equal(outside.code, 'NetcfgSubnetRangeOutsideVnet');
      assert.equal(outside.message, "Subnet 'b' is not valid because its IP address range is outside the IP address range of virtual network 'vnet1'.");

      const overlap = await restError(env.network.subnets.beginCreateOrUpdateAndWait('rg', 'vnet1', 'b', { addressPrefix: '10.0.0.128/25' }, POLL));
      assert.equal(overlap.code, 'NetcfgSubnetRangesOverlap');
      assert.equal(
        overlap.message,
        "Subnet 'b' is not valid because its IP address range overlaps with that of an existing subnet in virtual network 'vnet1'.",
      );

      const hostBits = await restError(env.network.subnets.beginCreateOrUpdateAndWait('rg', 'vnet1', 'b', { addressPrefix: '10.0.1.1/24' }, POLL));
      assert.equal(hostBits.code, 'InvalidCIDRNotation');
      assert.equal(
        hostBits.message,
        `The address prefix 10.0.1.1/24 in resource ${vnetId(env, 'vnet1')}/subnets/b has an invalid CIDR notation. For the given prefix length, the address prefix should be 10.0.1.0/24.`,
      );

      const garbage = await restError(env.network.subnets.beginCreateOrUpdateAndWait('rg', 'vnet1', 'b', { addressPrefix: '10.0.1.0' }, POLL));
      assert.equal(garbage.code, 'InvalidAddressPrefixFormat');

      const tiny = await restError(env.network.subnets.beginCreateOrUpdateAndWait('rg', 'vnet1', 'b', { addressPrefix: '10.0.1.0/30' }, POLL));
      assert.equal(tiny.code, 'NetcfgInvalidSubnet');
      assert.equal(tiny.message, "Subnet 'b' is not valid in virtual network 'vnet1'.");

      // Two inline subnets of one PUT are checked against each other too.
      const inline = await restError(
        env.network.virtualNetworks.beginCreateOrUpdateAndWait(
          'rg',
          'vnet2',
          {
            location: 'eastus',
            addressSpace: { addressPrefixes: ['10.5.0.0/16'] },
            subnets: [
              { name: 'x', addressPrefix: '10.5.0.0/24' },
              { name: 'y', addressPrefix: '10.5.0.0/25' },
            ],
          },
          POLL,
        ),
      );
      assert.equal(inline.code, 'NetcfgSubnetRangesOverlap');
      assert.equal(inline.message, "Subnet 'y' is not valid because its IP address range overlaps with that of an existing subnet in virtual network 'vnet2'.");

      // Shrinking the address space below an existing subnet is refused.
      const shrink = await restError(
        env.network.virtualNetworks.beginCreateOrUpdateAndWait(
          'rg',
          'vnet1',
          { location: 'eastus', addressSpace: { addressPrefixes: ['10.9.0.0/16'] }, subnets: [{ name: 'a', addressPrefix: '10.0.0.0/24' }] },
          POLL,
        ),
      );
      assert.equal(shrink.code, 'NetcfgSubnetRangeOutsideVnet');
    }));

  test('az on the wire: 201 Updating with Azure-AsyncOperation at api-version 2022-01-01, operation Succeeded, strict bodies', () =>
    withServer(async (env) => {
      const headers = { ...(await bearer(env.server)), 'content-type': 'application/json' };
      const path = `${vnetId(env, 'myVnet')}?api-version=2022-01-01`;
      // The exact body az network vnet create sends (docs/clients.md §3.9).
      const body = JSON.stringify({
        location: 'eastus',
        properties: {
          addressSpace: { addressPrefixes: ['10.224.0.0/12'] },
          enableDdosProtection: false,
          enableVmProtection: false,
          subnets: [{ name: 'default', properties: { addressPrefix: '10.224.0.0/16' } }],
        },
      });
      const created = await https(env.server, 'PUT', path, { headers, body });
      assert.equal(created.status, 201);
      assert.equal(created.json.properties.provisioningState, 'Updating');
      const asyncOp = String(created.headers['azure-asyncoperation']);
      assert.match(
        asyncOp,
        new RegExp(
          `^${env.server.url}/subscriptions/${env.sub}/providers/Microsoft.Network/locations/eastus/operations/[0-9a-f-]{36}\\?api-version=2022-01-01$`,
        ),
      );
      let status = '';
      for (let i = 0; i < 50 && status !== 'Succeeded'; i++) {
        status = (await https(env.server, 'GET', asyncOp.slice(env.server.url.length), { headers })).json.status;
        if (status !== 'Succeeded') await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(status, 'Succeeded');
      const got = await https(env.server, 'GET', path, { headers });
      assert.equal(got.json.properties.provisioningState, 'Succeeded');
      assert.equal(got.json.properties.subnets[0].properties.provisioningState, 'Succeeded');

      // az's subnet create body carries a name; a second PUT of the vnet is an update (200).
      const subnet = await https(env.server, 'PUT', `${vnetId(env, 'myVnet')}/subnets/aks-subnet?api-version=2022-01-01`, {
        headers,
        body: JSON.stringify({ name: 'aks-subnet', properties: { addressPrefix: '10.225.0.0/16' } }),
      });
      assert.equal(subnet.status, 201);
      const updated = await https(env.server, 'PUT', path, {
        headers,
        body: JSON.stringify({ ...JSON.parse(body), properties: { ...JSON.parse(body).properties, subnets: got.json.properties.subnets } }),
      });
      assert.equal(updated.status, 200);

      // What aksemu does not model is named, not dropped.
      const unknown = await https(env.server, 'PUT', `${vnetId(env, 'myVnet')}/subnets/alloc?api-version=2022-01-01`, {
        headers,
        body: JSON.stringify({ properties: { addressPrefix: '10.226.0.0/24', ipAllocations: [{ id: '/x' }] } }),
      });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.error.code, 'InvalidRequestContent');
      assert.match(unknown.json.error.message, /Could not find member 'ipAllocations' on object of type 'SubnetPropertiesFormat'/);
      // A NAT gateway is modelled: a malformed reference to one is ARM's LinkedInvalidPropertyId.
      const nat = await https(env.server, 'PUT', `${vnetId(env, 'myVnet')}/subnets/nat?api-version=2022-01-01`, {
        headers,
        body: JSON.stringify({ properties: { addressPrefix: '10.226.0.0/24', natGateway: { id: '/x' } } }),
      });
      assert.equal(nat.status, 400);
      assert.equal(nat.json.error.code, 'LinkedInvalidPropertyId');

      // An api-version the RP never published.
      const badVersion = await https(env.server, 'GET', `${vnetId(env, 'myVnet')}?api-version=2099-01-01`, { headers });
      assert.equal(badVersion.status, 400);
      assert.equal(badVersion.json.error.code, 'NoRegisteredProviderFound');
    }));

  test('a vnet PUT without a subnet deletes it; a vnet in a missing group is ResourceGroupNotFound; no token is 401', () =>
    withServer(async (env) => {
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        {
          location: 'eastus',
          addressSpace: { addressPrefixes: ['10.0.0.0/16'] },
          subnets: [
            { name: 'a', addressPrefix: '10.0.0.0/24' },
            { name: 'b', addressPrefix: '10.0.1.0/24' },
          ],
        },
        POLL,
      );
      const after = await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets: [{ name: 'a', addressPrefix: '10.0.0.0/24' }] },
        POLL,
      );
      assert.deepEqual(
        after.subnets!.map((s) => s.name),
        ['a'],
      );

      const noGroup = await restError(
        env.network.virtualNetworks.beginCreateOrUpdateAndWait('nope', 'v', { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] } }, POLL),
      );
      assert.equal(noGroup.statusCode, 404);
      assert.equal(noGroup.code, 'ResourceGroupNotFound');

      const anonymous = await https(env.server, 'GET', `${vnetId(env, 'v')}?api-version=2022-01-01`);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.json.error.code, 'AuthenticationFailed');
    }));
});
