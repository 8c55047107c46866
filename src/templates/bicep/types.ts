// Bicep type expressions → ARM type definitions (languageVersion 2.0 `definitions`, parameter and
// output types, function parameter types), as Bicep writes them: a user-defined type is a
// `$ref` to `#/definitions/<name>`; a union of literals is its common type with `allowedValues` (sorted);
// an array of literals is an array with `allowedValues`; `T?` adds `nullable: true`; `@sealed()` is
// `additionalProperties: false`; `@discriminator('p')` on a union of objects is a `discriminator` mapping.
import type { Decorator, Expr, TypeExpr } from './ast.js';
import { BicepError } from './diagnostics.js';

const PRIMITIVES = new Set(['string', 'int', 'bool', 'object', 'array']);

export interface TypeResolver {
  /** A user-defined (or imported) type named by a reference: its `#/definitions/…` name and declaration. */
  userType(ref: TypeExpr & { kind: 'ref' }): { definition: string; type: TypeExpr; decorators: Decorator[] } | undefined;
  /** A decorator argument: a compile-time constant. */
  constant(e: Expr): unknown;
}

type Json = Record<string, unknown>;

function fail(at: { line: number; column: number }, code: string, message: string): never {
  throw new BicepError(code, message, at.line, at.column);
}

const UNION_NOT_REDUCIBLE = "Type unions must be reducible to a single ARM type (such as 'string', 'int', or 'bool').";

/** The ARM type of a literal value. */
function literalType(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'int';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

/** Bicep sorts allowed values: strings ordinally, numbers by value; mixed kinds by kind. */
function sortAllowed(values: unknown[]): unknown[] {
  const rank = (v: unknown) => (typeof v === 'string' ? 0 : typeof v === 'number' ? 1 : typeof v === 'boolean' ? 2 : v === null ? 3 : 4);
  return [...values].sort((a, b) => {
    const d = rank(a) - rank(b);
    if (d !== 0) return d;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    const x = JSON.stringify(a);
    const y = JSON.stringify(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

export class TypeWriter {
  constructor(private readonly resolver: TypeResolver) {}

  /** The literal values a type stands for, when it is a literal or a union of literals (through references). */
  private literals(t: TypeExpr, depth = 0): unknown[] | undefined {
    if (depth > 64) return undefined;
    switch (t.kind) {
      case 'literal':
        return [t.value];
      case 'union': {
        const out: unknown[] = [];
        for (const m of t.members) {
          const values = this.literals(m, depth + 1);
          if (!values) return undefined;
          for (const v of values) if (!out.some((o) => JSON.stringify(o) === JSON.stringify(v))) out.push(v);
        }
        return out;
      }
      case 'ref': {
        const user = this.resolver.userType(t);
        return user ? this.literals(user.type, depth + 1) : undefined;
      }
      default:
        return undefined;
    }
  }

  /** The type with its decorators applied; `extra` (a parameter's defaultValue) goes between the type and the decorators' members. */
  write(t: TypeExpr, decorators: Decorator[], extra: Json = {}): Json {
    const out = { ...this.bare(t, decorators), ...extra };
    this.decorate(out, decorators);
    return out;
  }

  private bare(t: TypeExpr, decorators: Decorator[]): Json {
    switch (t.kind) {
      case 'ref': {
        const user = t.namespace === 'sys' ? undefined : this.resolver.userType(t);
        if (user) return { $ref: `#/definitions/${user.definition}` };
        if (t.namespace !== undefined && t.namespace !== 'sys') fail(t, 'BCP057', `The name "${t.namespace}" does not exist in the current context.`);
        if (!PRIMITIVES.has(t.name))
          fail(t, 'BCP302', `The name "${t.name}" is not a valid type. Please specify one of the following types: "array", "bool", "int", "object", "string".`);
        if (decorators.some((d) => d.name === 'secure')) {
          if (t.name === 'string') return { type: 'securestring' };
          if (t.name === 'object') return { type: 'secureObject' };
          fail(decorators.find((d) => d.name === 'secure')!, 'BCP124', 'The decorator "secure" can only be attached to targets of type "object | string".');
        }
        return { type: t.name };
      }
      case 'literal':
        return { type: literalType(t.value), allowedValues: [t.value] };
      case 'nullable': {
        const base = this.bare(t.base, decorators);
        return { ...base, nullable: true };
      }
      case 'union':
        return this.union(t, decorators);
      case 'array': {
        const values = this.literals(t.items);
        if (values) return { type: 'array', allowedValues: sortAllowed(values) };
        return { type: 'array', items: this.write(t.items, []) };
      }
      case 'tuple':
        return { type: 'array', prefixItems: t.items.map((i) => this.write(i.type, i.decorators)), items: false };
      case 'object': {
        const out: Json = {
          type: 'object',
          properties: Object.fromEntries(t.properties.map((p) => [p.key, this.write(p.type, p.decorators)])),
        };
        if (t.additional) out['additionalProperties'] = this.write(t.additional.type, t.additional.decorators);
        return out;
      }
    }
  }

  private union(t: TypeExpr & { kind: 'union' }, decorators: Decorator[]): Json {
    const nullable = t.members.some((m) => m.kind === 'literal' && m.value === null);
    const members = t.members.filter((m) => !(m.kind === 'literal' && m.value === null));
    const values = this.literals({ ...t, members });
    const discriminator = decorators.find((d) => d.name === 'discriminator');
    if (values && !discriminator) {
      const types = new Set(values.map(literalType));
      const type = types.size === 1 ? [...types][0]! : fail(t, 'BCP294', UNION_NOT_REDUCIBLE);
      return { type, allowedValues: sortAllowed(values), ...(nullable ? { nullable: true } : {}) };
    }
    if (!discriminator) fail(t, 'BCP294', UNION_NOT_REDUCIBLE);
    const property = this.resolver.constant(discriminator.args[0]!);
    if (typeof property !== 'string') fail(discriminator, 'BCP070', 'Argument of type "string" is expected for the discriminator.');
    const mapping: Json = {};
    for (const m of members) {
      const object = this.objectOf(m);
      const key = object?.properties.find((p) => p.key === property);
      if (!object || !key || key.type.kind !== 'literal' || typeof key.type.value !== 'string')
        fail(m, 'BCP364', `The property "${property}" must be a required string literal on all union member types.`);
      mapping[key.type.value] = this.write(m, []);
    }
    return { type: 'object', discriminator: { propertyName: property, mapping }, ...(nullable ? { nullable: true } : {}) };
  }

  private objectOf(t: TypeExpr, depth = 0): (TypeExpr & { kind: 'object' }) | undefined {
    if (t.kind === 'object') return t;
    if (t.kind === 'ref' && depth < 64) {
      const user = this.resolver.userType(t);
      return user ? this.objectOf(user.type, depth + 1) : undefined;
    }
    return undefined;
  }

  private decorate(out: Json, decorators: Decorator[]): void {
    const arg = (name: string) => {
      const d = decorators.find((x) => x.name === name);
      return d ? this.resolver.constant(d.args[0]!) : undefined;
    };
    const allowed = arg('allowed');
    if (allowed !== undefined) out['allowedValues'] = allowed;
    if (decorators.some((d) => d.name === 'sealed')) out['additionalProperties'] = false;
    for (const bound of ['minValue', 'maxValue', 'minLength', 'maxLength']) {
      const v = arg(bound);
      if (v !== undefined) out[bound] = v;
    }
    const description = arg('description');
    const metadata = arg('metadata');
    if (description !== undefined || metadata !== undefined) {
      out['metadata'] = { ...((metadata as Json | undefined) ?? {}), ...(description !== undefined ? { description } : {}) };
    }
  }
}

/** Whether a type expression is more than a primitive keyword (what makes Bicep emit languageVersion 2.0). */
export function isTypeSyntax(t: TypeExpr): boolean {
  return !(t.kind === 'ref' && t.namespace === undefined && PRIMITIVES.has(t.name));
}
