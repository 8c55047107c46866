// What-if: what a deployment would change, without changing anything. Each resource the template
// deploys is read through its provider (in-process GET): absent → Create; present → Modify with the
// property-level delta, or NoChange. Other resources of the group are Ignore (Incremental mode
// leaves them alone). Values only the running deployment knows stay as their expressions. Only what the template
// states is compared: members the service fills in (read-only ones, defaults) are not changes, as in ARM's what-if.
// Arrays of named items are compared item by item, matched by name, and a change inside one is reported as ARM
// reports it: an Array change whose children are the items (by index) and their members' changes.
import { ArmError } from '../../arm/errors.js';
import { invokeRoute, type InProcessCaller } from '../../arm/invoke.js';
import type { Plan } from '../../templates/engine.js';
import { isObject } from '../../templates/functions/types.js';
import { idKey, sameId } from '../../ids/compare.js';

interface PropertyChange {
  path: string;
  propertyChangeType: 'Create' | 'Delete' | 'Modify' | 'Array';
  before?: unknown;
  after?: unknown;
  children?: PropertyChange[];
}

/**
 * Arrays whose items a PUT leaves alone when the request does not list them, by resource type and path: a cluster's
 * agentPoolProfiles (pools are deleted through the agentPools API, providers/containerservice/clusters.ts). Elsewhere an
 * item the template does not list is a Delete.
 */
const KEEPS_UNLISTED: Record<string, readonly string[]> = {
  'microsoft.containerservice/managedclusters': ['properties.agentPoolProfiles'],
};

/** The item's name, when the array's items are objects with names (pools, subnets, rules). */
function nameOf(item: unknown): string | undefined {
  return isObject(item) && typeof item['name'] === 'string' ? item['name'] : undefined;
}

interface WhatIfChange {
  resourceId: string;
  changeType: 'Create' | 'Modify' | 'NoChange' | 'Ignore';
  before?: unknown;
  after?: unknown;
  delta?: PropertyChange[];
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Members of `desired` that differ from `current`: what the PUT would change. `keeps`: KEEPS_UNLISTED of the type. */
function delta(current: unknown, desired: unknown, path = '', keeps: readonly string[] = []): PropertyChange[] {
  if (isObject(desired)) {
    if (!isObject(current)) return [{ path, propertyChangeType: current === undefined ? 'Create' : 'Modify', before: current, after: desired }];
    return Object.entries(desired).flatMap(([k, v]) => {
      const key = Object.keys(current).find((c) => sameId(c, k));
      const child = path === '' ? k : `${path}.${k}`;
      if (key === undefined) return v === undefined || v === null ? [] : [{ path: child, propertyChangeType: 'Create' as const, after: v }];
      return delta(current[key], v, child, keeps);
    });
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(current)) return [{ path, propertyChangeType: current === undefined ? 'Create' : 'Modify', before: current, after: desired }];
    const children = desired.every((d) => nameOf(d) !== undefined) ? namedItems(current, desired, keeps.includes(path)) : indexedItems(current, desired);
    return children.length === 0 ? [] : [{ path, propertyChangeType: 'Array', children }];
  }
  if (typeof desired === 'string' && typeof current === 'string' && sameId(desired, current) && /^(location|.*id)$/i.test(path.split('.').pop() ?? ''))
    return [];
  return sameJson(current, desired) ? [] : [{ path, propertyChangeType: current === undefined ? 'Create' : 'Modify', before: current, after: desired }];
}

/** Items matched by name: each desired one against the current one of its name; current ones left out are kept or deleted. */
function namedItems(current: unknown[], desired: unknown[], keepsUnlisted: boolean): PropertyChange[] {
  const out: PropertyChange[] = desired.flatMap((d, i): PropertyChange[] => {
    const at = current.findIndex((c) => nameOf(c) !== undefined && sameId(nameOf(c)!, nameOf(d)!));
    if (at < 0) return [{ path: String(i), propertyChangeType: 'Create', after: d }];
    const inner = delta(current[at], d);
    return inner.length === 0 ? [] : [{ path: String(i), propertyChangeType: 'Modify', children: inner }];
  });
  if (keepsUnlisted) return out;
  current.forEach((c, i) => {
    if (!desired.some((d) => nameOf(c) !== undefined && sameId(nameOf(c)!, nameOf(d)!))) out.push({ path: String(i), propertyChangeType: 'Delete', before: c });
  });
  return out;
}

/** Items matched by position. */
function indexedItems(current: unknown[], desired: unknown[]): PropertyChange[] {
  const out: PropertyChange[] = desired.flatMap((d, i): PropertyChange[] => {
    if (i >= current.length) return [{ path: String(i), propertyChangeType: 'Create', after: d }];
    const inner = delta(current[i], d);
    if (inner.length === 0) return [];
    return isObject(d) || Array.isArray(d)
      ? [{ path: String(i), propertyChangeType: 'Modify', children: inner }]
      : [{ path: String(i), propertyChangeType: 'Modify', before: current[i], after: d }];
  });
  for (let i = desired.length; i < current.length; i++) out.push({ path: String(i), propertyChangeType: 'Delete', before: current[i] });
  return out;
}

const TOP_LEVEL = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/[^/]+\/[^/]+\/[^/]+$/i;

/**
 * The changes a plan would make. A nested deployment validated with its parent contributes the
 * changes of its own resources, as ARM's what-if expands nested deployments.
 */
export function whatIf(plan: Plan, caller: InProcessCaller): WhatIfChange[] {
  const changes: WhatIfChange[] = [];
  const planned = new Set<string>();
  for (const inst of plan.order) {
    if (!inst.deploy || inst.existing) continue;
    const child = plan.nested.get(inst);
    if (child) {
      for (const c of whatIf(child, caller)) if (!changes.some((x) => sameId(x.resourceId, c.resourceId))) changes.push(c);
      continue;
    }
    planned.add(idKey(inst.id));
    const desired = plan.preview.get(inst) ?? {};
    const after = { id: inst.id, name: inst.name, type: inst.type, apiVersion: inst.apiVersion, ...desired };
    let current: Record<string, unknown> | undefined;
    try {
      current = invokeRoute(caller, { method: 'GET', path: inst.id, apiVersion: inst.apiVersion }).body as Record<string, unknown>;
    } catch (err) {
      // Absent, or in a group the deployment has yet to create.
      if (!(err instanceof ArmError) || err.status !== 404) throw err;
    }
    if (!current) {
      changes.push({ resourceId: inst.id, changeType: 'Create', after });
      continue;
    }
    const d = delta(current, desired, '', KEEPS_UNLISTED[inst.type.toLowerCase()]);
    changes.push({
      resourceId: inst.id,
      changeType: d.length > 0 ? 'Modify' : 'NoChange',
      before: { apiVersion: inst.apiVersion, ...current },
      after: { apiVersion: inst.apiVersion, ...current, ...desired },
      ...(d.length > 0 ? { delta: d } : {}),
    });
  }
  const groupId = plan.ctx.scope.resourceGroup?.id;
  if (groupId === undefined) return changes;
  for (const { key } of caller.store.list(`${groupId}/providers/`)) {
    if (TOP_LEVEL.test(key) && !planned.has(idKey(key)) && !/\/Microsoft\.Resources\/deployments\//i.test(key)) {
      changes.push({ resourceId: key, changeType: 'Ignore' });
    }
  }
  return changes;
}
