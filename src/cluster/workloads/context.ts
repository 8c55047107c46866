// What every controller shares: the objects, the indexes kept from their changes, and the event recorder.
import type { KubeObject } from '../objects/object.js';
import type { ObjectStore } from '../objects/store.js';
import { k8sTime } from '../time.js';
import type { EventRecorder } from './events.js';
import type { Indexes } from './indexes.js';
import { PODS } from './kinds.js';

export interface ControllerContext {
  objects: ObjectStore;
  index: Indexes;
  events: EventRecorder;
  log(message: string): void;
}

/** How long a gracefully deleted pod lingers before it is gone (kubectl delete waits for the DELETED event). */
export const POD_GRACE_MS = 1000;

/**
 * Graceful deletion: the pod is marked with deletionTimestamp and goes away a moment later, as when the
 * kubelet confirms its containers stopped. Returns the marked pod (what DELETE answers).
 */
export function deletePodGracefully(objects: ObjectStore, pod: KubeObject): KubeObject {
  if (pod.metadata.deletionTimestamp) return pod;
  const marked = structuredClone(pod);
  marked.metadata.deletionTimestamp = k8sTime(Date.now() + POD_GRACE_MS);
  marked.metadata.deletionGracePeriodSeconds = 1;
  const stored = objects.put(PODS, marked);
  const { namespace, name, uid } = pod.metadata;
  setTimeout(() => {
    const now = objects.get(PODS, namespace, name);
    // Finalizers hold a deleted object until whoever owns them removes them.
    if (now && now.metadata.uid === uid && ((now.metadata['finalizers'] as unknown[] | undefined) ?? []).length === 0) objects.delete(PODS, namespace, name);
  }, POD_GRACE_MS).unref();
  return stored;
}

export function controllerRef(obj: KubeObject): { kind: string; name: string; uid: string } | undefined {
  const refs = (obj.metadata['ownerReferences'] ?? []) as Array<{ kind: string; name: string; uid: string; controller?: boolean }>;
  return refs.find((r) => r.controller) ?? undefined;
}

export function ownerReference(owner: KubeObject): Record<string, unknown> {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

export function isPodReady(pod: KubeObject): boolean {
  return ((pod as any).status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
}

export function isActive(pod: KubeObject): boolean {
  const phase = (pod as any).status?.phase;
  return !pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}
