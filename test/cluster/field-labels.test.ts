// Field selectors as the apiserver answers them (apiserver/field-labels.ts): each served kind takes its own labels,
// from its conversion and strategy in Kubernetes, and refuses any other with the conversion's 400, for lists and
// watches alike; a label reads as the strategy reads it (a pod never set to hostNetwork is `spec.hostNetwork=false`).
// With the real kubectl: `--field-selector spec.containers.0.image=nginx` on pods is refused with the apiserver's
// words, `spec.nodeName=…,status.phase=Running` answers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { behaviourOf } from '../../src/cluster/apiserver/kinds.js';
import { kindSelector, METADATA_ONLY, SERVICE_FIELDS } from '../../src/cluster/apiserver/field-labels.js';
import { matchFields, parseFieldSelector } from '../../src/cluster/apimachinery/selectors.js';
import { RESOURCES, type ResourceType } from '../../src/cluster/apimachinery/resources.js';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

const collection = (r: ResourceType) => (r.group === '' ? `/api/v1/${r.resource}` : `/apis/${r.group}/${r.version}/${r.resource}`);
const labelsOf = (r: ResourceType) => behaviourOf(r).fieldLabels ?? METADATA_ONLY;
const select = (field: string) => `fieldSelector=${encodeURIComponent(field)}`;

describe('field labels', () => {
  test('a selector reads each label as the kind does, and a label is taken from the version that added it', () => {
    const selector = (text: string, version = '1.32.9') =>
      kindSelector(labelsOf(RESOURCES.find((r) => r.resource === 'pods')!), { labels: [], fields: parseFieldSelector(text) }, version).fields;
    const pod = { metadata: { name: 'p' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }], podIP: '10.0.0.5' } };
    assert.ok(matchFields(selector('spec.hostNetwork=false,spec.host=n1,status.podIP=10.0.0.5'), pod));
    assert.ok(!matchFields(selector('spec.hostNetwork=true'), pod));
    assert.ok(!matchFields(selector('status.podIPs=10.0.0.5'), pod), 'status.podIPs is taken but never set');
    assert.throws(() => selector('spec.containers.0.image=nginx'), { message: 'field label not supported: spec.containers.0.image' });
    const svc = (text: string, version: string) => kindSelector(SERVICE_FIELDS, { labels: [], fields: parseFieldSelector(text) }, version);
    assert.equal(svc('spec.type=ClusterIP', '1.31.13').fields.length, 1);
    assert.throws(() => svc('spec.type=ClusterIP', '1.30.14'), {
      message: '"spec.type" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    assert.throws(() => kindSelector(METADATA_ONLY, { labels: [], fields: parseFieldSelector('spec.replicas=1') }, '1.32.9'), {
      message: '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });

  test('every served kind answers its labels and refuses others, list and watch alike', { skip }, () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env: ClusterEnv) => {
      for (const r of RESOURCES) {
        const known = labelsOf(r);
        for (const label of Object.keys(known.labels)) {
          const list = await api(env, 'GET', `${collection(r)}?${select(`${label}=x`)}`);
          assert.equal(list.status, 200, `${r.resource} ${label}: ${list.text}`);
        }
        for (const query of ['', 'watch=1&']) {
          const refused = await api(env, 'GET', `${collection(r)}?${query}${select('spec.containers.0.image=nginx')}`);
          assert.equal(refused.status, 400, `${r.resource} ${query}: ${refused.text}`);
          assert.equal(refused.json.reason, 'BadRequest');
          assert.equal(refused.json.message, known.refused('spec.containers.0.image'), r.resource);
        }
        // A kind's own label watches (the watch ends with its timeout).
        const own = Object.keys(known.labels).at(-1)!;
        const watched = await api(env, 'GET', `${collection(r)}?watch=1&timeoutSeconds=1&${select(`${own}!=x`)}`);
        assert.equal(watched.status, 200, `${r.resource} watch ${own}: ${watched.text}`);
      }
      // Cluster-scoped kinds with their own conversion do not take metadata.namespace.
      const ns = await api(env, 'GET', `/api/v1/namespaces?${select('metadata.namespace=x')}`);
      assert.equal(ns.json.message, 'field label not supported: metadata.namespace');
      // Values read as strings, unset ones as the strategy's: every node is schedulable, no pod on the host network.
      const nodes = await api(env, 'GET', `/api/v1/nodes?${select('spec.unschedulable=false')}`);
      assert.equal(nodes.json.items.length, 3);
      const pods = await api(env, 'GET', `/api/v1/pods?${select('spec.hostNetwork=true')}`);
      const all = await api(env, 'GET', '/api/v1/pods');
      assert.deepEqual(
        pods.json.items.map((p: { metadata: { name: string } }) => p.metadata.name),
        all.json.items
          .filter((p: { spec: { hostNetwork?: boolean } }) => p.spec.hostNetwork === true)
          .map((p: { metadata: { name: string } }) => p.metadata.name),
      );
      const secrets = await api(env, 'GET', `/api/v1/secrets?${select('type=kubernetes.io/service-account-token')}`);
      assert.equal(secrets.status, 200);

      // The real kubectl: an unsupported field is the apiserver's 400; the pods' own fields select.
      const refused = await kubectl(env, ['get', 'pods', '--field-selector', 'spec.containers.0.image=nginx']);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /Error from server \(BadRequest\): Unable to find "\/v1, Resource=pods" that match label selector "", field selector "spec\.containers\.0\.image=nginx": field label not supported: spec\.containers\.0\.image/,
      );
      const run = await kubectl(env, ['run', 'web', '--image=nginx']);
      assert.equal(run.code, 0, run.stderr);
      let node = '';
      await eventually(
        async () => {
          const pod = JSON.parse((await kubectl(env, ['get', 'pod', 'web', '-o', 'json'])).stdout);
          node = pod.spec.nodeName ?? '';
          return pod.status?.phase === 'Running';
        },
        60_000,
        'pod web running',
      );
      const selected = await kubectl(env, ['get', 'pods', '--field-selector', `spec.nodeName=${node},status.phase=Running`, '-o', 'name']);
      assert.equal(selected.code, 0, selected.stderr);
      assert.equal(selected.stdout.trim(), 'pod/web');
      const elsewhere = await kubectl(env, ['get', 'pods', '--field-selector', `spec.nodeName!=${node},status.phase=Running`, '-o', 'name']);
      assert.equal(elsewhere.stdout.trim(), '');
    }),
  );
});
