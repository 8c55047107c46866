// Resource requests as kube-scheduler counts them, and the NodeResourcesFit reasons it reports.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { failedSchedulingMessage, misfit } from '../../src/cluster/scheduler/placement.js';
import { allocatable, parseQuantity, podRequests } from '../../src/cluster/apimachinery/requests.js';

const node = (cpu: string, memory: string, pods = '30'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: {}, status: { allocatable: { cpu, memory, pods } } }) as KubeObject;
const pod = (spec: unknown): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec }) as KubeObject;

describe('resource requests', () => {
  test('quantities: decimal and binary suffixes, exponents, milli; garbage is NaN', () => {
    assert.equal(parseQuantity('100m'), 0.1);
    assert.equal(parseQuantity('1.5'), 1.5);
    assert.equal(parseQuantity('128Mi'), 128 * 2 ** 20);
    assert.equal(parseQuantity('2G'), 2e9);
    assert.equal(parseQuantity('1e3'), 1000);
    assert.equal(parseQuantity('5Ki'), 5120);
    assert.ok(Number.isNaN(parseQuantity('12 apples')));
    assert.ok(Number.isNaN(parseQuantity('Mi')));
  });

  test("a pod asks the larger of its containers' sum and its largest init container, plus overhead; limits stand in for requests", () => {
    const p = pod({
      containers: [{ resources: { requests: { cpu: '250m', memory: '64Mi' } } }, { resources: { limits: { cpu: '1', memory: '1Gi' } } }],
      initContainers: [{ resources: { requests: { cpu: '2' } } }],
      overhead: { cpu: '10m', memory: '1Mi' },
    });
    assert.deepEqual(podRequests(p), { pods: 1, cpu: 2010, memory: 64 * 2 ** 20 + 2 ** 30 + 2 ** 20 });
    assert.deepEqual(podRequests(pod({ containers: [{}] })), { pods: 1, cpu: 0, memory: 0 });
  });

  test('node allocatable in millicores and bytes', () => {
    assert.deepEqual(allocatable(node('1900m', '5000Mi', '110')), { pods: 110, cpu: 1900, memory: 5000 * 2 ** 20 });
  });

  test('NodeResourcesFit names every resource short, and preemption may help', () => {
    const n = node('1900m', '4Gi');
    const want = pod({ containers: [{ resources: { requests: { cpu: '1', memory: '3Gi' } } }] });
    assert.equal(misfit(want, n, { pods: 5, cpu: 800, memory: 2 ** 30 }), undefined);
    assert.deepEqual(misfit(want, n, { pods: 5, cpu: 1000, memory: 2 ** 30 + 1 }), { reasons: ['Insufficient cpu', 'Insufficient memory'], resolvable: true });
    assert.deepEqual(misfit(want, n, { pods: 30, cpu: 0, memory: 0 }), { reasons: ['Too many pods'], resolvable: true });
    // A pod that asks for nothing fits however full the node's cpu is.
    assert.equal(misfit(pod({ containers: [{}] }), n, { pods: 1, cpu: 1900, memory: 4 * 2 ** 30 }), undefined);
    const misfits = [misfit(want, n, { pods: 5, cpu: 1900, memory: 4 * 2 ** 30 })!, misfit(want, n, { pods: 5, cpu: 1900, memory: 0 })!];
    assert.equal(
      failedSchedulingMessage(2, misfits),
      '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    );
  });
});
