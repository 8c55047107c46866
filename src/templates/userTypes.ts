// User-defined types (languageVersion 2.0, what Bicep's `type` declarations compile to): a
// parameter's or output's type is a declaration — `type`, or `$ref` to `definitions`, with
// `properties`, `additionalProperties`, `items`, `allowedValues`, bounds, `nullable` and a
// `discriminator` — and the value is checked against it, member by member. The first problem is
// reported with the path to the member (`.network.podCidr`, `[2]`).
import { isObject, valueKey } from './functions/types.js';
import { typeName } from './functions/typeName.js';

export interface TypeDecl {
  type?: string;
  $ref?: string;
  nullable?: boolean;
  properties?: Record<string, TypeDecl>;
  additionalProperties?: boolean | TypeDecl;
  items?: boolean | TypeDecl;
  allowedValues?: unknown[];
  minValue?: number;
  maxValue?: number;
  minLength?: number;
  maxLength?: number;
  discriminator?: { propertyName: string; mapping: Record<string, TypeDecl> };
  [member: string]: unknown;
}

const REF = /^#\/definitions\/(.+)$/;

/** The declaration with every `$ref` followed (its own constraints win over the referenced type's); undefined for a dangling one. */
export function resolveType(decl: TypeDecl, definitions: Record<string, unknown>, depth = 0): TypeDecl | string {
  if (typeof decl.$ref !== 'string') return decl;
  const name = REF.exec(decl.$ref)?.[1];
  const target = name === undefined ? undefined : definitions[name];
  if (!isObject(target) || depth > 32 || !Object.hasOwn(definitions, name!))
    return `The type reference '${decl.$ref}' is not defined in the template's 'definitions'.`;
  const resolved = resolveType(target as TypeDecl, definitions, depth + 1);
  if (typeof resolved === 'string') return resolved;
  const { $ref: _ref, ...own } = decl;
  return { ...resolved, ...own };
}

/** ARM's names of JSON values, as its type errors give them. */
const JTOKEN = new Map(
  Object.entries({
    string: 'String',
    securestring: 'String',
    int: 'Integer',
    bool: 'Boolean',
    object: 'Object',
    secureobject: 'Object',
    array: 'Array',
  }),
);

/** A template type's JSON name, as ARM's type errors give it (int → Integer). */
export function jtokenType(type: string): string {
  return JTOKEN.get(type.toLowerCase()) ?? type;
}

/** Whether the value is of the template type; undefined for a name that is no template type. */
export function matchesTemplateType(type: string, value: unknown): boolean | undefined {
  switch (type.toLowerCase()) {
    case 'string':
    case 'securestring':
      return typeof value === 'string';
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'object':
    case 'secureobject':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    default:
      return undefined;
  }
}

/** Whether a declaration uses anything beyond the 1.0 parameter members. */
export function isUserType(decl: TypeDecl): boolean {
  return ['$ref', 'properties', 'additionalProperties', 'items', 'discriminator', 'nullable'].some((m) => Object.hasOwn(decl, m));
}

/** The first way `value` does not fit `decl`, as "the value at '<path>' …"; undefined when it fits. */
export function typeProblem(value: unknown, decl: TypeDecl, definitions: Record<string, unknown>, path = ''): string | undefined {
  const t = resolveType(decl, definitions);
  if (typeof t === 'string') return t;
  const where = path === '' ? 'The value' : `The value at '${path}'`;
  if (value === null || value === undefined) return t.nullable === true ? undefined : `${where} is null, and its type is not nullable`;
  if (typeof t.type === 'string' && matchesTemplateType(t.type, value) === false) {
    return `${where} is not valid. Expected a value of type '${jtokenType(t.type)}' but the provided value is of type '${typeName(value)}'`;
  }
  if (Array.isArray(t.allowedValues)) {
    const keys = new Set(t.allowedValues.map(valueKey));
    const ok = Array.isArray(value) && !Array.isArray(t.allowedValues[0]) ? value.every((v) => keys.has(valueKey(v))) : keys.has(valueKey(value));
    if (!ok) return `${where} is not one of the allowed values '${t.allowedValues.map((v) => JSON.stringify(v)).join(', ')}'`;
  }
  if ((typeof value === 'string' || Array.isArray(value)) && typeof t.minLength === 'number' && value.length < t.minLength)
    return `${where} is shorter than the minimum length '${t.minLength}'`;
  if ((typeof value === 'string' || Array.isArray(value)) && typeof t.maxLength === 'number' && value.length > t.maxLength)
    return `${where} is longer than the maximum length '${t.maxLength}'`;
  if (typeof value === 'number' && typeof t.minValue === 'number' && value < t.minValue) return `${where} is less than the minimum value '${t.minValue}'`;
  if (typeof value === 'number' && typeof t.maxValue === 'number' && value > t.maxValue) return `${where} is greater than the maximum value '${t.maxValue}'`;
  if (Array.isArray(value) && isObject(t.items)) {
    for (let i = 0; i < value.length; i++) {
      const p = typeProblem(value[i], t.items as TypeDecl, definitions, `${path}[${i}]`);
      if (p) return p;
    }
  }
  if (isObject(value)) {
    if (isObject(t.discriminator)) {
      const { propertyName, mapping } = t.discriminator;
      const tag = value[propertyName];
      const variant = typeof tag === 'string' && isObject(mapping) && Object.hasOwn(mapping, tag) ? mapping[tag] : undefined;
      if (!variant) return `The value at '${path}.${propertyName}' is not one of the discriminator's values '${Object.keys(mapping ?? {}).join(', ')}'`;
      return typeProblem(value, variant, definitions, path);
    }
    const props = isObject(t.properties) ? (t.properties as Record<string, TypeDecl>) : undefined;
    if (props) {
      for (const [name, pdecl] of Object.entries(props)) {
        const p = typeProblem(Object.hasOwn(value, name) ? value[name] : undefined, pdecl, definitions, `${path}.${name}`);
        if (p) return Object.hasOwn(value, name) ? p : `The value at '${path}' is missing the required property '${name}'`;
      }
      for (const [name, v] of Object.entries(value)) {
        if (Object.hasOwn(props, name)) continue;
        if (t.additionalProperties === false) return `The value at '${path}' has the property '${name}', which its type does not allow`;
        if (isObject(t.additionalProperties)) {
          const p = typeProblem(v, t.additionalProperties as TypeDecl, definitions, `${path}.${name}`);
          if (p) return p;
        }
      }
    } else if (isObject(t.additionalProperties)) {
      for (const [name, v] of Object.entries(value)) {
        const p = typeProblem(v, t.additionalProperties as TypeDecl, definitions, `${path}.${name}`);
        if (p) return p;
      }
    }
  }
  return undefined;
}

/** The declared type's base JSON type ('string', 'object', …), following `$ref`. */
export function baseTypeOf(decl: TypeDecl, definitions: Record<string, unknown>): string | undefined {
  const t = resolveType(decl, definitions);
  return typeof t === 'string' ? undefined : t.type;
}
