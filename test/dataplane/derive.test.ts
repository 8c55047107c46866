// deriveTopology on a real server's store after real ARM requests (the official SDKs and aksemu az): every
// value is checked against what ARM itself answers for the same resources.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiServerAddress, internalDomainSuffix } from '../../src/aks/azure-dns.js';
import { deriveTopology } from '../../src/dataplane/derive.js';
import type { HostTopology, VnetTopology } from '../../src/dataplane/topology.js';
import { ObservedStore } from '../../src/store/observed.js';
import { azIn } from '../compute/helpers.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer, type Env } from '../network/harness.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function vnetNamed(vnets: VnetTopology[], name: string): VnetTopology {
  const found = vnets.find((v) => v.id.toLowerCase().endsWith(`/virtualnetworks/${name.toLowerCase()}`));
  assert.ok(found, `vnet ${name} in ${vnets.map((v) => v.id).join(', ')}`);
  return found;
}

async function nicIps(env: Env, group: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for await (const nic of env.network.networkInterfaces.list(group))
    out.set(
      nic.name!,
      (nic.ipConfigurations ?? []).map((c) => c.privateIPAddress!),
    );
  return out;
}

describe('deriveTopology', () => {
  test('VNets with subnets, UDRs, NSG rules in priority order, AKS nodes of every model and VMs', () =>
    withServer(async (env) => {
      const { network } = env;
      const nsg = await network.networkSecurityGroups.beginCreateOrUpdateAndWait(
        'rg',
        'webNsg',
        {
          location: 'eastus',
          securityRules: [
            {
              name: 'deny-nodes',
              priority: 300,
              direction: 'Inbound',
              access: 'Deny',
              protocol: '*',
              sourceAddressPrefixes: ['10.224.0.0/16', '10.240.2.0/24'],
              sourcePortRange: '*',
              destinationAddressPrefix: '*',
              destinationPortRange: '*',
            },
            {
              name: 'allow-web',
              priority: 200,
              direction: 'Inbound',
              access: 'Allow',
              protocol: 'Tcp',
              sourceAddressPrefix: 'VirtualNetwork',
              sourcePortRange: '*',
              destinationAddressPrefix: '*',
              destinationPortRanges: ['80', '8080-8090'],
            },
            {
              name: 'out-deny',
              priority: 100,
              direction: 'Outbound',
              access: 'Deny',
              protocol: 'Udp',
              sourceAddressPrefix: '*',
              sourcePortRange: '*',
              destinationAddressPrefix: 'Internet',
              destinationPortRange: '53',
            },
          ],
        },
        POLL,
      );
      const table = await network.routeTables.beginCreateOrUpdateAndWait(
        'rg',
        'webRoutes',
        {
          location: 'eastus',
          routes: [
            { name: 'to-appliance', addressPrefix: '10.9.0.0/16', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.240.1.10' },
            { name: 'blackhole', addressPrefix: '192.0.2.0/24', nextHopType: 'None' },
            { name: 'tagged', addressPrefix: 'AzureCloud', nextHopType: 'Internet' },
          ],
        },
        POLL,
      );
      await network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'myVnet',
        {
          location: 'eastus',
          addressSpace: { addressPrefixes: ['10.240.0.0/16'] },
          subnets: [
            { name: 'web', addressPrefix: '10.240.1.0/24', networkSecurityGroup: { id: nsg.id! }, routeTable: { id: table.id! } },
            { name: 'aks', addressPrefix: '10.240.2.0/24' },
          ],
        },
        POLL,
      );
      const aks = aksClient(env.server);
      const kubenet = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'kn', cluster({ networkPlugin: 'kubenet' }, { count: 2 }), POLL);
      const aksSubnet = `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/aks`;
      const azure = await aks.managedClusters.beginCreateOrUpdateAndWait(
        'rg',
        'az',
        cluster({ networkPlugin: 'azure' }, { count: 2, maxPods: 15, vnetSubnetID: aksSubnet }),
        POLL,
      );
      const byo = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'byo', cluster({ networkPlugin: 'none' }, { count: 1 }), POLL);
      const vm = await azIn(env.home, [
        'vm',
        'create',
        '-g',
        'rg',
        '-n',
        'testvm',
        '--vnet-name',
        'myVnet',
        '--subnet',
        'web',
        '--private-ip-address',
        '10.240.1.100',
        '--admin-username',
        'azureuser',
        '--generate-ssh-keys',
        '--public-ip-address',
        '',
        '--nsg',
        '',
      ]);
      assert.equal(vm.code, 0, vm.stderr);

      let writes = 0;
      assert.ok(env.server.store instanceof ObservedStore);
      const stop = env.server.store.onCommit(() => writes++);
      const topology = deriveTopology(env.server.store);
      assert.deepEqual(deriveTopology(env.server.store), topology, 'same store, same topology');
      assert.equal(writes, 0, 'deriving writes nothing');
      stop();

      // The user's VNet: both subnets, the route table's CIDR routes, the NSG with its default rules.
      const mine = vnetNamed(topology.vnets, 'myVnet');
      assert.deepEqual(mine.addressSpace, ['10.240.0.0/16']);
      const armVnet = await network.virtualNetworks.get('rg', 'myVnet');
      assert.deepEqual(mine.subnets.map((s) => [s.name, s.prefix]).sort(), armVnet.subnets!.map((s) => [s.name, s.addressPrefix]).sort());
      const web = mine.subnets.find((s) => s.name === 'web')!;
      const armTable = await network.routeTables.get('rg', 'webRoutes');
      assert.deepEqual(
        web.routes,
        armTable
          .routes!.filter((r) => /\//.test(r.addressPrefix!))
          .map((r) => ({
            name: r.name,
            prefix: r.addressPrefix,
            nextHopType: r.nextHopType,
            ...(r.nextHopIpAddress ? { nextHopIp: r.nextHopIpAddress } : {}),
          })),
      );
      assert.ok(!web.routes.some((r) => r.name === 'tagged'), 'service-tag routes have no CIDR to program');
      const armNsg = await network.networkSecurityGroups.get('rg', 'webNsg');
      assert.ok(same(web.nsg!.id, armNsg.id!));
      const expectedNames = [...armNsg.securityRules!, ...armNsg.defaultSecurityRules!]
        .sort((a, b) => a.priority! - b.priority! || a.direction!.localeCompare(b.direction!))
        .map((r) => r.name);
      assert.deepEqual(
        web.nsg!.rules.map((r) => r.name),
        expectedNames,
      );
      assert.equal(web.nsg!.rules.length, 3 + 6);
      const priorities = web.nsg!.rules.map((r) => r.priority);
      assert.deepEqual(
        priorities,
        [...priorities].sort((a, b) => a - b),
      );
      const deny = web.nsg!.rules.find((r) => r.name === 'deny-nodes')!;
      assert.deepEqual(
        [deny.access, deny.direction, deny.protocol, deny.sourcePrefixes, deny.destinationPorts],
        ['Deny', 'Inbound', '*', ['10.224.0.0/16', '10.240.2.0/24'], ['*']],
      );
      assert.deepEqual(web.nsg!.rules.find((r) => r.name === 'allow-web')!.destinationPorts, ['80', '8080-8090']);
      assert.deepEqual(web.nsg!.rules.find((r) => r.name === 'AllowVnetInBound')!.sourcePrefixes, ['VirtualNetwork']);
      assert.equal(mine.subnets.find((s) => s.name === 'aks')!.nsg, undefined);

      // The VM: on web with its NIC's address.
      const vmHost = mine.hosts.find((h) => h.kind === 'vm')!;
      assert.deepEqual(
        [vmHost.name, vmHost.ip, vmHost.subnetId.toLowerCase()],
        ['testvm', vm.json.privateIpAddress, `${armVnet.id!.toLowerCase()}/subnets/web`],
      );
      assert.ok(same(vmHost.id, vm.json.id));

      // Azure CNI nodes on the user's subnet: node IP and the NIC's secondary addresses.
      const azureNodes = mine.hosts.filter((h) => h.kind === 'node');
      assert.equal(azureNodes.length, 2);
      const azNics = await nicIps(env, azure.nodeResourceGroup!);
      for (const node of azureNodes) {
        const ips = azNics.get(`${node.name}-nic`)!;
        assert.equal(node.ip, ips[0]);
        assert.deepEqual(node.node, { clusterId: node.node!.clusterId, wiring: 'transparent', secondaryIps: ips.slice(1) });
        assert.equal(node.node!.secondaryIps!.length, 15);
        assert.ok(same(node.node!.clusterId, azure.id!));
        assert.ok(same(node.subnetId, aksSubnet));
      }

      // kubenet: the managed VNet in the node resource group, its route table's UDRs one per node.
      const knVnet = topology.vnets.find((v) => v.id.toLowerCase().includes(`/resourcegroups/${kubenet.nodeResourceGroup!.toLowerCase()}/`))!;
      assert.ok(knVnet, 'the managed VNet of the kubenet cluster');
      const knArmVnet = (await network.virtualNetworks.list(kubenet.nodeResourceGroup!).next()).value!;
      assert.deepEqual(knVnet.addressSpace, knArmVnet.addressSpace!.addressPrefixes);
      const knSubnet = knVnet.subnets[0]!;
      const knTable = (await network.routeTables.list(kubenet.nodeResourceGroup!).next()).value!;
      assert.deepEqual(
        knSubnet.routes.map((r) => [r.prefix, r.nextHopIp]).sort(),
        knTable.routes!.map((r: { addressPrefix?: string; nextHopIpAddress?: string }) => [r.addressPrefix, r.nextHopIpAddress]).sort(),
      );
      const knNodes = knVnet.hosts.filter((h) => h.node?.wiring === 'bridge');
      assert.equal(knNodes.length, 2);
      const knNics = await nicIps(env, kubenet.nodeResourceGroup!);
      for (const node of knNodes) {
        assert.deepEqual([node.ip], knNics.get(`${node.name}-nic`));
        assert.equal(node.node!.clusterPodCidr, kubenet.networkProfile!.podCidr);
        // Each node's /24 is the UDR's prefix, next hop the node.
        assert.ok(
          knSubnet.routes.some((r) => r.prefix === node.node!.podCidr && r.nextHopIp === node.ip),
          `route for ${node.name}`,
        );
      }

      // Azure DNS of the VNets: each host under the internal suffixes of its VNet (its group's; a cluster's node
      // resource group's, which its nodes search), every cluster's API server FQDN at its address.
      const zone = (v: { dns?: { records: Array<[string, string[]]> } }) => new Map(v.dns!.records);
      const knZone = zone(knVnet);
      const knSuffix = internalDomainSuffix(kubenet.nodeResourceGroup!);
      for (const node of knNodes) assert.deepEqual(knZone.get(`${node.name}.${knSuffix}`), [node.ip]);
      assert.deepEqual(knZone.get(kubenet.fqdn!.toLowerCase()), [apiServerAddress(kubenet.id!)]);
      const myZone = zone(mine);
      assert.deepEqual(myZone.get(`testvm.${internalDomainSuffix('rg')}`), [vmHost.ip]);
      for (const node of azureNodes) assert.deepEqual(myZone.get(`${node.name}.${internalDomainSuffix(azure.nodeResourceGroup!)}`), [node.ip]);
      assert.equal(myZone.get(`testvm.${knSuffix}`), undefined, "another VNet's suffix");
      assert.equal(knZone.get(`testvm.${internalDomainSuffix('rg')}`), undefined, "another VNet's host");

      // BYO CNI: its own managed VNet, model none.
      const byoHosts = topology.vnets.flatMap((v) => v.hosts).filter((h: HostTopology) => h.node && same(h.node.clusterId, byo.id!));
      assert.deepEqual(
        byoHosts.map((h: HostTopology) => h.node!.wiring),
        ['none'],
      );

      // Deleting the VM takes its host away; its NIC stays (and stays on the subnet's addresses).
      const del = await azIn(env.home, ['vm', 'delete', '-g', 'rg', '-n', 'testvm', '--yes']);
      assert.equal(del.code, 0, del.stderr);
      const after = vnetNamed(deriveTopology(env.server.store).vnets, 'myVnet');
      assert.equal(after.hosts.filter((h) => h.kind === 'vm').length, 0);
      assert.equal((await network.networkInterfaces.get('rg', 'testvmVMNic')).ipConfigurations![0]!.privateIPAddress, '10.240.1.100');

      // Deleting the kubenet cluster removes its VNet from the topology.
      await aks.managedClusters.beginDeleteAndWait('rg', 'kn', POLL);
      assert.ok(!deriveTopology(env.server.store).vnets.some((v) => same(v.id, knVnet.id)));
    }));
});
