// A pod restored after a restart whose containers all go on as they were is not kicked: its status is not computed
// again (src/cluster/kubelet/pod-status.ts statusAsWritten, docs/performance.md §2.22). The check must never say "as
// written" where podStatus would write something else: every status podStatus writes for a running pod passes it, and
// for every status changed member by member (removed, null, another value, a list cut short), a pass means podStatus
// of the restored runs gives that status back, member for member.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonEqual } from '../../src/cluster/apimachinery/json-equal.js';
import type { Container, Pod } from '../../src/cluster/apimachinery/types.js';
import { initKey, podStatus, restoredRun, statusAsWritten, type PodRuntime } from '../../src/cluster/kubelet/pod-status.js';

const HOST = '10.224.0.4';
const BEFORE = Date.parse('2026-12-07T10:00:00Z');
const NOW = Date.parse('2026-12-07T12:00:00Z');

/** The runs a restart restores from the pod's status, as pod-lifecycle.ts `restore` builds them. */
function restored(pod: Pod, hostIp: string): PodRuntime {
  const status = pod.status!;
  const rt: PodRuntime = { hostIp, startTime: status.startTime!, podIp: status.podIP!, containers: {} };
  const spec = pod.spec ?? {};
  const add = (list: Container[] | undefined, statuses: typeof status.containerStatuses, key: (name: string) => string) => {
    for (const s of statuses ?? []) {
      const run = list?.some((c) => c.name === s.name) ? restoredRun(s) : undefined;
      if (run) rt.containers[key(s.name)] = run;
    }
  };
  add(spec.initContainers, status.initContainerStatuses, initKey);
  add(spec.containers, status.containerStatuses, (name) => name);
  return rt;
}

/** A pod bound to its node, its status as the kubelet wrote it before the restart (its containers running). */
function written(spec: Pod['spec'], extra: Record<string, unknown> = {}): Pod {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { nodeName: 'n1', ...spec } } as Pod;
  const rt: PodRuntime = { hostIp: HOST, startTime: '2026-12-07T10:00:00Z', podIp: '10.224.0.30', containers: {} };
  for (const c of spec?.initContainers ?? [])
    rt.containers[initKey(c.name)] = {
      id: `i-${c.name}`,
      restartCount: 0,
      state: {
        terminated: {
          containerID: `containerd://i-${c.name}`,
          exitCode: 0,
          finishedAt: '2026-12-07T10:00:01Z',
          reason: 'Completed',
          startedAt: '2026-12-07T10:00:00Z',
        },
      },
    };
  for (const c of spec?.containers ?? [])
    rt.containers[c.name] = { id: `c-${c.name}`, restartCount: 0, state: { running: { startedAt: '2026-12-07T10:00:02Z' } } };
  const first = podStatus(
    { ...pod, status: { conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-12-07T09:59:59Z' }] } },
    rt,
    BEFORE,
  );
  return JSON.parse(JSON.stringify({ ...pod, status: { ...first, qosClass: 'BestEffort', ...extra } })) as Pod;
}

const nginx = { name: 'nginx', image: 'nginx' };
const shapes: Record<string, Pod> = {
  'one container': written({ containers: [nginx] }),
  'two containers, the spec not in name order, one restarted before': (() => {
    const pod = written({
      containers: [
        { name: 'web', image: 'nginx:1.27' },
        { name: 'agent', image: 'mcr.microsoft.com/oss/kube-proxy:v1.31.1', command: ['kube-proxy'] },
      ],
    });
    const s = pod.status!.containerStatuses![0]!;
    s.restartCount = 2;
    s.lastState = {
      terminated: { containerID: 'containerd://old', exitCode: 1, finishedAt: '2026-12-07T10:00:01Z', reason: 'Error', startedAt: '2026-12-07T10:00:00Z' },
    };
    return pod;
  })(),
  'init containers completed': written({ initContainers: [{ name: 'setup', image: 'busybox' }], containers: [nginx] }),
  'a liveness probe (it does not say readiness)': written({ containers: [{ ...nginx, livenessProbe: { tcpSocket: { port: 80 } } }] }),
};

/** Every status made from `status` by changing one member: removed, null, another value; a list cut short. */
function oneChangeEach(status: unknown): unknown[] {
  const out: unknown[] = [];
  const walk = (value: unknown, replace: (v: unknown) => unknown): void => {
    if (Array.isArray(value)) {
      if (value.length > 0) out.push(replace(value.slice(0, -1)));
      out.push(replace([...value, value[0] ?? {}]));
      value.forEach((item, i) => walk(item, (v) => replace(value.map((x, j) => (j === i ? v : x)))));
      return;
    }
    if (typeof value === 'object' && value !== null) {
      out.push(replace({ ...value, extra: 'x' }));
      for (const k of Object.keys(value)) {
        const rest = { ...(value as Record<string, unknown>) };
        delete rest[k];
        out.push(replace(rest));
        walk((value as Record<string, unknown>)[k], (v) => replace({ ...(value as Record<string, unknown>), [k]: v }));
      }
      return;
    }
    for (const other of [null, 'x', 'True', 'False', 0, 1, true, false, '10.224.0.5']) if (other !== value) out.push(replace(other));
  };
  walk(status, (v) => v);
  return out;
}

describe('a restored pod that goes on as it was is not written again', () => {
  for (const [name, pod] of Object.entries(shapes)) {
    test(`${name}: as written, and podStatus gives it back`, () => {
      assert.ok(statusAsWritten(pod, HOST), JSON.stringify(pod.status));
      assert.ok(jsonEqual(podStatus(pod, restored(pod, HOST), NOW), pod.status));
    });

    test(`${name}: a status changed anywhere passes only when podStatus gives it back`, () => {
      let passed = 0;
      let refused = 0;
      for (const status of oneChangeEach(pod.status)) {
        if (typeof status !== 'object' || status === null || Array.isArray(status)) continue;
        const changed = { ...pod, status } as Pod;
        let rt: PodRuntime;
        try {
          rt = restored(changed, HOST);
        } catch {
          assert.ok(!statusAsWritten(changed, HOST));
          continue;
        }
        if (!statusAsWritten(changed, HOST)) {
          refused++;
          continue;
        }
        passed++;
        assert.ok(jsonEqual(podStatus(changed, rt, NOW), status), `passed but would be written again: ${JSON.stringify(status)}`);
      }
      assert.ok(refused > 100, `${refused} refused`);
      assert.ok(passed > 0, 'some changes keep it as written (times, ids)');
    });
  }

  test('what podStatus would write again is computed: the node another address, a probe, an image changed, an ephemeral container, an earlier status', () => {
    const pod = shapes['one container']!;
    const changed = (spec: Partial<Container> | Record<string, unknown>, podSpec: Record<string, unknown> = {}) =>
      ({ ...pod, spec: { ...pod.spec, ...podSpec, containers: [{ ...nginx, ...spec }] } }) as Pod;
    const cases: Array<[string, Pod, string]> = [
      ['the node has another address', pod, '10.224.0.9'],
      ['a readiness probe', changed({ readinessProbe: { tcpSocket: { port: 80 } } }), HOST],
      ['a startup probe', changed({ startupProbe: { tcpSocket: { port: 80 } } }), HOST],
      ['the image changed', changed({ image: 'nginx:1.27' }), HOST],
      ['an ephemeral container', changed({}, { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }), HOST],
      ['no qosClass', { ...pod, status: { ...pod.status, qosClass: undefined } } as unknown as Pod, HOST],
      ['no PodReadyToStartContainers (an earlier kubelet)', { ...pod, status: { ...pod.status, conditions: pod.status!.conditions!.slice(1) } } as Pod, HOST],
    ];
    for (const [what, p, hostIp] of cases) {
      assert.equal(statusAsWritten(p, hostIp), false, what);
    }
    // The probes' and the address's cases would be written again indeed.
    const rt = restored(pod, '10.224.0.9');
    assert.ok(!jsonEqual(podStatus(pod, rt, NOW), pod.status));
  });
});
