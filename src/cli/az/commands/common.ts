// Arguments and steps several command groups share.
import { API } from '../api-versions.js';
import type { ArgDef } from '../args.js';
import type { Invocation } from '../command.js';

export const RESOURCE_GROUP: ArgDef = { dest: 'resourceGroup', options: ['--resource-group', '-g'], required: true, help: 'Name of resource group' };
export const OPTIONAL_RESOURCE_GROUP: ArgDef = { ...RESOURCE_GROUP, required: false };
export const NAME: ArgDef = { dest: 'name', options: ['--name', '-n'], required: true, help: 'Name' };
export const LOCATION: ArgDef = { dest: 'location', options: ['--location', '-l'], help: "Location. Defaults to the resource group's location" };
export const TAGS: ArgDef = { dest: 'tags', options: ['--tags'], type: 'list', help: 'Space-separated tags: key[=value]' };
export const NO_WAIT: ArgDef = { dest: 'noWait', options: ['--no-wait'], type: 'flag', help: 'Do not wait for the long-running operation to finish.' };
export const YES: ArgDef = { dest: 'yes', options: ['--yes', '-y'], type: 'flag', help: 'Do not prompt for confirmation.' };

/** Commands without --location read the group's (docs/clients.md §3.3): GET …/resourcegroups/<rg>. */
export async function groupLocation(ctx: Invocation, resourceGroup: string): Promise<string> {
  const res = await ctx.client().send({
    method: 'GET',
    path: `/subscriptions/${ctx.subscriptionId()}/resourcegroups/${encodeURIComponent(resourceGroup)}`,
    apiVersion: API.resources,
    accept: [200],
  });
  return (res.body as { location: string }).location;
}

/** The pages of an ARM list, following nextLink as the SDK's ItemPaged does. */
export async function listAll(ctx: Invocation, path: string, apiVersion: string, query: Record<string, string> = {}): Promise<unknown[]> {
  const client = ctx.client();
  const items: unknown[] = [];
  let res = await client.send({ method: 'GET', path, apiVersion, query, accept: [200] });
  for (;;) {
    const body = res.body as { value?: unknown[]; nextLink?: string } | undefined;
    items.push(...(body?.value ?? []));
    if (!body?.nextLink) return items;
    res = await client.send({ method: 'GET', path: body.nextLink, accept: [200] });
  }
}
