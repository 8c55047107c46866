// publicIPAddresses, publicIPPrefixes, natGateways and loadBalancers through @azure/arm-network against a real
// server (docs/aks-rules.md §11): defaults, addresses from the emulated public range, every rule's error as the
// SDK receives it, who-uses-what and the in-use deletes, and the addresses given back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { groupId, nodesVnet, POLL, restError, vnetId, withServer, type Env } from './harness.js';

const net = (env: Env, type: string, name: string) => `${groupId(env)}/providers/Microsoft.Network/${type}/${name}`;

async function pip(env: Env, name: string, extra: Record<string, unknown> = {}) {
  return env.network.publicIPAddresses.beginCreateOrUpdateAndWait('rg', name, { location: 'eastus', sku: { name: 'Standard' }, ...extra }, POLL);
}

const vnet = nodesVnet;

describe('public IP addresses and prefixes through @azure/arm-network', () => {
  test('defaults: Standard, Static, IPv4, idle 4, an address of 198.19.0.0/16; zones and DNS label kept; list and delete give it back', () =>
    withServer(async (env) => {
      const a = await env.network.publicIPAddresses.beginCreateOrUpdateAndWait('rg', 'a', { location: 'eastus' }, POLL);
      assert.equal(a.id, net(env, 'publicIPAddresses', 'a'));
      assert.equal(a.type, 'Microsoft.Network/publicIPAddresses');
      assert.deepEqual(a.sku, { name: 'Standard', tier: 'Regional' });
      assert.equal(a.publicIPAllocationMethod, 'Static');
      assert.equal(a.publicIPAddressVersion, 'IPv4');
      assert.equal(a.idleTimeoutInMinutes, 4);
      assert.equal(a.provisioningState, 'Succeeded');
      assert.equal(a.ipAddress, '198.19.0.1');
      const b = await pip(env, 'b', { zones: ['3', '1', '2'], dnsSettings: { domainNameLabel: 'myapp' }, idleTimeoutInMinutes: 30 });
      assert.equal(b.ipAddress, '198.19.0.2');
      assert.deepEqual(b.zones, ['1', '2', '3']);
      assert.equal(b.dnsSettings?.fqdn, 'myapp.eastus.cloudapp.azure.com');
      assert.equal(b.idleTimeoutInMinutes, 30);
      // An update keeps the address; so does UpdateTags (PATCH, not long-running).
      const again = await pip(env, 'a', { tags: { k: 'v' } });
      assert.equal(again.ipAddress, '198.19.0.1');
      const tagged = await env.network.publicIPAddresses.updateTags('rg', 'a', { tags: { t: '1' } });
      assert.deepEqual([tagged.tags, tagged.ipAddress], [{ t: '1' }, '198.19.0.1']);
      const six = await pip(env, 'six', { publicIPAddressVersion: 'IPv6' });
      assert.ok(Cidr.parse('2001:2::/48').contains(IpAddress.parse(six.ipAddress!)), six.ipAddress);

      const names: string[] = [];
      for await (const x of env.network.publicIPAddresses.list('rg')) names.push(x.name!);
      assert.deepEqual(names.sort(), ['a', 'b', 'six']);
      await env.network.publicIPAddresses.beginDeleteAndWait('rg', 'a', POLL);
      const c = await pip(env, 'c');
      assert.equal(c.ipAddress, '198.19.0.1', 'the deleted address is handed out again');
    }));

  test('rules: Basic refused (retired), Standard must be Static, idle 4–30, the sku cannot change, DNS label pattern', () =>
    withServer(async (env) => {
      const basic = await restError(pip(env, 'basic', { sku: { name: 'Basic' } }));
      assert.equal(basic.statusCode, 400);
      assert.equal(basic.code, 'IPv4BasicSkuPublicIpCountLimitReached');
      assert.equal(basic.message, 'Cannot create more than 0 IPv4 Basic SKU public IP addresses for this subscription in this region.');
      const dynamic = await restError(pip(env, 'dyn', { publicIPAllocationMethod: 'Dynamic' }));
      assert.equal(dynamic.code, 'StandardAndStandardV2SkuPublicIPAddressesMustBeStatic');
      assert.equal(dynamic.message, `Standard sku publicIp ${net(env, 'publicIPAddresses', 'dyn')} must have AllocationMethod set to Static.`);
      const idle = await restError(pip(env, 'idle', { idleTimeoutInMinutes: 31 }));
      assert.equal(idle.code, 'InvalidIdleTimeoutInMinutes');
      const label = await restError(pip(env, 'label', { dnsSettings: { domainNameLabel: 'Bad_Label' } }));
      assert.equal(label.code, 'InvalidRequestFormat');
      await pip(env, 'ok');
      const change = await restError(pip(env, 'ok', { sku: { name: 'StandardV2' } }));
      assert.equal(change.code, 'PublicIPAddressSkuCannotBeChanged');
      // Nothing refused was stored or held an address.
      const names: string[] = [];
      for await (const x of env.network.publicIPAddresses.listAll()) names.push(`${x.name} ${x.ipAddress}`);
      assert.deepEqual(names, ['ok 198.19.0.1']);
    }));

  test('prefixes: an aligned block; addresses made from it; full; in use; IP version and sku must match', () =>
    withServer(async (env) => {
      await pip(env, 'first');
      const prefix = await env.network.publicIPPrefixes.beginCreateOrUpdateAndWait(
        'rg',
        'p',
        { location: 'eastus', sku: { name: 'Standard' }, prefixLength: 31 },
        POLL,
      );
      assert.equal(prefix.ipPrefix, '198.19.0.2/31', 'the lowest /31 whose addresses are free');
      assert.equal(prefix.publicIPAddressVersion, 'IPv4');
      const ref = { publicIPPrefix: { id: prefix.id } };
      const x = await pip(env, 'x', ref);
      const y = await pip(env, 'y', ref);
      assert.deepEqual([x.ipAddress, y.ipAddress], ['198.19.0.2', '198.19.0.3']);
      const full = await restError(pip(env, 'z', ref));
      assert.equal(full.code, 'PublicIpPrefixOutOfIpAddressesForPublicIp');
      const six = await restError(pip(env, 'z', { ...ref, publicIPAddressVersion: 'IPv6' }));
      assert.equal(six.code, 'PublicIpAddressAndPrefixMismatch');
      const shown = await env.network.publicIPPrefixes.get('rg', 'p');
      assert.deepEqual(
        shown.publicIPAddresses?.map((r) => r.id),
        [x.id, y.id],
      );
      const inUse = await restError(env.network.publicIPPrefixes.beginDeleteAndWait('rg', 'p', POLL));
      assert.equal(inUse.code, 'InUsePublicIpPrefixCannotBeDeleted');
      const other = await pip(env, 'other');
      assert.equal(other.ipAddress, '198.19.0.4', 'the block is held by the prefix');
      const bad = await restError(env.network.publicIPPrefixes.beginCreateOrUpdateAndWait('rg', 'q', { location: 'eastus', prefixLength: 24 }, POLL));
      assert.equal(bad.code, 'InvalidRequestFormat');
      await env.network.publicIPAddresses.beginDeleteAndWait('rg', 'x', POLL);
      await env.network.publicIPAddresses.beginDeleteAndWait('rg', 'y', POLL);
      await env.network.publicIPPrefixes.beginDeleteAndWait('rg', 'p', POLL);
      assert.equal((await pip(env, 'again')).ipAddress, '198.19.0.2');
    }));
});

describe('NAT gateways and load balancers through @azure/arm-network', () => {
  test('NAT gateway: public IPs, subnet association, PublicIPAddressInUse, in-use deletes both ways', () =>
    withServer(async (env) => {
      await vnet(env);
      const out = await pip(env, 'out');
      const gw = await env.network.natGateways.beginCreateOrUpdateAndWait(
        'rg',
        'nat',
        { location: 'eastus', sku: { name: 'Standard' }, publicIpAddresses: [{ id: out.id }], idleTimeoutInMinutes: 10 },
        POLL,
      );
      assert.equal(gw.idleTimeoutInMinutes, 10);
      assert.deepEqual(gw.publicIpAddresses, [{ id: out.id }]);
      assert.equal((await env.network.publicIPAddresses.get('rg', 'out')).natGateway?.id, gw.id);
      const idle = await restError(env.network.natGateways.beginCreateOrUpdateAndWait('rg', 'nat2', { location: 'eastus', idleTimeoutInMinutes: 121 }, POLL));
      assert.equal(idle.code, 'InvalidIdleTimeoutInMinutes');
      const twice = await restError(
        env.network.natGateways.beginCreateOrUpdateAndWait('rg', 'nat2', { location: 'eastus', publicIpAddresses: [{ id: out.id }] }, POLL),
      );
      assert.equal(twice.code, 'PublicIPAddressInUse');
      assert.equal(
        twice.message,
        `Resource ${net(env, 'natGateways', 'nat2')} is referencing public IP address ${out.id} that is already allocated to resource ${gw.id}.`,
      );

      const subnet = await env.network.subnets.beginCreateOrUpdateAndWait(
        'rg',
        'v',
        'nodes',
        { addressPrefix: '10.0.0.0/24', natGateway: { id: gw.id } },
        POLL,
      );
      assert.equal(subnet.natGateway?.id, gw.id);
      assert.deepEqual((await env.network.natGateways.get('rg', 'nat')).subnets, [{ id: subnet.id }]);
      const gwInUse = await restError(env.network.natGateways.beginDeleteAndWait('rg', 'nat', POLL));
      assert.equal(gwInUse.code, 'InUseNatGatewayCannotBeDeleted');
      const pipInUse = await restError(env.network.publicIPAddresses.beginDeleteAndWait('rg', 'out', POLL));
      assert.equal(pipInUse.code, 'PublicIPAddressCannotBeDeleted');
      assert.equal(
        pipInUse.message,
        `Public IP address ${out.id} can not be deleted since it is still allocated to resource ${gw.id}. In order to delete the public IP, disassociate/detach the Public IP address from the resource.  To learn how to do this, see aka.ms/deletepublicip.`,
      );
      await env.network.subnets.beginCreateOrUpdateAndWait('rg', 'v', 'nodes', { addressPrefix: '10.0.0.0/24' }, POLL);
      await env.network.natGateways.beginDeleteAndWait('rg', 'nat', POLL);
      assert.equal((await env.network.publicIPAddresses.get('rg', 'out')).natGateway, undefined);
      await env.network.publicIPAddresses.beginDeleteAndWait('rg', 'out', POLL);
    }));

  test('load balancer: public and internal frontends, pool, probe, rule, outbound rule; references; the users of each child', () =>
    withServer(async (env) => {
      await vnet(env);
      const ip = await pip(env, 'lbip');
      const lbId = net(env, 'loadBalancers', 'kubernetes');
      const child = (kind: string, name: string) => ({ id: `${lbId}/${kind}/${name}` });
      const body = {
        location: 'eastus',
        sku: { name: 'Standard' },
        frontendIPConfigurations: [
          { name: 'public', publicIPAddress: { id: ip.id } },
          { name: 'internal', subnet: { id: `${vnetId(env, 'v')}/subnets/nodes` } },
        ],
        backendAddressPools: [{ name: 'kubernetes' }],
        probes: [{ name: 'http', protocol: 'Http', port: 10256, requestPath: '/healthz' }],
        loadBalancingRules: [
          {
            name: 'web',
            frontendIPConfiguration: child('frontendIPConfigurations', 'public'),
            backendAddressPool: child('backendAddressPools', 'kubernetes'),
            probe: child('probes', 'http'),
            protocol: 'Tcp',
            frontendPort: 80,
            backendPort: 30080,
          },
        ],
        outboundRules: [
          {
            name: 'aksOutboundRule',
            frontendIPConfigurations: [child('frontendIPConfigurations', 'public')],
            backendAddressPool: child('backendAddressPools', 'kubernetes'),
            protocol: 'All',
            idleTimeoutInMinutes: 30,
          },
        ],
      };
      const lb = await env.network.loadBalancers.beginCreateOrUpdateAndWait('rg', 'kubernetes', body, POLL);
      assert.equal(lb.provisioningState, 'Succeeded');
      const [pub, internal] = lb.frontendIPConfigurations!;
      assert.equal(pub!.publicIPAddress?.id, ip.id);
      assert.equal(internal!.privateIPAddress, '10.0.0.4');
      assert.equal(internal!.privateIPAllocationMethod, 'Dynamic');
      assert.deepEqual(pub!.loadBalancingRules, [child('loadBalancingRules', 'web')]);
      assert.deepEqual(pub!.outboundRules, [child('outboundRules', 'aksOutboundRule')]);
      const rule = lb.loadBalancingRules![0]!;
      assert.deepEqual([rule.idleTimeoutInMinutes, rule.loadDistribution, rule.enableFloatingIP], [4, 'Default', false]);
      assert.deepEqual(lb.probes![0]!.loadBalancingRules, [child('loadBalancingRules', 'web')]);
      assert.deepEqual([lb.probes![0]!.intervalInSeconds, lb.probes![0]!.numberOfProbes], [15, 2]);
      assert.deepEqual(lb.backendAddressPools![0]!.outboundRules, [child('outboundRules', 'aksOutboundRule')]);
      assert.equal((await env.network.publicIPAddresses.get('rg', 'lbip')).ipConfiguration?.id, pub!.id);
      const subnet = await env.network.subnets.get('rg', 'v', 'nodes');
      assert.deepEqual(
        subnet.ipConfigurations?.map((c) => c.id),
        [internal!.id],
      );
      // An update keeps the internal frontend's address.
      const again = await env.network.loadBalancers.beginCreateOrUpdateAndWait('rg', 'kubernetes', { ...body, tags: { a: 'b' } }, POLL);
      assert.equal(again.frontendIPConfigurations![1]!.privateIPAddress, '10.0.0.4');

      const pipInUse = await restError(env.network.publicIPAddresses.beginDeleteAndWait('rg', 'lbip', POLL));
      assert.equal(pipInUse.code, 'PublicIPAddressCannotBeDeleted');
      const subnetInUse = await restError(env.network.subnets.beginDeleteAndWait('rg', 'v', 'nodes', POLL));
      assert.equal(subnetInUse.code, 'InUseSubnetCannotBeDeleted');

      const other = net(env, 'loadBalancers', 'other');
      const wrongRef = await restError(
        env.network.loadBalancers.beginCreateOrUpdateAndWait(
          'rg',
          'other',
          {
            ...body,
            frontendIPConfigurations: [{ name: 'fe', subnet: { id: `${vnetId(env, 'v')}/subnets/nodes` } }],
            outboundRules: [],
            loadBalancingRules: [{ ...body.loadBalancingRules[0]!, frontendIPConfiguration: child('frontendIPConfigurations', 'public') }],
          },
          POLL,
        ),
      );
      assert.equal(wrongRef.code, 'InvalidResourceReference');
      assert.match(wrongRef.message, new RegExp(`referenced by resource ${other}/loadBalancingRules/web`));
      const both = await restError(
        env.network.loadBalancers.beginCreateOrUpdateAndWait(
          'rg',
          'other',
          {
            location: 'eastus',
            frontendIPConfigurations: [{ name: 'fe', subnet: { id: `${vnetId(env, 'v')}/subnets/nodes` }, publicIPAddress: { id: ip.id } }],
          },
          POLL,
        ),
      );
      assert.equal(both.code, 'FrontendIPConfigHasBothSubnetAndPublicIP');
      const taken = await restError(
        env.network.loadBalancers.beginCreateOrUpdateAndWait(
          'rg',
          'other',
          { location: 'eastus', frontendIPConfigurations: [{ name: 'fe', publicIPAddress: { id: ip.id } }] },
          POLL,
        ),
      );
      assert.equal(taken.code, 'PublicIPAddressInUse');
      const basic = await restError(
        env.network.loadBalancers.beginCreateOrUpdateAndWait(
          'rg',
          'other',
          { location: 'eastus', sku: { name: 'Basic' }, frontendIPConfigurations: [{ name: 'fe', publicIPAddress: { id: (await pip(env, 'free')).id } }] },
          POLL,
        ),
      );
      assert.equal(basic.code, 'DifferentSkuLoadBalancersAndPublicIPAddressNotAllowed');
      const clash = await restError(
        env.network.loadBalancers.beginCreateOrUpdateAndWait(
          'rg',
          'kubernetes',
          { ...body, loadBalancingRules: [body.loadBalancingRules[0]!, { ...body.loadBalancingRules[0]!, name: 'web2', backendPort: 1 }] },
          POLL,
        ),
      );
      assert.equal(clash.code, 'LoadBalancingRulesUseSameFrontendIPConfigurationAndPort');
      const probe = await restError(
        env.network.loadBalancers.beginCreateOrUpdateAndWait('rg', 'kubernetes', { ...body, probes: [{ name: 'http', protocol: 'Http', port: 10256 }] }, POLL),
      );
      assert.equal(probe.code, 'InvalidRequestFormat');

      await env.network.loadBalancers.beginDeleteAndWait('rg', 'kubernetes', POLL);
      assert.equal((await env.network.publicIPAddresses.get('rg', 'lbip')).ipConfiguration, undefined);
      assert.equal((await env.network.subnets.get('rg', 'v', 'nodes')).ipConfigurations, undefined);
      await env.network.publicIPAddresses.beginDeleteAndWait('rg', 'lbip', POLL);
      await env.network.subnets.beginDeleteAndWait('rg', 'v', 'nodes', POLL);
    }));
});
