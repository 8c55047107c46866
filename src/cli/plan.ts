// `aksemu plan`: the offline IP planner and validator. Flags are az's (`az aks create`) plus the subnet and VNet
// the cluster would sit in. `-o json` prints one object; exit 0 when valid, 1 when not, 2 for unusable flags.
import { type Command, Option } from 'commander';
import type { PlanInput } from '../aks/plan.js';
import { CliUsageError } from '../aks/az-validators.js';
import { PLAN_FLAG_SPECS, planInput, planOutcome, type PlanFlags } from '../aks/plan-flags.js';
import { flagsText, n, renderPlanSvg, type PlanOutcome } from '../aks/plan-svg.js';

interface PlanCliFlags extends PlanFlags {
  output: OutputFormat;
  format?: OutputFormat;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const OUTPUT_FORMATS = ['json', 'table', 'svg'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function registerPlan(program: Command): void {
  const command = program.command('plan').description('Plan and validate a cluster network offline: defaults, AKS rules, IP capacity');
  for (const spec of PLAN_FLAG_SPECS) {
    if (spec.list) command.option(spec.flags, spec.help, collect, []);
    else if (spec.defaultValue !== undefined) command.option(spec.flags, spec.help, spec.defaultValue);
    else command.option(spec.flags, spec.help);
  }
  command
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
