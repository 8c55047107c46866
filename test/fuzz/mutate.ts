// Hostile values and the mutations both fuzzers apply to valid request bodies. A mutation is a small,
// named edit at one path of a valid body, so a failing request reads as "valid body + these edits" and
// shrinks by dropping edits. Values JSON cannot hold as a JS object cheaply (10,000-deep nesting, raw
// bytes) are spliced into the serialized text through placeholders.
import type { Rng } from './prng.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Text spliced into the serialized body verbatim. */
export class Raw {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
}

export type Value = Json | Raw | Value[] | { [key: string]: Value };

export type PathStep = string | number;

export interface Mutation {
  path: PathStep[];
  op: 'set' | 'delete' | 'addKey';
  /** For set and addKey. */
  value?: Value;
  /** For addKey. */
  key?: string;
  /** Human-readable, for the report. */
  label: string;
}

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
/** Marks a prototype-pollution attempt; the probe looks for it on Object.prototype. */
export const POLLUTION_MARK = 'aksemuPolluted';

/** JSON nested `depth` deep, as text (JSON.stringify would recurse that deep). */
export function deepJson(depth: number, kind: 'array' | 'object'): Raw {
  const text = kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return new Raw(text, `${kind} nested ${depth} deep`);
}

/** An object with an own (not prototype-setting) key, e.g. "__proto__". */
export function withOwnKey(base: Record<string, Value>, key: string, value: Value): Record<string, Value> {
  const out: Record<string, Value> = { ...base };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** The payload a pollution attempt writes: {"aksemuPolluted": "…"} or constructor.prototype's. */
export function pollutionPayload(key: string): Value {
  const mark = { [POLLUTION_MARK]: 'yes', authorization: 'Bearer polluted' };
  return key === 'constructor' ? { prototype: mark } : mark;
}

export function longString(rng: Rng): string {
  return rng.pick(['a', 'é', '\u{1F600}', '%', '/', '\\', '"']).repeat(rng.pick([256, 1025, 65_537, 300_000]));
}

/** Values of every wrong kind; big ones are rare so runs stay fast. */
export function hostileValue(rng: Rng): Value {
  return rng.weighted<() => Value>([
    [4, () => null],
    [2, () => rng.pick([true, false])],
    [4, () => rng.pick([-1, 0, 1.5, -2147483649, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, 1e21, 5e-324, 1_000_000_000])],
    [3, () => rng.pick(['', ' ', 'undefined', 'null', 'NaN', '-1', '0x10', '1e999', 'true', '[]', '{}'])],
    [
      3,
      () =>
        rng.pick([
          '../../etc',
          '..',
          '.',
          'a/b',
          '%2F',
          '%ZZ',
          'a%00b',
          '\u0000',
          '\n',
          '<script>',
          "' OR 1=1 --",
          '${jndi:x}',
          "[concat('a')]",
          '\u202e',
          'ÆØÅ',
        ]),
    ],
    [1, () => longString(rng)],
    [2, () => rng.pick<Value>([[], {}, [null], [[]], [{}], { '': 1 }])],
    [1, () => new Raw('1'.repeat(400), '400-digit number')],
    [1, () => deepJson(rng.pick([100, 1_000, 10_000]), rng.pick(['array', 'object'] as const))],
    [1, () => Array.from({ length: rng.pick([1_000, 10_000]) }, (_, i) => i)],
  ])();
}

function isObject(v: unknown): v is Record<string, Value> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw);
}

/** Every path in a value (the root included), so a mutation can land at any level. */
export function paths(value: Value, prefix: PathStep[] = [], out: PathStep[][] = []): PathStep[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (isObject(value)) for (const k of Object.keys(value)) paths(value[k]!, [...prefix, k], out);
  return out;
}

export function pathText(path: PathStep[]): string {
  return path.length === 0
    ? '(body)'
    : path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
        .join('')
        .replace(/^\./, '');
}

/** A random mutation somewhere in value. */
export function randomMutation(rng: Rng, value: Value): Mutation {
  const all = paths(value);
  const path = rng.pick(all);
  const at = pathText(path);
  const kind = rng.weighted<'set' | 'delete' | 'proto' | 'extra'>([
    [6, 'set'],
    [2, 'delete'],
    [2, 'proto'],
    [1, 'extra'],
  ]);
  if (kind === 'delete' && path.length > 0) return { path, op: 'delete', label: `delete ${at}` };
  if (kind === 'proto') {
    // At an object's level: an own __proto__/constructor/prototype key with a pollution payload.
    const container = isObject(getAt(value, path)) ? path : path.slice(0, -1);
    const key = rng.pick(PROTO_KEYS);
    return { path: container, op: 'addKey', key, value: pollutionPayload(key), label: `add key ${key} at ${pathText(container)}` };
  }
  if (kind === 'extra') {
    const container = isObject(getAt(value, path)) ? path : path.slice(0, -1);
    const key = rng.pick(['unknownMember', 'id', 'type', 'name', 'etag', 'PROPERTIES', '']);
    const v = hostileValue(rng);
    return { path: container, op: 'addKey', key, value: v, label: `add key ${JSON.stringify(key)} = ${describe(v)} at ${pathText(container)}` };
  }
  const v = hostileValue(rng);
  return { path, op: 'set', value: v, label: `set ${at} = ${describe(v)}` };
}

export function describe(v: Value): string {
  if (v instanceof Raw) return v.label;
  if (typeof v === 'string' && v.length > 40) return `"${v[0]}"×${v.length}`;
  if (Array.isArray(v) && v.length > 20) return `array of ${v.length}`;
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function getAt(value: Value, path: PathStep[]): Value | undefined {
  let cur: Value | undefined = value;
  for (const step of path) {
    if (Array.isArray(cur) && typeof step === 'number') cur = cur[step];
    else if (isObject(cur) && typeof step === 'string') cur = Object.hasOwn(cur, step) ? cur[step] : undefined;
    else return undefined;
  }
  return cur;
}

/** A copy of value with the mutations applied in order (copy-on-write along each path). */
export function applyMutations(value: Value, mutations: readonly Mutation[]): Value {
  let out = value;
  for (const m of mutations) out = applyOne(out, m, 0);
  return out;
}

function applyOne(node: Value, m: Mutation, depth: number): Value {
  if (depth === m.path.length) {
    if (m.op === 'set') return m.value!;
    if (m.op === 'addKey') return isObject(node) ? withOwnKey(node, m.key!, m.value!) : withOwnKey({}, m.key!, m.value!);
    return node;
  }
  const step = m.path[depth]!;
  const last = depth === m.path.length - 1;
  if (Array.isArray(node) && typeof step === 'number') {
    const copy = [...node];
    if (last && m.op === 'delete') copy.splice(step, 1);
    else copy[step] = applyOne(node[step] ?? null, m, depth + 1);
    return copy;
  }
  if (isObject(node) && typeof step === 'string') {
    const copy: Record<string, Value> = {};
    for (const k of Object.keys(node)) if (!(last && m.op === 'delete' && k === step)) withOwnKeyInPlace(copy, k, node[k]!);
    if (!(last && m.op === 'delete')) withOwnKeyInPlace(copy, step, applyOne(node[step] ?? null, m, depth + 1));
    return copy;
  }
  return node; // The path no longer exists (an earlier mutation replaced a parent).
}

function withOwnKeyInPlace(obj: Record<string, Value>, key: string, value: Value): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON text of a value, Raw parts spliced in. */
export function serialize(value: Value): string {
  const raws: Raw[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  if (raws.length === 0) return text;
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i: string) => raws[Number(i)]!.text);
}

/** A body of about `bytes` bytes that is valid JSON (a long string member). */
export function oversizedBody(bytes: number): string {
  return `{"location":"eastus","tags":{"big":"${'x'.repeat(bytes)}"}}`;
}
