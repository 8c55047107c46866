// Managed clusters end to end through the official SDKs against a real server: the seed's BYO CNI cluster,
// kubenet's route table, Azure CNI's pre-allocated NIC addresses, every rule family rejecting bad input,
// busy clusters, parallel creates on one subnet, restart persistence, and cleanup on delete.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { bearer, https } from '../e2e/harness.js';
import { restart, restError, withServer, type Env } from '../network/harness.js';
import { aksClient, cluster, POLL, subnet } from './harness.js';

const MC = 'MC_rg_c1_eastus';
const NETWORK_CONTRIBUTOR = '4d97b98b-1d4f-4787-a291-c67834d212e7';

/** What az does after creating a cluster on a BYO subnet (docs/clients.md §3.4.3). */
async function grantNetworkContributor(env: Env, principalId: string, scope: string): Promise<void> {
  const res = await https(env.server, 'PUT', `${scope}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}?api-version=2020-04-01-preview`, {
    headers: { ...(await bearer(env.server)), 'content-type': 'application/json' },
    body: JSON.stringify({
      properties: { roleDefinitionId: `/subscriptions/${env.sub}/providers/Microsoft.Authorization/roleDefinitions/${NETWORK_CONTRIBUTOR}`, principalId },
    }),
  });
  assert.equal(res.status, 201, res.text);
}

async function nicAddresses(env: Env, group = MC): Promise<string[]> {
  const out: string[] = [];
  for await (const nic of env.network.networkInterfaces.list(group)) {
    for (const c of nic.ipConfigurations ?? []) out.push(c.privateIPAddress!);
  }
  return out;
}

describe('managedClusters through @azure/arm-containerservice', () => {
  test('the seed BYO CNI cluster: Succeeded, plugin none, nodes on the managed VNet, no route table', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      const created = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'none' }), POLL);
      assert.equal(created.provisioningState, 'Succeeded');
      assert.equal(created.networkProfile?.networkPlugin, 'none');
      assert.equal(created.nodeResourceGroup, MC);
      assert.equal(created.kubernetesVersion, '1.32.9');
      assert.equal(created.agentPoolProfiles?.[0]?.maxPods, 250); // real BYO CNI clusters report 250 (docs/aks-rules.md §3.7)
      assert.equal(created.id, `/subscriptions/${env.sub}/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/c1`);
      assert.deepEqual((await nicAddresses(env)).sort(), ['10.224.0.4', '10.224.0.5', '10.224.0.6']);
      const tables = [];
      for await (const t of env.network.routeTables.list(MC)) tables.push(t);
      assert.equal(tables.length, 0);
      const vnets = [];
      for await (const v of env.network.virtualNetworks.list(MC)) vnets.push(v);
      assert.deepEqual(vnets[0]?.addressSpace?.addressPrefixes, ['10.224.0.0/12']);
      assert.equal(vnets[0]?.subnets?.[0]?.addressPrefix, '10.224.0.0/16');

      const listed = [];
      for await (const c of aks.managedClusters.listByResourceGroup('rg')) listed.push(c.name);
      for await (const c of aks.managedClusters.list()) listed.push(c.name);
      assert.deepEqual(listed, ['c1', 'c1']);
      // The wire, not the SDK's model (which fills in its own defaults): 2022-11-01 returns no BYO CNI pod CIDR.
      const raw = await https(env.server, 'GET', `${created.id}?api-version=2022-11-01`, { headers: await bearer(env.server) });
      assert.equal(raw.json.properties.networkProfile.podCidr, undefined);
      assert.equal(raw.json.properties.networkProfile.dockerBridgeCidr, '172.17.0.1/16');
      assert.deepEqual(raw.json.properties.servicePrincipalProfile, { clientId: 'msi' });
      const newer = await https(env.server, 'GET', `${created.id}?api-version=2026-04-01`, { headers: await bearer(env.server) });
      assert.equal(newer.json.properties.networkProfile.dockerBridgeCidr, undefined);
    }));

  test('kubenet: one /24 and one UDR per node in aks-agentpool-<digits>-routetable', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      const created = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }), POLL);
      assert.equal(created.networkProfile?.podCidr, '10.244.0.0/16');
      const tables = [];
      for await (const t of env.network.routeTables.list(MC)) tables.push(t);
      assert.equal(tables.length, 1);
      assert.match(tables[0]!.name!, /^aks-agentpool-\d{8}-routetable$/);
      const routes = tables[0]!.routes!.map((r) => [r.name, r.addressPrefix, r.nextHopType, r.nextHopIpAddress]);
      assert.equal(routes.length, 3);
      assert.match(String(routes[0]![0]), /^aks-nodepool1-\d{8}-vmss000000$/);
      assert.deepEqual(
        routes.map((r) => r.slice(1)),
        [
          ['10.244.0.0/24', 'VirtualAppliance', '10.224.0.4'],
          ['10.244.1.0/24', 'VirtualAppliance', '10.224.0.5'],
          ['10.244.2.0/24', 'VirtualAppliance', '10.224.0.6'],
        ],
      );
      assert.equal(tables[0]!.subnets?.length, 1, 'associated with the managed subnet');

      // Scale to 5 and back to 2: routes follow the nodes; scale-in removes the highest instance ids.
      await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { count: 5, mode: 'System', vmSize: 'Standard_DS2_v2' }, POLL);
      await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { count: 2, mode: 'System', vmSize: 'Standard_DS2_v2' }, POLL);
      const table = await env.network.routeTables.get(MC, tables[0]!.name!);
      assert.deepEqual(
        table.routes!.map((r) => r.name!.slice(-6)),
        ['000000', '000001'],
      );
      assert.deepEqual((await nicAddresses(env)).sort(), ['10.224.0.4', '10.224.0.5']);
    }));

  test('Azure CNI on a BYO /24: 31 addresses per node, InsufficientSubnetSize at 9 nodes, at scale and at upgrade', () =>
    withServer(async (env) => {
      const subnetId = await subnet(env, 'vnet1', '10.240.0.0/16', 'aks-subnet', '10.240.0.0/24');
      const aks = aksClient(env.server);
      const nine = await restError(
        aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'azure' }, { count: 9, vnetSubnetID: subnetId }), POLL),
      );
      assert.equal(nine.statusCode, 400);
      assert.equal(nine.code, 'InsufficientSubnetSize');
      assert.equal(
        nine.message,
        'Pre-allocated IPs 279 exceeds IPs available 251 in Subnet Cidr 10.240.0.0/24, Subnet Name aks-subnet. http://aka.ms/aks/insufficientsubnetsize',
      );
      await assert.rejects(aks.managedClusters.get('rg', 'c1'), /not found/, 'a refused create leaves nothing behind');

      const created = await aks.managedClusters.beginCreateOrUpdateAndWait(
        'rg',
        'c1',
        cluster({ networkPlugin: 'azure' }, { count: 8, vnetSubnetID: subnetId }),
        POLL,
      );
      assert.equal(created.agentPoolProfiles?.[0]?.maxPods, 30);
      // Without Network Contributor on the subnet, the cluster identity cannot add nodes to it (S4).
      const denied = await restError(
        aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { count: 9, mode: 'System', vnetSubnetID: subnetId }, POLL),
      );
      assert.equal(denied.code, 'LinkedAuthorizationFailed');
      assert.match(
        denied.message,
        /does not have permission to perform action 'Microsoft\.Network\/virtualNetworks\/subnets\/join\/action' on the linked scope\(s\) '.*\/subnets\/aks-subnet'/,
      );
      await grantNetworkContributor(env, created.identity!.principalId!, subnetId);
      const addresses = await nicAddresses(env);
      assert.equal(addresses.length, 248);
      assert.equal(new Set(addresses).size, 248);
      const sub = await env.network.subnets.get('rg', 'vnet1', 'aks-subnet');
      assert.equal(sub.ipConfigurations?.length, 248);

      const scale = await restError(
        aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { count: 9, mode: 'System', vnetSubnetID: subnetId }, POLL),
      );
      assert.equal(scale.code, 'InsufficientSubnetSize');
      assert.match(scale.message, /^Pre-allocated IPs 31 exceeds IPs available 3 in Subnet Cidr 10\.240\.0\.0\/24/);
      const upgrade = await restError(
        aks.managedClusters.beginCreateOrUpdateAndWait(
          'rg',
          'c1',
          { ...cluster({ networkPlugin: 'azure' }, { count: 8, vnetSubnetID: subnetId, orchestratorVersion: '1.33' }), kubernetesVersion: '1.33' },
          POLL,
        ),
      );
      assert.equal(upgrade.code, 'InsufficientSubnetSize', 'the surge node does not fit');
      assert.equal((await aks.managedClusters.get('rg', 'c1')).provisioningState, 'Succeeded');

      await aks.managedClusters.beginDeleteAndWait('rg', 'c1', POLL);
      assert.equal((await env.network.subnets.get('rg', 'vnet1', 'aks-subnet')).ipConfigurations?.length ?? 0, 0, 'delete releases every address');
      await assert.rejects(env.network.virtualNetworks.list(MC).next(), /could not be found/);
    }));

  test('each rule family answers 400 with its code, message and target', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      const create = (name: string, c: ReturnType<typeof cluster>) => restError(aks.managedClusters.beginCreateOrUpdateAndWait('rg', name, c, POLL));

      const cidr = await create('c1', cluster({ networkPlugin: 'kubenet', serviceCidr: '10.200.0.0/16' }));
      assert.equal(cidr.code, 'DnsServiceIpOutOfServiceCidr');
      assert.equal(cidr.message, 'The DNS service IP 10.0.0.10 is out of the range defined by service CIDR 10.200.0.0/16.');

      const plugin = await create('c1', {
        ...cluster({ networkPlugin: 'kubenet' }),
        agentPoolProfiles: [
          { name: 'nodepool1', count: 1, mode: 'System' },
          { name: 'win', count: 1, mode: 'User', osType: 'Windows' },
        ],
        windowsProfile: { adminUsername: 'azureuser', adminPassword: 'P@ssw0rd1234567!' },
      });
      assert.equal(plugin.code, 'AzureCNIOnlyForWindows');

      const delegated = await subnet(env, 'vnet2', '10.50.0.0/16', 'sql', '10.50.0.0/24', {
        delegations: [{ name: 'd', serviceName: 'Microsoft.Sql/managedInstances' }],
      });
      const subnetRule = await create('c1', cluster({ networkPlugin: 'azure' }, { vnetSubnetID: delegated }));
      assert.equal(subnetRule.code, 'SubnetIsDelegated');

      const pods = await create('c1', cluster({ networkPlugin: 'kubenet' }, { maxPods: 10, count: 2 }));
      assert.equal(pods.code, 'InsufficientAgentPoolMaxPodsPerAgentPool');

      const capacity = await create('c1', cluster({ networkPlugin: 'kubenet', podCidr: '10.240.100.0/24' }));
      assert.equal(capacity.code, 'InsufficientPodCidr');
      assert.equal(capacity.message, 'Pre-allocated IPs 768 exceeds IPs available 256 in Pod Cidr 10.240.100.0/24');

      // Several problems in one request are all reported, each once: the first is the error, the others its details.
      const many = await create('c1', cluster({ networkPlugin: 'kubenet', podCidr: '10.0.0.0/16', dnsServiceIP: '10.0.0.1' }));
      const details = (many.details as { error?: { details?: Array<{ code: string }> } } | undefined)?.error?.details ?? [];
      assert.deepEqual([many.code, ...details.map((d) => d.code)].sort(), ['DnsServiceIpConflicting', 'PodCidrOverlapServiceCidr']);
      assert.ok(!details.some((d) => d.code === many.code), 'the first problem is not repeated in details');

      // Mutability: the service CIDR of an existing cluster cannot change.
      await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }), POLL);
      const immutable = await create('c1', cluster({ networkPlugin: 'kubenet', serviceCidr: '10.1.0.0/16', dnsServiceIP: '10.1.0.10' }));
      assert.equal(immutable.code, 'PropertyChangeNotAllowed');
      assert.equal(immutable.message, "Changing property 'networkProfile.serviceCidr' is not allowed.");
      const systemPool = await restError(aks.agentPools.beginDeleteAndWait('rg', 'c1', 'nodepool1', POLL));
      assert.equal(systemPool.code, 'MustDefineAtLeastOneSystemPool');
    }));

  test('service CIDR against the VNet, and two kubenet clusters on one subnet', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'vnet1',
        {
          location: 'eastus',
          addressSpace: { addressPrefixes: ['10.0.0.0/8'] },
          subnets: [
            { name: 'aks', addressPrefix: '10.240.0.0/16' },
            { name: 'db', addressPrefix: '10.0.5.0/24' },
          ],
        },
        POLL,
      );
      const aksSubnet = `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet1/subnets/aks`;
      const overlap = await restError(
        aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'azure' }, { vnetSubnetID: aksSubnet }), POLL),
      );
      assert.equal(overlap.code, 'ServiceCidrOverlapExistingSubnetsCidr');
      assert.equal(overlap.message, 'The specified service CIDR 10.0.0.0/16 is conflicted with an existing subnet CIDR 10.0.5.0/24');

      const net = { networkPlugin: 'kubenet', podCidr: '172.20.0.0/16', serviceCidr: '192.168.0.0/16', dnsServiceIP: '192.168.0.10' };
      await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'k1', cluster(net, { vnetSubnetID: aksSubnet, count: 1 }), POLL);
      const second = await restError(aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'k2', cluster(net, { vnetSubnetID: aksSubnet, count: 1 }), POLL));
      assert.equal(second.code, 'SubnetUsedByAnotherKubenetCluster');
      // kubenet on a BYO subnet: AKS's route table in the node resource group is associated with the user's subnet.
      const sub = await env.network.subnets.get('rg', 'vnet1', 'aks');
      assert.match(sub.routeTable?.id ?? '', /\/resourceGroups\/MC_rg_k1_eastus\/providers\/Microsoft\.Network\/routeTables\/aks-agentpool-\d{8}-routetable$/);
      await aks.managedClusters.beginDeleteAndWait('rg', 'k1', POLL);
      assert.equal((await env.network.subnets.get('rg', 'vnet1', 'aks')).routeTable, undefined, 'delete takes the association away');
    }));

  test('a busy cluster refuses a second operation with 409 OperationNotAllowed', async () => {
    const { startTestServer, tempHome, removeHome } = await import('../e2e/harness.js');
    const home = tempHome();
    const server = await startTestServer({ home, lroDelayMs: 400 });
    try {
      const { resourcesClient } = await import('../network/harness.js');
      await resourcesClient(server).resourceGroups.createOrUpdate('rg', { location: 'eastus' });
      const aks = aksClient(server);
      const poller = await aks.managedClusters.beginCreateOrUpdate('rg', 'c1', cluster({ networkPlugin: 'none' }), POLL);
      const busy = await restError(aks.managedClusters.beginCreateOrUpdate('rg', 'c1', cluster({ networkPlugin: 'none' }), POLL));
      assert.equal(busy.statusCode, 409);
      assert.equal(busy.code, 'OperationNotAllowed');
      assert.equal(
        busy.message,
        'Operation is not allowed: Another operation (Creating) is in progress, please wait for it to finish before starting a new operation. See https://aka.ms/aks-pending-operation for more details',
      );
      assert.equal((await poller.pollUntilDone()).provisioningState, 'Succeeded');
    } finally {
      await server.close();
      removeHome(home);
    }
  });

  test('parallel creates into one subnet never share an address; restart keeps clusters and addresses', () =>
    withServer(async (env) => {
      const subnetId = await subnet(env, 'vnet1', '10.240.0.0/16', 'shared', '10.240.0.0/22');
      const aks = aksClient(env.server);
      const names = ['p1', 'p2', 'p3', 'p4'];
      const results = await Promise.all(
        names.map((n) =>
          aks.managedClusters.beginCreateOrUpdateAndWait('rg', n, cluster({ networkPlugin: 'azure' }, { count: 2, vnetSubnetID: subnetId }), POLL),
        ),
      );
      assert.ok(results.every((r) => r.provisioningState === 'Succeeded'));
      let all: string[] = [];
      for (const n of names) all = all.concat(await nicAddresses(env, `MC_rg_${n}_eastus`));
      assert.equal(all.length, 4 * 2 * 31);
      assert.equal(new Set(all).size, all.length, 'no address handed out twice');

      await restart(env);
      const after = aksClient(env.server);
      assert.equal((await after.managedClusters.get('rg', 'p1')).provisioningState, 'Succeeded');
      assert.deepEqual(await nicAddresses(env, 'MC_rg_p1_eastus'), await nicAddresses(env, 'MC_rg_p1_eastus'));
      await after.managedClusters.beginCreateOrUpdateAndWait('rg', 'p5', cluster({ networkPlugin: 'azure' }, { count: 1, vnetSubnetID: subnetId }), POLL);
      const fresh = await nicAddresses(env, 'MC_rg_p5_eastus');
      assert.equal(fresh.filter((a) => all.includes(a)).length, 0, 'after a restart new nodes get new addresses');
    }));

  test('agent pools: add, list, scale, delete; resource group delete cascades to the node resource group', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }, { count: 1 }), POLL);
      const user = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'user1', { count: 2, mode: 'User', vmSize: 'Standard_DS2_v2' }, POLL);
      assert.equal(user.provisioningState, 'Succeeded');
      assert.equal(user.maxPods, 110);
      const pools = [];
      for await (const p of aks.agentPools.list('rg', 'c1')) pools.push(`${p.name}:${p.count}`);
      assert.deepEqual(pools, ['nodepool1:1', 'user1:2']);
      const missingCount = await restError(aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'user2', { mode: 'User' }, POLL));
      assert.equal(missingCount.code, 'InvalidParameter');
      assert.equal(missingCount.message, 'Required parameter properties.count is missing (null).');
      await aks.agentPools.beginDeleteAndWait('rg', 'c1', 'user1', POLL);
      assert.equal((await nicAddresses(env)).length, 1);
      const { resourcesClient } = await import('../network/harness.js');
      await resourcesClient(env.server).resourceGroups.beginDeleteAndWait('rg', POLL);
      assert.equal(
        await resourcesClient(env.server)
          .resourceGroups.checkExistence(MC)
          .then((r) => r.body),
        false,
      );
    }));

  test('an operation cut short by a stop finishes after the restart, with its addresses', async () => {
    const { startTestServer, tempHome, removeHome } = await import('../e2e/harness.js');
    const { resourcesClient } = await import('../network/harness.js');
    const home = tempHome();
    let server = await startTestServer({ home, lroDelayMs: 60_000 });
    try {
      await resourcesClient(server).resourceGroups.createOrUpdate('rg', { location: 'eastus' });
      const accepted = await aksClient(server).managedClusters.beginCreateOrUpdate('rg', 'c1', cluster({ networkPlugin: 'kubenet' }), POLL);
      assert.equal(accepted.getOperationState().status, 'running');
      await server.close();
      server = await startTestServer({ home });
      const aks = aksClient(server);
      let state = (await aks.managedClusters.get('rg', 'c1')).provisioningState;
      for (let i = 0; i < 500 && state === 'Creating'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        state = (await aks.managedClusters.get('rg', 'c1')).provisioningState;
      }
      assert.equal(state, 'Succeeded');
      const { networkClient } = await import('../network/harness.js');
      const addresses: string[] = [];
      for await (const nic of networkClient(server).networkInterfaces.list(MC)) addresses.push(nic.ipConfigurations![0]!.privateIPAddress!);
      assert.deepEqual(addresses.sort(), ['10.224.0.4', '10.224.0.5', '10.224.0.6']);
    } finally {
      await server.close();
      removeHome(home);
    }
  });
});
