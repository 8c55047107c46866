// az deployment group|sub create/validate/what-if/show/list/delete (Microsoft.Resources, api-version
// 2021-04-01, docs/clients.md §3.10). `group` deploys into a resource group (--resource-group), `sub`
// at the subscription (--location required: where the deployment is kept; no --mode, as az has none). Templates are JSON (comments allowed) or Bicep, which aksemu compiles
// itself (az would download the Bicep CLI). Parameters come as k=v (typed by the template), a JSON
// object, or @file (a parameters file), as az accepts them; create validates first, as az 2.45 does.
// Differences from az: the template goes on the wire as JSON, not spliced in as the file's raw text,
// so the line/column in InvalidTemplate refer to that JSON; what-if prints resources and property
// deltas, not az's full property listings.
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseJsonc } from '../../../templates/jsonc.js';
import { API } from '../api-versions.js';
import { flag, list, str, type ArgDef, type ParsedArgs } from '../args.js';
import type { CommandDef, Invocation } from '../command.js';
import { longRunning } from '../command.js';
import { AzCliError } from '../errors.js';
import type { ResourceBody } from '../bodies.js';
import { compileBicepForAz } from './bicep.js';
import { listAll, NO_WAIT, RESOURCE_GROUP } from './common.js';
import { sameId } from '../../../ids/compare.js';

const TEMPLATE_FILE: ArgDef = { dest: 'templateFile', options: ['--template-file', '-f'], help: 'A path to a template file or Bicep file' };
const PARAMETERS: ArgDef = { dest: 'parameters', options: ['--parameters', '-p'], type: 'list', help: 'Parameters: KEY=VALUE pairs, a JSON string, or @file' };
const DEPLOYMENT_NAME: ArgDef = { dest: 'name', options: ['--name', '-n'], help: 'The deployment name' };

/** The scopes az deploys at: what differs is the flags and the collection's path. */
interface Scope {
  word: 'group' | 'sub';
  /** The flags naming where (none for sub: the subscription is the account's). */
  where: ArgDef[];
  /** create/validate/what-if: --mode for group, the required --location for sub. */
  deployArgs: ArgDef[];
  path(ctx: Invocation, args: ParsedArgs): string;
  /** The help's "at resource group" / "at subscription scope". */
  at: string;
}

const GROUP: Scope = {
  word: 'group',
  where: [RESOURCE_GROUP],
  deployArgs: [{ dest: 'mode', options: ['--mode'], choices: ['Incremental', 'Complete'], help: 'The deployment mode' }],
  path: (ctx, args) =>
    `/subscriptions/${ctx.subscriptionId()}/resourcegroups/${encodeURIComponent(str(args, 'resourceGroup')!)}/providers/Microsoft.Resources/deployments`,
  at: 'resource group',
};

const SUBSCRIPTION: Scope = {
  word: 'sub',
  where: [],
  deployArgs: [{ dest: 'location', options: ['--location', '-l'], required: true, help: 'The location to store the deployment metadata' }],
  path: (ctx) => `/subscriptions/${ctx.subscriptionId()}/providers/Microsoft.Resources/deployments`,
  at: 'subscription scope',
};

interface LoadedTemplate {
  template: Record<string, unknown>;
  defaultName: string;
}

/** The template from --template-file: JSON(C) as is, Bicep compiled here. */
function loadTemplate(file: string): LoadedTemplate {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new AzCliError(`Please ensure the specified file path '${file}' is correct.`);
  }
  const defaultName = basename(file, extname(file));
  // Modules, imports and load functions are read relative to the file.
  if (extname(file).toLowerCase() === '.bicep') return { template: compileBicepForAz(file), defaultName };
  try {
    return { template: parseJsonc(text) as Record<string, unknown>, defaultName };
  } catch (err) {
    throw new AzCliError(`Failed to parse '${file}', please check whether it is a valid JSON format: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** k=v values take the template parameter's type, as az does. */
function typedValue(raw: string, type: string | undefined): unknown {
  switch ((type ?? 'string').toLowerCase()) {
    case 'int':
      if (!/^-?\d+$/.test(raw.trim())) throw new AzCliError(`Unable to convert '${raw}' to an integer.`);
      return Number(raw);
    case 'bool':
      return /^true$/i.test(raw.trim());
    case 'object':
    case 'secureobject':
    case 'array':
      try {
        return JSON.parse(raw);
      } catch {
        throw new AzCliError(`Unable to parse parameter value '${raw}' as JSON.`);
      }
    default:
      return raw;
  }
}

/** {name: {value}} from every --parameters argument, later ones winning. */
function collectParameters(args: string[] | undefined, template: Record<string, unknown>): Record<string, { value: unknown }> {
  const declared = (template['parameters'] ?? {}) as Record<string, { type?: string; defaultValue?: unknown; nullable?: boolean }>;
  const typeOf = (name: string) => Object.entries(declared).find(([k]) => sameId(k, name))?.[1]?.type;
  const out: Record<string, { value: unknown }> = {};
  const mergeObject = (obj: Record<string, unknown>) => {
    // A parameters file ({"$schema", "parameters": {…}}) or a bare {name: {value}} object.
    const params = (typeof obj['parameters'] === 'object' && obj['parameters'] !== null ? obj['parameters'] : obj) as Record<string, unknown>;
    for (const [k, v] of Object.entries(params)) {
      if (k === '$schema' || k === 'contentVersion') continue;
      out[k] = typeof v === 'object' && v !== null && 'value' in v ? { value: (v as { value: unknown }).value } : { value: v };
    }
  };
  for (const arg of args ?? []) {
    if (arg.startsWith('@')) {
      let text: string;
      try {
        text = readFileSync(arg.slice(1), 'utf8');
      } catch {
        throw new AzCliError(`Please ensure the specified file path '${arg.slice(1)}' is correct.`);
      }
      mergeObject(parseJsonc(text) as Record<string, unknown>);
    } else if (arg.trim().startsWith('{')) {
      mergeObject(parseJsonc(arg) as Record<string, unknown>);
    } else {
      const eq = arg.indexOf('=');
      if (eq <= 0) throw new AzCliError(`Unable to parse parameter: ${arg}. Please use the format KEY=VALUE, a JSON string or @file.`);
      const key = arg.slice(0, eq);
      out[key] = { value: typedValue(arg.slice(eq + 1), typeOf(key)) };
    }
  }
  // az asks for required values; without a terminal it stops (no prompting here).
  const missing = Object.entries(declared)
    // A nullable parameter (Bicep's `param x string?`) may be left out: it is null.
    .filter(([name, d]) => !('defaultValue' in (d ?? {})) && d?.nullable !== true && !Object.keys(out).some((k) => sameId(k, name)))
    .map(([name]) => name);
  if (missing.length > 0) throw new AzCliError(`Missing input parameters: ${missing.join(', ')}`);
  return out;
}

function requestBody(ctx: Invocation, args: ParsedArgs): { name: string; body: Record<string, unknown> } {
  const file = str(args, 'templateFile');
  if (file === undefined) throw new AzCliError('usage error: --template-file | --template-uri | --template-spec');
  const { template, defaultName } = loadTemplate(file);
  const parameters = collectParameters(list(args, 'parameters'), template);
  const properties: Record<string, unknown> = { template, parameters, mode: str(args, 'mode') ?? 'Incremental' };
  void ctx;
  const location = str(args, 'location');
  return { name: str(args, 'name') ?? defaultName, body: { ...(location !== undefined ? { location } : {}), properties } };
}

/** azure-cli's _build_preflight_error_message: "Code - message", details on their own lines. */
function preflightMessage(error: { code?: string; message?: string; details?: unknown[] }): string {
  const lines = [`${error.code} - ${error.message}`];
  for (const d of error.details ?? []) lines.push(preflightMessage(d as typeof error));
  return lines.join('\n');
}

async function validateFirst(ctx: Invocation, collection: string, name: string, body: Record<string, unknown>): Promise<unknown> {
  const res = await ctx.client().send({
    method: 'POST',
    path: `${collection}/${encodeURIComponent(name)}/validate`,
    apiVersion: API.resources,
    body,
    accept: [200, 202, 400],
  });
  const error = (res.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (error) throw new AzCliError(preflightMessage(error));
  return res.body;
}

const PROPERTY_KEYS = [
  'correlationId',
  'debugSetting',
  'dependencies',
  'duration',
  'error',
  'mode',
  'onErrorDeployment',
  'outputResources',
  'outputs',
  'parameters',
  'parametersLink',
  'providers',
  'provisioningState',
  'templateHash',
  'templateLink',
  'timestamp',
  'validatedResources',
];

/** DeploymentExtended as az prints it: every model attribute, null when absent. */
function deploymentView(body: unknown): Record<string, unknown> {
  const b = (body ?? {}) as ResourceBody;
  const p = (b['properties'] ?? {}) as Record<string, unknown>;
  return {
    id: b['id'] ?? null,
    location: b['location'] ?? null,
    name: b['name'] ?? null,
    properties: Object.fromEntries(PROPERTY_KEYS.map((k) => [k, p[k] ?? null])),
    tags: b['tags'] ?? null,
    type: b['type'] ?? null,
  };
}

function deploymentTable(result: unknown): unknown {
  return (result as ResourceBody[]).map((d) => ({
    Name: d['name'],
    State: d['properties']?.['provisioningState'],
    Timestamp: d['properties']?.['timestamp'],
    Mode: d['properties']?.['mode'],
    ResourceGroup: d['resourceGroup'],
  }));
}

const SYMBOLS: Record<string, [string, string]> = {
  Create: ['+', 'Create'],
  Delete: ['-', 'Delete'],
  Modify: ['~', 'Modify'],
  Deploy: ['!', 'Deploy'],
  NoChange: ['=', 'Nochange'],
  Ignore: ['*', 'Ignore'],
};
const SUMMARY: Record<string, string> = {
  Create: 'to create',
  Delete: 'to delete',
  Modify: 'to modify',
  Deploy: 'to deploy',
  NoChange: 'no change',
  Ignore: 'to ignore',
};

/** A what-if change as the server reports it: the members az prints. */
interface WhatIfChange {
  resourceId: string;
  changeType: string;
  after?: { apiVersion?: string };
  delta?: PropertyChange[];
}

interface PropertyChange {
  path: string;
  propertyChangeType: string;
  before?: unknown;
  after?: unknown;
  children?: PropertyChange[];
}

/** One property change and its children as az prints them: an array's items inside `[ … ]`, by index. */
function propertyLines(d: PropertyChange, indent: string): string[] {
  const sym = d.propertyChangeType === 'Create' ? '+' : d.propertyChangeType === 'Delete' ? '-' : '~';
  if (d.children) {
    const inner = d.children.flatMap((c) => propertyLines(c, `${indent}  `));
    return d.propertyChangeType === 'Array' ? [`${indent}${sym} ${d.path}: [`, ...inner, `${indent}  ]`] : [`${indent}${sym} ${d.path}:`, '', ...inner, ''];
  }
  const value =
    d.propertyChangeType === 'Create'
      ? JSON.stringify(d.after)
      : d.propertyChangeType === 'Delete'
        ? JSON.stringify(d.before)
        : `${JSON.stringify(d.before)} => ${JSON.stringify(d.after)}`;
  return [`${indent}${sym} ${d.path}: ${value}`];
}

/** az's what-if rendering (no colour): legend, scope, one line per resource, property deltas, summary. */
function formatWhatIf(changes: WhatIfChange[]): string {
  const present = Object.keys(SYMBOLS).filter((t) => changes.some((c) => c.changeType === t));
  const lines = [
    'Note: The result may contain false positive predictions (noise).',
    'You can help us improve the accuracy of the result by opening an issue here: https://aka.ms/WhatIfIssues',
    '',
    `Resource and property changes are indicated with ${present.length === 1 ? 'this symbol' : 'these symbols'}:`,
    ...present.map((t) => `  ${SYMBOLS[t]![0]} ${SYMBOLS[t]![1]}`),
    '',
    'The deployment will update the following scope:',
    '',
  ];
  const scopes = new Map<string, typeof changes>();
  for (const c of changes) {
    // A resource group itself belongs to its subscription's scope.
    const scope = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+(?=\/)/i.exec(c.resourceId)?.[0] ?? /^\/subscriptions\/[^/]+/i.exec(c.resourceId)?.[0] ?? '';
    scopes.set(scope, [...(scopes.get(scope) ?? []), c]);
  }
  for (const [scope, items] of scopes) {
    lines.push(`Scope: ${scope}`, '');
    for (const c of items) {
      const relative = c.resourceId.slice(scope.length).replace(/^\/(providers\/)?/, '');
      const apiVersion = c.after?.apiVersion && c.changeType !== 'Ignore' ? ` [${c.after.apiVersion}]` : '';
      lines.push(`  ${SYMBOLS[c.changeType]?.[0] ?? '?'} ${relative}${apiVersion}`);
      for (const d of c.delta ?? []) lines.push(...propertyLines(d, '      '));
      if ((c.delta ?? []).length > 0) lines.push('');
    }
    lines.push('');
  }
  const counts = present.map((t) => `${changes.filter((c) => c.changeType === t).length} ${SUMMARY[t]}`);
  lines.push(`Resource changes: ${counts.length > 0 ? counts.join(', ') : 'no change'}.`);
  return `${lines.join('\n')}\n`;
}

/** The six commands at one scope. */
function commandsAt(scope: Scope): CommandDef[] {
  const { word, where, deployArgs } = scope;
  return [
    {
      name: `deployment ${word} create`,
      help: `Start a deployment at ${scope.at}.`,
      args: [...where, TEMPLATE_FILE, PARAMETERS, DEPLOYMENT_NAME, ...deployArgs, NO_WAIT],
      async run(ctx, args) {
        const collection = scope.path(ctx, args);
        const { name, body } = requestBody(ctx, args);
        await validateFirst(ctx, collection, name, body);
        const result = await longRunning(
          ctx,
          { method: 'PUT', path: `${collection}/${encodeURIComponent(name)}`, apiVersion: API.resources, body, accept: [200, 201] },
          flag(args, 'noWait'),
        );
        return result === undefined ? undefined : deploymentView(result);
      },
    },
    {
      name: `deployment ${word} validate`,
      help: 'Validate whether a template is syntactically correct.',
      args: [...where, TEMPLATE_FILE, PARAMETERS, DEPLOYMENT_NAME, ...deployArgs],
      async run(ctx, args) {
        const collection = scope.path(ctx, args);
        const { name, body } = requestBody(ctx, args);
        const result = (await validateFirst(ctx, collection, name, body)) as Record<string, unknown>;
        return {
          error: null,
          id: result['id'] ?? null,
          name: result['name'] ?? null,
          properties: deploymentView(result)['properties'],
          type: result['type'] ?? null,
        };
      },
    },
    {
      name: `deployment ${word} what-if`,
      help: `Execute a deployment What-If operation at ${scope.at}.`,
      args: [
        ...where,
        TEMPLATE_FILE,
        PARAMETERS,
        DEPLOYMENT_NAME,
        ...deployArgs,
        {
          dest: 'resultFormat',
          options: ['--result-format', '-r'],
          choices: ['FullResourcePayloads', 'ResourceIdOnly'],
          help: 'The format of What-If results',
        },
        { dest: 'noPrettyPrint', options: ['--no-pretty-print'], type: 'flag', help: 'Disable pretty-print for What-If results' },
      ],
      async run(ctx, args) {
        const collection = scope.path(ctx, args);
        const { name, body } = requestBody(ctx, args);
        (body['properties'] as Record<string, unknown>)['whatIfSettings'] = { resultFormat: str(args, 'resultFormat') ?? 'FullResourcePayloads' };
        const initial = await ctx.client().send({
          method: 'POST',
          path: `${collection}/${encodeURIComponent(name)}/whatIf`,
          apiVersion: API.resources,
          body,
          accept: [200, 202],
        });
        const result = (
          initial.status === 202
            ? await longRunning(
                ctx,
                {
                  method: 'POST',
                  path: `${collection}/${encodeURIComponent(name)}/whatIf`,
                  apiVersion: API.resources,
                  body,
                  accept: [200, 202],
                },
                false,
              )
            : initial.body
        ) as { status?: string; error?: unknown; properties?: { changes?: WhatIfChange[] } };
        const changes = result.properties?.changes ?? [];
        if (flag(args, 'noPrettyPrint')) return { changes, error: result.error ?? null, status: result.status ?? null };
        process.stdout.write(formatWhatIf(changes));
        return undefined;
      },
    },
    {
      name: `deployment ${word} show`,
      help: 'Get the details of a deployment.',
      args: [...where, { ...DEPLOYMENT_NAME, required: true }],
      async run(ctx, args) {
        const res = await ctx.client().send({
          method: 'GET',
          path: `${scope.path(ctx, args)}/${encodeURIComponent(str(args, 'name')!)}`,
          apiVersion: API.resources,
          accept: [200],
        });
        return deploymentView(res.body);
      },
    },
    {
      name: `deployment ${word} list`,
      help: `List deployments at ${scope.at}.`,
      args: [...where, { dest: 'filter', options: ['--filter'], help: 'Filter expression using OData notation, e.g. "provisioningState eq \'{state}\'"' }],
      table: deploymentTable,
      async run(ctx, args) {
        const query: Record<string, string> = {};
        const filter = str(args, 'filter');
        if (filter !== undefined) query['$filter'] = filter;
        // az lists with a trailing slash (docs/clients.md §2.2).
        const items = await listAll(ctx, `${scope.path(ctx, args)}/`, API.resources, query);
        return items.map(deploymentView);
      },
    },
    {
      name: `deployment ${word} delete`,
      help: `Delete a deployment at ${scope.at}.`,
      args: [...where, { ...DEPLOYMENT_NAME, required: true }, NO_WAIT],
      async run(ctx, args) {
        await longRunning(
          ctx,
          {
            method: 'DELETE',
            path: `${scope.path(ctx, args)}/${encodeURIComponent(str(args, 'name')!)}`,
            apiVersion: API.resources,
            accept: [202, 204],
          },
          flag(args, 'noWait'),
        );
        return undefined;
      },
    },
  ];
}

export const deploymentCommands: CommandDef[] = [...commandsAt(GROUP), ...commandsAt(SUBSCRIPTION)];
