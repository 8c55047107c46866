// `aksemu plan` for an INVALID design: the nearest designs that would pass, as golden lists, each planned again
// through the binary with its flags applied (it must pass, with the figures the suggestion showed); the newest
// stable api-version as the default; the --nodes listing's columns; and the SVG picture of the seed's design
// (test/cli/golden/*.svg; UPDATE_GOLDEN=1 rewrites them).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NEWEST_STABLE_API_VERSION, SUPPORTED_API_VERSIONS } from '../../src/aks/api-versions.js';
import { aksemu, planJson } from './plan-run.js';

const GOLDEN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../test/cli/golden');

/** The args with each [flag, value] of a suggestion set: an existing flag's value replaced, a new one appended. */
function applied(args: string[], flags: Array<[string, string]>): string[] {
  const out = [...args];
  for (const [flag, value] of flags) {
    const at = out.indexOf(flag);
    if (at >= 0) out.splice(at, 2);
    out.push(flag, value);
  }
  return out;
}

const BYO = (cidr: string) => ['--subnet-cidr', cidr, '--vnet-cidr', '10.240.0.0/16'];

const CASES: Array<{ name: string; args: string[]; expect: Array<[string, string[]]> }> = [
  {
    name: 'the issue: 50 Azure CNI nodes in a /24',
    args: ['--network-plugin', 'azure', '-c', '50', ...BYO('10.240.0.0/24')],
    expect: [
      ['larger-subnet', ['--subnet-cidr', '10.240.0.0/21']],
      ['fewer-nodes', ['--node-count', '8']],
      ['network-model', ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay']],
    ],
  },
  {
    name: '9 Azure CNI nodes at maxPods 30 in a /24 (the doc example one node over)',
    args: ['--network-plugin', 'azure', '-c', '9', '--max-pods', '30', ...BYO('10.240.0.0/24')],
    expect: [
      ['larger-subnet', ['--subnet-cidr', '10.240.0.0/23']],
      ['fewer-nodes', ['--node-count', '8']],
      // 9 × (1 + 26) = 243 ≤ 251; 9 × 28 = 252 is one too many.
      ['fewer-pods-per-node', ['--max-pods', '26']],
      ['network-model', ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay']],
    ],
  },
  {
    name: 'the autoscaler up to 20 Azure CNI nodes in a /24',
    args: ['--network-plugin', 'azure', '--enable-cluster-autoscaler', '--min-count', '1', '--max-count', '20', ...BYO('10.240.0.0/24')],
    expect: [
      ['larger-subnet', ['--subnet-cidr', '10.240.0.0/22']],
      ['fewer-nodes', ['--max-count', '8']],
      ['network-model', ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay']],
    ],
  },
  {
    name: '300 kubenet nodes: the /16 pod CIDR holds 256 nodes',
    args: ['--network-plugin', 'kubenet', '-c', '300', ...BYO('10.240.0.0/16')],
    expect: [
      ['larger-pod-cidr', ['--pod-cidr', '10.244.0.0/15']],
      ['fewer-nodes', ['--node-count', '256']],
      ['network-model', ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay', '--pod-cidr', '10.244.0.0/15']],
    ],
  },
  {
    name: '500 kubenet nodes: over the 400-route limit; overlay needs a /15',
    args: ['--network-plugin', 'kubenet', '-c', '500', ...BYO('10.240.0.0/16')],
    expect: [
      ['fewer-nodes', ['--node-count', '256']],
      ['network-model', ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay', '--pod-cidr', '10.244.0.0/15']],
    ],
  },
  {
    name: '20 overlay nodes in a /28',
    args: ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay', '-c', '20', ...BYO('10.240.0.0/28')],
    expect: [
      ['larger-subnet', ['--subnet-cidr', '10.240.0.0/27']],
      ['fewer-nodes', ['--node-count', '11']],
    ],
  },
  {
    name: 'a DNS service IP outside the service CIDR: nothing near passes',
    args: ['--network-plugin', 'azure', '--dns-service-ip', '10.1.0.10'],
    expect: [],
  },
];

describe('aksemu plan: designs that would pass', () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const { code, plan } = await planJson(...c.args);
      assert.equal(code, 1);
      assert.equal(plan.valid, false);
      assert.deepEqual(
        plan.suggestions.map((s: { kind: string; flags: Array<[string, string]> }) => [s.kind, s.flags.flat()]),
        c.expect,
      );
      for (const s of plan.suggestions) {
        const again = await planJson(...applied(c.args, s.flags));
        assert.equal(again.code, 0, `${s.summary}: ${JSON.stringify(again.plan.errors)}`);
        assert.equal(again.plan.valid, true);
        assert.equal(again.plan.capacity.maxNodes, s.maxNodes, s.summary);
        assert.equal(again.plan.capacity.maxPods, s.maxPods, s.summary);
        assert.equal(again.plan.suggestions, undefined, 'a valid plan suggests nothing');
      }
    });
  }

  test('the table lists them with their flags', async () => {
    const r = await aksemu('plan', ...CASES[0]!.args);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /Designs that would pass \(each planned again by the same rules\):\n {2}a \/21 node subnet \(10\.240\.0\.0\/21\) instead of \/24: max nodes 65, max pods 1,950\n {4}--subnet-cidr 10\.240\.0\.0\/21\n/,
    );
  });
});

describe('aksemu plan: defaults and listings', () => {
  test('plans at the newest stable api-version unless told', async () => {
    assert.doesNotMatch(NEWEST_STABLE_API_VERSION, /preview/i);
    for (const v of SUPPORTED_API_VERSIONS) if (!/preview/i.test(v)) assert.ok(v <= NEWEST_STABLE_API_VERSION, v);
    const { plan } = await planJson('--network-plugin', 'none', '--pod-cidr', '10.10.0.0/16');
    assert.equal(plan.apiVersion, NEWEST_STABLE_API_VERSION);
    const told = await planJson('--network-plugin', 'none', '--pod-cidr', '10.10.0.0/16', '--api-version', '2022-06-01');
    assert.equal(told.plan.apiVersion, '2022-06-01');
  });

  test('--nodes: name, address and pods in columns', async () => {
    const r = await aksemu('plan', '--network-plugin', 'kubenet', '-c', '3', ...BYO('10.240.0.0/24'), '--nodes', '-n', 'myAKSCluster');
    assert.equal(r.code, 0);
    const { plan } = await planJson('--network-plugin', 'kubenet', '-c', '3', ...BYO('10.240.0.0/24'), '--nodes', '-n', 'myAKSCluster');
    const rows = r.stdout.split('\n').filter((l) => /^aks-nodepool1-\d{8}-vmss/.test(l));
    assert.equal(rows.length, 3);
    for (const [i, row] of rows.entries()) {
      const node = plan.nodes[i];
      assert.deepEqual(row.split(/\s{2,}/), [node.name, node.ip, `podCIDR ${node.podCidr}`]);
    }
  });
});

function golden(name: string, actual: string): void {
  const file = resolve(GOLDEN, name);
  if (process.env['UPDATE_GOLDEN']) writeFileSync(file, actual);
  assert.equal(actual, readFileSync(file, 'utf8'), `${name} differs (UPDATE_GOLDEN=1 rewrites it)`);
}

describe('aksemu plan --format svg', () => {
  test("the seed's design: BYO CNI with --pod-cidr 10.10.0.0/16, az's 3 nodes", async () => {
    const r = await aksemu('plan', '--network-plugin', 'none', '--pod-cidr', '10.10.0.0/16', '-c', '3', '--format', 'svg');
    assert.equal(r.code, 0);
    golden('plan-seed-byo.svg', r.stdout);
    const { plan } = await planJson('--network-plugin', 'none', '--pod-cidr', '10.10.0.0/16', '-c', '3');
    // Every figure of the plan is in the picture's text.
    for (const figure of [plan.capacity.usableIps, plan.capacity.maxNodes, plan.capacity.maxPods]) {
      assert.ok(r.stdout.includes(figure.toLocaleString('en-US')), String(figure));
    }
    assert.match(r.stdout, /<title id="t">AKS network plan: valid<\/title>/);
  });

  test('an INVALID design: its error and the designs that would pass', async () => {
    const r = await aksemu('plan', ...CASES[0]!.args, '-o', 'svg');
    assert.equal(r.code, 1);
    golden('plan-azure-50-nodes.svg', r.stdout);
    assert.match(r.stdout, /\(InsufficientSubnetSize\) Pre-allocated IPs 1550 exceeds IPs available 251/);
    assert.match(r.stdout, /--subnet-cidr 10\.240\.0\.0\/21/);
  });

  test('text from the user is escaped', async () => {
    const r = await aksemu('plan', '--network-plugin', 'azure', '--subnet-name', '<x&y>', ...BYO('10.240.0.0/28'), '-c', '3', '--format', 'svg');
    assert.equal(r.code, 1);
    assert.ok(r.stdout.includes('&lt;x&amp;y&gt;'));
    assert.ok(!r.stdout.includes('<x&y>'));
  });
});
