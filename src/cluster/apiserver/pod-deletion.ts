// Graceful pod deletion: the pod is marked with deletionTimestamp and goes when its grace period ends, as when
// the kubelet confirms its containers stopped, unless finalizers hold it. One timer finishes it, whether the
// mark was made now (the API, the controllers, the garbage collector) or before a restart (the kubelets'
// resync); persistence drops what was due while the server was down (apiserver/storage/persistence.ts).
import { heldByFinalizers, type KubeObject } from '../apimachinery/object.js';
import type { ObjectStore } from './storage/store.js';
import { PODS } from '../apimachinery/resources.js';
import { k8sTime } from '../apimachinery/time.js';

/** How long a gracefully deleted pod lingers before it is gone (kubectl delete waits for the DELETED event). */
export const POD_GRACE_MS = 1000;

/** Marks the pod and finishes its deletion after the grace period. Returns the marked pod (what DELETE answers). */
export function deletePodGracefully(objects: ObjectStore, pod: KubeObject): KubeObject {
  if (pod.metadata.deletionTimestamp) return pod;
  const marked = structuredClone(pod);
  marked.metadata.deletionTimestamp = k8sTime(Date.now() + POD_GRACE_MS);
  marked.metadata.deletionGracePeriodSeconds = 1;
  const stored = objects.put(PODS, marked);
  finishPodDeletion(objects, pod, POD_GRACE_MS);
  return stored;
}

/** A marked pod's deletion cut short by a stop: finished when what is left of its grace period ends. */
export function resumePodDeletion(objects: ObjectStore, pod: KubeObject, now = Date.now()): void {
  const left = Math.min(Math.max(0, Date.parse(pod.metadata.deletionTimestamp!) - now), POD_GRACE_MS);
  finishPodDeletion(objects, pod, left);
}

/** Removes the pod after `afterMs` unless it was replaced meanwhile or finalizers hold it. */
function finishPodDeletion(objects: ObjectStore, pod: KubeObject, afterMs: number): void {
  const { namespace, name, uid } = pod.metadata;
  setTimeout(() => {
    const now = objects.get(PODS, namespace, name);
    if (now && now.metadata.uid === uid && !heldByFinalizers(now)) objects.delete(PODS, namespace, name);
  }, afterMs).unref();
}
