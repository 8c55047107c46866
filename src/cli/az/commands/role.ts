// az role assignment create/list (Microsoft.Authorization, api-version 2020-04-01-preview), and the
// subnet role assignment `aks create --vnet-subnet-id` makes for the cluster identity (docs/clients.md §3.4.3).
// Without Microsoft Graph here, --assignee must be the principal's object id.
import { randomUUID } from 'node:crypto';
import { API } from '../api-versions.js';
import { flag, str, type ParsedArgs } from '../args.js';
import type { CommandDef, Invocation } from '../command.js';
import { AzCliError } from '../errors.js';
import { groupScope } from '../resource-id.js';
import { flattenProperties } from '../transforms.js';
import { listAll, OPTIONAL_RESOURCE_GROUP } from './common.js';
import { sameId } from '../../../ids/compare.js';

const NETWORK_CONTRIBUTOR_ID = '4d97b98b-1d4f-4787-a291-c67834d212e7';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Assignment {
  id?: string;
  name?: string;
  properties?: { scope?: string; roleDefinitionId?: string; principalId?: string };
}

/** A role name, GUID or definition id → the full roleDefinitionId (role/custom.py _resolve_role_id). */
async function resolveRoleId(ctx: Invocation, role: string, scope: string): Promise<string> {
  if (/\/providers\/Microsoft\.Authorization\/roleDefinitions\//i.test(role)) return role;
  if (GUID.test(role)) return `/subscriptions/${ctx.subscriptionId()}/providers/Microsoft.Authorization/roleDefinitions/${role}`;
  const found = await listAll(ctx, `${scope}/providers/Microsoft.Authorization/roleDefinitions`, API.roleDefinitions, { $filter: `roleName eq '${role}'` });
  if (found.length === 0) throw new AzCliError(`Role '${role}' doesn't exist.`);
  if (found.length > 1) throw new AzCliError(`Multiple role definitions are found for '${role}'. Please use the role definition id instead.`);
  return (found[0] as { id: string }).id;
}

async function createAssignment(ctx: Invocation, scope: string, roleDefinitionId: string, principalId: string, principalType?: string): Promise<unknown> {
  const properties: Record<string, string> = { roleDefinitionId, principalId };
  if (principalType !== undefined) properties['principalType'] = principalType;
  const res = await ctx.client().send({
    method: 'PUT',
    path: `${scope}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`,
    apiVersion: API.roleAssignments,
    body: { properties },
    accept: [201],
  });
  return res.body;
}

async function assignmentsAtScope(ctx: Invocation, scope: string): Promise<Assignment[]> {
  return (await listAll(ctx, `${scope}/providers/Microsoft.Authorization/roleAssignments`, API.roleAssignments, { $filter: 'atScope()' })) as Assignment[];
}

/** az skips role work when the subnet already grants Network Contributor at exactly that scope. */
export async function subnetHasNetworkContributor(ctx: Invocation, subnetId: string): Promise<boolean> {
  const assignments = await assignmentsAtScope(ctx, subnetId);
  return assignments.some((a) => a.properties?.scope === subnetId && (a.properties?.roleDefinitionId ?? '').toLowerCase().endsWith(NETWORK_CONTRIBUTOR_ID));
}

/** add_role_assignment for the cluster identity; az only warns when it fails. */
export async function assignNetworkContributor(ctx: Invocation, subnetId: string, principalId: string): Promise<void> {
  try {
    const roleId = await resolveRoleId(ctx, 'Network Contributor', subnetId);
    await createAssignment(ctx, subnetId, roleId, principalId);
  } catch (err) {
    if (err instanceof AzCliError && err.message.includes('The role assignment already exists.')) return;
    ctx.warn('Could not create a role assignment for subnet. Are you an Owner on this subscription?');
  }
}

/** role/_format.py transform_assignment_list */
function assignmentListTable(result: unknown): unknown {
  return (result as Record<string, unknown>[]).map((r) => ({ Principal: r['principalName'], Role: r['roleDefinitionName'], Scope: r['scope'] }));
}

function scopeOf(ctx: Invocation, args: ParsedArgs): string {
  const scope = str(args, 'scope');
  if (scope !== undefined) return scope;
  const rg = str(args, 'resourceGroup');
  return rg === undefined ? `/subscriptions/${ctx.subscriptionId()}` : groupScope(ctx.subscriptionId(), rg);
}

export const roleCommands: CommandDef[] = [
  {
    name: 'role assignment create',
    help: 'Create a new role assignment for a user, group, or service principal.',
    args: [
      { dest: 'role', options: ['--role'], required: true, help: 'Role name or id' },
      { dest: 'assignee', options: ['--assignee'], help: 'Object id of the principal (no Graph lookups here)' },
      { dest: 'assigneeObjectId', options: ['--assignee-object-id'], help: "The assignee's object id" },
      {
        dest: 'assigneePrincipalType',
        options: ['--assignee-principal-type'],
        choices: ['User', 'Group', 'ServicePrincipal', 'ForeignGroup'],
        help: 'Principal type',
      },
      { dest: 'scope', options: ['--scope'], help: 'Scope at which the role assignment applies' },
      OPTIONAL_RESOURCE_GROUP,
    ],
    async run(ctx, args) {
      const principal = str(args, 'assigneeObjectId') ?? str(args, 'assignee');
      if (principal === undefined) throw new AzCliError('usage error: --assignee STRING | --assignee-object-id GUID');
      if (!GUID.test(principal))
        throw new AzCliError(
          `Cannot find user or service principal in graph database for '${principal}'. If the assignee is an appId, make sure the corresponding service principal is created with 'az ad sp create --id ${principal}'.`,
        );
      const scope = scopeOf(ctx, args);
      const roleId = await resolveRoleId(ctx, str(args, 'role')!, scope);
      return flattenProperties(await createAssignment(ctx, scope, roleId, principal, str(args, 'assigneePrincipalType')));
    },
  },
  {
    name: 'role assignment list',
    help: 'List role assignments.',
    args: [
      { dest: 'assignee', options: ['--assignee'], help: 'Object id of the principal' },
      { dest: 'role', options: ['--role'], help: 'Role name or id' },
      { dest: 'scope', options: ['--scope'], help: 'Scope' },
      { dest: 'all', options: ['--all'], type: 'flag', help: 'Show all assignments under the current subscription' },
      OPTIONAL_RESOURCE_GROUP,
    ],
    table: assignmentListTable,
    async run(ctx, args) {
      const all = flag(args, 'all');
      if (all && (str(args, 'scope') !== undefined || str(args, 'resourceGroup') !== undefined)) {
        throw new AzCliError('group or scope are not required when --all is used');
      }
      let items: Record<string, unknown>[];
      if (all) {
        // assignments_client.list(): every assignment in the subscription, or one principal's.
        const path = `/subscriptions/${ctx.subscriptionId()}/providers/Microsoft.Authorization/roleAssignments`;
        const assignee = str(args, 'assignee');
        const query: Record<string, string> = assignee === undefined ? {} : { $filter: `principalId eq '${assignee}'` };
        items = (await listAll(ctx, path, API.roleAssignments, query)).map((a) => flattenProperties(a) as Record<string, unknown>);
      } else {
        // atScope() at the scope, then only the assignments made exactly there.
        const scope = scopeOf(ctx, args);
        items = (await assignmentsAtScope(ctx, scope)).map((a) => flattenProperties(a) as Record<string, unknown>);
        items = items.filter((a) => sameId(String(a['scope'] ?? ''), scope));
      }
      const assignee = str(args, 'assignee');
      if (assignee !== undefined) items = items.filter((a) => a['principalId'] === assignee);
      const role = str(args, 'role');
      const names = new Map<string, string>();
      for (const a of items) {
        const id = String(a['roleDefinitionId'] ?? '');
        if (!names.has(id)) {
          const res = await ctx.client().raw('GET', ctx.client().url(id, API.roleDefinitions));
          names.set(id, (res.body as { properties?: { roleName?: string } } | undefined)?.properties?.roleName ?? '');
        }
        a['roleDefinitionName'] = names.get(id);
        a['principalName'] = '';
      }
      if (role !== undefined)
        items = items.filter((a) => a['roleDefinitionName'] === role || String(a['roleDefinitionId']).toLowerCase().endsWith(role.toLowerCase()));
      return items;
    },
  },
];
