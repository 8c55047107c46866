// What the Network route handlers share: path templates, the group a request names, and lists.
import { resourceNotFound } from '../../arm/errors.js';
import { subscriptionKey, type SubscriptionRecord } from '../../arm/identity.js';
import type { RequestContext } from '../../arm/provider.js';
import type { Store } from '../../store/store.js';
import { getResourceGroup, type ResourceGroup } from '../resources/resourceGroups.js';
import { childrenOf, writableGroup } from './resource.js';

const SUBSCRIPTION = '/subscriptions/{subscriptionId}';
const GROUP = `${SUBSCRIPTION}/resourceGroups/{resourceGroupName}`;
export const IN_GROUP = `${GROUP}/providers/Microsoft.Network`;
export const IN_SUBSCRIPTION = `${SUBSCRIPTION}/providers/Microsoft.Network`;

export function param(ctx: RequestContext, name: string): string {
  return ctx.params[name]!;
}

/** The request's group for reading: ResourceGroupNotFound when missing. */
export function readGroup(ctx: RequestContext): ResourceGroup {
  return getResourceGroup(ctx.store, param(ctx, 'subscriptionId'), param(ctx, 'resourceGroupName'));
}

/** The request's group for writing: it must also not be being deleted. */
export function writeGroup(ctx: RequestContext): ResourceGroup {
  return writableGroup(ctx.store, param(ctx, 'subscriptionId'), param(ctx, 'resourceGroupName'));
}

/** `<group id>/providers/Microsoft.Network/<type>/<name>`, with the group's stored casing. */
export function resourceId(group: ResourceGroup, type: string, name: string): string {
  return `${group.id}/providers/Microsoft.Network/${type}/${name}`;
}

/** The stored top-level resource a GET/DELETE names, or ARM's ResourceNotFound. */
export function requireTracked<T>(ctx: RequestContext, find: (store: Store, id: string) => T | undefined, type: string, nameParam: string): T {
  const group = readGroup(ctx);
  const name = param(ctx, nameParam);
  const found = find(ctx.store, resourceId(group, type, name));
  if (!found) throw resourceNotFound(`Microsoft.Network/${type}`, name, group.name);
  return found;
}

/** Every resource of one type in a group. */
export function listInGroup<T>(store: Store, group: ResourceGroup, type: string): T[] {
  return childrenOf<T>(store, `${group.id}/providers/Microsoft.Network/${type}/`);
}

/** Every resource of one type in the request's subscription. */
export function listInSubscription<T>(ctx: RequestContext, type: string): T[] {
  const sub = ctx.store.get<SubscriptionRecord>(subscriptionKey(param(ctx, 'subscriptionId')))!;
  const groups = childrenOf<ResourceGroup>(ctx.store, `/subscriptions/${sub.subscriptionId}/resourceGroups/`);
  return groups.flatMap((g) => listInGroup<T>(ctx.store, g, type));
}

export function listBody(value: unknown[]): { status: number; body: { value: unknown[] } } {
  return { status: 200, body: { value } };
}
