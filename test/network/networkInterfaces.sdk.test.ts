// Network interfaces through @azure/arm-network: dynamic addresses from .4 up, static ones, the RP's
// address errors, subnet.ipConfigurations, parallel creates, restarts and resource group deletes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NetworkInterface } from '@azure/arm-network';
import { https } from '../e2e/harness.js';
import { groupId, POLL, resourcesClient, restart, restError, vnetId, withServer, type Env } from './harness.js';

const SUBNET = (env: Env) => `${vnetId(env, 'v')}/subnets/nodes`;

async function vnet(env: Env): Promise<void> {
  await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
    'rg',
    'v',
    { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets: [{ name: 'nodes', addressPrefix: '10.0.1.0/24' }] },
    POLL,
  );
}

function nic(env: Env, name: string, ip?: { static: string }, group = 'rg'): Promise<NetworkInterface> {
  return env.network.networkInterfaces.beginCreateOrUpdateAndWait(
    group,
    name,
    {
      location: 'eastus',
      ipConfigurations: [
        ip
          ? { name: 'ipconfig1', subnet: { id: SUBNET(env) }, privateIPAllocationMethod: 'Static', privateIPAddress: ip.static }
          : { name: 'ipconfig1', subnet: { id: SUBNET(env) }, privateIPAllocationMethod: 'Dynamic' },
      ],
    },
    POLL,
  );
}

function address(n: NetworkInterface): string {
  return n.ipConfigurations![0]!.privateIPAddress!;
}

describe('networkInterfaces through @azure/arm-network', () => {
  test('dynamic addresses land on .4, .5, …; static ones are checked; subnet.ipConfigurations lists who uses the subnet', () =>
    withServer(async (env) => {
      await vnet(env);
      const n1 = await nic(env, 'nic1');
      assert.equal(n1.id, `${groupId(env)}/providers/Microsoft.Network/networkInterfaces/nic1`);
      assert.equal(n1.type, 'Microsoft.Network/networkInterfaces');
      assert.equal(n1.provisioningState, 'Succeeded');
      const config = n1.ipConfigurations![0]!;
      assert.equal(config.id, `${n1.id}/ipConfigurations/ipconfig1`);
      assert.equal(config.privateIPAddress, '10.0.1.4');
      assert.equal(config.privateIPAllocationMethod, 'Dynamic');
      assert.equal(config.privateIPAddressVersion, 'IPv4');
      assert.equal(config.primary, true);
      assert.equal(config.subnet?.id, SUBNET(env));
      assert.equal(config.provisioningState, 'Succeeded');

      assert.equal(address(await nic(env, 'nic2')), '10.0.1.5');
      assert.equal(address(await nic(env, 'nic3', { static: '10.0.1.10' })), '10.0.1.10');
      assert.equal(address(await nic(env, 'nic4')), '10.0.1.6');

      const taken = await restError(nic(env, 'nic5', { static: '10.0.1.5' }));
      assert.equal(taken.code, 'PrivateIPAddressIsAllocated');
      assert.equal(
        taken.message,
        `IP configuration ${groupId(env)}/providers/Microsoft.Network/networkInterfaces/nic5/ipConfigurations/ipconfig1 is using the private IP address 10.0.1.5 which is already allocated to resource ${groupId(env)}/providers/Microsoft.Network/networkInterfaces/nic2.`,
      );
      const reserved = await restError(nic(env, 'nic5', { static: '10.0.1.3' }));
      assert.equal(reserved.code, 'PrivateIPAddressInReservedRange');
      assert.equal(reserved.message, 'Private static IP address 10.0.1.3 falls within reserved IP range of subnet prefix 10.0.1.0/24.');
      const broadcast = await restError(nic(env, 'nic5', { static: '10.0.1.255' }));
      assert.equal(broadcast.code, 'PrivateIPAddressInReservedRange');
      const outside = await restError(nic(env, 'nic5', { static: '10.0.2.4' }));
      assert.equal(outside.code, 'PrivateIPAddressNotInSubnet');
      assert.equal(outside.message, 'Private static IP address 10.0.2.4 does not belong to the range of subnet prefix 10.0.1.0/24.');
      // A failed create leaves nothing behind.
      assert.equal((await restError(env.network.networkInterfaces.get('rg', 'nic5'))).code, 'ResourceNotFound');

      const subnet = await env.network.subnets.get('rg', 'v', 'nodes');
      assert.deepEqual(subnet.ipConfigurations!.map((c) => c.id!.split('/networkInterfaces/')[1]).sort(), [
        'nic1/ipConfigurations/ipconfig1',
        'nic2/ipConfigurations/ipconfig1',
        'nic3/ipConfigurations/ipconfig1',
        'nic4/ipConfigurations/ipconfig1',
      ]);

      const inUse = await restError(env.network.subnets.beginDeleteAndWait('rg', 'v', 'nodes', POLL));
      assert.equal(inUse.code, 'InUseSubnetCannotBeDeleted');
      assert.match(
        inUse.message,
        /^Subnet nodes is in use by \/subscriptions\/.+\/networkInterfaces\/nic\d\/ipConfigurations\/ipconfig1 and cannot be deleted\. In order to delete the subnet, delete all the resources within the subnet\. See aka\.ms\/deletesubnet\.$/,
      );

      // Deleting nic2 frees .5, which the next dynamic NIC takes (lowest free first).
      await env.network.networkInterfaces.beginDeleteAndWait('rg', 'nic2', POLL);
      assert.equal(address(await nic(env, 'nic6')), '10.0.1.5');

      // An update keeps a dynamic address and adds a secondary configuration.
      const updated = await env.network.networkInterfaces.beginCreateOrUpdateAndWait(
        'rg',
        'nic1',
        {
          location: 'eastus',
          ipConfigurations: [
            { name: 'ipconfig1', subnet: { id: SUBNET(env) }, primary: true },
            { name: 'ipconfig2', subnet: { id: SUBNET(env) } },
          ],
        },
        POLL,
      );
      assert.deepEqual(
        updated.ipConfigurations!.map((c) => [c.name, c.privateIPAddress, c.primary]),
        [
          ['ipconfig1', '10.0.1.4', true],
          ['ipconfig2', '10.0.1.7', false],
        ],
      );
      const list: string[] = [];
      for await (const n of env.network.networkInterfaces.list('rg')) list.push(n.name!);
      assert.deepEqual(list.sort(), ['nic1', 'nic3', 'nic4', 'nic6']);

      // A vnet PUT that leaves out a subnet in use is refused, and changes nothing.
      const dropped = await restError(
        env.network.virtualNetworks.beginCreateOrUpdateAndWait(
          'rg',
          'v',
          { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets: [] },
          POLL,
        ),
      );
      assert.equal(dropped.code, 'InUseSubnetCannotBeDeleted');
      assert.equal((await env.network.subnets.get('rg', 'v', 'nodes')).ipConfigurations?.length, 5);
    }));

  test('parallel creates into one subnet never share an address', () =>
    withServer(async (env) => {
      await vnet(env);
      const nics = await Promise.all(Array.from({ length: 12 }, (_, i) => nic(env, `p${i}`)));
      const addresses = nics.map(address).sort((a, b) => Number(a.split('.')[3]) - Number(b.split('.')[3]));
      assert.deepEqual(
        addresses,
        Array.from({ length: 12 }, (_, i) => `10.0.1.${i + 4}`),
      );
    }));

  test('restart keeps the vnet and every NIC address; allocation continues where it was', () =>
    withServer(async (env) => {
      await vnet(env);
      await nic(env, 'a');
      await nic(env, 'b');
      await env.network.networkInterfaces.beginDeleteAndWait('rg', 'a', POLL);
      await restart(env);
      const v = await env.network.virtualNetworks.get('rg', 'v');
      assert.equal(v.provisioningState, 'Succeeded');
      assert.equal(v.subnets![0]!.addressPrefix, '10.0.1.0/24');
      assert.equal(address(await env.network.networkInterfaces.get('rg', 'b')), '10.0.1.5');
      // .4 was freed before the restart, .5 is still b's.
      assert.equal(address(await nic(env, 'c')), '10.0.1.4');
      assert.equal(address(await nic(env, 'd')), '10.0.1.6');
      const anonymous = await https(env.server, 'GET', `${groupId(env)}/providers/Microsoft.Network/networkInterfaces/b?api-version=2024-05-01`);
      assert.equal(anonymous.status, 401);
    }));

  test("deleting a resource group releases the addresses its NICs held in another group's subnet", () =>
    withServer(async (env) => {
      await vnet(env);
      await resourcesClient(env.server).resourceGroups.createOrUpdate('nodes-rg', { location: 'eastus' });
      assert.equal(address(await nic(env, 'n1', undefined, 'nodes-rg')), '10.0.1.4');
      assert.equal(address(await nic(env, 'n2', undefined, 'nodes-rg')), '10.0.1.5');
      assert.equal((await env.network.subnets.get('rg', 'v', 'nodes')).ipConfigurations?.length, 2);
      await resourcesClient(env.server).resourceGroups.beginDeleteAndWait('nodes-rg', POLL);
      assert.equal((await env.network.subnets.get('rg', 'v', 'nodes')).ipConfigurations, undefined);
      assert.equal(address(await nic(env, 'back')), '10.0.1.4');

      // The other way round: the vnet's group cannot go while another group's NIC uses its subnet.
      await resourcesClient(env.server).resourceGroups.createOrUpdate('nodes-rg', { location: 'eastus' });
      await nic(env, 'n3', undefined, 'nodes-rg');
      const blocked = await restError(resourcesClient(env.server).resourceGroups.beginDeleteAndWait('rg', POLL));
      assert.equal(blocked.code, 'InUseSubnetCannotBeDeleted');
      assert.ok((await env.network.virtualNetworks.get('rg', 'v')).id);
    }));
});
