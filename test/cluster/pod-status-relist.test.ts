// A container started with stdin (kubectl run -i) is reported Running only at the kubelet's next relist
// (src/cluster/kubelet/pod-status.ts ContainerRun.unseenUntil): before then the pod is Pending with the container
// waiting, and a command that ended within the window is reported terminated straight away.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { podStatus, type PodRuntime } from '../../src/cluster/kubelet/pod-status.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 't', namespace: 'default', uid: 'u1' },
  spec: { nodeName: 'n1', restartPolicy: 'Never', containers: [{ name: 't', image: 'busybox', stdin: true, stdinOnce: true }] },
} as unknown as KubeObject;

const started = 1_000_000;
const runtime = (state: PodRuntime['containers'][string]['state']): PodRuntime => ({
  hostIp: '10.224.0.4',
  startTime: '2026-12-06T00:00:00Z',
  podIp: '10.244.0.5',
  containers: { t: { id: 'c1', restartCount: 0, state, unseenUntil: started + 1000 } },
});

type Status = { phase: string; containerStatuses: Array<{ state: Record<string, unknown>; ready: boolean }> };

describe('the kubelet reports a stdin container at its next relist', () => {
  test('running but not yet seen: Pending, the container waiting; seen a second later: Running', () => {
    const rt = runtime({ running: { startedAt: '2026-12-06T00:00:00Z' } });
    const early = podStatus(pod, rt, started + 10) as unknown as Status;
    assert.equal(early.phase, 'Pending');
    assert.ok('waiting' in early.containerStatuses[0]!.state, JSON.stringify(early.containerStatuses[0]));
    assert.equal(early.containerStatuses[0]!.ready, false);
    const later = podStatus(pod, rt, started + 1000) as unknown as Status;
    assert.equal(later.phase, 'Running');
    assert.deepEqual(later.containerStatuses[0]!.state, { running: { startedAt: '2026-12-06T00:00:00Z' } });
  });

  test('a command that ended within the window is reported terminated at once', () => {
    const terminated = {
      containerID: 'containerd://c1',
      exitCode: 0,
      reason: 'Completed',
      startedAt: '2026-12-06T00:00:00Z',
      finishedAt: '2026-12-06T00:00:00Z',
    };
    const rt = { ...runtime({ terminated }), phase: 'Succeeded' as const };
    const status = podStatus(pod, rt, started + 10) as unknown as Status;
    assert.equal(status.phase, 'Succeeded');
    assert.deepEqual(status.containerStatuses[0]!.state, { terminated });
  });
});
