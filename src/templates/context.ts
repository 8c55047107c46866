// The evaluation context of one deployment: parameters, variables (evaluated lazily, once), the
// group/subscription/deployment objects, the copy loops being expanded, and — only while the
// deployment runs — reference() and list*(). During validation those two defer.
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import { EvaluationBudget } from './expression/budget.js';
import { evaluateCopy, evaluateDeep } from './expression/evaluate.js';
import { DeferredEvaluation, type EvalEnv } from './expression/env.js';
import { measure } from './expression/measure.js';
import { TemplateLanguageError } from './expression/parser.js';
import { isObject } from './functions/types.js';
import { bindParameters, displayType } from './parameters.js';
import type { Template } from './template.js';
import { typeProblem } from './userTypes.js';
import { violationAt } from './violations.js';
import { sameId } from '../ids/compare.js';

export interface DeploymentScope {
  subscriptionId: string;
  tenantId: string;
  subscriptionName: string;
  /** The group a resource-group deployment runs in; absent for a subscription deployment. */
  resourceGroup?: { id: string; name: string; location: string; tags?: Record<string, string>; managedBy?: string };
  /** A subscription deployment's location (deployment().location). */
  location?: string;
  deploymentName: string;
  /** https://host:port of this server (environment().resourceManager). */
  baseUrl: string;
}

/** What only a running deployment can answer. */
interface Runtime {
  reference(resourceIdOrName: string, apiVersion: string | undefined, full: boolean): unknown;
  references(symbol: string, full: boolean): unknown[];
  list(action: string, resourceId: string, apiVersion: string, body: unknown): unknown;
}

interface CopyFrame {
  name: string;
  index: number;
}

/**
 * The template as deployment() shows it (the deployment functions' reference): its sections as
 * written, the parameters' and outputs' types as ARM names them (Object, String…).
 */
function deployedTemplate(t: Template): Record<string, unknown> {
  const typed = (decls: Record<string, { type: string }>) =>
    Object.fromEntries(Object.entries(decls).map(([name, d]) => [name, { ...d, type: displayType(d.type) }]));
  return {
    ...(t.$schema !== undefined ? { $schema: t.$schema } : {}),
    contentVersion: t.contentVersion,
    ...(isObject(t.metadata) ? { metadata: t.metadata } : {}),
    ...(Object.keys(t.parameters).length > 0 ? { parameters: typed(t.parameters) } : {}),
    ...(Object.keys(t.variables).length > 0 ? { variables: t.variables } : {}),
    resources: t.resources,
    ...(Object.keys(t.outputs).length > 0 ? { outputs: typed(t.outputs) } : {}),
  };
}

export class DeploymentContext implements EvalEnv {
  private readonly variables = new Map<string, { name: string; value: unknown }>();
  private readonly evaluating = new Set<string>();
  private readonly resolveParameter: (name: string) => unknown;
  private readonly copies: CopyFrame[] = [];
  /** Set while the deployment runs; undefined during validation. */
  runtime: Runtime | undefined;
  readonly budget = new EvaluationBudget();

  constructor(
    readonly template: Template,
    readonly scope: DeploymentScope,
    supplied: Record<string, unknown> | undefined,
    readonly templateHash: string,
  ) {
    this.resolveParameter = bindParameters(template, supplied, () => this);
    // Every parameter is checked before anything else, as ARM validates them first.
    for (const name of Object.keys(template.parameters)) this.resolveParameter(name);
  }

  parameter(name: string): unknown {
    return this.resolveParameter(name);
  }

  variable(name: string): unknown {
    const key = name.toLowerCase();
    const cached = this.variables.get(key);
    if (cached) return cached.value;
    const declared = this.declaredVariable(name);
    if (this.evaluating.has(key)) throw new TemplateLanguageError(`The template variable '${declared.name}' refers to itself.`);
    this.evaluating.add(key);
    try {
      const value = declared.copy ? evaluateCopy(declared.copy, declared.name, this) : evaluateDeep(declared.value, this);
      // ARM's size limit applies to the template once variables are resolved.
      this.budget.expand(measure(value).size);
      this.variables.set(key, { name: declared.name, value });
      return value;
    } finally {
      this.evaluating.delete(key);
    }
  }

  /** Every variable, so validation reports a broken one even when nothing uses it. */
  checkVariables(): void {
    for (const name of Object.keys(this.template.variables)) {
      if (name.toLowerCase() === 'copy') {
        for (const c of this.template.variables[name] as Array<{ name: string }>) this.wrapVariable(c.name);
      } else this.wrapVariable(name);
    }
  }

  private wrapVariable(name: string): void {
    try {
      this.variable(name);
    } catch (err) {
      if (err instanceof DeferredEvaluation) return;
      if (err instanceof TemplateLanguageError) {
        throw invalidTemplate(
          templateSentences.variableNotValid(name, err.message),
          violationAt(this.template.variables, `properties.template.variables.${name}`),
        );
      }
      throw err;
    }
  }

  private declaredVariable(name: string): { name: string; value?: unknown; copy?: { name: string; count: unknown; input: unknown } } {
    const key = name.toLowerCase();
    for (const [k, v] of Object.entries(this.template.variables)) {
      if (k.toLowerCase() === 'copy' && Array.isArray(v)) {
        const loop = (v as Array<{ name: string; count: unknown; input: unknown }>).find((c) => c.name.toLowerCase() === key);
        if (loop) return { name: loop.name, copy: loop };
      } else if (k.toLowerCase() === key) return { name: k, value: v };
    }
    throw new TemplateLanguageError(templateSentences.variableNotFound(name));
  }

  /** Runs fn with copyIndex() answering `index` for loop `name`. */
  inCopy<T>(name: string, index: number, fn: () => T): T {
    this.copies.push({ name, index });
    try {
      return fn();
    } finally {
      this.copies.pop();
    }
  }

  copyIndex(loopName?: string): number {
    const frame = loopName === undefined ? this.copies[this.copies.length - 1] : [...this.copies].reverse().find((c) => sameId(c.name, loopName));
    if (!frame) {
      throw new TemplateLanguageError(
        loopName === undefined
          ? "The template function 'copyIndex' is not expected at this location. The function can only be used in a resource with copy specified. Please see https://aka.ms/arm-copy for usage details."
          : `The template copy name '${loopName}' is not found. Please see https://aka.ms/arm-copy for usage details.`,
      );
    }
    return frame.index;
  }

  /** Where the deployment's resources go: the group's id, or the subscription's. */
  get scopeId(): string {
    return this.scope.resourceGroup?.id ?? `/subscriptions/${this.scope.subscriptionId}`;
  }

  get atSubscription(): boolean {
    return this.scope.resourceGroup === undefined;
  }

  resourceGroup(): Record<string, unknown> {
    const g = this.scope.resourceGroup;
    // ARM's words for resourceGroup() in a subscription deployment (the name upper-cased, as ARM writes it).
    if (!g)
      throw new TemplateLanguageError(
        "The template function 'RESOURCEGROUP' is not expected at this location. Please see https://aka.ms/arm-template-expressions for usage details.",
      );
    return {
      id: g.id,
      name: g.name,
      type: 'Microsoft.Resources/resourceGroups',
      location: g.location,
      ...(g.managedBy ? { managedBy: g.managedBy } : {}),
      ...(g.tags ? { tags: g.tags } : {}),
      properties: { provisioningState: 'Succeeded' },
    };
  }

  subscription(): Record<string, unknown> {
    const s = this.scope;
    return { id: `/subscriptions/${s.subscriptionId}`, subscriptionId: s.subscriptionId, tenantId: s.tenantId, displayName: s.subscriptionName };
  }

  deployment(): Record<string, unknown> {
    const t = this.template;
    return {
      name: this.scope.deploymentName,
      // Deployments other than a group's have a location (docs: deployment() "location").
      ...(this.scope.location !== undefined && this.atSubscription ? { location: this.scope.location } : {}),
      properties: {
        template: deployedTemplate(t),
        templateHash: this.templateHash,
        parameters: {},
        mode: 'Incremental',
        provisioningState: 'Accepted',
      },
    };
  }

  environment(): Record<string, unknown> {
    const base = this.scope.baseUrl;
    return {
      name: 'aksemu',
      gallery: base,
      graph: base,
      portal: base,
      graphAudience: base,
      activeDirectoryDataLake: '',
      batch: '',
      media: '',
      sqlManagement: '',
      vmImageAliasDoc: '',
      resourceManager: `${base}/`,
      authentication: {
        loginEndpoint: `${base}/adfs`,
        audiences: ['https://management.core.windows.net/', 'https://management.azure.com/'],
        tenant: 'adfs',
        identityProvider: 'ADFS',
      },
      suffixes: {
        acrLoginServer: '.azurecr.io',
        azureDatalakeAnalyticsCatalogAndJob: '',
        azureDatalakeStoreFileSystem: '',
        azureFrontDoorEndpointSuffix: '',
        keyvaultDns: '.vault.azure.net',
        sqlServerHostname: '.database.windows.net',
        storage: 'core.windows.net',
      },
    };
  }

  reference(resourceIdOrName: string, apiVersion: string | undefined, full: boolean): unknown {
    if (!this.runtime) throw new DeferredEvaluation('reference');
    return this.runtime.reference(resourceIdOrName, apiVersion, full);
  }

  references(symbol: string, full: boolean): unknown[] {
    if (!this.runtime) throw new DeferredEvaluation('references');
    return this.runtime.references(symbol, full);
  }

  list(action: string, resourceId: string, apiVersion: string, body: unknown): unknown {
    if (!this.runtime) throw new DeferredEvaluation(action);
    return this.runtime.list(action, resourceId, apiVersion, body);
  }

  userFunction(name: string): ((args: unknown[]) => unknown) | undefined {
    const decl = this.template.functions.get(name.toLowerCase());
    if (!decl) return undefined;
    return (args) => {
      if (args.length !== decl.parameters.length) {
        throw new TemplateLanguageError(`The template function '${decl.name}' must have ${decl.parameters.length} parameter(s); ${args.length} were given.`);
      }
      const bound = new Map<string, unknown>();
      decl.parameters.forEach((p, i) => {
        const problem = typeof p.type === 'string' ? typeProblem(args[i], { type: p.type, nullable: true }, this.template.definitions) : undefined;
        if (problem) throw new TemplateLanguageError(`The parameter '${p.name}' of the template function '${decl.name}' is not valid: ${problem}.`);
        bound.set(p.name.toLowerCase(), args[i]);
      });
      return evaluateDeep(decl.output.value, new FunctionScope(this, decl.name, bound));
    };
  }
}

/**
 * The scope a user-defined function's output is evaluated in: its own parameters only — ARM gives
 * a function neither the template's parameters and variables nor reference() and list*().
 */
class FunctionScope implements EvalEnv {
  constructor(
    private readonly ctx: DeploymentContext,
    private readonly fn: string,
    private readonly args: Map<string, unknown>,
  ) {}
  get budget() {
    return this.ctx.budget;
  }
  get atSubscription() {
    return this.ctx.atSubscription;
  }
  private refuse(what: string): never {
    throw new TemplateLanguageError(
      `The template function '${what}' is not expected in the user-defined function '${this.fn}'. Please see https://aka.ms/arm-syntax-functions for usage details.`,
    );
  }
  parameter(name: string): unknown {
    if (!this.args.has(name.toLowerCase())) throw new TemplateLanguageError(templateSentences.parameterNotFound(name));
    return this.args.get(name.toLowerCase());
  }
  variable(): unknown {
    return this.refuse('variables');
  }
  resourceGroup() {
    return this.ctx.resourceGroup();
  }
  subscription() {
    return this.ctx.subscription();
  }
  deployment() {
    return this.ctx.deployment();
  }
  environment() {
    return this.ctx.environment();
  }
  copyIndex(): number {
    return this.refuse('copyIndex');
  }
  reference(): unknown {
    return this.refuse('reference');
  }
  references(): unknown[] {
    return this.refuse('references');
  }
  inCopy<T>(name: string, index: number, fn: () => T): T {
    return this.ctx.inCopy(name, index, fn);
  }
  list(action: string): unknown {
    return this.refuse(action);
  }
  userFunction(name: string) {
    return this.ctx.userFunction(name);
  }
}
