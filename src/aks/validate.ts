// Runs the rule table for one operation and reports every problem at once, errors and warnings apart.
import type { ApiVersionProfile } from './api-versions.js';
import { resolveCluster, type ResolvedCluster } from './defaults.js';
import type { NetworkEnvironment } from './environment.js';
import { parseNetwork, type ParsedNetwork } from './parsed-network.js';
import { networkModelOf, type NetworkModel } from './network-models/index.js';
import type { Phase, RuleContext } from './rule-context.js';
import { formatMessage, RULES, type Rule } from './rules.js';
import type { ManagedClusterSpec, Problem } from './types.js';

export interface ValidationInput {
  spec: ManagedClusterSpec;
  api: ApiVersionProfile;
  phase?: Phase;
  env?: NetworkEnvironment;
  previous?: ResolvedCluster;
  poolName?: string;
  upgradePools?: string[];
}

export interface ValidationResult {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
  cluster: ResolvedCluster;
  parsed: ParsedNetwork;
  model?: NetworkModel;
}

export function validateCluster(input: ValidationInput): ValidationResult {
  const cluster = resolveCluster(input.spec, input.api);
  const model = networkModelOf(cluster);
  const ctx: RuleContext = {
    phase: input.phase ?? 'create',
    api: input.api,
    raw: input.spec,
    cluster,
    parsed: parseNetwork(cluster),
    env: input.env ?? { subnets: {} },
  };
  if (model) ctx.model = model;
  if (input.previous) ctx.previous = input.previous;
  if (input.poolName !== undefined) ctx.poolName = input.poolName;
  if (input.upgradePools) ctx.upgradePools = input.upgradePools;

  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const seen = new Set<string>();
  for (const rule of RULES) {
    if (!rule.phases.includes(ctx.phase)) continue;
    // A model-specific rule runs only for the models that enable it (network-models/model.ts RuleHooks).
    if (rule.perModel && !model?.rules.enables.includes(rule.id)) continue;
    for (const problem of runRule(rule, ctx)) {
      const key = `${problem.code}\u0000${problem.target}\u0000${problem.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      (rule.severity === 'error' ? errors : warnings).push(problem);
    }
  }
  const result: ValidationResult = { valid: errors.length === 0, errors, warnings, cluster, parsed: ctx.parsed };
  if (model) result.model = model;
  return result;
}

function runRule(rule: Rule, ctx: RuleContext): Problem[] {
  return rule.check(ctx).map((f) => ({
    code: rule.code,
    message: formatMessage(rule.message, f.params),
    target: f.target ?? rule.target,
    rule: rule.id,
  }));
}
