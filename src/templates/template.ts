// The shape of an ARM deployment template (resource-group scope), and the structural checks ARM
// makes before evaluating anything.
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import { isObject } from './functions/types.js';
import { violationAt } from './violations.js';

export interface ParameterDecl {
  type: string;
  defaultValue?: unknown;
  allowedValues?: unknown[];
  minValue?: number;
  maxValue?: number;
  minLength?: number;
  maxLength?: number;
  metadata?: unknown;
}

export interface CopyDecl {
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

export interface OutputDecl {
  type: string;
  value?: unknown;
  condition?: unknown;
  copy?: CopyDecl;
}

export interface Template {
  $schema?: string;
  contentVersion: string;
  parameters: Record<string, ParameterDecl>;
  variables: Record<string, unknown>;
  resources: ResourceDecl[];
  outputs: Record<string, OutputDecl>;
  metadata?: unknown;
}

const RG_SCHEMA = /deploymentTemplate\.json#?$/i;

/** Checks the members ARM requires and returns the template with its optional sections filled in. */
export function readTemplate(value: unknown): Template {
  if (!isObject(value)) throw invalidTemplate('The template is not a JSON object.');
  const schema = value['$schema'];
  if (typeof schema === 'string' && !RG_SCHEMA.test(schema)) throw invalidTemplate(templateSentences.schemaNotSupported());
  if (typeof value['contentVersion'] !== 'string') {
    throw invalidTemplate("Required property 'contentVersion' not found in JSON. Path 'properties.template'.", violationAt(value, 'properties.template'));
  }
  const resources = value['resources'] ?? [];
  if (!Array.isArray(resources)) {
    throw invalidTemplate("The template 'resources' property must be an array. Symbolic resource names (languageVersion 2.0) are not supported by aksemu.", violationAt(value, 'properties.template'));
  }
  resources.forEach((r, i) => checkResource(r, `properties.template.resources[${i}]`));
  const parameters = (value['parameters'] ?? {}) as Record<string, ParameterDecl>;
  for (const [name, p] of Object.entries(parameters)) {
    if (!isObject(p) || typeof p['type'] !== 'string') {
      throw invalidTemplate(`The template parameter '${name}' must have a 'type'.`, violationAt(p, `properties.template.parameters.${name}`));
    }
  }
  return {
    ...(typeof schema === 'string' ? { $schema: schema } : {}),
    contentVersion: value['contentVersion'],
    parameters,
    variables: (value['variables'] ?? {}) as Record<string, unknown>,
    resources: resources as ResourceDecl[],
    outputs: (value['outputs'] ?? {}) as Record<string, OutputDecl>,
    ...(value['metadata'] !== undefined ? { metadata: value['metadata'] } : {}),
  };
}

function checkResource(r: unknown, path: string): void {
  if (!isObject(r)) throw invalidTemplate(`The template resource at '${path}' is not a JSON object.`);
  for (const member of ['type', 'apiVersion', 'name'] as const) {
    if (typeof r[member] !== 'string') {
      throw invalidTemplate(`Required property '${member}' not found in JSON. Path '${path}'.`, violationAt(r, path));
    }
  }
  const children = r['resources'];
  if (children !== undefined) {
    if (!Array.isArray(children)) throw invalidTemplate(`The 'resources' of the template resource at '${path}' must be an array.`, violationAt(r, path));
    children.forEach((c, i) => checkResource(c, `${path}.resources[${i}]`));
  }
}
