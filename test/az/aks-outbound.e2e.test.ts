// Outbound types through ARM (docs/aks-rules.md §14): `aksemu az aks create/update` with the load balancer's outbound
// flags (managed count, the user's public IPs and prefixes, ports, idle timeout) and `effectiveOutboundIPs` read back
// with the Azure SDK; the managed NAT gateway AKS makes; userAssignedNATGateway and userDefinedRouting with their
// subnet preconditions and AKS's errors; and the real az 2.45 sending the same flags where it has them.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { aksClient } from '../containerservice/harness.js';
import { networkClient } from '../network/harness.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az, azOk } from './helpers.js';
import { AZ, runRealAz } from './real-az-env.js';
import { realAzSession } from './real-az-session.js';

const noRealAz = existsSync(AZ) ? false : `${AZ} is not installed`;

let server: TestServer;
let home: string;
let net = '';

const json = async (args: string[]) => JSON.parse(await azOk(home, args));
const cluster = (name: string) => ['-g', 'rg', '-n', name];
const create = (name: string, flags: string[]) =>
  az(home, ['aks', 'create', ...cluster(name), '--node-count', '2', '--generate-ssh-keys', '--network-plugin', 'azure', ...flags]);
/** `-g GROUP -n NAME` of a public IP's id (aksemu az's public-ip show takes no --ids). */
const byId = (id: string) => {
  const parts = id.split('/');
  return ['-g', parts[4]!, '-n', parts[8]!];
};
const mc = (name: string) => `/subscriptions/${server.identity.subscriptionId}/resourceGroups/MC_rg_${name}_eastus/providers/Microsoft.Network`;

async function failure(args: Promise<{ code: number | null; stdout: string; stderr: string }>): Promise<string> {
  const r = await args;
  assert.equal(r.code, 1, `should fail: ${r.stdout}`);
  return r.stderr;
}

/** The outbound rule of the cluster's `kubernetes` load balancer: its frontends' public IP (or prefix) ids, ports, idle timeout. */
async function outboundRule(name: string): Promise<{ sources: string[]; ports: number; idle: number }> {
  const lb = await json(['network', 'lb', 'show', '-g', `MC_rg_${name}_eastus`, '-n', 'kubernetes']);
  const rule = lb.outboundRules.find((r: any) => r.name === 'aksOutboundRule');
  const sources = rule.frontendIPConfigurations.map((ref: any) => {
    const f = lb.frontendIPConfigurations.find((x: any) => x.id === ref.id);
    return (f.publicIPAddress ?? f.publicIPPrefix).id;
  });
  return { sources, ports: rule.allocatedOutboundPorts, idle: rule.idleTimeoutInMinutes };
}

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  net = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg/providers/Microsoft.Network`;
  await azOk(home, ['group', 'create', '-l', 'eastus', '-n', 'rg', '-o', 'none']);
  await azOk(home, ['network', 'vnet', 'create', '-g', 'rg', '-n', 'v1', '--address-prefixes', '10.10.0.0/16', '-o', 'none']);
  for (const [i, s] of ['nat', 'udr', 'plain'].entries())
    await azOk(home, ['network', 'vnet', 'subnet', 'create', '-g', 'rg', '--vnet-name', 'v1', '-n', s, '--address-prefixes', `10.10.${i}.0/24`, '-o', 'none']);
});

after(async () => {
  await server.close();
  removeHome(home);
});

test('loadBalancer: 2 managed IPs, ports and idle timeout; then the user’s IP, a prefix, and back to one managed IP (az aks update)', async () => {
  const r = await create('lb1', [
    '--load-balancer-managed-outbound-ip-count',
    '2',
    '--load-balancer-outbound-ports',
    '8000',
    '--load-balancer-idle-timeout',
    '10',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const shown = JSON.parse(r.stdout).networkProfile.loadBalancerProfile;
  assert.deepEqual(shown.managedOutboundIPs, { count: 2, countIpv6: null });
  assert.equal(shown.allocatedOutboundPorts, 8000);
  assert.equal(shown.idleTimeoutInMinutes, 10);
  const effective = shown.effectiveOutboundIPs.map((x: any) => x.id);
  assert.equal(effective.length, 2);
  for (const id of effective) assert.ok(id.startsWith(`${mc('lb1')}/publicIPAddresses/`), id);
  // The SDK reads the same; the load balancer's outbound rule sends from exactly those IPs.
  const sdk = await aksClient(server).managedClusters.get('rg', 'lb1');
  assert.deepEqual(
    sdk.networkProfile?.loadBalancerProfile?.effectiveOutboundIPs?.map((x) => x.id),
    effective,
  );
  assert.deepEqual(await outboundRule('lb1'), { sources: effective, ports: 8000, idle: 10 });
  for (const id of effective) assert.match((await json(['network', 'public-ip', 'show', ...byId(id)])).ipAddress, /^198\.19\.\d+\.\d+$/);

  // The user's public IP replaces the managed ones, which are deleted.
  const made = await az(home, ['network', 'public-ip', 'create', '-g', 'rg', '-n', 'egress1', '--sku', 'Standard']);
  const byo = JSON.parse(made.stdout).publicIp.id;
  const updated = await json(['aks', 'update', ...cluster('lb1'), '--load-balancer-outbound-ips', byo]);
  assert.deepEqual(
    updated.networkProfile.loadBalancerProfile.effectiveOutboundIPs.map((x: any) => x.id),
    [byo],
  );
  assert.equal(updated.networkProfile.loadBalancerProfile.managedOutboundIPs, null);
  assert.deepEqual((await outboundRule('lb1')).sources, [byo]);
  for (const id of effective) assert.equal((await az(home, ['network', 'public-ip', 'show', ...byId(id)])).code, 3, `${id} is deleted`);
  assert.equal((await json(['network', 'public-ip', 'show', ...byId(byo)])).ipConfiguration.id.includes('/loadBalancers/kubernetes/'), true);

  // A prefix: the outbound rule's frontend is the prefix itself.
  const prefix = (await json(['network', 'public-ip', 'prefix', 'create', '-g', 'rg', '-n', 'egressp', '--length', '31'])).id;
  const withPrefix = await json(['aks', 'update', ...cluster('lb1'), '--load-balancer-outbound-ip-prefixes', prefix]);
  assert.deepEqual(
    withPrefix.networkProfile.loadBalancerProfile.effectiveOutboundIPs.map((x: any) => x.id),
    [prefix],
  );
  assert.deepEqual((await outboundRule('lb1')).sources, [prefix]);
  // The user's IP is free again.
  assert.equal((await json(['network', 'public-ip', 'show', ...byId(byo)])).ipConfiguration, undefined);

  const back = await json(['aks', 'update', ...cluster('lb1'), '--load-balancer-managed-outbound-ip-count', '1']);
  const one = back.networkProfile.loadBalancerProfile.effectiveOutboundIPs.map((x: any) => x.id);
  assert.equal(one.length, 1);
  assert.deepEqual((await outboundRule('lb1')).sources, one);
});

test('loadBalancer: too many ports for the nodes and IPs (AKS counts a surge node per pool), the spec ranges, and more than one source', async () => {
  const ports = await failure(create('lb2', ['--node-count', '3', '--load-balancer-outbound-ports', '21000']));
  assert.match(
    ports,
    /\(InvalidLoadBalancerProfileAllocatedOutboundPorts\) Load balancer profile allocated ports 21000 is not in an allowable range given the number of nodes and IPs provisioned\. Total node count 4 requires 84000 ports but only 64000 ports are available given 1 outbound public IPs\. Refer to https:\/\/aka\.ms\/aks\/slb-ports for more details\./,
  );
  // Two IPs hold it.
  assert.equal(
    (await create('lb2', ['--node-count', '3', '--load-balancer-outbound-ports', '21000', '--load-balancer-managed-outbound-ip-count', '2'])).code,
    0,
  );
  // az checks these two itself; the server's own range check (O2) answers a client that does not.
  assert.match(await failure(create('lb3', ['--load-balancer-outbound-ports', '1001'])), /--load-balancer-allocated-ports must be a multiple of 8/);
  assert.match(await failure(create('lb3', ['--load-balancer-idle-timeout', '3'])), /--load-balancer-idle-timeout must be in the range \[4,100\]/);
  const sdk = aksClient(server).managedClusters.beginCreateOrUpdateAndWait(
    'rg',
    'lb3',
    {
      location: 'eastus',
      dnsPrefix: 'lb3',
      agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System' }],
      networkProfile: { loadBalancerProfile: { idleTimeoutInMinutes: 121 } },
    },
    { updateIntervalInMs: 10 },
  );
  await assert.rejects(sdk, (e: any) => e.code === 'InvalidParameter' && /idleTimeoutInMinutes is invalid: 121/.test(e.message));
  assert.match(await failure(create('lb3', ['--load-balancer-managed-outbound-ip-count', '101'])), /managedOutboundIPs\.count is invalid: 101/);
  const both = await failure(create('lb3', ['--load-balancer-managed-outbound-ip-count', '1', '--load-balancer-outbound-ips', `${net}/publicIPAddresses/x`]));
  assert.match(both, /\(InvalidLoadBalancerProfile\) Load balancer profile must specify one of ManagedOutboundIPs, OutboundIPPrefixes and OutboundIPs\./);
  const missing = await failure(create('lb3', ['--load-balancer-outbound-ips', `${net}/publicIPAddresses/nope`]));
  assert.match(missing, /\(InvalidResourceReference\) Resource .*publicIPAddresses\/nope referenced by resource .*loadBalancers\/kubernetes was not found/);
});

test('managedNATGateway: AKS makes the NAT gateway with its IPs on the managed subnet; not on a custom VNet', async () => {
  const created = await json([
    'aks',
    'create',
    ...cluster('nat1'),
    '--node-count',
    '1',
    '--generate-ssh-keys',
    '--outbound-type',
    'managedNATGateway',
    '--nat-gateway-managed-outbound-ip-count',
    '2',
  ]);
  const nat = created.networkProfile.natGatewayProfile;
  assert.deepEqual(nat.managedOutboundIpProfile, { count: 2 });
  assert.equal(nat.idleTimeoutInMinutes, 4);
  assert.equal(nat.effectiveOutboundIPs.length, 2);
  assert.equal(created.networkProfile.loadBalancerProfile, null);
  const gw = await json(['network', 'nat', 'gateway', 'show', '-g', 'MC_rg_nat1_eastus', '-n', 'aks-natgw']);
  assert.deepEqual(
    gw.publicIpAddresses.map((x: any) => x.id),
    nat.effectiveOutboundIPs.map((x: any) => x.id),
  );
  assert.equal(gw.subnets.length, 1);
  assert.match(gw.subnets[0].id, /\/virtualNetworks\/aks-vnet-\d+\/subnets\/aks-subnet$/);
  // No load balancer outbound IP is made for a NAT gateway cluster.
  assert.equal((await az(home, ['network', 'lb', 'show', '-g', 'MC_rg_nat1_eastus', '-n', 'kubernetes'])).code, 3);

  const custom = await failure(create('nat2', ['--outbound-type', 'managedNATGateway', '--vnet-subnet-id', `${net}/virtualNetworks/v1/subnets/plain`]));
  assert.match(custom, /\(ManagedNATGatewayWithCustomVNetNotAllowed\)/);
  // Deleting the cluster gives the NAT gateway's addresses back.
  await azOk(home, ['aks', 'delete', ...cluster('nat1'), '--yes']);
  assert.equal((await az(home, ['network', 'nat', 'gateway', 'show', '-g', 'MC_rg_nat1_eastus', '-n', 'aks-natgw'])).code, 3);
});

test('userAssignedNATGateway: the subnet needs a NAT gateway; then the cluster has no outbound IP of its own', async () => {
  const subnet = `${net}/virtualNetworks/v1/subnets/nat`;
  assert.match(
    await failure(create('una', ['--outbound-type', 'userAssignedNATGateway', '--vnet-subnet-id', subnet])),
    /\(SubnetNotAssociatedWithNATGateway\) Subnet .*\/subnets\/nat must be associated with a NAT gateway/,
  );
  assert.equal((await az(home, ['network', 'public-ip', 'create', '-g', 'rg', '-n', 'natip', '--sku', 'Standard', '-o', 'none'])).code, 0);
  await azOk(home, ['network', 'nat', 'gateway', 'create', '-g', 'rg', '-n', 'gw1', '--public-ip-addresses', 'natip', '-o', 'none']);
  // The association through the Network SDK (aksemu az's subnet update has no --nat-gateway).
  const subnets = networkClient(server).subnets;
  const current = await subnets.get('rg', 'v1', 'nat');
  await subnets.beginCreateOrUpdateAndWait('rg', 'v1', 'nat', { ...current, natGateway: { id: `${net}/natGateways/gw1` } }, { updateIntervalInMs: 10 });
  const created = await create('una', ['--outbound-type', 'userAssignedNATGateway', '--vnet-subnet-id', subnet]);
  assert.equal(created.code, 0, created.stderr);
  const profile = JSON.parse(created.stdout).networkProfile;
  assert.equal(profile.outboundType, 'userAssignedNATGateway');
  assert.equal(profile.loadBalancerProfile, null);
});

test('userDefinedRouting: a route table with 0.0.0.0/0 to a virtual appliance, AKS’s three errors otherwise, and az’s own check', async () => {
  const subnet = `${net}/virtualNetworks/v1/subnets/udr`;
  const udr = (name: string, flags: string[] = []) => create(name, ['--outbound-type', 'userDefinedRouting', '--vnet-subnet-id', subnet, ...flags]);
  assert.match(await failure(udr('u1')), /\(ExistingRouteTableNotAssociatedWithSubnet\) Subnet .*\/subnets\/udr has no route table/);
  await azOk(home, ['network', 'route-table', 'create', '-g', 'rg', '-n', 'rt1', '-o', 'none']);
  await azOk(home, ['network', 'vnet', 'subnet', 'update', '-g', 'rg', '--vnet-name', 'v1', '-n', 'udr', '--route-table', 'rt1', '-o', 'none']);
  assert.match(await failure(udr('u1')), /\(RouteTableMissingDefaultRouteError\) Default route 0\.0\.0\.0\/0 missing from route table .*\/routeTables\/rt1/);
  // The route through the Network SDK (aksemu az has no route-table route commands).
  const routes = networkClient(server).routes;
  await routes.beginCreateOrUpdateAndWait('rg', 'rt1', 'default', { addressPrefix: '0.0.0.0/0', nextHopType: 'Internet' }, { updateIntervalInMs: 10 });
  assert.match(
    await failure(udr('u1')),
    /\(RouteTableInvalidNextHop\) Default route 0\.0\.0\.0\/0 has a next hop of Internet but only next hops of VirtualAppliance or VirtualNetworkGateway are allowed\./,
  );
  await routes.beginCreateOrUpdateAndWait(
    'rg',
    'rt1',
    'default',
    { addressPrefix: '0.0.0.0/0', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.10.2.4' },
    { updateIntervalInMs: 10 },
  );
  const ok = await udr('u1');
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).networkProfile.loadBalancerProfile, null);
  // az refuses load balancer IPs with UDR before sending anything.
  const mixed = await udr('u2', ['--load-balancer-managed-outbound-ip-count', '2']);
  assert.equal(mixed.code, 1);
  assert.match(mixed.stderr, /userDefinedRouting doesn't support customizing a standard load balancer with IP addresses/);
});

test('real az 2.45 sends the same outbound flags and shows the same answers', { skip: noRealAz }, async () => {
  const session = await realAzSession('rg');
  try {
    const real = (args: string[]) => runRealAz(session.env, args);
    const args = [
      'aks',
      'create',
      '-g',
      'rg',
      '-n',
      'ra1',
      '--node-count',
      '3',
      '--generate-ssh-keys',
      '--network-plugin',
      'azure',
      '--load-balancer-outbound-ports',
      '21000',
    ];
    // az's own checks print what aksemu az prints.
    for (const extra of [
      ['--load-balancer-outbound-ports', '1001'],
      ['--load-balancer-idle-timeout', '3'],
    ]) {
      const theirs = await real([...args.slice(0, -2), ...extra]);
      const ours = await az(home, [...args.slice(0, -2), ...extra]);
      // (az's first run also warns that it generated the SSH key: only the error is compared.)
      const errorLine = (t: string) => t.split('\n').find((l) => l.startsWith('ERROR:'));
      assert.equal(errorLine(ours.stderr), errorLine(theirs.stderr), extra.join(' '));
      assert.ok(errorLine(ours.stderr));
      assert.equal(ours.code, theirs.code, extra.join(' '));
    }
    const refused = await real(args);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /InvalidLoadBalancerProfileAllocatedOutboundPorts/);
    assert.match(refused.stderr, /Total node count 4 requires 84000 ports but only 64000 ports are available given 1 outbound public IPs/);
    const made = await real([...args.slice(0, -2), '--load-balancer-managed-outbound-ip-count', '2', '--load-balancer-idle-timeout', '15']);
    assert.equal(made.code, 0, made.stderr);
    const profile = JSON.parse(made.stdout).networkProfile.loadBalancerProfile;
    assert.equal(profile.managedOutboundIPs.count, 2);
    assert.equal(profile.idleTimeoutInMinutes, 15);
    assert.equal(profile.effectiveOutboundIPs.length, 2);
    const lb = JSON.parse((await real(['network', 'lb', 'show', '-g', 'MC_rg_ra1_eastus', '-n', 'kubernetes'])).stdout);
    const rule = lb.outboundRules.find((r: any) => r.name === 'aksOutboundRule');
    assert.deepEqual(
      rule.frontendIPConfigurations.map((ref: any) => lb.frontendIPConfigurations.find((f: any) => f.id === ref.id).publicIPAddress.id),
      profile.effectiveOutboundIPs.map((x: any) => x.id),
    );
  } finally {
    await session.close();
  }
});
