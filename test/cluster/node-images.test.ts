// A pool's OS SKU on its nodes (issue 30, docs/aks-rules.md §3.9): a cluster made with osSKU AzureLinux and pools of
// Mariner, Ubuntu2204 and Windows2022, created through @azure/arm-containerservice and read with the real kubectl.
// Each node shows its pool's SKU (`kubernetes.azure.com/os-sku`), the OS image as that image reports it, and the
// `node-image-version` label equal to the pool's nodeImageVersion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aksClient, POLL } from '../containerservice/harness.js';
import { HAVE_KUBECTL, kubectl, withCluster } from './harness.js';

interface NodeJson {
  metadata: { labels: Record<string, string> };
  status: { nodeInfo: { osImage: string; operatingSystem: string; kubeletVersion: string; kernelVersion: string } };
}

/** What AKS's image of the SKU shows at a Kubernetes minor: [image family prefix, osImage, os]. */
function expected(sku: string, minor: number): [RegExp, string | RegExp, string] {
  switch (sku) {
    case 'AzureLinux':
      return minor >= 32
        ? [/^AKSAzureLinux-V3gen2-\d{6}\.\d{2}\.\d+$/, 'Microsoft Azure Linux 3.0', 'linux']
        : [/^AKSAzureLinux-V2gen2-/, 'CBL-Mariner/Linux', 'linux'];
    case 'Mariner':
      return [/^AKSCBLMariner-V2gen2-\d{6}\.\d{2}\.\d+$/, 'CBL-Mariner/Linux', 'linux'];
    case 'Ubuntu2204':
      return [/^AKSUbuntu-2204gen2containerd-\d{6}\.\d{2}\.\d+$/, /^Ubuntu 22\.04\.\d+ LTS$/, 'linux'];
    default:
      return [/^AKSWindows-2022-containerd-20348\.\d+\.\d{6}$/, 'Windows Server 2022 Datacenter', 'windows'];
  }
}

test('nodes show their pool’s OS SKU and image; the pool’s nodeImageVersion is the nodes’ label', { skip: !HAVE_KUBECTL && 'no kubectl' }, () =>
  withCluster(
    { networkPlugin: 'azure' },
    async (env) => {
      const aks = aksClient(env.server);
      for (const [name, extra] of [
        ['mar', { osSKU: 'Mariner' }],
        ['u22', { osSKU: 'Ubuntu2204' }],
        ['win1', { osType: 'Windows', osSKU: 'Windows2022' }],
      ] as const) {
        const made = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', name, { count: 1, vmSize: 'Standard_DS2_v2', mode: 'User', ...extra }, POLL);
        assert.equal(made.provisioningState, 'Succeeded');
      }
      const pools = new Map<string, { osSKU?: string; nodeImageVersion?: string }>();
      for await (const p of aks.agentPools.list('rg', 'c1')) pools.set(p.name!, p);
      assert.equal(pools.get('nodepool1')!.osSKU, 'AzureLinux');

      const got = await kubectl(env, ['get', 'nodes', '-o', 'json']);
      assert.equal(got.code, 0, got.stderr);
      const nodes = (JSON.parse(got.stdout) as { items: NodeJson[] }).items;
      assert.equal(nodes.length, 5);
      const seen = new Set<string>();
      for (const node of nodes) {
        const labels = node.metadata.labels;
        const pool = pools.get(labels['agentpool']!)!;
        const minor = Number(/^v1\.(\d+)\./.exec(node.status.nodeInfo.kubeletVersion)![1]);
        const [image, osImage, os] = expected(pool.osSKU!, minor);
        assert.equal(labels['kubernetes.azure.com/os-sku'], pool.osSKU, labels['agentpool']);
        assert.equal(labels['kubernetes.azure.com/node-image-version'], pool.nodeImageVersion, 'the pool reports the image its nodes run');
        assert.match(pool.nodeImageVersion!, image);
        if (typeof osImage === 'string') assert.equal(node.status.nodeInfo.osImage, osImage);
        else assert.match(node.status.nodeInfo.osImage, osImage);
        assert.equal(node.status.nodeInfo.operatingSystem, os);
        assert.equal(labels['kubernetes.io/os'], os);
        seen.add(labels['agentpool']!);
      }
      assert.deepEqual([...seen].sort(), ['mar', 'nodepool1', 'u22', 'win1']);

      // kubectl's wide table shows the OS image column as AKS's does.
      const wide = await kubectl(env, ['get', 'nodes', '-o', 'wide', '-l', 'agentpool=mar']);
      assert.equal(wide.code, 0, wide.stderr);
      assert.match(wide.stdout, /CBL-Mariner\/Linux\s+5\.15\.\S+\.cm2\s+containerd:\/\//);
    },
    { osSKU: 'AzureLinux', count: 2 },
  ),
);
