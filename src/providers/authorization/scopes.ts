// Scopes as Microsoft.Authorization sees them: the tenant root, a subscription, a resource group, or
// a resource (nested up to three levels: …/virtualNetworks/v/subnets/s is two). Routes are declared
// once per depth, since a path template matches a fixed number of segments.
import { resourceGroupNotFound, resourceNotFound } from '../../arm/errors.js';
import type { RequestContext } from '../../arm/provider.js';
import type { Store } from '../../store/store.js';
import { idKey } from '../../ids/compare.js';
import { trimTrailingSlashes } from '../../ids/trim.js';

const SUB = '/subscriptions/{subscriptionId}';
const GROUP = `${SUB}/resourceGroups/{resourceGroupName}`;
const RESOURCE = `${GROUP}/providers/{scopeNamespace}/{scopeType1}/{scopeName1}`;

/** Path templates of every scope depth ('' is the tenant root). */
export const SCOPE_TEMPLATES: readonly string[] = [
  '',
  SUB,
  GROUP,
  RESOURCE,
  `${RESOURCE}/{scopeType2}/{scopeName2}`,
  `${RESOURCE}/{scopeType2}/{scopeName2}/{scopeType3}/{scopeName3}`,
];

/** The scope a request names, in the casing of its path (names) and ARM's canonical literals. */
export function scopeOf(ctx: Pick<RequestContext, 'params'>): string {
  const p = ctx.params;
  if (p['subscriptionId'] === undefined) return '/';
  let scope = `/subscriptions/${p['subscriptionId']}`;
  if (p['resourceGroupName'] === undefined) return scope;
  scope += `/resourceGroups/${p['resourceGroupName']}`;
  if (p['scopeNamespace'] === undefined) return scope;
  scope += `/providers/${p['scopeNamespace']}/${p['scopeType1']}/${p['scopeName1']}`;
  for (const level of [2, 3]) {
    if (p[`scopeType${level}`] === undefined) break;
    scope += `/${p[`scopeType${level}`]}/${p[`scopeName${level}`]}`;
  }
  return scope;
}

export function normalizeScope(scope: string): string {
  const trimmed = trimTrailingSlashes(scope);
  return trimmed === '' ? '/' : trimmed;
}

/** True when `outer` is `inner` or one of its ancestors (case-insensitive, segment-wise). */
export function scopeContains(outer: string, inner: string): boolean {
  const o = idKey(normalizeScope(outer));
  const i = idKey(normalizeScope(inner));
  return o === '/' || o === i || i.startsWith(`${o}/`);
}

/** The subscription id in a scope, if any. */
export function subscriptionOf(scope: string): string | undefined {
  return /^\/subscriptions\/([^/]+)/i.exec(scope)?.[1];
}

/** A scope that assignments are written to must exist: its group, and the resource when it is one. */
export function requireScopeExists(store: Store, scope: string): void {
  const group = /^(\/subscriptions\/[^/]+\/resourceGroups\/([^/]+))(\/providers\/(.+))?$/i.exec(scope);
  if (!group) return;
  if (store.get(group[1]!) === undefined) throw resourceGroupNotFound(group[2]!);
  if (group[4] !== undefined && store.get(scope) === undefined) {
    const path = group[4];
    throw resourceNotFound(path.slice(0, path.lastIndexOf('/')), path.slice(path.lastIndexOf('/') + 1), group[2]!);
  }
}
