// Subscriptions, their locations, and tenants: what `az login` and `az account` read.
import { getSubscription, type SubscriptionRecord, type TenantRecord } from '../../arm/identity.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { REGIONS } from '../../arm/locations.js';

function subscriptionBody(sub: SubscriptionRecord) {
  return {
    id: `/subscriptions/${sub.subscriptionId}`,
    authorizationSource: 'RoleBased',
    managedByTenants: [],
    subscriptionId: sub.subscriptionId,
    tenantId: sub.tenantId,
    displayName: sub.displayName,
    state: sub.state,
    subscriptionPolicies: {
      locationPlacementId: 'Public_2014-09-01',
      quotaId: 'PayAsYouGo_2014-09-01',
      spendingLimit: 'Off',
    },
  };
}

function tenantBody(tenant: TenantRecord) {
  return {
    id: `/tenants/${tenant.tenantId}`,
    tenantId: tenant.tenantId,
    countryCode: 'US',
    displayName: tenant.displayName,
    domains: [tenant.defaultDomain],
    tenantCategory: 'Home',
    defaultDomain: tenant.defaultDomain,
    tenantType: 'AAD',
  };
}

/** The pipeline has already answered SubscriptionNotFound for an unknown id. */
function requestedSubscription(ctx: RequestContext): SubscriptionRecord {
  return getSubscription(ctx.store, ctx.params['subscriptionId']!)!;
}

/** The list shape of the subscriptions and tenants APIs: value plus a total count. */
function counted<T>(value: T[]) {
  return { value, count: { type: 'Total', value: value.length } };
}

export const subscriptionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/subscriptions',
    handle: (ctx) => ({
      status: 200,
      body: counted(ctx.store.list<SubscriptionRecord>('/subscriptions/', { children: true }).map((e) => subscriptionBody(e.value))),
    }),
  },
  {
    method: 'GET',
    path: '/subscriptions/{subscriptionId}',
    handle: (ctx) => ({ status: 200, body: subscriptionBody(requestedSubscription(ctx)) }),
  },
  {
    method: 'GET',
    path: '/subscriptions/{subscriptionId}/locations',
    handle: (ctx) => {
      const sub = requestedSubscription(ctx);
      const value = REGIONS.map((r) => ({
        id: `/subscriptions/${sub.subscriptionId}/locations/${r.name}`,
        name: r.name,
        type: 'Region',
        displayName: r.displayName,
        regionalDisplayName: r.regionalDisplayName,
        metadata: { regionType: 'Physical', regionCategory: 'Recommended' },
      }));
      return { status: 200, body: { value } };
    },
  },
  {
    method: 'GET',
    path: '/tenants',
    handle: (ctx) => ({ status: 200, body: counted(ctx.store.list<TenantRecord>('/tenants/', { children: true }).map((e) => tenantBody(e.value))) }),
  },
];
