// Network security groups and route tables through @azure/arm-network: default rules, child
// resources, association with subnets and the back-references, in-use deletes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupId, nodesVnet, POLL, restError, vnetId, withServer } from './harness.js';

const vnet = nodesVnet;

describe('NSGs and route tables through @azure/arm-network', () => {
  test('NSG: default rules, security rules inline and as children, subnet association, in-use delete', () =>
    withServer(async (env) => {
      await vnet(env);
      const nsg = await env.network.networkSecurityGroups.beginCreateOrUpdateAndWait(
        'rg',
        'nsg1',
        {
          location: 'eastus',
          securityRules: [
            {
              name: 'ssh',
              protocol: 'Tcp',
              access: 'Allow',
              direction: 'Inbound',
              priority: 100,
              sourceAddressPrefix: '*',
              sourcePortRange: '*',
              destinationAddressPrefix: '*',
              destinationPortRange: '22',
            },
          ],
        },
        POLL,
      );
      const nsgId = `${groupId(env)}/providers/Microsoft.Network/networkSecurityGroups/nsg1`;
      assert.equal(nsg.id, nsgId);
      assert.equal(nsg.provisioningState, 'Succeeded');
      assert.deepEqual(
        nsg.defaultSecurityRules!.map((r) => `${r.name} ${r.direction} ${r.access} ${r.priority}`),
        [
          'AllowVnetInBound Inbound Allow 65000',
          'AllowAzureLoadBalancerInBound Inbound Allow 65001',
          'DenyAllInBound Inbound Deny 65500',
          'AllowVnetOutBound Outbound Allow 65000',
          'AllowInternetOutBound Outbound Allow 65001',
          'DenyAllOutBound Outbound Deny 65500',
        ],
      );
      assert.equal(nsg.securityRules![0]!.id, `${nsgId}/securityRules/ssh`);
      assert.equal(nsg.securityRules![0]!.provisioningState, 'Succeeded');

      const https = await env.network.securityRules.beginCreateOrUpdateAndWait(
        'rg',
        'nsg1',
        'https',
        {
          protocol: 'Tcp',
          access: 'Allow',
          direction: 'Inbound',
          priority: 110,
          sourceAddressPrefix: 'Internet',
          sourcePortRange: '*',
          destinationAddressPrefix: '*',
          destinationPortRange: '443',
        },
        POLL,
      );
      assert.equal(https.provisioningState, 'Succeeded');
      const rules: string[] = [];
      for await (const r of env.network.securityRules.list('rg', 'nsg1')) rules.push(r.name!);
      assert.deepEqual(rules, ['ssh', 'https']);

      const clash = await restError(
        env.network.securityRules.beginCreateOrUpdateAndWait(
          'rg',
          'nsg1',
          'dup',
          {
            protocol: '*',
            access: 'Deny',
            direction: 'Inbound',
            priority: 110,
            sourceAddressPrefix: '*',
            sourcePortRange: '*',
            destinationAddressPrefix: '*',
            destinationPortRange: '*',
          },
          POLL,
        ),
      );
      assert.equal(clash.code, 'SecurityRuleConflict');
      const badPriority = await restError(
        env.network.securityRules.beginCreateOrUpdateAndWait(
          'rg',
          'nsg1',
          'low',
          {
            protocol: '*',
            access: 'Deny',
            direction: 'Inbound',
            priority: 50,
            sourceAddressPrefix: '*',
            sourcePortRange: '*',
            destinationAddressPrefix: '*',
            destinationPortRange: '*',
          },
          POLL,
        ),
      );
      assert.equal(badPriority.code, 'SecurityRuleInvalidPriority');

      // Associate through a subnet PUT (az network vnet subnet update --network-security-group).
      const subnet = await env.network.subnets.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        'nodes',
        { addressPrefix: '10.0.0.0/24', networkSecurityGroup: { id: nsgId } },
        POLL,
      );
      assert.equal(subnet.networkSecurityGroup?.id, nsgId);
      const associated = await env.network.networkSecurityGroups.get('rg', 'nsg1');
      assert.deepEqual(
        associated.subnets?.map((s) => s.id),
        [`${vnetId(env, 'v')}/subnets/nodes`],
      );

      const inUse = await restError(env.network.networkSecurityGroups.beginDeleteAndWait('rg', 'nsg1', POLL));
      assert.equal(inUse.code, 'InUseNetworkSecurityGroupCannotBeDeleted');
      assert.equal(
        inUse.message,
        `Network security group ${nsgId} cannot be deleted because it is in use by the following resources: ${vnetId(env, 'v')}/subnets/nodes. In order to delete the Network security group, remove the association with the resource(s).`,
      );

      // A reference to something that does not exist.
      const dangling = await restError(
        env.network.subnets.beginCreateOrUpdateAndWait('rg', 'v', 'nodes', { addressPrefix: '10.0.0.0/24', networkSecurityGroup: { id: `${nsgId}x` } }, POLL),
      );
      assert.equal(dangling.code, 'InvalidResourceReference');
      assert.equal(
        dangling.message,
        `Resource ${nsgId}x referenced by resource ${vnetId(env, 'v')}/subnets/nodes was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`,
      );

      // Dissociate, then the NSG can go; a child rule can go too.
      await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'v', 'nodes', { addressPrefix: '10.0.0.0/24' }, POLL);
      assert.equal((await env.network.networkSecurityGroups.get('rg', 'nsg1')).subnets, undefined);
      await env.network.securityRules.beginDeleteAndWait('rg', 'nsg1', 'ssh', POLL);
      assert.deepEqual(
        (await env.network.networkSecurityGroups.get('rg', 'nsg1')).securityRules!.map((r) => r.name),
        ['https'],
      );
      await env.network.networkSecurityGroups.beginDeleteAndWait('rg', 'nsg1', POLL);
      assert.equal((await restError(env.network.networkSecurityGroups.get('rg', 'nsg1'))).code, 'ResourceNotFound');
    }));

  test('route table: routes inline and as children, subnet association and back-reference, in-use delete', () =>
    withServer(async (env) => {
      await vnet(env);
      const tableId = `${groupId(env)}/providers/Microsoft.Network/routeTables/rt1`;
      const table = await env.network.routeTables.beginCreateOrUpdateAndWait(
        'rg',
        'rt1',
        { location: 'eastus', routes: [{ name: 'default', addressPrefix: '0.0.0.0/0', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.0.0.4' }] },
        POLL,
      );
      assert.equal(table.id, tableId);
      assert.equal(table.disableBgpRoutePropagation, false);
      assert.equal(table.routes![0]!.id, `${tableId}/routes/default`);

      const route = await env.network.routes.beginCreateOrUpdateAndWait(
        'rg',
        'rt1',
        'aks-node-0',
        { addressPrefix: '10.244.0.0/24', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.0.0.5' },
        POLL,
      );
      assert.equal(route.provisioningState, 'Succeeded');
      assert.equal(route.nextHopIpAddress, '10.0.0.5');
      const names: string[] = [];
      for await (const r of env.network.routes.list('rg', 'rt1')) names.push(r.name!);
      assert.deepEqual(names, ['default', 'aks-node-0']);

      const noHop = await restError(
        env.network.routes.beginCreateOrUpdateAndWait('rg', 'rt1', 'bad', { addressPrefix: '10.9.0.0/24', nextHopType: 'VirtualAppliance' }, POLL),
      );
      assert.equal(noHop.code, 'InvalidRouteNextHop');

      const subnet = await env.network.subnets.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        'nodes',
        { addressPrefix: '10.0.0.0/24', routeTable: { id: tableId } },
        POLL,
      );
      assert.equal(subnet.routeTable?.id, tableId);
      assert.deepEqual(
        (await env.network.routeTables.get('rg', 'rt1')).subnets?.map((s) => s.id),
        [`${vnetId(env, 'v')}/subnets/nodes`],
      );

      const inUse = await restError(env.network.routeTables.beginDeleteAndWait('rg', 'rt1', POLL));
      assert.equal(inUse.code, 'InUseRouteTableCannotBeDeleted');

      // Deleting the subnet drops the back-reference.
      await env.network.subnets.beginDeleteAndWait('rg', 'v', 'nodes', POLL);
      assert.equal((await env.network.routeTables.get('rg', 'rt1')).subnets, undefined);
      await env.network.routes.beginDeleteAndWait('rg', 'rt1', 'default', POLL);
      await env.network.routeTables.beginDeleteAndWait('rg', 'rt1', POLL);
      const all: string[] = [];
      for await (const t of env.network.routeTables.listAll()) all.push(t.name!);
      assert.deepEqual(all, []);
    }));
});
