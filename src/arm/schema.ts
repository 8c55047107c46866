// Request-body models and the strict check. ARM deserializes bodies into typed models: member names
// match case-insensitively, null means "not given", and a wrong JSON type is a deserialization error.
// aksemu is strict by default: a member the model lacks is an error naming it; --loose drops it.
import { invalidRequestContent, unknownMembers, type UnknownMember } from './errors.js';

export type Schema =
  | { kind: 'object'; typeName: string; properties: Record<string, Schema> }
  | { kind: 'map'; values: Schema }
  | { kind: 'array'; items: Schema }
  | { kind: 'string' | 'number' | 'integer' | 'boolean' | 'any' };

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
};

const CLR_TYPE: Record<string, string> = {
  object: 'Object',
  map: 'Dictionary',
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
      return true;
  }
}

function join(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}

/**
 * Checks value against schema and returns the value as the handler should see it: member names
 * in the model's casing, unknown members removed (loose) or reported all at once (strict).
 * Throws ArmError InvalidRequestContent.
 */
export function checkBody(schema: Schema, value: unknown, strict: boolean): unknown {
  const unknown: UnknownMember[] = [];
  const result = walk(schema, value, '', unknown);
  if (strict && unknown.length > 0) throw unknownMembers(unknown);
  return result;
}

function walk(schema: Schema, value: unknown, path: string, unknown: UnknownMember[]): unknown {
  if (value === null || value === undefined) return value;
  if (!typeMatches(schema, value)) {
    throw invalidRequestContent(
      `Error converting value ${JSON.stringify(value)} to type '${CLR_TYPE[schema.kind]}'. Path '${path}'`,
      path || undefined,
    );
  }
  switch (schema.kind) {
    case 'object': {
      const byLowerName = new Map(Object.keys(schema.properties).map((name) => [name.toLowerCase(), name]));
      const out: Record<string, unknown> = {};
      for (const [member, child] of Object.entries(value as Record<string, unknown>)) {
        const name = byLowerName.get(member.toLowerCase());
        if (name === undefined) {
          unknown.push({ path: join(path, member), typeName: schema.typeName });
          continue;
        }
        out[name] = walk(schema.properties[name]!, child, join(path, name), unknown);
      }
      return out;
    }
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        out[key] = walk(schema.values, child, join(path, key), unknown);
      }
      return out;
    }
    case 'array':
      return (value as unknown[]).map((item, i) => walk(schema.items, item, `${path}[${i}]`, unknown));
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
