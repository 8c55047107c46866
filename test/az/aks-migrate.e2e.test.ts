// `aksemu az aks update --network-plugin-mode overlay` against a real server (docs/aks-rules.md §2.6): the migration
// to Azure CNI Overlay from kubenet (`--network-plugin azure`) and from Azure CNI node subnet (`--pod-cidr`), with
// AKS's preconditions (U2: no Calico policy, a pod CIDR from node subnet; N1m: overlay needs azure), and what the
// migration does in ARM: every node reimaged in place (names and addresses kept), the NICs' secondary IPs released,
// each node given a /24 of the pod CIDR, the cluster's route table detached from the subnet.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { nodesOf, type ClusterRecord, type NodeRecord } from '../../src/model/cluster-records.js';
import { Cidr } from '../../src/net/ip.js';
import { aksClient, POLL } from '../containerservice/harness.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az, azOk } from './helpers.js';

let server: TestServer;
let home: string;

const json = async (args: string[]) => JSON.parse(await azOk(home, args));
const cluster = (name: string) => ['-g', 'rg', '-n', name];

async function create(name: string, flags: string[]): Promise<any> {
  return json(['aks', 'create', ...cluster(name), '--node-count', '2', '--generate-ssh-keys', '--kubernetes-version', '1.31', ...flags]);
}

function nodes(id: string): NodeRecord[] {
  const record = server.store.get<ClusterRecord>(id)!;
  return nodesOf(server.store, record).sort((a, b) => a.name.localeCompare(b.name));
}

/** `-g GROUP --vnet-name VNET -n NAME` of a subnet's ARM id, for `az network vnet subnet show`. */
function subnetArgs(id: string): string[] {
  const parts = id.split('/');
  const at = (key: string) => parts[parts.findIndex((p) => p.toLowerCase() === key.toLowerCase()) + 1]!;
  return ['-g', at('resourceGroups'), '--vnet-name', at('virtualNetworks'), '-n', at('subnets')];
}

async function failure(args: string[]): Promise<string> {
  const r = await az(home, args);
  assert.equal(r.code, 1, `az ${args.join(' ')} should fail: ${r.stdout}`);
  return r.stderr;
}

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  await azOk(home, ['group', 'create', '-l', 'eastus', '-n', 'rg', '-o', 'none']);
});

after(async () => {
  await server.close();
  removeHome(home);
});

test('kubenet → overlay: the plugin mode needs --network-plugin azure; then every node keeps its name, address and /24, and the route table leaves the subnet', async () => {
  const before = await create('k1', ['--network-plugin', 'kubenet']);
  const was = nodes(before.id);
  const subnetId = was[0]!.subnetId;
  const subnet = await json(['network', 'vnet', 'subnet', 'show', ...subnetArgs(subnetId)]);
  assert.match(subnet.routeTable.id, /routetable/i, 'kubenet: the cluster route table is on the node subnet');

  assert.match(await failure(['aks', 'update', ...cluster('k1'), '--network-plugin-mode', 'overlay']), /UnsupportedNetworkPluginModeWithNetworkPlugin/);

  const after = await json(['aks', 'update', ...cluster('k1'), '--network-plugin', 'azure', '--network-plugin-mode', 'overlay']);
  assert.deepEqual([after.networkProfile.networkPlugin, after.networkProfile.networkPluginMode, after.provisioningState], ['azure', 'overlay', 'Succeeded']);
  const now = nodes(before.id);
  assert.deepEqual(
    now.map((n) => [n.name, n.ip, n.podCidr]),
    was.map((n) => [n.name, n.ip, n.podCidr]),
  );
  for (const n of now) assert.ok(n.reimagedAt, `${n.name} was reimaged`);
  const detached = await json(['network', 'vnet', 'subnet', 'show', ...subnetArgs(subnetId)]);
  assert.equal(detached.routeTable ?? null, null);
  // az 2.45's aks show reads an api-version without networkPluginMode: it shows the plugin.
  const show = await json(['aks', 'show', ...cluster('k1')]);
  assert.equal(show.networkProfile.networkPlugin, 'azure');
});

test('the migration is one-way: an overlay cluster cannot go back to kubenet (U1, through the SDK)', async () => {
  const aks = aksClient(server, '2024-09-01');
  const current = await aks.managedClusters.get('rg', 'k1');
  assert.equal(current.networkProfile?.networkPluginMode, 'overlay');
  const back = { ...current, networkProfile: { ...current.networkProfile, networkPlugin: 'kubenet', networkPluginMode: undefined } };
  await assert.rejects(aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'k1', back, POLL), (e: any) => e.code === 'PropertyChangeNotAllowed');
  assert.equal((await aks.managedClusters.get('rg', 'k1')).networkProfile?.networkPluginMode, 'overlay');
});

test('kubenet with Calico network policy cannot migrate (U2)', async () => {
  await create('k2', ['--network-plugin', 'kubenet', '--network-policy', 'calico']);
  const stderr = await failure(['aks', 'update', ...cluster('k2'), '--network-plugin', 'azure', '--network-plugin-mode', 'overlay']);
  assert.match(stderr, /NetworkPluginMigrationNotAllowed/);
  assert.match(stderr, /Calico/);
  const show = await json(['aks', 'show', ...cluster('k2')]);
  assert.equal(show.networkProfile.networkPlugin, 'kubenet');
});

test('Azure CNI node subnet → overlay needs --pod-cidr (U2); with it the NICs lose their secondary IPs and each node gets a /24', async () => {
  const before = await create('a1', ['--network-plugin', 'azure', '--max-pods', '30']);
  const was = nodes(before.id);
  assert.equal(was[0]!.secondaryIps?.length, 30);

  const stderr = await failure(['aks', 'update', ...cluster('a1'), '--network-plugin-mode', 'overlay']);
  assert.match(stderr, /NetworkPluginMigrationNotAllowed/);
  assert.match(stderr, /pod CIDR/);

  const after = await json(['aks', 'update', ...cluster('a1'), '--network-plugin-mode', 'overlay', '--pod-cidr', '192.168.0.0/16']);
  assert.deepEqual([after.networkProfile.networkPluginMode, after.networkProfile.podCidr], ['overlay', '192.168.0.0/16']);
  const now = nodes(before.id);
  assert.deepEqual(
    now.map((n) => [n.name, n.ip]),
    was.map((n) => [n.name, n.ip]),
  );
  const pods = Cidr.parse('192.168.0.0/16');
  for (const n of now) {
    assert.equal(n.secondaryIps, undefined);
    assert.ok(n.podCidr && pods.containsCidr(Cidr.parse(n.podCidr)) && Cidr.parse(n.podCidr).prefix === 24, `${n.name}: ${n.podCidr}`);
    const nic = server.store.get<any>(n.nicId);
    assert.deepEqual(
      nic.properties.ipConfigurations.map((c: any) => c.properties.privateIPAddress),
      [n.ip],
    );
  }
  assert.notEqual(now[0]!.podCidr, now[1]!.podCidr);
});
