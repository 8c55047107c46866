// `aksemu plan`: the offline IP planner and validator. Flags are az's (`az aks create`) plus the subnet and VNet
// the cluster would sit in. `-o json` prints one object; exit 0 when valid, 1 when not, 2 for unusable flags.
import { type Command, Option } from 'commander';
import { NEWEST_STABLE_API_VERSION } from '../aks/api-versions.js';
import type { PlanInput } from '../aks/plan.js';
import { CliUsageError } from '../aks/az-validators.js';
import { DUAL_STACK_FLAGS } from '../aks/network-flags.js';
import { planInput, planOutcome, type PlanFlags } from '../aks/plan-flags.js';
import { flagsText, n, renderPlanSvg, type PlanOutcome } from '../aks/plan-svg.js';

interface PlanCliFlags extends PlanFlags {
  output: OutputFormat;
  format?: OutputFormat;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const OUTPUT_FORMATS = ['json', 'table', 'svg'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description('Plan and validate a cluster network offline: defaults, AKS rules, IP capacity')
    .option('--network-plugin <plugin>', 'none | kubenet | azure')
    .option('--network-plugin-mode <mode>', 'overlay (azure only, api-version 2023-02-01 and later)')
    .option('--network-policy <policy>', 'azure | calico | cilium | none')
    .option('--pod-cidr <cidr>', 'pod CIDR (kubenet, overlay, none)')
    .option('--service-cidr <cidr>', 'service CIDR (default 10.0.0.0/16)')
    .option('--dns-service-ip <ip>', 'DNS service IP (default 10.0.0.10)')
    .option(`${DUAL_STACK_FLAGS[0].option} <cidrs>`, DUAL_STACK_FLAGS[0].help)
    .option(`${DUAL_STACK_FLAGS[1].option} <cidrs>`, DUAL_STACK_FLAGS[1].help)
    .option(`${DUAL_STACK_FLAGS[2].option} <families>`, DUAL_STACK_FLAGS[2].help)
    .option('-m, --max-pods <n>', 'maximum pods per node')
    .option('-c, --node-count <n>', 'nodes in the first pool (default 1)')
    .option('--max-surge <n|%>', 'upgrade surge, e.g. 1 or 33%')
    .option('--os-type <type>', 'Linux | Windows')
    .option('--enable-cluster-autoscaler', 'size for --max-count instead of --node-count')
    .option('--min-count <n>', 'autoscaler minimum')
    .option('--max-count <n>', 'autoscaler maximum')
    .option('--nodepool-name <name>', 'first pool name (default nodepool1)')
    .option('-s, --node-vm-size <size>', 'VM size (default Standard_DS2_v2)')
    .option('-k, --kubernetes-version <version>', 'Kubernetes version, e.g. 1.32 or 1.32.9')
    .option('--windows-admin-username <name>', 'the windowsProfile admin user name (AKS generates azureuser otherwise)')
    .option('--subnet-cidr <cidr>', 'node subnet (default the managed 10.224.0.0/16); IPv4,IPv6 for a dual-stack subnet')
    .option('--subnet-name <name>', 'node subnet name (default aks-subnet)')
    .option('--pod-subnet-cidr <cidr>', 'a pod subnet in the VNet (Azure CNI with a pod subnet; needs --subnet-cidr)')
    .option('--pod-subnet-name <name>', 'pod subnet name (default pod-subnet)')
    .option('--pod-ip-allocation-mode <mode>', 'DynamicIndividual (16-address batches, default) | StaticBlock (/28 blocks)')
    .option('--vnet-cidr <cidr>', 'VNet address space (default the managed 10.224.0.0/12); comma-separated for several')
    .option('--peered-cidr <[name=]cidrs>', "a peered VNet's address space, comma-separated; repeat for each VNet", collect, [])
    .option('--on-premises-cidr <[name=]cidrs>', 'an on-premises range reached over ExpressRoute or a VPN; repeat for each', collect, [])
    .option('--api-version <version>', 'Microsoft.ContainerService api-version (default: the newest stable)', NEWEST_STABLE_API_VERSION)
    .option('-n, --name <name>', 'cluster name, seeds the node names')
    .option('--nodes', 'list every node with its addresses and routes')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .addOption(new Option('--format <format>', 'the same as --output').choices(OUTPUT_FORMATS))
    .action((flags: PlanCliFlags) => {
      process.exitCode = runPlan(flags, process.stdout, process.stderr);
    });
}

interface Writer {
  write(s: string): unknown;
}

function runPlan(flags: PlanCliFlags, out: Writer, err: Writer): number {
  let input: PlanInput;
  try {
    input = planInput(flags);
  } catch (e) {
    if (e instanceof CliUsageError) {
      err.write(`ERROR: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const result = planOutcome(input);
  const format = flags.format ?? flags.output;
  out.write(format === 'json' ? `${JSON.stringify(result, null, 2)}\n` : format === 'svg' ? renderPlanSvg(result) : renderTable(result));
  return result.valid ? 0 : 1;
}

function renderTable(r: PlanOutcome): string {
  const lines: string[] = [];
  const row = (k: string, v: string) => lines.push(`${k.padEnd(18)}${v}`);
  if ('networkProfile' in r) {
    const np = r.networkProfile;
    const mode = np.networkPluginMode ? ` (${np.networkPluginMode})` : '';
    row('Network plugin', `${np.networkPlugin}${mode}   api-version ${r.apiVersion}, Kubernetes ${r.kubernetesVersion}`);
    row('Pod CIDR', np.podCidr ?? '(none)');
    row('Service CIDR', `${np.serviceCidr}   DNS service IP ${np.dnsServiceIP}`);
    row('Node subnet', `${r.subnet.name} ${r.subnet.cidr}   VNet ${r.subnet.vnetCidr}${r.subnet.managed ? ' (managed)' : ''}`);
    for (const p of r.agentPoolProfiles) {
      const auto = p.enableAutoScaling ? `, autoscaler ${p.minCount}..${p.maxCount}` : '';
      row(`Pool ${p.name}`, `${p.count} × ${p.vmSize} (${p.osType}, ${p.mode}), maxPods ${p.maxPods}, maxSurge ${p.maxSurge}${auto}`);
    }
    if (r.capacity) {
      const c = r.capacity;
      row('Usable IPs', `${n(c.usableIps)}   (${c.ipsPerNode} per node)`);
      row('IPs required', `${n(c.ipsRequired)} at create, ${n(c.ipsRequiredForUpgrade)} during an upgrade`);
      if (c.minimumSubnetPrefix !== undefined) row('Smallest subnet', `/${c.minimumSubnetPrefix}`);
      if (c.podSubnet) {
        const ps = c.podSubnet;
        row('Pod subnet', `${ps.name} ${ps.cidr} (${ps.mode}): ${n(ps.availableIps)} IPs free, ${ps.ipsPerNode} per new node`);
        row('Pod IPs required', `${n(ps.ipsRequired)} at create`);
      }
      if (c.podCidr) row('Node /24 blocks', `${n(c.podCidr.blocksRequired)} of ${n(c.podCidr.nodeBlocks)} in ${c.podCidr.cidr}`);
      row('Max nodes', n(c.maxNodes));
      row('Max pods', n(c.maxPods));
    }
    if (r.upgrade && !r.upgrade.fits) {
      row('Upgrade', `needs ${n(r.upgrade.ipsRequired)} IPs with ${r.upgrade.surgeNodes} surge node(s); ${n(r.upgrade.ipsAvailable)} available`);
    }
    const nodes = r.nodes ?? [];
    // Node names are longer than the labels above: the listing gets a column as wide as its longest name.
    const nameWidth = Math.max(0, ...nodes.map((node) => node.name.length)) + 3;
    if (nodes.length > 0) lines.push('', `${'Node'.padEnd(nameWidth)}${'IP'.padEnd(16)}Pods`);
    for (const node of nodes) {
      const extra = node.podCidr
        ? `podCIDR ${node.podCidr}`
        : node.podSubnetIps
          ? `${node.podSubnetIps.length} pod-subnet IPs ${node.podSubnetBlocks?.join(' ') ?? `${node.podSubnetIps[0]}…${node.podSubnetIps.at(-1)}`}`
          : node.secondaryIps
            ? `${node.secondaryIps.length} pod IPs ${node.secondaryIps[0]}…${node.secondaryIps.at(-1)}`
            : 'pods: CNI-managed';
      lines.push(`${node.name.padEnd(nameWidth)}${node.ip.padEnd(16)}${extra}`);
    }
  }
  row('Result', r.valid ? 'valid' : 'INVALID');
  for (const [title, list] of [
    ['Errors', r.errors],
    ['Warnings', r.warnings],
  ] as const) {
    if (list.length === 0) continue;
    lines.push('', `${title}:`);
    for (const p of list) lines.push(`  (${p.code}) ${p.message}`, `    target: ${p.target}`);
  }
  if (r.suggestions?.length) {
    lines.push('', 'Designs that would pass (each planned again by the same rules):');
    for (const s of r.suggestions) {
      lines.push(`  ${s.summary}: max nodes ${n(s.maxNodes)}, max pods ${n(s.maxPods)}`, `    ${flagsText(s)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
