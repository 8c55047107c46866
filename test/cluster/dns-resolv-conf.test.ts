// A pod's resolv.conf and hosts as the kubelet writes them, per dnsPolicy and dnsConfig (cluster/dns/resolv-conf.ts),
// and their files on the node (pod-files.ts): written at the exported paths, removed when the pod goes.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { azureNodeResolver, PodDnsFiles } from '../../src/cluster/kubelet/pod-files.js';
import { podHostsPath, podResolvConfPath } from '../../src/cluster/nodefs/node-root.js';
import { type KubeletDns, podHostsText, podResolverConfig, resolvConfText } from '../../src/cluster/dns/resolv-conf.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

const NODE = azureNodeResolver({ nodeResourceGroup: 'MC_rg_aks_eastus' });
const SUFFIX = NODE.searches[0]!;
const KUBELET: KubeletDns = { clusterDns: ['10.0.0.10'], clusterDomain: 'cluster.local', node: NODE };
const pod = (spec: Record<string, unknown>, name = 'web-0', namespace = 'shop'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, uid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }, spec }) as unknown as KubeObject;
const conf = (spec: Record<string, unknown>) => resolvConfText(podResolverConfig(pod(spec), KUBELET));

describe('pod resolv.conf', () => {
  it("the node's search domain is Azure-provided DNS's, stable per cluster", () => {
    assert.match(SUFFIX, /^[a-z0-5]{26}\.[a-z]x\.internal\.cloudapp\.net$/);
    assert.deepEqual(azureNodeResolver({ nodeResourceGroup: 'mc_RG_aks_eastus' }), NODE);
    assert.notDeepEqual(azureNodeResolver({ nodeResourceGroup: 'MC_other' }), NODE);
    assert.deepEqual(NODE.nameservers, ['168.63.129.16']);
  });

  it('ClusterFirst (and no dnsPolicy): the cluster DNS, the namespace search path, the node search domain, ndots:5', () => {
    const expected = `search shop.svc.cluster.local svc.cluster.local cluster.local ${SUFFIX}\nnameserver 10.0.0.10\noptions ndots:5\n`;
    assert.equal(conf({ dnsPolicy: 'ClusterFirst' }), expected);
    assert.equal(conf({}), expected);
  });

  it('ClusterFirst on the host network is Default; ClusterFirstWithHostNet keeps the cluster DNS', () => {
    const node = `search ${SUFFIX}\nnameserver 168.63.129.16\n`;
    assert.equal(conf({ dnsPolicy: 'ClusterFirst', hostNetwork: true }), node);
    assert.equal(conf({ dnsPolicy: 'Default' }), node);
    assert.equal(
      conf({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true }),
      `search shop.svc.cluster.local svc.cluster.local cluster.local ${SUFFIX}\nnameserver 10.0.0.10\noptions ndots:5\n`,
    );
  });

  it('None takes dnsConfig alone; dnsConfig is appended to the others, options merged by name', () => {
    assert.equal(
      conf({
        dnsPolicy: 'None',
        dnsConfig: {
          nameservers: ['1.2.3.4'],
          searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'],
          options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }],
        },
      }),
      'search ns1.svc.cluster-domain.example my.dns.search.suffix\nnameserver 1.2.3.4\noptions ndots:2 edns0\n',
    );
    assert.equal(
      conf({
        dnsConfig: {
          nameservers: ['10.0.0.10', '9.9.9.9'],
          searches: ['cluster.local', 'corp.example'],
          options: [
            { name: 'ndots', value: '1' },
            { name: 'timeout', value: '2' },
          ],
        },
      }),
      `search shop.svc.cluster.local svc.cluster.local cluster.local ${SUFFIX} corp.example\nnameserver 10.0.0.10\nnameserver 9.9.9.9\noptions ndots:1 timeout:2\n`,
    );
  });

  it('cuts to 3 nameservers and 32 search domains, and never writes a line a user smuggled in', () => {
    const r = podResolverConfig(
      pod({
        dnsPolicy: 'None',
        dnsConfig: { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4'], searches: Array.from({ length: 40 }, (_, i) => `d${i}.example`) },
      }),
      KUBELET,
    );
    assert.deepEqual(r.nameservers, ['1.1.1.1', '2.2.2.2', '3.3.3.3']);
    assert.equal(r.searches.length, 32);
    assert.equal(conf({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1\nnameserver 6.6.6.6'], options: [{ name: 'a b' }] } }), '');
  });
});

describe('pod hosts', () => {
  it('the managed file with the pod IP and its FQDN when it has a subdomain, then hostAliases', () => {
    assert.equal(
      podHostsText(
        pod({ hostname: 'db-0', subdomain: 'db', hostAliases: [{ ip: '10.1.2.3', hostnames: ['foo.local', 'bar.local'] }] }),
        ['10.244.0.7'],
        'cluster.local',
      ),
      '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\n' +
        'fe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n10.244.0.7\tdb-0.db.shop.svc.cluster.local\tdb-0\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\n10.1.2.3\tbar.local\n',
    );
    assert.match(podHostsText(pod({}), ['10.244.0.8'], 'cluster.local'), /\n10\.244\.0\.8\tweb-0\n$/);
    assert.match(podHostsText(pod({}, `${'a'.repeat(62)}-b`), ['10.244.0.8'], 'cluster.local'), new RegExp(`\\n10\\.244\\.0\\.8\\t${'a'.repeat(62)}\\n$`));
    assert.equal(
      podHostsText(pod({ hostNetwork: true }), ['10.224.0.4'], 'cluster.local', '127.0.0.1 localhost\n'),
      '# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n',
    );
  });

  it('written under the node root at the exported paths, removed when the pod goes; a hostile uid is no path', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aksemu-dns-files-'));
    try {
      const files = new PodDnsFiles(
        () => root,
        () => KUBELET,
        () => undefined,
      );
      const p = pod({});
      files.write(p, 'node-0', ['10.244.0.9']);
      await files.settled();
      const uid = p.metadata.uid!;
      assert.equal(podResolvConfPath(root, uid), join(root, 'var', 'lib', 'kubelet', 'pods', uid, 'resolv.conf'));
      assert.match(readFileSync(podResolvConfPath(root, uid), 'utf8'), /^search shop\.svc\.cluster\.local /);
      assert.match(readFileSync(podHostsPath(root, uid), 'utf8'), /10\.244\.0\.9\tweb-0/);
      files.remove('node-0', uid);
      await files.settled();
      assert.equal(existsSync(podResolvConfPath(root, uid)), false);
      assert.throws(() => podHostsPath(root, '../../etc'), /not a pod uid/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
