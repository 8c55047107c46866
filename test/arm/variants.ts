// Request bodies derived from a route's body model: a valid body with one member, anywhere in the
// model, replaced by null, an array holding null, or an edge value of its type. For sweeps that send
// every one and require a 4xx or a success, never a 500.
import type { Schema } from '../../src/arm/schema.js';

export interface Variant {
  /** Where the change is, e.g. properties.agentPoolProfiles[0].count=-1. */
  label: string;
  body: unknown;
}

const EDGES: Partial<Record<Schema['kind'], unknown[]>> = {
  integer: [-1, 0, 2147483647, 1e15],
  number: [-1, 1e308],
  string: ['', ' ', 'x'.repeat(3000), '../../etc', '\u0000'],
};

function empty(schema: Schema): unknown {
  if (schema.kind === 'object' || schema.kind === 'map') return {};
  return schema.kind === 'array' ? [] : undefined;
}

function* at(schema: Schema, base: unknown, path: string): Generator<Variant> {
  if (path !== '') yield { label: `${path}=null`, body: null };
  for (const edge of EDGES[schema.kind] ?? []) yield { label: `${path}=${JSON.stringify(edge).slice(0, 12)}`, body: edge };
  if (schema.kind === 'object') {
    const b = (base && typeof base === 'object' ? base : {}) as Record<string, unknown>;
    for (const [name, member] of Object.entries(schema.properties)) {
      for (const v of at(member, b[name] ?? empty(member), path ? `${path}.${name}` : name)) yield { label: v.label, body: { ...b, [name]: v.body } };
    }
  } else if (schema.kind === 'array') {
    const b = Array.isArray(base) ? base : [];
    yield { label: `${path}=[null]`, body: [null, ...b] };
    for (const v of at(schema.items, b[0] ?? empty(schema.items), `${path}[0]`)) if (v.body !== null) yield { label: v.label, body: [v.body, ...b.slice(1)] };
  } else if (schema.kind === 'map') {
    yield { label: `${path}.k=null`, body: { k: null } };
    yield { label: `${path}.k={}`, body: { k: {} } };
  }
}

/** Every variant of base that changes one member of the model (the root itself is kept an object). */
export function variants(schema: Schema, base: unknown): Variant[] {
  return [...at(schema, base, '')].filter((v) => v.body !== null && typeof v.body === 'object');
}
