// Expanding a template's resources into the instances a deployment creates: nested child resources
// get their full type and name (and depend on their parent), copy loops repeat a declaration with
// copyIndex() bound, and condition decides whether an instance is deployed.
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import type { DeploymentContext } from './context.js';
import { evaluateDeep } from './expression/evaluate.js';
import { DeferredEvaluation } from './expression/env.js';
import { TemplateLanguageError } from './expression/parser.js';
import { typeName } from './functions/typeName.js';
import { copyCountSentence, LIMITS, templateCountExceeded, validCopyCount } from './limits.js';
import { symbolicNames, type ResourceDecl } from './template.js';
import { violationAt } from './violations.js';

/** Members ARM reads itself; everything else is the body sent to the resource provider. */
const TEMPLATE_ONLY_MEMBERS = new Set([
  'type',
  'apiversion',
  'name',
  'condition',
  'dependson',
  'copy',
  'resources',
  'comments',
  'scope',
  'existing',
  'metadata',
  // A nested deployment's target (Microsoft.Resources/deployments): read by the engine, never sent.
  'resourcegroup',
  'subscriptionid',
]);

interface CopyFrame {
  name: string;
  index: number;
}

export interface ResourceInstance {
  /** Position in template order (parents before their children), the tie-break of the deploy order. */
  order: number;
  decl: ResourceDecl;
  /** e.g. properties.template.resources[0].resources[1] */
  path: string;
  frames: CopyFrame[];
  /** The copy loop this instance belongs to (dependsOn may name it). */
  copyName?: string;
  /** languageVersion 2.0: the resource's symbolic name (dependsOn and reference() name it), and with a copy loop its index. */
  symbol?: string;
  symbolIndex?: number;
  parent?: ResourceInstance;
  type: string;
  name: string;
  id: string;
  apiVersion: string;
  deploy: boolean;
  existing: boolean;
  /** Filled by dependencies.ts. */
  dependsOn: ResourceInstance[];
}

/** Evaluates with the instance's copy loops bound. */
export function withFrames<T>(ctx: DeploymentContext, frames: readonly CopyFrame[], fn: () => T): T {
  if (frames.length === 0) return fn();
  const [first, ...rest] = frames;
  return ctx.inCopy(first!.name, first!.index, () => withFrames(ctx, rest, fn));
}

/** The resource's name in ARM's messages: evaluated when possible, else as written. */
function displayName(ctx: DeploymentContext, decl: ResourceDecl, frames: CopyFrame[]): string {
  try {
    const name = withFrames(ctx, frames, () => evaluateDeep(decl.name, ctx));
    return typeof name === 'string' ? name : decl.name;
  } catch {
    return decl.name;
  }
}

/** Wraps a template-language failure in a resource as ARM's InvalidTemplate naming the resource. */
export function resourceError(ctx: DeploymentContext, decl: ResourceDecl, frames: CopyFrame[], path: string, err: unknown): never {
  if (err instanceof TemplateLanguageError) {
    const v = violationAt(decl, path);
    throw invalidTemplate(templateSentences.resourceNotValid(displayName(ctx, decl, frames), v?.lineNumber ?? 0, v?.linePosition ?? 0, err.message), v);
  }
  throw err;
}

export function expandResources(ctx: DeploymentContext): ResourceInstance[] {
  const out: ResourceInstance[] = [];

  const visit = (decl: ResourceDecl, path: string, frames: CopyFrame[], parent: ResourceInstance | undefined): void => {
    const evaluate = <T>(value: unknown, f: CopyFrame[]): T => {
      try {
        return withFrames(ctx, f, () => evaluateDeep(value, ctx)) as T;
      } catch (err) {
        if (err instanceof DeferredEvaluation) {
          throw invalidTemplate(
            `The template resource '${decl.name}' uses '${err.functionName}' where its value must be known before the deployment starts. Please see https://aka.ms/arm-template-expressions for usage details.`,
            violationAt(decl, path),
          );
        }
        return resourceError(ctx, decl, f, path, err);
      }
    };
    /** type, apiVersion and name: strings, whatever an expression in them makes (an object parameter as a
     *  name would otherwise become the resource '[object Object]'). */
    const text = (member: 'type' | 'apiVersion' | 'name', f: CopyFrame[]): string => {
      const value = evaluate<unknown>(decl[member], f);
      if (typeof value !== 'string')
        resourceError(
          ctx,
          decl,
          f,
          path,
          new TemplateLanguageError(`The resource '${member}' must be a string. The provided value is of type '${typeName(value)}'.`),
        );
      return value as string;
    };
    const iterations: CopyFrame[][] = [];
    if (decl.copy) {
      const count = validCopyCount(evaluate<unknown>(decl.copy.count, frames));
      if (count === undefined) {
        const v = violationAt(decl.copy, `${path}.copy`);
        throw invalidTemplate(copyCountSentence(v?.lineNumber ?? 0, v?.linePosition ?? 0), v);
      }
      for (let i = 0; i < count; i++) iterations.push([...frames, { name: decl.copy.name, index: i }]);
    } else iterations.push(frames);

    for (const f of iterations) {
      // ARM counts every instance, copies included, against its 800.
      if (out.length >= LIMITS.resources) throw templateCountExceeded('resources', out.length + 1);
      let type = text('type', f);
      let name = text('name', f);
      if (parent) {
        // Nested: a short type ("subnets") and name ("s1") extend the parent's.
        if (!type.includes('/')) type = `${parent.type}/${type}`;
        if (name.split('/').length < type.split('/').length - 1) name = `${parent.name}/${name}`;
      }
      const typeSegments = type.split('/');
      const nameSegments = name.split('/');
      if (nameSegments.length !== typeSegments.length - 1) {
        throw invalidTemplate(templateSentences.incorrectSegmentLengths(name, type), violationAt(decl, path));
      }
      const id = resourceInstanceId(
        ctx,
        type,
        nameSegments,
        targetOf(decl, (v) => evaluate<unknown>(v, f)),
      );
      const condition = decl.condition === undefined ? true : evaluate<unknown>(decl.condition, f);
      const instance: ResourceInstance = {
        order: out.length,
        decl,
        path,
        frames: f,
        ...(decl.copy ? { copyName: decl.copy.name } : {}),
        ...(symbolicNames.has(decl) ? { symbol: symbolicNames.get(decl)! } : {}),
        ...(symbolicNames.has(decl) && decl.copy ? { symbolIndex: f[f.length - 1]!.index } : {}),
        ...(parent ? { parent } : {}),
        type,
        name,
        id,
        apiVersion: text('apiVersion', f),
        deploy: condition === true && (parent?.deploy ?? true),
        existing: decl.existing === true,
        dependsOn: [],
      };
      out.push(instance);
      (decl.resources ?? []).forEach((child, i) => visit(child, `${path}.resources[${i}]`, f, instance));
    }
  };
  ctx.template.resources.forEach((decl, i) => visit(decl, `properties.template.resources[${i}]`, [], undefined));
  return out;
}

/** Where a nested deployment goes: its `subscriptionId` and `resourceGroup` members, evaluated. */
export interface DeploymentTarget {
  subscriptionId?: string;
  resourceGroup?: string;
}

function targetOf(decl: ResourceDecl, evaluate: (v: unknown) => unknown): DeploymentTarget | undefined {
  // Nested deployments, and existing resources of another group (Bicep's `existing` with `scope:`).
  if (!isNestedDeployment(decl.type) && decl.existing !== true) return undefined;
  const out: DeploymentTarget = {};
  for (const member of ['subscriptionId', 'resourceGroup'] as const) {
    const key = Object.keys(decl).find((k) => k.toLowerCase() === member.toLowerCase());
    if (key === undefined) continue;
    const value = evaluate(decl[key]);
    if (typeof value !== 'string' || value === '')
      throw invalidTemplate(
        `The '${member}' of the nested deployment '${decl.name}' must be a non-empty string. Please see https://aka.ms/arm-template/#resources for usage details.`,
        violationAt(decl, ''),
      );
    out[member] = value;
  }
  return out;
}

/** Microsoft.Resources/deployments: a deployment of its own (a nested template, a Bicep module). */
export function isNestedDeployment(type: string): boolean {
  return type.toLowerCase() === 'microsoft.resources/deployments';
}

/**
 * A resource's id in the deployment's scope. Resource groups live under the subscription itself;
 * a nested deployment goes to the group (or subscription) its `resourceGroup` and `subscriptionId`
 * name — a group alone stays in this subscription; a subscription alone is a subscription deployment.
 */
function resourceInstanceId(ctx: DeploymentContext, type: string, names: string[], target: DeploymentTarget | undefined): string {
  const [namespace, ...types] = type.split('/');
  const path = types.map((t, i) => `${t}/${names[i]}`).join('/');
  const sub = `/subscriptions/${target?.subscriptionId ?? ctx.scope.subscriptionId}`;
  if (type.toLowerCase() === 'microsoft.resources/resourcegroups') return `${sub}/resourceGroups/${names[0]}`;
  if (target?.resourceGroup !== undefined) return `${sub}/resourceGroups/${target.resourceGroup}/providers/${namespace}/${path}`;
  if (target?.subscriptionId !== undefined) return `${sub}/providers/${namespace}/${path}`;
  return `${ctx.scopeId}/providers/${namespace}/${path}`;
}

/** The body the resource provider receives: everything but the template's own members, evaluated. */
export function resourceBody(decl: ResourceDecl): Record<string, unknown> {
  return Object.fromEntries(Object.entries(decl).filter(([k]) => !TEMPLATE_ONLY_MEMBERS.has(k.toLowerCase())));
}
