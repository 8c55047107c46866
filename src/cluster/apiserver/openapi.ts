// OpenAPI v3 (docs/clients.md §5.5): for every served group-version, the paths with their operations — enough
// for `kubectl apply` to see that every kind's PATCH takes `fieldValidation`, so it leaves validation to the
// server — and, for the kinds CRDs add, their schemas (apiserver/crd/openapi.ts), which `kubectl explain` reads. v2 is
// not served (kubectl asks for protobuf; openapi-v2.ts). Documents are cached until the catalog changes.
import { createHash } from 'node:crypto';
import type { Catalog } from './catalog.js';
import { customSchemas } from './crd/openapi.js';
import { groupVersion, type ResourceType } from '../apimachinery/resources.js';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function operation(r: ResourceType, verb: string): Record<string, unknown> {
  const params: Array<{ name: string; in: string; schema: Record<string, unknown> }> = [
    { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
    { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
    { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
  ];
  if (verb === 'patch') params.push({ name: 'force', in: 'query', schema: { type: 'boolean' } });
  return {
    operationId: `${verb}${r.namespaced ? 'Namespaced' : ''}${r.kind}`,
    'x-kubernetes-action': verb,
    'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
    parameters: params,
    responses: { '200': { description: 'OK' } },
  };
}

interface Cached {
  epoch: number;
  docs: Map<string, { text: string; hash: string }>;
}

const CACHE = new WeakMap<Catalog, Cached>();

function build(catalog: Catalog, resources: ResourceType[], serverVersion: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  let schemas: Record<string, unknown> = {};
  for (const r of resources) {
    const base = `/${gvPath(r.group, r.version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}`;
    paths[base] = { post: operation(r, 'post') };
    paths[`${base}/{name}`] = { put: operation(r, 'put'), patch: operation(r, 'patch') };
    const custom = catalog.custom(r);
    if (custom) schemas = { ...schemas, ...customSchemas(custom) };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: `v${serverVersion}` }, paths, components: { schemas } };
}

/** One group-version's document as JSON text and its hash, or undefined when the group-version is not served. */
function document(catalog: Catalog, group: string, version: string, serverVersion: string): { text: string; hash: string } | undefined {
  let cached = CACHE.get(catalog);
  if (!cached || cached.epoch !== catalog.epoch) CACHE.set(catalog, (cached = { epoch: catalog.epoch, docs: new Map() }));
  const key = `${serverVersion} ${groupVersion({ group, version })}`;
  const hit = cached.docs.get(key);
  if (hit) return hit;
  const resources = catalog.groupVersion(group, version);
  if (!resources) return undefined;
  const text = JSON.stringify(build(catalog, resources, serverVersion));
  const doc = { text, hash: createHash('sha512').update(text).digest('hex').toUpperCase() };
  cached.docs.set(key, doc);
  return doc;
}

/** The document of /openapi/v3/{api/v1 | apis/g/v} as JSON text, or undefined when not served. */
export function openApiDoc(catalog: Catalog, group: string, version: string, serverVersion: string): string | undefined {
  return document(catalog, group, version, serverVersion)?.text;
}

export function openApiIndex(catalog: Catalog, serverVersion: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const g of catalog.groups()) {
    for (const v of g.versions) {
      const doc = document(catalog, g.group, v.version, serverVersion)!;
      paths[gvPath(g.group, v.version)] = { serverRelativeURL: `/openapi/v3/${gvPath(g.group, v.version)}?hash=${doc.hash}` };
    }
  }
  return { paths };
}

export { groupVersion };
