// The DNS prefix: AKS makes none up (docs/aks-rules.md §3.2); the client names one, and the cluster's FQDN is
// built from it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restError, withServer } from '../network/harness.js';
import { aksClient, cluster, POLL } from './harness.js';

test('containerservice: a cluster without a DNS prefix is refused; one with a prefix gets an FQDN from it', () =>
  withServer(async (env) => {
    const aks = aksClient(env.server);
    const { dnsPrefix: _none, ...bare } = cluster({ networkPlugin: 'kubenet' }, { count: 1 });
    for (const body of [bare, { ...bare, dnsPrefix: '' }]) {
      const err = await restError(aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', body, POLL));
      assert.equal(err.code, 'InvalidParameter');
      assert.equal((err.details as { error?: { target?: string } } | undefined)?.error?.target, 'dnsPrefix');
      assert.match(String(err.message), /^The value of parameter dnsPrefix is invalid\. Error details: DNS prefix '' is invalid\./);
    }
    const created = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', { ...bare, dnsPrefix: 'mine' }, POLL);
    assert.equal(created.dnsPrefix, 'mine');
    assert.match(created.fqdn ?? '', /^mine-[0-9a-f]{8}\.hcp\.eastus\.azmk8s\.io$/);
  }));

test('containerservice: a private cluster named by fqdnSubdomain instead of a DNS prefix is created and reads back no dnsPrefix; both at once are refused', () =>
  withServer(async (env) => {
    const aks = aksClient(env.server);
    const { dnsPrefix: _none, ...bare } = cluster({ networkPlugin: 'kubenet' }, { count: 1 });
    const zone = `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/privatelink.eastus.azmk8s.io`;
    const priv = { ...bare, apiServerAccessProfile: { enablePrivateCluster: true, privateDNSZone: zone } };
    const both = await restError(aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', { ...priv, dnsPrefix: 'mine', fqdnSubdomain: 'domain1' }, POLL));
    assert.equal(both.code, 'InvalidParameter');
    assert.equal((both.details as { error?: { target?: string } } | undefined)?.error?.target, 'fqdnSubdomain');
    const created = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', { ...priv, fqdnSubdomain: 'domain1' }, POLL);
    assert.equal(created.fqdnSubdomain, 'domain1');
    assert.equal(created.dnsPrefix, undefined);
    assert.equal(created.privateFqdn, 'domain1.privatelink.eastus.azmk8s.io');
    // The default zone is AKS's own ('system'); the private name carries the prefix's hash and a guid.
    const sys = await aks.managedClusters.beginCreateOrUpdateAndWait(
      'rg',
      'c2',
      { ...bare, dnsPrefix: 'sys', apiServerAccessProfile: { enablePrivateCluster: true } },
      POLL,
    );
    assert.equal(sys.apiServerAccessProfile?.privateDNSZone, 'system');
    assert.match(sys.privateFqdn ?? '', /^sys-[0-9a-f]{8}\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.privatelink\.eastus\.azmk8s\.io$/);
    assert.equal((await aks.managedClusters.get('rg', 'c2')).privateFqdn, sys.privateFqdn, 'stable across reads');
  }));
