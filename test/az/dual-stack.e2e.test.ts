// `aksemu az aks create --ip-families --pod-cidrs --service-cidrs` (newer az's dual-stack flags; az 2.45 has none):
// the comma-separated lists as az sends them, against a real server, and az's view of the result (countIpv6).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az } from './helpers.js';

let server: TestServer;
let home: string;

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  const r = await az(home, ['group', 'create', '-l', 'eastus', '-n', 'rg', '-o', 'none']);
  assert.equal(r.code, 0, r.stderr);
});

after(async () => {
  await server.close();
  removeHome(home);
});

const create = (name: string, extra: string[]) => az(home, ['aks', 'create', '-g', 'rg', '-n', name, '--no-ssh-key', '-c', '1', ...extra]);

test('--ip-families ipv4,ipv6 alone: a dual-stack kubenet cluster with AKS defaults and countIpv6 1', async () => {
  const r = await create('ds1', ['--ip-families', 'ipv4,ipv6']);
  assert.equal(r.code, 0, r.stderr);
  const c = JSON.parse(r.stdout);
  assert.equal(c.networkProfile.networkPlugin, 'kubenet');
  assert.deepEqual(c.networkProfile.ipFamilies, ['IPv4', 'IPv6']);
  assert.deepEqual(c.networkProfile.podCidrs, ['10.244.0.0/16', 'fd12:3456:789a::/64']);
  assert.deepEqual(c.networkProfile.serviceCidrs, ['10.0.0.0/16', 'fd12:3456:789a:1::/108']);
  assert.deepEqual(c.networkProfile.loadBalancerProfile.managedOutboundIPs, { count: 1, countIpv6: 1 });
});

test('--pod-cidrs and --service-cidrs with overlay: the lists are kept as given', async () => {
  const r = await create('ds2', [
    '--network-plugin',
    'azure',
    '--network-plugin-mode',
    'overlay',
    '--ip-families',
    'IPv4,IPv6',
    '--pod-cidrs',
    '192.168.0.0/16,fd12:3456:789b::/64',
    '--service-cidrs',
    '10.1.0.0/16,fd12:3456:789b:1::/108',
    '--dns-service-ip',
    '10.1.0.10',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const c = JSON.parse(r.stdout);
  assert.deepEqual(c.networkProfile.podCidrs, ['192.168.0.0/16', 'fd12:3456:789b::/64']);
  assert.deepEqual(c.networkProfile.serviceCidrs, ['10.1.0.0/16', 'fd12:3456:789b:1::/108']);
  assert.equal(c.networkProfile.podCidr, '192.168.0.0/16');
});

test("the server's refusals, as az prints them: a count mismatch, IPv6 only, Azure CNI node subnet", async () => {
  const mismatch = await create('bad1', ['--ip-families', 'ipv4,ipv6', '--pod-cidrs', '10.244.0.0/16']);
  assert.equal(mismatch.code, 1);
  assert.match(mismatch.stderr, /\(InvalidNetworkingConfig\) networkProfile\.podCidrs has 1 CIDR for 2 IP families/);
  const v6 = await create('bad2', ['--ip-families', 'ipv6']);
  assert.equal(v6.code, 1);
  assert.match(v6.stderr, /\(IPv6NotSupported\)/);
  const nodeSubnet = await create('bad3', ['--network-plugin', 'azure', '--ip-families', 'ipv4,ipv6']);
  assert.equal(nodeSubnet.code, 1);
  assert.match(nodeSubnet.stderr, /\(UnsupportedDualStackNetworkPlugin\) Dual-stack networking is not supported with Azure CNI \(node subnet\)/);
});
