// `aksemu az network public-ip / public-ip prefix / nat gateway / lb / vnet peering` against a real server, and the
// real az (Debian 2.45 through the repository's shim) where it has the command: the same output from both, the
// errors as az prints them, the states of a peering seen from each side.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { AZ_SHIM_DIR } from '../../src/cli/az-env.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az } from './helpers.js';
import { AZ, loginRealAz, runRealAz } from './real-az-env.js';

const noRealAz = existsSync(AZ) ? false : `${AZ} is not installed`;

let server: TestServer;
let home: string;
let azHome: string;
let realEnv: NodeJS.ProcessEnv | undefined;
let group: string;

const json = async (args: string[]) => {
  const r = await az(home, args);
  assert.equal(r.code, 0, `${args.join(' ')}\n${r.stderr}`);
  return JSON.parse(r.stdout);
};

const real = (args: string[]) => runRealAz(realEnv!, args);

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  group = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/outRG/providers/Microsoft.Network`;
  const r = await az(home, ['group', 'create', '-l', 'eastus', '-n', 'outRG', '-o', 'none']);
  assert.equal(r.code, 0, r.stderr);
  if (!noRealAz) {
    azHome = tempHome();
    realEnv = await loginRealAz(azHome, server, { pythonPath: AZ_SHIM_DIR });
  }
});

after(async () => {
  await server.close();
  removeHome(home);
  if (azHome) removeHome(azHome);
});

test('public-ip create: Standard from the emulated range with az warning; without --sku az sends Dynamic and the server refuses', async () => {
  const r = await az(home, ['network', 'public-ip', 'create', '-g', 'outRG', '-n', 'pip1', '--sku', 'Standard']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^WARNING: \[Coming breaking change\] In the coming release/);
  const pip = JSON.parse(r.stdout).publicIp;
  assert.equal(pip.id, `${group}/publicIPAddresses/pip1`);
  assert.equal(pip.ipAddress, '198.19.0.1');
  assert.equal(pip.publicIPAllocationMethod, 'Static');
  assert.equal(pip.properties, undefined);

  const noSku = await az(home, ['network', 'public-ip', 'create', '-g', 'outRG', '-n', 'pip0']);
  assert.equal(noSku.code, 1);
  assert.match(noSku.stderr, /WARNING: Please note that the default public IP used for creation will be changed from Basic to Standard in the future\./);
  assert.match(
    noSku.stderr,
    /ERROR: \(StandardAndStandardV2SkuPublicIPAddressesMustBeStatic\) Standard sku publicIp .*\/pip0 must have AllocationMethod set to Static\./,
  );
  const basic = await az(home, ['network', 'public-ip', 'create', '-g', 'outRG', '-n', 'pip0', '--sku', 'Basic']);
  assert.equal(basic.code, 1);
  assert.match(basic.stderr, /\(IPv4BasicSkuPublicIpCountLimitReached\) Cannot create more than 0 IPv4 Basic SKU public IP addresses/);

  const table = await az(home, ['network', 'public-ip', 'list', '-g', 'outRG', '-o', 'table']);
  assert.deepEqual(
    table.stdout.split('\n').map((l) => l.trimEnd()),
    [
      'Name    ResourceGroup    Location    Zones    Address     IdleTimeoutInMinutes    ProvisioningState',
      '------  ---------------  ----------  -------  ----------  ----------------------  -------------------',
      'pip1    outRG            eastus               198.19.0.1  4                       Succeeded',
      '',
    ],
  );
});

test('real az: public-ip and public-ip prefix create, show and list print what aksemu az prints', { skip: noRealAz }, async () => {
  const created = await real(['network', 'public-ip', 'create', '-g', 'outRG', '-n', 'realpip', '--sku', 'Standard', '--zone', '1', '2', '3']);
  assert.equal(created.code, 0, created.stderr);
  const pip = JSON.parse(created.stdout).publicIp;
  assert.deepEqual(pip.zones, ['1', '2', '3']);
  assert.match(pip.ipAddress, /^198\.19\.\d+\.\d+$/);
  const prefix = await real(['network', 'public-ip', 'prefix', 'create', '-g', 'outRG', '-n', 'pre', '--length', '30']);
  assert.equal(prefix.code, 0, prefix.stderr);
  assert.equal(JSON.parse(prefix.stdout).prefixLength, 30);
  for (const args of [
    ['network', 'public-ip', 'show', '-g', 'outRG', '-n', 'realpip'],
    ['network', 'public-ip', 'list', '-g', 'outRG', '-o', 'table'],
    ['network', 'public-ip', 'prefix', 'show', '-g', 'outRG', '-n', 'pre'],
  ]) {
    const theirs = await real(args);
    const ours = await az(home, args);
    assert.equal(theirs.code, 0, theirs.stderr);
    assert.equal(ours.stdout, theirs.stdout, args.join(' '));
  }
  const noSku = await real(['network', 'public-ip', 'create', '-g', 'outRG', '-n', 'nosku']);
  assert.equal(noSku.code, 1);
  assert.match(noSku.stderr, /\(StandardAndStandardV2SkuPublicIPAddressesMustBeStatic\)/);
  assert.equal((await real(['network', 'public-ip', 'delete', '-g', 'outRG', '-n', 'realpip'])).code, 0);
});

test('nat gateway and lb: create with a public IP, in-use delete refused as az prints it, show, delete', async () => {
  await json(['network', 'public-ip', 'create', '-g', 'outRG', '-n', 'natip', '--sku', 'Standard', '--zone', '1']);
  const gw = await json(['network', 'nat', 'gateway', 'create', '-g', 'outRG', '-n', 'nat', '--public-ip-addresses', 'natip', '--idle-timeout', '10']);
  assert.equal(gw.idleTimeoutInMinutes, 10);
  assert.deepEqual(gw.publicIpAddresses, [{ id: `${group}/publicIPAddresses/natip`, resourceGroup: 'outRG' }]);
  const inUse = await az(home, ['network', 'public-ip', 'delete', '-g', 'outRG', '-n', 'natip']);
  assert.equal(inUse.code, 1);
  assert.match(
    inUse.stderr,
    /^ERROR: \(PublicIPAddressCannotBeDeleted\) Public IP address .*\/natip can not be deleted since it is still allocated to resource .*\/natGateways\/nat\./,
  );

  await json(['network', 'public-ip', 'create', '-g', 'outRG', '-n', 'lbip', '--sku', 'Standard', '--zone', '1', '2', '3']);
  const lb = (await json(['network', 'lb', 'create', '-g', 'outRG', '-n', 'lb', '--public-ip-address', 'lbip'])).loadBalancer;
  assert.equal(lb.frontendIPConfigurations[0].name, 'LoadBalancerFrontEnd');
  assert.equal(lb.frontendIPConfigurations[0].publicIPAddress.id, `${group}/publicIPAddresses/lbip`);
  assert.equal(lb.backendAddressPools[0].name, 'lbbepool');
  const taken = await az(home, ['network', 'lb', 'create', '-g', 'outRG', '-n', 'lb2', '--public-ip-address', 'natip']);
  assert.equal(taken.code, 1);
  assert.match(
    taken.stderr,
    /\(PublicIPAddressInUse\) Resource .*\/loadBalancers\/lb2 is referencing public IP address .*\/natip that is already allocated to resource .*\/natGateways\/nat\./,
  );
  assert.equal((await json(['network', 'lb', 'show', '-g', 'outRG', '-n', 'lb'])).sku.name, 'Standard');
  for (const args of [
    ['network', 'lb', 'delete', '-g', 'outRG', '-n', 'lb'],
    ['network', 'nat', 'gateway', 'delete', '-g', 'outRG', '-n', 'nat'],
    ['network', 'public-ip', 'delete', '-g', 'outRG', '-n', 'natip'],
    ['network', 'public-ip', 'delete', '-g', 'outRG', '-n', 'lbip'],
  ]) {
    const r = await az(home, args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  assert.deepEqual(await json(['network', 'nat', 'gateway', 'list', '-g', 'outRG']), []);
});

test('vnet peering: Initiated then Connected from each side, overlap refused, Disconnected after a delete (real az for one side)', async () => {
  for (const [name, prefix] of [
    ['hub', '10.10.0.0/16'],
    ['spoke', '10.20.0.0/16'],
    ['clash', '10.10.128.0/24'],
  ] as const) {
    await json(['network', 'vnet', 'create', '-g', 'outRG', '-n', name, '--address-prefixes', prefix]);
  }
  // The first side through the real az where there is one: the peering is the same resource either way.
  const first = [
    'network',
    'vnet',
    'peering',
    'create',
    '-g',
    'outRG',
    '-n',
    'hub-spoke',
    '--vnet-name',
    'hub',
    '--remote-vnet',
    'spoke',
    '--allow-vnet-access',
  ];
  const made = realEnv ? await real(first) : await az(home, first);
  assert.equal(made.code, 0, made.stderr);
  const a = JSON.parse(made.stdout);
  assert.deepEqual([a.peeringState, a.peeringSyncLevel, a.allowVirtualNetworkAccess], ['Initiated', 'RemoteNotInSync', true]);
  const b = await json([
    'network',
    'vnet',
    'peering',
    'create',
    '-g',
    'outRG',
    '-n',
    'spoke-hub',
    '--vnet-name',
    'spoke',
    '--remote-vnet',
    'hub',
    '--allow-vnet-access',
  ]);
  assert.deepEqual([b.peeringState, b.peeringSyncLevel], ['Connected', 'FullyInSync']);
  const show = ['network', 'vnet', 'peering', 'show', '-g', 'outRG', '-n', 'hub-spoke', '--vnet-name', 'hub'];
  assert.equal((await json(show)).peeringState, 'Connected');
  if (realEnv) assert.equal((await real(show)).stdout, (await az(home, show)).stdout);

  const overlap = await az(home, ['network', 'vnet', 'peering', 'create', '-g', 'outRG', '-n', 'x', '--vnet-name', 'hub', '--remote-vnet', 'clash']);
  assert.equal(overlap.code, 1);
  assert.match(
    overlap.stderr,
    /^ERROR: \(VnetAddressSpacesOverlap\) Cannot create or update peering .*\/virtualNetworks\/hub\/virtualNetworkPeerings\/x\. Virtual networks .*\/hub and .*\/clash cannot be peered because their address spaces overlap\. Overlapping address prefixes: 10\.10\.0\.0\/16, 10\.10\.128\.0\/24\n/,
  );
  const missing = await az(home, ['network', 'vnet', 'peering', 'create', '-g', 'outRG', '-n', 'y', '--vnet-name', 'hub', '--remote-vnet', 'nowhere']);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /\(InvalidGlobalResourceReference\) Resource .*\/virtualNetworks\/nowhere referenced by resource .*\/hub\/virtualNetworkPeerings\/y was not found\./,
  );

  const del = await az(home, ['network', 'vnet', 'peering', 'delete', '-g', 'outRG', '-n', 'spoke-hub', '--vnet-name', 'spoke']);
  assert.equal(del.code, 0, del.stderr);
  assert.equal((await json(show)).peeringState, 'Disconnected');
  assert.deepEqual(
    (await json(['network', 'vnet', 'peering', 'list', '-g', 'outRG', '--vnet-name', 'hub'])).map((p: { name: string }) => p.name),
    ['hub-spoke'],
  );
});
