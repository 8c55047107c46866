// The README's "Use the real Azure CLI" and BYO CNI walk-through, run as written (readme-harness.ts): its shell blocks, in a shell whose `aksemu`
// is this checkout's, against a running server, with the real az and kubectl and a scratch HOME. The output must
// show what the README says: az's `podCidr: null` at its api-version, every node NotReady with the kubelet's message,
// then Ready once each node has its conflist, and pods with addresses from their own node's range. Then the
// `aksemu az` example of the next section, on the same home.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { AZ } from '../az/real-az-env.js';
import { HAVE_KUBECTL } from '../cluster/harness.js';
import { removeHome, startTestServer, tempHome } from '../e2e/harness.js';
import { ReaderShell, shellBlocks } from './readme-harness.js';

const NOT_READY =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';
const skip = !existsSync(AZ) ? `${AZ} is not installed` : !HAVE_KUBECTL ? 'kubectl is not installed' : false;

test('README walk-through: bring your own CNI, with the real az and kubectl', { skip }, async () => {
  const blocks = shellBlocks('### Walk-through: bring your own CNI');
  assert.equal(blocks.length, 2);
  const home = tempHome();
  const server = await startTestServer({ home });
  const shell = new ReaderShell(home);
  try {
    // "Use the real Azure CLI" first, on the fresh home, as a reader coming from the quick start would.
    const [useAz, ...others] = shellBlocks('### Use the real Azure CLI');
    assert.equal(others.length, 0);
    const versions = await shell.ok(useAz!);
    assert.match(versions.stdout, /^KubernetesVersion\s+Upgrades\n/);
    assert.match(versions.stdout, /^1\.32\.9\s+1\.33\.5$/m);

    const first = await shell.ok(blocks[0]!);
    // az 2.45 asks at 2022-11-01, which does not return a BYO CNI cluster's pod CIDR (the README says why).
    assert.match(first.stdout, /"podCidr": null/);
    // az prints its JSON first; kubectl's table ends the output.
    const lines = first.stdout.trim().split('\n');
    const table = lines.slice(lines.findIndex((l) => /^NAME\s+STATUS$/.test(l)));
    assert.match(table[0]!, /^NAME\s+STATUS$/);
    assert.equal(table.length, 4, first.stdout);
    for (const row of table.slice(1))
      assert.match(row, new RegExp(`^aks-nodepool1-\\d{8}-vmss00000\\d\\s+${NOT_READY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    // The pod CIDR was kept: an api-version that returns it answers with it.
    const kept = await shell.ok(
      `eval "$(aksemu az-env)"\naz rest --method get --url "$(az aks show -g myResourceGroup -n myAKSCluster --query id -o tsv)?api-version=2026-01-01" --query properties.networkProfile.podCidr -o tsv`,
    );
    assert.equal(kept.stdout.trim(), '10.10.0.0/16');

    // The second block runs in a new shell, as a reader pasting it would: it sets up az again.
    const second = await shell.ok(`eval "$(aksemu az-env)"\n${blocks[1]!}`);
    assert.equal((second.stdout.match(/Installed CNI network 'mynet' \(bridge\) on 1 node\(s\) of myAKSCluster/g) ?? []).length, 3, second.stdout);
    assert.equal((second.stdout.match(/condition met/g) ?? []).length, 3, second.stdout);
    assert.match(second.stdout, /deployment\.apps\/web created/);
    const nodes = await shell.ok('kubectl get nodes --no-headers');
    assert.equal(
      nodes.stdout
        .trim()
        .split('\n')
        .filter((l) => /\sReady\s+agent\s/.test(l)).length,
      3,
      nodes.stdout,
    );
    // Every pod on the pod network holds an address of its node's own /24, and no two hold the same.
    const names = (await shell.ok(`kubectl get nodes -o jsonpath='{.items[*].metadata.name}'`)).stdout.trim().split(' ');
    const pods = JSON.parse((await shell.ok('kubectl get pods -A -o json')).stdout).items.filter(
      (p: { spec: { hostNetwork?: boolean }; status: { podIP?: string } }) => !p.spec.hostNetwork && p.status.podIP,
    ) as { spec: { nodeName: string }; status: { podIP: string } }[];
    assert.ok(pods.length >= 2, 'pods have addresses');
    for (const p of pods)
      assert.ok(
        Cidr.parse(`10.10.${names.indexOf(p.spec.nodeName)}.0/24`).contains(IpAddress.parse(p.status.podIP)),
        `${p.status.podIP} on ${p.spec.nodeName}`,
      );
    assert.equal(new Set(pods.map((p) => p.status.podIP)).size, pods.length);

    // `aksemu az`'s example, on the same home after the walk-through: its cluster is one of its own.
    const [azBlock, ...more] = shellBlocks('## The emulator: `aksemu start` and `aksemu az`');
    assert.equal(more.length, 0);
    const listed = await shell.ok(azBlock!);
    const rows = listed.stdout.split('\n').filter((l) => /^my\w+Cluster\s/.test(l));
    assert.deepEqual(
      rows.map((l) => l.split(/\s+/)[0]),
      ['myAKSCluster', 'myOtherCluster'],
      listed.stdout,
    );
    for (const row of rows) assert.match(row, /\sSucceeded\s/);
  } finally {
    await server.close();
    removeHome(home);
    shell.remove();
  }
});
