// az group create/show/list/delete/exists (Microsoft.Resources, api-version 2021-04-01; az uses
// the lower-case `resourcegroups` path for these, docs/clients.md §2.2).
import { API } from '../api-versions.js';
import { flag, list, str, type ArgDef } from '../args.js';
import type { ResourceBody } from '../bodies.js';
import type { CommandDef, Invocation } from '../command.js';
import { longRunning } from '../command.js';
import { toAzView } from '../models/model.js';
import { listAll } from './common.js';
import { parseTags } from '../tags.js';

const NAME: ArgDef = { dest: 'name', options: ['--name', '-n', '--resource-group', '-g'], required: true, help: 'Name of resource group' };

function groupPath(ctx: Invocation, name: string): string {
  return `/subscriptions/${ctx.subscriptionId()}/resourcegroups/${encodeURIComponent(name)}`;
}

const view = (body: unknown) => toAzView('res.ResourceGroup', body);

/** resource commands.py transform_resource_group_list */
function groupTable(result: unknown): unknown {
  return (result as ResourceBody[]).map((r) => ({ Name: r['name'], Location: r['location'], Status: r['properties']?.['provisioningState'] }));
}

export const groupCommands: CommandDef[] = [
  {
    name: 'group create',
    help: 'Create a new resource group.',
    args: [
      NAME,
      { dest: 'location', options: ['--location', '-l'], required: true, help: 'Location' },
      { dest: 'tags', options: ['--tags'], type: 'list', help: 'Space-separated tags: key[=value]' },
      { dest: 'managedBy', options: ['--managed-by'], help: 'The ID of the resource that manages this resource group' },
    ],
    async run(ctx, args) {
      const body: Record<string, unknown> = { location: str(args, 'location') };
      const tags = parseTags(list(args, 'tags'));
      if (tags !== undefined) body['tags'] = tags;
      if (str(args, 'managedBy') !== undefined) body['managedBy'] = str(args, 'managedBy');
      const res = await ctx.client().send({ method: 'PUT', path: groupPath(ctx, str(args, 'name')!), apiVersion: API.resources, body, accept: [200, 201] });
      return view(res.body);
    },
  },
  {
    name: 'group show',
    help: 'Gets a resource group.',
    args: [NAME],
    async run(ctx, args) {
      const res = await ctx.client().send({ method: 'GET', path: groupPath(ctx, str(args, 'name')!), apiVersion: API.resources, accept: [200] });
      return view(res.body);
    },
  },
  {
    name: 'group list',
    help: 'List resource groups.',
    args: [{ dest: 'tag', options: ['--tag'], help: "a single tag in 'key[=value]' format" }],
    table: groupTable,
    async run(ctx, args) {
      const query: Record<string, string> = {};
      const tag = str(args, 'tag');
      if (tag !== undefined) {
        const [key, value] = tag.split('=', 2);
        query['$filter'] = value !== undefined && value !== '' ? `tagName eq '${key}' and tagValue eq '${value}'` : `tagName eq '${key}'`;
      }
      const items = await listAll(ctx, `/subscriptions/${ctx.subscriptionId()}/resourcegroups`, API.resources, query);
      return items.map(view);
    },
  },
  {
    name: 'group delete',
    help: 'Delete a resource group.',
    args: [
      NAME,
      { dest: 'yes', options: ['--yes', '-y'], type: 'flag', help: 'Do not prompt for confirmation.' },
      { dest: 'noWait', options: ['--no-wait'], type: 'flag', help: 'Do not wait for the long-running operation to finish.' },
      { dest: 'forceDeletionTypes', options: ['--force-deletion-types', '-f'], help: 'Resource types to force-delete' },
    ],
    async run(ctx, args) {
      await ctx.confirm('Are you sure you want to perform this operation?', flag(args, 'yes'));
      const query: Record<string, string> = {};
      const force = str(args, 'forceDeletionTypes');
      if (force !== undefined) query['forceDeletionTypes'] = force;
      await longRunning(
        ctx,
        { method: 'DELETE', path: groupPath(ctx, str(args, 'name')!), apiVersion: API.resources, query, accept: [200, 202] },
        flag(args, 'noWait'),
      );
      return undefined;
    },
  },
  {
    name: 'group exists',
    help: 'Check if a resource group exists.',
    args: [NAME],
    async run(ctx, args) {
      const res = await ctx.client().send({ method: 'HEAD', path: groupPath(ctx, str(args, 'name')!), apiVersion: API.resources, accept: [204, 404] });
      return res.status === 204;
    },
  },
];
