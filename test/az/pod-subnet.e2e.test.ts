// Azure CNI with a pod subnet through aksemu az (docs/aks-rules.md §2.9, §3.8): `aks create --pod-subnet-id` and
// `aks nodepool add --pod-subnet-id`, the pods' addresses from the pod subnet in 16-address batches (kubectl), a
// node whose batch cannot grow leaving pods ContainerCreating with CNS's FailedCreatePodSandBox until addresses
// free up, static /28 blocks through the REST API, and the pod-subnet rules as az prints them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { nodesPrefix, type NodeRecord } from '../../src/model/cluster-records.js';
import { addressesInUse } from '../../src/providers/network/ipam.js';
import { eventually, kubectl } from '../cluster/harness.js';
import { bearer, https, removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az, azOk, podPoolAddArgs, podSubnetCreateArgs, vnetCreateArgs } from './helpers.js';

let server: TestServer;
let home: string;
let sub: string;

const RG = 'podRG';
const ok = (args: string[]) => azOk(home, args);
const json = async (args: string[]) => JSON.parse(await ok(args));
const subnetId = (vnet: string, name: string) =>
  `/subscriptions/${sub}/resourceGroups/${RG}/providers/Microsoft.Network/virtualNetworks/${vnet}/subnets/${name}`;
const inCidr = (cidr: string, ip: string) => Cidr.parse(cidr).contains(IpAddress.parse(ip));

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  sub = server.identity.subscriptionId;
  await ok(['group', 'create', '-l', 'eastus', '-n', RG, '-o', 'none']);
  await ok([...vnetCreateArgs(RG, 'vnet', '10.230.0.0/16', 'nodes', '10.230.0.0/24'), '-o', 'none']);
  for (const [name, prefix] of [
    ['pods', '10.230.1.0/24'],
    ['pods2', '10.230.2.0/24'],
    ['tiny', '10.230.3.0/27'],
    ['blocks', '10.230.4.0/24'],
  ] as const) {
    await ok(['network', 'vnet', 'subnet', 'create', '-g', RG, '--vnet-name', 'vnet', '-n', name, '--address-prefixes', prefix, '-o', 'none']);
  }
  await ok([...vnetCreateArgs(RG, 'other', '10.231.0.0/16', 'pods', '10.231.0.0/24'), '-o', 'none']);
});

after(async () => {
  await server.close();
  removeHome(home);
});

async function kubeconfigOf(name: string): Promise<string> {
  const file = join(home, `${name}.kubeconfig`);
  const r = await az(home, ['aks', 'get-credentials', '-g', RG, '-n', name, '--file', file]);
  assert.equal(r.code, 0, r.stderr);
  return file;
}

/** The addresses of the app=web pods that have one. */
async function webIps(env: { kubeconfig: string; scratch: string }): Promise<string[]> {
  const r = await kubectl(env, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.status.podIP}{"\\n"}{end}']);
  return r.stdout.split('\n').filter(Boolean);
}

const nodeRecords = (clusterId: string) => server.store.list<NodeRecord>(nodesPrefix(clusterId)).map((e) => e.value);

test('aks create --pod-subnet-id: one node-subnet address per node, 16 pod-subnet addresses each, pods on them (kubectl)', async () => {
  const c = await json(podSubnetCreateArgs(RG, 'ps', subnetId('vnet', 'nodes'), subnetId('vnet', 'pods'), 2));
  assert.equal(c.provisioningState, 'Succeeded');
  assert.equal(c.agentPoolProfiles[0].podSubnetId, subnetId('vnet', 'pods'));
  assert.equal(c.agentPoolProfiles[0].maxPods, 110, 'the default maxPods with a pod subnet (M2)');

  // The mode is reported from the api-versions that have it, DynamicIndividual when not asked.
  const path = `/subscriptions/${sub}/resourceGroups/${RG}/providers/Microsoft.ContainerService/managedClusters/ps`;
  const newer = await https(server, 'GET', `${path}?api-version=2025-07-01`, { headers: await bearer(server) });
  assert.equal(newer.json.properties.agentPoolProfiles[0].podIPAllocationMode, 'DynamicIndividual');
  const older = await https(server, 'GET', `${path}?api-version=2022-06-01`, { headers: await bearer(server) });
  assert.equal('podIPAllocationMode' in older.json.properties.agentPoolProfiles[0], false);

  const records = nodeRecords(c.id);
  assert.equal(records.length, 2);
  for (const r of records) {
    assert.ok(inCidr('10.230.0.0/24', r.ip));
    assert.equal(r.secondaryIps, undefined, 'no secondary IPs on the node subnet');
    assert.equal(r.podSubnetIps!.length, 16);
    assert.ok(r.podSubnetIps!.every((ip) => inCidr('10.230.1.0/24', ip)));
  }
  // The pod subnet's IPAM holds the batches: the subnet shows them in use.
  const pods = await json(['network', 'vnet', 'subnet', 'show', '-g', RG, '--vnet-name', 'vnet', '-n', 'pods']);
  assert.equal(pods.addressPrefix, '10.230.1.0/24');

  const kubeconfig = await kubeconfigOf('ps');
  const env = { kubeconfig, scratch: home };
  const made = await kubectl(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=4']);
  assert.equal(made.code, 0, made.stderr);
  await eventually(async () => (await webIps(env)).length === 4, 60_000, 'four pods with addresses');
  const wide = await kubectl(env, ['get', 'pods', '-l', 'app=web', '-o', 'json']);
  const ips = JSON.parse(wide.stdout).items.map((p: { status: { podIP: string } }) => p.status.podIP) as string[];
  const held = new Set(nodeRecords(c.id).flatMap((r) => r.podSubnetIps!));
  for (const ip of ips) {
    assert.ok(inCidr('10.230.1.0/24', ip), `${ip} is a pod-subnet address`);
    assert.ok(held.has(ip), `${ip} is one of its node's batch`);
  }

  // More pods than the two batches hold: CNS gets the nodes more batches of 16, each pod on its node's.
  const more = await kubectl(env, ['scale', 'deployment', 'web', '--replicas=40']);
  assert.equal(more.code, 0, more.stderr);
  await eventually(async () => (await webIps(env)).length === 40, 90_000, 'forty pods with addresses');
  const grown = nodeRecords(c.id);
  assert.ok(grown.every((r) => r.podSubnetIps!.length % 16 === 0));
  assert.ok(grown.reduce((n, r) => n + r.podSubnetIps!.length, 0) >= 48, 'at least one more batch');
  const byNode = new Map(grown.map((r) => [r.name, new Set(r.podSubnetIps)]));
  for (const p of JSON.parse((await kubectl(env, ['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items) {
    assert.ok(byNode.get(p.spec.nodeName)?.has(p.status.podIP), `${p.metadata.name}: ${p.status.podIP} is one of ${p.spec.nodeName}'s batches`);
  }

  // A second pool on another pod subnet of the VNet.
  const added = await json(podPoolAddArgs(RG, 'ps', 'user2', 1, subnetId('vnet', 'nodes'), subnetId('vnet', 'pods2')));
  assert.equal(added.provisioningState, 'Succeeded');
  assert.equal(added.podSubnetId, subnetId('vnet', 'pods2'));
  const user2 = nodeRecords(c.id).find((r) => r.pool === 'user2')!;
  assert.deepEqual([user2.podSubnetIps![0], user2.podSubnetIps!.length], ['10.230.2.4', 16]);
});

test('the pod-subnet rules as az prints them: another VNet, the node subnet itself, a /24 for 16 nodes', async () => {
  const base = ['aks', 'nodepool', 'add', '-g', RG, '--cluster-name', 'ps', '--vnet-subnet-id', subnetId('vnet', 'nodes')];
  const otherVnet = await az(home, [...base, '-n', 'bad1', '-c', '1', '--pod-subnet-id', subnetId('other', 'pods')]);
  assert.equal(otherVnet.code, 1);
  assert.match(
    otherVnet.stderr,
    /^ERROR: \(PodSubnetNotInNodeSubnetVnet\) Pod subnet .* is not in virtual network .*\/virtualNetworks\/vnet of its node subnet/,
  );
  assert.match(otherVnet.stderr, /\nTarget: agentPoolProfile\.podSubnetID\n$/);

  const same = await az(home, [...base, '-n', 'bad2', '-c', '1', '--pod-subnet-id', subnetId('vnet', 'nodes')]);
  assert.equal(same.code, 1);
  assert.match(same.stderr, /^ERROR: \(PodSubnetSameAsNodeSubnet\) /);

  const missing = await az(home, [...base, '-n', 'bad3', '-c', '1', '--pod-subnet-id', subnetId('vnet', 'gone')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^ERROR: \(InvalidResourceReference\) Resource .*\/subnets\/gone referenced by resource .* was not found\./);

  // pods2 already holds user2's batch (16): 15 more nodes need 240 of the 235 left.
  const big = await az(home, [...base, '-n', 'big', '-c', '15', '--pod-subnet-id', subnetId('vnet', 'pods2')]);
  assert.equal(big.code, 1);
  const message = 'Pre-allocated IPs 240 exceeds IPs available 235 in Subnet Cidr 10.230.2.0/24, Subnet Name pods2. http://aka.ms/aks/insufficientsubnetsize';
  assert.equal(
    big.stderr,
    `ERROR: (InsufficientSubnetSize) ${message}\nCode: InsufficientSubnetSize\nMessage: ${message}\nTarget: agentPoolProfile.podSubnetID\n`,
  );
});

test("dynamic batches: when the pod subnet has no batch left, pods wait ContainerCreating with CNS's error until addresses free up", async () => {
  // A /27 pod subnet: 27 usable addresses, one node's first batch (16), and 11 left: no second batch fits.
  const c = await json(podSubnetCreateArgs(RG, 'tiny', subnetId('vnet', 'nodes'), subnetId('vnet', 'tiny'), 1));
  assert.equal(c.provisioningState, 'Succeeded');
  const env = { kubeconfig: await kubeconfigOf('tiny'), scratch: home };
  // The cluster's own system pods take addresses of the batch too; fill the rest.
  const made = await kubectl(env, ['create', 'deployment', 'fill', '--image=nginx', '--replicas=20']);
  assert.equal(made.code, 0, made.stderr);
  const waiting = async () => {
    const r = await kubectl(env, ['get', 'pods', '-A', '-o', 'json']);
    const items = JSON.parse(r.stdout).items as Array<{
      metadata: { name: string; namespace: string };
      spec: { hostNetwork?: boolean };
      status: { podIP?: string };
    }>;
    return {
      withIp: items.filter((p) => !p.spec.hostNetwork && p.status.podIP).map((p) => p.status.podIP!),
      without: items.filter((p) => !p.spec.hostNetwork && !p.status.podIP),
    };
  };
  await eventually(async () => (await waiting()).withIp.length === 16, 60_000, 'the batch to be used up');
  const state = await waiting();
  assert.ok(state.without.length > 0, 'some pods find no address');
  assert.ok(state.withIp.every((ip) => inCidr('10.230.3.0/27', ip)));
  assert.equal(nodeRecords(c.id)[0]!.podSubnetIps!.length, 16, 'no second batch: the pod subnet has 11 addresses left');

  const stuck = state.without.find((p) => p.metadata.namespace === 'default')!;
  const failures = async () => {
    const selector = `involvedObject.name=${stuck.metadata.name},reason=FailedCreatePodSandBox`;
    const r = await kubectl(env, ['get', 'events', '--field-selector', selector, '-o', 'json']);
    return JSON.parse(r.stdout).items as Array<{ message: string }>;
  };
  await eventually(async () => (await failures()).length > 0, 60_000, 'the FailedCreatePodSandBox event');
  const text = (await failures())[0]!.message;
  assert.match(
    text,
    /plugin type="azure-vnet" failed \(add\): IPAM Invoker Add failed with error: Failed to get IP address from CNS with error: %w: AllocateIPConfig failed: not enough IPs available for /,
  );
  assert.match(text, /waiting on Azure CNS to allocate more/);
  const pod = JSON.parse((await kubectl(env, ['get', 'pod', stuck.metadata.name, '-o', 'json'])).stdout);
  assert.equal(pod.status.containerStatuses?.[0]?.state?.waiting?.reason ?? 'ContainerCreating', 'ContainerCreating');

  // Addresses free up: scaling down lets the waiting pods of the smaller set start.
  const scaled = await kubectl(env, ['scale', 'deployment', 'fill', '--replicas=4']);
  assert.equal(scaled.code, 0, scaled.stderr);
  await eventually(async () => (await waiting()).without.length === 0, 90_000, 'every remaining pod to get an address');
});

test('static block allocation (REST, api-version 2025-07-01): ⌈maxPods / 16⌉ aligned /28 blocks per node', async () => {
  const path = `/subscriptions/${sub}/resourceGroups/${RG}/providers/Microsoft.ContainerService/managedClusters/ps/agentPools/blocks?api-version=2025-07-01`;
  const body = {
    properties: {
      count: 2,
      vmSize: 'Standard_DS2_v2',
      mode: 'User',
      maxPods: 40,
      vnetSubnetID: subnetId('vnet', 'nodes'),
      podSubnetID: subnetId('vnet', 'blocks'),
      podIPAllocationMode: 'StaticBlock',
    },
  };
  const put = await https(server, 'PUT', path, { headers: { ...(await bearer(server)), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.ok([200, 201].includes(put.status), put.text);
  await eventually(
    async () => (await https(server, 'GET', path, { headers: await bearer(server) })).json.properties.provisioningState === 'Succeeded',
    30_000,
    'the pool',
  );
  const got = (await https(server, 'GET', path, { headers: await bearer(server) })).json;
  assert.equal(got.properties.podIPAllocationMode, 'StaticBlock');
  const cluster = (await json(['aks', 'show', '-g', RG, '-n', 'ps'])).id as string;
  const blocks = nodeRecords(cluster)
    .filter((r) => r.pool === 'blocks')
    .map((r) => r.podSubnetBlocks);
  assert.deepEqual(blocks, [
    ['10.230.4.16/28', '10.230.4.32/28', '10.230.4.48/28'],
    ['10.230.4.64/28', '10.230.4.80/28', '10.230.4.96/28'],
  ]);
  assert.equal(addressesInUse(server.store, subnetId('vnet', 'blocks')).length, 96, 'the blocks are held in the pod subnet');
  // Deleting the pool gives its blocks back.
  await ok(['aks', 'nodepool', 'delete', '-g', RG, '--cluster-name', 'ps', '-n', 'blocks']);
  assert.deepEqual(addressesInUse(server.store, subnetId('vnet', 'blocks')), []);
});
