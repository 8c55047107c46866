// virtualNetworkPeerings through @azure/arm-network (docs/aks-rules.md §11 V1–V9): Initiated, then Connected when
// the remote side peers back, Disconnected when one side goes; the sync level after an address-space change and
// `syncRemoteAddressSpace`; ARM's errors for overlapping address spaces (directly and through a VNet already
// peered), a remote VNet that does not exist, remote gateways; the VNet's own view of its peerings.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupId, POLL, resourcesClient, restError, vnetId, withServer, type Env } from './harness.js';

async function vnet(env: Env, name: string, prefixes: string[], group = 'rg') {
  return env.network.virtualNetworks.beginCreateOrUpdateAndWait(group, name, { location: 'eastus', addressSpace: { addressPrefixes: prefixes } }, POLL);
}

function peer(env: Env, from: string, name: string, to: string, extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
  return env.network.virtualNetworkPeerings.beginCreateOrUpdateAndWait(
    'rg',
    from,
    name,
    { remoteVirtualNetwork: { id: vnetId(env, to) }, allowVirtualNetworkAccess: true, ...extra },
    { ...POLL, ...options },
  );
}

const peeringId = (env: Env, vnet: string, name: string) => `${vnetId(env, vnet)}/virtualNetworkPeerings/${name}`;

describe('virtual network peerings through @azure/arm-network', () => {
  test('Initiated, Connected, Disconnected; both sides; the VNet lists its peerings', () =>
    withServer(async (env) => {
      await vnet(env, 'hub', ['10.1.0.0/16']);
      await vnet(env, 'spoke', ['10.2.0.0/16']);
      const a = await peer(env, 'hub', 'hub-to-spoke', 'spoke', { allowForwardedTraffic: true });
      assert.equal(a.id, peeringId(env, 'hub', 'hub-to-spoke'));
      assert.equal(a.type, 'Microsoft.Network/virtualNetworks/virtualNetworkPeerings');
      assert.equal(a.peeringState, 'Initiated');
      assert.equal(a.peeringSyncLevel, 'RemoteNotInSync');
      assert.equal(a.provisioningState, 'Succeeded');
      assert.deepEqual([a.allowVirtualNetworkAccess, a.allowForwardedTraffic, a.allowGatewayTransit, a.useRemoteGateways], [true, true, false, false]);
      assert.deepEqual(a.remoteAddressSpace?.addressPrefixes, ['10.2.0.0/16']);

      const b = await peer(env, 'spoke', 'spoke-to-hub', 'hub');
      assert.equal(b.peeringState, 'Connected');
      assert.equal(b.peeringSyncLevel, 'FullyInSync');
      const aNow = await env.network.virtualNetworkPeerings.get('rg', 'hub', 'hub-to-spoke');
      assert.equal(aNow.peeringState, 'Connected');
      assert.equal(aNow.peeringSyncLevel, 'FullyInSync');
      const hub = await env.network.virtualNetworks.get('rg', 'hub');
      assert.deepEqual(
        hub.virtualNetworkPeerings?.map((p) => `${p.name} ${p.peeringState}`),
        ['hub-to-spoke Connected'],
      );
      const listed: string[] = [];
      for await (const p of env.network.virtualNetworkPeerings.list('rg', 'spoke')) listed.push(p.name!);
      assert.deepEqual(listed, ['spoke-to-hub']);

      // az's generic update PUTs the VNet back with its peerings: kept as they are.
      const back = await env.network.virtualNetworks.beginCreateOrUpdateAndWait('rg', 'hub', { ...hub, tags: { t: '1' } }, POLL);
      assert.equal(back.virtualNetworkPeerings?.[0]?.peeringState, 'Connected');

      await env.network.virtualNetworkPeerings.beginDeleteAndWait('rg', 'spoke', 'spoke-to-hub', POLL);
      assert.equal((await env.network.virtualNetworkPeerings.get('rg', 'hub', 'hub-to-spoke')).peeringState, 'Disconnected');
      const recreate = await restError(peer(env, 'spoke', 'spoke-to-hub', 'hub'));
      assert.equal(recreate.code, 'RemotePeeringIsDisconnected');
      // Deleting the Disconnected side too and peering again starts over.
      await env.network.virtualNetworkPeerings.beginDeleteAndWait('rg', 'hub', 'hub-to-spoke', POLL);
      assert.equal((await peer(env, 'spoke', 'spoke-to-hub', 'hub')).peeringState, 'Initiated');
      assert.equal((await peer(env, 'hub', 'hub-to-spoke', 'spoke')).peeringState, 'Connected');
      // Deleting a VNet takes its peerings; the other side is Disconnected.
      await env.network.virtualNetworks.beginDeleteAndWait('rg', 'hub', POLL);
      assert.equal((await env.network.virtualNetworkPeerings.get('rg', 'spoke', 'spoke-to-hub')).peeringState, 'Disconnected');
    }));

  test('errors: overlap, overlap with an already peered VNet, missing remote, remote gateways, self, a second peering to one VNet', () =>
    withServer(async (env) => {
      await vnet(env, 'a', ['10.0.0.0/16', '172.16.0.0/16']);
      await vnet(env, 'b', ['10.0.128.0/17']);
      await vnet(env, 'c', ['192.168.0.0/24']);
      await vnet(env, 'd', ['192.168.0.0/16']);
      const overlap = await restError(peer(env, 'a', 'a-to-b', 'b'));
      assert.equal(overlap.statusCode, 400);
      assert.equal(overlap.code, 'VnetAddressSpacesOverlap');
      assert.equal(
        overlap.message,
        `Cannot create or update peering ${peeringId(env, 'a', 'a-to-b')}. Virtual networks ${vnetId(env, 'a')} and ${vnetId(env, 'b')} cannot be peered because their address spaces overlap. Overlapping address prefixes: 10.0.0.0/16, 10.0.128.0/17`,
      );
      // c is peered with a; d overlaps c, so d cannot peer with a.
      await peer(env, 'a', 'a-to-c', 'c');
      await peer(env, 'c', 'c-to-a', 'a');
      const third = await restError(peer(env, 'd', 'd-to-a', 'a'));
      assert.equal(third.code, 'VnetAddressSpaceOverlapsWithAlreadyPeeredVnet');
      assert.match(third.message, /already peered with the second virtual network\. Overlapping address prefixes: 192\.168\.0\.0\/16, 192\.168\.0\.0\/24\.$/);

      const missing = `${groupId(env)}/providers/Microsoft.Network/virtualNetworks/nope`;
      const gone = await restError(
        env.network.virtualNetworkPeerings.beginCreateOrUpdateAndWait('rg', 'a', 'a-to-nope', { remoteVirtualNetwork: { id: missing } }, POLL),
      );
      assert.equal(gone.code, 'InvalidGlobalResourceReference');
      assert.equal(
        gone.message,
        `Resource ${missing} referenced by resource ${peeringId(env, 'a', 'a-to-nope')} was not found. Please make sure that the referenced resource exists.`,
      );
      await vnet(env, 'e', ['10.9.0.0/16']);
      const gw = await restError(peer(env, 'e', 'e-to-c', 'c', { useRemoteGateways: true }));
      assert.equal(gw.code, 'RemoteVnetHasNoGateways');
      assert.equal((await restError(peer(env, 'e', 'self', 'e'))).code, 'CannotPeerVirtualNetworkWithItself');
      assert.equal((await restError(peer(env, 'a', 'again', 'c'))).code, 'PeeringWithRemoteVirtualNetworkAlreadyExists');
      // A new peering inside a VNet PUT is not modelled, and says so.
      const inline = await restError(
        env.network.virtualNetworks.beginCreateOrUpdateAndWait(
          'rg',
          'e',
          {
            location: 'eastus',
            addressSpace: { addressPrefixes: ['10.9.0.0/16'] },
            virtualNetworkPeerings: [{ name: 'x', remoteVirtualNetwork: { id: vnetId(env, 'c') } }],
          },
          POLL,
        ),
      );
      assert.equal(inline.code, 'UnsupportedFeature');
      // Nothing refused was stored.
      const names: string[] = [];
      for await (const p of env.network.virtualNetworkPeerings.list('rg', 'e')) names.push(p.name!);
      assert.deepEqual(names, []);
    }));

  test('an address-space change: LocalNotInSync and RemoteNotInSync until the stale side syncs; an overlapping change is refused', () =>
    withServer(async (env) => {
      await vnet(env, 'one', ['10.1.0.0/16']);
      await vnet(env, 'two', ['10.2.0.0/16']);
      await peer(env, 'one', 'one-to-two', 'two');
      await peer(env, 'two', 'two-to-one', 'one');
      await vnet(env, 'one', ['10.1.0.0/16', '10.3.0.0/16']);
      assert.equal((await env.network.virtualNetworkPeerings.get('rg', 'one', 'one-to-two')).peeringSyncLevel, 'RemoteNotInSync');
      const stale = await env.network.virtualNetworkPeerings.get('rg', 'two', 'two-to-one');
      assert.equal(stale.peeringSyncLevel, 'LocalNotInSync');
      assert.deepEqual(stale.remoteAddressSpace?.addressPrefixes, ['10.1.0.0/16']);
      assert.deepEqual(stale.remoteVirtualNetworkAddressSpace?.addressPrefixes, ['10.1.0.0/16', '10.3.0.0/16']);
      const synced = await peer(env, 'two', 'two-to-one', 'one', {}, { syncRemoteAddressSpace: 'true' });
      assert.equal(synced.peeringSyncLevel, 'FullyInSync');
      assert.equal((await env.network.virtualNetworkPeerings.get('rg', 'one', 'one-to-two')).peeringSyncLevel, 'FullyInSync');
      const clash = await restError(vnet(env, 'one', ['10.1.0.0/16', '10.2.0.0/24']));
      assert.equal(clash.code, 'VnetAddressSpaceOverlapsWithAlreadyPeeredVnet');
    }));
});

describe('deleting a resource group with public IPs, a NAT gateway, a load balancer and a peered VNet', () => {
  test('addresses go back to the emulated range and the subnet, the remote peering is Disconnected', () =>
    withServer(async (env) => {
      const resources = resourcesClient(env.server);
      await resources.resourceGroups.createOrUpdate('other', { location: 'eastus' });
      await vnet(env, 'keep', ['10.50.0.0/16']);
      await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'keep', 'web', { addressPrefix: '10.50.0.0/24' }, POLL);
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'other',
        'gone',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.60.0.0/16'] } },
        POLL,
      );
      const gone = vnetId(env, 'gone', 'other');
      await env.network.virtualNetworkPeerings.beginCreateOrUpdateAndWait('rg', 'keep', 'keep-gone', { remoteVirtualNetwork: { id: gone } }, POLL);
      await env.network.virtualNetworkPeerings.beginCreateOrUpdateAndWait(
        'other',
        'gone',
        'gone-keep',
        { remoteVirtualNetwork: { id: vnetId(env, 'keep') } },
        POLL,
      );
      const pip = await env.network.publicIPAddresses.beginCreateOrUpdateAndWait('other', 'ip', { location: 'eastus' }, POLL);
      assert.equal(pip.ipAddress, '198.19.0.1');
      const nat = await env.network.natGateways.beginCreateOrUpdateAndWait('other', 'nat', { location: 'eastus', publicIpAddresses: [{ id: pip.id }] }, POLL);
      await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'keep', 'web', { addressPrefix: '10.50.0.0/24', natGateway: { id: nat.id } }, POLL);
      // An internal load balancer in the group with its address in the kept subnet.
      const lb = await env.network.loadBalancers.beginCreateOrUpdateAndWait(
        'other',
        'ilb',
        { location: 'eastus', frontendIPConfigurations: [{ name: 'fe', subnet: { id: `${vnetId(env, 'keep')}/subnets/web` } }] },
        POLL,
      );
      assert.equal(lb.frontendIPConfigurations?.[0]?.privateIPAddress, '10.50.0.4');

      await resources.resourceGroups.beginDeleteAndWait('other', POLL);
      assert.equal((await env.network.virtualNetworkPeerings.get('rg', 'keep', 'keep-gone')).peeringState, 'Disconnected');
      const web = await env.network.subnets.get('rg', 'keep', 'web');
      assert.equal(web.natGateway, undefined, 'the subnet lost the deleted group’s NAT gateway');
      assert.equal(web.ipConfigurations, undefined, 'the load balancer’s address went back');
      const again = await env.network.publicIPAddresses.beginCreateOrUpdateAndWait('rg', 'ip', { location: 'eastus' }, POLL);
      assert.equal(again.ipAddress, '198.19.0.1', 'the deleted group’s address is free again');
    }));
});
