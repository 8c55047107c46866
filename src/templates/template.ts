// The shape of an ARM deployment template (resource-group scope), and the structural checks ARM
// makes before evaluating anything (members of the right JSON type, ARM's counts of parameters,
// variables and outputs), so that evaluation never meets a shape it cannot walk.
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import { isObject } from './functions/types.js';
import { LIMITS, templateCountExceeded } from './limits.js';
import { isTemplateType } from './parameters.js';
import { violationAt } from './violations.js';
import { own } from '../http/own.js';

export interface ParameterDecl {
  /** Absent when `$ref` names a user-defined type (languageVersion 2.0). */
  type: string;
  $ref?: string;
  nullable?: boolean;
  defaultValue?: unknown;
  allowedValues?: unknown[];
  minValue?: number;
  maxValue?: number;
  minLength?: number;
  maxLength?: number;
  metadata?: unknown;
}

interface CopyDecl {
  name: string;
  count: unknown;
  mode?: string;
  batchSize?: unknown;
  input?: unknown;
}

export interface ResourceDecl {
  type: string;
  apiVersion: string;
  name: string;
  condition?: unknown;
  dependsOn?: unknown[];
  copy?: CopyDecl;
  resources?: ResourceDecl[];
  existing?: boolean;
  comments?: string;
  [member: string]: unknown;
}

interface OutputDecl {
  type: string;
  $ref?: string;
  value?: unknown;
  condition?: unknown;
  copy?: CopyDecl;
}

/** A user-defined function: `functions: [{namespace, members: {name: {parameters, output}}}]`. */
export interface UserFunctionDecl {
  name: string;
  parameters: Array<{ name: string; type?: string }>;
  output: { type?: string; value: unknown };
}

export interface Template {
  $schema?: string;
  contentVersion: string;
  /** "2.0": symbolic resource names, user-defined types. */
  languageVersion?: string;
  /** User-defined types, by name (`$ref: "#/definitions/<name>"`). */
  definitions: Record<string, unknown>;
  /** User-defined functions by lower-case "namespace.name". */
  functions: Map<string, UserFunctionDecl>;
  parameters: Record<string, ParameterDecl>;
  variables: Record<string, unknown>;
  resources: ResourceDecl[];
  outputs: Record<string, OutputDecl>;
  metadata?: unknown;
}

// Resource-group and subscription deployment templates (the scope itself is the deployment's URL's).
/** The symbolic name of each resource of a languageVersion 2.0 template (the key of `resources`). */
export const symbolicNames = new WeakMap<object, string>();

const LANGUAGE_VERSIONS = new Set(['1.0', '2.0']);

const RG_SCHEMA = /(?:^|\/)(?:subscriptionD|d)eploymentTemplate\.json#?$/i;

/** Checks the members ARM requires and returns the template with its optional sections filled in. */
export function readTemplate(value: unknown): Template {
  if (!isObject(value)) throw invalidTemplate('The template is not a JSON object.');
  const schema = own(value, '$schema');
  if (typeof schema === 'string' && !RG_SCHEMA.test(schema)) throw invalidTemplate(templateSentences.schemaNotSupported());
  const contentVersion = own(value, 'contentVersion');
  if (typeof contentVersion !== 'string') {
    throw invalidTemplate("Required property 'contentVersion' not found in JSON. Path 'properties.template'.", violationAt(value, 'properties.template'));
  }
  const languageVersion = own(value, 'languageVersion');
  if (languageVersion !== undefined && !(typeof languageVersion === 'string' && LANGUAGE_VERSIONS.has(languageVersion))) {
    throw invalidTemplate(
      `The template language version '${String(languageVersion)}' is not supported. Supported versions are '1.0, 2.0'. Please see https://aka.ms/arm-syntax for usage details.`,
      violationAt(value, 'properties.template'),
    );
  }
  const v2 = languageVersion === '2.0';
  const declared = own(value, 'resources') ?? (v2 ? {} : []);
  let resources: unknown[];
  if (v2 && isObject(declared)) {
    // Symbolic names: the object's keys; the declarations stay the parsed objects (their positions kept).
    resources = Object.entries(declared).map(([symbol, r]) => {
      if (isObject(r)) symbolicNames.set(r, symbol);
      return r;
    });
  } else if (Array.isArray(declared)) resources = declared;
  else {
    throw invalidTemplate(
      v2
        ? "The template 'resources' property must be an object keyed by symbolic name or an array."
        : 'The template \'resources\' property must be an array. Symbolic resource names need "languageVersion": "2.0".',
      violationAt(value, 'properties.template'),
    );
  }
  resources.forEach((r, i) => checkResource(r, `properties.template.resources[${i}]`));
  const parameters = section(value, 'parameters') as Record<string, ParameterDecl>;
  for (const [name, p] of Object.entries(parameters)) {
    if (!isObject(p) || (typeof p['type'] !== 'string' && typeof p['$ref'] !== 'string')) {
      throw invalidTemplate(`The template parameter '${name}' must have a 'type'.`, violationAt(p, `properties.template.parameters.${name}`));
    }
  }
  const variables = section(value, 'variables');
  const outputs = section(value, 'outputs') as Record<string, OutputDecl>;
  for (const [name, o] of Object.entries(outputs)) checkOutput(name, o);
  const counts = { parameters: Object.keys(parameters).length, variables: variableCount(variables), outputs: Object.keys(outputs).length };
  for (const [kind, n] of Object.entries(counts) as Array<[keyof typeof counts, number]>) {
    if (n > LIMITS[kind]) throw templateCountExceeded(kind, n);
  }
  const metadata = own(value, 'metadata');
  return {
    ...(typeof schema === 'string' ? { $schema: schema } : {}),
    contentVersion,
    ...(typeof languageVersion === 'string' ? { languageVersion } : {}),
    definitions: section(value, 'definitions'),
    functions: userFunctions(value),
    parameters,
    variables,
    resources: resources as ResourceDecl[],
    outputs,
    ...(metadata !== undefined ? { metadata } : {}),
  };
}

/** A section of named members (parameters, variables, outputs): an object, {} when absent. */
function section(template: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = own(template, name) ?? {};
  if (!isObject(value)) throw invalidTemplate(`The template '${name}' property must be a JSON object.`, violationAt(template, 'properties.template'));
  return value;
}

/** Variables: each named member, and each loop in the "copy" array. */
function variableCount(variables: Record<string, unknown>): number {
  let n = 0;
  for (const [name, v] of Object.entries(variables)) {
    if (name.toLowerCase() !== 'copy') {
      n++;
      continue;
    }
    if (!Array.isArray(v) || !v.every((c) => isObject(c) && typeof c['name'] === 'string' && Object.hasOwn(c, 'count') && Object.hasOwn(c, 'input'))) {
      throw invalidTemplate(
        "The template variable 'copy' must be an array of objects with 'name', 'count' and 'input'. Please see https://aka.ms/arm-copy for usage details.",
        violationAt(variables, 'properties.template.variables.copy'),
      );
    }
    n += v.length;
  }
  return n;
}

/** `functions`: an array of namespaces, each with its members. */
function userFunctions(template: Record<string, unknown>): Map<string, UserFunctionDecl> {
  const out = new Map<string, UserFunctionDecl>();
  const declared = own(template, 'functions') ?? [];
  const bad = (why: string) =>
    invalidTemplate(
      `The template 'functions' are not valid: ${why}. Please see https://aka.ms/arm-syntax-functions for usage details.`,
      violationAt(declared, 'properties.template.functions'),
    );
  if (!Array.isArray(declared)) throw bad("'functions' must be an array");
  for (const ns of declared) {
    if (!isObject(ns) || typeof ns['namespace'] !== 'string' || !isObject(ns['members'])) throw bad("each namespace needs a 'namespace' and 'members'");
    for (const [name, f] of Object.entries(ns['members'])) {
      const output = isObject(f) ? f['output'] : undefined;
      const params = isObject(f) ? (f['parameters'] ?? []) : undefined;
      if (
        !isObject(output) ||
        !Object.hasOwn(output, 'value') ||
        !Array.isArray(params) ||
        !params.every((p) => isObject(p) && typeof p['name'] === 'string')
      ) {
        throw bad(`the function '${ns['namespace']}.${name}' needs 'parameters' (each with a 'name') and an 'output' with a 'value'`);
      }
      out.set(`${ns['namespace']}.${name}`.toLowerCase(), {
        name: `${ns['namespace']}.${name}`,
        parameters: params as UserFunctionDecl['parameters'],
        output: output as UserFunctionDecl['output'],
      });
    }
  }
  return out;
}

function checkOutput(name: string, o: unknown): void {
  const path = `properties.template.outputs.${name}`;
  if (!isObject(o) || (!isTemplateType(o['type']) && typeof o['$ref'] !== 'string')) {
    throw invalidTemplate(
      `The template output '${name}' must have a 'type': one of 'String, SecureString, Int, Bool, Object, SecureObject, Array'.`,
      violationAt(o, path),
    );
  }
  const copy = own(o, 'copy');
  if (copy !== undefined && !(isObject(copy) && Object.hasOwn(copy, 'count') && Object.hasOwn(copy, 'input'))) {
    throw invalidTemplate(
      `The 'copy' of the template output '${name}' must be an object with 'count' and 'input'. Please see https://aka.ms/arm-copy for usage details.`,
      violationAt(o, path),
    );
  }
}

function checkResource(r: unknown, path: string): void {
  if (!isObject(r)) throw invalidTemplate(`The template resource at '${path}' is not a JSON object.`);
  for (const member of ['type', 'apiVersion', 'name'] as const) {
    if (typeof r[member] !== 'string') {
      throw invalidTemplate(`Required property '${member}' not found in JSON. Path '${path}'.`, violationAt(r, path));
    }
  }
  const dependsOn = own(r, 'dependsOn');
  if (dependsOn !== undefined && !Array.isArray(dependsOn)) {
    throw invalidTemplate(`The 'dependsOn' of the template resource at '${path}' must be an array.`, violationAt(r, path));
  }
  const copy = own(r, 'copy');
  if (copy !== undefined && !(isObject(copy) && typeof copy['name'] === 'string' && Object.hasOwn(copy, 'count'))) {
    throw invalidTemplate(
      `The 'copy' of the template resource at '${path}' must be an object with a 'name' and a 'count'. Please see https://aka.ms/arm-copy for usage details.`,
      violationAt(r, path),
    );
  }
  const children = own(r, 'resources');
  if (children !== undefined) {
    if (!Array.isArray(children)) throw invalidTemplate(`The 'resources' of the template resource at '${path}' must be an array.`, violationAt(r, path));
    children.forEach((c, i) => checkResource(c, `${path}.resources[${i}]`));
  }
}
