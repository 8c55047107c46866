// API discovery (docs/clients.md §5.3): aggregated APIGroupDiscoveryList (v2 or v2beta1, chosen by the Accept
// header, with its exact Content-Type) or legacy APIVersions / APIGroupList / APIResourceList.
import { dict } from '../../http/own.js';
import type { ServedKinds } from './catalog.js';
import { pathNotFound } from '../apimachinery/status.js';
import { groupVersion, verbsOf, type ResourceType } from '../apimachinery/resources.js';

export const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
export const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

interface MediaType {
  type: string;
  params: Record<string, string>;
}

/** The media types of an Accept header, in the client's order. */
export function parseAccept(accept: string | undefined): MediaType[] {
  return (accept ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [type, ...rest] = part.split(';');
      const params = dict<string>();
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: type!.trim().toLowerCase(), params };
    });
}

/** 'v2' | 'v2beta1' when the client asks for aggregated discovery (its first acceptable choice), else undefined. */
export function aggregatedVersion(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const m of parseAccept(accept)) {
    if (m.params['as'] === 'APIGroupDiscoveryList' && m.params['g'] === 'apidiscovery.k8s.io') {
      if (m.params['v'] === 'v2' || m.params['v'] === 'v2beta1') return m.params['v'];
      continue;
    }
    if (m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*') return undefined;
  }
  return undefined;
}

function aggregatedResource(r: ResourceType): Record<string, unknown> {
  const out: Record<string, unknown> = {
    resource: r.resource,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: verbsOf(r),
  };
  if (r.shortNames) out['shortNames'] = r.shortNames;
  if (r.categories) out['categories'] = r.categories;
  if (r.subresources) {
    out['subresources'] = r.subresources.map((s) => ({
      subresource: s,
      responseKind: s === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { group: r.group, version: r.version, kind: r.kind },
      verbs: ['get', 'patch', 'update'],
    }));
  }
  return out;
}

/** `/api` (core) or `/apis` (every other group) as an APIGroupDiscoveryList; the catalog's kinds as they are now. */
export function aggregatedDiscovery(catalog: ServedKinds, core: boolean, version: 'v2' | 'v2beta1'): Record<string, unknown> {
  const items = catalog
    .groups()
    .filter((g) => (g.group === '') === core)
    .map((g) => ({
      metadata: core ? { creationTimestamp: null } : { name: g.group, creationTimestamp: null },
      versions: g.versions.map((v) => ({ version: v.version, resources: v.resources.map(aggregatedResource), freshness: 'Current' })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

export function apiVersions(): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.224.0.4:443' }] };
}

/** An APIGroup: its versions, the preferred one first. */
function apiGroup(group: string, versions: string[]): Record<string, unknown> {
  const gvs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: gvs, preferredVersion: gvs[0] };
}

export function apiGroupList(catalog: ServedKinds): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: catalog
      .groups()
      .filter((g) => g.group !== '')
      .map((g) =>
        apiGroup(
          g.group,
          g.versions.map((v) => v.version),
        ),
      ),
  };
}

/** `/apis/{group}`, or undefined when the group is not served. */
export function apiGroupDoc(catalog: ServedKinds, group: string): Record<string, unknown> | undefined {
  const g = catalog.groups().find((x) => x.group === group && group !== '');
  return g
    ? {
        kind: 'APIGroup',
        apiVersion: 'v1',
        ...apiGroup(
          g.group,
          g.versions.map((v) => v.version),
        ),
      }
    : undefined;
}

/** `/api/v1`, `/apis/{g}/{v}`, or undefined when not served. */
export function apiResourceList(catalog: ServedKinds, group: string, version: string): Record<string, unknown> | undefined {
  const served = catalog.groupVersion(group, version);
  if (!served) return undefined;
  const resources: Array<Record<string, unknown>> = [];
  for (const r of served) {
    const entry: Record<string, unknown> = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: verbsOf(r) };
    if (r.shortNames) entry['shortNames'] = r.shortNames;
    if (r.categories) entry['categories'] = r.categories;
    resources.push(entry);
    for (const s of r.subresources ?? []) {
      const scale = s === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { kind: r.kind };
      resources.push({ name: `${r.resource}/${s}`, singularName: '', namespaced: r.namespaced, ...scale, verbs: ['get', 'patch', 'update'] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion({ group, version }), resources };
}

/** A discovery document answered. */
export interface DiscoveryAnswer {
  status: 200;
  body: Record<string, unknown>;
  contentType: string;
}

/**
 * The answer to a GET of a discovery path (`/api`, `/apis`, `/api/{v}`, `/apis/{g}`, `/apis/{g}/{v}`), or undefined
 * for any other path; a group or version not served is a 404. The served kinds are the loaded cluster's, or those of
 * its saved CRDs while it loads (loading-lists.ts).
 */
export function discoveryAnswer(kinds: ServedKinds, segments: readonly string[], accept: string | undefined): DiscoveryAnswer | undefined {
  if (!isDiscoveryPath(segments)) return undefined;
  const [root, group, version] = segments;
  const ok = (body: Record<string, unknown> | undefined, contentType = 'application/json'): DiscoveryAnswer => {
    if (!body) throw pathNotFound();
    return { status: 200, body, contentType };
  };
  if (segments.length === 1) {
    const agg = aggregatedVersion(accept);
    if (agg) return ok(aggregatedDiscovery(kinds, root === 'api', agg), agg === 'v2' ? AGGREGATED_V2 : AGGREGATED_V2BETA1);
    return ok(root === 'api' ? apiVersions() : apiGroupList(kinds));
  }
  if (root === 'api') return ok(apiResourceList(kinds, '', group!));
  return ok(segments.length === 2 ? apiGroupDoc(kinds, group!) : apiResourceList(kinds, group!, version!));
}

/** `/api`, `/apis`, `/api/{v}`, `/apis/{g}` or `/apis/{g}/{v}`. */
export function isDiscoveryPath(segments: readonly string[]): boolean {
  return (segments[0] === 'api' && segments.length <= 2) || (segments[0] === 'apis' && segments.length <= 3);
}
