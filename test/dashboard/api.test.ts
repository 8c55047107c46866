// The dashboard's JSON API and event stream (docs/dashboard.md §3) over real HTTPS against a real server, with the
// state made as a user makes it (`aksemu az`, the real kubectl): the address maps of a kubenet, an Azure CNI
// (pre-allocated pod IPs) and a VM subnet equal the store's allocations and what az shows, and sum to the subnet;
// the group, VNet and cluster views; events after `az aks scale` and after `kubectl create service`; the plan
// endpoint's picture is `aksemu plan --format svg`'s; hostile input is a 4xx.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { allocationsIn } from '../../src/providers/network/allocations.js';
import type { NodeRecord } from '../../src/model/cluster-records.js';
import { NODES_PREFIX } from '../../src/store/keys.js';
import { removeHome, startTestServer, tempHome, https, type TestServer } from '../e2e/harness.js';
import { aksemu, azOk } from '../az/helpers.js';
import { HAVE_KUBECTL, kubectl } from '../cluster/harness.js';
import { api, apiOk, nextEvent, signIn } from './helpers.js';

let server: TestServer;
let home: string;
let cookie: string;
let sub: string;
let vnetId: string;
let scratch: string;
/** `az network vnet subnet create` of one subnet in vnet1. */
const subnetCreate = (name: string, prefix: string) =>
  azOk(home, ['network', 'vnet', 'subnet', 'create', '-g', 'dashRG', '--vnet-name', 'vnet1', '-n', name, '--address-prefixes', prefix, '-o', 'none']);
const subnetId = (name: string) => `${vnetId}/subnets/${name}`;
const clusterId = (name: string) => `/subscriptions/${sub}/resourceGroups/dashRG/providers/Microsoft.ContainerService/managedClusters/${name}`;

before(async () => {
  home = tempHome();
  scratch = mkdtempSync(join(tmpdir(), 'aksemu-dash-'));
  server = await startTestServer({ home });
  sub = server.identity.subscriptionId;
  vnetId = `/subscriptions/${sub}/resourceGroups/dashRG/providers/Microsoft.Network/virtualNetworks/vnet1`;
  cookie = await signIn(server);
  await azOk(home, ['group', 'create', '-l', 'eastus', '-n', 'dashRG', '-o', 'none']);
  await azOk(home, [
    'network',
    'vnet',
    'create',
    '-g',
    'dashRG',
    '-n',
    'vnet1',
    '--address-prefixes',
    '10.50.0.0/16',
    '--subnet-name',
    'kubenet',
    '--subnet-prefixes',
    '10.50.0.0/24',
    '-o',
    'none',
  ]);
  await subnetCreate('cni', '10.50.1.0/24');
  await subnetCreate('vms', '10.50.2.0/27');
  const common = ['--generate-ssh-keys', '-o', 'none'];
  await azOk(home, ['aks', 'create', '-g', 'dashRG', '-n', 'k1', '--network-plugin', 'kubenet', '--vnet-subnet-id', subnetId('kubenet'), '-c', '2', ...common]);
  await azOk(home, [
    'aks',
    'create',
    '-g',
    'dashRG',
    '-n',
    'c1',
    '--network-plugin',
    'azure',
    '--vnet-subnet-id',
    subnetId('cni'),
    '-c',
    '2',
    '--max-pods',
    '15',
    ...common,
  ]);
  const vm = 'vm create -g dashRG -n vm1 --vnet-name vnet1 --subnet vms --image Ubuntu2204 --admin-username azureuser --generate-ssh-keys -o none';
  await azOk(home, [...vm.split(' '), '--public-ip-address', '', '--nsg', '']);
  const lb = 'network lb create -g dashRG -n ilb --sku Standard --vnet-name vnet1 --subnet vms --private-ip-address 10.50.2.20 --frontend-ip-name fe1 -o none';
  await azOk(home, lb.split(' '));
});

after(async () => {
  await server.close();
  removeHome(home);
  rmSync(scratch, { recursive: true, force: true });
});

test('subnet-map: kubenet, Azure CNI and VM subnets: counts equal the store and az, and sum to the subnet', async () => {
  const nodes = server.store.list<NodeRecord>(NODES_PREFIX).map((e) => e.value);
  for (const [name, expect] of [
    ['kubenet', { total: 256, node: 2, pod: 0, vm: 0, lb: 0 }],
    ['cni', { total: 256, node: 2, pod: 30, vm: 0, lb: 0 }],
    ['vms', { total: 32, node: 0, pod: 0, vm: 1, lb: 1 }],
  ] as const) {
    const map = await apiOk(server, cookie, `subnet-map?id=${encodeURIComponent(subnetId(name))}`);
    assert.equal(map.total, expect.total, name);
    assert.equal(map.cells, true);
    const c = map.counts;
    assert.equal(c.reserved, 5, name);
    assert.equal(c.node, expect.node, name);
    assert.equal(c.pod, expect.pod, name);
    assert.equal(c.vm, expect.vm, name);
    assert.equal(c.lb, expect.lb, name);
    assert.equal(c.other, 0, name);
    assert.equal(
      Object.values(c).reduce((a: number, b) => a + (b as number), 0),
      map.total,
      `${name}: counts sum to the subnet`,
    );
    // The store's allocations, as the provider keeps them.
    const held = allocationsIn(server.store, subnetId(name)).reduce((n, a) => n + a.addresses.length, 0);
    assert.equal(c.node + c.pod + c.vm + c.lb + c.other, held, name);
    const onSubnet = nodes.filter((n) => n.subnetId.toLowerCase() === subnetId(name).toLowerCase());
    assert.equal(
      c.pod,
      onSubnet.reduce((n, r) => n + (r.secondaryIps?.length ?? 0), 0),
      name,
    );
    // What az shows: one ipConfiguration per address held (a node's primary, each pre-allocated pod IP, the VM's,
    // the internal load balancer's frontend).
    const shown = JSON.parse(await azOk(home, ['network', 'vnet', 'subnet', 'show', '-g', 'dashRG', '--vnet-name', 'vnet1', '-n', name]));
    assert.equal((shown.ipConfigurations ?? []).length, c.node + c.pod + c.vm + c.lb, `${name}: az's ipConfigurations`);
    // The runs cover the subnet in order, each one kind and owner.
    assert.equal(
      map.runs.reduce((n: number, r: { count: number }) => n + r.count, 0),
      map.total,
    );
    assert.equal(map.runs[0].first, map.addressPrefix.split('/')[0]);
    assert.deepEqual(map.runs[0], { first: map.runs[0].first, last: map.runs[0].last, count: 4, kind: 'reserved', owner: 'Azure' });
    assert.equal(map.runs.at(-1).kind, 'reserved');
    for (const r of map.runs.filter((r: { kind: string }) => r.kind === 'node'))
      assert.ok(
        onSubnet.some((n) => n.name === r.owner),
        r.owner,
      );
  }
  const vms = (await apiOk(server, cookie, `subnet-map?id=${encodeURIComponent(subnetId('vms'))}`)).runs;
  assert.equal(vms.find((r: { kind: string }) => r.kind === 'vm').owner, 'vm1');
  assert.deepEqual(
    vms.find((r: { kind: string }) => r.kind === 'lb'),
    {
      first: '10.50.2.20',
      last: '10.50.2.20',
      count: 1,
      kind: 'lb',
      owner: 'ilb/fe1',
      ownerId: `/subscriptions/${sub}/resourceGroups/dashRG/providers/Microsoft.Network/loadBalancers/ilb`,
    },
  );
});

test('group, vnet and cluster views', async () => {
  const overview = await apiOk(server, cookie, 'overview');
  const g = overview.groups.find((x: { name: string }) => x.name === 'dashRG');
  assert.equal(g.counts.virtualNetworks, 1);
  assert.equal(g.counts.managedClusters, 2);
  assert.ok(overview.operations.length > 0);
  const group = await apiOk(server, cookie, 'group?name=dashRG');
  assert.deepEqual(
    group.managedClusters.map((c: { name: string }) => c.name),
    ['c1', 'k1'],
  );
  const k1 = group.managedClusters.find((c: { name: string }) => c.name === 'k1');
  assert.equal(k1.networkPlugin, 'kubenet');
  assert.equal(k1.nodeCount, 2);
  const subnets = group.virtualNetworks[0].subnets;
  assert.deepEqual(
    subnets.map((s: { name: string; used: number; total: number }) => [s.name, s.used, s.total]),
    [
      ['cni', 32, 256],
      ['kubenet', 2, 256],
      ['vms', 2, 32],
    ],
  );
  const vnet = await apiOk(server, cookie, `vnet?id=${encodeURIComponent(vnetId)}`);
  assert.equal(vnet.vnet.name, 'vnet1');
  assert.equal(vnet.vnet.properties.addressSpace.addressPrefixes[0], '10.50.0.0/16');
  assert.equal(vnet.subnets.length, 3);
  const cluster = await apiOk(server, cookie, `cluster?id=${encodeURIComponent(clusterId('k1'))}`);
  assert.equal(cluster.cluster.name, 'k1');
  assert.equal(cluster.cluster.properties.networkProfile.networkPlugin, 'kubenet');
  assert.equal(cluster.agentPools.length, 1);
  assert.equal(cluster.api.reachable, true);
  assert.equal(cluster.nodes.length, 2);
  for (const n of cluster.nodes) {
    assert.equal(typeof n.ready, 'boolean');
    assert.equal(n.podCIDRs.length, 1, 'kubenet: a pod CIDR per node');
    assert.match(n.internalIP, /^10\.50\.0\.\d+$/);
  }
  assert.ok(cluster.services.some((s: { name: string; clusterIP: string }) => s.name === 'kubernetes' && s.clusterIP === '10.0.0.1'));
  const cni = await apiOk(server, cookie, `cluster?id=${encodeURIComponent(clusterId('c1'))}`);
  for (const n of cni.nodes) assert.equal(n.secondaryIPs, 15);
  // Unknown ids are 404 in the envelope.
  for (const path of [
    'group?name=nope',
    `cluster?id=${encodeURIComponent(clusterId('nope'))}`,
    `vnet?id=${encodeURIComponent(`${vnetId}x`)}`,
    `subnet-map?id=${encodeURIComponent(subnetId('nope'))}`,
    'cluster?id=..%2F..%2F',
    'subnet-map?id=%00',
  ]) {
    const res = await api(server, cookie, path);
    assert.equal(res.status, 404, `${path}: ${res.text}`);
    assert.equal(res.json.error.code, 'NotFound');
  }
  assert.equal((await api(server, cookie, 'subnet-map')).status, 400);
});

const names = (ids: string[], id: string) => ids.some((x) => x.toLowerCase() === id.toLowerCase());

test('events: a change event after `az aks scale` (ARM and the cluster) and after `kubectl create service`', async () => {
  const scaled = nextEvent(server, cookie, (d) => names(d.arm, clusterId('k1')));
  const nodesChanged = nextEvent(server, cookie, (d) => names(d.clusters, clusterId('k1')));
  await scaled.ready;
  await nodesChanged.ready;
  await azOk(home, ['aks', 'scale', '-g', 'dashRG', '-n', 'k1', '-c', '3', '-o', 'none']);
  await scaled.seen;
  await nodesChanged.seen;
  const cluster = await apiOk(server, cookie, `cluster?id=${encodeURIComponent(clusterId('k1'))}`);
  assert.equal(cluster.nodes.length, 3);
  if (!HAVE_KUBECTL) return;
  const kubeconfig = join(scratch, 'kubeconfig');
  const creds = await aksemu(home, ['az', 'aks', 'get-credentials', '-g', 'dashRG', '-n', 'k1', '-f', kubeconfig]);
  assert.equal(creds.code, 0, creds.stderr);
  const created = nextEvent(server, cookie, (d) => names(d.clusters, clusterId('k1')));
  await created.ready;
  const r = await kubectl({ kubeconfig, scratch }, ['create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
  assert.equal(r.code, 0, r.stderr);
  await created.seen;
  const after = await apiOk(server, cookie, `cluster?id=${encodeURIComponent(clusterId('k1'))}`);
  const web = after.services.find((s: { name: string }) => s.name === 'web');
  assert.equal(web.ports, '80/TCP');
  assert.match(web.clusterIP, /^10\.0\.\d+\.\d+$/);
});

test('plan: the JSON is `aksemu plan -o json`, the SVG `aksemu plan --format svg`, for the same flags; bad flags are 400', async () => {
  const flags = { 'network-plugin': 'azure', 'node-count': '50', 'subnet-cidr': '10.240.0.0/24', 'vnet-cidr': '10.240.0.0/16' };
  const argv = Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v]);
  const post = (body: string, headers: Record<string, string> = {}) =>
    https(server, 'POST', '/ui/api/plan', { headers: { cookie, 'content-type': 'application/json', origin: server.url, ...headers }, body });
  const res = await post(JSON.stringify({ flags }));
  assert.equal(res.status, 200, res.text);
  const svg = await aksemu(home, ['plan', ...argv, '--format', 'svg']);
  assert.equal(svg.code, 1, 'INVALID');
  assert.equal(res.json.svg, svg.stdout);
  const json = await aksemu(home, ['plan', ...argv, '-o', 'json']);
  assert.deepEqual(res.json.plan, JSON.parse(json.stdout));
  assert.equal(res.json.plan.valid, false);
  assert.deepEqual(
    res.json.plan.suggestions.map((x: { kind: string }) => x.kind),
    ['larger-subnet', 'fewer-nodes', 'network-model'],
  );
  for (const [body, target] of [
    ['{"flags":{"__proto__":{"network-plugin":"azure"}}}', 'flags.__proto__'],
    ['{"flags":{"constructor":"x"}}', 'flags.constructor'],
    ['{"flags":{"vnet-subnet-idx":"x"}}', 'flags.vnet-subnet-idx'],
    ['{"flags":{"node-count":5}}', 'flags.node-count'],
    ['{"flags":{"nodes":"yes"}}', 'flags.nodes'],
    ['{"flags":[]}', 'flags'],
    ['{"flags":null}', 'flags'],
    ['{}', 'flags'],
    ['null', 'flags'],
  ] as const) {
    const bad = await post(body);
    assert.equal(bad.status, 400, `${body}: ${bad.text}`);
    assert.equal(bad.json.error.target, target, body);
  }
  const notInt = await post('{"flags":{"node-count":"abc"}}');
  assert.equal(notInt.status, 400);
  assert.equal(notInt.json.error.message, "argument --node-count: invalid int value: 'abc'");
  assert.equal((await post('{nope')).status, 400);
  assert.equal((await post(`{"flags":{"name":"${'x'.repeat(70_000)}"}}`)).status, 413);
});
