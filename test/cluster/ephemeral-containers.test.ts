// The pods/ephemeralcontainers write as the apiserver's strategy and validation make it (docs/clients.md §5.22):
// only spec.ephemeralContainers is taken, defaulted; zero values of forbidden fields pass (kubectl sends
// `resources: {}`), set ones do not; names unique across the pod; existing ones kept unchanged; bounded.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { KubeError } from '../../src/cluster/apimachinery/status.js';
import { ephemeralContainersWrite, MAX_EPHEMERAL_CONTAINERS } from '../../src/cluster/apiserver/validation/ephemeral-containers.js';

const pod = (ephemeral?: unknown[]): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { app: 'x' } },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      initContainers: [{ name: 'init', image: 'busybox' }],
      ...(ephemeral ? { ephemeralContainers: ephemeral } : {}),
    },
    status: { phase: 'Running' },
  }) as KubeObject;

/** The causes of the 422, as `field: message`. */
function causes(existing: KubeObject, written: KubeObject): string[] {
  try {
    ephemeralContainersWrite(existing, written);
  } catch (e) {
    assert.ok(e instanceof KubeError);
    assert.equal(e.code, 422);
    return (e.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
  }
  return [];
}

describe('ephemeral containers: the subresource write', () => {
  test("kubectl debug's container is taken, defaulted; the rest of the body is not", () => {
    const written = pod([
      { name: 'debugger-abcde', image: 'busybox', command: ['sh'], resources: {}, targetContainerName: 'app', terminationMessagePolicy: 'File' },
    ]);
    written.metadata.labels = { changed: 'yes' };
    (written as any).status = { phase: 'Failed' };
    const next = ephemeralContainersWrite(pod(), written) as any;
    assert.deepEqual(next.metadata.labels, { app: 'x' });
    assert.equal(next.status.phase, 'Running');
    const ec = next.spec.ephemeralContainers[0];
    assert.deepEqual(
      [ec.imagePullPolicy, ec.terminationMessagePath, ec.terminationMessagePolicy, ec.resources, ec.targetContainerName],
      ['Always', '/dev/termination-log', 'File', {}, 'app'],
    );
  });

  test('forbidden fields, names, images and targets as the apiserver words them', () => {
    assert.deepEqual(
      causes(
        pod(),
        pod([
          { name: 'a', image: 'busybox', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, livenessProbe: { exec: { command: ['true'] } } },
          { name: 'app', image: 'busybox' },
          { name: 'init', image: 'busybox', ports: [] },
          { name: 'Bad_Name', image: ' ' },
          { name: 'a', image: 'busybox', targetContainerName: 'init' },
          { image: 'busybox', restartPolicy: 'Always' },
        ]),
      ),
      [
        'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[0].livenessProbe: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[1].name: Duplicate value: "app"',
        'spec.ephemeralContainers[2].name: Duplicate value: "init"',
        `spec.ephemeralContainers[3].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        'spec.ephemeralContainers[3].image: Required value',
        'spec.ephemeralContainers[4].name: Duplicate value: "a"',
        'spec.ephemeralContainers[4].targetContainerName: Not found: "init"',
        'spec.ephemeralContainers[5].name: Required value',
        'spec.ephemeralContainers[5].restartPolicy: Forbidden: cannot be set for an Ephemeral Container',
      ],
    );
  });

  test('existing ones may be neither removed nor changed; adding beside them is fine', () => {
    const existing = ephemeralContainersWrite(pod(), pod([{ name: 'd1', image: 'busybox' }]));
    const kept = (existing as any).spec.ephemeralContainers[0];
    assert.deepEqual(causes(existing, pod([])), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "d1" may not be removed\n']);
    assert.deepEqual(causes(existing, pod([{ ...kept, image: 'alpine' }])), [
      'spec.ephemeralContainers[d1]: Forbidden: existing ephemeral containers "d1" may not be changed\n',
    ]);
    const grown = ephemeralContainersWrite(existing, pod([kept, { name: 'd2', image: 'alpine' }])) as any;
    assert.deepEqual(
      grown.spec.ephemeralContainers.map((c: any) => c.name),
      ['d1', 'd2'],
    );
  });

  test('a static pod takes none', () => {
    const mirror = pod();
    mirror.metadata.annotations = { 'kubernetes.io/config.mirror': 'abc' };
    assert.deepEqual(causes(mirror, pod([{ name: 'd', image: 'busybox' }])), [': Forbidden: static pods do not support ephemeral containers']);
  });

  test('bounded, and only a list of objects', () => {
    const many = Array.from({ length: MAX_EPHEMERAL_CONTAINERS + 1 }, (_, i) => ({ name: `d${i}`, image: 'busybox' }));
    assert.deepEqual(causes(pod(), pod(many)), [`spec.ephemeralContainers: Too many: 65: must have at most ${MAX_EPHEMERAL_CONTAINERS} items`]);
    assert.deepEqual(causes(pod(), pod(['x'])), ['spec.ephemeralContainers[0]: Invalid value: "x": must be an object']);
  });
});
