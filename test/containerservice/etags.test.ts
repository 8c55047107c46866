// eTags of clusters and pools, and If-Match / If-None-Match (docs/aks-rules.md §3.7, AKSDOCS use-etags), over raw
// HTTP: a new value on every write, a cluster write renewing its pools' and a pool write only the pool's; an unmet
// precondition is 412 PreconditionFailed; versions without the member show none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, pathOf, waitForOperation, type Reply } from '../arm/helpers.js';
import { rawCluster } from './harness.js';

const V = '2025-10-01';

describe('eTags and preconditions', () => {
  let home: string;
  let server: TestServer;
  let url: string;
  const body = rawCluster('etag');
  const settled = async (res: Reply) => {
    assert.ok(res.status < 300, JSON.stringify(res.body));
    assert.equal((await waitForOperation(server, pathOf(res.headers['azure-asyncoperation']))).status, 'Succeeded');
  };
  const get = async (path: string, version = V) => (await arm(server, 'GET', `${path}?api-version=${version}`)).body;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    const group = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg`;
    assert.equal((await arm(server, 'PUT', `${group}?api-version=2021-04-01`, { body: { location: 'eastus' } })).status, 201);
    url = `${group}/providers/Microsoft.ContainerService/managedClusters/c1`;
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('If-Match on a cluster that does not exist is refused; If-None-Match * creates', async () => {
    const refused = await arm(server, 'PUT', `${url}?api-version=${V}`, { body, headers: { 'if-match': '"abc"' } });
    assert.equal(refused.status, 412);
    assert.equal(refused.body.error.code, 'PreconditionFailed');
    await settled(await arm(server, 'PUT', `${url}?api-version=${V}`, { body, headers: { 'if-none-match': '*' } }));
    const cluster = await get(url);
    assert.match(cluster.eTag, /^[0-9a-f-]{36}$/);
    assert.match(cluster.properties.agentPoolProfiles[0].eTag, /^[0-9a-f-]{36}$/);
    assert.equal((await get(`${url}/agentPools/nodepool1`)).properties.eTag, cluster.properties.agentPoolProfiles[0].eTag);
  });

  test('a cluster write needs the current eTag when If-Match names one, and renews the cluster and pool eTags', async () => {
    const before = await get(url);
    const stale = await arm(server, 'PUT', `${url}?api-version=${V}`, { body, headers: { 'if-match': '"not-the-etag"' } });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.error.code, 'PreconditionFailed');
    assert.equal((await arm(server, 'PUT', `${url}?api-version=${V}`, { body, headers: { 'if-none-match': '*' } })).status, 412);
    await settled(await arm(server, 'PUT', `${url}?api-version=${V}`, { body, headers: { 'if-match': `"${before.eTag}"` } }));
    const afterWrite = await get(url);
    assert.notEqual(afterWrite.eTag, before.eTag);
    assert.notEqual(afterWrite.properties.agentPoolProfiles[0].eTag, before.properties.agentPoolProfiles[0].eTag);
  });

  test('a pool write renews the pool eTag only; its If-Match is the pool eTag', async () => {
    const cluster = await get(url);
    const pool = await get(`${url}/agentPools/nodepool1`);
    const poolBody = { properties: { count: 2, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' } };
    const poolUrl = `${url}/agentPools/nodepool1?api-version=${V}`;
    assert.equal((await arm(server, 'PUT', poolUrl, { body: poolBody, headers: { 'if-match': cluster.eTag } })).status, 412);
    await settled(await arm(server, 'PUT', poolUrl, { body: poolBody, headers: { 'if-match': pool.properties.eTag } }));
    assert.notEqual((await get(`${url}/agentPools/nodepool1`)).properties.eTag, pool.properties.eTag);
    assert.equal((await get(url)).eTag, cluster.eTag);
  });

  test('versions without the member show no eTag and ignore the headers', async () => {
    const old = await get(url, '2022-11-01');
    assert.equal(old.eTag, undefined);
    assert.equal(old.properties.agentPoolProfiles[0].eTag, undefined);
    await settled(await arm(server, 'PUT', `${url}?api-version=2022-11-01`, { body, headers: { 'if-match': '"x"' } }));
  });

  test('DELETE with a stale If-Match is refused; with the current one it deletes', async () => {
    const cluster = await get(url);
    const stale = await arm(server, 'DELETE', `${url}?api-version=${V}`, { headers: { 'if-match': '"x"' } });
    assert.equal(stale.status, 412);
    const res = await arm(server, 'DELETE', `${url}?api-version=${V}`, { headers: { 'if-match': cluster.eTag } });
    assert.equal(res.status, 202);
  });
});
