// Defaults by api-version (docs/aks-rules.md §1, §3.7, §6 X1).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiVersionProfile } from '../../src/aks/api-versions.js';
import { resolveCluster } from '../../src/aks/defaults.js';
import { resolveKubernetesVersion } from '../../src/aks/kubernetes-versions.js';
import { spec } from './helpers.js';

const resolve = (api: string, s: Parameters<typeof spec>[0] = {}) => resolveCluster(spec(s), apiVersionProfile(api)!);

describe('defaults', () => {
  test('2022-06-01: kubenet, 10.244.0.0/16, 10.0.0.0/16, 10.0.0.10, maxPods 110, maxSurge 1', () => {
    const c = resolve('2022-06-01');
    assert.equal(c.network.networkPlugin, 'kubenet');
    assert.equal(c.network.podCidr, '10.244.0.0/16');
    assert.equal(c.network.serviceCidr, '10.0.0.0/16');
    assert.equal(c.network.dnsServiceIP, '10.0.0.10');
    assert.equal(c.network.dockerBridgeCidr, '172.17.0.1/16');
    assert.equal(c.network.outboundType, 'loadBalancer');
    assert.deepEqual(c.network.ipFamilies, ['IPv4']);
    assert.equal(c.pools[0]!.maxPods, 110);
    assert.equal(c.pools[0]!.maxSurge, '1');
    assert.equal(c.network.networkPolicy, undefined);
  });

  test('azure node subnet defaults maxPods to 30 and sets no pod CIDR; none sets no pod CIDR', () => {
    const azure = resolve('2022-06-01', { net: { networkPlugin: 'azure' } });
    assert.equal(azure.pools[0]!.maxPods, 30);
    assert.equal(azure.network.podCidr, undefined);
    const none = resolve('2022-11-01', { net: { networkPlugin: 'none' } });
    assert.equal(none.network.podCidr, undefined);
    // Real BYO CNI clusters report 250 (docs/aks-rules.md §3.7); 110 was the kubelet's default, assumed before.
    assert.equal(none.pools[0]!.maxPods, 250);
  });

  test('2026-04-01: plugin by Kubernetes version, maxSurge 10%, networkPolicy none, no dockerBridgeCidr', () => {
    const newer = resolve('2026-04-01', { k8s: '1.32' });
    assert.equal(newer.network.networkPlugin, 'azure');
    assert.equal(newer.network.networkPluginMode, 'overlay');
    assert.equal(newer.network.podCidr, '10.244.0.0/16');
    assert.equal(newer.pools[0]!.maxPods, 250);
    assert.equal(newer.pools[0]!.maxSurge, '10%');
    assert.equal(newer.network.networkPolicy, 'none');
    assert.equal(newer.network.dockerBridgeCidr, undefined);
    const older = resolve('2026-04-01', { k8s: '1.29' });
    assert.equal(older.network.networkPlugin, 'kubenet');
  });

  test('mixed-case plugin names fold to lower case', () => {
    assert.equal(resolve('2022-06-01', { net: { networkPlugin: 'Azure' } }).network.networkPlugin, 'azure');
  });

  test('Kubernetes versions: major.minor resolves to the newest patch; unknown ones stay unresolved', () => {
    assert.equal(resolveKubernetesVersion('1.22'), '1.22.15');
    assert.equal(resolveKubernetesVersion('1.19.0'), undefined);
    assert.equal(resolveKubernetesVersion(undefined), '1.32.9');
  });
});

describe('dual-stack defaults (docs/aks-rules.md §9.2)', () => {
  test('ipFamilies [ipv4, ipv6]: IPv6 pod and service CIDRs filled, the single fields and dnsServiceIP stay IPv4', () => {
    const c = resolve('2022-11-01', { net: { ipFamilies: ['ipv4', 'ipv6'] } });
    assert.deepEqual(c.network.ipFamilies, ['IPv4', 'IPv6']);
    assert.deepEqual(c.network.podCidrs, ['10.244.0.0/16', 'fd12:3456:789a::/64']);
    assert.deepEqual(c.network.serviceCidrs, ['10.0.0.0/16', 'fd12:3456:789a:1::/108']);
    assert.equal(c.network.podCidr, '10.244.0.0/16');
    assert.equal(c.network.serviceCidr, '10.0.0.0/16');
    assert.equal(c.network.dnsServiceIP, '10.0.0.10');
    assert.equal(c.network['loadBalancerProfile'], undefined, 'the response default adds countIPv6 (render.ts)');
  });

  test('given lists are kept; an IPv4-only list gets the IPv6 default; podCidr seeds from the list', () => {
    const given = resolve('2022-11-01', { net: { ipFamilies: ['IPv4', 'IPv6'], podCidrs: ['192.168.0.0/16', 'fd00:1::/64'], serviceCidrs: ['10.1.0.0/16'] } });
    assert.equal(given.network.podCidr, '192.168.0.0/16');
    assert.deepEqual(given.network.podCidrs, ['192.168.0.0/16', 'fd00:1::/64']);
    assert.deepEqual(given.network.serviceCidrs, ['10.1.0.0/16', 'fd12:3456:789a:1::/108']);
  });

  test('countIPv6 1 completes a managedOutboundIPs the user gave; a given countIPv6 is kept', () => {
    const lb = (profile: unknown) =>
      resolve('2022-11-01', { net: { ipFamilies: ['IPv4', 'IPv6'], loadBalancerProfile: profile } }).network['loadBalancerProfile'];
    assert.deepEqual(lb({ managedOutboundIPs: { count: 2 } }), { managedOutboundIPs: { count: 2, countIPv6: 1 } });
    assert.deepEqual(lb({ managedOutboundIPs: { count: 2, countIPv6: 3 } }), { managedOutboundIPs: { count: 2, countIPv6: 3 } });
  });

  test('BYO CNI gets no IPv6 pod range made up; single-stack and an empty ipFamilies list stay IPv4 only', () => {
    const none = resolve('2022-11-01', { net: { networkPlugin: 'none', ipFamilies: ['IPv4', 'IPv6'] } });
    assert.equal(none.network.podCidrs, undefined);
    assert.deepEqual(none.network.serviceCidrs, ['10.0.0.0/16', 'fd12:3456:789a:1::/108']);
    const empty = resolve('2022-11-01', { net: { ipFamilies: [] } });
    assert.deepEqual(empty.network.ipFamilies, ['IPv4']);
    assert.deepEqual(empty.network.podCidrs, ['10.244.0.0/16']);
  });

  test('osSKU: Ubuntu on Linux; Windows2019 before Kubernetes 1.25, Windows2022 from it; a given SKU is kept (docs/aks-rules.md §3.7)', () => {
    const win = (k8s: string, extra: Record<string, unknown> = {}) =>
      resolve('2022-11-01', {
        k8s,
        windows: true,
        net: { networkPlugin: 'azure' },
        pools: [
          { name: 'nodepool1', count: 1, mode: 'System' },
          { name: 'win', count: 1, mode: 'User', osType: 'Windows', ...extra },
        ],
      }).pools;
    assert.deepEqual(
      win('1.24').map((p) => p.osSKU),
      ['Ubuntu', 'Windows2019'],
    );
    assert.deepEqual(
      win('1.25').map((p) => p.osSKU),
      ['Ubuntu', 'Windows2022'],
    );
    assert.equal(win('1.24', { osSKU: 'Windows2022' })[1]!.osSKU, 'Windows2022');
  });
});
