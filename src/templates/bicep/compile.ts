// Bicep → ARM JSON. Declarations become the template's sections; expressions become ARM expression
// strings ("[…]") the way the Bicep compiler writes them: operators as functions (add, equals, if,
// coalesce …), interpolation as format(), parameters()/variables() for names, symbolic resource
// references as resourceId() / reference(), implicit dependsOn from those references, for-loops as
// copy (resources, variables, properties, outputs) and if as condition.
import { LIMITS } from '../limits.js';
import type { Decorator, Expr, OutputDecl, ParamDecl, ResourceDecl, Statement, VarDecl } from './ast.js';
import { BicepError, nestedTooDeeply } from './diagnostics.js';
import { parseBicep } from './parser.js';

const OPERATORS: Record<string, (l: string, r: string) => string> = {
  '+': (l, r) => `add(${l}, ${r})`,
  '-': (l, r) => `sub(${l}, ${r})`,
  '*': (l, r) => `mul(${l}, ${r})`,
  '/': (l, r) => `div(${l}, ${r})`,
  '%': (l, r) => `mod(${l}, ${r})`,
  '==': (l, r) => `equals(${l}, ${r})`,
  '!=': (l, r) => `not(equals(${l}, ${r}))`,
  '=~': (l, r) => `equals(toLower(${l}), toLower(${r}))`,
  '!~': (l, r) => `not(equals(toLower(${l}), toLower(${r})))`,
  '<': (l, r) => `less(${l}, ${r})`,
  '<=': (l, r) => `lessOrEquals(${l}, ${r})`,
  '>': (l, r) => `greater(${l}, ${r})`,
  '>=': (l, r) => `greaterOrEquals(${l}, ${r})`,
  '&&': (l, r) => `and(${l}, ${r})`,
  '||': (l, r) => `or(${l}, ${r})`,
  '??': (l, r) => `coalesce(${l}, ${r})`,
};

/** Members of a resource body that are Bicep's, not the resource provider's. */
const BICEP_MEMBERS = new Set(['name', 'parent', 'dependsOn', 'scope']);

interface Loop {
  item?: string;
  index?: string;
  source: Expr;
}

interface ResourceInfo {
  decl: ResourceDecl;
  type: string;
  apiVersion: string;
  /** Name segments, outermost first, each with the loop it is evaluated in. */
  segments: Expr[];
  body: Expr & { kind: 'object' };
  condition?: Expr;
  loop?: Loop;
  parent?: ResourceInfo;
  /** `scope: resourceGroup('x')` on an existing resource. */
  scopeGroup?: Expr;
}

/** Local names (loop variables) → the ARM expression they stand for. */
type Locals = Map<string, string>;

interface EmitContext {
  locals: Locals;
  /** Resources this expression refers to (for implicit dependsOn). */
  refs?: Set<ResourceInfo>;
  /** The copy loop name the expression is inside (copyIndex('name') for property/variable loops). */
  copyName?: string;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A literal string as a JSON template value: a leading '[' is escaped as '[['. */
function literal(text: string): string {
  return text.startsWith('[') ? `[${text}` : text;
}

export function compileBicep(source: string): Record<string, unknown> {
  return new Compiler(parseBicep(source)).compile();
}

class Compiler {
  private readonly params = new Map<string, ParamDecl>();
  private readonly vars = new Map<string, VarDecl>();
  private readonly resources = new Map<string, ResourceInfo>();
  private readonly outputs: OutputDecl[] = [];
  private readonly order: ResourceInfo[] = [];
  private nesting = 0;

  constructor(private readonly statements: Statement[]) {}

  private fail(at: { line: number; column: number }, code: string, message: string): never {
    throw new BicepError(code, message, at.line, at.column);
  }

  private declare(name: string, at: { line: number; column: number }): void {
    if (this.params.has(name) || this.vars.has(name) || this.resources.has(name) || this.outputs.some((o) => o.name === name)) {
      this.fail(at, 'BCP028', `Identifier "${name}" is declared multiple times. Remove or rename the duplicates.`);
    }
  }

  compile(): Record<string, unknown> {
    for (const s of this.statements) {
      if (s.kind === 'targetScope') {
        if (s.value.kind !== 'string' || s.value.segments[0] !== 'resourceGroup') {
          this.fail(s, 'BCP033', "aksemu deploys at resource-group scope only: targetScope must be 'resourceGroup'.");
        }
      } else if (s.kind === 'output') {
        this.declare(s.name, s);
        this.outputs.push(s);
      } else {
        this.declare(s.name, s);
        if (s.kind === 'param') this.params.set(s.name, s);
        else if (s.kind === 'var') this.vars.set(s.name, s);
        else this.addResource(s, undefined);
      }
    }
    for (const info of this.order) this.resolveParent(info);

    const template: Record<string, unknown> = {
      $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
      contentVersion: '1.0.0.0',
      metadata: { _generator: { name: 'aksemu-bicep', version: '0.1.0' } },
    };
    if (this.params.size > 0) template['parameters'] = Object.fromEntries([...this.params.values()].map((p) => [p.name, this.parameter(p)]));
    if (this.vars.size > 0) template['variables'] = this.variables();
    template['resources'] = this.order.filter((r) => !r.decl.existing).map((r) => this.resource(r));
    if (this.outputs.length > 0) template['outputs'] = Object.fromEntries(this.outputs.map((o) => [o.name, this.output(o)]));
    return template;
  }

  // ---- declarations -------------------------------------------------------------------------

  private addResource(decl: ResourceDecl, parent: ResourceInfo | undefined): void {
    const [typePart, version] = decl.typeText.split('@') as [string, string | undefined];
    // A nested child may leave out its api-version: it takes its parent's.
    const apiVersion = version ?? parent?.apiVersion;
    if (apiVersion === undefined)
      this.fail(decl.typeAt, 'BCP029', 'The resource type is not valid. Specify a valid resource type of format "<types>@<apiVersion>".');
    let value = decl.value;
    let loop: Loop | undefined;
    let condition: Expr | undefined;
    if (value.kind === 'for') {
      loop = { source: value.source, ...(value.item ? { item: value.item } : {}), ...(value.index ? { index: value.index } : {}) };
      value = value.body;
    }
    if (value.kind === 'if') {
      condition = value.condition;
      value = value.body;
    }
    if (value.kind !== 'object') this.fail(value, 'BCP018', 'Expected the "{" character at this location.');
    const nameProp = value.properties.find((p) => p.key === 'name');
    if (!nameProp) this.fail(decl, 'BCP035', `The specified "resource" declaration is missing the following required properties: "name".`);
    let type = typePart;
    if (parent && !typePart.includes('/')) type = `${parent.type}/${typePart}`;
    if (!parent && !typePart.includes('/'))
      this.fail(decl.typeAt, 'BCP029', 'The resource type is not valid. Specify a valid resource type of format "<types>@<apiVersion>".');
    const info: ResourceInfo = {
      decl,
      type,
      apiVersion,
      segments: [...(parent?.segments ?? []), nameProp.value],
      body: value,
      ...(condition ? { condition } : {}),
      ...(loop ? { loop } : {}),
      ...(parent ? { parent } : {}),
    };
    const scope = value.properties.find((p) => p.key === 'scope');
    if (scope) {
      if (!decl.existing || scope.value.kind !== 'call' || scope.value.name !== 'resourceGroup' || scope.value.args.length !== 1) {
        this.fail(scope, 'BCP134', "aksemu's Bicep compiler supports `scope` only as resourceGroup('name') on an existing resource.");
      }
      info.scopeGroup = scope.value.args[0]!;
    }
    this.resources.set(decl.name, info);
    this.order.push(info);
    for (const child of value.resources) {
      this.declare(child.name, child);
      this.addResource({ ...child, parentSymbol: decl.name }, info);
    }
  }

  /** `parent: sym` makes the resource a child: its name segments start with the parent's. */
  private resolveParent(info: ResourceInfo): void {
    const prop = info.body.properties.find((p) => p.key === 'parent');
    if (!prop) return;
    if (prop.value.kind !== 'ident' || !this.resources.has(prop.value.name)) {
      this.fail(prop.value, 'BCP036', 'The property "parent" expected a value of type "resource" but the provided value is not a resource symbol.');
    }
    const parent = this.resources.get(prop.value.name)!;
    this.resolveParent(parent);
    info.parent = parent;
    info.segments = [...parent.segments, info.segments[info.segments.length - 1]!];
    if (!info.type.startsWith(`${parent.type}/`) || info.type.split('/').length !== parent.type.split('/').length + 1) {
      this.fail(info.decl, 'BCP171', `Resource type "${info.type}" is not a valid child resource of parent "${parent.type}".`);
    }
  }

  private decorator(decorators: Decorator[], name: string): Decorator | undefined {
    return decorators.find((d) => d.name === name);
  }

  private constant(e: Expr): unknown {
    const value = this.value(e, { locals: new Map() });
    return value;
  }

  private parameter(p: ParamDecl): Record<string, unknown> {
    const secure = this.decorator(p.decorators, 'secure');
    if (secure && p.type !== 'string' && p.type !== 'object')
      this.fail(secure, 'BCP124', 'The decorator "secure" can only be attached to targets of type "object | string".');
    const out: Record<string, unknown> = { type: secure ? `secure${p.type}` : p.type };
    if (p.defaultValue) out['defaultValue'] = this.value(p.defaultValue, { locals: new Map() });
    const allowed = this.decorator(p.decorators, 'allowed');
    if (allowed) out['allowedValues'] = this.constant(allowed.args[0]!);
    for (const bound of ['minValue', 'maxValue', 'minLength', 'maxLength']) {
      const d = this.decorator(p.decorators, bound);
      if (d) out[bound] = this.constant(d.args[0]!);
    }
    const description = this.decorator(p.decorators, 'description');
    const metadata = this.decorator(p.decorators, 'metadata');
    if (description || metadata) {
      out['metadata'] = {
        ...(metadata ? (this.constant(metadata.args[0]!) as Record<string, unknown>) : {}),
        ...(description ? { description: this.constant(description.args[0]!) } : {}),
      };
    }
    return out;
  }

  private variables(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const copies: unknown[] = [];
    for (const v of this.vars.values()) {
      if (v.value.kind === 'for') copies.push(this.copyEntry(v.name, v.value, { locals: new Map() }));
      else out[v.name] = this.value(v.value, { locals: new Map() });
    }
    return copies.length > 0 ? { copy: copies, ...out } : out;
  }

  private output(o: OutputDecl): Record<string, unknown> {
    const secure = this.decorator(o.decorators, 'secure');
    const out: Record<string, unknown> = { type: secure ? `secure${o.type}` : o.type };
    let value = o.value;
    if (value.kind === 'if') {
      out['condition'] = this.wrap(this.expr(value.condition, { locals: new Map() }));
      value = value.body;
    }
    if (value.kind === 'for') {
      const { locals } = this.loopLocals(value, o.name, { locals: new Map() });
      out['copy'] = {
        count: this.wrap(`length(${this.expr(value.source, { locals: new Map() })})`),
        input: this.value(value.body, { locals, copyName: o.name }),
      };
      return out;
    }
    out['value'] = this.value(value, { locals: new Map() });
    return out;
  }

  private resource(info: ResourceInfo): Record<string, unknown> {
    const refs = new Set<ResourceInfo>();
    const symbol = info.decl.name;
    const loop = info.loop;
    const ctx: EmitContext = { locals: new Map(), refs };
    const out: Record<string, unknown> = {};
    if (loop) {
      Object.assign(ctx, this.loopLocals(loop, undefined, ctx));
      const copy: Record<string, unknown> = { name: symbol, count: this.wrap(`length(${this.expr(loop.source, { locals: new Map(), refs })})`) };
      const batch = this.decorator(info.decl.decorators, 'batchSize');
      if (batch) Object.assign(copy, { mode: 'serial', batchSize: this.constant(batch.args[0]!) });
      out['copy'] = copy;
    }
    if (info.condition) out['condition'] = this.wrap(this.expr(info.condition, ctx));
    out['type'] = info.type;
    out['apiVersion'] = info.apiVersion;
    out['name'] = this.nameValue(info, ctx);
    for (const p of info.body.properties) {
      if (BICEP_MEMBERS.has(p.key)) continue;
      out[p.key] = this.value(p.value, ctx);
    }
    // Dependencies: the parent, explicit dependsOn, and every resource the body refers to.
    const explicit = info.body.properties.find((p) => p.key === 'dependsOn');
    if (explicit) {
      if (explicit.value.kind !== 'array')
        this.fail(explicit.value, 'BCP034', 'The enclosing array expected an item of type "module[] | (resource | module) | resource[]".');
      for (const item of explicit.value.items) {
        const target = item.kind === 'ident' ? this.resources.get(item.name) : undefined;
        if (!target)
          this.fail(
            item,
            'BCP034',
            'The enclosing array expected an item of type "module[] | (resource | module) | resource[]", but the provided item was not a resource symbol.',
          );
        refs.add(target);
      }
    }
    if (info.parent) refs.add(info.parent);
    refs.delete(info);
    const dependsOn = [...refs]
      .filter((r) => !r.decl.existing)
      .sort((a, b) => this.order.indexOf(a) - this.order.indexOf(b))
      .map((r) => (r.loop ? r.decl.name : this.wrap(this.resourceId(r, ctx))));
    if (dependsOn.length > 0) out['dependsOn'] = dependsOn;
    return out;
  }

  // ---- loops --------------------------------------------------------------------------------

  /** The loop's variables: item → source[copyIndex()], index → copyIndex() (named for property/variable loops). */
  private loopLocals(loop: Loop, copyName: string | undefined, outer: EmitContext): EmitContext {
    const locals = new Map(outer.locals);
    const index = copyName === undefined ? 'copyIndex()' : `copyIndex(${quote(copyName)})`;
    if (loop.item) locals.set(loop.item, `${this.expr(loop.source, outer)}[${index}]`);
    if (loop.index) locals.set(loop.index, index);
    return { ...outer, locals };
  }

  private copyEntry(name: string, loop: Expr & { kind: 'for' }, outer: EmitContext): Record<string, unknown> {
    const inner = this.loopLocals(loop, name, outer);
    if (loop.body.kind === 'if') this.fail(loop.body, 'BCP138', 'Filtered (if) for-expressions are supported on resources only.');
    return { name, count: this.wrap(`length(${this.expr(loop.source, outer)})`), input: this.value(loop.body, { ...inner, copyName: name }) };
  }

  // ---- resource references ------------------------------------------------------------------

  /** The name segments evaluated where the reference is written: an indexed collection binds its loop variables to the index. */
  private segmentExprs(info: ResourceInfo, ctx: EmitContext, index?: string): string[] {
    return info.segments.map((segment, i) => {
      const owner = this.ownerOfSegment(info, i);
      let locals = ctx.locals;
      if (owner.loop && index !== undefined) {
        locals = new Map(ctx.locals);
        if (owner.loop.item) locals.set(owner.loop.item, `${this.expr(owner.loop.source, ctx)}[${index}]`);
        if (owner.loop.index) locals.set(owner.loop.index, index);
      }
      return this.expr(segment, { ...ctx, locals });
    });
  }

  private ownerOfSegment(info: ResourceInfo, i: number): ResourceInfo {
    let owner = info;
    for (let k = info.segments.length - 1; k > i; k--) owner = owner.parent!;
    return owner;
  }

  private resourceId(info: ResourceInfo, ctx: EmitContext, index?: string): string {
    const segments = this.segmentExprs(info, ctx, index);
    const group = info.scopeGroup ? `${this.expr(info.scopeGroup, ctx)}, ` : '';
    return `resourceId(${group}${quote(info.type)}, ${segments.join(', ')})`;
  }

  private nameValue(info: ResourceInfo, ctx: EmitContext): unknown {
    if (info.segments.length === 1) return this.value(info.segments[0]!, ctx);
    const segments = this.segmentExprs(info, ctx);
    return this.wrap(`format(${quote(segments.map((_, i) => `{${i}}`).join('/'))}, ${segments.join(', ')})`);
  }

  /** r.id, r.name, r.properties.x, r.location …, with r[i] for collections. */
  private resourceMember(info: ResourceInfo, member: string, ctx: EmitContext, index: string | undefined, at: Expr): string {
    if (info.loop && index === undefined && this.ownerLoopUnbound(info, ctx)) {
      this.fail(
        at,
        'BCP144',
        'Directly referencing a resource or module collection is not currently supported here. Apply an array indexer to the expression.',
      );
    }
    // Referring to a resource deploys after it; an existing one, after its deployed parent.
    let dependency: ResourceInfo | undefined = info;
    while (dependency?.decl.existing) dependency = dependency.parent;
    if (dependency) ctx.refs?.add(dependency);
    switch (member) {
      case 'id':
        return this.resourceId(info, ctx, index);
      case 'name':
        return this.segmentExprs(info, ctx, index).slice(-1)[0]!;
      case 'type':
        return quote(info.type);
      case 'apiVersion':
        return quote(info.apiVersion);
      case 'properties':
        return `reference(${this.resourceId(info, ctx, index)}, ${quote(info.apiVersion)})`;
      default:
        return `reference(${this.resourceId(info, ctx, index)}, ${quote(info.apiVersion)}, 'full').${member}`;
    }
  }

  /** Inside the collection's own loop the loop variables are bound, so no indexer is needed. */
  private ownerLoopUnbound(info: ResourceInfo, ctx: EmitContext): boolean {
    const loop = info.loop!;
    return !(loop.item && ctx.locals.has(loop.item)) && !(loop.index && ctx.locals.has(loop.index));
  }

  // ---- expressions --------------------------------------------------------------------------

  private wrap(expression: string): string {
    return `[${expression}]`;
  }

  /** A template JSON value: literals stay JSON, objects and arrays stay structured, the rest is "[expr]". */
  private value(e: Expr, ctx: EmitContext): unknown {
    switch (e.kind) {
      case 'string':
        return e.holes.length === 0 ? literal(e.segments[0]!) : this.wrap(this.expr(e, ctx));
      case 'number':
        return e.value;
      case 'bool':
        return e.value;
      case 'null':
        return null;
      case 'object': {
        const out: Record<string, unknown> = {};
        const copies: unknown[] = [];
        for (const p of e.properties) {
          if (p.value.kind === 'for') copies.push(this.copyEntry(p.key, p.value, ctx));
          else out[p.key] = this.value(p.value, ctx);
        }
        if (e.resources.length > 0) this.fail(e.resources[0]!, 'BCP157', 'Nested resources are allowed only in a resource body.');
        return copies.length > 0 ? { copy: copies, ...out } : out;
      }
      case 'array':
        return e.items.map((item) => this.value(item, ctx));
      case 'for':
        this.fail(
          e,
          'BCP138',
          'For-expressions are not supported in this context. For-expressions may be used as values of resource, module, variable, and output declarations, or values of resource and module properties.',
        );
      // falls through (fail never returns)
      default:
        return this.wrap(this.expr(e, ctx));
    }
  }

  /** ARM expression text (without brackets); operator and member chains nest here even when parsed flat. */
  private expr(e: Expr, ctx: EmitContext): string {
    if (++this.nesting > LIMITS.bicepNesting) nestedTooDeeply(e);
    try {
      return this.exprText(e, ctx);
    } finally {
      this.nesting--;
    }
  }

  private exprText(e: Expr, ctx: EmitContext): string {
    switch (e.kind) {
      case 'string': {
        if (e.holes.length === 0) return quote(e.segments[0]!);
        const format = e.segments.map((s, i) => s.replace(/\{/g, '{{').replace(/\}/g, '}}') + (i < e.holes.length ? `{${i}}` : '')).join('');
        return `format(${quote(format)}, ${e.holes.map((h) => this.expr(h, ctx)).join(', ')})`;
      }
      case 'number':
        return String(e.value);
      case 'bool':
        return e.value ? 'true()' : 'false()';
      case 'null':
        return 'null()';
      case 'ident':
        return this.identifier(e.name, ctx, e);
      case 'call':
        return this.call(e, ctx);
      case 'member': {
        const target = this.symbolOf(e.target);
        if (target) return this.resourceMember(target.info, e.name, ctx, target.index === undefined ? undefined : this.expr(target.index, ctx), e);
        const parent = e.target.kind === 'member' ? this.symbolOf(e.target.target) : undefined;
        if (parent && e.target.kind === 'member' && e.target.name === 'properties') {
          return `${this.resourceMember(parent.info, 'properties', ctx, parent.index === undefined ? undefined : this.expr(parent.index, ctx), e)}.${e.name}`;
        }
        const inner = this.expr(e.target, ctx);
        return e.safe ? `tryGet(${inner}, ${quote(e.name)})` : `${inner}.${e.name}`;
      }
      case 'index':
        if (e.target.kind === 'ident' && this.resources.has(e.target.name)) {
          this.fail(
            e,
            'BCP144',
            'Directly referencing a resource or module collection is not currently supported here. Apply an array indexer to the expression.',
          );
        }
        return `${this.expr(e.target, ctx)}[${this.expr(e.index, ctx)}]`;
      case 'unary':
        return e.op === '!' ? `not(${this.expr(e.operand, ctx)})` : `sub(0, ${this.expr(e.operand, ctx)})`;
      case 'binary':
        return OPERATORS[e.op]!(this.expr(e.left, ctx), this.expr(e.right, ctx));
      case 'ternary':
        return `if(${this.expr(e.condition, ctx)}, ${this.expr(e.then, ctx)}, ${this.expr(e.else, ctx)})`;
      case 'object':
        if (e.properties.length === 0) return 'createObject()';
        return `createObject(${e.properties
          .map((p) => {
            if (p.value.kind === 'for') this.fail(p.value, 'BCP138', 'For-expressions are not supported in this context.');
            return `${quote(p.key)}, ${this.expr(p.value, ctx)}`;
          })
          .join(', ')})`;
      case 'array':
        return `createArray(${e.items.map((i) => this.expr(i, ctx)).join(', ')})`;
      case 'for':
      case 'if':
        this.fail(e, 'BCP138', 'For-expressions are not supported in this context.');
    }
  }

  /** `sym` or `sym[i]` when sym is a resource. */
  private symbolOf(e: Expr): { info: ResourceInfo; index?: Expr } | undefined {
    if (e.kind === 'ident' && this.resources.has(e.name)) return { info: this.resources.get(e.name)! };
    if (e.kind === 'index' && e.target.kind === 'ident' && this.resources.has(e.target.name))
      return { info: this.resources.get(e.target.name)!, index: e.index };
    return undefined;
  }

  private identifier(name: string, ctx: EmitContext, at: Expr): string {
    const local = ctx.locals.get(name);
    if (local !== undefined) return local;
    if (this.params.has(name)) return `parameters(${quote(name)})`;
    if (this.vars.has(name)) return `variables(${quote(name)})`;
    if (this.resources.has(name)) {
      this.fail(
        at,
        'BCP062',
        `The referenced declaration with name "${name}" is a resource: use one of its properties (${name}.id, ${name}.name, ${name}.properties…).`,
      );
    }
    this.fail(at, 'BCP057', `The name "${name}" does not exist in the current context.`);
  }

  private call(e: Expr & { kind: 'call' }, ctx: EmitContext): string {
    if (e.namespace !== undefined && e.namespace !== 'az' && e.namespace !== 'sys') {
      if (this.resources.has(e.namespace))
        this.fail(e, 'BCP109', `Resource functions such as ${e.namespace}.${e.name}() are not supported by aksemu's Bicep compiler.`);
      this.fail(e, 'BCP057', `The name "${e.namespace}" does not exist in the current context.`);
    }
    if (e.name === 'any') {
      if (e.args.length !== 1) this.fail(e, 'BCP071', 'Expected 1 argument, but got ' + e.args.length + '.');
      return this.expr(e.args[0]!, ctx);
    }
    return `${e.name}(${e.args.map((a) => this.expr(a, ctx)).join(', ')})`;
  }
}
