// Microsoft.ManagedIdentity/userAssignedIdentities as the store keeps them: ARM's GET shape. The MSI RP answers a
// PUT in the request (no long-running operation); principalId and clientId are made once, on create, and never
// change (a PUT of the same identity keeps them), so a restart keeps every id a cluster or role assignment holds.
import { randomUUID } from 'node:crypto';
import { ArmError } from '../../arm/errors.js';
import type { Store } from '../../store/store.js';
import { childrenOf, compact, nameOf, putLocation } from '../network/resource.js';
import type { ResourceGroup } from '../resources/resourceGroups.js';

export const NAMESPACE = 'Microsoft.ManagedIdentity';
export const IDENTITY_TYPE = 'Microsoft.ManagedIdentity/userAssignedIdentities';

export interface UserAssignedIdentity {
  id: string;
  name: string;
  type: typeof IDENTITY_TYPE;
  location: string;
  tags?: Record<string, string>;
  properties: { tenantId: string; principalId: string; clientId: string };
}

export interface IdentityInput {
  location?: string;
  tags?: Record<string, string> | null;
}

/**
 * The name rule of resource-name-rules.md (Microsoft.ManagedIdentity): 3–128 letters, digits, '-' and '_',
 * starting with a letter or digit. The RP's wording is not published; ours names the rule.
 */
const IDENTITY_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]{2,127}$/;

export function checkIdentityName(name: string): void {
  if (!IDENTITY_NAME.test(name)) {
    throw new ArmError(
      400,
      'InvalidResourceName',
      `Resource name '${name}' is invalid. The name can contain only letters, numbers, hyphens and underscores, must start with a letter or number, and be 3 to 128 characters long.`,
      'resourceName',
    );
  }
}

export function identityId(group: Pick<ResourceGroup, 'id'>, name: string): string {
  return `${group.id}/providers/${IDENTITY_TYPE}/${name}`;
}

export function findIdentity(store: Store, id: string): UserAssignedIdentity | undefined {
  const found = store.get<UserAssignedIdentity>(id);
  return found && found.type === IDENTITY_TYPE ? found : undefined;
}

export function identitiesIn(store: Store, groupId: string): UserAssignedIdentity[] {
  return childrenOf<UserAssignedIdentity>(store, `${groupId}/providers/${IDENTITY_TYPE}/`).filter((i) => i.type === IDENTITY_TYPE);
}

/** Writes an identity (`id` in the group's stored casing); the ids it was made with stay. */
export function writeIdentity(store: Store, id: string, input: IdentityInput, tenantId: string): { identity: UserAssignedIdentity; created: boolean } {
  const existing = findIdentity(store, id);
  const location = putLocation(input.location, existing, IDENTITY_TYPE);
  const identity: UserAssignedIdentity = compact({
    id: existing?.id ?? id,
    name: existing?.name ?? nameOf(id),
    type: IDENTITY_TYPE,
    location,
    tags: input.tags ?? undefined,
    properties: existing?.properties ?? { tenantId, principalId: randomUUID(), clientId: randomUUID() },
  });
  store.put(identity.id, identity);
  return { identity, created: !existing };
}
