// Request members of Microsoft.Network 2023-11-01 that aksemu stores and returns as sent (the REST spec's
// examples use them): NSG flushConnection, VNet bgpCommunities and encryption, subnet sharingScope and
// defaultOutboundAccess; and references to Network resources aksemu does not serve (public IPs, service
// endpoint policies), refused as Network refuses a reference to a missing resource.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { POLL, withServer } from './harness.js';

describe('Network 2023-11-01 request members through @azure/arm-network', () => {
  test('NSG flushConnection: false unless sent, kept when sent', () =>
    withServer(async (env) => {
      const plain = await env.network.networkSecurityGroups.beginCreateOrUpdateAndWait('rg', 'nsg1', { location: 'eastus' }, POLL);
      assert.equal(plain.flushConnection, false);
      const flushing = await env.network.networkSecurityGroups.beginCreateOrUpdateAndWait('rg', 'nsg2', { location: 'eastus', flushConnection: true }, POLL);
      assert.equal(flushing.flushConnection, true);
      assert.equal((await env.network.networkSecurityGroups.get('rg', 'nsg2')).flushConnection, true);
    }));
});
