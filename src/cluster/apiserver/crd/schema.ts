// A CRD version's structural schema (openAPIV3Schema), compiled once per CRD write into a tree the API walks
// for every custom-resource write: defaulting, pruning of unknown fields, then validation worded as the
// apiextensions apiserver words it. The wording follows kube-openapi's validate errors as
// staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/validation/validation.go turns them into field
// errors (a wrong type is `spec.x in body must be of type integer: "string"`, an enum miss field.NotSupported,
// maxLength field.TooLong, maxItems field.TooMany, a missing property field.Required).
import { isPlainObject, own, setOwn } from '../../../http/own.js';
import { clone } from '../../apimachinery/object.js';
import { fieldError, type StatusCause } from '../../apimachinery/status.js';
import { formatProblem } from './formats.js';
import { compilePattern, guardBudget, type Pattern } from './patterns.js';

export type JSONSchemaProps = Record<string, unknown>;

/** One compiled schema node. */
export interface SchemaNode {
  type?: string;
  format?: string;
  description?: string;
  properties?: Map<string, SchemaNode>;
  /** additionalProperties: a schema for every value, or true (anything). */
  additional?: SchemaNode | true;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  /** The enum's members as JSON text, for one lookup per value (an enum may be long). */
  enumKeys?: Set<string>;
  pattern?: Pattern;
  patternText?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  default?: unknown;
  preserveUnknown?: boolean;
  intOrString?: boolean;
  embedded?: boolean;
  /** allOf / anyOf / oneOf / not: value validations only (structural schemas keep types out of them). */
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  not?: SchemaNode;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Compiles a schema (already validated as structural by the CRD's validation). */
export function compileSchema(s: unknown): SchemaNode {
  if (!isPlainObject(s)) return { preserveUnknown: true };
  const n: SchemaNode = {};
  const set = <K extends keyof SchemaNode>(k: K, v: SchemaNode[K] | undefined) => {
    if (v !== undefined) n[k] = v;
  };
  set('type', str(s['type']));
  set('format', str(s['format']));
  set('description', str(s['description']));
  if (isPlainObject(s['properties'])) {
    n.properties = new Map(Object.entries(s['properties']).map(([k, v]) => [k, compileSchema(v)]));
  }
  const ap = s['additionalProperties'];
  if (ap === true) n.additional = true;
  else if (isPlainObject(ap)) n.additional = compileSchema(ap);
  if (isPlainObject(s['items'])) n.items = compileSchema(s['items']);
  if (Array.isArray(s['required'])) n.required = s['required'].filter((r): r is string => typeof r === 'string');
  if (Array.isArray(s['enum'])) {
    n.enum = s['enum'];
    n.enumKeys = new Set(s['enum'].map((e) => JSON.stringify(e)));
  }
  const pattern = str(s['pattern']);
  if (pattern !== undefined) {
    n.patternText = pattern;
    set('pattern', compilePattern(pattern));
  }
  for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'multipleOf', 'minProperties', 'maxProperties'] as const) {
    set(k, num(s[k]));
  }
  for (const k of ['exclusiveMinimum', 'exclusiveMaximum', 'uniqueItems', 'nullable'] as const) set(k, bool(s[k]));
  if (Object.hasOwn(s, 'default')) n.default = s['default'];
  if (s['x-kubernetes-preserve-unknown-fields'] === true) n.preserveUnknown = true;
  if (s['x-kubernetes-int-or-string'] === true) n.intOrString = true;
  if (s['x-kubernetes-embedded-resource'] === true) n.embedded = true;
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[k];
    if (Array.isArray(list)) n[k] = list.map(compileSchema);
  }
  if (isPlainObject(s['not'])) n.not = compileSchema(s['not']);
  return n;
}

/** Bounds the errors of one write: a hostile body must not make a huge answer. */
const MAX_CAUSES = 100;

// ---- defaulting and pruning (structural defaulting, then pruning: the codec's order) ----

/**
 * Fills absent properties that have a default, in place, at every level. A null field the schema does not
 * declare nullable is defaulted when it has a default and removed otherwise (defaulting/prunenulls.go and
 * algorithm.go); nulls in lists stay, for validation to refuse.
 */
export function applyDefaults(value: unknown, n: SchemaNode): void {
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v !== null) continue;
      const p = n.properties?.get(k) ?? (n.additional === true ? undefined : n.additional);
      if (p && !p.nullable && p.default === undefined) delete value[k];
      else if (p && !p.nullable) setOwn(value, k, clone(p.default));
    }
    if (n.properties) {
      for (const [k, p] of n.properties) {
        const present = own(value, k);
        if (present === undefined && p.default !== undefined) setOwn(value, k, clone(p.default));
        const v = own(value, k);
        if (v !== undefined && v !== null) applyDefaults(v, p);
      }
    } else if (n.additional && n.additional !== true) {
      for (const v of Object.values(value)) if (v !== null) applyDefaults(v, n.additional);
    }
  } else if (Array.isArray(value) && n.items) {
    for (const v of value) if (v !== null) applyDefaults(v, n.items);
  }
}

/** Calls `unknown` for every field the schema does not name (where it does not preserve unknown fields). */
function walkUnknown(
  value: unknown,
  n: SchemaNode,
  root: boolean,
  path: string,
  unknown: (obj: Record<string, unknown>, key: string, path: string) => void,
): void {
  if (isPlainObject(value)) {
    if (n.preserveUnknown && !n.properties && !n.additional) return;
    for (const k of Object.keys(value)) {
      if ((root || n.embedded) && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const child = path ? `${path}.${k}` : k;
      const p = n.properties?.get(k) ?? (n.additional === true ? undefined : n.additional);
      if (p) walkUnknown(value[k], p, false, child, unknown);
      else if (n.additional !== true && !n.preserveUnknown) unknown(value, k, child);
    }
  } else if (Array.isArray(value) && n.items) {
    value.forEach((v, i) => walkUnknown(v, n.items!, false, `${path}[${i}]`, unknown));
  }
}

/** Removes fields the schema does not name (unless it preserves them), in place. `root` keeps apiVersion/kind/metadata. */
export function prune(value: unknown, n: SchemaNode, root = false): void {
  walkUnknown(value, n, root, '', (obj, key) => delete obj[key]);
}

/** The paths of the fields pruning would drop (what fieldValidation=Strict refuses), at most MAX_CAUSES. */
export function unknownFields(obj: Record<string, unknown>, root: SchemaNode): string[] {
  const out: string[] = [];
  walkUnknown(obj, root, true, '', (_obj, _key, path) => {
    if (out.length < MAX_CAUSES) out.push(path);
  });
  return out;
}

// ---- validation ----

/** The JSON type go-openapi names for a value. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** A value fits a schema type when go-openapi names it so (an integer is a number too; unknown types pass). */
function typeMatches(type: string, v: unknown): boolean {
  const actual = typeName(v);
  return actual === type || (type === 'number' && actual === 'integer') || !SCHEMA_TYPES.has(type);
}

const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** Go's %v of a number in a message: integers plain, others as Go prints float64. */
function goNumber(v: number): string {
  return String(v);
}

const invalid = (path: string, value: unknown, detail: string): StatusCause => fieldError.invalid(path, value, `${path} in body ${detail}`);

/** The field errors of a value against a node; `path` is the field path (`spec.replicas`, `spec.list[0]`). */
export function validateValue(value: unknown, n: SchemaNode, path: string, out: StatusCause[]): void {
  if (out.length >= MAX_CAUSES) return;
  if (value === null) {
    if (n.nullable || (!n.type && !n.intOrString)) return;
    out.push({ reason: 'FieldValueTypeInvalid', message: `Invalid value: "null": ${path} in body must be of type ${n.type ?? 'string'}: "null"`, field: path });
    return;
  }
  if (n.intOrString) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      out.push({
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: "${typeName(value)}": ${path} in body must be of type integer,string: "${typeName(value)}"`,
        field: path,
      });
      return;
    }
  } else if (n.type && !typeMatches(n.type, value)) {
    out.push({
      reason: 'FieldValueTypeInvalid',
      message: `Invalid value: "${typeName(value)}": ${path} in body must be of type ${n.type}: "${typeName(value)}"`,
      field: path,
    });
    return;
  }
  if (n.enum && !n.enumKeys?.has(JSON.stringify(value))) {
    const supported = n.enum.map((e) => JSON.stringify(e)).join(', ');
    out.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`, field: path });
  }
  if (typeof value === 'string') validateString(value, n, path, out);
  else if (typeof value === 'number') validateNumber(value, n, path, out);
  else if (Array.isArray(value)) validateArray(value, n, path, out);
  else if (isPlainObject(value)) validateObject(value, n, path, out);
  for (const sub of n.allOf ?? []) validateValue(value, sub, path, out);
  if (n.anyOf && !n.anyOf.some((s) => errorsOf(value, s, path).length === 0)) {
    out.push(invalid(path, value, 'must validate at least one schema (anyOf)'));
  }
  if (n.oneOf && n.oneOf.filter((s) => errorsOf(value, s, path).length === 0).length !== 1) {
    out.push(invalid(path, value, 'must validate one and only one schema (oneOf)'));
  }
  if (n.not && errorsOf(value, n.not, path).length === 0) out.push(invalid(path, value, 'must not validate the schema (not)'));
}

function errorsOf(value: unknown, n: SchemaNode, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  validateValue(value, n, path, out);
  return out;
}

function validateString(v: string, n: SchemaNode, path: string, out: StatusCause[]): void {
  const length = [...v].length;
  if (n.maxLength !== undefined && length > n.maxLength) {
    out.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${n.maxLength} bytes`, field: path });
  }
  if (n.minLength !== undefined && length < n.minLength) out.push(invalid(path, v, `should be at least ${n.minLength} chars long`));
  if (n.pattern?.test(v) === false) out.push(invalid(path, v, `should match '${n.patternText}'`));
  if (n.format && !n.intOrString) {
    const problem = formatProblem(n.format, v);
    if (problem) out.push(invalid(path, v, `must be of type ${n.format}: ${JSON.stringify(v)}`));
  }
}

function validateNumber(v: number, n: SchemaNode, path: string, out: StatusCause[]): void {
  if (n.maximum !== undefined && (n.exclusiveMaximum ? v >= n.maximum : v > n.maximum)) {
    out.push(invalid(path, v, `should be less than ${n.exclusiveMaximum ? '' : 'or equal to '}${goNumber(n.maximum)}`));
  }
  if (n.minimum !== undefined && (n.exclusiveMinimum ? v <= n.minimum : v < n.minimum)) {
    out.push(invalid(path, v, `should be greater than ${n.exclusiveMinimum ? '' : 'or equal to '}${goNumber(n.minimum)}`));
  }
  if (n.multipleOf !== undefined && n.multipleOf > 0 && !Number.isInteger(v / n.multipleOf)) {
    out.push(invalid(path, v, `should be a multiple of ${goNumber(n.multipleOf)}`));
  }
}

function validateArray(v: unknown[], n: SchemaNode, path: string, out: StatusCause[]): void {
  if (n.maxItems !== undefined && v.length > n.maxItems) {
    out.push({ reason: 'FieldValueTooMany', message: `Too many: ${v.length}: must have at most ${n.maxItems} items`, field: path });
  }
  if (n.minItems !== undefined && v.length < n.minItems) out.push(invalid(path, v, `should have at least ${n.minItems} items`));
  if (n.uniqueItems) {
    const seen = new Set(v.map((x) => JSON.stringify(x)));
    if (seen.size !== v.length) out.push(invalid(path, v, "shouldn't contain duplicates"));
  }
  if (n.items) v.forEach((item, i) => validateValue(item, n.items!, `${path}[${i}]`, out));
}

function validateObject(v: Record<string, unknown>, n: SchemaNode, path: string, out: StatusCause[]): void {
  const keys = Object.keys(v);
  if (n.maxProperties !== undefined && keys.length > n.maxProperties) {
    out.push({ reason: 'FieldValueTooMany', message: `Too many: ${keys.length}: must have at most ${n.maxProperties} items`, field: path });
  }
  if (n.minProperties !== undefined && keys.length < n.minProperties) out.push(invalid(path, v, `should have at least ${n.minProperties} properties`));
  for (const r of n.required ?? []) {
    if (own(v, r) === undefined) out.push(fieldError.required(path ? `${path}.${r}` : r));
  }
  for (const k of keys) {
    if (v[k] === undefined) continue;
    const child = path ? `${path}.${k}` : k;
    const p = n.properties?.get(k);
    if (p) validateValue(v[k], p, child, out);
    else if (n.additional && n.additional !== true) validateValue(v[k], n.additional, child, out);
  }
}

/** A custom resource's errors against its version's root schema (apiVersion, kind, metadata checked elsewhere). */
export function validateObjectAgainst(obj: Record<string, unknown>, root: SchemaNode): StatusCause[] {
  const out: StatusCause[] = [];
  guardBudget.left = 3;
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata' && v !== undefined) body[k] = v;
  const rootNode: SchemaNode = { ...root, required: (root.required ?? []).filter((r) => r !== 'apiVersion' && r !== 'kind' && r !== 'metadata') };
  validateValue(body, rootNode, '', out);
  // The schema may constrain metadata.name and generateName, and nothing else of metadata.
  const meta = root.properties?.get('metadata')?.properties;
  const metadata = isPlainObject(obj['metadata']) ? obj['metadata'] : {};
  for (const field of ['name', 'generateName']) {
    const node = meta?.get(field);
    const v = own(metadata, field);
    if (node && typeof v === 'string' && v !== '') validateValue(v, node, `metadata.${field}`, out);
  }
  return out.slice(0, MAX_CAUSES);
}
