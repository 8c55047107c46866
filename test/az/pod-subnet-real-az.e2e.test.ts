// The real az (Debian 2.45, through the repository's shim) has --pod-subnet-id on `aks create` and `aks nodepool
// add`: Azure CNI with a pod subnet made by it against aksemu, and read back as aksemu az prints it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { nodesPrefix, type NodeRecord } from '../../src/model/cluster-records.js';
import { AZ, runRealAz } from './real-az-env.js';
import { podPoolAddArgs, podSubnetCreateArgs, vnetCreateArgs } from './helpers.js';
import { realAzSession, type RealAzSession } from './real-az-session.js';

const skip = existsSync(AZ) ? false : `${AZ} is not installed`;
const RG = 'podRealRG';
let session: RealAzSession;

const run = async (args: string[]) => {
  const r = await runRealAz(session.env, args);
  assert.equal(r.code, 0, `az ${args.join(' ')}: ${r.stderr}`);
  return r.stdout === '' ? undefined : JSON.parse(r.stdout);
};

before(async () => {
  if (skip) return;
  session = await realAzSession(RG);
});

after(async () => {
  if (skip) return;
  await session.close();
});

test('real az: aks create and aks nodepool add --pod-subnet-id; every node holds a batch of 16 pod-subnet addresses', { skip }, async () => {
  await run([...vnetCreateArgs(RG, 'vnet', '10.240.0.0/16', 'nodes', '10.240.0.0/24'), '-o', 'none']);
  const pods = await run(['network', 'vnet', 'subnet', 'create', '-g', RG, '--vnet-name', 'vnet', '-n', 'pods', '--address-prefixes', '10.240.8.0/22']);
  const nodes = await run(['network', 'vnet', 'subnet', 'show', '-g', RG, '--vnet-name', 'vnet', '-n', 'nodes']);
  const c = await run(podSubnetCreateArgs(RG, 'ps', nodes.id, pods.id, 2));
  assert.equal(c.provisioningState, 'Succeeded');
  assert.equal(c.agentPoolProfiles[0].podSubnetId, pods.id);
  assert.equal(c.agentPoolProfiles[0].maxPods, 110);
  const added = await run(podPoolAddArgs(RG, 'ps', 'user1', 1, nodes.id, pods.id));
  assert.equal(added.podSubnetId, pods.id);
  const records = session.server.store.list<NodeRecord>(nodesPrefix(c.id)).map((e) => e.value);
  assert.equal(records.length, 3);
  const batches = records.map((r) => r.podSubnetIps!);
  assert.ok(batches.every((b) => b.length === 16 && b.every((ip) => Cidr.parse('10.240.8.0/22').contains(IpAddress.parse(ip)))));
  assert.equal(new Set(batches.flat()).size, 48, 'no address in two batches');
});
