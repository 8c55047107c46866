// Dual-stack clusters (docs/aks-rules.md §9) through the SDK and the real kubectl: ipFamilies [IPv4, IPv6] gets
// AKS's IPv6 pod and service CIDRs, countIPv6, nodes with an InternalIP of each family and a pod range of each
// (the `kubectl get nodes` columns of configure-kubenet-dual-stack.md), kubenet's route per node and family, and
// the refusals with their codes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RestError } from '@azure/core-rest-pipeline';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer } from '../network/harness.js';
import { HAVE_KUBECTL, kubectl, withCluster } from './harness.js';

const DUAL = ['IPv4', 'IPv6'];
const COLUMNS = 'custom-columns=NAME:.metadata.name,ADDRESSES:.status.addresses[?(@.type=="InternalIP")].address,PODCIDRS:.spec.podCIDRs[*]';

describe('dual-stack clusters', () => {
  test(
    'kubenet on the managed VNet: defaults, countIPv6, nodes with both families in kubectl, a route per node and family',
    { skip: HAVE_KUBECTL ? false : 'no kubectl' },
    () =>
      withCluster({ networkPlugin: 'kubenet', ipFamilies: DUAL }, async (env) => {
        const aks = aksClient(env.server);
        const got = await aks.managedClusters.get('rg', 'c1');
        const net = got.networkProfile!;
        assert.deepEqual(net.ipFamilies, DUAL);
        assert.deepEqual(net.podCidrs, ['10.244.0.0/16', 'fd12:3456:789a::/64']);
        assert.deepEqual(net.serviceCidrs, ['10.0.0.0/16', 'fd12:3456:789a:1::/108']);
        assert.equal(net.podCidr, '10.244.0.0/16');
        assert.equal(net.dnsServiceIP, '10.0.0.10');
        assert.deepEqual(net.loadBalancerProfile?.managedOutboundIPs, { count: 1, countIPv6: 1 });

        const out = await kubectl(env, ['get', 'nodes', '-o', COLUMNS]);
        assert.equal(out.code, 0, out.stderr);
        const lines = out.stdout.trim().split('\n');
        assert.match(lines[0]!, /^NAME\s+ADDRESSES\s+PODCIDRS$/);
        assert.deepEqual(
          lines.slice(1).map((l) => l.split(/\s+/).slice(1)),
          [
            ['10.224.0.4,fd00:aaaa::4', '10.244.0.0/24,fd12:3456:789a::/80'],
            ['10.224.0.5,fd00:aaaa::5', '10.244.1.0/24,fd12:3456:789a:0:1::/80'],
            ['10.224.0.6,fd00:aaaa::6', '10.244.2.0/24,fd12:3456:789a:0:2::/80'],
          ],
        );
        // The data plane carries IPv4 only (docs/dataplane.md), and the IPv6 half does not stop the nodes.
        const waited = await kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=30s']);
        assert.equal(waited.code, 0, waited.stderr);

        const mc = got.nodeResourceGroup!;
        const node = lines[1]!.split(/\s+/)[0]!;
        const digits = /-(\d{8})-vmss/.exec(node)![1]!;
        const vnet = await env.network.virtualNetworks.get(mc, `aks-vnet-${digits}`);
        assert.deepEqual(vnet.addressSpace?.addressPrefixes, ['10.224.0.0/12', 'fd00:aaaa::/48']);
        assert.deepEqual(vnet.subnets?.[0]?.addressPrefixes, ['10.224.0.0/16', 'fd00:aaaa::/64']);
        const nic = await env.network.networkInterfaces.get(mc, `${node}-nic`);
        assert.deepEqual(
          nic.ipConfigurations?.map((c) => [c.privateIPAddress, c.privateIPAddressVersion, c.primary]),
          [
            ['10.224.0.4', 'IPv4', true],
            ['fd00:aaaa::4', 'IPv6', false],
          ],
        );
        const table = await env.network.routeTables.get(mc, `aks-agentpool-${digits}-routetable`);
        const routes = table.routes!.map((r) => [r.name, r.addressPrefix, r.nextHopIpAddress]).sort();
        assert.deepEqual(routes.slice(0, 2), [
          [`${node}____102440024`, '10.244.0.0/24', '10.224.0.4'],
          [`${node}____fd123456789a80`, 'fd12:3456:789a::/80', 'fd00:aaaa::4'],
        ]);
        assert.equal(routes.length, 6);
      }),
  );

  test('Azure CNI Overlay on a BYO dual-stack subnet: node addresses from both prefixes, the given CIDRs kept', () =>
    withServer(async (env) => {
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'v1',
        {
          location: 'eastus',
          addressSpace: { addressPrefixes: ['10.240.0.0/16', 'fd00:240::/48'] },
          subnets: [{ name: 'nodes', addressPrefixes: ['10.240.0.0/24', 'fd00:240::/64'] }],
        },
        POLL,
      );
      const subnetId = `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v1/subnets/nodes`;
      const aks = aksClient(env.server, '2026-04-01');
      const created = await aks.managedClusters.beginCreateOrUpdateAndWait(
        'rg',
        'c1',
        cluster(
          {
            networkPlugin: 'azure',
            networkPluginMode: 'overlay',
            ipFamilies: ['ipv4', 'ipv6'],
            podCidrs: ['192.168.0.0/16', 'fd12:3456:789b::/64'],
            serviceCidrs: ['10.0.0.0/16', 'fd12:3456:789b:1::/108'],
          },
          { count: 2, vnetSubnetID: subnetId },
        ),
        POLL,
      );
      assert.deepEqual(created.networkProfile?.ipFamilies, DUAL);
      assert.deepEqual(created.networkProfile?.podCidrs, ['192.168.0.0/16', 'fd12:3456:789b::/64']);
      const subnet = await env.network.subnets.get('rg', 'v1', 'nodes');
      const held = (subnet.ipConfigurations ?? []).length;
      assert.equal(held, 4, 'two nodes, an IPv4 and an IPv6 address each');
    }));

  test('updates: a PUT that leaves ipFamilies out keeps the cluster dual-stack; one that names IPv4 alone is refused (D13)', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet', ipFamilies: DUAL }, { count: 1 }), POLL);
      const again = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }, { count: 2 }), POLL);
      assert.deepEqual(again.networkProfile?.ipFamilies, DUAL);
      assert.deepEqual(again.networkProfile?.podCidrs, ['10.244.0.0/16', 'fd12:3456:789a::/64']);
      const err = (await aks.managedClusters
        .beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet', ipFamilies: ['IPv4'] }, { count: 2 }), POLL)
        .then(
          () => assert.fail('accepted'),
          (e: unknown) => e,
        )) as RestError & { details?: { error?: { code?: string; target?: string } } };
      assert.deepEqual([err.statusCode, err.details?.error?.code, err.details?.error?.target], [400, 'PropertyChangeNotAllowed', 'networkProfile.ipFamilies']);
    }));

  test('refusals: Azure CNI node subnet, a single-stack BYO subnet, IPv6 only, a /104 IPv6 service CIDR', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server, '2026-04-01');
      const refused = async (network: Parameters<typeof cluster>[0], pool: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
        const err = (await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'bad', cluster(network, pool), POLL).then(
          () => assert.fail('accepted'),
          (e: unknown) => e,
        )) as RestError & { details?: { error?: Record<string, unknown> } };
        assert.equal(err.statusCode, 400);
        return (err.details?.error ?? {}) as Record<string, unknown>;
      };
      assert.equal((await refused({ networkPlugin: 'azure', ipFamilies: DUAL }))['code'], 'UnsupportedDualStackNetworkPlugin');
      assert.equal((await refused({ networkPlugin: 'kubenet', ipFamilies: ['IPv6'] }))['code'], 'IPv6NotSupported');
      const mask = await refused({ networkPlugin: 'kubenet', ipFamilies: DUAL, serviceCidrs: ['10.0.0.0/16', 'fd00:1::/104'] });
      assert.deepEqual([mask['code'], mask['target']], ['InvalidServiceCidrIPv6MaskSize', 'networkProfile.serviceCidrs']);
      await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'v4',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.240.0.0/16'] }, subnets: [{ name: 'nodes', addressPrefix: '10.240.0.0/24' }] },
        POLL,
      );
      const subnetId = `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v4/subnets/nodes`;
      const single = await refused({ networkPlugin: 'azure', networkPluginMode: 'overlay', ipFamilies: DUAL }, { vnetSubnetID: subnetId });
      assert.equal(single['code'], 'VnetSubnetMissingIPv6');
    }));
});
