// Issue 28's Must show for outbound types: each outbound type's source address at the internet host, on the netns
// data plane with `aksemu probe` (docs/dataplane.md §17). One VNet (§3.6) with four subnets: a loadBalancer cluster
// with two managed outbound IPs (its pods and nodes leave from one of effectiveOutboundIPs, a node always from the
// same; inside the VNet they keep their addresses), a userAssignedNATGateway cluster on a subnet with a NAT gateway
// (its nodes, and a VM of that subnet too, leave from the gateway's IP), a userDefinedRouting cluster whose route
// table sends 0.0.0.0/0 to an appliance address (nothing reaches the internet: the appliance is a VM that does not
// forward; when the address is nobody's, the packet is dropped), and a managedNATGateway cluster in its managed VNet.
// A VM with no outbound resource still shows its own address. Then the host unchanged. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nodesOf, type ClusterRecord } from '../../src/model/cluster-records.js';
import { networkClient } from '../network/harness.js';
import { DataplaneWorld, INTERNET, PORT, RG, skipReason, VM, VNET } from './dataplane-harness.js';

type Obj = any;
const POLL = { updateIntervalInMs: 10 };

describe('Outbound types on the netns data plane: the source address the internet host sees', { skip: skipReason() }, () => {
  let world: DataplaneWorld;

  const effectiveAddresses = (name: string) => world.outboundIps(name);

  /** A 1-node cluster made with `flags`; its node names. */
  async function smallCluster(name: string, flags: string[]): Promise<string[]> {
    const c = await world.az(['aks', 'create', '-g', RG, '-n', name, '-c', '1', '--network-plugin', 'azure', '--generate-ssh-keys', ...flags]);
    return nodeNames(c.id);
  }

  const nodeNames = (clusterId: string) => nodesOf(world.server.store, world.server.store.get<ClusterRecord>(clusterId)!).map((n) => n.name);

  async function subnet(name: string, prefix: string, extra: Obj = {}): Promise<string> {
    const s = await networkClient(world.server).subnets.beginCreateOrUpdateAndWait(RG, VNET, name, { addressPrefix: prefix, ...extra }, POLL);
    return s.id!;
  }

  before(() => {
    world = new DataplaneWorld();
    return world.withNetwork();
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  it('loadBalancer: pods and nodes leave from one of effectiveOutboundIPs (a node always from the same); inside the VNet they keep their own', async () => {
    await world.cluster('lb1', ['--network-plugin', 'kubenet', '--load-balancer-managed-outbound-ip-count', '2']);
    await world.podsOnEachNode();
    await world.server.dataplane.idle();
    const outbound = await effectiveAddresses('lb1');
    assert.equal(outbound.length, 2);
    for (const ip of outbound) assert.match(ip, /^198\.19\.\d+\.\d+$/);
    const [node0] = await world.nodes();
    const nodeIps = await world.nodeIps();
    const first = await world.seen('pod/default/web-0', `${INTERNET}:${PORT}`, 'lb1');
    assert.equal(first[0], true, String(first[1]));
    assert.ok(outbound.includes(first[1]!), `${first[1]} is one of ${outbound}`);
    // The node itself, and again: the same address (chosen per source).
    assert.deepEqual(await world.seen(`node/${node0.metadata.name}`, `${INTERNET}:${PORT}`), first);
    assert.deepEqual(await world.seen('pod/default/web-0', `${INTERNET}:${PORT}`, 'lb1'), first);
    const other = await world.seen('pod/default/web-1', `${INTERNET}:${PORT}`, 'lb1');
    assert.ok(outbound.includes(other[1]!), `${other[1]} is one of ${outbound}`);
    // Within the VNet nothing is rewritten: the VM sees the node.
    assert.deepEqual(await world.seen('pod/default/web-0', `${VM.ip}:${PORT}`, 'lb1'), [true, nodeIps[0]]);
    // A VM without an outbound resource leaves with its own address.
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${INTERNET}:${PORT}`), [true, VM.ip]);
    // aksemu probe prints it.
    const r = await world.probeCli(['--from', `node/${node0.metadata.name}`, '--to', `${INTERNET}:${PORT}`]);
    assert.deepEqual(r, { code: 0, stdout: `connected from ${first[1]}\n`, stderr: '' });
  });

  it('loadBalancer: after az aks update --load-balancer-outbound-ips the nodes leave from the user’s IP', async () => {
    const made = await world.az(['network', 'public-ip', 'create', '-g', RG, '-n', 'egress1', '--sku', 'Standard']).catch(() => undefined);
    const pip = made?.publicIp ?? (await world.az(['network', 'public-ip', 'show', '-g', RG, '-n', 'egress1']));
    await world.az(['aks', 'update', '-g', RG, '-n', 'lb1', '--load-balancer-outbound-ips', pip.id]);
    await world.server.dataplane.idle();
    assert.deepEqual(await effectiveAddresses('lb1'), [pip.ipAddress]);
    const [node0, node1] = await world.nodes();
    for (const n of [node0, node1]) assert.deepEqual(await world.seen(`node/${n.metadata.name}`, `${INTERNET}:${PORT}`), [true, pip.ipAddress]);
  });

  it("userAssignedNATGateway: the subnet's NAT gateway IP, for the cluster's nodes and for a VM on the subnet alike", async () => {
    const gwIp = await networkClient(world.server).publicIPAddresses.beginCreateOrUpdateAndWait(
      RG,
      'natip',
      { location: 'eastus', sku: { name: 'Standard' }, publicIPAllocationMethod: 'Static' },
      POLL,
    );
    const gw = await networkClient(world.server).natGateways.beginCreateOrUpdateAndWait(
      RG,
      'gw1',
      { location: 'eastus', sku: { name: 'Standard' }, publicIpAddresses: [{ id: gwIp.id! }] },
      POLL,
    );
    const subnetId = await subnet('natsub', '10.225.0.0/16', { natGateway: { id: gw.id } });
    const nodes = await smallCluster('una1', ['--outbound-type', 'userAssignedNATGateway', '--vnet-subnet-id', subnetId]);
    await world.vm('vm2', VNET, 'natsub', '10.225.0.100');
    await world.server.dataplane.idle();
    assert.deepEqual(await world.seen(`node/${nodes[0]}`, `${INTERNET}:${PORT}`), [true, gwIp.ipAddress]);
    assert.deepEqual(await world.seen('vm/vm2', `${INTERNET}:${PORT}`), [true, gwIp.ipAddress]);
    // To the VM of the other subnet: the node's own address.
    const nodeIp = nodesOf(
      world.server.store,
      world.server.store.get<ClusterRecord>(
        `/subscriptions/${world.server.identity.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.ContainerService/managedClusters/una1`,
      )!,
    )[0]!.ip;
    assert.deepEqual(await world.seen(`node/${nodes[0]}`, `${VM.ip}:${PORT}`), [true, nodeIp]);
  });

  it('userDefinedRouting: 0.0.0.0/0 goes to the appliance; a VM that does not forward, or nobody, and the internet is not reached', async () => {
    const client = networkClient(world.server);
    const table = await client.routeTables.beginCreateOrUpdateAndWait(
      RG,
      'rt-udr',
      { location: 'eastus', routes: [{ name: 'default', addressPrefix: '0.0.0.0/0', nextHopType: 'VirtualAppliance', nextHopIpAddress: VM.ip }] },
      POLL,
    );
    const subnetId = await subnet('udrsub', '10.226.0.0/16', { routeTable: { id: table.id } });
    const nodes = await smallCluster('udr1', ['--outbound-type', 'userDefinedRouting', '--vnet-subnet-id', subnetId]);
    await world.server.dataplane.idle();
    const [connected, error] = await world.seen(`node/${nodes[0]}`, `${INTERNET}:${PORT}`, undefined, 1500);
    assert.equal(connected, false);
    assert.match(String(error), /timed out|ETIMEDOUT|EHOSTUNREACH|unreachable/i);
    // The appliance address belongs to no one: still nothing.
    await client.routes.beginCreateOrUpdateAndWait(
      RG,
      'rt-udr',
      'default',
      { addressPrefix: '0.0.0.0/0', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.224.0.200' },
      POLL,
    );
    await world.server.dataplane.idle();
    assert.equal((await world.seen(`node/${nodes[0]}`, `${INTERNET}:${PORT}`, undefined, 1500))[0], false);
    // Within the VNet the route table changes nothing: the VM is reached with the node's address.
    assert.equal((await world.seen(`node/${nodes[0]}`, `${VM.ip}:${PORT}`))[0], true);
  });

  it('managedNATGateway: the managed VNet leaves from the NAT gateway AKS made', async () => {
    const c = await world.az(['aks', 'create', '-g', RG, '-n', 'mnat1', '-c', '1', '--generate-ssh-keys', '--outbound-type', 'managedNATGateway']);
    await world.server.dataplane.idle();
    const [ip] = await effectiveAddresses('mnat1');
    assert.match(ip!, /^198\.19\.\d+\.\d+$/);
    assert.deepEqual(await world.seen(`node/${nodeNames(c.id)[0]}`, `${INTERNET}:${PORT}`), [true, ip]);
  });

  it('the router holds one SNAT rule per outbound resource, named by its ARM id', async () => {
    const { execFileSync } = await import('node:child_process');
    const routers = world.namespaces().filter((n) => n.startsWith(`${world.prefix}-v`));
    const text = routers.map((r) => execFileSync('ip', ['netns', 'exec', r, 'nft', 'list', 'table', 'ip', 'aksemu_outbound'], { encoding: 'utf8' })).join('\n');
    assert.match(text, /snat to 198\.19\.\d+\.\d+ comment ".*\/natGateways\/gw1"/);
    assert.match(text, /\/outboundRules\/aksOutboundRule"/);
  });
});
