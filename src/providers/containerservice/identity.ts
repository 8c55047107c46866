// A cluster's control-plane identity (`identity`) and kubelet identity (`identityProfile.kubeletidentity`) as AKS
// resolves them from the request (docs/aks-rules.md §13): SystemAssigned gets a principal of its own; UserAssigned
// takes the principal and client ids of the Microsoft.ManagedIdentity resources it names, which must exist; a kubelet
// identity given by the request is such a resource too, and only a user-assigned cluster may have one. Without one,
// AKS makes `<cluster>-agentpool` in the node resource group, which the cluster's write operation creates.
import { randomUUID } from 'node:crypto';
import { ArmError } from '../../arm/errors.js';
import { sameId } from '../../ids/compare.js';
import type { ClusterIdentity, ClusterRecord, KubeletIdentity } from '../../model/cluster-records.js';
import type { Store } from '../../store/store.js';
import { findIdentity, IDENTITY_TYPE, writeIdentity } from '../managedidentity/identities.js';

/** The members of a managedClusters PUT that name identities, as sent. */
export interface IdentityRequest {
  identity?: { type?: unknown; userAssignedIdentities?: unknown } | null;
  identityProfile?: unknown;
}

const IDENTITY_ID = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/[^/]+$/i;

/** ARM's answer to a malformed user-assigned identity id (MicrosoftDocs/azure-docs PR #48229; Azure/aad-pod-identity#230). */
function invalidIdentityIds(ids: string[]): ArmError {
  return new ArmError(
    400,
    'InvalidIdentityId',
    `The identity ids '${ids.join(',')}' are invalid. It must be of the following format: '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/{resourceName}'.`,
    'identity.userAssignedIdentities',
  );
}

/** ARM's answer to a resource naming an identity that does not exist (Azure/azure-policy#1311, the MSI RP's response inside). */
function identityNotFound(resourceId: string, identityId: string, target: string): ArmError {
  const inner = JSON.stringify({ error: { code: 'BadRequest', message: `Resource '${identityId}' was not found.` } });
  return new ArmError(
    400,
    'FailedIdentityOperation',
    `Identity operation for resource '${resourceId}' failed with error 'Failed to perform resource identity operation. Status: 'BadRequest'. Response: '${inner}'.'.`,
    target,
  );
}

function existing(store: Store, clusterId: string, id: string, target: string) {
  if (!IDENTITY_ID.test(id)) throw invalidIdentityIds([id]);
  const found = findIdentity(store, id);
  if (!found) throw identityNotFound(clusterId, id, target);
  return found;
}

/** The control-plane identity a PUT asks for; `before` is kept when the request names none. */
export function controlPlaneIdentity(store: Store, clusterId: string, tenantId: string, request: IdentityRequest, before?: ClusterIdentity): ClusterIdentity {
  const given = request.identity ?? undefined;
  const type = typeof given?.type === 'string' ? given.type.toLowerCase() : undefined;
  if (type === 'userassigned') {
    const map = given?.userAssignedIdentities;
    const ids = map !== null && typeof map === 'object' ? Object.keys(map) : [];
    // ARM's check for every resource with identities (hashicorp/terraform-provider-azurerm#17082).
    if (ids.length === 0)
      throw new ArmError(400, 'MissingIdentityIds', "The identity ids must not be null or empty for 'UserAssigned' identity type.", 'identity');
    const malformed = ids.filter((id) => !IDENTITY_ID.test(id));
    if (malformed.length > 0) throw invalidIdentityIds(malformed);
    const resolved = ids.map((id) => existing(store, clusterId, id, 'identity.userAssignedIdentities'));
    const first = resolved[0]!;
    return {
      type: 'UserAssigned',
      explicit: true,
      principalId: first.properties.principalId,
      tenantId: first.properties.tenantId,
      userAssignedIdentities: Object.fromEntries(resolved.map((i) => [i.id, { principalId: i.properties.principalId, clientId: i.properties.clientId }])),
    };
  }
  if (type === 'systemassigned' && before?.type === 'SystemAssigned') return { ...before, explicit: true };
  if (type === 'systemassigned') return { type: 'SystemAssigned', principalId: randomUUID(), tenantId, explicit: true };
  return before ?? { type: 'SystemAssigned', principalId: randomUUID(), tenantId };
}

function kubeletResourceId(request: IdentityRequest): string | undefined {
  const profile = request.identityProfile;
  if (profile === null || typeof profile !== 'object') return undefined;
  const entry = Object.entries(profile).find(([k]) => k.toLowerCase() === 'kubeletidentity')?.[1] as { resourceId?: unknown } | undefined;
  return typeof entry?.resourceId === 'string' && entry.resourceId !== '' ? entry.resourceId : undefined;
}

/** The default kubelet identity's id: `<cluster>-agentpool` in the node resource group. */
export function defaultKubeletIdentityId(cluster: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup' | 'name'>): string {
  return `/subscriptions/${cluster.subscriptionId}/resourceGroups/${cluster.nodeResourceGroup}/providers/${IDENTITY_TYPE}/${cluster.name}-agentpool`;
}

/** The kubelet identity a PUT asks for: the named one, the cluster's own when it names that again, else a new default. */
export function kubeletIdentity(
  store: Store,
  cluster: Pick<ClusterRecord, 'id' | 'subscriptionId' | 'nodeResourceGroup' | 'name'>,
  request: IdentityRequest,
  control: ClusterIdentity,
  before?: KubeletIdentity,
): KubeletIdentity {
  const id = kubeletResourceId(request);
  // Naming the cluster's own identity again (az PUTs back the cluster it GOT, the default one included) changes nothing.
  if (id === undefined || sameId(before?.resourceId ?? defaultKubeletIdentityId(cluster), id))
    return before ?? { clientId: randomUUID(), objectId: randomUUID() };
  if (control.type !== 'UserAssigned') {
    throw new ArmError(
      400,
      'CustomKubeletIdentityOnlySupportedOnUserAssignedMSICluster',
      'A custom kubelet identity is only supported on a cluster with a user-assigned control plane identity.',
      'identityProfile.kubeletidentity',
    );
  }
  const found = existing(store, cluster.id, id, 'identityProfile.kubeletidentity');
  return { clientId: found.properties.clientId, objectId: found.properties.principalId, resourceId: found.id };
}

/**
 * The default kubelet identity as a resource of the node resource group, made by the cluster's write operation once
 * the group exists, with the ids the cluster reports (a cluster given its own kubelet identity gets none).
 */
export function ensureDefaultKubeletIdentity(store: Store, cluster: ClusterRecord): void {
  if (cluster.kubeletIdentity.resourceId !== undefined) return;
  const id = defaultKubeletIdentityId(cluster);
  if (findIdentity(store, id) || !store.get(id.slice(0, id.indexOf('/providers/')))) return;
  const { identity } = writeIdentity(store, id, { location: cluster.location }, cluster.identity.tenantId);
  store.put(identity.id, {
    ...identity,
    properties: { ...identity.properties, clientId: cluster.kubeletIdentity.clientId, principalId: cluster.kubeletIdentity.objectId },
  });
}
