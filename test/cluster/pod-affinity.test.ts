// kube-scheduler's InterPodAffinity filter (required terms) on hand-made nodes and pods.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { hasRequiredAntiAffinity, labelSelectorMatches, podAffinityFilter, type AffinityWorld } from '../../src/cluster/scheduler/pod-affinity.js';

const node = (name: string, zone: string): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } } }) as KubeObject;
const NODES = [node('n0', 'z1'), node('n1', 'z1'), node('n2', 'z2')];
const byName = new Map(NODES.map((n) => [n.metadata.name, n]));
const term = (app: string, topologyKey = 'kubernetes.io/hostname') => ({ labelSelector: { matchLabels: { app } }, topologyKey });
let uid = 0;
const pod = (app: string, nodeName?: string, affinity?: unknown, namespace = 'default'): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${++uid}`, namespace, uid: `u${uid}`, labels: { app } },
    spec: { ...(nodeName ? { nodeName } : {}), ...(affinity ? { affinity } : {}) },
    status: { phase: 'Running' },
  }) as KubeObject;
const world = (pods: KubeObject[]): AffinityWorld => ({
  boundPods: () => pods.filter((p) => (p as any).spec.nodeName),
  antiAffinityPods: () => pods.filter((p) => (p as any).spec.nodeName && hasRequiredAntiAffinity(p)),
  node: (n) => byName.get(n),
});
const verdicts = (p: KubeObject, pods: KubeObject[]) => NODES.map((n) => podAffinityFilter(p, world(pods))(n)?.reasons[0] ?? 'fits');

describe('InterPodAffinity (required)', () => {
  test('label selectors: null selects nothing, {} everything, expressions', () => {
    assert.equal(labelSelectorMatches(null, { a: 'b' }), false);
    assert.equal(labelSelectorMatches({}, { a: 'b' }), true);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['c'] }] }, { a: 'b' }), true);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { a: 'b' }), false);
  });

  test("the pod's anti-affinity keeps it out of domains holding a match; zones are domains too", () => {
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('web')] } };
    assert.deepEqual(verdicts(pod('web', undefined, anti), [pod('web', 'n0')]), ["node(s) didn't match pod anti-affinity rules", 'fits', 'fits']);
    const zoneAnti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('web', 'topology.kubernetes.io/zone')] } };
    assert.deepEqual(verdicts(pod('web', undefined, zoneAnti), [pod('web', 'n0')]), [
      "node(s) didn't match pod anti-affinity rules",
      "node(s) didn't match pod anti-affinity rules",
      'fits',
    ]);
    // Another namespace's pods are out of the term's scope unless it names them.
    assert.deepEqual(verdicts(pod('web', undefined, anti), [pod('web', 'n0', undefined, 'other')]), ['fits', 'fits', 'fits']);
  });

  test("running pods' anti-affinity closes their domain to pods they select (symmetry)", () => {
    const runner = pod('db', 'n1', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('web')] } });
    assert.deepEqual(verdicts(pod('web'), [runner]), ['fits', "node(s) didn't satisfy existing pods anti-affinity rules", 'fits']);
    assert.deepEqual(verdicts(pod('cache'), [runner]), ['fits', 'fits', 'fits']);
  });

  test('affinity needs a match in the domain; the first pod of a self-selecting group may start anywhere', () => {
    const near = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('db', 'topology.kubernetes.io/zone')] } };
    assert.deepEqual(verdicts(pod('web', undefined, near), [pod('db', 'n2')]), [
      "node(s) didn't match pod affinity rules",
      "node(s) didn't match pod affinity rules",
      'fits',
    ]);
    assert.deepEqual(verdicts(pod('web', undefined, near), []), [
      "node(s) didn't match pod affinity rules",
      "node(s) didn't match pod affinity rules",
      "node(s) didn't match pod affinity rules",
    ]);
    const group = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('db')] } };
    assert.deepEqual(verdicts(pod('db', undefined, group), []), ['fits', 'fits', 'fits']);
  });
});
