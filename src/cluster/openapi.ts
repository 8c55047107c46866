// A minimal OpenAPI v3 (docs/clients.md §5.5): enough for `kubectl apply` to see that every kind's PATCH takes
// `fieldValidation`, so it leaves validation to the server. v2 is not served (kubectl asks for protobuf).
import { createHash } from 'node:crypto';
import { groupVersion, groupVersions, type ResourceType } from './resources.js';

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

export function openApiDoc(group: string, version: string, serverVersion: string): Record<string, unknown> | undefined {
  const gv = groupVersions().find((g) => g.group === group && g.version === version);
  if (!gv) return undefined;
  const paths: Record<string, unknown> = {};
  for (const r of gv.resources) {
    const base = `/${gvPath(r.group, r.version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}`;
    paths[base] = { post: operation(r, 'post') };
    paths[`${base}/{name}`] = { put: operation(r, 'put'), patch: operation(r, 'patch') };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: `v${serverVersion}` }, paths, components: { schemas: {} } };
}

export function openApiIndex(serverVersion: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const gv of groupVersions()) {
    const doc = JSON.stringify(openApiDoc(gv.group, gv.version, serverVersion));
    const hash = createHash('sha512').update(doc).digest('hex').toUpperCase();
    paths[gvPath(gv.group, gv.version)] = { serverRelativeURL: `/openapi/v3/${gvPath(gv.group, gv.version)}?hash=${hash}` };
  }
  return { paths };
}

export { groupVersion };
