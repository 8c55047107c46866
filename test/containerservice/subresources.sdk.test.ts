// The sub-resources clients call on a cluster (issue 14 item 4), through @azure/arm-containerservice and plain
// HTTPS: stop/start of clusters and pools with powerState, upgrade profiles, availableAgentPoolVersions,
// osOptions, UpdateTags (clusters and Network resources), AbortLatestOperation, the operation-status routes,
// and runCommand refused (docs/aks-rules.md §8).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import type { ContainerServiceClient } from '@azure/arm-containerservice';
import { bearer, https, startTestServer } from '../e2e/harness.js';
import { networkClient, restError, withServer, type Env } from '../network/harness.js';
import { aksClient, cluster, olderAksClient, POLL } from './harness.js';
import { nodesOf, type ClusterRecord } from '../../src/model/cluster-records.js';

function clusterPath(env: Env, name: string): string {
  return `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/${name}`;
}

function nodeCount(env: Env, name: string, pool?: string): number {
  const record = env.server.store.get<ClusterRecord>(clusterPath(env, name).replace('/resourceGroups/', '/resourcegroups/'))!;
  return nodesOf(env.server.store, record).filter((n) => pool === undefined || n.pool === pool).length;
}

/** Whether something accepts TCP connections on the port (the cluster's API listener). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function create(env: Env, aks: ContainerServiceClient, name: string, version = '1.31') {
  return aks.managedClusters.beginCreateOrUpdateAndWait(
    'rg',
    name,
    { ...cluster({ networkPlugin: 'kubenet' }, { count: 2 }), kubernetesVersion: version },
    POLL,
  );
}

async function raw(env: Env, method: string, path: string, apiVersion: string, body?: unknown) {
  return https(env.server, method, `${path}?api-version=${apiVersion}`, {
    headers: { ...(await bearer(env.server)), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('cluster stop and start', () => {
  test('stop: powerState Stopped on the cluster and its pools, no nodes, the API server gone (connections refused), credentials kept; start brings it back on the same port', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      const created = await create(env, aks, 'c1');
      assert.equal(created.powerState?.code, 'Running');
      assert.equal(nodeCount(env, 'c1'), 2);
      const id = created.id!.replace('/resourceGroups/', '/resourcegroups/');
      // The API starts after the create's last transaction has committed.
      for (let i = 0; i < 200 && !env.server.clusterApis.urlOf(id); i++) await new Promise((r) => setTimeout(r, 10));
      const url = env.server.clusterApis.urlOf(id)!;
      const port = Number(new URL(url).port);
      assert.equal(await listening(port), true);

      await aks.managedClusters.beginStopAndWait('rg', 'c1', POLL);
      const stopped = await aks.managedClusters.get('rg', 'c1');
      assert.equal(stopped.powerState?.code, 'Stopped');
      assert.equal(stopped.provisioningState, 'Succeeded');
      assert.equal(stopped.agentPoolProfiles?.[0]?.powerState?.code, 'Stopped');
      assert.equal(stopped.agentPoolProfiles?.[0]?.count, 2, 'the pool keeps its count');
      assert.equal(nodeCount(env, 'c1'), 0);
      for (let i = 0; i < 100 && env.server.clusterApis.urlOf(id); i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(env.server.clusterApis.urlOf(id), undefined);
      assert.equal(await listening(port), false);
      const creds = await aks.managedClusters.listClusterUserCredentials('rg', 'c1');
      assert.match(Buffer.from(creds.kubeconfigs![0]!.value!).toString('utf8'), new RegExp(`127\\.0\\.0\\.1:${port}`));

      // Stopping again, or changing a stopped cluster, is refused; only start and delete remain.
      const again = await restError(aks.managedClusters.beginStopAndWait('rg', 'c1', POLL));
      assert.equal(again.statusCode, 409);
      assert.equal(again.code, 'OperationNotAllowed');
      assert.equal(again.message, 'managed cluster is in Provisioning State(Succeeded) and Power State(Stopped), stopping cannot be performed');
      // Sending the GET body back: at 2022-11-01 from the package major of that era (24.x's serializer adds
      // loadBalancerProfile.backendPoolType, which 2022-11-01 does not define and strict mode refuses).
      const update = await restError(olderAksClient(env.server).managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', { ...stopped, tags: { a: 'b' } }, POLL));
      assert.equal(update.statusCode, 409);
      assert.match(update.message, /Power State\(Stopped\), updating cannot be performed/);
      const addPool = await restError(
        aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'user1', { count: 1, mode: 'User', vmSize: 'Standard_DS2_v2' }, POLL),
      );
      assert.equal(addPool.statusCode, 409);

      await aks.managedClusters.beginStartAndWait('rg', 'c1', POLL);
      const started = await aks.managedClusters.get('rg', 'c1');
      assert.equal(started.powerState?.code, 'Running');
      assert.equal(started.agentPoolProfiles?.[0]?.powerState?.code, 'Running');
      assert.equal(nodeCount(env, 'c1'), 2);
      for (let i = 0; i < 200 && !env.server.clusterApis.urlOf(id); i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(env.server.clusterApis.urlOf(id), url, 'the API comes back on the port the kubeconfig names');
      const startAgain = await restError(aks.managedClusters.beginStartAndWait('rg', 'c1', POLL));
      assert.equal(startAgain.message, 'managed cluster is in Provisioning State(Succeeded) and Power State(Running), starting cannot be performed');
    }));

  test('stop answers 202 with Location and Azure-AsyncOperation, both pollable; a stopped cluster survives a restart stopped', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await create(env, aks, 'c2');
      const res = await raw(env, 'POST', `${clusterPath(env, 'c2')}/stop`, '2022-11-01');
      assert.equal(res.status, 202);
      const location = String(res.headers['location']);
      const status = String(res.headers['azure-asyncoperation']);
      assert.match(location, /\/providers\/Microsoft\.ContainerService\/locations\/eastus\/operationresults\//);
      assert.match(status, /\/providers\/Microsoft\.ContainerService\/locations\/eastus\/operations\//);
      let op: { status?: string } = {};
      for (let i = 0; i < 200 && op.status !== 'Succeeded'; i++) {
        op = (await https(env.server, 'GET', status.slice(env.server.url.length), { headers: await bearer(env.server) })).json as { status?: string };
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(op.status, 'Succeeded');
      const final = await https(env.server, 'GET', location.slice(env.server.url.length), { headers: await bearer(env.server) });
      assert.equal(final.status, 200);
      // The cluster-scoped OperationStatusResult route answers for the same operation.
      const opId = status.split('/operations/')[1]!.split('?')[0]!;
      const scoped = await raw(env, 'GET', `${clusterPath(env, 'c2')}/operations/${opId}`, '2022-11-01');
      assert.equal(scoped.status, 200);
      assert.equal((scoped.json as { status: string }).status, 'Succeeded');
      const unknown = await raw(env, 'GET', `${clusterPath(env, 'c2')}/operations/00000000-0000-0000-0000-000000000000`, '2022-11-01');
      assert.equal(unknown.status, 404);

      await env.server.close();
      env.server = await startTestServer({ home: env.home });
      const after = await aksClient(env.server).managedClusters.get('rg', 'c2');
      assert.equal(after.powerState?.code, 'Stopped');
      assert.equal(env.server.clusterApis.urlOf(after.id!.replace('/resourceGroups/', '/resourcegroups/')), undefined);
    }));
});

describe('pool stop and start (agentPools PUT with powerState)', () => {
  test('a User pool stops and starts; a System pool and an autoscaled pool cannot be stopped', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await create(env, aks, 'c3');
      await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c3', 'user1', { count: 2, mode: 'User', vmSize: 'Standard_DS2_v2' }, POLL);
      assert.equal(nodeCount(env, 'c3', 'user1'), 2);

      const pool = await aks.agentPools.get('rg', 'c3', 'user1');
      const stopped = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c3', 'user1', { ...pool, powerState: { code: 'Stopped' } }, POLL);
      assert.equal(stopped.powerState?.code, 'Stopped');
      assert.equal(stopped.count, 2);
      assert.equal(nodeCount(env, 'c3', 'user1'), 0);
      assert.equal(nodeCount(env, 'c3', 'nodepool1'), 2);
      assert.equal((await aks.managedClusters.get('rg', 'c3')).powerState?.code, 'Running');

      // A PUT that names no power state keeps the pool stopped.
      const kept = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c3', 'user1', { ...pool, powerState: undefined }, POLL);
      assert.equal(kept.powerState?.code, 'Stopped');

      const started = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c3', 'user1', { ...pool, powerState: { code: 'Running' } }, POLL);
      assert.equal(started.powerState?.code, 'Running');
      assert.equal(nodeCount(env, 'c3', 'user1'), 2);

      const system = await aks.agentPools.get('rg', 'c3', 'nodepool1');
      const refused = await restError(aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c3', 'nodepool1', { ...system, powerState: { code: 'Stopped' } }, POLL));
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.code, 'OperationNotAllowed');
      assert.match(refused.message, /System pool and cannot be stopped/);

      await aks.agentPools.beginCreateOrUpdateAndWait(
        'rg',
        'c3',
        'auto1',
        { count: 1, mode: 'User', vmSize: 'Standard_DS2_v2', enableAutoScaling: true, minCount: 1, maxCount: 3 },
        POLL,
      );
      const auto = await aks.agentPools.get('rg', 'c3', 'auto1');
      const autoRefused = await restError(aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c3', 'auto1', { ...auto, powerState: { code: 'Stopped' } }, POLL));
      assert.equal(autoRefused.statusCode, 400);
      assert.match(autoRefused.message, /autoscaler/);

      const bad = await raw(env, 'PUT', `${clusterPath(env, 'c3')}/agentPools/user1`, '2022-11-01', {
        properties: { count: 2, powerState: { code: 'Paused' } },
      });
      assert.equal(bad.status, 400);
      assert.equal((bad.json as { error: { code: string } }).error.code, 'InvalidParameter');
    }));
});

describe('upgrade profiles, availableAgentPoolVersions, osOptions', () => {
  test('a 1.31 cluster is offered the next minor; its pool up to the control plane; new pools the skew AKS allows', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await create(env, aks, 'c4', '1.31');
      const profile = await aks.managedClusters.getUpgradeProfile('rg', 'c4');
      assert.equal(profile.name, 'default');
      assert.equal(profile.controlPlaneProfile.kubernetesVersion, '1.31.13');
      assert.deepEqual(
        profile.controlPlaneProfile.upgrades?.map((u) => u.kubernetesVersion),
        ['1.32.9'],
      );
      assert.equal(profile.agentPoolProfiles[0]?.name, 'nodepool1');
      assert.deepEqual(profile.agentPoolProfiles[0]?.upgrades, []);
      const res = await raw(env, 'GET', `${clusterPath(env, 'c4')}/upgradeProfiles/default`, '2022-11-01');
      assert.equal((res.json as { type: string }).type, 'Microsoft.ContainerService/managedClusters/upgradeprofiles');

      const pool = await aks.agentPools.getUpgradeProfile('rg', 'c4', 'nodepool1');
      assert.equal(pool.kubernetesVersion, '1.31.13');
      assert.equal(pool.osType, 'Linux');
      assert.match(pool.latestNodeImageVersion ?? '', /^AKSUbuntu-/);

      const available = await aks.agentPools.getAvailableAgentPoolVersions('rg', 'c4');
      const versions = available.agentPoolVersions?.map((v) => v.kubernetesVersion);
      assert.deepEqual(versions, ['1.28.15', '1.29.15', '1.30.14', '1.31.13']);
      assert.equal(available.agentPoolVersions?.find((v) => v.default)?.kubernetesVersion, '1.31.13');

      const os = await raw(env, 'GET', `/subscriptions/${env.sub}/providers/Microsoft.ContainerService/locations/eastus/osOptions/default`, '2022-11-01');
      assert.equal(os.status, 200);
      assert.deepEqual((os.json as { properties: unknown }).properties, {
        osOptionPropertyList: [
          { 'os-type': 'Linux', 'enable-fips-image': false },
          { 'os-type': 'Windows', 'enable-fips-image': false },
        ],
      });
      const nowhere = await raw(env, 'GET', `/subscriptions/${env.sub}/providers/Microsoft.ContainerService/locations/nowhere/osOptions/default`, '2022-11-01');
      assert.equal(nowhere.status, 404);
    }));
});

describe('UpdateTags', () => {
  test('managedClusters PATCH replaces the tags (long-running); the Network resources take a tags PATCH too', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await create(env, aks, 'c5');
      const tagged = await aks.managedClusters.beginUpdateTagsAndWait('rg', 'c5', { tags: { tier: 'testing', archv3: '' } }, POLL);
      assert.deepEqual(tagged.tags, { tier: 'testing', archv3: '' });
      assert.equal(tagged.provisioningState, 'Succeeded');
      const retagged = await aks.managedClusters.beginUpdateTagsAndWait('rg', 'c5', { tags: { only: 'this' } }, POLL);
      assert.deepEqual(retagged.tags, { only: 'this' });
      const badTags = await raw(env, 'PATCH', clusterPath(env, 'c5'), '2022-11-01', { tags: { 'a/b': 'x' } });
      assert.equal(badTags.status, 400);

      const network = networkClient(env.server);
      await network.virtualNetworks.beginCreateOrUpdateAndWait('rg', 'v1', { location: 'eastus', addressSpace: { addressPrefixes: ['10.1.0.0/16'] } }, POLL);
      const before = await network.virtualNetworks.get('rg', 'v1');
      const vnet = await network.virtualNetworks.updateTags('rg', 'v1', { tags: { env: 'dev' } });
      assert.deepEqual(vnet.tags, { env: 'dev' });
      assert.notEqual(vnet.etag, before.etag);
      assert.deepEqual(vnet.addressSpace, before.addressSpace);
      await network.networkSecurityGroups.beginCreateOrUpdateAndWait('rg', 'n1', { location: 'eastus' }, POLL);
      assert.deepEqual((await network.networkSecurityGroups.updateTags('rg', 'n1', { tags: { a: '1' } })).tags, { a: '1' });
      await network.routeTables.beginCreateOrUpdateAndWait('rg', 'r1', { location: 'eastus' }, POLL);
      assert.deepEqual((await network.routeTables.updateTags('rg', 'r1', { tags: { b: '2' } })).tags, { b: '2' });
      const missing = await restError(network.routeTables.updateTags('rg', 'nope', { tags: {} }));
      assert.equal(missing.statusCode, 404);
    }));
});

describe('AbortLatestOperation and runCommand', () => {
  test('abort with nothing running is a 409; abort of a running operation cancels it (Canceled)', () =>
    withServer(async (env) => {
      await create(env, aksClient(env.server), 'c6');
      let aks = aksClient(env.server);
      const idle = await restError(aks.managedClusters.beginAbortLatestOperationAndWait('rg', 'c6', POLL));
      assert.equal(idle.statusCode, 409);
      const idlePool = await restError(aks.agentPools.beginAbortLatestOperationAndWait('rg', 'c6', 'nodepool1', POLL));
      assert.equal(idlePool.statusCode, 409);

      // Operations that wait long enough to be aborted.
      await env.server.close();
      env.server = await startTestServer({ home: env.home, lroDelayMs: 600_000 });
      aks = aksClient(env.server);
      const scale = await raw(env, 'PUT', `${clusterPath(env, 'c6')}/agentPools/nodepool1`, '2022-11-01', {
        properties: { count: 3, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' },
      });
      assert.equal(scale.status, 200, scale.text);
      const busy = await restError(aks.managedClusters.beginStopAndWait('rg', 'c6', POLL));
      assert.equal(busy.statusCode, 409);
      const abort = await raw(env, 'POST', `${clusterPath(env, 'c6')}/agentPools/nodepool1/abort`, '2022-11-01');
      assert.equal(abort.status, 202);
      assert.ok(abort.headers['location'] && abort.headers['azure-asyncoperation']);
      const scaleOp = String(scale.headers['azure-asyncoperation']).slice(env.server.url.length);
      const opStatus = (await https(env.server, 'GET', scaleOp, { headers: await bearer(env.server) })).json as { status: string; error?: { code: string } };
      assert.equal(opStatus.status, 'Canceled');
      const after = await aks.agentPools.get('rg', 'c6', 'nodepool1');
      assert.equal(after.provisioningState, 'Canceled');
      assert.equal(nodeCount(env, 'c6', 'nodepool1'), 2, 'the canceled scale-out added no node');

      const stop = await raw(env, 'POST', `${clusterPath(env, 'c6')}/stop`, '2022-11-01');
      assert.equal(stop.status, 202, stop.text);
      const abortCluster = await raw(env, 'POST', `${clusterPath(env, 'c6')}/abort`, '2022-11-01');
      assert.equal(abortCluster.status, 202);
      const canceled = await aks.managedClusters.get('rg', 'c6');
      assert.equal(canceled.provisioningState, 'Canceled');
      assert.equal(canceled.powerState?.code, 'Running');
    }));

  test('runCommand is refused in ARM envelope (no fake result); commandResults of an unknown id is a 404', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await create(env, aks, 'c7');
      const err = await restError(aks.managedClusters.beginRunCommandAndWait('rg', 'c7', { command: 'kubectl get pods' }, POLL));
      assert.equal(err.statusCode, 400);
      assert.equal(err.code, 'OperationNotAllowed');
      assert.match(err.message, /runCommand cannot run here/);
      const res = await raw(env, 'GET', `${clusterPath(env, 'c7')}/commandResults/abc123`, '2022-11-01');
      assert.equal(res.status, 404);
      assert.equal((res.json as { error: { code: string } }).error.code, 'NotFound');
    }));
});
