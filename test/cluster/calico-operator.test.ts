// Calico's operator install on a BYO CNI cluster, as Calico's documentation tells AKS users to run it, with the
// project's unmodified v3.32.1 manifests (test/fixtures/calico/SOURCE.md: not committed; the test is skipped
// without them and checks their SHA-256 when present): `kubectl create -f operator-crds.yaml` and `kubectl create
// -f tigera-operator.yaml` exit 0, `kubectl api-resources` lists none of the CRDs' kinds before and all after,
// the Installation CRD turns Established, and the Installation of custom-resources.yaml is accepted and read
// back. `kubectl apply` of the same CRDs fails on the ones whose last-applied annotation would pass the
// apiserver's 256 KiB limit on annotations, which is why the docs say `kubectl create`. What the operator then
// does with an Installation on the cluster's pod CIDR is calico-operator-install.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';
import { thirdPartyFile } from '../third-party.js';

const ROOT = fileURLToPath(new URL('../../../test/fixtures/calico/', import.meta.url));
const DIR = thirdPartyFile('calico', 'v3.32.1');
const FILES = ['operator-crds.yaml', 'tigera-operator.yaml', 'custom-resources.yaml'];
/** The apiserver's bound on the total size of an object's annotations (TotalAnnotationSizeLimitB in
 * staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go). */
const ANNOTATIONS_LIMIT = 256 * 1024;

const skip = !HAVE_KUBECTL
  ? 'no /usr/bin/kubectl on this machine'
  : FILES.some((f) => !existsSync(join(DIR, f)))
    ? `Calico v3.32.1 manifests not in ${DIR}: put them there as test/fixtures/calico/SOURCE.md says (tools/copy-calico-manifests.mjs)`
    : false;

const file = (name: string) => join(DIR, name);

async function ok(env: ClusterEnv, args: string[], timeoutMs?: number): Promise<string> {
  const r = await kubectl(env, args, timeoutMs);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 4000)}`);
  return r.stdout;
}

test('the manifests are the ones SOURCE.md names (SHA-256)', { skip }, () => {
  const source = readFileSync(join(ROOT, 'SOURCE.md'), 'utf8');
  for (const f of FILES) {
    const expected = new RegExp(`^\\| ${f.replace('.', '\\.')} \\|[^\\n]*\\| ([0-9a-f]{64}) \\|$`, 'm').exec(source)?.[1];
    assert.ok(expected, `SOURCE.md has no SHA-256 for ${f}`);
    assert.equal(
      createHash('sha256')
        .update(readFileSync(file(f)))
        .digest('hex'),
      expected,
      `${f} differs from the file SOURCE.md names`,
    );
  }
});

test('Calico operator: kubectl create of its CRDs and operator, an Installation accepted and read back', { skip, timeout: 120_000 }, (t) =>
  withCluster(
    { networkPlugin: 'none' },
    async (env) => {
      const crds = parseAllDocuments(readFileSync(file('operator-crds.yaml'), 'utf8'))
        .map((d) => d.toJS())
        .filter((d) => d);
      const served = async () => new Set((await ok(env, ['api-resources', '-o', 'name'])).trim().split('\n'));
      await t.test('kubectl create -f operator-crds.yaml', async () => {
        const before = await served();
        assert.deepEqual(
          crds.filter((c) => before.has(c.metadata.name)),
          [],
        );
        const out = await ok(env, ['create', '-f', file('operator-crds.yaml')], 90_000);
        for (const crd of crds)
          assert.match(out, new RegExp(`^customresourcedefinition\\.apiextensions\\.k8s\\.io/${crd.metadata.name.replaceAll('.', '\\.')} created$`, 'm'));
      });

      await t.test('kubectl api-resources lists every kind the CRDs add', async () => {
        await ok(env, ['wait', '--for=condition=established', '--all', 'crd', '--timeout=60s']);
        const after = await served();
        assert.deepEqual(
          crds.map((c) => c.metadata.name).filter((name) => !after.has(name)),
          [],
        );
      });

      await t.test('kubectl create -f tigera-operator.yaml', async () => {
        const out = await ok(env, ['create', '-f', file('tigera-operator.yaml')]);
        assert.match(out, /^namespace\/tigera-operator created$/m);
        assert.match(out, /^deployment\.apps\/tigera-operator created$/m);
      });

      await t.test('kubectl wait --for=condition=established on the Installation CRD', async () => {
        const out = await ok(env, ['wait', '--for=condition=established', 'crd/installations.operator.tigera.io', '--timeout=60s']);
        assert.match(out, /customresourcedefinition\.apiextensions\.k8s\.io\/installations\.operator\.tigera\.io condition met/);
      });

      await t.test('the Installation of custom-resources.yaml is accepted and read back', async () => {
        const out = await ok(env, ['create', '-f', file('custom-resources.yaml')]);
        assert.match(out, /^installation\.operator\.tigera\.io\/default created$/m);
        const installation = parseYaml(await ok(env, ['get', 'installation', 'default', '-o', 'yaml']));
        assert.equal(installation.apiVersion, 'operator.tigera.io/v1');
        assert.equal(installation.kind, 'Installation');
        assert.equal(installation.metadata.name, 'default');
        const pool = installation.spec.calicoNetwork.ipPools[0];
        assert.deepEqual(
          [pool.name, pool.cidr, pool.blockSize, pool.encapsulation, pool.natOutgoing, pool.nodeSelector],
          ['default-ipv4-ippool', '192.168.0.0/16', 26, 'VXLANCrossSubnet', 'Enabled', 'all()'],
        );
      });

      await t.test('kubectl apply of operator-crds.yaml fails on the CRDs too large for the last-applied annotation', async () => {
        const tooLarge = crds.filter((c) => Buffer.byteLength(JSON.stringify(c)) > ANNOTATIONS_LIMIT).map((c) => c.metadata.name as string);
        assert.ok(tooLarge.includes('installations.operator.tigera.io'), `largest CRDs: ${tooLarge}`);
        const r = await kubectl(env, ['apply', '-f', file('operator-crds.yaml')], 90_000);
        assert.equal(r.code, 1, r.stderr.slice(0, 4000));
        const refused = [...r.stderr.matchAll(/"([^"]+)" is invalid: metadata\.annotations: Too long: must have at most 262144 bytes/g)].map((m) => m[1]);
        assert.deepEqual(refused.sort(), tooLarge.sort(), r.stderr.slice(0, 4000));
        // The others were patched with their annotation, as on a real cluster.
        const small = crds.find((c) => !tooLarge.includes(c.metadata.name))!;
        const stored = JSON.parse(await ok(env, ['get', 'crd', small.metadata.name, '-o', 'json']));
        assert.ok(stored.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], `${small.metadata.name} has no last-applied annotation`);
      });
    },
    { count: 1 },
  ),
);
