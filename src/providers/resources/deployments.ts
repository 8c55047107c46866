// Microsoft.Resources/deployments at resource-group and subscription scope: PUT (long-running),
// GET, LIST, DELETE, validate, whatIf, exportTemplate, the operations a deployment ran, and the
// status URL its PUT hands out (…/deployments/{name}/operationStatuses/{id}, as ARM does). The two
// scopes share every handler; what differs is where the deployment lives (home()).
import { ArmError, deploymentActive, deploymentNotFound, operationNotFound, resourceGroupBeingDeleted } from '../../arm/errors.js';
import { getSubscription } from '../../arm/identity.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { planDeployment, renderParameters, type Plan } from '../../templates/engine.js';
import { getResourceGroup, type ResourceGroup } from './resourceGroups.js';
import {
  checkDeploymentName,
  dependenciesOf,
  deploymentId,
  providersOf,
  readDeploymentRequest,
  render,
  DEPLOYMENT_TYPE,
  type DeploymentRecord,
  type DeploymentRequest,
  type OperationRecord,
} from './deploymentsRecord.js';
import { callerFor, DEPLOYMENT_DELETE, DEPLOYMENT_WRITE, existingGroups, scopeOf, type DeploymentInput } from './deploymentsRun.js';
import { deploymentSummary, deploymentTemplate, loadDeployment, pageOfDeployments, saveDeployment } from './deploymentsStore.js';
import { whatIf } from './deploymentsWhatIf.js';
import { sameId } from '../../ids/compare.js';

const GROUP_DEPLOYMENTS = '/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}/providers/Microsoft.Resources/deployments';
const SUBSCRIPTION_DEPLOYMENTS = '/subscriptions/{subscriptionId}/providers/Microsoft.Resources/deployments';
const ACTIVE = new Set(['Accepted', 'Running']);

/** Where a deployment lives: a resource group, or (no group) the subscription itself. */
interface Home {
  subscriptionId: string;
  group?: ResourceGroup;
  /** The id deployments are listed under. */
  scopeId: string;
}

function home(ctx: RequestContext): Home {
  const groupName = ctx.params['resourceGroupName'];
  if (groupName !== undefined) {
    const group = getResourceGroup(ctx.store, ctx.params['subscriptionId']!, groupName);
    return { subscriptionId: /^\/subscriptions\/([^/]+)/i.exec(group.id)![1]!, group, scopeId: group.id };
  }
  const subscriptionId = getSubscription(ctx.store, ctx.params['subscriptionId']!)!.subscriptionId;
  return { subscriptionId, scopeId: `/subscriptions/${subscriptionId}` };
}

function idOf(ctx: RequestContext, h: Home): string {
  return deploymentId(h.subscriptionId, h.group?.name, ctx.params['deploymentName']!);
}

/** The deployment the path names: its small record, or (full) the whole of it. */
function requested(ctx: RequestContext, full = false): DeploymentRecord {
  const id = idOf(ctx, home(ctx));
  const record = full ? loadDeployment(ctx.store, id) : deploymentSummary(ctx.store, id);
  if (!record) throw deploymentNotFound(ctx.params['deploymentName']!);
  return record;
}

/**
 * ARM's rule on a deployment's location: required outside a resource group (where it says where the
 * deployment's data is kept), and the group's own at group scope.
 */
function checkLocation(ctx: RequestContext, h: Home, request: DeploymentRequest): void {
  if (!h.group && !request.location) {
    throw new ArmError(
      400,
      'InvalidDeployment',
      `The 'location' property must be specified for '${ctx.params['deploymentName']!}'. Please see https://aka.ms/arm-deployment-subscription for usage details.`,
    );
  }
}

/** Validates the request's template against its parameters: ARM's InvalidTemplate when it is not. */
function plan(ctx: RequestContext, h: Home, request: DeploymentRequest): Plan {
  return planDeployment({
    template: request.template,
    parameters: request.parameters,
    scope: scopeOf(ctx.store, h.subscriptionId, h.group, ctx.params['deploymentName']!, ctx.baseUrl, request.location),
    groups: existingGroups(ctx.store),
  });
}

function properties(
  p: Plan,
  provisioningState: DeploymentRecord['properties']['provisioningState'],
  now: string,
  correlationId: string,
): DeploymentRecord['properties'] {
  return {
    templateHash: p.templateHash,
    parameters: renderParameters(p),
    mode: 'Incremental',
    provisioningState,
    timestamp: now,
    duration: 'PT0S',
    correlationId,
    providers: providersOf(p),
    dependencies: dependenciesOf(p),
  };
}

function put(ctx: RequestContext) {
  // The deployment starts when ARM accepts the request: validation is part of its duration.
  const now = new Date().toISOString();
  checkDeploymentName(ctx.params['deploymentName']!);
  const request = readDeploymentRequest(ctx, 'deploy');
  const h = home(ctx);
  if (h.group?.properties.provisioningState === 'Deleting') throw resourceGroupBeingDeleted(h.group.name);
  checkLocation(ctx, h, request);
  const id = idOf(ctx, h);
  const existing = deploymentSummary(ctx.store, id);
  if (existing && ACTIVE.has(existing.properties.provisioningState)) throw deploymentActive(existing.name);
  const p = plan(ctx, h, request);
  const record: Omit<DeploymentRecord, 'aksemu'> = {
    id,
    name: existing?.name ?? ctx.params['deploymentName']!,
    type: DEPLOYMENT_TYPE,
    ...(request.location ? { location: request.location } : {}),
    ...(request.tags ? { tags: request.tags } : {}),
    properties: properties(p, 'Accepted', now, ctx.requestId),
  };
  const input: DeploymentInput = {
    template: request.template,
    parameters: request.parameters,
    principal: ctx.principal,
    baseUrl: ctx.baseUrl,
    loose: ctx.loose,
    strict: ctx.strict,
    requestId: ctx.requestId,
  };
  return ctx.lro.begin(ctx, {
    kind: DEPLOYMENT_WRITE,
    namespace: 'Microsoft.Resources',
    location: h.group?.location ?? request.location!,
    resourceId: id,
    method: 'PUT',
    input,
    prepare: (operationId) => {
      // A new run replaces the previous one's history.
      ctx.store.deletePrefix(`${id}/`);
      saveDeployment(ctx.store, { ...record, aksemu: { operationId, startTime: now } }, request.template);
    },
    response: { status: existing ? 200 : 201, body: record },
    headers: 'async-operation',
    statusPath: (operationId) => `${id}/operationStatuses/${operationId}`,
  });
}

function validate(ctx: RequestContext) {
  checkDeploymentName(ctx.params['deploymentName']!);
  const request = readDeploymentRequest(ctx, 'deploy');
  const h = home(ctx);
  checkLocation(ctx, h, request);
  const p = plan(ctx, h, request);
  const body = {
    id: idOf(ctx, h),
    name: ctx.params['deploymentName']!,
    type: DEPLOYMENT_TYPE,
    ...(request.location ? { location: request.location } : {}),
    properties: {
      ...properties(p, 'Succeeded', new Date().toISOString(), ctx.requestId),
      validatedResources: p.order.filter((i) => i.deploy && !i.existing).map((i) => ({ id: i.id })),
    },
  };
  return { status: 200, body };
}

function postWhatIf(ctx: RequestContext) {
  checkDeploymentName(ctx.params['deploymentName']!);
  const request = readDeploymentRequest(ctx, 'whatIf');
  const h = home(ctx);
  checkLocation(ctx, h, request);
  const p = plan(ctx, h, request);
  const caller = callerFor(ctx.store, ctx.registry, ctx.lro, {
    principal: ctx.principal,
    baseUrl: ctx.baseUrl,
    loose: ctx.loose,
    strict: ctx.strict,
    requestId: ctx.requestId,
  });
  return { status: 200, body: { status: 'Succeeded', properties: { changes: whatIf(p, caller) } } };
}

function list(ctx: RequestContext) {
  const path = `${home(ctx).scopeId}/providers/${DEPLOYMENT_TYPE}`;
  const filter = /provisioningState\s+eq\s+'([^']*)'/i.exec(ctx.query.get('$filter') ?? '')?.[1];
  let summaries = ctx.store
    .list<DeploymentRecord>(`${path}/`, { children: true })
    .map((e) => e.value)
    .filter((r) => filter === undefined || sameId(r.properties.provisioningState, filter));
  const top = Number(ctx.query.get('$top'));
  if (Number.isInteger(top) && top > 0) summaries = summaries.slice(0, top);
  // Pages by size: a nextLink carries the same query and where the next page starts.
  const skip = Number(ctx.query.get('$skiptoken') ?? 0);
  const page = pageOfDeployments(ctx.store, summaries, Number.isInteger(skip) && skip > 0 ? skip : 0);
  if (page.next === undefined) return { status: 200, body: { value: page.value } };
  const query = new URLSearchParams(ctx.query);
  query.set('$skiptoken', String(page.next));
  return { status: 200, body: { value: page.value, nextLink: `${ctx.baseUrl}${path}?${query.toString()}` } };
}

function remove(ctx: RequestContext) {
  const h = home(ctx);
  const record = deploymentSummary(ctx.store, idOf(ctx, h));
  if (!record) return { status: 204 };
  if (ACTIVE.has(record.properties.provisioningState)) throw deploymentActive(record.name);
  return ctx.lro.begin(ctx, {
    kind: DEPLOYMENT_DELETE,
    namespace: 'Microsoft.Resources',
    location: h.group?.location ?? record.location ?? 'global',
    resourceId: record.id,
    method: 'DELETE',
    response: { status: 202 },
    headers: 'async-operation+location',
  });
}

function operationStatus(ctx: RequestContext) {
  const record = requested(ctx);
  const op = ctx.lro.get(ctx.params['operationId']!);
  if (!op || !sameId(op.resourceId, record.id)) throw operationNotFound(ctx.params['operationId']!);
  // Deployments report Running, not InProgress, while they run.
  const status = op.status === 'InProgress' ? 'Running' : op.status;
  return { status: 200, body: { status, ...(op.error ? { error: op.error } : {}) } };
}

function operations(ctx: RequestContext) {
  const record = requested(ctx);
  const value = ctx.store.list<OperationRecord>(`${record.id}/operations/`, { children: true }).map((e) => e.value);
  return { status: 200, body: { value } };
}

function operation(ctx: RequestContext) {
  const record = requested(ctx);
  const found = ctx.store.get<OperationRecord>(`${record.id}/operations/${ctx.params['operationId']!}`);
  if (!found) throw operationNotFound(ctx.params['operationId']!);
  return { status: 200, body: found };
}

function routesAt(collection: string): Route[] {
  const one = `${collection}/{deploymentName}`;
  return [
    { method: 'PUT', path: one, rawBody: true, handle: put },
    { method: 'GET', path: one, handle: (ctx) => ({ status: 200, body: render(requested(ctx, true)) }) },
    {
      method: 'HEAD',
      path: one,
      handle: (ctx) => {
        requested(ctx);
        return { status: 204 };
      },
    },
    { method: 'DELETE', path: one, handle: remove },
    { method: 'GET', path: collection, handle: list },
    { method: 'POST', path: `${one}/validate`, rawBody: true, handle: validate },
    { method: 'POST', path: `${one}/whatIf`, rawBody: true, handle: postWhatIf },
    {
      method: 'POST',
      path: `${one}/exportTemplate`,
      handle: (ctx) => ({ status: 200, body: { template: deploymentTemplate(ctx.store, requested(ctx).id) } }),
    },
    { method: 'GET', path: `${one}/operations`, handle: operations },
    { method: 'GET', path: `${one}/operations/{operationId}`, handle: operation },
    { method: 'GET', path: `${one}/operationStatuses/{operationId}`, apiVersions: 'any', handle: operationStatus },
  ];
}

export const deploymentRoutes: Route[] = [...routesAt(GROUP_DEPLOYMENTS), ...routesAt(SUBSCRIPTION_DEPLOYMENTS)];
