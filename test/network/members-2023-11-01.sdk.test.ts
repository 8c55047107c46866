// Request members of Microsoft.Network 2023-11-01 that aksemu stores and returns as sent (the REST spec's
// examples use them): NSG flushConnection, VNet bgpCommunities and encryption, subnet sharingScope and
// defaultOutboundAccess; and references to Network resources aksemu does not serve (public IPs, service
// endpoint policies), refused as Network refuses a reference to a missing resource.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { POLL, restError, withServer } from './harness.js';

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
});
