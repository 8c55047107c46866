// The cluster API's request grammar: create / get / list / update / patch (JSON, merge, strategic, apply) /
// delete / watch on pods, deployments, services, configmaps, nodes and namespaces, with valid objects
// spoiled the way an attacker (or a bad script) spoils them: names like ../../etc, huge labels and
// annotations, ownerReferences of the wrong type, __proto__ patch paths, deep objects, absurd replicas,
// %ZZ in paths, watches with bad parameters, oversized bodies, bad tokens. Objects stay in the fuzzer's own
// namespaces (fz-ns*), and the only nodes it writes are its own fz-node*.
import { applyMutations, deepJson, pollutionPayload, randomMutation, serialize, withOwnKey, POLLUTION_MARK, type Mutation, type Value } from './mutate.js';
import { onlySpoils } from './arm-grammar.js';
import { Rng } from './prng.js';
import type { Sent } from './oracle.js';

export const NAMESPACES = ['fz-ns0', 'fz-ns1'];
/** The namespace the fuzzer may delete (and create again). */
const SPARE_NAMESPACE = 'fz-ns2';
const NAMES = ['fz-a', 'fz-b', 'fz-c'];

export interface ClusterContext {
  token: string;
  /** Real node names (patched and read, never deleted). */
  nodes: string[];
}

interface Kind {
  resource: string;
  /** /api/v1 or /apis/apps/v1 */
  prefix: string;
  namespaced: boolean;
  body: (rng: Rng, name: string) => Value;
}

const meta = (rng: Rng, name: string) => ({ name, labels: { app: name, tier: rng.pick(['web', 'db']) }, annotations: { note: 'fuzz' } });
const container = (rng: Rng) => ({ name: 'c', image: rng.pick(['nginx', 'busybox:1.36']), resources: { requests: { cpu: '10m', memory: '16Mi' } } });

const KINDS: Kind[] = [
  {
    resource: 'configmaps',
    prefix: '/api/v1',
    namespaced: true,
    body: (r, n) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(r, n), data: { key: 'value', other: String(r.int(0, 99)) } }),
  },
  {
    resource: 'pods',
    prefix: '/api/v1',
    namespaced: true,
    body: (r, n) => ({ apiVersion: 'v1', kind: 'Pod', metadata: meta(r, n), spec: { containers: [container(r)], restartPolicy: 'Always' } }),
  },
  {
    resource: 'deployments',
    prefix: '/apis/apps/v1',
    namespaced: true,
    body: (r, n) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(r, n),
      spec: {
        replicas: r.int(0, 2),
        selector: { matchLabels: { app: n } },
        template: { metadata: { labels: { app: n } }, spec: { containers: [container(r)] } },
      },
    }),
  },
  {
    resource: 'services',
    prefix: '/api/v1',
    namespaced: true,
    body: (r, n) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(r, n),
      spec: { selector: { app: n }, ports: [{ port: r.pick([80, 443]), targetPort: 8080, protocol: 'TCP' }], type: 'ClusterIP' },
    }),
  },
  { resource: 'namespaces', prefix: '/api/v1', namespaced: false, body: (_r, n) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } }) },
  {
    resource: 'nodes',
    prefix: '/api/v1',
    namespaced: false,
    body: (r, n) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: n, labels: { fuzz: 'yes' } }, spec: { podCIDR: `10.250.${r.int(0, 9)}.0/24` } }),
  },
];

/** Edits the apiserver must refuse (or survive), beside the generic ones. */
function kubeMutation(rng: Rng, kind: Kind): Mutation {
  return rng.weighted<() => Mutation>([
    [
      3,
      () => ({
        path: ['metadata', 'name'],
        op: 'set',
        value: rng.pick(['../../etc', '..', 'a/b', 'UPPER', 'a_b', '-a', 'a.', 'x'.repeat(254), '', '%ZZ', '\u0000', 'é']),
        label: 'name',
      }),
    ],
    [2, () => ({ path: ['metadata', 'labels'], op: 'set', value: { ['k'.repeat(rng.pick([64, 300, 1_000_000]))]: 'v' }, label: 'huge label key' })],
    [2, () => ({ path: ['metadata', 'labels'], op: 'set', value: { app: rng.pick(['v'.repeat(64), 'a b', '-x-', 'ü']) }, label: 'bad label value' })],
    [2, () => ({ path: ['metadata', 'annotations'], op: 'set', value: { big: 'a'.repeat(rng.pick([262_145, 2_500_000])) }, label: 'huge annotation' })],
    [
      3,
      () => ({
        path: ['metadata', 'ownerReferences'],
        op: 'set',
        value: rng.pick<Value>([
          'x',
          1,
          [1],
          [null],
          [{}],
          { a: 1 },
          [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: 'yes' }],
          [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'fz-a', uid: 'fz', controller: true }],
        ]),
        label: 'ownerReferences',
      }),
    ],
    [2, () => ({ path: ['metadata', 'finalizers'], op: 'set', value: rng.pick<Value>(['x', [1], ['kubernetes.io/x'], [null]]), label: 'finalizers' })],
    [2, () => ({ path: ['metadata', 'generateName'], op: 'set', value: rng.pick(['fz-', '../', 'x'.repeat(300)]), label: 'generateName' })],
    [
      kind.resource === 'deployments' ? 6 : 1,
      () => ({
        path: ['spec', 'replicas'],
        op: 'set',
        value: rng.pick<Value>([1_000_000_000, 2_147_483_648, 100_000, 5_000, -1, 1.5, '3', null, 1e308]),
        label: 'replicas',
      }),
    ],
    [
      2,
      () => ({
        path: kind.resource === 'deployments' ? ['spec', 'template', 'spec', 'containers'] : ['spec', 'containers'],
        op: 'set',
        value: rng.pick<Value>(['x', [], [{}], [{ name: 'c' }], [null], Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, image: 'x' }))]),
        label: 'containers',
      }),
    ],
    [1, () => ({ path: ['data'], op: 'set', value: deepJson(rng.pick([1_000, 5_000]), 'object'), label: 'deep object' })],
    [1, () => ({ path: ['metadata', 'namespace'], op: 'set', value: rng.pick(['kube-system', '../x', 'other']), label: 'namespace in body' })],
    [
      2,
      () => {
        const key = rng.pick(['__proto__', 'constructor', 'prototype']);
        const path = rng.pick([[], ['metadata'], ['metadata', 'labels'], ['spec']]);
        return { path, op: 'addKey', key, value: pollutionPayload(key), label: `own ${key} key at ${path.join('.') || '(body)'}` };
      },
    ],
  ])();
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

/** JSON patches that walk prototypes, grow without bound, or are not patches at all. */
function hostileJsonPatch(rng: Rng): { body: Value; label: string } {
  const ops: Array<[string, Value]> = [
    ['__proto__ path', [{ op: 'add', path: `/__proto__/${POLLUTION_MARK}`, value: 'yes' }]],
    ['__proto__ authorization', [{ op: 'add', path: '/__proto__/authorization', value: 'Bearer polluted' }]],
    ['constructor/prototype path', [{ op: 'add', path: `/constructor/prototype/${POLLUTION_MARK}`, value: 'yes' }]],
    ['metadata/__proto__ path', [{ op: 'replace', path: `/metadata/__proto__/${POLLUTION_MARK}`, value: 'yes' }]],
    ['not an array', { op: 'add', path: '/a', value: 1 }],
    ['[1]', [1]],
    ['[null]', [null]],
    ['unknown op', [{ op: 'bogus', path: '/metadata' }]],
    ['remove metadata', [{ op: 'remove', path: '/metadata' }]],
    ['replace root', [{ op: 'replace', path: '', value: rng.pick<Value>([null, 1, 'x', []]) }]],
    ['move into itself', [{ op: 'move', from: '/metadata', path: '/metadata/x' }]],
    ['copy doubling', Array.from({ length: 40 }, () => ({ op: 'copy', from: '/metadata', path: '/metadata/annotations/x' }))],
    ['huge index', [{ op: 'add', path: '/metadata/finalizers/999999999', value: 'x' }]],
    ['- on object', [{ op: 'add', path: '/metadata/-', value: 1 }]],
    ['~ escapes', [{ op: 'add', path: '/metadata/labels/a~2b', value: 'x' }]],
    ['test fails', [{ op: 'test', path: '/metadata/name', value: 'other' }]],
    ['deep value', [{ op: 'add', path: '/metadata/annotations/deep', value: deepJson(5_000, 'array') }]],
  ];
  const [label, body] = rng.pick(ops);
  return { body, label: `json patch: ${label}` };
}

const WATCH_PARAMS = [
  'resourceVersion=abc',
  'resourceVersion=-1',
  'resourceVersion=99999999999999999999',
  'timeoutSeconds=abc',
  'timeoutSeconds=-5',
  'timeoutSeconds=1e309',
  'labelSelector=a%20in%20(',
  'labelSelector=%ZZ',
  'fieldSelector=metadata.name%3D%3Dx',
  'allowWatchBookmarks=true',
  'resourceVersionMatch=NotOlderThan',
  'sendInitialEvents=true',
  'limit=-1',
];

function path(kind: Kind, ns: string | undefined, name?: string, sub?: string): string {
  const base = kind.namespaced ? `${kind.prefix}/namespaces/${ns}/${kind.resource}` : `${kind.prefix}/${kind.resource}`;
  return `${base}${name === undefined ? '' : `/${encodeURIComponent(name)}`}${sub ? `/${sub}` : ''}`;
}

const CLUSTER_SPOILS: Array<[number, string]> = [
  [30, 'none'],
  [30, 'body'],
  [12, 'kube'],
  [8, 'patch'],
  [5, 'path'],
  [4, 'watch'],
  [3, 'auth'],
  [3, 'json'],
  [2, 'method'],
  [0.5, 'oversize'],
  [1, 'protected'],
  [2, 'selector'],
  [2, 'pattern'],
];

/** The namespaces NamespaceLifecycle keeps: a DELETE of one is 403 Forbidden. */
const PROTECTED_NAMESPACES = ['default', 'kube-system', 'kube-public'];

/**
 * Regular expressions a client may have the server compile (a CRD's `pattern`): catastrophic backtracking,
 * repeat counts past RE2's 1000 (nested ones multiplied), deep nesting, huge alternations, broken syntax.
 */
const HOSTILE_PATTERNS = [
  '^(a+)+$',
  '(a|a)*b',
  '(x+x+)+y',
  '(?:a{1000}){1000}',
  'a{1001}',
  '((a{10}){10}){10}',
  '[\\s\\S]{1000}',
  '\\p{L}{1000}',
  `${'('.repeat(2000)}a${')'.repeat(2000)}`,
  `(${'a|'.repeat(5000)}b)*c`,
  `(?:${'a{1000}'.repeat(200)})`,
  '(?i)^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  '[',
  'a'.repeat(100_000),
];
/** Selectors a client may send: long, odd, regex metacharacters, unbalanced. */
const HOSTILE_SELECTORS = [
  `labelSelector=${encodeURIComponent(`app in (${'a,'.repeat(5000)}b)`)}`,
  `labelSelector=${encodeURIComponent('a=b,'.repeat(5000))}x`,
  `labelSelector=${encodeURIComponent('a.*+?(=[b')}`,
  `labelSelector=${encodeURIComponent(`x notin (${'('.repeat(3000)})`)}`,
  `labelSelector=${encodeURIComponent(`!${'k'.repeat(60_000)}`)}`,
  `fieldSelector=${encodeURIComponent(`metadata.name=${'.*'.repeat(3000)}`)}`,
  `fieldSelector=${encodeURIComponent('metadata.name!=a,'.repeat(3000))}x`,
  `fieldSelector=${encodeURIComponent('spec.nodeName=(a+)+$')}`,
];

const patternCrd = (i: number, pattern: string): Value => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `fzpat${i}s.fz.example` },
  spec: {
    group: 'fz.example',
    scope: 'Namespaced',
    names: { plural: `fzpat${i}s`, singular: `fzpat${i}`, kind: `FzPat${i}`, listKind: `FzPat${i}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { v: { type: 'string', pattern } } } } } },
      },
    ],
  },
});

/** Request `index` of cluster run `seed`. */
export function generateCluster(seed: number, index: number, ctx: ClusterContext): Sent {
  const rng = Rng.derive(seed ^ 0x5eed, index);
  const kind = rng.weighted(KINDS.map((k) => [k.resource === 'nodes' ? 1 : k.resource === 'namespaces' ? 1 : 3, k] as const));
  const ns = rng.pick(NAMESPACES);
  const name =
    kind.resource === 'namespaces'
      ? rng.pick([...NAMESPACES, SPARE_NAMESPACE])
      : kind.resource === 'nodes'
        ? rng.pick(['fz-node0', 'fz-node1', ...ctx.nodes])
        : rng.pick(NAMES);
  const verb = rng.weighted<string>([
    [6, 'create'],
    [3, 'get'],
    [2, 'list'],
    [3, 'update'],
    [5, 'patch'],
    [2, 'delete'],
    [1, 'scale'],
  ]);
  const headers: Record<string, string> = {
    authorization: `Bearer ${ctx.token}`,
    accept: rng.chance(0.2) ? 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' : 'application/json',
  };
  const labels: string[] = [];
  let method = 'GET';
  let p = path(kind, ns, name);
  let base: Value | undefined;
  let stream = false;
  let expectUnauthorized = false;
  let expectStatus: number | undefined;
  if (verb === 'create') (method = 'POST'), (p = path(kind, ns)), (base = kind.body(rng, name));
  else if (verb === 'list') p = path(kind, ns) + (rng.chance(0.3) ? `?labelSelector=app%3D${name}` : '');
  else if (verb === 'update') (method = 'PUT'), (base = kind.body(rng, name));
  else if (verb === 'patch') {
    method = 'PATCH';
    const type = rng.pick(PATCH_TYPES);
    headers['content-type'] = type;
    base =
      type === 'application/json-patch+json'
        ? [{ op: 'add', path: '/metadata/labels/patched', value: String(rng.int(0, 9)) }]
        : { metadata: { labels: { patched: String(rng.int(0, 9)) } } };
    if (type === 'application/apply-patch+yaml') base = kind.body(rng, name);
  } else if (verb === 'delete') {
    method = 'DELETE';
    // Never the real nodes or the fuzzer's own namespaces: only what it may lose.
    if (kind.resource === 'nodes') p = path(kind, ns, 'fz-node0');
    if (kind.resource === 'namespaces') p = path(kind, ns, SPARE_NAMESPACE);
  } else if (verb === 'scale') {
    const dep = KINDS.find((k) => k.resource === 'deployments')!;
    method = rng.pick(['PUT', 'PATCH']);
    p = path(dep, ns, name, 'scale');
    base = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name, namespace: ns }, spec: { replicas: rng.int(0, 3) } };
    if (method === 'PATCH') (headers['content-type'] = 'application/merge-patch+json'), (base = { spec: { replicas: rng.int(0, 3) } });
  }
  let mutations: Mutation[] | undefined;
  let body: string | undefined;
  const spoil = rng.weighted(onlySpoils(CLUSTER_SPOILS));
  if (spoil === 'body' && base !== undefined) {
    mutations = Array.from(
      {
        length: rng.weighted([
          [6, 1],
          [3, 2],
        ]),
      },
      () => randomMutation(rng, base!),
    );
  } else if (spoil === 'kube' && base !== undefined && !Array.isArray(base)) {
    mutations = [kubeMutation(rng, kind)];
  } else if (spoil === 'patch') {
    method = 'PATCH';
    p = path(kind, ns, kind.resource === 'nodes' ? rng.pick(ctx.nodes.length ? ctx.nodes : ['fz-node0']) : name);
    if (rng.chance(0.6)) {
      headers['content-type'] = 'application/json-patch+json';
      const h = hostileJsonPatch(rng);
      base = h.body;
      labels.push(h.label);
    } else {
      headers['content-type'] = rng.pick(PATCH_TYPES.slice(1, 3));
      const key = rng.pick(['__proto__', 'constructor']);
      base = withOwnKey({ metadata: withOwnKey({ labels: { a: 'b' } }, key, pollutionPayload(key)) }, key, pollutionPayload(key));
      labels.push(`${headers['content-type'].split('/')[1]} with own ${key} keys`);
    }
  } else if (spoil === 'path') {
    const bad = rng.pick([
      '/api/v1/namespaces/%ZZ/pods',
      `/api/v1/namespaces/${ns}/pods/%ZZ`,
      `/api/v1/namespaces/${ns}/configmaps/..%2F..%2Fetc`,
      '/api/v1/namespaces/../../etc/pods',
      `/apis/apps/v1/namespaces/${ns}/deployments/fz-a/b/c/d`,
      '/apis/nope.example/v1/things',
      `/api/v1/namespaces/${ns}/pods/${'x'.repeat(5000)}`,
      '/api/v1/namespaces/__proto__/configmaps',
      '/api/v1/namespaces/constructor/pods/prototype',
      '/%',
      `/api/v1/namespaces/${ns}/pods?labelSelector=%ZZ`,
      `/api/v1/namespaces/${ns}/pods?fieldSelector=spec.nodeName%3D%3D${'y'.repeat(3000)}`,
      '/openapi/v3/apis/%ZZ/v1',
      '/api/v1/nodes/%2F',
    ]);
    p = bad;
    labels.push(`path ${bad.length > 70 ? `${bad.slice(0, 50)}…(${bad.length})` : bad}`);
  } else if (spoil === 'watch') {
    method = 'GET';
    base = undefined;
    stream = true;
    const params = ['watch=true', ...Array.from({ length: rng.int(1, 3) }, () => rng.pick(WATCH_PARAMS))];
    if (!params.some((x) => x.startsWith('timeoutSeconds'))) params.push('timeoutSeconds=1');
    p = `${path(kind, ns)}?${params.join('&')}`;
    labels.push(`watch ${params.slice(1).join('&')}`);
  } else if (spoil === 'auth') {
    const bad = rng.pick<[string, string | undefined]>([
      ['no token', undefined],
      ['wrong token', `Bearer ${'0'.repeat(64)}`],
      ['token prefix', `Bearer ${ctx.token.slice(0, 32)}`],
      ['token + suffix', `Bearer ${ctx.token}x`],
      ['ARM-style JWT', 'Bearer eyJhbGciOiJub25lIn0.e30.'],
      ['Basic', 'Basic YWRtaW46YWRtaW4='],
    ]);
    if (bad[1] === undefined) delete headers['authorization'];
    else headers['authorization'] = bad[1];
    expectUnauthorized = true;
    labels.push(`auth: ${bad[0]}`);
  } else if (spoil === 'json') {
    body = rng.pick([
      '{',
      'null',
      '[]',
      '"x"',
      '{"metadata":',
      'a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      '\u0000\u0001protobuf',
    ]);
    headers['content-type'] = rng.pick(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
    if (method === 'GET' || method === 'DELETE') (method = 'POST'), (p = path(kind, ns));
    labels.push(`body ${JSON.stringify(body.slice(0, 20))} as ${headers['content-type']}`);
  } else if (spoil === 'method') {
    method = rng.pick(['OPTIONS', 'TRACE', 'PROPFIND', 'FOO', 'CONNECT', 'POST', 'PUT']);
    if (method === 'CONNECT') expectStatus = 405;
    labels.push(`method ${method}`);
  } else if (spoil === 'protected') {
    method = 'DELETE';
    base = undefined;
    body = undefined;
    const victim = rng.pick(PROTECTED_NAMESPACES);
    p = `/api/v1/namespaces/${victim}${rng.chance(0.3) ? '?dryRun=All' : ''}`;
    expectStatus = 403;
    labels.push(`delete protected namespace ${victim}`);
  } else if (spoil === 'selector') {
    method = 'GET';
    base = undefined;
    const sel = rng.pick(HOSTILE_SELECTORS);
    p = `${path(kind, ns)}?${sel}`;
    labels.push(`selector ${sel.slice(0, 40)}…(${sel.length})`);
  } else if (spoil === 'pattern') {
    const i = rng.int(0, 2);
    const what = rng.weighted<string>([
      [3, 'crd'],
      [5, 'object'],
      [1, 'delete'],
    ]);
    base = undefined;
    if (what === 'crd') {
      const pattern = rng.pick(HOSTILE_PATTERNS);
      method = 'POST';
      p = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      body = serialize(patternCrd(i, pattern));
      labels.push(`CRD pattern ${JSON.stringify(pattern.slice(0, 30))}…(${pattern.length})`);
    } else if (what === 'object') {
      const value = rng.pick(['a', 'x', '\u00e9']).repeat(rng.pick([10, 1_000, 30_000])) + rng.pick(['!', 'b', 'y', '']);
      method = 'POST';
      p = `/apis/fz.example/v1/namespaces/${ns}/fzpat${i}s`;
      body = serialize({ apiVersion: 'fz.example/v1', kind: `FzPat${i}`, metadata: { generateName: 'fz-' }, spec: { v: value } });
      labels.push(`custom object against a hostile pattern, value of ${value.length}`);
    } else {
      method = 'DELETE';
      p = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/fzpat${i}s.fz.example`;
      labels.push('delete the pattern CRD');
    }
  } else if (spoil === 'oversize') {
    method = 'POST';
    p = path(kind, ns);
    body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fz-big' }, data: { big: 'x'.repeat(rng.pick([3_200_000, 6_000_000])) } });
    labels.push(`body of ${body.length} bytes`);
  }
  if (mutations) labels.push(...mutations.map((m) => m.label));
  if (body === undefined && base !== undefined) body = serialize(mutations ? applyMutations(base, mutations) : base);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return {
    api: 'cluster',
    index,
    template: `${method} ${kind.resource}${verb === 'scale' ? '/scale' : ''}`,
    wire: { method, path: p, headers, ...(body === undefined ? {} : { body }), ...(stream ? { stream } : {}) },
    labels,
    ...(base !== undefined && mutations ? { base, mutations } : {}),
    ...(expectUnauthorized ? { expectUnauthorized } : {}),
    ...(expectStatus !== undefined && !expectUnauthorized ? { expectStatus } : {}),
  };
}

/** A generated object of each kind, for the fixtures. */
export function validObject(resource: string, name: string): { path: string; body: Value } {
  const kind = KINDS.find((k) => k.resource === resource)!;
  return { path: path(kind, NAMESPACES[0]), body: kind.body(new Rng(7), name) };
}
