// Request members of Microsoft.Network 2023-11-01 that aksemu stores and returns as sent (the REST spec's
// examples use them): NSG flushConnection, VNet bgpCommunities and encryption, subnet sharingScope and
// defaultOutboundAccess; and references to Network resources aksemu does not serve (public IPs, service
// endpoint policies), refused as Network refuses a reference to a missing resource.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupId, POLL, restError, withServer, type Env } from './harness.js';

async function vnet(env: Env): Promise<void> {
  await env.network.virtualNetworks.beginCreateOrUpdateAndWait('rg', 'v', { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] } }, POLL);
}

describe('Network 2023-11-01 request members through @azure/arm-network', () => {
  test('NSG flushConnection: false unless sent, kept when sent', () =>
    withServer(async (env) => {
      const plain = await env.network.networkSecurityGroups.beginCreateOrUpdateAndWait('rg', 'nsg1', { location: 'eastus' }, POLL);
      assert.equal(plain.flushConnection, false);
      const flushing = await env.network.networkSecurityGroups.beginCreateOrUpdateAndWait('rg', 'nsg2', { location: 'eastus', flushConnection: true }, POLL);
      assert.equal(flushing.flushConnection, true);
      assert.equal((await env.network.networkSecurityGroups.get('rg', 'nsg2')).flushConnection, true);
    }));

  test('VNet bgpCommunities and encryption: stored and returned as sent; a wrong enforcement is refused', () =>
    withServer(async (env) => {
      const vnet = await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        {
          location: 'eastus',
          addressSpace: { addressPrefixes: ['10.0.0.0/16'] },
          bgpCommunities: { virtualNetworkCommunity: '12076:20000' },
          encryption: { enabled: true, enforcement: 'allowunencrypted' },
        },
        POLL,
      );
      assert.equal(vnet.bgpCommunities?.virtualNetworkCommunity, '12076:20000');
      assert.deepEqual(vnet.encryption, { enabled: true, enforcement: 'AllowUnencrypted' });
      const read = await env.network.virtualNetworks.get('rg', 'v');
      assert.deepEqual(read.encryption, { enabled: true, enforcement: 'AllowUnencrypted' });
      const wrong = await restError(
        env.network.virtualNetworks.beginCreateOrUpdateAndWait(
          'rg',
          'w',
          {
            location: 'eastus',
            addressSpace: { addressPrefixes: ['10.1.0.0/16'] },
            encryption: { enabled: true, enforcement: 'Sometimes' as 'AllowUnencrypted' },
          },
          POLL,
        ),
      );
      assert.equal(wrong.statusCode, 400);
      assert.equal(wrong.code, 'InvalidRequestFormat');
      assert.equal((await env.network.virtualNetworks.get('rg', 'v')).encryption?.enabled, true);
      const plain = await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'p',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.2.0.0/16'] } },
        POLL,
      );
      assert.equal(plain.encryption, undefined);
      assert.equal(plain.bgpCommunities, undefined);
    }));

  test('subnet sharingScope and defaultOutboundAccess: kept as sent, absent unless sent; serviceEndpointPolicies name a missing resource', () =>
    withServer(async (env) => {
      await vnet(env);
      const shared = await env.network.subnets.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        's1',
        { addressPrefix: '10.0.0.0/24', sharingScope: 'tenant' as 'Tenant', defaultOutboundAccess: false },
        POLL,
      );
      assert.equal(shared.sharingScope, 'Tenant');
      assert.equal(shared.defaultOutboundAccess, false);
      const read = await env.network.subnets.get('rg', 'v', 's1');
      assert.equal(read.sharingScope, 'Tenant');
      const plain = await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'v', 's2', { addressPrefix: '10.0.1.0/24' }, POLL);
      assert.equal(plain.sharingScope, undefined);
      assert.equal(plain.defaultOutboundAccess, undefined);
      const wrongScope = await restError(
        env.network.subnets.beginCreateOrUpdateAndWait('rg', 'v', 's3', { addressPrefix: '10.0.2.0/24', sharingScope: 'World' as 'Tenant' }, POLL),
      );
      assert.equal(wrongScope.code, 'InvalidRequestFormat');
      const policy = `${groupId(env)}/providers/Microsoft.Network/serviceEndpointPolicies/p1`;
      const missing = await restError(
        env.network.subnets.beginCreateOrUpdateAndWait('rg', 'v', 's3', { addressPrefix: '10.0.2.0/24', serviceEndpointPolicies: [{ id: policy }] }, POLL),
      );
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.code, 'InvalidResourceReference');
      assert.match(missing.message, /serviceEndpointPolicies\/p1 referenced by resource .*subnets\/s3 was not found/);
      await assert.rejects(env.network.subnets.get('rg', 'v', 's3'));
    }));

  test('NIC ip configuration publicIPAddress: a missing one is InvalidResourceReference; an existing one is taken, held and let go', () =>
    withServer(async (env) => {
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets: [{ name: 'nodes', addressPrefix: '10.0.0.0/24' }] },
        POLL,
      );
      const subnet = { id: `${groupId(env)}/providers/Microsoft.Network/virtualNetworks/v/subnets/nodes` };
      const pip = `${groupId(env)}/providers/Microsoft.Network/publicIPAddresses/pip1`;
      const nicWith = (name: string, publicIPAddress?: { id: string }) =>
        env.network.networkInterfaces.beginCreateOrUpdateAndWait(
          'rg',
          name,
          { location: 'eastus', ipConfigurations: [{ name: 'ipconfig1', subnet, ...(publicIPAddress ? { publicIPAddress } : {}) }] },
          POLL,
        );
      const err = await restError(nicWith('nic1', { id: pip }));
      assert.equal(err.statusCode, 400);
      assert.equal(err.code, 'InvalidResourceReference');
      assert.match(err.message, /publicIPAddresses\/pip1 referenced by resource .*networkInterfaces\/nic1 was not found/);

      await env.network.publicIPAddresses.beginCreateOrUpdateAndWait('rg', 'pip1', { location: 'eastus', sku: { name: 'Standard' } }, POLL);
      const nic = await nicWith('nic1', { id: pip });
      const config = nic.ipConfigurations![0]!;
      assert.equal(config.publicIPAddress?.id, pip);
      assert.equal((await env.network.publicIPAddresses.get('rg', 'pip1')).ipConfiguration?.id, config.id);
      const taken = await restError(nicWith('nic2', { id: pip }));
      assert.equal(taken.code, 'PublicIPAddressInUse');
      const inUse = await restError(env.network.publicIPAddresses.beginDeleteAndWait('rg', 'pip1', POLL));
      assert.equal(inUse.code, 'PublicIPAddressCannotBeDeleted');
      assert.match(inUse.message, /still allocated to resource .*networkInterfaces\/nic1\/ipConfigurations\/ipconfig1\./);
      // Leaving the address out of the NIC lets it go.
      assert.equal((await nicWith('nic1')).ipConfigurations?.[0]?.publicIPAddress, undefined);
      assert.equal((await env.network.publicIPAddresses.get('rg', 'pip1')).ipConfiguration, undefined);
      await env.network.publicIPAddresses.beginDeleteAndWait('rg', 'pip1', POLL);
    }));

  test('service endpoint locations: the VNet region, and for Microsoft.Storage its paired region too', () =>
    withServer(async (env) => {
      await vnet(env);
      const subnet = await env.network.subnets.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        's1',
        {
          addressPrefix: '10.0.0.0/24',
          serviceEndpoints: [{ service: 'Microsoft.Storage' }, { service: 'Microsoft.Sql' }, { service: 'Microsoft.KeyVault', locations: ['*'] }],
        },
        POLL,
      );
      assert.deepEqual(
        subnet.serviceEndpoints?.map((e) => [e.service, e.locations]),
        [
          ['Microsoft.Storage', ['eastus', 'westus']],
          ['Microsoft.Sql', ['eastus']],
          ['Microsoft.KeyVault', ['*']],
        ],
      );
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'it',
        {
          location: 'italynorth',
          addressSpace: { addressPrefixes: ['10.1.0.0/16'] },
          subnets: [{ name: 'a', addressPrefix: '10.1.0.0/24', serviceEndpoints: [{ service: 'Microsoft.Storage' }] }],
        },
        POLL,
      );
      assert.deepEqual((await env.network.subnets.get('rg', 'it', 'a')).serviceEndpoints?.[0]?.locations, ['italynorth']);
    }));

  test('delegated subnets: purpose "", and no actions for a service aksemu knows none of', () =>
    withServer(async (env) => {
      await vnet(env);
      const delegated = await env.network.subnets.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        's1',
        { addressPrefix: '10.0.0.0/24', delegations: [{ name: 'd', serviceName: 'Microsoft.Provider/resourceType' }] },
        POLL,
      );
      assert.equal(delegated.purpose, '');
      assert.deepEqual(delegated.delegations?.[0]?.actions, []);
      const plain = await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'v', 's2', { addressPrefix: '10.0.1.0/24' }, POLL);
      assert.equal(plain.purpose, undefined);
    }));
});
