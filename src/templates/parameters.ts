// Binding a deployment's parameter values to the template's declarations: types, defaults (which
// may be expressions over other parameters), allowed values and bounds, as ARM checks them before
// anything is deployed.
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import { evaluateDeep } from './expression/evaluate.js';
import { type EvalEnv, inParameterDefault } from './expression/env.js';
import { measure } from './expression/measure.js';
import { TemplateLanguageError } from './expression/parser.js';
import { isObject, valueKey } from './functions/types.js';
import { toArmString } from './functions/strings.js';
import { typeName } from './functions/typeName.js';
import type { ParameterDecl, Template } from './template.js';
import { isUserType, jtokenType, matchesTemplateType, resolveType, typeProblem, type TypeDecl } from './userTypes.js';
import { violationAt } from './violations.js';

/** ARM's type names as GET deployment shows them (a Map: a type is user text, never a prototype key). */
const DISPLAY_TYPES = new Map(
  Object.entries({
    string: 'String',
    securestring: 'SecureString',
    int: 'Int',
    bool: 'Bool',
    object: 'Object',
    secureobject: 'SecureObject',
    array: 'Array',
  }),
);

/** A parameter's or output's type as GET deployment shows it. */
export function displayType(type: string): string {
  return DISPLAY_TYPES.get(type.toLowerCase()) ?? type;
}

/** The template types a parameter or output may declare. */
export function isTemplateType(type: unknown): type is string {
  return typeof type === 'string' && DISPLAY_TYPES.has(type.toLowerCase());
}

export function isSecure(type: string): boolean {
  return /^secure/i.test(type);
}

function matchesType(type: string, value: unknown): boolean {
  const fits = matchesTemplateType(type, value);
  if (fits === undefined) {
    throw invalidTemplate(
      `The template parameter type '${type}' is not valid. Allowed types are 'String, SecureString, Int, Bool, Object, SecureObject, Array'.`,
    );
  }
  return fits;
}

/** The supplied values as {name: {value}}; key-vault references are not something aksemu has. */
function suppliedValues(supplied: Record<string, unknown> | undefined): Map<string, { name: string; value: unknown }> {
  const out = new Map<string, { name: string; value: unknown }>();
  for (const [name, entry] of Object.entries(supplied ?? {})) {
    if (!isObject(entry) || !Object.hasOwn(entry, 'value')) {
      throw invalidTemplate(`The parameter '${name}' must be given as {"value": …}; key vault references are not supported by aksemu.`);
    }
    out.set(name.toLowerCase(), { name, value: entry['value'] });
  }
  return out;
}

/**
 * Returns a resolver for parameters('x'): values are bound lazily (a default may use an earlier or
 * later parameter) and checked once. `env` evaluates defaults (parameters, resourceGroup(), …).
 * The caller resolves every declared parameter up front, as ARM validates them all first.
 */
export function bindParameters(template: Template, supplied: Record<string, unknown> | undefined, env: () => EvalEnv): (name: string) => unknown {
  const given = suppliedValues(supplied);
  const declared = new Map(Object.entries(template.parameters).map(([name, decl]) => [name.toLowerCase(), { name, decl }]));
  const extra = [...given.values()].filter((g) => !declared.has(g.name.toLowerCase())).map((g) => g.name);
  if (extra.length > 0) throw invalidTemplate(templateSentences.parametersNotInTemplate(extra, Object.keys(template.parameters)));

  const bound = new Map<string, unknown>();
  const binding = new Set<string>();
  const resolve = (requested: string): unknown => {
    const key = requested.toLowerCase();
    if (bound.has(key)) return bound.get(key);
    const entry = declared.get(key);
    if (!entry) throw new TemplateLanguageError(templateSentences.parameterNotFound(requested));
    if (binding.has(key)) throw new TemplateLanguageError(`The template parameter '${entry.name}' refers to itself through its default value.`);
    binding.add(key);
    try {
      const value = bindOne(entry.name, entry.decl, given.get(key), env, template.definitions);
      bound.set(key, value);
      return value;
    } finally {
      binding.delete(key);
    }
  };
  return resolve;
}

function bindOne(
  name: string,
  declared: ParameterDecl,
  given: { value: unknown } | undefined,
  env: () => EvalEnv,
  definitions: Record<string, unknown>,
): unknown {
  const path = `properties.template.parameters.${name}`;
  const pos = violationAt(declared, path);
  // A user-defined type ($ref) brings its base type and constraints (languageVersion 2.0).
  const resolved = resolveType(declared as TypeDecl, definitions);
  if (typeof resolved === 'string') throw invalidTemplate(`The template parameter '${name}' is not valid: ${resolved}`, pos);
  const decl = resolved as ParameterDecl;
  let value: unknown;
  if (given !== undefined) value = given.value;
  else if (Object.hasOwn(decl, 'defaultValue')) {
    try {
      value = inParameterDefault(env(), () => evaluateDeep(decl.defaultValue, env()));
    } catch (err) {
      if (err instanceof TemplateLanguageError) {
        throw invalidTemplate(
          `The template parameter '${name}' at line '${pos?.lineNumber}' and column '${pos?.linePosition}' is not valid: ${err.message}`,
          pos,
        );
      }
      throw err;
    }
  } else if (decl.nullable === true) {
    // `param x string?`: no value is null.
    return null;
  } else {
    throw invalidTemplate(templateSentences.parameterValueNotProvided(name, pos?.lineNumber ?? 0, pos?.linePosition ?? 0), pos);
  }
  if (value === null && decl.nullable === true) return null;
  if (typeof decl.type !== 'string') throw invalidTemplate(`The template parameter '${name}' must have a 'type'.`, pos);
  if (!matchesType(decl.type, value)) {
    throw invalidTemplate(templateSentences.parameterTypeMismatch(jtokenType(decl.type), typeName(value)), pos);
  }
  if (isUserType(declared as TypeDecl)) {
    const problem = typeProblem(value, declared as TypeDecl, definitions);
    if (problem)
      throw invalidTemplate(
        `The template parameter '${name}' is not valid: ${problem}. Please see https://aka.ms/arm-syntax-parameters for usage details.`,
        pos,
      );
  }
  if (Array.isArray(decl.allowedValues)) {
    const allowed = decl.allowedValues;
    const keys = new Set(allowed.map(valueKey));
    const ok = Array.isArray(value) && decl.type.toLowerCase() === 'array' ? value.every((v) => keys.has(valueKey(v))) : keys.has(valueKey(value));
    if (!ok) {
      throw invalidTemplate(
        templateSentences.parameterNotAllowed(toArmString(value), name, pos?.lineNumber ?? 0, pos?.linePosition ?? 0, allowed.map(toArmString).join(',')),
        pos,
      );
    }
  }
  if (typeof value === 'string' || Array.isArray(value)) {
    if (typeof decl.minLength === 'number' && value.length < decl.minLength)
      throw invalidTemplate(templateSentences.parameterLength(name, 'greater', decl.minLength), pos);
    if (typeof decl.maxLength === 'number' && value.length > decl.maxLength)
      throw invalidTemplate(templateSentences.parameterLength(name, 'less', decl.maxLength), pos);
  }
  if (typeof value === 'number') {
    if (typeof decl.minValue === 'number' && value < decl.minValue)
      throw invalidTemplate(templateSentences.parameterRange(name, 'greater', decl.minValue), pos);
    if (typeof decl.maxValue === 'number' && value > decl.maxValue) throw invalidTemplate(templateSentences.parameterRange(name, 'less', decl.maxValue), pos);
  }
  // ARM's size limit applies to the template with its parameter values in it.
  try {
    env().budget.expand(measure(value).size);
  } catch (err) {
    if (err instanceof TemplateLanguageError) throw invalidTemplate(`The template parameter '${name}' is not valid: ${err.message}`, pos);
    throw err;
  }
  return value;
}
