// managedClusters and agentPools responses, per api-version, from the generated schema data
// (src/aks/api-version-data.ts): pruning leaves a response with the members its version defines and no others
// (docs/aks-rules.md §1.4). The request models are schema.ts.
import type { VersionSchema, WireMember } from '../../aks/api-version-data.js';
import { apiVersionProfile, type ApiVersionProfile } from '../../aks/api-versions.js';

export type WireRoot = 'ManagedCluster' | 'AgentPool';

/** The profile of a request's api-version; loose mode lets unserved versions through, which read as 2022-11-01. */
export function profileFor(apiVersion: string): ApiVersionProfile {
  return apiVersionProfile(apiVersion) ?? apiVersionProfile('2022-11-01')!;
}

/**
 * Members AKS never returns though the schema defines them: secrets. The specs mark the service principal's secret
 * x-ms-secret, which the SDK packages' mappers do not carry; Windows' adminPassword is write-only in practice (the
 * GET of a cluster created with one shows adminUsername only).
 */
const NEVER_RETURNED: Record<string, readonly string[]> = {
  ManagedClusterServicePrincipalProfile: ['secret'],
  ManagedClusterWindowsProfile: ['adminPassword'],
};

/** A common-types definition is named "<file>#<name>"; the wire and the errors know it by its name. */
export const shortName = (definition: string) => definition.slice(definition.indexOf('#') + 1);

function pruneMember(schema: VersionSchema, m: WireMember, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (m.ref !== undefined) return prune(schema, m.ref, value);
  if (Array.isArray(value)) return m.items ? value.map((item) => pruneMember(schema, m.items!, item)) : value;
  if (typeof m.additionalProperties === 'object') {
    const values = m.additionalProperties;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pruneMember(schema, values, v)]));
  }
  return value;
}

/** `value` with only the members `definition` has at the schema's version, recursively; secrets never. */
function prune(schema: VersionSchema, definition: string, value: unknown): unknown {
  const def = schema.definition(definition);
  if (!def || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  if (Object.keys(def.properties).length === 0 && typeof def.additionalProperties === 'object') {
    return pruneMember(schema, { additionalProperties: def.additionalProperties }, value);
  }
  const hidden = NEVER_RETURNED[shortName(definition)] ?? [];
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    const m = Object.hasOwn(def.properties, name) ? def.properties[name]! : undefined;
    if (m === undefined || m.secret || hidden.includes(name)) continue;
    out[name] = pruneMember(schema, m, v);
  }
  return out;
}

/** A response body of `root` as the request's api-version defines it. */
export function onTheWire(api: ApiVersionProfile, root: WireRoot, body: Record<string, unknown>): Record<string, unknown> {
  return prune(api.schema, root, body) as Record<string, unknown>;
}
