// What users and agents write on Nodes survives a restart of the server and the rebuild of a node that keeps its
// name (an upgrade, a scale-out beside it), with the real kubectl: a podCIDR patched onto a BYO CNI node (and the
// refusal of a change after), the annotations flannel, Calico and Cilium write, a user's label and taint, a cordon,
// and a condition an agent reports through nodes/status (flannel's NetworkUnavailable).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { restart } from '../network/harness.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

type Obj = any;

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

async function node(env: ClusterEnv, name: string): Promise<Obj> {
  const r = await kubectl(env, ['get', 'node', name, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function ok(env: ClusterEnv, args: string[]): Promise<void> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
}

const ANNOTATIONS = {
  'flannel.alpha.coreos.com/backend-type': 'vxlan',
  'flannel.alpha.coreos.com/public-ip': '10.224.0.4',
  'projectcalico.org/IPv4Address': '10.224.0.4/16',
  'network.cilium.io/ipv4-cilium-host': '10.244.0.12',
};

const CONDITION = {
  type: 'NetworkUnavailable',
  status: 'False',
  reason: 'FlannelIsUp',
  message: 'Flannel is running on this node',
  lastHeartbeatTime: '2026-01-01T00:00:00Z',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

/** Every write of the test, as read back. */
function assertWritten(n: Obj, what: string): void {
  assert.equal(n.spec.podCIDR, '10.244.1.0/24', `${what}: podCIDR`);
  assert.deepEqual(n.spec.podCIDRs, ['10.244.1.0/24'], `${what}: podCIDRs`);
  for (const [k, v] of Object.entries(ANNOTATIONS)) assert.equal(n.metadata.annotations[k], v, `${what}: annotation ${k}`);
  assert.equal(n.metadata.labels['team'], 'blue', `${what}: label`);
  assert.equal(n.metadata.labels['kubernetes.io/hostname'], n.metadata.name, `${what}: the record's labels stay`);
  assert.ok(
    n.spec.taints.some((t: Obj) => t.key === 'dedicated' && t.value === 'gpu' && t.effect === 'NoSchedule'),
    `${what}: taint ${JSON.stringify(n.spec.taints)}`,
  );
  assert.equal(n.spec.unschedulable, true, `${what}: cordon`);
  const c = n.status.conditions.find((x: Obj) => x.type === 'NetworkUnavailable');
  assert.deepEqual(c && { ...c }, CONDITION, `${what}: condition`);
  assert.ok(
    n.status.conditions.some((x: Obj) => x.type === 'Ready'),
    `${what}: the kubelet's conditions stay`,
  );
}

describe('Node writes persist', { skip }, () => {
  test('podCIDR, annotations, labels, taints, cordon and conditions survive restarts and an upgrade that keeps the names', { timeout: 240_000 }, () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const names = (JSON.parse((await kubectl(env, ['get', 'nodes', '-o', 'json'])).stdout).items as Obj[]).map((n) => n.metadata.name as string).sort();
      const name = names[0]!;
      const other = names[1]!;
      const before = await node(env, name);
      assert.equal(before.spec.podCIDR, undefined, 'AKS gives a BYO CNI node no podCIDR');
      await ok(env, ['patch', 'node', name, '-p', JSON.stringify({ spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] } })]);
      await ok(env, ['patch', 'node', name, '--subresource=status', '-p', JSON.stringify({ metadata: { annotations: ANNOTATIONS } })]);
      await ok(env, ['patch', 'node', name, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions: [CONDITION] } })]);
      await ok(env, ['label', 'node', name, 'team=blue']);
      await ok(env, ['taint', 'node', name, 'dedicated=gpu:NoSchedule']);
      await ok(env, ['cordon', name]);
      assertWritten(await node(env, name), 'as written');

      await restart(env);
      assertWritten(await node(env, name), 'after a restart');
      const untouched = await node(env, other);
      assert.equal(untouched.metadata.labels['team'], undefined, 'another node has none of it');
      assert.equal(untouched.spec.podCIDR, undefined);
      const change = await kubectl(env, ['patch', 'node', name, '-p', JSON.stringify({ spec: { podCIDR: '10.244.9.0/24', podCIDRs: ['10.244.9.0/24'] } })]);
      assert.equal(change.code, 1, 'a podCIDR still changes only from empty');
      assert.match(change.stderr, /spec\.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid/);

      // A writer removes what it wrote: the removal is kept too.
      await ok(env, ['label', 'node', name, 'team-']);
      await ok(env, ['label', 'node', name, 'team=blue']);
      await ok(env, ['label', 'node', other, 'gone=soon']);
      await ok(env, ['label', 'node', other, 'gone-']);

      // An upgrade rebuilds every Node from its record (a new kubelet version), names kept; a scale-out adds one.
      const aks = aksClient(env.server);
      await aks.managedClusters.beginCreateOrUpdateAndWait(
        'rg',
        'c1',
        { ...cluster({ networkPlugin: 'none' }, { count: 4, orchestratorVersion: '1.33' }), kubernetesVersion: '1.33' },
        POLL,
      );
      await eventually(async () => (await node(env, name)).status.nodeInfo.kubeletVersion.startsWith('v1.33'), 20_000, 'the upgraded kubelet');
      assertWritten(await node(env, name), 'after the upgrade');
      await restart(env);
      assertWritten(await node(env, name), 'after the upgrade and a restart');
      assert.equal((await node(env, other)).metadata.labels['gone'], undefined, 'a removed label stays removed');
      const count = JSON.parse((await kubectl(env, ['get', 'nodes', '-o', 'json'])).stdout).items.length;
      assert.equal(count, 4);
    }),
  );
});
