// Deleting one object as the apiserver's generic registry does (staging/src/k8s.io/apiserver/pkg/registry/
// generic/registry/store.go Delete, rest/delete.go BeforeDelete): the propagation policy's finalizer
// (foregroundDeletion, orphan) is added; an object held by finalizers is only marked (deletionTimestamp,
// deletionGracePeriodSeconds 0) and goes when its last finalizer is removed (finishIfDue, from every update);
// pods are deleted gracefully; the rest goes at once. Used by the API, the garbage collector and the
// namespace controller alike, so every kind follows the same rules.
import { heldByFinalizers, type KubeObject } from '../apimachinery/object.js';
import type { ObjectStore } from './storage/store.js';
import { PODS, type ResourceType } from '../apimachinery/resources.js';
import { k8sTime } from '../apimachinery/time.js';
import { deletePodGracefully } from './pod-deletion.js';

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** The finalizers the garbage collector acts on (metav1.FinalizerOrphanDependents, FinalizerDeleteDependents). */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

const POLICY_FINALIZER: Record<PropagationPolicy, string | undefined> = {
  Foreground: FOREGROUND_FINALIZER,
  Orphan: ORPHAN_FINALIZER,
  Background: undefined,
};

export interface Deletion {
  propagationPolicy?: PropagationPolicy;
  /** 0 deletes a pod at once (kubectl delete --force --grace-period=0). */
  gracePeriodSeconds?: number;
  /** A kind's own deferred deletion (kinds.ts deferDeletion): marks and returns the object, or undefined. */
  defer?: (obj: KubeObject) => KubeObject | undefined;
}

export interface Deleted {
  /** What DELETE answers with: the marked object when it stays for now, the removed one otherwise. */
  object: KubeObject;
  removed: boolean;
}

export function finalizersOf(obj: KubeObject): string[] {
  const f = obj.metadata['finalizers'];
  return Array.isArray(f) ? (f as string[]) : [];
}

/**
 * obj with the garbage collector's finalizers the policy asks for (deletionFinalizersForGarbageCollection): a
 * policy replaces both with its own (Background: none); no policy keeps what the object has. obj itself when
 * nothing changes.
 */
function withPolicyFinalizer(obj: KubeObject, policy: PropagationPolicy | undefined): KubeObject {
  if (!policy) return obj;
  const before = finalizersOf(obj);
  const own = POLICY_FINALIZER[policy];
  const after = [...before.filter((f) => f !== FOREGROUND_FINALIZER && f !== ORPHAN_FINALIZER), ...(own ? [own] : [])];
  if (after.length === before.length && after.every((f, i) => f === before[i])) return obj;
  const metadata: Record<string, unknown> = { ...obj.metadata, finalizers: after };
  if (after.length === 0) delete metadata['finalizers'];
  return { ...obj, metadata: metadata as KubeObject['metadata'] };
}

/** Deletes obj (stored, of resource r) as DELETE with `d` does; returns what DELETE answers. */
export function deleteObject(objects: ObjectStore, r: ResourceType, obj: KubeObject, d: Deletion = {}): Deleted {
  const withPolicy = withPolicyFinalizer(obj, d.propagationPolicy);
  // A pod with no grace (--grace-period=0 --force) goes at once, whoever defers it otherwise.
  const defer = r === PODS && d.gracePeriodSeconds === 0 ? undefined : (d.defer ?? (r === PODS ? (pod: KubeObject) => podDeferral(objects, pod) : undefined));
  const deferred = defer?.(withPolicy);
  if (deferred) return { object: deferred, removed: false };
  if (heldByFinalizers(withPolicy)) {
    if (withPolicy.metadata.deletionTimestamp && withPolicy === obj) return { object: obj, removed: false };
    const marked: KubeObject = {
      ...withPolicy,
      metadata: { ...withPolicy.metadata, deletionTimestamp: withPolicy.metadata.deletionTimestamp ?? k8sTime(Date.now()), deletionGracePeriodSeconds: 0 },
    };
    return { object: objects.put(r, marked), removed: false };
  }
  return { object: objects.delete(r, obj.metadata.namespace, obj.metadata.name) ?? obj, removed: true };
}

/** A pod not yet marked is marked and goes after its grace period; a marked one goes now unless held. */
function podDeferral(objects: ObjectStore, pod: KubeObject): KubeObject | undefined {
  return pod.metadata.deletionTimestamp ? undefined : deletePodGracefully(objects, pod);
}

/** Removes a marked object whose finalizers are all gone and whose grace period is over (store.go's ShouldDeleteDuringUpdate). */
export function finishIfDue(objects: ObjectStore, r: ResourceType, obj: KubeObject, now = Date.now()): boolean {
  const at = obj.metadata.deletionTimestamp;
  if (!at || heldByFinalizers(obj) || Date.parse(at) > now) return false;
  objects.delete(r, obj.metadata.namespace, obj.metadata.name);
  return true;
}

/** obj without `finalizer`, written; removed when that was the last thing holding it. */
export function removeFinalizer(objects: ObjectStore, r: ResourceType, obj: KubeObject, finalizer: string): void {
  if (!finalizersOf(obj).includes(finalizer)) return;
  const next = { ...obj, metadata: { ...obj.metadata, finalizers: finalizersOf(obj).filter((f) => f !== finalizer) } };
  if (next.metadata.finalizers.length === 0) delete (next.metadata as Record<string, unknown>)['finalizers'];
  const stored = objects.put(r, next);
  finishIfDue(objects, r, stored);
}
