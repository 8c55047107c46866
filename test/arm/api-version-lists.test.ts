// The Microsoft.Network, Microsoft.Resources and Microsoft.Authorization api-version lists: generated data
// (tools/gen-arm-api-versions.mjs) that the TS modules read. The lists are ordered as ARM orders them, hold every
// version the clients here send (az 2.45's, and the default of each SDK package in node_modules, read from the
// package at test time), and are what their data files say. Regenerating needs the spec repository, which CI
// does not have; the command is in the generator's header.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RESOURCES_API_VERSIONS } from '../../src/arm/apiVersions.js';
import { API } from '../../src/cli/az/api-versions.js';
import { ROLE_ASSIGNMENT_API_VERSIONS, ROLE_DEFINITION_API_VERSIONS } from '../../src/providers/authorization/apiVersions.js';
import { NETWORK_API_VERSIONS } from '../../src/providers/network/apiVersions.js';
import { generatedJson } from '../fixtures/generated-json.js';

interface List {
  versions: string[];
  spec: string[];
  packages: Record<string, string>;
  extra: { reason: string; versions: string[]; armTail?: string[] };
}
interface DataFile {
  generator: string;
  namespace: string;
  source: string;
  lists: Record<string, List>;
}

const ROOT = new URL('../../../', import.meta.url);
const read = (path: string): { text: string; data: DataFile } => {
  const text = readFileSync(new URL(path, ROOT), 'utf8');
  return { text, data: JSON.parse(text) as DataFile };
};
const FILES = {
  network: read('src/providers/network/api-versions.json'),
  resources: read('src/arm/api-versions.json'),
  authorization: read('src/providers/authorization/api-versions.json'),
};
const SERVED: [string, DataFile, string, readonly string[]][] = [
  ['Microsoft.Network', FILES.network.data, 'all', NETWORK_API_VERSIONS],
  ['Microsoft.Resources', FILES.resources.data, 'all', RESOURCES_API_VERSIONS],
  ['Microsoft.Authorization roleAssignments', FILES.authorization.data, 'roleAssignments', ROLE_ASSIGNMENT_API_VERSIONS],
  ['Microsoft.Authorization roleDefinitions', FILES.authorization.data, 'roleDefinitions', ROLE_DEFINITION_API_VERSIONS],
];

/** ARM's order: newest date first, on the same date the stable version before its preview. */
function newestFirst(a: string, b: string): number {
  const [da, db] = [a.slice(0, 10), b.slice(0, 10)];
  if (da !== db) return da < db ? 1 : -1;
  return a.length - b.length;
}

/** The default api-version of an SDK package in node_modules (for one operation group when given). */
async function sdkDefault(name: string, group?: string): Promise<string> {
  const tool = (await import(new URL('tools/arm-package-api-version.mjs', ROOT).href)) as {
    packageApiVersion(pkg: string, group?: string): { apiVersion: string };
  };
  return tool.packageApiVersion(fileURLToPath(new URL(`node_modules/${name}`, ROOT)), group).apiVersion;
}

describe('ARM api-version lists', () => {
  test('the TS modules serve the data files’ lists', () => {
    for (const [label, data, list, served] of SERVED) assert.deepEqual(served, data.lists[list]!.versions, label);
    assert.equal(FILES.network.data.namespace, 'Microsoft.Network');
    assert.equal(FILES.resources.data.namespace, 'Microsoft.Resources');
    assert.equal(FILES.authorization.data.namespace, 'Microsoft.Authorization');
  });

  test('each data file is the generator output: sorted keys, two-space JSON, a recorded source', () => {
    for (const { text, data } of Object.values(FILES)) {
      assert.equal(text, generatedJson(data));
      assert.equal(data.generator, 'tools/gen-arm-api-versions.mjs');
      assert.match(data.source, /@[0-9a-f]{40}$/);
    }
  });

  test('newest first, no repeats; Microsoft.Resources ends with the legacy tail ARM lists in its own order', () => {
    for (const [label, data, list] of SERVED) {
      const entry = data.lists[list]!;
      const tail = entry.extra.armTail ?? [];
      const dated = entry.versions.slice(0, entry.versions.length - tail.length);
      assert.deepEqual(entry.versions.slice(dated.length), tail, label);
      assert.deepEqual([...dated].sort(newestFirst), dated, label);
      assert.equal(new Set(entry.versions).size, entry.versions.length, label);
      for (const v of entry.versions) assert.match(v, /^\d{4}-\d{2}(-\d{2})?(-preview)?$/, label);
    }
    assert.equal(RESOURCES_API_VERSIONS.at(-1), '2014-04');
    assert.deepEqual(RESOURCES_API_VERSIONS.slice(8, 10), ['2023-07-01', '2023-07-01-preview']);
  });

  test('each list is its sources: the spec folders, the packages’ defaults and the documented extras', () => {
    for (const [label, data, list] of SERVED) {
      const entry = data.lists[list]!;
      const sources = new Set([...entry.spec, ...Object.values(entry.packages)]);
      const extras = [...entry.extra.versions, ...(entry.extra.armTail ?? [])];
      assert.ok(entry.extra.reason.length > 0, label);
      for (const v of extras) assert.ok(!sources.has(v), `${label}: extra ${v} is in the sources`);
      assert.deepEqual(new Set(entry.versions), new Set([...sources, ...extras]), label);
    }
    // Network reaches the newest published package's default.
    assert.equal(FILES.network.data.lists.all!.packages['@azure/arm-network@39.0.0'], '2026-01-01');
    assert.equal(NETWORK_API_VERSIONS[0], '2026-01-01');
  });

  test('az 2.45’s versions are served (docs/clients.md §2.3)', () => {
    assert.ok(RESOURCES_API_VERSIONS.includes(API.resources));
    assert.ok(RESOURCES_API_VERSIONS.includes('2019-11-01'), 'subscriptions and tenants');
    assert.ok(NETWORK_API_VERSIONS.includes(API.network));
    assert.ok(NETWORK_API_VERSIONS.includes(API.routeTables));
    assert.ok(ROLE_ASSIGNMENT_API_VERSIONS.includes(API.roleAssignments));
    assert.ok(ROLE_DEFINITION_API_VERSIONS.includes(API.roleDefinitions));
  });

  test('the SDK packages in node_modules send versions that are served', async () => {
    assert.ok(NETWORK_API_VERSIONS.includes(await sdkDefault('@azure/arm-network')));
    assert.ok(RESOURCES_API_VERSIONS.includes(await sdkDefault('@azure/arm-resources')));
    assert.ok(ROLE_ASSIGNMENT_API_VERSIONS.includes(await sdkDefault('@azure/arm-authorization', 'roleAssignments')));
    assert.ok(ROLE_DEFINITION_API_VERSIONS.includes(await sdkDefault('@azure/arm-authorization', 'roleDefinitions')));
  });
});
