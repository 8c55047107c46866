// The nearest designs that would pass, for an INVALID plan: a larger node subnet or pod CIDR, fewer nodes, fewer
// pods per node, or another network model. Each candidate is planned again by planCluster (the same rules), and only a
// valid one is offered, so a suggestion can never be something AKS would refuse. Pure, like plan.ts.
import { Cidr } from '../net/ip.js';
import { azureOverlay, networkModelOf } from './network-models/index.js';
import { parseCidrField } from './parsed-network.js';
import { planCluster, PlanInputError, type PlanInput, type PlanResult } from './plan.js';
import type { AgentPoolProfile, Problem } from './types.js';

export type SuggestionKind = 'larger-subnet' | 'larger-pod-cidr' | 'fewer-nodes' | 'fewer-pods-per-node' | 'network-model';

export interface PlanSuggestion {
  kind: SuggestionKind;
  /** What to change, as `aksemu plan`'s (and az's) flags: [flag, value]. */
  flags: Array<[string, string]>;
  /** One line for people. */
  summary: string;
  /** The re-planned design's figures. */
  maxNodes: number;
  maxPods: number;
  ipsRequired: number;
  usableIps: number;
}

/** AKS's floor for maxPods on a pool (docs/aks-rules.md §2.4 M1): the search never goes below it. */
const MIN_MAX_PODS = 10;
/** The widest prefix offered for a node subnet: beyond it a design is not "near" any more. */
const WIDEST_SUBNET_PREFIX = 8;

/** The plan of a candidate; undefined when the planner cannot start from it. */
function planOf(input: PlanInput): PlanResult | undefined {
  try {
    return planCluster(input);
  } catch (e) {
    if (e instanceof PlanInputError) return undefined;
    throw e;
  }
}

function replan(input: PlanInput): PlanResult | undefined {
  const r = planOf(input);
  return r?.valid ? r : undefined;
}

/** kubenet says InsufficientPodCidr; overlay says InsufficientSubnetSize of the pod CIDR (docs/aks-rules.md §2.5). */
const podCidrTooSmall = (e: Problem): boolean =>
  e.code === 'InsufficientPodCidr' || (e.code === 'InsufficientSubnetSize' && e.target === 'networkProfile.podCIDR');

/**
 * The candidate if it passes; else, when only its pod CIDR is too small for its nodes' /24s, the same design with
 * the first wider pod CIDR (same base address) that passes.
 */
function passingWithPodCidr(
  input: PlanInput,
  plan: PlanResult | undefined = planOf(input),
): { input: PlanInput; result: PlanResult; widened?: string } | undefined {
  if (!plan) return undefined;
  if (plan.valid) return { input, result: plan };
  const podCidr = plan.networkProfile.podCidr;
  const cidr = podCidr !== undefined ? parseCidrField(podCidr).value : undefined;
  if (!cidr || cidr.family !== 4 || !plan.errors.every(podCidrTooSmall)) return undefined;
  for (let prefix = cidr.prefix - 1; prefix >= WIDEST_SUBNET_PREFIX; prefix--) {
    const text = Cidr.of(4, cidr.network, prefix).toString();
    const wider = { ...input, networkProfile: { ...input.networkProfile, podCidr: text } };
    const result = replan(wider);
    if (result) return { input: wider, result, widened: text };
  }
  return undefined;
}

const withPool = (input: PlanInput, change: Partial<AgentPoolProfile>): PlanInput => ({
  ...input,
  agentPoolProfiles: input.agentPoolProfiles.map((p, i) => (i === 0 ? { ...p, ...change } : p)),
});

/** The largest n in [lo, hi] whose design passes, assuming "passes" holds for every n below one that passes. */
function largestPassing(lo: number, hi: number, at: (n: number) => PlanResult | undefined): { n: number; result: PlanResult } | undefined {
  if (hi < lo) return undefined;
  const low = at(lo);
  if (!low) return undefined;
  let best = { n: lo, result: low };
  let a = lo + 1;
  let b = hi;
  while (a <= b) {
    const mid = Math.floor((a + b) / 2);
    const r = at(mid);
    if (r) {
      best = { n: mid, result: r };
      a = mid + 1;
    } else b = mid - 1;
  }
  return best;
}

function suggestion(kind: SuggestionKind, flags: Array<[string, string]>, summary: string, r: PlanResult): PlanSuggestion {
  return {
    kind,
    flags,
    summary,
    maxNodes: r.capacity?.maxNodes ?? 0,
    maxPods: r.capacity?.maxPods ?? 0,
    ipsRequired: r.capacity?.ipsRequired ?? 0,
    usableIps: r.capacity?.usableIps ?? 0,
  };
}

/** The same base address with a shorter prefix, for the first prefix that passes; the VNet grows with it when it was the subnet itself. */
function largerSubnet(input: PlanInput, plan: PlanResult): PlanSuggestion | undefined {
  if (plan.subnet.managed || input.subnetCidr === undefined || input.subnetCidr.includes(',')) return undefined;
  const cidr = parseCidrField(input.subnetCidr).value;
  if (!cidr || cidr.family !== 4) return undefined;
  for (let prefix = cidr.prefix - 1; prefix >= WIDEST_SUBNET_PREFIX; prefix--) {
    const text = Cidr.of(4, cidr.network, prefix).toString();
    const r = replan({ ...input, subnetCidr: text });
    if (r) {
      const flags: Array<[string, string]> = [['--subnet-cidr', text]];
      return suggestion('larger-subnet', flags, `a /${prefix} node subnet (${text}) instead of /${cidr.prefix}`, r);
    }
  }
  return undefined;
}

function fewerNodes(input: PlanInput): PlanSuggestion | undefined {
  const pool = input.agentPoolProfiles[0];
  if (!pool) return undefined;
  if (pool.enableAutoScaling && pool.maxCount !== undefined) {
    const min = pool.minCount ?? 1;
    const found = largestPassing(min, pool.maxCount - 1, (n) => replan(withPool(input, { maxCount: n, count: Math.min(pool.count ?? min, n) })));
    if (!found) return undefined;
    return suggestion('fewer-nodes', [['--max-count', String(found.n)]], `the autoscaler up to ${found.n} nodes instead of ${pool.maxCount}`, found.result);
  }
  const count = pool.count ?? 1;
  const found = largestPassing(1, count - 1, (n) => replan(withPool(input, { count: n })));
  if (!found) return undefined;
  return suggestion('fewer-nodes', [['--node-count', String(found.n)]], `${found.n} nodes instead of ${count}`, found.result);
}

function fewerPodsPerNode(input: PlanInput, plan: PlanResult): PlanSuggestion | undefined {
  const current = plan.agentPoolProfiles[0]?.maxPods;
  if (current === undefined || !Number.isInteger(current)) return undefined;
  const found = largestPassing(MIN_MAX_PODS, current - 1, (n) => replan(withPool(input, { maxPods: n })));
  if (!found) return undefined;
  return suggestion('fewer-pods-per-node', [['--max-pods', String(found.n)]], `maxPods ${found.n} instead of ${current}`, found.result);
}

/** A wider pod CIDR, where the nodes' /24s are what does not fit (kubenet, overlay). */
function largerPodCidr(input: PlanInput, plan: PlanResult): PlanSuggestion | undefined {
  const found = passingWithPodCidr(input, plan);
  if (!found?.widened) return undefined;
  return suggestion(
    'larger-pod-cidr',
    [['--pod-cidr', found.widened]],
    `a pod CIDR of ${found.widened} instead of ${plan.networkProfile.podCidr}`,
    found.result,
  );
}

/** Azure CNI Overlay: nodes take one address of the subnet each and pods come from a private CIDR. */
function overlay(input: PlanInput, plan: PlanResult): PlanSuggestion | undefined {
  if (networkModelOf({ network: plan.networkProfile }) === azureOverlay) return undefined;
  // A pod CIDR given for kubenet or BYO CNI stays: overlay takes its pods from --pod-cidr too.
  const found = passingWithPodCidr({
    ...input,
    networkProfile: { ...input.networkProfile, networkPlugin: azureOverlay.plugin, networkPluginMode: azureOverlay.mode },
  });
  if (!found) return undefined;
  const flags: Array<[string, string]> = [
    ['--network-plugin', azureOverlay.plugin],
    ['--network-plugin-mode', azureOverlay.mode!],
  ];
  if (found.widened) flags.push(['--pod-cidr', found.widened]);
  const podCidr = found.result.networkProfile.podCidr;
  return suggestion('network-model', flags, `Azure CNI Overlay (pods from ${podCidr}, one subnet address per node)`, found.result);
}

/** The nearest passing designs for an invalid plan, one per kind at most, in the order above; [] for a valid plan. */
export function suggestDesigns(input: PlanInput, plan: PlanResult): PlanSuggestion[] {
  if (plan.valid) return [];
  const found = [largerSubnet(input, plan), largerPodCidr(input, plan), fewerNodes(input), fewerPodsPerNode(input, plan), overlay(input, plan)];
  return found.filter((s): s is PlanSuggestion => s !== undefined);
}
