// A written CustomResourceDefinition checked as the apiextensions apiserver checks it
// (staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go: metadata.name is
// plural.group, a group with a dot, names that are DNS-1035 labels, a scope of Cluster or Namespaced, unique
// version names with exactly one storage version, a structural schema per version, printer columns, the scale
// subresource's paths, the conversion strategy; on update the group and plural, and once Established the scope
// and kind, are immutable). One pass over each schema, once per CRD write, so a 1 MB schema costs one walk.
import { isPlainObject } from '../../../http/own.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { fieldError, type StatusCause } from '../../apimachinery/status.js';
import { patternShape } from './patterns.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../apimachinery/names.js';
import { namesOf } from './definition.js';

type Obj = Record<string, unknown>;
const objectAt = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const notSupported = (field: string, value: string, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  field,
});
const forbidden = (field: string, detail: string): StatusCause => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field });

function enumString(field: string, value: string, accepted: string[], out: StatusCause[]): void {
  if (value === '') out.push(fieldError.required(field));
  else if (!accepted.includes(value)) out.push(notSupported(field, value, accepted));
}

/** What Go prints for spec.versions in a message (%v of the list): the version names are what a reader needs. */
function versionsValue(versions: Obj[]): string {
  return `[${versions.map((v) => text(v['name'])).join(' ')}]`;
}

function checkNames(names: Obj, kind: string, path: string, out: StatusCause[]): void {
  const plural = text(names['plural']);
  const singular = text(names['singular']);
  for (const [field, value] of [
    ['plural', plural],
    ['singular', singular],
  ] as const) {
    const errs = isDNS1035Label(value);
    if (value !== '' && errs.length > 0) out.push(fieldError.invalid(`${path}.${field}`, value, errs.join(',')));
  }
  const kindErrs = isDNS1035Label(kind.toLowerCase());
  if (kind !== '' && kindErrs.length > 0) {
    out.push(fieldError.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`));
  }
  const listKind = text(names['listKind']);
  const listErrs = isDNS1035Label(listKind.toLowerCase());
  if (listKind !== '' && listErrs.length > 0) {
    out.push(fieldError.invalid(`${path}.listKind`, listKind, `may have mixed case, but should otherwise match: ${listErrs.join(',')}`));
  }
  if (listKind !== '' && listKind === kind) out.push(fieldError.invalid(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  const shortNames = Array.isArray(names['shortNames']) ? names['shortNames'] : [];
  shortNames.forEach((s, i) => {
    const errs = isDNS1035Label(text(s));
    if (errs.length > 0) out.push(fieldError.invalid(`${path}.shortNames[${i}]`, s, errs.join(',')));
  });
  const categories = Array.isArray(names['categories']) ? names['categories'] : [];
  categories.forEach((c, i) => {
    const errs = isDNS1035Label(text(c));
    if (errs.length > 0) out.push(fieldError.invalid(`${path}.categories[${i}]`, c, errs.join(',')));
  });
}

const SCHEMA_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
/** Bounds the walk: hostile schemas nest deep (the body's own depth limit is checked before). */
const MAX_SCHEMA_ERRORS = 50;

/**
 * The structural-schema rules (apiextensions' pkg/apiserver/schema/validation.go): every node says its type
 * unless it is x-kubernetes-int-or-string or preserves unknown fields, properties and additionalProperties are
 * mutually exclusive, arrays have items, the root is an object, metadata at the root names only name and
 * generateName. Messages as validateStructuralInvariants words them.
 */
function checkStructural(s: unknown, path: string, out: StatusCause[], root: boolean): void {
  if (out.length >= MAX_SCHEMA_ERRORS) return;
  if (!isPlainObject(s)) {
    out.push(fieldError.invalid(path, s, 'must be an object'));
    return;
  }
  const type = text(s['type']);
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (type === '' && !intOrString && !preserve) {
    out.push(fieldError.required(`${path}.type`, root ? 'must not be empty at the root' : 'must not be empty for specified object fields'));
  } else if (type !== '' && !SCHEMA_TYPES.includes(type)) {
    out.push(notSupported(`${path}.type`, type, SCHEMA_TYPES));
  }
  if (root && type !== '' && type !== 'object') out.push(fieldError.invalid(`${path}.type`, type, 'must be object at the root'));
  if (isPlainObject(s['properties']) && s['additionalProperties'] !== undefined && s['additionalProperties'] !== true) {
    out.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s['additionalProperties'] === false) out.push(forbidden(`${path}.additionalProperties`, 'must not be used in structural schemas'));
  if (type === 'array' && !isPlainObject(s['items'])) out.push(fieldError.required(`${path}.items`, 'must be specified'));
  if (s['$ref'] !== undefined) out.push(forbidden(`${path}.$ref`, '$ref is not supported'));
  // regexp.Compile (RE2) refuses what a backtracking engine would choke on; JavaScript cannot tell its other errors.
  const re2 = typeof s['pattern'] === 'string' ? patternShape(s['pattern']).re2Error : undefined;
  if (re2) out.push(fieldError.invalid(`${path}.pattern`, s['pattern'], `must be a valid regular expression, but isn't: error parsing regexp: ${re2}`));
  if (isPlainObject(s['properties'])) {
    for (const [k, v] of Object.entries(s['properties'])) {
      if (root && k === 'metadata' && isPlainObject(v) && isPlainObject(v['properties'])) {
        const extra = Object.keys(v['properties']).filter((p) => p !== 'name' && p !== 'generateName');
        if (extra.length > 0)
          out.push(
            forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'),
          );
        continue;
      }
      checkStructural(v, `${path}.properties[${k}]`, out, false);
    }
  }
  if (isPlainObject(s['additionalProperties'])) checkStructural(s['additionalProperties'], `${path}.additionalProperties`, out, false);
  if (isPlainObject(s['items'])) checkStructural(s['items'], `${path}.items`, out, false);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[k];
    if (Array.isArray(list)) list.forEach((sub, i) => checkJunctor(sub, `${path}.${k}[${i}]`, out, intOrString));
  }
  if (s['not'] !== undefined) checkJunctor(s['not'], `${path}.not`, out, false);
}

/**
 * Inside allOf/anyOf/oneOf/not a structural schema sets no type, default, description or nullable — except the
 * types of x-kubernetes-int-or-string's own `anyOf: [{type: integer}, {type: string}]` (what quantities use).
 */
function checkJunctor(s: unknown, path: string, out: StatusCause[], intOrString: boolean): void {
  if (!isPlainObject(s)) return;
  for (const k of ['type', 'default', 'description', 'nullable', 'x-kubernetes-preserve-unknown-fields'] as const) {
    if (k === 'type' && intOrString && (s[k] === 'integer' || s[k] === 'string')) continue;
    if (s[k] !== undefined) out.push(forbidden(`${path}.${k}`, 'must be empty to be structural'));
  }
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'name', 'password'];

function checkColumns(columns: unknown, path: string, out: StatusCause[]): void {
  if (!Array.isArray(columns)) return;
  columns.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const col = objectAt(c);
    if (text(col['name']) === '') out.push(fieldError.required(`${p}.name`));
    const type = text(col['type']);
    if (type === '') out.push(fieldError.required(`${p}.type`));
    else if (!COLUMN_TYPES.includes(type)) out.push(notSupported(`${p}.type`, type, COLUMN_TYPES));
    const format = text(col['format']);
    if (format !== '' && !COLUMN_FORMATS.includes(format)) out.push(notSupported(`${p}.format`, format, COLUMN_FORMATS));
    if (text(col['jsonPath']) === '') out.push(fieldError.required(`${p}.jsonPath`));
    if (typeof col['priority'] === 'number' && col['priority'] < 0) out.push(fieldError.invalid(`${p}.priority`, col['priority'], 'must be non-negative'));
  });
}

function checkSubresources(sub: unknown, path: string, out: StatusCause[]): void {
  const scale = objectAt(sub)['scale'];
  if (!isPlainObject(scale)) return;
  const spec = text(scale['specReplicasPath']);
  const status = text(scale['statusReplicasPath']);
  if (spec === '') out.push(fieldError.required(`${path}.scale.specReplicasPath`));
  else if (!spec.startsWith('.spec.')) out.push(fieldError.invalid(`${path}.scale.specReplicasPath`, spec, 'should be a json path under .spec'));
  if (status === '') out.push(fieldError.required(`${path}.scale.statusReplicasPath`));
  else if (!status.startsWith('.status.')) out.push(fieldError.invalid(`${path}.scale.statusReplicasPath`, status, 'should be a json path under .status'));
  const selector = scale['labelSelectorPath'];
  if (typeof selector === 'string' && !selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
    out.push(fieldError.invalid(`${path}.scale.labelSelectorPath`, selector, 'should be a json path under either .spec or .status'));
  }
}

/** The causes of a 422 for a written CRD (after defaulting); `existing` is the stored one an update replaces. */
export function validateDefinition(crd: KubeObject, existing?: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = objectAt(crd['spec']);
  const group = text(spec['group']);
  const names = objectAt(spec['names']);
  const n = namesOf(spec);
  if (crd.metadata.name !== `${n.plural}.${group}`)
    out.push(fieldError.invalid('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  if (group === '') out.push(fieldError.required('spec.group'));
  else {
    const errs = isDNS1123Subdomain(group);
    if (errs.length > 0) out.push(fieldError.invalid('spec.group', group, errs.join(',')));
    else if (!group.includes('.')) out.push(fieldError.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  enumString('spec.scope', text(spec['scope']), ['Cluster', 'Namespaced'], out);
  const versions = (Array.isArray(spec['versions']) ? spec['versions'] : []).map(objectAt);
  if (versions.length === 0) out.push(fieldError.required('spec.versions', 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  let storage = 0;
  let unique = true;
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    const name = text(v['name']);
    if (v['storage'] === true) storage++;
    if (seen.has(name)) unique = false;
    seen.add(name);
    const errs = isDNS1035Label(name);
    if (errs.length > 0) out.push(fieldError.invalid(`${p}.name`, name, errs.join(',')));
    const schema = objectAt(v['schema'])['openAPIV3Schema'];
    if (schema === undefined) out.push(fieldError.required(`${p}.schema.openAPIV3Schema`, 'schemas are required'));
    else checkStructural(schema, `${p}.schema.openAPIV3Schema`, out, true);
    checkSubresources(v['subresources'], `${p}.subresources`, out);
    checkColumns(v['additionalPrinterColumns'], `${p}.additionalPrinterColumns`, out);
  });
  if (!unique) out.push(fieldError.invalid('spec.versions', versionsValue(versions), 'must contain unique version names'));
  if (versions.length > 0 && storage !== 1)
    out.push(fieldError.invalid('spec.versions', versionsValue(versions), 'must have exactly one version marked as storage version'));
  for (const field of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (n[field] === '') out.push(fieldError.required(`spec.names.${field}`));
  }
  checkNames(names, n.kind, 'spec.names', out);
  const conversion = objectAt(spec['conversion']);
  enumString('spec.conversion.strategy', text(conversion['strategy']), ['None', 'Webhook'], out);
  if (conversion['strategy'] === 'Webhook' && !isPlainObject(objectAt(conversion['webhook'])['clientConfig'])) {
    out.push(fieldError.required('spec.conversion.webhook', 'required when strategy is set to Webhook'));
  }
  if (existing) {
    const old = objectAt(existing['spec']);
    const immutable = (field: string, a: unknown, b: unknown) => {
      if (a !== b) out.push(fieldError.invalid(field, a, 'field is immutable'));
    };
    immutable('spec.group', group, text(old['group']));
    immutable('spec.names.plural', n.plural, namesOf(old).plural);
    if (isEstablished(existing)) {
      immutable('spec.scope', text(spec['scope']), text(old['scope']));
      immutable('spec.names.kind', n.kind, namesOf(old).kind);
    }
  }
  return out;
}

export function isEstablished(crd: KubeObject): boolean {
  const conditions = objectAt(crd['status'])['conditions'];
  return Array.isArray(conditions) && conditions.some((c) => isPlainObject(c) && c['type'] === 'Established' && c['status'] === 'True');
}
