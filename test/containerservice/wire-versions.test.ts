// Every served managedClusters api-version family over raw HTTP (issue 14, Must show): a cluster created and read
// back at the version answers with members its schema defines and no others (recursively), including the
// read-only members AKS always returns; a member only a newer version defines is ignored at an older one before
// 2024-01-01 and refused from it. A family is the versions whose definitions are the same in the generated data; the schema walk here
// reads the data file itself, not the server's pruning.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_API_VERSIONS } from '../../src/aks/api-versions.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, pathOf, waitForOperation } from '../arm/helpers.js';
import { rawCluster } from './harness.js';

interface Member {
  ref?: string;
  items?: Member;
  additionalProperties?: Member | boolean;
}
interface Data {
  versions: Record<string, { definitions: Record<string, string> }>;
  definitions: Record<string, { properties: Record<string, Member>; additionalProperties?: Member | boolean }>;
}

const dataFile = (name: string) => readFileSync(fileURLToPath(new URL(`../../../src/aks/api-versions/${name}`, import.meta.url)), 'utf8');
const DATA = JSON.parse(dataFile('managed-clusters.json')) as Data;
// A published version whose spec is not read here has the definitions of the one it is served with.
// `lacks` takes members out of the borrowed definitions (2017-08-31 is 2018-03-31 less what 2017 did not have).
const UNREAD = (JSON.parse(dataFile('unread-versions.json')) as { versions: Record<string, { schemaOf: string; lacks?: Record<string, string[]> }> }).versions;
for (const [v, { schemaOf, lacks = {} }] of Object.entries(UNREAD)) {
  const definitions = { ...DATA.versions[schemaOf]!.definitions };
  for (const [name, members] of Object.entries(lacks)) {
    const base = DATA.definitions[definitions[name]!]!;
    definitions[name] = `${name}@${v}`;
    DATA.definitions[definitions[name]] = { ...base, properties: Object.fromEntries(Object.entries(base.properties).filter(([m]) => !members.includes(m))) };
  }
  DATA.versions[v] = { definitions };
}

/** One served version per family: the versions whose definitions are the same. */
function families(): Map<string, string[]> {
  const byShape = new Map<string, string[]>();
  for (const v of SUPPORTED_API_VERSIONS) {
    const shape = JSON.stringify(DATA.versions[v]!.definitions);
    byShape.set(shape, [...(byShape.get(shape) ?? []), v]);
  }
  return new Map([...byShape.values()].map((members) => [members[0]!, members]));
}

function definition(version: string, name: string) {
  const stored = DATA.versions[version]!.definitions[name];
  return stored === undefined ? undefined : DATA.definitions[stored];
}

/** Every path in value that the version's definition does not have. */
function undefinedMembers(version: string, defName: string, value: unknown, path: string, out: string[]): string[] {
  const def = definition(version, defName);
  if (!def || value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [name, v] of Object.entries(value)) {
    const m = def.properties[name] ?? (Object.keys(def.properties).length === 0 ? (def.additionalProperties as Member | undefined) : undefined);
    if (!m) {
      out.push(`${path}${name}`);
      continue;
    }
    memberCheck(version, m, v, `${path}${name}`, out);
  }
  return out;
}

function memberCheck(version: string, m: Member, v: unknown, path: string, out: string[]): void {
  if (v === null || typeof v !== 'object') return;
  if (m.ref) undefinedMembers(version, m.ref, v, `${path}.`, out);
  else if (Array.isArray(v) && m.items) v.forEach((item, i) => memberCheck(version, m.items!, item, `${path}[${i}]`, out));
  else if (typeof m.additionalProperties === 'object')
    for (const [k, x] of Object.entries(v)) memberCheck(version, m.additionalProperties, x, `${path}.${k}`, out);
}

/** Read-only members AKS returns on every cluster, as [definition, member, path in the response]. */
const ALWAYS: Array<[string, string, (body: any) => unknown]> = [
  ['ManagedCluster', 'id', (b) => b.id],
  ['ManagedCluster', 'name', (b) => b.name],
  ['ManagedCluster', 'type', (b) => b.type],
  ['ManagedCluster', 'eTag', (b) => b.eTag],
  ['ManagedClusterProperties', 'provisioningState', (b) => b.properties.provisioningState],
  ['ManagedClusterProperties', 'powerState', (b) => b.properties.powerState],
  ['ManagedClusterProperties', 'fqdn', (b) => b.properties.fqdn],
  ['ManagedClusterProperties', 'azurePortalFQDN', (b) => b.properties.azurePortalFQDN],
  ['ManagedClusterProperties', 'currentKubernetesVersion', (b) => b.properties.currentKubernetesVersion],
  ['ManagedClusterProperties', 'maxAgentPools', (b) => b.properties.maxAgentPools],
  ['ManagedClusterProperties', 'identityProfile', (b) => b.properties.identityProfile],
  ['ManagedClusterAgentPoolProfile', 'provisioningState', (b) => b.properties.agentPoolProfiles[0].provisioningState],
  ['ManagedClusterAgentPoolProfile', 'nodeImageVersion', (b) => b.properties.agentPoolProfiles[0].nodeImageVersion],
  ['ManagedClusterAgentPoolProfile', 'eTag', (b) => b.properties.agentPoolProfiles[0].eTag],
];

/** The request body with what the version does not define taken out; a service principal where it has no identity. */
function fitted(version: string, body: ReturnType<typeof rawCluster>): any {
  const out: any = structuredClone(body);
  for (const path of undefinedMembers(version, 'ManagedCluster', out, '', [])) {
    const parts = path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '');
    const last = parts.pop()!;
    delete parts.reduce((o, k) => o[k], out)[last];
  }
  if (!out.identity) out.properties.servicePrincipalProfile = { clientId: '00000000-0000-4000-8000-00000000abcd', secret: 'not-a-secret' };
  return out;
}

const NEWEST = SUPPORTED_API_VERSIONS.filter((v) => !v.endsWith('-preview')).at(-1)!;

describe('managedClusters at every served api-version family: the members of its schema, and no others', () => {
  let home: string;
  let server: TestServer;
  let group: string;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    group = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg`;
    assert.equal((await arm(server, 'PUT', `${group}?api-version=2021-04-01`, { body: { location: 'eastus' } })).status, 201);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  let n = 0;
  for (const [version, members] of families()) {
    test(`${version} (${members.length === 1 ? 'alone' : `with ${members.slice(1).join(', ')}`})`, async () => {
      const name = `c${++n}`;
      const url = `${group}/providers/Microsoft.ContainerService/managedClusters/${name}?api-version=${version}`;
      // The body as a client of the version's time sends it (2017-08-31 has no network profile, identity or pool mode).
      const body = fitted(version, rawCluster(name, { autoScalerProfile: { 'scan-interval': '20s' } }));
      const put = await arm(server, 'PUT', url, { body });
      assert.equal(put.status, 201, JSON.stringify(put.body));
      assert.deepEqual(undefinedMembers(version, 'ManagedCluster', put.body, '', []), [], 'the PUT answer');
      const op = await waitForOperation(server, pathOf(put.headers['azure-asyncoperation']));
      assert.equal(op.status, 'Succeeded');

      const got = await arm(server, 'GET', url);
      assert.equal(got.status, 200);
      assert.deepEqual(undefinedMembers(version, 'ManagedCluster', got.body, '', []), [], 'the GET answer');
      for (const [def, member, read] of ALWAYS) {
        if (definition(version, def)?.properties[member]) assert.notEqual(read(got.body), undefined, `${def}.${member}`);
      }
      // The profile the request gave is kept, where the version defines it.
      if (body.properties.autoScalerProfile) assert.equal(got.body.properties.autoScalerProfile['scan-interval'], '20s');

      if (!definition(version, 'AgentPool')) return; // agentPools is a type from 2019-02-01 on
      const pool = await arm(server, 'GET', `${url.replace('?', '/agentPools/nodepool1?')}`);
      assert.equal(pool.status, 200);
      assert.deepEqual(undefinedMembers(version, 'AgentPool', pool.body, '', []), [], 'the agentPools GET answer');
      const pools = await arm(server, 'GET', `${url.replace('?', '/agentPools?')}`);
      for (const p of pools.body.value) assert.deepEqual(undefinedMembers(version, 'AgentPool', p, '', []), [], 'the agentPools list');

      // A member of the newest stable version this one lacks is the unknown member it is: the RP ignores it before
      // 2024-01-01 (not answered) and refuses it from then on (docs/aks-rules.md §1.5).
      const newer = Object.keys(definition(NEWEST, 'ManagedClusterProperties')!.properties).find(
        (m) => !definition(version, 'ManagedClusterProperties')!.properties[m],
      );
      if (newer !== undefined) {
        const answer = await arm(server, 'PUT', url, { body: { ...body, properties: { ...body.properties, [newer]: {} } } });
        if (version.slice(0, 10) >= '2024-01-01') {
          assert.equal(answer.status, 400, JSON.stringify(answer.body));
          assert.equal(answer.body.error.code, 'UnmarshalError');
          assert.match(answer.body.error.message, new RegExp(`unknown field "${newer}"`));
        } else {
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          assert.equal(answer.body.properties[newer], undefined);
          await waitForOperation(server, pathOf(answer.headers['azure-asyncoperation']));
        }
      }
    });
  }

  // Published versions whose spec is not read here (unread-versions.json): served with an earlier version's schema,
  // and the facts no schema states by their own date. 2026-01-01 has the definitions of 2025-10-01, but returns a BYO
  // CNI cluster's podCidr (docs/aks-rules.md §1.2) where 2025-10-01 does not; a 2025 preview as aks-preview sends one.
  for (const [version, returnsPodCidr] of [
    ['2025-10-01', false],
    ['2026-01-01', true],
    ['2025-08-02-preview', true],
  ] as const) {
    test(`${version}${UNREAD[version] ? ` (served with ${UNREAD[version].schemaOf}'s schema)` : ''}: create and GET, podCidr of BYO CNI ${returnsPodCidr ? '' : 'not '}returned`, async () => {
      const name = `u${++n}`;
      const url = `${group}/providers/Microsoft.ContainerService/managedClusters/${name}?api-version=${version}`;
      const put = await arm(server, 'PUT', url, { body: rawCluster(name, { networkProfile: { networkPlugin: 'none', podCidr: '10.244.0.0/16' } }) });
      assert.equal(put.status, 201, JSON.stringify(put.body));
      assert.equal((await waitForOperation(server, pathOf(put.headers['azure-asyncoperation']))).status, 'Succeeded');
      const got = await arm(server, 'GET', url);
      assert.equal(got.status, 200);
      assert.deepEqual(undefinedMembers(version, 'ManagedCluster', got.body, '', []), [], 'the GET answer');
      assert.equal(got.body.properties.networkProfile.networkPlugin, 'none');
      assert.equal(got.body.properties.networkProfile.podCidr, returnsPodCidr ? '10.244.0.0/16' : undefined);
    });
  }

  test('defaults as AKS reports them (2025-10-01): Standard SKU, the dataplane of Azure CNI, no identity for a service principal, no secrets', async () => {
    const url = (name: string) => `${group}/providers/Microsoft.ContainerService/managedClusters/${name}?api-version=2025-10-01`;
    const create = async (name: string, body: ReturnType<typeof rawCluster>) => {
      const put = await arm(server, 'PUT', url(name), { body });
      assert.equal(put.status, 201, JSON.stringify(put.body));
      assert.equal((await waitForOperation(server, pathOf(put.headers['azure-asyncoperation']))).status, 'Succeeded');
      return (await arm(server, 'GET', url(name))).body;
    };
    const { identity: _none, ...spBody } = rawCluster('sp', {
      servicePrincipalProfile: { clientId: '00000000-0000-4000-8000-00000000abcd', secret: 's3cret' },
      networkProfile: { networkPlugin: 'kubenet', loadBalancerSku: 'Standard' },
    });
    const sp = await create('sp', spBody as ReturnType<typeof rawCluster>);
    assert.equal(sp.identity, undefined);
    assert.deepEqual(sp.properties.servicePrincipalProfile, { clientId: '00000000-0000-4000-8000-00000000abcd' });
    assert.equal(sp.properties.networkProfile.loadBalancerSku, 'standard', 'the enum value, whatever case was sent');
    assert.equal(sp.properties.networkProfile.networkDataplane, undefined, 'kubenet has no dataplane member');
    const overlay = await create('ov', rawCluster('ov', { networkProfile: { networkPlugin: 'azure', networkPluginMode: 'overlay' } }));
    assert.equal(overlay.identity.type, 'SystemAssigned');
    assert.deepEqual(overlay.properties.servicePrincipalProfile, { clientId: 'msi' });
    assert.equal(overlay.properties.networkProfile.networkDataplane, 'azure');
    assert.equal(overlay.properties.networkProfile.networkPolicy, 'none');
    const byo = await create('byo', rawCluster('byo', { networkProfile: { networkPlugin: 'none' } }));
    assert.equal(byo.properties.agentPoolProfiles[0].maxPods, 250);
  });
});
