// The api-version data generated from the REST specs and, past the specs at hand, the SDK packages
// (src/aks/api-versions/managed-clusters.json, written by tools/gen-aks-api-versions.mjs): well-formed, and the
// facts the hand-written profiles rely on hold in it.
// That the generator gives byte-identical output on a second run needs the spec checkout, which CI does not
// have; the manual command is in the generator's header.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dataVersions, versionSchema } from '../../src/aks/api-version-data.js';
import { apiVersionProfile, SUPPORTED_API_VERSIONS } from '../../src/aks/api-versions.js';
import { generatedJson } from '../fixtures/generated-json.js';

interface Member {
  type?: string;
  ref?: string;
  items?: Member;
  additionalProperties?: Member | boolean;
  properties?: Record<string, Member>;
  required?: string[];
  enum?: { name?: string; modelAsString: boolean; values: unknown[] };
  default?: unknown;
  defaultNote?: string;
  readOnly?: boolean;
  mutability?: string[];
  createOnly?: boolean;
}
interface Definition {
  properties: Record<string, Member>;
  required?: string[];
  extends?: string[];
  additionalProperties?: Member | boolean;
}
interface Operation {
  path: string;
  method: string;
  operationId: string;
  body?: string | Member;
  responses?: string[];
  longRunning?: boolean;
  finalStateVia?: string;
  pageable?: boolean;
}
interface VersionEntry {
  kind: 'stable' | 'preview';
  spec?: string;
  sdk?: string;
  definitions: Record<string, string>;
  operations: string[];
}
interface Data {
  generator: string;
  source: string;
  roots: string[];
  versions: Record<string, VersionEntry>;
  definitions: Record<string, Definition>;
  operations: Record<string, Operation>;
}

const FILE = fileURLToPath(new URL('../../../src/aks/api-versions/managed-clusters.json', import.meta.url));
const TEXT = readFileSync(FILE, 'utf8');
const DATA = JSON.parse(TEXT) as Data;
const ALL = Object.keys(DATA.versions);
/** The versions read from spec files and @azure/arm-containerservice packages; the older ones come from Python models. */
const VERSIONS = ALL.filter((v) => v >= '2022-06-01');
const OLD = ALL.filter((v) => v < '2022-06-01');

const def = (version: string, name: string): Definition => {
  const key = DATA.versions[version]!.definitions[name];
  assert.ok(key, `${version} has no ${name}`);
  return DATA.definitions[key]!;
};
const network = (version: string) => def(version, 'ContainerServiceNetworkProfile').properties;
const operation = (version: string, id: string) => DATA.versions[version]!.operations.map((k) => DATA.operations[k]!).find((o) => o.operationId === id);
const stable = VERSIONS.filter((v) => DATA.versions[v]!.kind === 'stable');
const preview = VERSIONS.filter((v) => DATA.versions[v]!.kind === 'preview');
const fromSpec = (v: string) => DATA.versions[v]!.spec !== undefined;
/** Read from a modular (TypeSpec-generated, v25 on) package: no schema defaults or constraints survive in those. */
const modular = (v: string) => Number(/@(\d+)\./.exec(DATA.versions[v]!.sdk ?? '@0.')![1]) >= 25;

/** Every member schema inside a definition, members of inline objects, items and maps included. */
function* members(d: Definition | Member): Generator<[string, Member]> {
  for (const [name, m] of Object.entries(d.properties ?? {})) {
    yield [name, m];
    yield* nested(m);
  }
  if (typeof d.additionalProperties === 'object') {
    yield ['*', d.additionalProperties];
    yield* nested(d.additionalProperties);
  }
}
function* nested(m: Member): Generator<[string, Member]> {
  if (m.items) {
    yield ['[]', m.items];
    yield* nested(m.items);
  }
  if (m.properties || typeof m.additionalProperties === 'object') yield* members(m);
}

describe('api-version data: well-formed', () => {
  test('is the generator output: sorted keys, two-space JSON, newline at the end', () => {
    assert.equal(TEXT, generatedJson(DATA));
    assert.equal(DATA.generator, 'tools/gen-aks-api-versions.mjs');
    assert.match(DATA.source, /@[0-9a-f]{40}$/);
  });

  test('versions from 2022-06-01 to 2026-06-01, sorted, each from its spec file or else its SDK package', () => {
    assert.deepEqual([...VERSIONS].sort(), VERSIONS);
    assert.equal(VERSIONS[0], '2022-06-01');
    assert.ok(VERSIONS.includes('2025-10-01'), 'the default of @azure/arm-containerservice 24');
    assert.equal(DATA.versions['2026-04-01']!.sdk, '@azure/arm-containerservice@25.3.0');
    assert.equal(DATA.versions['2026-06-01']!.sdk, '@azure/arm-containerservice@25.5.0');
    assert.equal(VERSIONS.at(-1), '2026-06-01');
    assert.ok(stable.length >= 22 && preview.length >= 23, `${stable.length} stable, ${preview.length} preview`);
    for (const v of VERSIONS) {
      const entry = DATA.versions[v]!;
      assert.match(v, /^\d{4}-\d{2}-\d{2}(-preview)?$/);
      assert.equal(entry.kind, v.endsWith('-preview') ? 'preview' : 'stable', v);
      assert.ok((entry.spec === undefined) !== (entry.sdk === undefined), `${v}: one source`);
      if (entry.spec !== undefined) assert.ok(entry.spec.endsWith(`/${entry.kind}/${v}/managedClusters.json`), entry.spec);
      else assert.match(entry.sdk!, /^@azure\/arm-containerservice@\d+\.\d+\.\d+(-beta\.\d+)?$/);
    }
    // The packages fill in only past the specs at hand.
    const lastSpec = VERSIONS.filter(fromSpec).at(-1)!;
    for (const v of VERSIONS.filter((x) => !fromSpec(x))) assert.ok(v > lastSpec, v);
  });

  test('each version maps every root and every ref it reaches to a stored definition', () => {
    for (const v of ALL) {
      const map = DATA.versions[v]!.definitions;
      // No agentPools type before 2019-02-01.
      for (const root of DATA.roots) assert.ok(map[root] || (v < '2019-02-01' && root === 'AgentPool'), `${v}: root ${root}`);
      for (const [name, key] of Object.entries(map)) {
        assert.ok(key.startsWith(`${name}@`), `${v}: ${name} → ${key}`);
        const since = key.slice(name.length + 1);
        assert.ok(since in DATA.versions && since <= v, `${v}: ${key} names a version not before it`);
        const d = DATA.definitions[key];
        assert.ok(d, `${v}: ${key} is stored`);
        for (const [member, m] of members(d)) {
          if (m.ref) assert.ok(map[m.ref], `${v}: ${name}.${member} refers to ${m.ref}, which the version lacks`);
        }
      }
      for (const key of DATA.versions[v]!.operations) assert.ok(DATA.operations[key], `${v}: operation ${key}`);
    }
  });

  test('members: required names exist, enums carry values, create-only agrees with x-ms-mutability', () => {
    for (const [key, d] of Object.entries(DATA.definitions)) {
      for (const r of d.required ?? []) assert.ok(r in d.properties, `${key}: required ${r} is no member`);
      for (const [name, m] of members(d)) {
        assert.ok(m.type !== undefined || m.ref !== undefined, `${key}.${name} has neither type nor ref`);
        if (m.enum) {
          assert.ok(m.enum.values.length > 0, `${key}.${name}: empty enum`);
          assert.equal(typeof m.enum.modelAsString, 'boolean');
          if (m.default !== undefined && !m.enum.modelAsString) assert.ok(m.enum.values.includes(m.default));
        }
        if (m.createOnly) assert.ok(m.mutability?.includes('create') && !m.mutability.includes('update'));
      }
    }
  });

  test('definitions are stored once: no two variants of a name have the same content', () => {
    const seen = new Map<string, string>();
    for (const [key, d] of Object.entries(DATA.definitions)) {
      const id = `${key.split('@')[0]}\n${JSON.stringify(d)}`;
      assert.equal(seen.get(id), undefined, `${key} repeats ${seen.get(id)}`);
      seen.set(id, key);
    }
  });
});

describe('api-version data: what the specs say', () => {
  test('networkPluginMode: absent from stable 2022-06-01 … 2023-01-01, present from 2023-02-01 and in every preview', () => {
    for (const v of stable) assert.equal('networkPluginMode' in network(v), v >= '2023-02-01', v);
    for (const v of preview) assert.ok('networkPluginMode' in network(v), v);
    assert.deepEqual(network('2023-02-01').networkPluginMode!.enum!.values, ['overlay']);
  });

  test('dockerBridgeCidr: defaulted to 172.17.0.1/16 until 2023-03, gone from 2023-04-01 (stable and preview)', () => {
    for (const v of VERSIONS) {
      const has = v < '2023-04-01';
      assert.equal('dockerBridgeCidr' in network(v), has, v);
      if (has) assert.equal(network(v).dockerBridgeCidr!.default, '172.17.0.1/16', v);
    }
  });

  test('networkPolicy: no default stated up to 2025-10-01; none a value in previews from 2023-08-02-preview, stable from 2024', () => {
    for (const v of VERSIONS) {
      const policy = network(v).networkPolicy!;
      assert.equal(policy.default, undefined, v);
      assert.equal(policy.enum!.modelAsString, true);
      const none = v.endsWith('-preview') ? v >= '2023-08-02-preview' : v >= '2024-07-01';
      assert.equal(policy.enum!.values.includes('none'), none, v);
      assert.equal(policy.enum!.values.includes('cilium'), v >= '2023-02-01', v);
    }
  });

  test('networkPlugin defaults to kubenet up to 2024-07-02-preview and to nothing stated from 2024-09-01', () => {
    for (const v of VERSIONS) assert.equal(network(v).networkPlugin!.default, v < '2024-09-01' ? 'kubenet' : undefined, v);
  });

  test('maxSurge: no schema default; the prose says 1 up to 2024-09-01 and 10% from 2025-02-01', () => {
    for (const v of VERSIONS) {
      const surge = def(v, 'AgentPoolUpgradeSettings').properties.maxSurge!;
      assert.equal(surge.default, undefined, v);
      assert.equal(surge.defaultNote, `If not specified, the default is ${v < '2025-02-01' ? '1' : '10%'}.`, v);
    }
  });

  test('network defaults: 10.244.0.0/16, 10.0.0.0/16, 10.0.0.10, loadBalancer in every version a spec or mapper gives', () => {
    for (const v of VERSIONS) {
      const n = network(v);
      assert.deepEqual(n.networkPlugin!.enum!.values, ['azure', 'kubenet', 'none'], v);
      if (modular(v)) continue; // a modular package carries no schema defaults (tools/aks-sdk-modular.mjs)
      assert.equal(n.podCidr!.default, '10.244.0.0/16', v);
      assert.equal(n.serviceCidr!.default, '10.0.0.0/16', v);
      assert.equal(n.dnsServiceIP!.default, '10.0.0.10', v);
      assert.equal(n.outboundType!.default, 'loadBalancer', v);
    }
  });

  test('networkDataplane: from 2023-02-01 and 2023-02-02-preview on', () => {
    for (const v of VERSIONS) assert.equal('networkDataplane' in network(v), v >= '2023-02-01', v);
  });

  test('resource members: read-only id, name, type; location required (and create-only in the specs); pool name required', () => {
    for (const v of VERSIONS) {
      const cluster = def(v, 'ManagedCluster');
      for (const m of ['id', 'name', 'type']) assert.equal(cluster.properties[m]!.readOnly, true, `${v} ${m}`);
      assert.deepEqual(cluster.required, ['location']);
      // x-ms-mutability is in the specs only (common-types' location), not in the SDK's mappers.
      if (fromSpec(v)) assert.equal(cluster.properties.location!.createOnly, true);
      assert.equal(cluster.properties.properties!.ref, 'ManagedClusterProperties');
      const pool = def(v, 'AgentPool');
      assert.equal(pool.properties.name!.readOnly, true, v);
      assert.equal(pool.properties.properties!.ref, 'ManagedClusterAgentPoolProfileProperties');
      assert.deepEqual(def(v, 'ManagedClusterAgentPoolProfile').required, ['name']);
      assert.equal(def(v, 'ManagedClusterProperties').properties.provisioningState!.readOnly, true);
      assert.equal(def(v, 'ManagedClusterProperties').properties.networkProfile!.ref, 'ContainerServiceNetworkProfile');
    }
  });

  test('operations: cluster and pool PUT/DELETE are long-running; stop/start are; abort from 2023-01-01 and 2022-07-02-preview', () => {
    for (const v of VERSIONS) {
      for (const id of ['ManagedClusters_CreateOrUpdate', 'AgentPools_CreateOrUpdate', 'ManagedClusters_Delete', 'AgentPools_Delete']) {
        assert.equal(operation(v, id)?.longRunning, true, `${v} ${id}`);
      }
      assert.equal(operation(v, 'ManagedClusters_CreateOrUpdate')!.body, 'ManagedCluster');
      assert.equal(operation(v, 'AgentPools_CreateOrUpdate')!.body, 'AgentPool');
      if (fromSpec(v)) assert.deepEqual(operation(v, 'AgentPools_CreateOrUpdate')!.responses, ['200', '201', 'default']);
      const stop = operation(v, 'ManagedClusters_Stop')!;
      assert.equal(stop.method, 'post');
      assert.equal(stop.longRunning, true);
      assert.ok(stop.path.endsWith('/managedClusters/{resourceName}/stop'));
      assert.equal(operation(v, 'ManagedClusters_UpdateTags')!.method, 'patch');
      const abort = v >= (DATA.versions[v]!.kind === 'stable' ? '2023-01-01' : '2022-07-02-preview');
      assert.equal(operation(v, 'AgentPools_AbortLatestOperation') !== undefined, abort, v);
      assert.equal(operation(v, 'ManagedClusters_AbortLatestOperation') !== undefined, abort, v);
    }
  });
});

describe('api-version data: the 2026 versions read from the modular packages', () => {
  const V2026 = ['2026-04-01', '2026-06-01'];

  test('network profile members as SPEC-2026 lists them: networkPluginMode yes, dockerBridgeCidr no', () => {
    for (const v of V2026) {
      const n = network(v);
      for (const m of ['networkPluginMode', 'networkDataplane', 'advancedNetworking', 'staticEgressGatewayProfile', 'podCidrs', 'serviceCidrs', 'ipFamilies']) {
        assert.ok(m in n, `${v} ${m}`);
      }
      assert.equal('dockerBridgeCidr' in n, false, v);
      assert.deepEqual(n.networkPluginMode!.enum, { name: 'NetworkPluginMode', modelAsString: true, values: ['overlay'] });
      assert.ok(n.networkPolicy!.enum!.values.includes('none'), v);
      assert.ok(n.outboundType!.enum!.values.includes('none'), v);
      assert.deepEqual(n.ipFamilies!.items!.enum!.values, ['IPv4', 'IPv6']);
      assert.equal(n.loadBalancerSku!.defaultNote, "The default is 'standard'.");
      assert.ok('backendPoolType' in def(v, 'ManagedClusterLoadBalancerProfile').properties, v);
    }
  });

  test('pool members: podIPAllocationMode, Gateway mode, VirtualMachines pools; prose defaults kept', () => {
    for (const v of V2026) {
      const pool = def(v, 'ManagedClusterAgentPoolProfile');
      assert.deepEqual(pool.required, ['name']);
      assert.deepEqual(pool.properties.podIPAllocationMode!.enum!.values, ['DynamicIndividual', 'StaticBlock']);
      assert.ok(pool.properties.mode!.enum!.values.includes('Gateway'), v);
      assert.ok(pool.properties.type!.enum!.values.includes('VirtualMachines'), v);
      assert.equal(pool.properties.count!.defaultNote, 'The default value is 1.');
      const upgrade = def(v, 'AgentPoolUpgradeSettings').properties;
      assert.equal(upgrade.maxSurge!.defaultNote, 'If not specified, the default is 10%.');
      assert.equal(upgrade.maxUnavailable!.defaultNote, 'If not specified, the default is 0.');
      // Read-only from the typings and from the serializer leaving them out.
      for (const m of ['provisioningState', 'currentOrchestratorVersion', 'eTag']) assert.equal(pool.properties[m]!.readOnly, true, `${v} ${m}`);
      for (const m of ['count', 'vmSize', 'maxPods', 'vnetSubnetID', 'podSubnetID']) assert.equal(pool.properties[m]!.readOnly, undefined, `${v} ${m}`);
    }
  });

  test('what changed at 2026-04-01 against 2025-10-01: nodeImageVersion writable, AgentPool has systemData, abort under managedClusters', () => {
    const pool = (v: string) => def(v, 'ManagedClusterAgentPoolProfileProperties').properties;
    assert.equal(pool('2025-10-01').nodeImageVersion!.readOnly, true);
    assert.equal(pool('2026-04-01').nodeImageVersion!.readOnly, undefined);
    assert.equal('systemData' in def('2025-10-01', 'AgentPool').properties, false);
    assert.equal(def('2026-04-01', 'AgentPool').properties.systemData!.readOnly, true);
    assert.ok(operation('2025-10-01', 'ManagedClusters_AbortLatestOperation')!.path.includes('/managedclusters/'));
    assert.ok(operation('2026-04-01', 'ManagedClusters_AbortLatestOperation')!.path.includes('/managedClusters/'));
  });

  test('2026-06-01 adds countIPv6 to the NAT gateway outbound IPs, the NAT gateway sku and inline outboundIPs', () => {
    const nat = (v: string) => def(v, 'ManagedClusterNATGatewayProfile').properties;
    assert.equal('countIPv6' in def('2026-04-01', 'ManagedClusterManagedOutboundIPProfile').properties, false);
    assert.equal(def('2026-06-01', 'ManagedClusterManagedOutboundIPProfile').properties.countIPv6!.type, 'number');
    assert.equal('sku' in nat('2026-04-01'), false);
    assert.deepEqual(nat('2026-06-01').sku!.enum!.values, ['Standard', 'StandardV2']);
    assert.deepEqual(nat('2026-06-01').outboundIPs!.properties, { publicIPs: { type: 'array', items: { type: 'string' } } });
  });

  test('operations: paths, bodies and long-running flags as the package sends them', () => {
    for (const v of V2026) {
      const put = operation(v, 'ManagedClusters_CreateOrUpdate')!;
      assert.equal(put.method, 'put');
      assert.equal(put.longRunning, true);
      assert.equal(put.finalStateVia, 'azure-async-operation');
      assert.equal(operation(v, 'AgentPools_Get')!.method, 'get');
      assert.equal(operation(v, 'AgentPools_List')!.method, 'get');
      assert.equal(operation(v, 'ManagedClusters_Stop')!.finalStateVia, 'location');
      assert.equal(operation(v, 'ManagedClusters_ResetAADProfile')!.body, 'ManagedClusterAADProfile');
      assert.equal(operation(v, 'ManagedClusters_ListOutboundNetworkDependenciesEndpoints')!.pageable, true);
    }
  });
});

const UNREAD = (
  JSON.parse(readFileSync(fileURLToPath(new URL('../../../src/aks/api-versions/unread-versions.json', import.meta.url)), 'utf8')) as {
    note: string;
    versions: Record<string, { kind: 'stable' | 'preview'; schemaOf: string; evidence: string }>;
  }
).versions;

describe('api-version data: published versions whose spec is not read here (unread-versions.json)', () => {
  const unread = Object.keys(UNREAD);

  test('each maps to the nearest earlier data version: a stable to a stable, a preview to either kind', () => {
    assert.ok(unread.length > 0);
    for (const [v, { kind, schemaOf }] of Object.entries(UNREAD)) {
      if (v === '2017-08-31') continue; // the first version: 2018-03-31's schema less what 2017 lacks (below)
      assert.equal(DATA.versions[v], undefined, `${v} is read, not unread`);
      assert.equal(kind, v.endsWith('-preview') ? 'preview' : 'stable', v);
      const nearest = ALL.filter((d) => d < v && (kind === 'preview' || DATA.versions[d]!.kind === 'stable'))
        .sort()
        .at(-1);
      assert.equal(schemaOf, nearest, v);
    }
  });

  test('each names the spec file that shows it is published', () => {
    for (const [v, { kind, evidence }] of Object.entries(UNREAD)) {
      if (v < '2022-06-01' || v === '2022-08-01') continue; // old layout or no spec folder (their evidence says which)
      assert.match(
        evidence,
        new RegExp(
          `^Azure/azure-rest-api-specs@[0-9a-f]{40}:specification/containerservice/resource-manager/Microsoft\\.ContainerService/aks/${kind}/${v}/managedClusters\\.json$`,
        ),
      );
    }
  });

  test('served: the data readers and the profiles include them, with the definitions of the version they map to', () => {
    for (const v of [
      '2024-10-01',
      '2025-01-01',
      '2025-03-01',
      '2025-04-01',
      '2025-05-01',
      '2025-06-01',
      '2025-08-01',
      '2026-01-01',
      '2026-02-01',
      '2025-08-02-preview',
    ])
      assert.ok(SUPPORTED_API_VERSIONS.includes(v), v);
    assert.deepEqual(dataVersions(), [...ALL, ...unread].sort());
    for (const [v, { schemaOf }] of Object.entries(UNREAD)) {
      for (const name of ['ManagedCluster', 'ContainerServiceNetworkProfile', 'AgentPool'])
        assert.equal(versionSchema(v)!.definition(name), versionSchema(schemaOf)!.definition(name), `${v} ${name}`);
    }
  });

  test("profile facts no schema states go by the version's own date: podCidr of BYO CNI from stable 2026-01-01", () => {
    assert.equal(UNREAD['2026-01-01']!.schemaOf, '2025-10-01');
    assert.equal(apiVersionProfile('2025-10-01')!.returnsPodCidrForNone, false);
    assert.equal(apiVersionProfile('2025-09-01')!.returnsPodCidrForNone, false);
    assert.equal(apiVersionProfile('2026-01-01')!.returnsPodCidrForNone, true);
    assert.equal(apiVersionProfile('2025-08-02-preview')!.returnsPodCidrForNone, true);
    // Facts a schema states come with it: 2026-01-01 is 2025-10-01's.
    const { version: _a, schema: _b, ...facts } = apiVersionProfile('2026-01-01')!;
    const { version: _c, schema: _d, ...base } = apiVersionProfile('2025-10-01')!;
    assert.deepEqual(facts, { ...base, returnsPodCidrForNone: true });
    assert.equal(apiVersionProfile('2026-01-01')!.pluginDefault, 'by-kubernetes-version');
  });
});

describe('api-version data: the old stables, from the Python models az ships (2018-03-31 … 2022-04-01)', () => {
  test('every stable ARM lists from 2018-03-31 to 2022-04-01 is read, from azure-mgmt-containerservice', () => {
    assert.deepEqual(OLD, [
      '2018-03-31',
      '2019-02-01',
      '2019-04-01',
      '2019-06-01',
      '2019-08-01',
      '2019-10-01',
      '2019-11-01',
      '2020-01-01',
      '2020-02-01',
      '2020-03-01',
      '2020-04-01',
      '2020-06-01',
      '2020-07-01',
      '2020-09-01',
      '2020-11-01',
      '2020-12-01',
      '2021-02-01',
      '2021-03-01',
      '2021-05-01',
      '2021-07-01',
      '2021-08-01',
      '2021-09-01',
      '2021-10-01',
      '2022-01-01',
      '2022-02-01',
      '2022-03-01',
      '2022-04-01',
    ]);
    for (const v of OLD) assert.match(DATA.versions[v]!.sdk!, /^azure-mgmt-containerservice@\d+\.\d+\.\d+$/, v);
  });

  test('members arrive when the specs say: identity 2019-04-01, mode 2020-03-01, natGatewayProfile 2021-07-01', () => {
    const since = (name: string, member: string) => ALL.find((v) => DATA.versions[v]!.definitions[name] && member in def(v, name).properties);
    assert.equal(since('ManagedCluster', 'identity'), '2019-04-01');
    assert.equal(since('ManagedClusterAgentPoolProfile', 'mode'), '2020-03-01');
    assert.equal(since('ContainerServiceNetworkProfile', 'outboundType'), '2019-11-01');
    assert.equal(since('ContainerServiceNetworkProfile', 'natGatewayProfile'), '2021-07-01');
    assert.equal(since('ManagedClusterProperties', 'currentKubernetesVersion'), '2022-04-01');
    // Integers are told from decimals in the Python models.
    assert.equal(def('2021-03-01', 'ManagedClusterAgentPoolProfile').properties.count!.type, 'integer');
    assert.equal(network('2019-02-01').networkPlugin!.default, 'kubenet');
  });

  test('2017-08-31 is 2018-03-31 less the members its own spec lacks', () => {
    assert.equal(UNREAD['2017-08-31']!.schemaOf, '2018-03-31');
    const props = versionSchema('2017-08-31')!.definition('ManagedClusterProperties')!.properties;
    for (const m of ['networkProfile', 'aadProfile', 'addonProfiles', 'enableRBAC', 'nodeResourceGroup']) assert.ok(!(m in props), m);
    for (const m of ['dnsPrefix', 'kubernetesVersion', 'agentPoolProfiles', 'linuxProfile', 'servicePrincipalProfile']) assert.ok(m in props, m);
    assert.ok(!('maxPods' in versionSchema('2017-08-31')!.definition('ManagedClusterAgentPoolProfile')!.properties));
    assert.equal(apiVersionProfile('2017-08-31')!.pluginDefault, 'kubenet');
  });
});
