// What template functions may ask of the deployment they run in. The engine implements it once per
// deployment; validation uses a variant whose runtime-only functions (reference, list*) defer.
import type { EvaluationBudget } from './budget.js';

export interface EvalEnv {
  /** What the deployment's evaluation may still spend. */
  readonly budget: EvaluationBudget;
  /** True in a subscription deployment: resourceId() without a group names a subscription resource. */
  readonly atSubscription?: boolean;
  parameter(name: string): unknown;
  variable(name: string): unknown;
  /** ARM's resourceGroup() object: id, name, type, location, managedBy, tags, properties. */
  resourceGroup(): Record<string, unknown>;
  subscription(): Record<string, unknown>;
  deployment(): Record<string, unknown>;
  environment(): Record<string, unknown>;
  /** The current iteration of the (named) copy loop. */
  copyIndex(loopName?: string): number;
  /** reference(): a deployed resource's properties (or the full resource). */
  reference(resourceIdOrName: string, apiVersion: string | undefined, full: boolean): unknown;
  /** references(): the deployed instances of a copy loop named by its symbolic name, by copy index. */
  references(symbol: string, full: boolean): unknown[];
  /** Runs fn with copyIndex(name) answering index (property copy loops). */
  inCopy<T>(name: string, index: number, fn: () => T): T;
  /** A user-defined function of the template (namespace.name), as a callable; undefined when none. */
  userFunction?(name: string): ((args: unknown[]) => unknown) | undefined;
  /** list*(): a resource's POST action (listKeys, listCredentials…). */
  list(action: string, resourceId: string, apiVersion: string, body: unknown): unknown;
  /** deployer(): the principal running the deployment ({objectId, tenantId, userPrincipalName}), where the deployment knows it. */
  deployer?(): Record<string, unknown>;
  /** managementGroup(): the management group of a management-group deployment. */
  managementGroup?(): Record<string, unknown>;
}

/** Thrown by a validation environment for functions only a running deployment can answer. */
export class DeferredEvaluation extends Error {
  constructor(readonly functionName: string) {
    super(`${functionName}() is evaluated when the deployment runs`);
    this.name = 'DeferredEvaluation';
  }
}

/**
 * The environments evaluating a parameter's default value right now: utcNow() and newGuid() are
 * allowed there only, since their value changes with every call.
 */
const inDefaults = new WeakMap<EvalEnv, number>();

/** Runs fn as the evaluation of a parameter's default value. */
export function inParameterDefault<T>(env: EvalEnv, fn: () => T): T {
  inDefaults.set(env, (inDefaults.get(env) ?? 0) + 1);
  try {
    return fn();
  } finally {
    inDefaults.set(env, inDefaults.get(env)! - 1);
  }
}

export function isInParameterDefault(env: EvalEnv): boolean {
  return (inDefaults.get(env) ?? 0) > 0;
}
