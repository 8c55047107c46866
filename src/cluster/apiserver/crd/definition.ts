// What a stored CustomResourceDefinition says, read once: its names, scope, versions (served, storage), each
// version's schema compiled (schema.ts), subresources and printer columns, and the ResourceTypes it serves
// (one per served version, the shape resources.ts gives built-in kinds).
import { isPlainObject } from '../../../http/own.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ResourceType } from '../../apimachinery/resources.js';
import { compileSchema, type SchemaNode } from './schema.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface PrinterColumnSpec {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  /** The raw openAPIV3Schema (for OpenAPI / explain). */
  rawSchema: unknown;
  schema: SchemaNode;
  status: boolean;
  scale?: ScaleSpec;
  columns: PrinterColumnSpec[];
  /** selectableFields, as field-selector keys (`spec.color`). */
  selectable: string[];
  deprecated: boolean;
  deprecationWarning?: string;
}

export interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export interface Definition {
  name: string;
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: CrdNames;
  versions: CrdVersion[];
  storageVersion: string;
}

type Obj = Record<string, unknown>;
const objectAt = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export function namesOf(spec: Obj): CrdNames {
  const n = objectAt(spec['names']);
  const kind = text(n['kind']);
  return {
    plural: text(n['plural']),
    singular: text(n['singular']) || kind.toLowerCase(),
    kind,
    listKind: text(n['listKind']) || `${kind}List`,
    shortNames: texts(n['shortNames']),
    categories: texts(n['categories']),
  };
}

function columnsOf(v: unknown): PrinterColumnSpec[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isPlainObject).map((c) => ({
    name: text(c['name']),
    type: text(c['type']),
    ...(typeof c['format'] === 'string' ? { format: c['format'] } : {}),
    ...(typeof c['description'] === 'string' ? { description: c['description'] } : {}),
    ...(typeof c['priority'] === 'number' ? { priority: c['priority'] } : {}),
    jsonPath: text(c['jsonPath']),
  }));
}

/** Reads a CRD (already validated when it was written). Compiles each version's schema. */
export function readDefinition(crd: KubeObject): Definition {
  const spec = objectAt(crd['spec']);
  const versions = (Array.isArray(spec['versions']) ? spec['versions'] : []).filter(isPlainObject).map((v): CrdVersion => {
    const sub = objectAt(v['subresources']);
    const scale = isPlainObject(sub['scale']) ? sub['scale'] : undefined;
    const raw = objectAt(v['schema'])['openAPIV3Schema'];
    return {
      name: text(v['name']),
      served: v['served'] === true,
      storage: v['storage'] === true,
      rawSchema: raw,
      schema: compileSchema(raw ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      status: isPlainObject(sub['status']),
      ...(scale
        ? {
            scale: {
              specReplicasPath: text(scale['specReplicasPath']),
              statusReplicasPath: text(scale['statusReplicasPath']),
              ...(typeof scale['labelSelectorPath'] === 'string' ? { labelSelectorPath: scale['labelSelectorPath'] } : {}),
            },
          }
        : {}),
      columns: columnsOf(v['additionalPrinterColumns']),
      selectable: (Array.isArray(v['selectableFields']) ? v['selectableFields'] : [])
        .filter(isPlainObject)
        .map((f) => text(f['jsonPath']).replace(/^\./, ''))
        .filter((f) => f !== ''),
      deprecated: v['deprecated'] === true,
      ...(typeof v['deprecationWarning'] === 'string' ? { deprecationWarning: v['deprecationWarning'] } : {}),
    };
  });
  return {
    name: crd.metadata.name,
    group: text(spec['group']),
    scope: spec['scope'] === 'Cluster' ? 'Cluster' : 'Namespaced',
    names: namesOf(spec),
    versions,
    storageVersion: versions.find((v) => v.storage)?.name ?? versions[0]?.name ?? '',
  };
}

/** The ResourceType a CRD serves at one version. */
export function resourceTypeOf(d: Pick<Definition, 'group' | 'scope' | 'names'>, version: Pick<CrdVersion, 'name' | 'status' | 'scale'>): ResourceType {
  const subresources = [...(version.scale ? ['scale'] : []), ...(version.status ? ['status'] : [])];
  return {
    group: d.group,
    version: version.name,
    resource: d.names.plural,
    singular: d.names.singular,
    kind: d.names.kind,
    namespaced: d.scope === 'Namespaced',
    ...(d.names.shortNames.length > 0 ? { shortNames: d.names.shortNames } : {}),
    ...(d.names.categories.length > 0 ? { categories: d.names.categories } : {}),
    ...(subresources.length > 0 ? { subresources } : {}),
  };
}

/**
 * The `group/resource` bucket and scope of a stored CRD's objects, without compiling anything: what
 * persistence needs to restore custom resources before the catalog exists.
 */
export function storedBucketOf(crd: unknown): { group: string; resource: string; namespaced: boolean } | undefined {
  if (!isPlainObject(crd)) return undefined;
  const spec = objectAt(crd['spec']);
  const plural = text(objectAt(spec['names'])['plural']);
  const group = text(spec['group']);
  if (!plural || !group) return undefined;
  return { group, resource: plural, namespaced: spec['scope'] !== 'Cluster' };
}

/** Kubernetes version priority (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > others alphabetically): discovery's order. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { kind: 3, major: 0, minor: 0 };
    return { kind: m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2, major: Number(m[1]), minor: Number(m[3] ?? 0) };
  };
  const x = parse(a);
  const y = parse(b);
  if (x.kind !== y.kind) return x.kind - y.kind;
  if (x.kind === 3) return a < b ? -1 : a > b ? 1 : 0;
  if (x.major !== y.major) return y.major - x.major;
  return y.minor - x.minor;
}
