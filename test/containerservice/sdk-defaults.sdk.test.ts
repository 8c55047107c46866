// @azure/arm-containerservice at its own default api-version, with no apiVersion override, end to end with its
// pollers: the installed 24.1.0 (2025-10-01), 25.3.0 (2026-04-01, the TypeSpec-generated major) and 19.3.0
// (2023-07-01, an older autorest major), each as a user of that package would call it (issue 14, Must show).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ContainerServiceClient as V24 } from '@azure/arm-containerservice';
import { ContainerServiceClient as V19 } from '@azure/arm-containerservice-v19';
import { ContainerServiceClient as V25 } from '@azure/arm-containerservice-v25';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import { EmulatorCredential, type TestServer } from '../e2e/harness.js';
import { clientOptions, withServer } from '../network/harness.js';
import { POLL } from './harness.js';

/** The calls every major has under the same names (the 25.x classic surface keeps them). */
interface AksCalls {
  managedClusters: {
    beginCreateOrUpdateAndWait(g: string, n: string, body: never, o?: object): Promise<{ provisioningState?: string; id?: string; eTag?: string }>;
    get(g: string, n: string): Promise<{ name?: string; provisioningState?: string; agentPoolProfiles?: Array<{ name?: string }> }>;
    beginDeleteAndWait(g: string, n: string, o?: object): Promise<unknown>;
  };
  agentPools: {
    beginCreateOrUpdateAndWait(g: string, c: string, p: string, body: never, o?: object): Promise<{ provisioningState?: string; count?: number }>;
    get(g: string, c: string, p: string): Promise<{ name?: string; count?: number; maxPods?: number }>;
    list(g: string, c: string): AsyncIterable<{ name?: string }>;
  };
}

type Make = (server: TestServer, options: Record<string, unknown>) => AksCalls;

const MAJORS: Array<{ pkg: string; defaultVersion: string; make: Make }> = [
  { pkg: '19.3.0', defaultVersion: '2023-07-01', make: (s, o) => new V19(new EmulatorCredential(s), s.identity.subscriptionId, o) as unknown as AksCalls },
  { pkg: '24.1.0', defaultVersion: '2025-10-01', make: (s, o) => new V24(new EmulatorCredential(s), s.identity.subscriptionId, o) as unknown as AksCalls },
  { pkg: '25.3.0', defaultVersion: '2026-04-01', make: (s, o) => new V25(new EmulatorCredential(s), s.identity.subscriptionId, o) as unknown as AksCalls },
];

/** Records the api-version of every request the client sends. */
function recorder(seen: Set<string>): PipelinePolicy {
  return {
    name: 'record-api-version',
    sendRequest(request, next) {
      const version = new URL(request.url).searchParams.get('api-version');
      if (version !== null && new URL(request.url).pathname.includes('/managedClusters/')) seen.add(version);
      return next(request);
    },
  };
}

describe('@azure/arm-containerservice at its own default api-version', () => {
  for (const major of MAJORS) {
    test(`${major.pkg} (${major.defaultVersion}): cluster create, pools create/list/get, cluster get, delete, with pollers`, () =>
      withServer(async (env) => {
        const seen = new Set<string>();
        const aks = major.make(env.server, { ...clientOptions(env.server), additionalPolicies: [{ policy: recorder(seen), position: 'perCall' }] });
        const body = {
          location: 'eastus',
          identity: { type: 'SystemAssigned' },
          dnsPrefix: 'sdk',
          agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }],
          networkProfile: { networkPlugin: 'kubenet' },
        };
        const created = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', body as never, POLL);
        assert.equal(created.provisioningState, 'Succeeded');

        const pool = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'user1', { count: 2, mode: 'User', vmSize: 'Standard_DS2_v2' } as never, POLL);
        assert.equal(pool.provisioningState, 'Succeeded');
        assert.equal(pool.count, 2);
        const names: string[] = [];
        for await (const p of aks.agentPools.list('rg', 'c1')) names.push(p.name!);
        assert.deepEqual(names.sort(), ['nodepool1', 'user1']);
        const got = await aks.agentPools.get('rg', 'c1', 'user1');
        assert.equal(got.count, 2);
        assert.equal(got.maxPods, 110);

        const cluster = await aks.managedClusters.get('rg', 'c1');
        assert.equal(cluster.provisioningState, 'Succeeded');
        assert.deepEqual(cluster.agentPoolProfiles?.map((p) => p.name).sort(), ['nodepool1', 'user1']);

        await aks.managedClusters.beginDeleteAndWait('rg', 'c1', POLL);
        await assert.rejects(aks.managedClusters.get('rg', 'c1'), (err: Error & { statusCode?: number }) => err.statusCode === 404);
        assert.deepEqual([...seen], [major.defaultVersion], 'every call at the package default');
      }));
  }
});
