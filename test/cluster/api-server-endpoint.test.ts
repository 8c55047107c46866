// The `kubernetes` Service's endpoint without a data plane (docs/dataplane.md §12.7): the apiserver's own Endpoints
// and EndpointSlice name the cluster's API server address on port 443, the slice is not mirrored again, and the
// public-info paths answer an anonymous client as system:public-info-viewer opens them, while everything else,
// and any wrong credential, stays 401.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiServerAddress, API_SERVER_RANGE } from '../../src/aks/azure-dns.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { api, eventually, withCluster } from './harness.js';

describe('the kubernetes Service endpoint', () => {
  test('Endpoints and one EndpointSlice name the API server address; anonymous /version and /healthz answer, the rest is 401', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const address = apiServerAddress(env.clusterId);
      assert.ok(Cidr.parse(API_SERVER_RANGE).contains(IpAddress.parse(address)));
      assert.equal(apiServerAddress(env.clusterId.toUpperCase()), address, 'ids compare without case');
      const ep = await api(env, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes');
      assert.equal(ep.status, 200);
      assert.deepEqual(ep.json.subsets, [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }]);
      assert.equal(ep.json.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true');
      const slices = async () =>
        (await api(env, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name%3Dkubernetes')).json.items;
      // The mirroring controller has had its chance (it runs on every Service and Endpoints change).
      await new Promise((r) => setTimeout(r, 300));
      const items = await slices();
      assert.deepEqual(
        items.map((s: any) => [s.metadata.name, s.addressType, s.endpoints, s.ports]),
        [['kubernetes', 'IPv4', [{ addresses: [address], conditions: { ready: true } }], [{ name: 'https', port: 443, protocol: 'TCP' }]]],
      );
      const version = await api(env, 'GET', '/version', { token: null });
      assert.equal(version.status, 200);
      assert.match(version.json.gitVersion, /^v1\.\d+\.\d+$/);
      assert.equal((await api(env, 'GET', '/healthz', { token: null })).status, 200);
      assert.equal((await api(env, 'GET', '/api', { token: null })).status, 401);
      assert.equal((await api(env, 'GET', '/api/v1/namespaces/default/pods', { token: null })).status, 401);
      assert.equal((await api(env, 'POST', '/version', { token: null, body: '{}' })).status, 401);
      assert.equal((await api(env, 'GET', '/version', { token: 'wrong' })).status, 401, 'a wrong token is refused before authorization');
      await eventually(async () => (await slices()).length === 1, 1000, 'still one slice');
    }));
});
