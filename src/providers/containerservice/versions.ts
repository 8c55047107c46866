// The Kubernetes versions a location offers: `kubernetesVersions` (2023+ api-versions) and the older
// `orchestrators` listing that az's `aks get-versions` reads in 2.45.
import { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS, minorOf } from '../../aks/kubernetes-versions.js';
import { ArmError } from '../../arm/errors.js';
import { findRegion } from '../../arm/locations.js';
import type { RequestContext, Route } from '../../arm/provider.js';

export const LOCATION = '/subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/locations/{location}';

export function region(ctx: RequestContext): string {
  const r = findRegion(ctx.params['location']!);
  if (!r)
    throw new ArmError(
      404,
      'LocationNotFound',
      `The provided location '${ctx.params['location']}' is not available for resource type 'Microsoft.ContainerService/managedClusters'.`,
    );
  return r.name;
}

/** Newer versions of the same catalogue, as upgrade targets. */
export function upgradesOf(version: string): string[] {
  const minor = minorOf(version);
  return KUBERNETES_VERSIONS.filter((v) => minorOf(v) === minor + 1 || (minorOf(v) === minor && v !== version && v > version));
}

function kubernetesVersions(ctx: RequestContext) {
  region(ctx);
  const minors = [...new Set(KUBERNETES_VERSIONS.map((v) => v.split('.').slice(0, 2).join('.')))];
  const values = minors.map((minor) => {
    const patches = KUBERNETES_VERSIONS.filter((v) => v.startsWith(`${minor}.`));
    const patchVersions: Record<string, { upgrades: string[] }> = {};
    for (const p of patches) patchVersions[p] = { upgrades: upgradesOf(p) };
    return {
      version: minor,
      ...(DEFAULT_KUBERNETES_VERSION.startsWith(`${minor}.`) ? { isDefault: true } : {}),
      capabilities: { supportPlan: ['KubernetesOfficial'] },
      patchVersions,
    };
  });
  return { status: 200, body: { values } };
}

function orchestrators(ctx: RequestContext) {
  const location = region(ctx);
  return {
    status: 200,
    body: {
      id: `/subscriptions/${ctx.params['subscriptionId']}/providers/Microsoft.ContainerService/locations/${location}/orchestrators`,
      name: 'default',
      type: 'Microsoft.ContainerService/locations/orchestrators',
      properties: {
        orchestrators: KUBERNETES_VERSIONS.map((v) => ({
          orchestratorType: 'Kubernetes',
          orchestratorVersion: v,
          ...(v === DEFAULT_KUBERNETES_VERSION ? { default: true } : {}),
          upgrades: upgradesOf(v).map((u) => ({ orchestratorType: 'Kubernetes', orchestratorVersion: u })),
        })),
      },
    },
  };
}

export const versionRoutes: Route[] = [
  { method: 'GET', path: `${LOCATION}/kubernetesVersions`, handle: kubernetesVersions },
  { method: 'GET', path: `${LOCATION}/orchestrators`, handle: orchestrators },
];
