// Request-body models and the strict check. ARM deserializes bodies into typed models: member names
// match case-insensitively, null means "not given", and a wrong JSON type is a deserialization error.
// The body itself must be an object, and a typed array cannot hold null (handlers index into both).
// A member the model lacks is refused or dropped as the caller says (Refusal): a provider's own public rule, else
// aksemu's strict default, which names every one; --loose drops them all (src/arm/pipeline.ts, unknownMemberRule).
// Keys the client chose (maps, tags) are copied as data: '__proto__' stays a key, never a prototype.
import { setOwn } from '../http/own.js';
import { type ArmError, invalidRequestContent, type UnknownMember } from './errors.js';
import { validateTags } from './tags.js';

/** How a request with members its model lacks is refused; none: they are dropped. */
export type Refusal = (members: readonly UnknownMember[]) => ArmError;

export type Schema =
  | { kind: 'object'; typeName: string; properties: Record<string, Schema> }
  | { kind: 'map'; values: Schema }
  | { kind: 'array'; items: Schema }
  | { kind: 'string' | 'number' | 'integer' | 'boolean' | 'any' | 'tags' }
  /** A read-only member: clients send back what a GET gave them (az GETs, then PUTs), and ARM ignores it. */
  | { kind: 'ignored' };

/** Builders, so a model reads like the REST spec. */
export const s = {
  /** Required members are the handler's to check: ARM words each missing one differently. */
  object(typeName: string, properties: Record<string, Schema>): Schema {
    return { kind: 'object', typeName, properties };
  },
  map(values: Schema): Schema {
    return { kind: 'map', values };
  },
  array(items: Schema): Schema {
    return { kind: 'array', items };
  },
  string: (): Schema => ({ kind: 'string' }),
  number: (): Schema => ({ kind: 'number' }),
  integer: (): Schema => ({ kind: 'integer' }),
  boolean: (): Schema => ({ kind: 'boolean' }),
  any: (): Schema => ({ kind: 'any' }),
  /** A resource's tags: a map of strings within ARM's tag limits (src/arm/tags.ts). */
  tags: (): Schema => ({ kind: 'tags' }),
  ignored: (): Schema => ({ kind: 'ignored' }),
};

const CLR_TYPE: Record<string, string> = {
  map: 'Dictionary',
  tags: 'Dictionary',
  array: 'Array',
  string: 'System.String',
  number: 'System.Double',
  integer: 'System.Int32',
  boolean: 'System.Boolean',
};

function typeMatches(schema: Schema, value: unknown): boolean {
  switch (schema.kind) {
    case 'object':
    case 'map':
    case 'tags':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'any':
    case 'ignored':
      return true;
  }
}

function join(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}

function typeName(schema: Schema): string {
  return schema.kind === 'object' ? schema.typeName : CLR_TYPE[schema.kind]!;
}

/** Newtonsoft's words for a value it cannot put in the model; null reads as {null}, as Newtonsoft writes it. */
function conversionError(schema: Schema, value: unknown, path: string) {
  const shown = value === null ? '{null}' : JSON.stringify(value);
  return invalidRequestContent(`Error converting value ${shown} to type '${typeName(schema)}'. Path '${path}'`, path || undefined);
}

/**
 * Checks value against schema and returns the value as the handler should see it: member names
 * in the model's casing, unknown members (in document order) refused by `refuse`, or removed without it.
 * Throws ArmError InvalidRequestContent, or what `refuse` makes.
 */
export function checkBody(schema: Schema, value: unknown, refuse: Refusal | undefined): unknown {
  if (value === null || value === undefined) throw conversionError(schema, null, '');
  const unknown: UnknownMember[] = [];
  const result = walk(schema, value, '', unknown);
  if (refuse && unknown.length > 0) throw refuse(unknown);
  return result;
}

function walk(schema: Schema, value: unknown, path: string, unknown: UnknownMember[]): unknown {
  if (value === null || value === undefined) return value;
  if (!typeMatches(schema, value)) throw conversionError(schema, value, path);
  switch (schema.kind) {
    case 'object': {
      const byLowerName = new Map(Object.keys(schema.properties).map((name) => [name.toLowerCase(), name]));
      const out: Record<string, unknown> = {};
      for (const [member, child] of Object.entries(value as Record<string, unknown>)) {
        const name = byLowerName.get(member.toLowerCase());
        if (name === undefined) {
          unknown.push({ member, path: join(path, member), typeName: schema.typeName });
          continue;
        }
        if (schema.properties[name]!.kind === 'ignored') continue;
        out[name] = walk(schema.properties[name]!, child, join(path, name), unknown);
      }
      return out;
    }
    case 'map':
    case 'tags': {
      const values = schema.kind === 'map' ? schema.values : s.string();
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        setOwn(out, key, walk(values, child, join(path, key), unknown));
      }
      if (schema.kind === 'tags') validateTags(out);
      return out;
    }
    case 'array':
      return (value as unknown[]).map((item, i) => {
        if (item === null && schema.items.kind !== 'any') throw conversionError(schema.items, null, `${path}[${i}]`);
        return walk(schema.items, item, `${path}[${i}]`, unknown);
      });
    default:
      return value;
  }
}

/** Parses a JSON request body; ARM's InvalidRequestContent on malformed JSON. */
export function parseJsonBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw invalidRequestContent(err instanceof Error ? err.message : String(err));
  }
}
