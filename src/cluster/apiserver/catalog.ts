// One cluster's catalog of served kinds: the built-in table (resources.ts, with each kind's behaviour from
// kinds.ts) plus the kinds its Established CustomResourceDefinitions add, changing live as CRDs are written.
// Routing, discovery and OpenAPI ask it, so a CRD's kind is served, listed by `kubectl api-resources` and
// explained as soon as it is Established, and gone when its CRD is. It also runs the apiextensions
// controllers on the cluster's CRDs (apiserver/crd/conditions.ts): names accepted and Established after a write, and the
// cleanup finalizer of a deleted CRD (its objects removed, then the CRD). Each CRD is compiled (schemas,
// printer columns) once per generation, never per request.
import type { KindBehaviour } from './kind-behaviour.js';
import { behaviourOf as builtinBehaviour } from './kinds.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ObjectStore } from './storage/store.js';
import { findResource, groupVersions, RESOURCES, type ResourceType, resourceKey } from '../apimachinery/resources.js';
import { conditionsOf, namedStatus, withCondition } from './crd/conditions.js';
import { customKind, type LiveDefinition } from './crd/custom.js';
import { CLEANUP_FINALIZER, compareVersions, CRD_GROUP, readDefinition, resourceTypeOf, type CrdVersion, type Definition } from './crd/definition.js';
import { DEFINITION_KIND } from './crd/definitions.js';
import { isEstablished } from './crd/validate.js';

/** The CRD kind itself (apiextensions.k8s.io/v1), served by the built-in table. */
export const CRDS: ResourceType = (() => {
  const r = findResource(CRD_GROUP, 'v1', 'customresourcedefinitions');
  if (!r) throw new Error('customresourcedefinitions are not served');
  return r;
})();
const CRD_KEY = resourceKey(CRDS);

export interface ServedVersion {
  r: ResourceType;
  kind: KindBehaviour;
  version: CrdVersion;
  definition: Definition;
}

export interface GroupVersionResources {
  version: string;
  resources: ResourceType[];
}

export interface ServedGroup {
  group: string;
  /** Preferred version first. */
  versions: GroupVersionResources[];
}

interface Compiled {
  key: string;
  live: LiveDefinition;
  definition: Definition;
  versions: ServedVersion[];
}

const CATALOGS = new WeakMap<ObjectStore, Catalog>();

/** The catalog of the cluster whose objects these are (one per ObjectStore, made on first use). */
export function catalogOf(objects: ObjectStore): Catalog {
  let c = CATALOGS.get(objects);
  if (!c) CATALOGS.set(objects, (c = new Catalog(objects)));
  return c;
}

const pathKey = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;

/**
 * The kinds served: the built-in table and those of the Established CRDs it is given. Discovery reads it; so does a
 * cluster whose objects are loading, from its saved CRDs (loading-lists.ts), which is why it writes nothing.
 */
export class ServedKinds {
  /** Established CRDs by name, compiled. */
  private readonly served = new Map<string, Compiled>();
  private byPath = new Map<string, ServedVersion>();
  private readonly behaviours = new Map<ResourceType, KindBehaviour>();
  /** Bumped whenever the served kinds change (OpenAPI documents are cached per epoch). */
  epoch = 0;

  constructor(crds: Iterable<KubeObject>) {
    for (const crd of crds) this.refresh(crd);
  }

  /** The served kind at that path, built-in first. */
  find(group: string, version: string, resource: string): ResourceType | undefined {
    return findResource(group, version, resource) ?? this.byPath.get(pathKey(group, version, resource))?.r;
  }

  behaviourOf(r: ResourceType): KindBehaviour {
    if (r === CRDS) return DEFINITION_KIND;
    return this.behaviours.get(r) ?? builtinBehaviour(r);
  }

  /** The served version of a CRD kind (for OpenAPI), or undefined for a built-in kind. */
  custom(r: ResourceType): ServedVersion | undefined {
    const s = this.byPath.get(pathKey(r.group, r.version, r.resource));
    return s?.r === r ? s : undefined;
  }

  /** Every served kind: the built-in ones, then the CRDs'. */
  resources(): ResourceType[] {
    return [...RESOURCES, ...[...this.byPath.values()].map((s) => s.r)];
  }

  /** The served groups in discovery's order: built-in ones first (table order), then the CRDs' by name. */
  groups(): ServedGroup[] {
    const out: ServedGroup[] = [];
    for (const gv of groupVersions()) {
      let g = out.find((x) => x.group === gv.group);
      if (!g) out.push((g = { group: gv.group, versions: [] }));
      g.versions.push({ version: gv.version, resources: gv.resources });
    }
    const custom = new Map<string, Map<string, ResourceType[]>>();
    for (const s of this.byPath.values()) {
      if (out.some((g) => g.group === s.r.group)) continue;
      let versions = custom.get(s.r.group);
      if (!versions) custom.set(s.r.group, (versions = new Map()));
      let list = versions.get(s.r.version);
      if (!list) versions.set(s.r.version, (list = []));
      list.push(s.r);
    }
    for (const group of [...custom.keys()].sort()) {
      const versions = custom.get(group)!;
      out.push({
        group,
        versions: [...versions.keys()].sort(compareVersions).map((version) => ({
          version,
          resources: versions.get(version)!.sort((a, b) => (a.resource < b.resource ? -1 : 1)),
        })),
      });
    }
    return out;
  }

  /** One group-version's kinds, or undefined when it is not served. */
  groupVersion(group: string, version: string): ResourceType[] | undefined {
    return this.groups()
      .find((g) => g.group === group)
      ?.versions.find((v) => v.version === version)?.resources;
  }

  protected refresh(crd: KubeObject): void {
    if (!isEstablished(crd)) {
      this.forget(crd.metadata.name);
      return;
    }
    const key = `${crd.metadata.uid}/${crd.metadata.generation ?? 0}`;
    const terminating = crd.metadata.deletionTimestamp !== undefined;
    const known = this.served.get(crd.metadata.name);
    if (known?.key === key) {
      known.live.terminating = terminating;
      return;
    }
    const definition = readDefinition(crd);
    const live = { terminating };
    const servedVersions = definition.versions.filter((v) => v.served);
    const versions = servedVersions.map((version) => {
      const r = resourceTypeOf(definition, version);
      return { r, kind: customKind(definition, version, definition.versions.length > 1, live), version, definition };
    });
    this.served.set(crd.metadata.name, { key, live, definition, versions });
    this.reindex();
  }

  protected forget(name: string): void {
    if (this.served.delete(name)) this.reindex();
  }

  private reindex(): void {
    this.byPath = new Map();
    this.behaviours.clear();
    for (const c of this.served.values()) {
      for (const s of c.versions) {
        const k = pathKey(s.r.group, s.r.version, s.r.resource);
        // Two CRDs cannot claim one path (metadata.name is plural.group); built-in kinds win.
        if (this.byPath.has(k) || findResource(s.r.group, s.r.version, s.r.resource)) continue;
        this.byPath.set(k, s);
        this.behaviours.set(s.r, s.kind);
      }
    }
    this.epoch++;
  }
}

/** A cluster's served kinds, live: following its CRDs as they are written, and running the apiextensions controllers. */
export class Catalog extends ServedKinds {
  private scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly objects: ObjectStore) {
    super(objects.list(CRDS));
    objects.subscribe((change) => {
      if (change.resource !== CRD_KEY) return;
      if (change.type === 'DELETED') this.forget(change.object.metadata.name);
      else this.refresh(change.object);
      this.schedule();
    });
    this.schedule();
  }

  private schedule(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.reconcile();
    });
  }

  /** The apiextensions controllers, one pass over the CRDs: names and Established, then finalization. */
  private reconcile(): void {
    const all = this.objects.list(CRDS);
    for (const crd of all) {
      if (crd.metadata.deletionTimestamp) {
        this.finalize(crd);
        continue;
      }
      const status = namedStatus(crd, all);
      if (status) this.objects.put(CRDS, { ...crd, status });
    }
  }

  /** crd_finalizer.go: every object of the kind removed, then the finalizer, then the CRD goes. */
  private finalize(crd: KubeObject): void {
    const finalizers = Array.isArray(crd.metadata['finalizers']) ? (crd.metadata['finalizers'] as string[]) : [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) return;
    const definition = readDefinition(crd);
    const storage = definition.versions.find((v) => v.name === definition.storageVersion);
    if (storage && definition.names.plural) {
      const r = resourceTypeOf(definition, storage);
      for (const obj of this.objects.list(r)) this.objects.delete(r, obj.metadata.namespace, obj.metadata.name);
    }
    const rest = finalizers.filter((f) => f !== CLEANUP_FINALIZER);
    if (rest.length > 0) {
      const status = { ...(crd['status'] as object), conditions: withCondition(conditionsOf(crd), TERMINATED) };
      this.objects.put(CRDS, { ...crd, metadata: { ...crd.metadata, finalizers: rest }, status });
    } else this.objects.delete(CRDS, undefined, crd.metadata.name);
  }
}

const TERMINATED = { type: 'Terminating', status: 'False' as const, reason: 'InstanceDeletionCompleted', message: 'removed all instances' };
