// The shape every Kubernetes object shares; the rest of each kind is free-form JSON.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** Finalizers hold a deleted object; a Namespace's are in its spec (the namespace controller's `kubernetes`). */
export function heldByFinalizers(obj: KubeObject): boolean {
  const f = obj.metadata['finalizers'];
  const spec = obj['spec'] as { finalizers?: unknown } | undefined;
  return (Array.isArray(f) && f.length > 0) || (obj.kind === 'Namespace' && Array.isArray(spec?.finalizers) && spec.finalizers.length > 0);
}

/** Marked for deletion and held by nothing: due to go once its grace period ends. */
export function deletionDue(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined && !heldByFinalizers(obj);
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Byte-wise `namespace/name`: etcd key order, which is the order the apiserver lists in (docs/clients.md §5.4.4). */
export function objectKey(namespace: string | undefined, name: string): string {
  // join makes one flat string; `${namespace}/${name}` makes a pair of strings that V8 flattens into a third when
  // the key is first compared, and keeps the pair (~32 bytes more per key held in a Map: docs/performance.md §7).
  // (String(name): a name that is not a string reads as the template literal would write it.)
  return [namespace ?? '', String(name)].join('/');
}

export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Reads one member of an object at a path of member names (`['series', 'lastObservedTime']`); undefined when absent. */
export type MemberReader = (path: readonly string[]) => unknown;

/** The member of value at path, from `from` on (own members only); undefined when a step is absent or not an object. */
export function memberAt(value: unknown, path: readonly string[], from = 0): unknown {
  let v = value;
  for (let i = from; i < path.length; i++) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, path[i]!)) return undefined;
    v = (v as Record<string, unknown>)[path[i]!];
  }
  return v;
}
