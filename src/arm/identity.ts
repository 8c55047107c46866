// The default tenant, subscription and service principal, created on first start and kept in the
// store, so a restart keeps the credentials every client has already been given.
import { randomBytes, randomUUID } from 'node:crypto';
import { IDENTITY_KEY } from '../store/keys.js';
import type { Store } from '../store/store.js';

export interface Identity {
  tenantId: string;
  subscriptionId: string;
  subscriptionName: string;
  /** The service principal clients log in as (client credentials). */
  clientId: string;
  clientSecret: string;
  servicePrincipalObjectId: string;
}

/** What the store keeps for a subscription; Microsoft.Resources renders ARM's shape from it. */
export interface SubscriptionRecord {
  subscriptionId: string;
  displayName: string;
  tenantId: string;
  state: 'Enabled' | 'Disabled' | 'Warned' | 'PastDue' | 'Deleted';
}

export interface TenantRecord {
  tenantId: string;
  displayName: string;
  defaultDomain: string;
}

export function subscriptionKey(subscriptionId: string): string {
  return `/subscriptions/${subscriptionId}`;
}

export function getSubscription(store: Store, subscriptionId: string): SubscriptionRecord | undefined {
  return store.get<SubscriptionRecord>(subscriptionKey(subscriptionId));
}

function tenantKey(tenantId: string): string {
  return `/tenants/${tenantId}`;
}

export function loadOrCreateIdentity(store: Store): Identity {
  return store.transaction(() => {
    const existing = store.get<Identity>(IDENTITY_KEY);
    if (existing) return existing;
    const identity: Identity = {
      tenantId: randomUUID(),
      subscriptionId: randomUUID(),
      subscriptionName: 'aksemu',
      clientId: randomUUID(),
      // AAD client secrets are ~40 URL-safe characters.
      clientSecret: randomBytes(30).toString('base64url'),
      servicePrincipalObjectId: randomUUID(),
    };
    store.put(IDENTITY_KEY, identity);
    const subscription: SubscriptionRecord = {
      subscriptionId: identity.subscriptionId,
      displayName: identity.subscriptionName,
      tenantId: identity.tenantId,
      state: 'Enabled',
    };
    store.put(subscriptionKey(identity.subscriptionId), subscription);
    const tenant: TenantRecord = { tenantId: identity.tenantId, displayName: 'aksemu', defaultDomain: 'aksemu.local' };
    store.put(tenantKey(identity.tenantId), tenant);
    return identity;
  });
}
