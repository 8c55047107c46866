// CustomResourceDefinitions served for real, with the real kubectl: a CRD applied becomes Established
// (`kubectl wait`), its kind appears in `kubectl api-resources` (aggregated and legacy discovery), custom
// resources are created, listed with printer columns, selected, refused with the apiserver's 422 wording,
// defaulted and pruned, their status and scale subresources written, explained; a CRD with two versions
// serves both; deleting the CRD removes its objects, then the CRD; CRDs and their objects survive a restart.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { restart } from '../network/harness.js';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';
import { thirdPartyFile } from '../third-party.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';
/** Calico's manifests, when copied in (tools/copy-calico-manifests.mjs; not committed). */
const CALICO = thirdPartyFile('calico', 'v3.32.1');
const calicoSkip =
  skip ||
  (existsSync(join(CALICO, 'operator-crds.yaml'))
    ? false
    : `Calico manifests not in ${CALICO} (test/fixtures/calico/SOURCE.md, tools/copy-calico-manifests.mjs)`);

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
    selectableFields:
    - jsonPath: .spec.mode
    additionalPrinterColumns:
    - name: Spec
      type: string
      description: The cron spec defining the interval a CronJob is run
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Ready
      type: string
      jsonPath: .status.conditions[?(@.type=="Ready")].status
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        description: CronTab runs a command on a schedule.
        properties:
          spec:
            type: object
            description: The desired schedule.
            required: [cronSpec]
            properties:
              cronSpec:
                type: string
                description: The cron expression.
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
              image:
                type: string
              replicas:
                type: integer
                minimum: 1
                maximum: 10
                default: 1
              mode:
                type: string
                enum: [Fast, Slow]
                default: Slow
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              port:
                x-kubernetes-int-or-string: true
          status:
            type: object
            properties:
              replicas:
                type: integer
              labelSelector:
                type: string
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
`;

const TAB = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: tab
  labels: {team: a}
spec:
  cronSpec: "* * * * */5"
  image: my-cron-image
  unknownField: dropped
  extra: {kept: true}
  port: http
`;

async function ok(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function write(env: ClusterEnv, name: string, text: string): string {
  const file = join(env.scratch, name);
  writeFileSync(file, text);
  return file;
}

describe('CustomResourceDefinitions (real kubectl)', { skip }, () => {
  test('apply, Established, discovery, CRUD, columns, validation, subresources, explain, delete, restart', async () => {
    await withCluster({ networkPlugin: 'none' }, async (env) => {
      const before = await ok(env, ['api-resources']);
      assert.ok(!before.includes('crontabs'));
      await ok(env, ['apply', '-f', write(env, 'crd.yaml', CRD)]);
      await ok(env, ['wait', '--for=condition=established', '--timeout=20s', 'crd/crontabs.stable.example.com']);
      const crd = JSON.parse(await ok(env, ['get', 'crd', 'crontabs.stable.example.com', '-o', 'json']));
      const established = crd.status.conditions.find((c: any) => c.type === 'Established');
      assert.deepEqual([established.status, established.reason, established.message], ['True', 'InitialNamesAccepted', 'the initial names have been accepted']);
      const named = crd.status.conditions.find((c: any) => c.type === 'NamesAccepted');
      assert.deepEqual([named.status, named.reason, named.message], ['True', 'NoConflicts', 'no conflicts found']);
      assert.equal(crd.status.acceptedNames.kind, 'CronTab');
      assert.deepEqual(crd.status.storedVersions, ['v1']);
      assert.deepEqual(crd.spec.conversion, { strategy: 'None' });

      const after = await ok(env, ['api-resources', '--api-group=stable.example.com']);
      assert.match(after, /crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab/);
      const legacy = await api(env, 'GET', '/apis/stable.example.com/v1');
      assert.equal(legacy.status, 200);
      assert.ok(legacy.json.resources.some((r: any) => r.name === 'crontabs/status'));

      // kubectl's default --validate=strict sends fieldValidation=Strict: unknown fields refused.
      const strict = await kubectl(env, ['create', '-f', write(env, 'tab.yaml', TAB)]);
      assert.match(strict.stderr, /CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec\.unknownField"/);
      // Create without it: pruned, defaulted; list with printer columns; short name; label selector.
      await ok(env, ['create', '-f', write(env, 'tab.yaml', TAB), '--validate=false']);
      const tab = JSON.parse(await ok(env, ['get', 'ct', 'tab', '-o', 'json']));
      assert.equal(tab.spec.unknownField, undefined, 'pruned');
      assert.deepEqual(tab.spec.extra, { kept: true }, 'preserved');
      assert.equal(tab.spec.replicas, 1, 'defaulted');
      assert.equal(tab.spec.mode, 'Slow');
      assert.equal(tab.spec.port, 'http');
      const table = await ok(env, ['get', 'crontabs']);
      assert.match(table.split('\n')[0]!, /^NAME\s+SPEC\s+REPLICAS\s+READY\s+AGE$/);
      assert.match(table, /tab\s+\* \* \* \* \*\/5\s+1\s+\d+s/, 'a column with no value is an empty cell');
      assert.match(await ok(env, ['get', 'crontabs', '-l', 'team=a']), /tab/);
      assert.match((await kubectl(env, ['get', 'crontabs', '-l', 'team=b'])).stderr, /No resources found/);
      assert.match(await ok(env, ['get', 'crontabs', '--field-selector', 'metadata.name=tab']), /tab/);
      assert.match(await ok(env, ['get', 'crontabs', '--field-selector', 'spec.mode=Slow']), /tab/);
      assert.match(
        (await kubectl(env, ['get', 'crontabs', '--field-selector', 'spec.image=x'])).stderr,
        /Error from server \(BadRequest\): Unable to find "stable\.example\.com\/v1, Resource=crontabs" that match label selector "", field selector "spec\.image=x": field label not supported: spec\.image/,
      );
      assert.match(await ok(env, ['get', 'all']), /crontab\.stable\.example\.com\/tab/);

      // Validation: the apiserver's 422 wording, field paths, several causes.
      const bad = await kubectl(env, [
        'create',
        '-f',
        write(env, 'bad.yaml', TAB.replace('name: tab', 'name: bad').replace('port: http', 'port: 1.5\n  replicas: 20\n  mode: Medium\n  cronSpec: x')),
        '--validate=false',
      ]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /The CronTab "bad" is invalid: /);
      assert.match(bad.stderr, /spec\.replicas: Invalid value: 20: spec\.replicas in body should be less than or equal to 10/);
      assert.match(bad.stderr, /spec\.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"/);
      assert.match(bad.stderr, /spec\.cronSpec: Invalid value: "x": spec\.cronSpec in body should match/);
      const missing = await kubectl(env, [
        'create',
        '-f',
        write(env, 'missing.yaml', 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: m}\nspec: {image: i}\n'),
      ]);
      assert.match(missing.stderr, /spec\.cronSpec: Required value/);
      const typed = await kubectl(env, [
        'create',
        '-f',
        write(env, 'typed.yaml', TAB.replace('name: tab', 'name: typed').replace('image: my-cron-image', 'image: 5')),
        '--validate=false',
      ]);
      assert.match(typed.stderr, /spec\.image: Invalid value: "integer": spec\.image in body must be of type string: "integer"/);

      // Status subresource: the main resource keeps status; --subresource=status writes it.
      await ok(env, ['patch', 'crontab', 'tab', '--type=merge', '-p', '{"status":{"replicas":7}}']);
      assert.equal(JSON.parse(await ok(env, ['get', 'ct', 'tab', '-o', 'json'])).status, undefined);
      await ok(env, [
        'patch',
        'crontab',
        'tab',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"replicas":2,"labelSelector":"app=x","conditions":[{"type":"Ready","status":"True"}]}}',
      ]);
      assert.match(await ok(env, ['get', 'ct', 'tab']), /tab\s+\* \* \* \* \*\/5\s+1\s+True/);
      // Scale subresource.
      await ok(env, ['scale', 'crontab', 'tab', '--replicas=3']);
      const scaled = JSON.parse(await ok(env, ['get', 'ct', 'tab', '-o', 'json']));
      assert.equal(scaled.spec.replicas, 3);
      assert.equal(scaled.status.replicas, 2);

      // Explain reads the published schema.
      const explain = await ok(env, ['explain', 'crontabs.spec']);
      assert.match(explain, /The desired schedule/);
      assert.match(explain, /cronSpec\s+<string> -required-/);

      // Restart: served again, objects kept.
      await restart(env);
      assert.match(await ok(env, ['get', 'ct']), /tab/);

      // Delete the CRD: its objects go, then the CRD; the kind is no longer served.
      await ok(env, ['delete', 'crd', 'crontabs.stable.example.com']);
      await eventually(async () => (await kubectl(env, ['get', 'crd', 'crontabs.stable.example.com'])).code !== 0, 10_000, 'the CRD gone');
      const gone = await api(env, 'GET', '/apis/stable.example.com/v1/namespaces/default/crontabs');
      assert.equal(gone.status, 404);
      assert.ok(!(await ok(env, ['api-resources'])).includes('crontabs'));
    });
  });

  test("Calico's operator CRDs (~3 MB, the largest ~1 MB schema): created, Established, explained, their objects created", { skip: calicoSkip }, async () => {
    await withCluster({ networkPlugin: 'none' }, async (env) => {
      const t0 = Date.now();
      await ok(env, ['create', '-f', join(CALICO, 'operator-crds.yaml')]);
      const created = Date.now() - t0;
      assert.ok(created < 15_000, `kubectl create took ${created} ms`);
      await ok(env, ['wait', '--for=condition=established', '--all', 'crd', '--timeout=30s']);
      assert.match(await ok(env, ['api-resources', '--api-group=operator.tigera.io']), /installations\s+operator\.tigera\.io\/v1\s+false\s+Installation/);
      assert.match(await ok(env, ['explain', 'installations.spec.calicoNetwork']), /CalicoNetwork specifies networking configuration options for Calico/);
      await ok(env, ['create', '-f', join(CALICO, 'custom-resources.yaml')]);
      const installation = JSON.parse(await ok(env, ['get', 'installation', 'default', '-o', 'json']));
      assert.equal(installation.spec.calicoNetwork.ipPools[0].cidr, '192.168.0.0/16');
    });
  });

  test('CRD validation, two versions served, name conflicts', async () => {
    await withCluster({ networkPlugin: 'none' }, async (env) => {
      const invalid = CRD.replace('name: crontabs.stable.example.com', 'name: tabs.stable.example.com').replace('group: stable.example.com', 'group: example');
      const r = await kubectl(env, ['create', '-f', write(env, 'invalid.yaml', invalid)]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /The CustomResourceDefinition "tabs\.stable\.example\.com" is invalid: /);
      assert.match(r.stderr, /metadata\.name: Invalid value: "tabs\.stable\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/);
      assert.match(r.stderr, /spec\.group: Invalid value: "example": should be a domain with at least one dot/);
      const twoStorage = CRD.replace('    storage: true\n', '    storage: false\n');
      assert.match(
        (await kubectl(env, ['create', '-f', write(env, 'nostorage.yaml', twoStorage)])).stderr,
        /must have exactly one version marked as storage version/,
      );
      const untyped = CRD.replace('              image:\n                type: string\n', '              image:\n                description: no type\n');
      assert.match(
        (await kubectl(env, ['create', '-f', write(env, 'untyped.yaml', untyped)])).stderr,
        /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[image\]\.type: Required value: must not be empty for specified object fields/,
      );

      const two = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.acme.io}
spec:
  group: acme.io
  scope: Cluster
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}
`;
      await ok(env, ['create', '-f', write(env, 'two.yaml', two)]);
      await ok(env, ['wait', '--for=condition=established', '--timeout=20s', 'crd/widgets.acme.io']);
      await ok(env, ['create', '-f', write(env, 'w.yaml', 'apiVersion: acme.io/v1beta1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n')]);
      const v1 = await api(env, 'GET', '/apis/acme.io/v1/widgets/w');
      assert.equal(v1.json.apiVersion, 'acme.io/v1');
      const beta = await api(env, 'GET', '/apis/acme.io/v1beta1/widgets/w');
      assert.equal(beta.json.apiVersion, 'acme.io/v1beta1');
      const group = await api(env, 'GET', '/apis/acme.io');
      assert.equal(group.json.preferredVersion.version, 'v1');
      assert.deepEqual(
        group.json.versions.map((v: any) => v.version),
        ['v1', 'v1beta1'],
      );
      assert.match(await ok(env, ['get', 'widgets']), /^NAME\s+AGE\nw\s+\d+s/);

      // A second CRD claiming the kind in the same group: NamesAccepted False (the last conflict found names
      // the reason, as the naming controller's checks overwrite it), never Established.
      const clash = two.replace('widgets.acme.io', 'gadgets.acme.io').replace('plural: widgets', 'plural: gadgets');
      await ok(env, ['create', '-f', write(env, 'clash.yaml', clash)]);
      await eventually(async () => {
        const c = JSON.parse(await ok(env, ['get', 'crd', 'gadgets.acme.io', '-o', 'json']));
        const named = (c.status.conditions ?? []).find((x: any) => x.type === 'NamesAccepted');
        return named?.status === 'False' && named.reason === 'ListKindConflict' && named.message === '"WidgetList" is already in use';
      });
      assert.equal((await api(env, 'GET', '/apis/acme.io/v1/gadgets')).status, 404);
    });
  });
});
