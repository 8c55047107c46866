// Shared by the node-runtime tests: a test-only image in the CNI agent catalogue for the life of a test file,
// and a host-network pod of it placed on a node (as a CNI DaemonSet's pod is), applied with the real kubectl.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { CATALOGUE } from '../../src/cluster/images/catalogue.js';
import type { ImageSpec } from '../../src/cluster/images/program.js';
import { kubectl, type ClusterEnv } from './harness.js';

/** Adds the image to the catalogue until the test file ends. */
export function catalogued(spec: ImageSpec): void {
  const all = CATALOGUE as ImageSpec[];
  all.push(spec);
  after(() => all.splice(all.indexOf(spec), 1));
}

/** Applies a kube-system host-network pod on `node` tolerating every taint; `extra` is more of its spec (YAML). */
export async function applyNodePod(env: ClusterEnv, pod: { name: string; node: string; container: string; extra?: string }): Promise<void> {
  const yaml = `apiVersion: v1
kind: Pod
metadata: {name: ${pod.name}, namespace: kube-system}
spec:
  nodeName: ${pod.node}
  hostNetwork: true
  tolerations: [{operator: Exists}]
  containers:
  - ${pod.container}
${pod.extra ?? ''}`;
  const file = join(env.scratch, `${pod.name}.yaml`);
  writeFileSync(file, yaml);
  const r = await kubectl(env, ['apply', '-f', file]);
  assert.equal(r.code, 0, r.stderr);
}
