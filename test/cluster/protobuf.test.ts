// Protobuf request bodies (application/vnd.kubernetes.protobuf): the wire reader and the table-driven decoder
// on hand-built and captured bytes, then the real kubectl's typed `create` commands against real clusters.
// The oracle for every decoded body is what the same kubectl prints for `--dry-run=client -o json`.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ClusterApi, type ApiRequest } from '../../src/cluster/apiserver/api.js';
import { KUBERNETES_VERSIONS } from '../../src/aks/kubernetes-versions.js';
import { decodeMessage } from '../../src/cluster/apiserver/protobuf/decode.js';
import { MAGIC } from '../../src/cluster/apiserver/protobuf/envelope.js';
import { GENERATED_TABLES } from '../../src/cluster/apiserver/protobuf/generated/index.js';
import { decodeProtobufBody, SCHEMA } from '../../src/cluster/apiserver/protobuf/request-body.js';
import { parseField, Schema } from '../../src/cluster/apiserver/protobuf/schema.js';
import { WireError, WireReader, WireType } from '../../src/cluster/apiserver/protobuf/wire.js';
import { RESOURCES } from '../../src/cluster/apimachinery/resources.js';
import { KubeError } from '../../src/cluster/apimachinery/status.js';
import forge from 'node-forge';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer } from '../network/harness.js';
import { HAVE_KUBECTL, KUBECTL, kubectl } from './harness.js';

// A minimal encoder for building test messages (the emulator itself only ever reads protobuf).
function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return out;
}
const num = (no: number, value: number | bigint) => Buffer.from([...varint((no << 3) | WireType.Varint), ...varint(value)]);
const len = (no: number, payload: Uint8Array | string) => {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from([...varint((no << 3) | WireType.Bytes), ...varint(bytes.length)]), bytes]);
};
const msg = (...fields: Uint8Array[]) => Buffer.concat(fields);
const entry = (no: number, key: string, value: Uint8Array | string) => len(no, msg(len(1, key), len(2, value)));
const envelope = (apiVersion: string, kind: string, raw: Uint8Array, ...extra: Uint8Array[]) =>
  Buffer.concat([MAGIC, len(1, msg(len(1, apiVersion), len(2, kind))), len(2, raw), ...extra]);

function kubeError(fn: () => unknown): KubeError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof KubeError, `expected a KubeError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a KubeError');
}

describe('protobuf wire reader', () => {
  test('varints (multi-byte, 64-bit), fixed32, fixed64 and length-delimited fields', () => {
    const bytes = msg(
      num(1, 300),
      num(2, -1), // ten bytes on the wire
      Buffer.from([(3 << 3) | WireType.Fixed32, 0x78, 0x56, 0x34, 0x12]),
      Buffer.from([(4 << 3) | WireType.Fixed64, 1, 0, 0, 0, 0, 0, 0, 0x80]),
      len(5, 'héllo'),
    );
    assert.equal(num(2, -1).length, 11);
    const fields = [...new WireReader(bytes).fields()];
    assert.deepEqual(
      fields.map((f) => [f.no, f.wire]),
      [
        [1, 0],
        [2, 0],
        [3, 5],
        [4, 1],
        [5, 2],
      ],
    );
    assert.equal(fields[0]!.value, 300n);
    assert.equal(fields[1]!.value, 0xffffffffffffffffn);
    assert.equal(fields[2]!.value, 0x12345678);
    assert.equal(fields[3]!.value, 0x8000000000000001n);
    assert.equal(Buffer.from(fields[4]!.value as Uint8Array).toString(), 'héllo');
  });

  test('truncated data, overlong lengths, groups and field 0 are errors', () => {
    const bad = [
      Buffer.from([0x08]), // a tag with no value
      Buffer.from([0x08, 0x80]), // an unfinished varint
      Buffer.from([0x12, 0x05, 0x61]), // length 5, one byte
      Buffer.from([0x1d, 0x01, 0x02]), // fixed32 cut short
      Buffer.from([0x0b]), // start group
      Buffer.from([0x00, 0x01]), // field 0
      Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), // 11-byte varint
    ];
    for (const b of bad) assert.throws(() => [...new WireReader(b).fields()], WireError, b.toString('hex'));
  });
});

describe('the generated field tables (tools/gen-protobuf-tables.mjs)', () => {
  const DIR = fileURLToPath(new URL('../../../src/cluster/apiserver/protobuf/generated/', import.meta.url));
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const read = (f: string) => readFileSync(join(DIR, f), 'utf8');

  test('every module is generated from the offered versions, and the index lists each module once', () => {
    const tags = KUBERNETES_VERSIONS.map((v) => `v0.${v.split('.')[1]}.${v.split('.')[2]}`);
    for (const f of files) {
      const [first, second] = read(f).split('\n');
      assert.match(first!, /^\/\/ Generated by tools\/gen-protobuf-tables\.mjs .* do not edit/, f);
      // Regenerated when the offered versions change: the sources named are exactly their staging tags.
      assert.equal(second!.match(/staging tags (.*) \(Kubernetes/)?.[1], tags.join(', '), `${f}: ${second}`);
    }
    const modules = files.filter((f) => f !== 'index.ts');
    const imported = [...read('index.ts').matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => `${m[1]}.ts`);
    assert.deepEqual(imported.sort(), modules);
    assert.equal(GENERATED_TABLES.length, modules.length);
    assert.equal(new Set(GENERATED_TABLES.map((g) => g.package)).size, modules.length);
    // Each module is named after its package, its messages and rows sorted (the generator's deterministic order).
    for (const g of GENERATED_TABLES) {
      assert.ok(modules.includes(`${g.package.replace(/\./g, '-')}.ts`), g.package);
      const names = Object.keys(g.messages);
      assert.deepEqual(names, [...names].sort(), `${g.package}: messages sorted`);
      for (const kind of g.kinds) assert.ok(kind in g.messages, `${g.package}: kind ${kind} has a message`);
    }
  });

  test('every kind the cluster serves has a table, under its own group version', () => {
    // CustomResourceDefinition and APIService included: their protos are apiextensions-apiserver's and kube-aggregator's.
    for (const r of RESOURCES) {
      const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
      const message = SCHEMA.messageFor(apiVersion, r.kind);
      assert.ok(message?.endsWith(`.${r.kind}`), `${apiVersion} ${r.kind}: ${message}`);
    }
    for (const [apiVersion, kind] of [
      ['authentication.k8s.io/v1', 'TokenRequest'],
      ['autoscaling/v1', 'Scale'],
      ['policy/v1', 'Eviction'],
      ['v1', 'DeleteOptions'],
      ['batch/v1', 'DeleteOptions'],
    ] as const) {
      assert.ok(SCHEMA.messageFor(apiVersion, kind), `${apiVersion} ${kind}`);
    }
  });
});

describe('protobuf field tables and decoder', () => {
  test('every table parses and refers only to known types; bad tables are rejected', () => {
    assert.deepEqual(parseField('ports ContainerPort[]'), { json: 'ports', type: 'ContainerPort', repeated: true, map: false, keepZero: false });
    assert.deepEqual(parseField('limits map<Quantity>'), { json: 'limits', type: 'Quantity', repeated: false, map: true, keepZero: false });
    assert.deepEqual(parseField('... LocalObjectReference'), { json: undefined, type: 'LocalObjectReference', repeated: false, map: false, keepZero: false });
    assert.equal(parseField('replicas int32!').keepZero, true);
    assert.throws(() => parseField('replicas'), /bad protobuf field spec/);
    assert.throws(
      () => new Schema([{ package: 'x.v1', apiVersion: 'v1', kinds: [], messages: { A: { 1: 'b x.v1.Missing' } } }]),
      /refers to unknown type x.v1.Missing/,
    );
    assert.throws(() => new Schema([{ package: 'x.v1', apiVersion: 'v1', kinds: ['Nope'], messages: {} }]), /has no table/);
    for (const kind of [
      'v1/Pod',
      'v1/ConfigMap',
      'v1/Secret',
      'v1/Service',
      'v1/Namespace',
      'v1/ServiceAccount',
      'apps/v1/Deployment',
      'apps/v1/DaemonSet',
      'apps/v1/ReplicaSet',
    ]) {
      assert.ok(SCHEMA.supportedKinds().includes(kind), kind);
    }
  });

  test('bytes captured from kubectl 1.32 decode to its --dry-run=client -o json', () => {
    // `kubectl create deployment web --image=nginx:1.27 --replicas=2 --port=8080`, as POSTed by kubectl v1.32.4.
    const captured = Buffer.from(
      '6b3873000a150a07617070732f7631120a4465706c6f796d656e7412be010a1f0a0377656212001a0022002a003200380042005a0a0a036170701203776562128c010802120c0a0a0a0361707012037765621a720a1c0a0012001a0022002a003200380042005a0a0a036170701203776562125212340a056e67696e78120a6e67696e783a312e32372a00320b0a00100018903f22002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200',
      'hex',
    );
    // What the same kubectl printed with --dry-run=client -o json.
    const dryRun = {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 8080 }], resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    };
    assert.deepEqual(decodeProtobufBody(captured), dryRun);
  });

  test('zero scalars follow omitempty; pointers and required fields keep zeros; absent required lists are null', () => {
    // ContainerPort: hostPort (omitempty) and containerPort (required) both written as 0, as gogo writes them.
    assert.deepEqual(decodeMessage(SCHEMA, 'core.v1.ContainerPort', msg(len(1, ''), num(2, 0), num(3, 0), len(4, 'TCP'))), {
      containerPort: 0,
      protocol: 'TCP',
    });
    // *int32 replicas = 0 is kept; negative int32 is ten bytes on the wire. The selector, a pointer without
    // omitempty, is null when absent, as Go writes a nil one.
    assert.deepEqual(decodeMessage(SCHEMA, 'apps.v1.DeploymentSpec', msg(num(1, 0), num(5, 0), num(7, 0))), { replicas: 0, selector: null });
    assert.deepEqual(decodeMessage(SCHEMA, 'apps.v1.DeploymentSpec', num(1, -1)), { replicas: -1, selector: null });
    assert.deepEqual(decodeMessage(SCHEMA, 'core.v1.Toleration', msg(len(1, 'k'), num(5, -5))), { key: 'k', tolerationSeconds: -5 });
    // Booleans: false dropped when omitempty, kept on pointers.
    assert.deepEqual(decodeMessage(SCHEMA, 'core.v1.Container', msg(len(1, 'c'), num(16, 0), num(18, 1))), { name: 'c', tty: true });
    assert.deepEqual(decodeMessage(SCHEMA, 'core.v1.ConfigMap', num(4, 0)), { immutable: false });
    // ClusterRole.rules has no omitempty: nil reads null.
    assert.deepEqual(decodeMessage(SCHEMA, 'rbac.v1.ClusterRole', len(1, len(1, 'r'))), { metadata: { name: 'r' }, rules: null });
    // Proto's last value wins, including a later zero.
    assert.deepEqual(decodeMessage(SCHEMA, 'meta.v1.ObjectMeta', msg(len(1, 'a'), len(3, 'ns'), len(3, ''))), { name: 'a' });
  });

  test('well-known types, maps, inlined structs, packed lists, and unknown fields', () => {
    const meta = decodeMessage(
      SCHEMA,
      'meta.v1.ObjectMeta',
      msg(len(1, 'x'), len(8, msg(num(1, 1_700_000_000), num(2, 123))), len(9, ''), entry(11, 'a', 'b'), entry(11, 'c', '')),
    );
    assert.deepEqual(meta, { name: 'x', creationTimestamp: '2023-11-14T22:13:20Z', deletionTimestamp: null, labels: { a: 'b', c: '' } });
    assert.throws(() => decodeMessage(SCHEMA, 'meta.v1.ObjectMeta', len(8, num(1, 2n ** 62n))), /out of range/);
    // Keys are data: __proto__ is a label like any other.
    const proto = decodeMessage(SCHEMA, 'meta.v1.ObjectMeta', entry(11, '__proto__', 'x')) as Record<string, any>;
    assert.deepEqual(Object.keys(proto['labels']), ['__proto__']);
    assert.equal(Object.getPrototypeOf(proto['labels']), Object.prototype);
    const ports = decodeMessage(
      SCHEMA,
      'core.v1.ServiceSpec',
      msg(len(1, msg(num(3, 80), len(4, msg(num(1, 1), len(3, 'http'))))), len(1, msg(num(3, 443), len(4, msg(num(2, 8443)))))),
    );
    assert.deepEqual(ports, {
      ports: [
        { port: 80, targetPort: 'http' },
        { port: 443, targetPort: 8443 },
      ],
    });
    const resources = decodeMessage(
      SCHEMA,
      'core.v1.ResourceRequirements',
      msg(entry(1, 'cpu', len(1, '500m')), entry(2, 'memory', len(1, '64Mi')), entry(2, 'nvidia.com/gpu', '')),
    );
    assert.deepEqual(resources, { limits: { cpu: '500m' }, requests: { memory: '64Mi', 'nvidia.com/gpu': '0' } });
    const secret = decodeMessage(SCHEMA, 'core.v1.Secret', msg(entry(2, 'bin', Buffer.from([0xff, 0x00])), entry(4, 'plain', 'text'), len(3, 'Opaque')));
    assert.deepEqual(secret, { data: { bin: '/wA=' }, stringData: { plain: 'text' }, type: 'Opaque' });
    const env = decodeMessage(SCHEMA, 'core.v1.EnvVar', msg(len(1, 'X'), len(3, len(3, msg(len(1, len(1, 'cm')), len(2, 'key'), num(3, 1))))));
    assert.deepEqual(env, { name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'key', optional: true } } });
    const probe = decodeMessage(SCHEMA, 'core.v1.Probe', msg(len(1, len(2, msg(len(1, '/healthz'), len(2, msg(num(2, 8080)))))), num(4, 5)));
    assert.deepEqual(probe, { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 });
    const volume = decodeMessage(SCHEMA, 'core.v1.Volume', msg(len(1, 'cfg'), len(2, len(19, msg(len(1, len(1, 'settings')), num(3, 0o644))))));
    assert.deepEqual(volume, { name: 'cfg', configMap: { name: 'settings', defaultMode: 420 } });
    assert.deepEqual(decodeMessage(SCHEMA, 'core.v1.PodSecurityContext', len(4, Buffer.from([1, 2, 0xe8, 0x07]))), { supplementalGroups: [1, 2, 1000] });
    assert.deepEqual(decodeMessage(SCHEMA, 'core.v1.PodSecurityContext', msg(num(4, 7), num(4, 8))), { supplementalGroups: [7, 8] });
    // Fields the tables do not know, of every wire type, are skipped.
    const unknown = msg(
      num(99, 1),
      Buffer.from([...varint((98 << 3) | WireType.Fixed64), 0, 0, 0, 0, 0, 0, 0, 0]),
      Buffer.from([...varint((97 << 3) | WireType.Fixed32), 0, 0, 0, 0]),
      len(96, 'x'),
    );
    assert.deepEqual(decodeMessage(SCHEMA, 'core.v1.ConfigMap', msg(unknown, entry(2, 'k', 'v'), unknown)), { data: { k: 'v' } });
  });

  test('MicroTime, FieldsV1, RawExtension (JSON or an envelope), named slices, and a nesting bound', () => {
    const lease = decodeMessage(SCHEMA, 'coordination.v1.LeaseSpec', msg(len(1, 'node-1'), len(3, msg(num(1, 1_700_000_000), num(2, 123_456_789)))));
    assert.deepEqual(lease, { holderIdentity: 'node-1', acquireTime: '2023-11-14T22:13:20.123000Z' });
    const managed = decodeMessage(SCHEMA, 'meta.v1.ManagedFieldsEntry', msg(len(1, 'kubectl'), len(7, len(1, '{"f:data":{".":{}}}'))));
    assert.deepEqual(managed, { manager: 'kubectl', fieldsV1: { 'f:data': { '.': {} } } });
    // A ControllerRevision's data: JSON bytes, or an object in its own envelope.
    assert.deepEqual(decodeMessage(SCHEMA, 'apps.v1.ControllerRevision', len(2, len(1, '{"spec":{"x":1}}'))), { data: { spec: { x: 1 } } });
    const inner = envelope('v1', 'ConfigMap', msg(len(1, len(1, 'c')), entry(2, 'k', 'v')));
    assert.deepEqual(decodeMessage(SCHEMA, 'apps.v1.ControllerRevision', msg(len(2, len(1, inner)), num(3, 2))), {
      data: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { k: 'v' } },
      revision: 2,
    });
    assert.throws(() => decodeMessage(SCHEMA, 'apps.v1.ControllerRevision', len(2, len(1, '{nope'))), WireError);
    // authentication's ExtraValue is a named []string: its JSON is the list.
    const user = decodeMessage(SCHEMA, 'authentication.v1.UserInfo', msg(len(1, 'alice'), entry(4, 'scopes', msg(len(1, 'a'), len(1, 'b')))));
    assert.deepEqual(user, { username: 'alice', extra: { scopes: ['a', 'b'] } });
    // RawExtensions holding envelopes holding RawExtensions: refused past MAX_NESTING, never a stack overflow.
    let nested: Uint8Array = Buffer.alloc(0);
    for (let i = 0; i < 200; i++) nested = envelope('apps/v1', 'ControllerRevision', len(2, len(1, nested)));
    assert.throws(
      () => decodeProtobufBody(nested),
      (e: unknown) => e instanceof KubeError && e.code === 400 && /nested deeper/.test(e.message),
    );
  });

  test("a CRD's schema: doubles, raw JSON, and the types that marshal as one of their fields", () => {
    const f64 = (no: number, v: number) => {
      const b = Buffer.alloc(9);
      b[0] = (no << 3) | WireType.Fixed64;
      b.writeDoubleLE(v, 1);
      return b;
    };
    const props = (...fields: Uint8Array[]) => msg(...fields);
    const schema = decodeMessage(
      SCHEMA,
      'apiextensions.v1.JSONSchemaProps',
      msg(
        len(5, 'object'),
        len(3, '#/x'),
        f64(11, 0),
        f64(9, 2.5),
        len(8, len(1, '{"a":[1,2]}')),
        // items: one schema; additionalProperties: false, then a schema; dependencies: a string list, a schema.
        len(24, len(1, props(len(5, 'string')))),
        len(30, num(1, 0)),
        len(33, msg(num(1, 0), len(2, props(len(5, 'integer'))))),
        entry(32, 'a', len(2, 'b')),
        entry(32, 'c', len(1, props(len(5, 'boolean')))),
        entry(29, 'n', props(len(5, 'number'), num(38, 1))),
      ),
    );
    assert.deepEqual(schema, {
      type: 'object',
      $ref: '#/x',
      minimum: 0,
      maximum: 2.5,
      default: { a: [1, 2] },
      items: { type: 'string' },
      additionalProperties: false,
      additionalItems: { type: 'integer' },
      dependencies: { a: ['b'], c: { type: 'boolean' } },
      properties: { n: { type: 'number', 'x-kubernetes-preserve-unknown-fields': true } },
    });
    // JSONSchemaPropsOrArray as a list; OrBool true; NaN is no JSON number.
    const list = decodeMessage(SCHEMA, 'apiextensions.v1.JSONSchemaProps', msg(len(24, msg(len(2, len(5, 'a')), len(2, len(5, 'b')))), len(30, num(1, 1))));
    assert.deepEqual(list, { items: [{ type: 'a' }, { type: 'b' }], additionalProperties: true });
    assert.throws(() => decodeMessage(SCHEMA, 'apiextensions.v1.JSONSchemaProps', f64(9, Number.NaN)), WireError);
    const crd = decodeProtobufBody(
      envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition', msg(len(1, len(1, 'widgets.example.com')), len(2, len(1, 'example.com')))),
    );
    assert.deepEqual(crd, {
      kind: 'CustomResourceDefinition',
      apiVersion: 'apiextensions.k8s.io/v1',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', versions: null },
    });
  });

  test('random and mutated bodies of every kind: an object or a KubeError, never anything else', () => {
    // A seeded xorshift, so a failure repeats.
    let seed = 0x2545f491;
    const rand = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const randomMessage = (depth: number): Buffer => {
      const parts: Buffer[] = [];
      for (let i = rand(6); i > 0; i--) {
        const no = 1 + rand(40);
        const pick = rand(5);
        if (pick === 0) parts.push(num(no, BigInt(rand(1 << 30)) * BigInt(rand(1 << 30))));
        else if (pick === 1 && depth < 4) parts.push(len(no, randomMessage(depth + 1)));
        else if (pick === 2) parts.push(len(no, Buffer.from(Array.from({ length: rand(12) }, () => rand(256)))));
        else if (pick === 3) parts.push(Buffer.from([...varint((no << 3) | WireType.Fixed64), ...Array.from({ length: 8 }, () => rand(256))]));
        else parts.push(len(no, ['{}', '[1]', '"x"', '{"a":', 'null'][rand(5)]!));
      }
      return msg(...parts);
    };
    const kinds = SCHEMA.supportedKinds().map((k) => [k.slice(0, k.lastIndexOf('/')), k.slice(k.lastIndexOf('/') + 1)] as const);
    let decoded = 0;
    for (let i = 0; i < 3000; i++) {
      const [apiVersion, kind] = kinds[rand(kinds.length)]!;
      const body = envelope(apiVersion, kind, randomMessage(0));
      // Some bodies mutated further: a byte flipped, or cut short.
      if (i % 3 === 1) body[MAGIC.length + rand(body.length - MAGIC.length)] ^= 1 << rand(8);
      const bytes = i % 3 === 2 ? body.subarray(0, MAGIC.length + rand(body.length - MAGIC.length)) : body;
      try {
        assert.equal(typeof decodeProtobufBody(bytes), 'object');
        decoded++;
      } catch (e) {
        assert.ok(e instanceof KubeError && e.code < 500, `${apiVersion} ${kind} ${Buffer.from(bytes).toString('hex')}: ${String(e)}`);
      }
    }
    assert.ok(decoded > 100, `${decoded} decoded`);
  });

  test('the envelope: kind and apiVersion from typeMeta; unknown kinds are 415, malformed bodies 400', () => {
    const cm = decodeProtobufBody(envelope('v1', 'ConfigMap', msg(len(1, len(1, 'c')), entry(2, 'k', 'v'))));
    assert.deepEqual(cm, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { k: 'v' } });

    // Every kind of a served group version decodes (here batch/v1 Job, the first kind kubectl 1.32 failed on).
    const job = decodeProtobufBody(envelope('batch/v1', 'Job', msg(len(1, len(1, 'j')), len(2, num(7, 0)))));
    assert.deepEqual(job, { kind: 'Job', apiVersion: 'batch/v1', metadata: { name: 'j' }, spec: { backoffLimit: 0 } });
    // A kind of no built-in group version (a custom resource's) is left to JSON.
    const widget = kubeError(() => decodeProtobufBody(envelope('example.com/v1', 'Widget', len(1, len(1, 'w')))));
    assert.equal(widget.code, 415);
    assert.equal(widget.reason, 'UnsupportedMediaType');
    assert.match(widget.message, /no protobuf decoding for example.com\/v1, Kind=Widget: send it as JSON/);
    // A kind under another group's version is another kind.
    assert.equal(kubeError(() => decodeProtobufBody(envelope('extensions/v1beta1', 'Deployment', Buffer.alloc(0)))).code, 415);
    assert.equal(kubeError(() => decodeProtobufBody(envelope('v1', 'ConfigMap', Buffer.alloc(0), len(3, 'gzip')))).code, 415);

    const noMagic = kubeError(() => decodeProtobufBody(Buffer.from('{"kind":"ConfigMap"}')));
    assert.equal(noMagic.code, 400);
    assert.match(noMagic.message, /expected prefix \[107 56 115 0\]/);
    const truncated = envelope('v1', 'ConfigMap', msg(len(1, len(1, 'c')))).subarray(0, -1);
    assert.equal(kubeError(() => decodeProtobufBody(truncated)).code, 400);
    // A string field carried as a varint is malformed too.
    assert.equal(kubeError(() => decodeProtobufBody(envelope('v1', 'ConfigMap', num(1, 5)))).code, 400);
    assert.deepEqual(kubeError(() => decodeProtobufBody(envelope('v1', 'Secret', len(2, num(1, 1))))).toStatus()['code'], 400);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The real kubectl of every served minor, through the gcloud dispatcher (it runs the build matching the server's
// /version): every `kubectl create` subcommand. 1.32 (the default cluster version) and 1.33 send their bodies as
// protobuf; 1.27–1.31 send JSON. Every build must end with the same objects.

const DISPATCH_DIR = HAVE_KUBECTL ? dirname(realpathSync(KUBECTL)) : '';
const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'].filter((v) => HAVE_KUBECTL && existsSync(join(DISPATCH_DIR, `kubectl.${v}`)));
const SENDS_PROTOBUF = (minor: string) => Number(minor.split('.')[1]) >= 32;

interface Captured {
  minor: string;
  path: string;
  contentType: string;
  body: Uint8Array;
}

/** A self-signed certificate and its key, for `create secret tls` (kubectl checks that they match). */
function tlsPair(): { cert: string; key: string } {
  const keys = forge.pki.rsa.generateKeyPair(1024);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date('2025-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2035-01-01T00:00:00Z');
  const subject = [{ name: 'commonName', value: 'web.example.com' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

/**
 * Every `kubectl create` subcommand of kubectl 1.27–1.33 (`kubectl create --help`), the ones with variants
 * (secret, service) in each variant; files they read are made in dir. Order matters: the job made --from the
 * cron job, the bindings after what they bind.
 */
function commands(dir: string, tls: { cert: string; key: string }): string[][] {
  const text = join(dir, 'app.properties');
  const binary = join(dir, 'blob.bin');
  const cert = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  writeFileSync(text, 'color=blue\nsize=3\n');
  writeFileSync(binary, Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0xc3]));
  writeFileSync(cert, tls.cert);
  writeFileSync(key, tls.key);
  return [
    ['create', 'namespace', 'team'],
    ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80'],
    ['create', 'deployment', 'tools', '--image=busybox:1.36', '--image=nginx:1.27'],
    ['create', 'deployment', 'sleeper', '--image=busybox:1.36', '--', 'sleep', '3600'],
    ['create', 'configmap', 'settings', '--from-literal=mode=test', `--from-file=${text}`, `--from-file=${binary}`],
    ['create', 'secret', 'generic', 'creds', '--from-literal=user=admin', `--from-file=${binary}`],
    ['create', 'secret', 'docker-registry', 'pull', '--docker-server=registry.example.com', '--docker-username=u', '--docker-password=p'],
    ['create', 'secret', 'tls', 'web-tls', `--cert=${cert}`, `--key=${key}`],
    ['create', 'serviceaccount', 'builder', '-n', 'team'],
    ['create', 'service', 'clusterip', 'api', '--tcp=80:8080', '--tcp=443:8443'],
    ['create', 'service', 'nodeport', 'np', '--tcp=8080:80'],
    ['create', 'service', 'loadbalancer', 'lb', '--tcp=80:8080'],
    ['create', 'service', 'externalname', 'ext', '--external-name=example.com'],
    ['create', 'role', 'reader', '--verb=get', '--verb=list', '--resource=pods'],
    ['create', 'rolebinding', 'read', '--role=reader', '--serviceaccount=team:builder'],
    ['create', 'clusterrole', 'agg', '--aggregation-rule=example.com/aggregate=true'],
    ['create', 'clusterrole', 'viewer', '--verb=get,list,watch', '--resource=pods,deployments.apps', '--resource-name=web'],
    ['create', 'clusterrolebinding', 'view', '--clusterrole=viewer', '--user=alice', '--group=devs', '--serviceaccount=team:builder'],
    ['create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=50%'],
    ['create', 'priorityclass', 'high', '--value=1000', '--description=important work', '--preemption-policy=Never'],
    ['create', 'quota', 'compute', '--hard=cpu=2,memory=1Gi,pods=10'],
    ['create', 'quota', 'besteffort', '--hard=pods=5', '--scopes=BestEffort'],
    ['create', 'cronjob', 'nightly', '--image=busybox:1.36', '--schedule=*/5 * * * *', '--', 'date'],
    ['create', 'job', 'once', '--image=busybox:1.36', '--', 'true'],
    ['create', 'job', 'manual', '--from=cronjob/nightly'],
    ['create', 'ingress', 'web', '--class=default', '--rule=example.com/=web:80', '--rule=api.example.com/v1*=api:80,tls=web-tls', '--annotation=team=web'],
  ];
}

/** Every leaf of want is in got; null leaves (creationTimestamp, nil lists) and the status (`top`) are the server's. */
function assertContains(got: unknown, want: unknown, path: string, top = false): void {
  if (want === null) return;
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got) && got.length === want.length, `${path}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
    want.forEach((w, i) => assertContains(got[i], w, `${path}[${i}]`));
  } else if (typeof want === 'object') {
    assert.ok(got !== null && typeof got === 'object', `${path}: ${JSON.stringify(got)}`);
    for (const [k, w] of Object.entries(want)) if (!(top && k === 'status')) assertContains((got as Record<string, unknown>)[k], w, `${path}.${k}`);
  } else {
    assert.equal(got, want, path);
  }
}

describe('kubectl create, every subcommand, with the kubectl of every served minor', {
  skip: VERSIONS.length > 0 ? false : 'no kubectl on this machine',
}, () => {
  // Records every POST with its cluster's Kubernetes minor, passing each request through unchanged.
  const captured: Captured[] = [];
  const handle = ClusterApi.prototype.handle;
  before(() => {
    ClusterApi.prototype.handle = function (this: ClusterApi, req: ApiRequest) {
      if (req.method === 'POST' && req.body !== undefined) {
        const minor = this.runtime.kubernetesVersion.split('.').slice(0, 2).join('.');
        captured.push({ minor, path: req.path, contentType: req.contentType ?? '', body: req.bytes ?? Buffer.from(req.body) });
      }
      return handle.call(this, req);
    };
  });
  after(() => {
    ClusterApi.prototype.handle = handle;
  });

  test(`kubectl ${VERSIONS.join(', ')}: the body each sends decodes to its --dry-run=client -o json, and is stored`, () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      const tls = tlsPair();
      const stored = new Map<string, Map<string, Record<string, any>>>();
      const protobufSent = new Set<string>();
      const tokenRequests = new Map<string, Record<string, any>>();
      // One cluster per minor, all on this server, each running every subcommand in turn.
      await Promise.all(
        VERSIONS.map(async (minor) => {
          const name = `p${minor.replace('.', '')}`;
          await aks.managedClusters.beginCreateOrUpdateAndWait(
            'rg',
            name,
            { ...cluster({ networkPlugin: 'kubenet' }, { count: 1 }), kubernetesVersion: minor, dnsPrefix: name },
            POLL,
          );
          const creds = await aks.managedClusters.listClusterUserCredentials('rg', name);
          const scratch = mkdtempSync(join(tmpdir(), `aksemu-protobuf-${name}-`));
          const kenv = { scratch, kubeconfig: join(scratch, 'kubeconfig') };
          writeFileSync(kenv.kubeconfig, Buffer.from(creds.kubeconfigs![0]!.value!), { mode: 0o600 });
          const objects = new Map<string, Record<string, any>>();
          stored.set(minor, objects);
          try {
            const wanted: Record<string, unknown>[] = [];
            /** The body of the one POST a command made, decoded from protobuf or JSON as it came. */
            const sentBody = (what: string, seen: number): Record<string, any> => {
              const posts = captured.slice(seen).filter((c) => c.minor === minor);
              assert.equal(posts.length, 1, `${what}: one POST`);
              const sent = posts[0]!;
              // 1.32+ send every typed create as protobuf; older builds do for a few subcommands
              // (clusterrolebinding), JSON for the rest.
              if (SENDS_PROTOBUF(minor)) assert.equal(sent.contentType, 'application/vnd.kubernetes.protobuf', what);
              if (sent.contentType === 'application/vnd.kubernetes.protobuf') {
                protobufSent.add(
                  `${minor} ${what
                    .split(' ')
                    .slice(3, /create (secret|service) /.test(what) ? 5 : 4)
                    .join(' ')}`,
                );
                return decodeProtobufBody(sent.body);
              }
              assert.match(sent.contentType, /^application\/json/, what);
              return JSON.parse(Buffer.from(sent.body).toString());
            };
            for (const args of commands(scratch, tls)) {
              const what = `kubectl ${minor} ${args.join(' ')}`;
              // Flags go before a `--` that starts the container command.
              const dry = await kubectl(kenv, [args[0]!, '--dry-run=client', '-o', 'json', ...args.slice(1)]);
              assert.equal(dry.code, 0, `${what} --dry-run: ${dry.stderr}`);
              const want = JSON.parse(dry.stdout) as Record<string, any>;
              wanted.push(want);

              const seen = captured.length;
              const got = await kubectl(kenv, args);
              assert.equal(got.code, 0, `${what}: ${got.stderr}`);
              assert.match(got.stdout, / created$/m, what);
              assert.deepEqual(sentBody(what, seen), want, `${what}: the body sent`);
            }
            // `create token` has no --dry-run: its TokenRequest must be the one every build sends, and the token
            // it prints must authenticate.
            const token = ['create', 'token', 'builder', '-n', 'team', '--duration=20m', '--audience=api', '--audience=vault'];
            const seen = captured.length;
            const issued = await kubectl(kenv, token);
            assert.equal(issued.code, 0, `kubectl ${minor} ${token.join(' ')}: ${issued.stderr}`);
            assert.match(issued.stdout.trim(), /^[\w-]+\.[\w-]+\.[\w-]+$/, `${minor}: a JWT`);
            tokenRequests.set(minor, sentBody(`kubectl ${minor} ${token.join(' ')}`, seen));
            const claims = JSON.parse(Buffer.from(issued.stdout.trim().split('.')[1]!, 'base64url').toString());
            assert.deepEqual(claims.aud, ['api', 'vault']);
            assert.equal(claims.exp - claims.iat, 1200);
            assert.equal(claims.sub, 'system:serviceaccount:team:builder');
            const asAccount = await kubectl(kenv, ['get', '--raw', '/api/v1/namespaces/team/serviceaccounts/builder', `--token=${issued.stdout.trim()}`]);
            assert.equal(asAccount.code, 0, `${minor}: the token authenticates: ${asAccount.stderr}`);
            if (minor === VERSIONS.at(-1)) {
              // What TokenREST refuses, in the apiserver's words (once: the answers do not depend on the build).
              for (const [args, message] of [
                [['create', 'token', 'nobody', '-n', 'team'], /serviceaccounts "nobody" not found/],
                [
                  ['create', 'token', 'builder', '-n', 'team', '--duration=1m'],
                  /spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/,
                ],
                [['create', 'token', 'builder', '-n', 'team', '--bound-object-kind=Secret', '--bound-object-name=missing'], /secrets "missing" not found/],
              ] as const) {
                const refused = await kubectl(kenv, [...args]);
                assert.notEqual(refused.code, 0, args.join(' '));
                assert.match(refused.stderr, message, args.join(' '));
              }
            }
            // What the server stored holds everything the client wrote (one get per namespace).
            const refOf = (o: Record<string, any>) => `${o['kind']}/${o['metadata'].name}`;
            for (const ns of new Set(wanted.map((w: any) => w.metadata.namespace ?? 'default'))) {
              const refs = wanted
                .filter((w: any) => (w.metadata.namespace ?? 'default') === ns)
                .map((w: any) =>
                  `${w.kind.toLowerCase()}.${w.apiVersion.includes('/') ? w.apiVersion.split('/')[0] : ''}/${w.metadata.name}`.replace('./', '/'),
                );
              const live = await kubectl(kenv, ['get', '-n', ns, ...refs, '-o', 'json']);
              assert.equal(live.code, 0, `${minor}: get ${refs.join(' ')}: ${live.stderr}`);
              const listed = JSON.parse(live.stdout) as Record<string, any>;
              for (const item of (listed['kind'] === 'List' ? listed['items'] : [listed]) as Record<string, any>[]) objects.set(refOf(item), item);
            }
            for (const want of wanted) {
              const object = objects.get(refOf(want));
              assert.ok(object, `${minor}: ${refOf(want)} not stored`);
              assertContains(object, want, `${minor} ${refOf(want)}`, true);
            }
          } finally {
            rmSync(scratch, { recursive: true, force: true });
          }
        }),
      );
      if (process.env['AKSEMU_PROTOBUF_REPORT']) console.log([...protobufSent].sort().join('\n'));
      // Protobuf or JSON on the wire, the stored objects agree on everything the client wrote, apart from what
      // is per cluster: cluster IPs and node ports, the uids a Job's selector and an owner reference name.
      const perCluster = (ref: string, part: string, value: any): any => {
        if (ref.startsWith('Service/') && part === 'spec')
          return { ...value, clusterIP: undefined, clusterIPs: undefined, ports: value.ports?.map((p: any) => ({ ...p, nodePort: undefined })) };
        if (ref.startsWith('Job/') && part === 'spec') {
          const { selector: _selector, template, ...rest } = value;
          const { 'controller-uid': _u, 'batch.kubernetes.io/controller-uid': _b, ...labels } = template.metadata.labels ?? {};
          return { ...rest, template: { ...template, metadata: { ...template.metadata, labels } } };
        }
        return value;
      };
      const [first, ...rest] = VERSIONS;
      for (const minor of rest) assert.deepEqual(tokenRequests.get(minor), tokenRequests.get(first!), `the TokenRequest of ${minor} vs ${first}`);
      assert.deepEqual(tokenRequests.get(first!)!['spec'], { audiences: ['api', 'vault'], expirationSeconds: 1200, boundObjectRef: null });
      for (const minor of rest) {
        for (const [ref, mine] of stored.get(first!)!) {
          const other = stored.get(minor)!.get(ref)!;
          for (const part of ['spec', 'data', 'binaryData', 'type', 'rules', 'subjects', 'roleRef', 'aggregationRule', 'value', 'preemptionPolicy']) {
            assert.deepEqual(perCluster(ref, part, other[part]), perCluster(ref, part, mine[part]), `${ref}.${part}: ${first} vs ${minor}`);
          }
          assert.deepEqual(other['metadata'].labels, mine['metadata'].labels, `${ref} labels`);
        }
      }
    }));
});
