// Nested deployments (Microsoft.Resources/deployments inside a template; what every Bicep module
// compiles to). The parent evaluates the resource's body like any other, except that with
// `expressionEvaluationOptions.scope: "inner"` the inner template is left as written: it is a
// template of its own, evaluated in its own scope when the nested deployment runs (its parameters
// are the values the parent passes, evaluated in the parent's scope). With `outer` (the default) the
// inner template's expressions are the parent's, evaluated before the nested deployment starts.
import type { DeploymentContext } from './context.js';
import { evaluateDeep, type Leaf } from './expression/evaluate.js';
import { isObject } from './functions/types.js';
import { memberKey } from './members.js';
import { isNestedDeployment, resourceBody, withFrames, type ResourceInstance } from './resources.js';

/** properties.expressionEvaluationOptions.scope, evaluated: true for "inner" (any case). */
export function isInnerScope(ctx: DeploymentContext, inst: ResourceInstance, leaf?: Leaf): boolean {
  if (!isNestedDeployment(inst.type)) return false;
  const props = member(inst.decl, 'properties');
  const options = isObject(props) ? member(props, 'expressionEvaluationOptions') : undefined;
  const scope = isObject(options) ? member(options, 'scope') : undefined;
  if (scope === undefined) return false;
  const value = withFrames(ctx, inst.frames, () => evaluateDeep(scope, ctx, leaf));
  return typeof value === 'string' && value.toLowerCase() === 'inner';
}

function member(target: Record<string, unknown>, name: string): unknown {
  const key = memberKey(target, name);
  return key === undefined ? undefined : target[key];
}

/**
 * The body of an inner-scope nested deployment: everything evaluated in the parent's scope but
 * properties.template, which goes to the nested deployment as written.
 */
export function innerDeploymentBody(ctx: DeploymentContext, inst: ResourceInstance, leaf?: Leaf): Record<string, unknown> {
  const body = resourceBody(inst.decl);
  const propsKey = memberKey(body, 'properties');
  const props = propsKey === undefined ? undefined : body[propsKey];
  if (!isObject(props)) return withFrames(ctx, inst.frames, () => evaluateDeep(body, ctx, leaf)) as Record<string, unknown>;
  const templateKey = memberKey(props, 'template');
  const rest = Object.fromEntries(Object.entries(props).filter(([k]) => k !== templateKey));
  const evaluated = withFrames(ctx, inst.frames, () => evaluateDeep({ ...body, [propsKey!]: rest }, ctx, leaf)) as Record<string, unknown>;
  if (templateKey !== undefined) (evaluated[propsKey!] as Record<string, unknown>)[templateKey] = props[templateKey];
  return evaluated;
}

/** The nested deployment's request as the parent made it: its template and {name: {value}} parameters. */
export function nestedRequest(body: Record<string, unknown>): { template: unknown; parameters: Record<string, unknown> } | undefined {
  const props = member(body, 'properties');
  if (!isObject(props)) return undefined;
  const parameters = member(props, 'parameters');
  return { template: member(props, 'template'), parameters: isObject(parameters) ? parameters : {} };
}
