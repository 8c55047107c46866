// The deployment engine: planDeployment() validates a template against its parameters (everything
// ARM checks before it deploys: parameters, variables, names, copy counts, conditions, dependencies,
// and every resource body except what only the running deployment knows), and runPlan() deploys the
// resources in dependency order through a ResourceDeployer — the same resource providers direct
// calls reach — then evaluates the outputs.
import { ArmError, deploymentFailed, invalidTemplate, deploymentOutputEvaluationFailed, templateSentences, type ArmErrorBody } from '../arm/errors.js';
import { DeploymentContext, type DeploymentScope } from './context.js';
import { resolveDependencies, deploymentOrder, findInstances } from './dependencies.js';
import { evaluateCopy, evaluateDeep, evaluateString, type Leaf } from './expression/evaluate.js';
import { DeferredEvaluation, type EvalEnv } from './expression/env.js';
import { measure } from './expression/measure.js';
import { TemplateLanguageError } from './expression/parser.js';
import { armHash64 } from './functions/hash.js';
import { LIMITS, limitExceeded } from './limits.js';
import { violationAt } from './violations.js';
import { displayType, isSecure } from './parameters.js';
import { expandResources, isNestedDeployment, resourceBody, resourceError, withFrames, type ResourceInstance } from './resources.js';
import { checkFunctions } from './functionScan.js';
import { innerDeploymentBody, isInnerScope, nestedRequest } from './nested.js';
import { readTemplate, type Template } from './template.js';
import { baseTypeOf, isUserType, typeProblem, type TypeDecl } from './userTypes.js';
import { sameId } from '../ids/compare.js';
import { setOwn } from '../http/own.js';

type GroupInfo = NonNullable<DeploymentScope['resourceGroup']>;

interface PlanInput {
  /** The template as parsed JSON (positions kept when it came from parseJsonc). */
  template: unknown;
  /** {name: {value}}, as the deployment request carries them. */
  parameters?: Record<string, unknown>;
  scope: DeploymentScope;
  /** The resource groups that exist, so nested deployments into them are validated with the parent. */
  groups?: (subscriptionId: string, name: string) => GroupInfo | undefined;
  /** Nested deployments validated so far in this tree (shared by every level), and when it began. */
  tree?: { nested: number; startedAt: number };
}

export interface Plan {
  ctx: DeploymentContext;
  template: Template;
  /** Every instance in the order it deploys (condition-false ones included, deploy = false). */
  order: ResourceInstance[];
  templateHash: string;
  /** Bodies as validation could evaluate them; expressions of reference()/list*() kept as written. */
  preview: Map<ResourceInstance, Record<string, unknown>>;
  /** Nested deployments validated with the parent (those whose parameters validation knows). */
  nested: Map<ResourceInstance, Plan>;
}

/** What the engine needs from ARM to deploy: the providers, reached in-process. */
export interface ResourceDeployer {
  /** PUTs the resource; returns the provider's status and body. Throws ArmError on failure. */
  put(instance: ResourceInstance, body: Record<string, unknown>): { status: number; body: unknown };
  /** GETs a resource (reference()). */
  get(resourceId: string, apiVersion: string): unknown;
  /** POSTs an action (list*()). */
  post(path: string, apiVersion: string, body: unknown): unknown;
  /** The api-version to read a resource outside the template with, when reference() names none. */
  defaultApiVersion(resourceId: string): string;
}

export interface ResourceOutcome {
  instance: ResourceInstance;
  status: 'Succeeded' | 'Failed';
  /** HTTP status text of the provider's answer, as deployment operations show it (Created, OK, BadRequest). */
  statusCode: string;
  startTime: string;
  endTime: string;
  error?: ArmErrorBody;
}

export type OutputValues = Record<string, { type: string; value?: unknown }>;

type RunResult = { ok: true; outcomes: ResourceOutcome[]; outputs: OutputValues } | { ok: false; outcomes: ResourceOutcome[]; error: ArmError };

/** ARM's templateHash: a 64-bit hash of the template, in decimal. */
function templateHash(template: unknown): string {
  const [high, low] = armHash64(Buffer.from(JSON.stringify(template), 'utf8'));
  return ((BigInt(high) << 32n) | BigInt(low)).toString();
}

/** evaluateDeep's strings for a preview: a value only the running deployment knows stays as its expression. */
function previewLeaf(text: string, env: EvalEnv): unknown {
  try {
    return evaluateString(text, env);
  } catch (err) {
    if (err instanceof DeferredEvaluation) return text;
    throw err;
  }
}

/** A resource's evaluated body, within ARM's 1 MB for a resource definition. */
function resourceDefinition(ctx: DeploymentContext, inst: ResourceInstance, leaf?: Leaf): Record<string, unknown> {
  const body = isInnerScope(ctx, inst, leaf)
    ? innerDeploymentBody(ctx, inst, leaf)
    : (withFrames(ctx, inst.frames, () => evaluateDeep(resourceBody(inst.decl), ctx, leaf)) as Record<string, unknown>);
  const size = measure(body).size;
  if (size > LIMITS.resourceBytes) throw new TemplateLanguageError(limitExceeded('resource definition size', LIMITS.resourceBytes, size));
  return body;
}

export function planDeployment(given: PlanInput): Plan {
  // One count of nested deployments for the whole tree this plan heads.
  const input: PlanInput = given.tree ? given : { ...given, tree: { nested: 0, startedAt: Date.now() } };
  const template = readTemplate(input.template);
  // Every expression's functions are known before anything is evaluated or deployed.
  checkFunctions(input.template);
  const hash = templateHash(input.template);
  const ctx = new DeploymentContext(template, input.scope, input.parameters, hash);
  ctx.checkVariables();
  const instances = expandResources(ctx);
  resolveDependencies(ctx, instances);
  const order = deploymentOrder(instances);
  const preview = new Map<ResourceInstance, Record<string, unknown>>();
  const nested = new Map<ResourceInstance, Plan>();
  for (const inst of order) {
    if (!inst.deploy) continue;
    let deferred = false;
    const leaf: Leaf = (text, env) => {
      const value = previewLeaf(text, env);
      if (value === text && typeof value === 'string' && value.startsWith('[')) deferred = true;
      return value;
    };
    try {
      const body = resourceDefinition(ctx, inst, leaf);
      // ARM's 4 MB applies to the template once every copy is expanded.
      ctx.budget.expand(measure(body).size);
      preview.set(inst, body);
    } catch (err) {
      resourceError(ctx, inst.decl, inst.frames, inst.path, err);
    }
    // A nested deployment whose request validation knows in full is validated now, as ARM does
    // before anything deploys; one that waits for reference() is validated when it runs.
    if (isNestedDeployment(inst.type) && !inst.existing && !deferred) {
      const child = planNested(input, inst, preview.get(inst)!, order, preview);
      if (child) nested.set(inst, child);
    }
  }
  return { ctx, template, order, templateHash: hash, preview, nested };
}

const DEPLOYMENT_ID = /^\/subscriptions\/([^/]+)(?:\/resourceGroups\/([^/]+))?\/providers\/Microsoft\.Resources\/deployments\/([^/]+)$/i;

/** Validates a nested deployment in its own scope: the group it names (existing, or made by this template). */
function planNested(
  input: PlanInput,
  inst: ResourceInstance,
  body: Record<string, unknown>,
  order: readonly ResourceInstance[],
  preview: ReadonlyMap<ResourceInstance, Record<string, unknown>>,
): Plan | undefined {
  const request = nestedRequest(body);
  const match = DEPLOYMENT_ID.exec(inst.id);
  if (!request || !match) return undefined;
  const [, subscriptionId, groupName, deploymentName] = match;
  let group: GroupInfo | undefined;
  if (groupName !== undefined) {
    group = input.groups?.(subscriptionId!, groupName);
    if (!group) {
      // A group this template creates: its name and location as the template gives them.
      const made = order.find(
        (i) => i.type.toLowerCase() === 'microsoft.resources/resourcegroups' && sameId(i.id, `/subscriptions/${subscriptionId}/resourceGroups/${groupName}`),
      );
      const location = made && preview.get(made)?.['location'];
      if (typeof location !== 'string') return undefined;
      group = { id: made!.id, name: groupName, location };
    }
  }
  // The tree is bounded as its run is (aksemu's own limits, src/templates/limits.ts).
  const tree = input.tree!;
  tree.nested++;
  const elapsed = Date.now() - tree.startedAt;
  if (tree.nested > LIMITS.nestedDeployments || elapsed > LIMITS.deploymentTreeMs) {
    throw invalidTemplate(
      tree.nested > LIMITS.nestedDeployments
        ? limitExceeded('number of nested deployments in a deployment', LIMITS.nestedDeployments, tree.nested)
        : limitExceeded('time of a deployment with its nested deployments (ms)', LIMITS.deploymentTreeMs, elapsed),
      violationAt(inst.decl, inst.path),
    );
  }
  const location = body['location'];
  return planDeployment({
    tree,
    template: request.template,
    parameters: request.parameters,
    scope: {
      ...input.scope,
      subscriptionId: subscriptionId!,
      ...(group ? { resourceGroup: group } : { resourceGroup: undefined }),
      ...(typeof location === 'string' ? { location } : {}),
      deploymentName: deploymentName!,
    },
    ...(input.groups ? { groups: input.groups } : {}),
  });
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'NoContent',
  400: 'BadRequest',
  404: 'NotFound',
  409: 'Conflict',
  500: 'InternalServerError',
};

export function runPlan(plan: Plan, deployer: ResourceDeployer): RunResult {
  const { ctx, order } = plan;
  const read = (id: string, version: string, full: boolean): unknown => {
    const body = deployer.get(id, version) as Record<string, unknown>;
    return full ? { apiVersion: version, ...body } : (body['properties'] ?? {});
  };
  ctx.runtime = {
    reference(target, apiVersion, full) {
      const inTemplate = findInstances(order, target)[0];
      const id = target.startsWith('/') ? target : inTemplate?.id;
      if (id === undefined)
        throw new TemplateLanguageError(`The resource '${target}' referenced by reference() is not defined in the template; give its resource id.`);
      return read(id, apiVersion ?? inTemplate?.apiVersion ?? deployer.defaultApiVersion(id), full);
    },
    // The deployed copies of a languageVersion 2.0 copy loop, by copy index; a copy whose condition is false is left out.
    references(symbol, full) {
      const copies = findInstances(order, symbol).filter((i) => i.symbolIndex !== undefined && i.symbol?.toLowerCase() === symbol.toLowerCase());
      if (copies.length === 0)
        throw new TemplateLanguageError(
          `The template function 'references' expects the symbolic name of a resource collection (a copy loop) defined in the template; '${symbol}' is not one.`,
        );
      return copies
        .filter((i) => i.deploy && !i.existing)
        .sort((a, b) => a.symbolIndex! - b.symbolIndex!)
        .map((i) => read(i.id, i.apiVersion, full));
    },
    list(action, resourceId, apiVersion, body) {
      return deployer.post(`${resourceId}/${action}`, apiVersion, body);
    },
  };
  const outcomes: ResourceOutcome[] = [];
  try {
    for (const inst of order) {
      if (!inst.deploy) continue;
      const startTime = new Date().toISOString();
      try {
        if (inst.existing) {
          // An existing resource is read, not deployed: one that is not there fails the deployment
          // with its provider's answer (ResourceNotFound, …), as ARM reads it.
          deployer.get(inst.id, inst.apiVersion);
          continue;
        }
        const answer = deployer.put(inst, resourceDefinition(ctx, inst));
        outcomes.push({
          instance: inst,
          status: 'Succeeded',
          statusCode: STATUS_TEXT[answer.status] ?? String(answer.status),
          startTime,
          endTime: new Date().toISOString(),
        });
      } catch (err) {
        const error =
          err instanceof ArmError
            ? err.body
            : err instanceof TemplateLanguageError
              ? { code: 'InvalidTemplate', message: templateSentences.resourceNotValid(inst.name, 0, 0, err.message) }
              : undefined;
        if (!error) throw err;
        const status = err instanceof ArmError ? err.status : 400;
        outcomes.push({
          instance: inst,
          status: 'Failed',
          statusCode: STATUS_TEXT[status] ?? String(status),
          startTime,
          endTime: new Date().toISOString(),
          error,
        });
        // ARM stops scheduling once an operation failed; aksemu rolls the deployment back (see deployments).
        return { ok: false, outcomes, error: deploymentFailed([error]) };
      }
    }
    const outputs = evaluateOutputs(plan);
    if (outputs instanceof ArmError) return { ok: false, outcomes, error: outputs };
    return { ok: true, outcomes, outputs };
  } finally {
    ctx.runtime = undefined;
  }
}

function evaluateOutputs(plan: Plan): OutputValues | ArmError {
  const { ctx } = plan;
  const out: OutputValues = {};
  let size = 0;
  for (const [name, decl] of Object.entries(plan.template.outputs)) {
    try {
      if (decl.condition !== undefined && evaluateDeep(decl.condition, ctx) !== true) continue;
      const value = decl.copy ? evaluateCopy(decl.copy, name, ctx) : evaluateDeep(decl.value, ctx);
      // The outputs are stored with the deployment and listed with it: together, bounded.
      size += measure(value).size;
      if (size > LIMITS.outputsSize) throw new TemplateLanguageError(limitExceeded('size of the deployment outputs', LIMITS.outputsSize, size));
      const declaredType = decl.type ?? baseTypeOf(decl as TypeDecl, plan.template.definitions) ?? 'object';
      // An output's value must be of its type (with a user-defined type, member by member).
      // (languageVersion 1.0 returns what the expression made, as ARM did before typed outputs.)
      const problem =
        isUserType(decl as TypeDecl) || plan.template.languageVersion === '2.0' ? typeProblem(value, decl as TypeDecl, plan.template.definitions) : undefined;
      if (problem) throw new TemplateLanguageError(problem);
      const type = displayType(declaredType);
      // Secure outputs are not returned, as ARM does not return them.
      setOwn(out, name, isSecure(declaredType) ? { type } : { type, value });
    } catch (err) {
      if (err instanceof TemplateLanguageError) return deploymentOutputEvaluationFailed(name, err.message);
      if (err instanceof ArmError) return deploymentOutputEvaluationFailed(name, err.message);
      throw err;
    }
  }
  return out;
}

/** The parameters as GET deployment shows them: {name: {type, value}}, secure ones without value. */
export function renderParameters(plan: Plan): Record<string, { type: string; value?: unknown }> {
  const out: Record<string, { type: string; value?: unknown }> = {};
  for (const [name, decl] of Object.entries(plan.template.parameters)) {
    const declaredType = decl.type ?? baseTypeOf(decl as TypeDecl, plan.template.definitions) ?? 'object';
    const type = displayType(declaredType);
    setOwn(out, name, isSecure(declaredType) ? { type } : { type, value: plan.ctx.parameter(name) });
  }
  return out;
}
