// The documented IP examples (docs/aks-rules.md §4) and bad input, through the real `aksemu plan` binary.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aksemu, planJson } from './plan-run.js';

const BYO24 = ['--subnet-cidr', '10.240.0.0/24', '--vnet-cidr', '10.240.0.0/16'];
/**
 * The planning docs' examples assume the defaults of their day (kubenet by default, maxPods 110, maxSurge 1), which
 * are those of api-version 2022-06-01; `plan` itself plans at the newest stable version unless told.
 */
const DOC_DEFAULTS = ['--api-version', '2022-06-01'];

describe('aksemu plan: the documented examples', () => {
  test('E1 kubenet /24: up to 251 nodes and 27,610 pods', async () => {
    const { code, plan } = await planJson('--network-plugin', 'kubenet', ...BYO24);
    assert.equal(code, 0);
    assert.equal(plan.valid, true);
    assert.equal(plan.capacity.usableIps, 251);
    assert.equal(plan.capacity.maxNodes, 251);
    assert.equal(plan.capacity.maxPods, 27610);
    assert.deepEqual(plan.errors, []);
  });

  test('E2 Azure CNI /24 at maxPods 30: 8 nodes, 240 pods', async () => {
    const { code, plan } = await planJson('--network-plugin', 'azure', '--node-count', '8', ...BYO24);
    assert.equal(code, 0);
    assert.equal(plan.agentPoolProfiles[0].maxPods, 30);
    assert.equal(plan.capacity.maxNodes, 8);
    assert.equal(plan.capacity.maxPods, 240);
    assert.equal(plan.capacity.ipsRequired, 248);
    // The doc ignores surge: an upgrade's ninth node would not fit.
    assert.deepEqual(plan.upgrade, { surgeNodes: 1, ipsRequired: 279, ipsAvailable: 251, fits: false });
  });

  test('E2 Azure CNI /24 with 9 nodes: InsufficientSubnetSize, Pre-allocated IPs 279, exit 1', async () => {
    const { code, plan } = await planJson('--network-plugin', 'azure', '-c', '9', '--subnet-name', 'aks-subnet', ...BYO24);
    assert.equal(code, 1);
    assert.equal(plan.valid, false);
    assert.deepEqual(plan.errors, [
      {
        code: 'InsufficientSubnetSize',
        message:
          'Pre-allocated IPs 279 exceeds IPs available 251 in Subnet Cidr 10.240.0.0/24, Subnet Name aks-subnet. http://aka.ms/aks/insufficientsubnetsize',
        target: 'agentPoolProfile.count',
        rule: 'K1',
      },
    ]);
  });

  test('E3 kubenet /27: 27 addresses, 20 to 25 nodes leave room to scale and upgrade, 2,200-2,750 pods', async () => {
    const sub = ['--subnet-cidr', '10.240.0.0/27', '--vnet-cidr', '10.240.0.0/16', '--pod-cidr', '10.244.0.0/19'];
    const small = await planJson(...DOC_DEFAULTS, ...sub, '-c', '20');
    assert.equal(small.plan.capacity.usableIps, 27);
    assert.equal(small.plan.capacity.maxNodes, 27);
    assert.equal(small.plan.agentPoolProfiles[0].count * small.plan.agentPoolProfiles[0].maxPods, 2200);
    const big = await planJson(...DOC_DEFAULTS, ...sub, '-c', '25');
    assert.equal(big.code, 0);
    assert.equal(big.plan.upgrade.fits, true);
    assert.equal(big.plan.agentPoolProfiles[0].count * big.plan.agentPoolProfiles[0].maxPods, 2750);
    // The pod CIDR must hold 25 /24s: a /20 (16 blocks) is too small.
    const tight = await planJson(...DOC_DEFAULTS, '--subnet-cidr', '10.240.0.0/27', '--vnet-cidr', '10.240.0.0/16', '--pod-cidr', '10.244.0.0/20', '-c', '25');
    assert.equal(tight.plan.errors[0].code, 'InsufficientPodCidr');
  });

  test('E4 planning formula: 50 nodes + 1 surge at 30 pods = 1,581 addresses → /21; 60 nodes → 1,891', async () => {
    const fifty = await planJson(...DOC_DEFAULTS, '--network-plugin', 'azure', '-c', '50', '--max-pods', '30');
    assert.equal(fifty.plan.capacity.ipsRequiredForUpgrade, 1581);
    assert.equal(fifty.plan.capacity.minimumSubnetPrefix, 21);
    const sixty = await planJson(...DOC_DEFAULTS, '--network-plugin', 'azure', '-c', '60', '--max-pods', '30');
    assert.equal(sixty.plan.capacity.ipsRequiredForUpgrade, 1891);
    assert.equal(sixty.plan.capacity.minimumSubnetPrefix, 21);
    const onTwentyTwo = await planJson('--network-plugin', 'azure', '-c', '50', '--subnet-cidr', '10.240.0.0/22', '--vnet-cidr', '10.240.0.0/16');
    assert.equal(onTwentyTwo.plan.upgrade.fits, false);
  });

  test('E5 InsufficientSubnetSize samples: 3 × 111 = 333, 10 × 31 = 310, 5 × 101 = 505 against 251', async () => {
    for (const [count, maxPods, n] of [
      ['3', '110', 333],
      ['10', '30', 310],
      ['5', '100', 505],
    ] as const) {
      const { plan } = await planJson('--network-plugin', 'azure', '-c', count, '--max-pods', maxPods, ...BYO24);
      assert.match(plan.errors[0].message, new RegExp(`^Pre-allocated IPs ${n} exceeds IPs available 251 `));
    }
  });

  test('E8 the 400-node kubenet limit, and 400 nodes need a /15 pod CIDR', async () => {
    const big = [...DOC_DEFAULTS, '--subnet-cidr', '10.240.0.0/16', '--vnet-cidr', '10.240.0.0/16', '--max-pods', '250'];
    const ok = await planJson(...big, '-c', '400', '--pod-cidr', '10.100.0.0/15');
    assert.equal(ok.code, 0);
    assert.equal(ok.plan.capacity.maxNodes, 400);
    const over = await planJson(...big, '-c', '401', '--pod-cidr', '10.100.0.0/15');
    assert.equal(over.plan.errors[0].code, 'KubenetNodeCountExceedsRouteLimit');
    const sixteen = await planJson(...big, '-c', '400', '--pod-cidr', '10.100.0.0/16');
    assert.equal(sixteen.plan.errors[0].code, 'InsufficientPodCidr');
    assert.equal(sixteen.plan.errors[0].message, 'Pre-allocated IPs 102400 exceeds IPs available 65536 in Pod Cidr 10.100.0.0/16');
  });

  test('E9 maxPods 10 needs at least 3 nodes', async () => {
    for (const [count, valid] of [
      ['1', false],
      ['2', false],
      ['3', true],
    ] as const) {
      const { plan } = await planJson('--max-pods', '10', '-c', count);
      assert.equal(plan.valid, valid, `count ${count}`);
      if (!valid) assert.equal(plan.errors[0].code, 'InsufficientAgentPoolMaxPodsPerAgentPool');
    }
  });

  test("BYO CNI without a pod CIDR is valid with the seed warning; with the zh seed's pod CIDR no warning", async () => {
    const bare = await planJson('--network-plugin', 'none');
    assert.equal(bare.code, 0);
    assert.equal(bare.plan.networkProfile.networkPlugin, 'none');
    assert.equal(bare.plan.warnings[0].code, 'PodCidrMissingForByoCni');
    assert.equal(bare.plan.capacity.podCidr, undefined);
    const zh = await planJson('--network-plugin', 'none', '--pod-cidr', '10.10.0.0/16');
    assert.deepEqual(zh.plan.warnings, []);
  });

  test('--nodes lists node addresses and routes', async () => {
    const { plan } = await planJson('--network-plugin', 'kubenet', '-c', '2', '--nodes', '-n', 'myAKSCluster');
    assert.equal(plan.nodes.length, 2);
    assert.equal(plan.nodes[0].ip, '10.224.0.4');
    assert.match(plan.nodes[0].name, /^aks-nodepool1-\d{8}-vmss000000$/);
    assert.equal(plan.routes[1].addressPrefix, '10.244.1.0/24');
  });
});

describe('aksemu plan: bad input', () => {
  test('garbage CIDRs, IPv6 where IPv4 is required, and negative counts are errors, not crashes', async () => {
    const { code, plan } = await planJson('--pod-cidr', 'not/a/cidr', '--service-cidr', 'fd00::/108', '-c', '-2');
    assert.equal(code, 1);
    assert.deepEqual(plan.errors.map((e: { code: string }) => e.code).sort(), ['CidrStringParseError', 'InvalidParameter', 'UnexpectedIPVersionCIDR'].sort());
  });

  test('a non-integer count is a usage error (exit 2) on stderr, as az prints it', async () => {
    const r = await aksemu('plan', '-c', 'three');
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "ERROR: argument --node-count: invalid int value: 'three'\n");
    assert.equal(r.stdout, '');
  });

  test('the CLI-side checks of az (M8)', async () => {
    const cases: Array<[string[], string]> = [
      [['--nodepool-name', 'averyveryverylongname'], '--nodepool-name can contain at most 12 characters'],
      [['--nodepool-name', 'pool_1'], '--nodepool-name should contain only alphanumeric characters'],
      [['--max-surge', '0'], '--max-surge must be positive'],
      [['--max-surge', 'lots'], '--max-surge should be an int or percentage'],
      [['--enable-cluster-autoscaler', '--min-count', '1', '--max-count', '1001'], '--max-count must be in the range [0,1000]'],
      [['--enable-cluster-autoscaler', '--min-count', '-1', '--max-count', '3'], '--min-count must be in the range [0,1000]'],
    ];
    for (const [args, message] of cases) {
      const r = await aksemu('plan', ...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stderr, `ERROR: ${message}\n`);
    }
  });

  test('an unknown api-version and a subnet outside its VNet are reported as errors', async () => {
    const api = await planJson('--api-version', '2019-01-01');
    assert.equal(api.code, 1);
    assert.equal(api.plan.errors[0].code, 'InvalidApiVersionParameter');
    const outside = await planJson('--subnet-cidr', '10.1.0.0/24', '--vnet-cidr', '10.2.0.0/16');
    assert.equal(outside.plan.errors[0].code, 'NetcfgSubnetRangeOutsideVnet');
  });

  test('table output is a readable summary', async () => {
    const r = await aksemu('plan', '--network-plugin', 'azure', '-c', '9', ...BYO24);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^Network plugin +azure/m);
    assert.match(r.stdout, /^Max nodes +8$/m);
    assert.match(r.stdout, /^Result +INVALID$/m);
    assert.match(r.stdout, /\(InsufficientSubnetSize\) Pre-allocated IPs 279/);
  });
});

describe('aksemu plan: dual-stack (docs/aks-rules.md §9)', () => {
  test('--ip-families ipv4,ipv6 on a dual-stack subnet: IPv6 defaults, node addresses and /80s, a route per family', async () => {
    const { code, plan } = await planJson(
      '--network-plugin',
      'kubenet',
      '--ip-families',
      'ipv4,ipv6',
      '--subnet-cidr',
      '10.240.0.0/24,fd00:240::/64',
      '--vnet-cidr',
      '10.240.0.0/16,fd00:240::/48',
      '-c',
      '2',
      '--nodes',
    );
    assert.equal(code, 0, JSON.stringify(plan.errors));
    assert.deepEqual(plan.networkProfile.podCidrs, ['10.244.0.0/16', 'fd12:3456:789a::/64']);
    assert.deepEqual(plan.networkProfile.serviceCidrs, ['10.0.0.0/16', 'fd12:3456:789a:1::/108']);
    assert.deepEqual(
      plan.nodes.map((n: { ip: string; ipv6: string; podCidr: string; podCidrIPv6: string }) => [n.ip, n.ipv6, n.podCidr, n.podCidrIPv6]),
      [
        ['10.240.0.4', 'fd00:240::4', '10.244.0.0/24', 'fd12:3456:789a::/80'],
        ['10.240.0.5', 'fd00:240::5', '10.244.1.0/24', 'fd12:3456:789a:0:1::/80'],
      ],
    );
    assert.equal(plan.routes.length, 4);
  });

  test('a single-stack subnet for a dual-stack cluster is refused', async () => {
    const { code, plan } = await planJson('--network-plugin', 'kubenet', '--ip-families', 'ipv4,ipv6', ...BYO24);
    assert.equal(code, 1);
    assert.deepEqual(
      plan.errors.map((e: { code: string }) => e.code),
      ['VnetSubnetMissingIPv6'],
    );
  });
});

describe('aksemu plan: peered VNets and on-premises ranges (docs/aks-rules.md §2.1 C18, C19)', () => {
  const byCode = (plan: { warnings: Array<{ code: string; target: string; message: string }> }, code: string) =>
    plan.warnings.filter((w) => w.code === code).map((w) => `${w.target} ${w.message.split(':')[0]}`);

  test("the seed's advice: a 10.0.0.0/8 on-premises network against a kubenet cluster in 10.240.0.0/16", async () => {
    const { code, plan } = await planJson('--network-plugin', 'kubenet', ...BYO24, '--on-premises-cidr', 'datacenter=10.0.0.0/8');
    assert.equal(code, 0, 'a warning does not make the plan invalid');
    assert.equal(plan.valid, true);
    assert.deepEqual(byCode(plan, 'OnPremisesCidrOverlapping'), [
      "agentPoolProfile.vnetSubnetID The address space of virtual network 'aks-vnet' 10.240.0.0/16 overlaps 10.0.0.0/8 of on-premises network 'datacenter'",
      "networkProfile.podCIDR The pod CIDR 10.244.0.0/16 overlaps 10.0.0.0/8 of on-premises network 'datacenter'",
      "networkProfile.serviceCIDR The service CIDR 10.0.0.0/16 overlaps 10.0.0.0/8 of on-premises network 'datacenter'",
    ]);
    // The seed's recommendation, a VNet in 172.16.0.0/16 and ranges outside 10/8, draws no warning.
    const clear = await planJson(
      '--network-plugin',
      'kubenet',
      '--subnet-cidr',
      '172.16.0.0/24',
      '--vnet-cidr',
      '172.16.0.0/16',
      '--pod-cidr',
      '192.168.0.0/16',
      '--service-cidr',
      '172.17.0.0/16',
      '--dns-service-ip',
      '172.17.0.10',
      '--on-premises-cidr',
      'datacenter=10.0.0.0/8',
    );
    assert.deepEqual(clear.plan.warnings, []);
  });

  test('peered ranges per model: node subnet pods are in the VNet, overlay and BYO pods are not', async () => {
    const hub = ['--peered-cidr', 'hub=10.244.0.0/16,10.0.0.0/24'];
    const nodeSubnet = await planJson('--network-plugin', 'azure', ...BYO24, ...hub);
    assert.deepEqual(byCode(nodeSubnet.plan, 'VnetPeerCidrOverlapping'), [
      "networkProfile.serviceCIDR The service CIDR 10.0.0.0/16 overlaps 10.0.0.0/24 of peered virtual network 'hub'",
    ]);
    for (const model of [
      ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay'],
      ['--network-plugin', 'none', '--pod-cidr', '10.244.0.0/16'],
    ]) {
      const { plan } = await planJson(...model, ...BYO24, ...hub);
      assert.deepEqual(
        byCode(plan, 'VnetPeerCidrOverlapping').map((w) => w.split(' ')[0]),
        ['networkProfile.podCIDR', 'networkProfile.serviceCIDR'],
        model.join(' '),
      );
    }
    // A peered VNet whose space overlaps this one: ARM would refuse the peering itself.
    const same = await planJson('--network-plugin', 'kubenet', ...BYO24, '--peered-cidr', '10.240.128.0/17');
    assert.match(
      same.plan.warnings[0].message,
      /overlaps 10\.240\.128\.0\/17 of peered virtual network 'peered-vnet-1': Azure refuses to peer .*VnetAddressSpacesOverlap/,
    );
  });

  test('a range that is not a CIDR is a usage error (exit 2)', async () => {
    const r = await aksemu('plan', '--peered-cidr', 'hub=10.1.0.0/16,10.x/8');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--peered-cidr: '10\.x\/8' is not a CIDR/);
  });
});
