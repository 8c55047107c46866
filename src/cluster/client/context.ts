// What every controller shares: the objects, the indexes kept from their changes, and the event recorder.
import type { KubeObject } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';
import type { Change, ObjectStore } from '../apiserver/index.js';
import type { EventRecorder } from './events.js';
import type { Indexes } from './indexes.js';

/** What each controller does with the object store's change stream. */
export interface Controller {
  /** Hears every change, as it is made (nested writes included): queues work, does little itself. */
  observe(change: Change): void;
  /** Catches up with what exists after a start (objects restored from before a restart). */
  resync(): void;
  close(): void;
}

export interface ControllerContext {
  objects: ObjectStore;
  index: Indexes;
  events: EventRecorder;
  log(message: string): void;
}

// controllerRef and isPodReady are called for every pod of a ReplicaSet at each of its syncs: loops, with no
// closure or empty list made per call (docs/performance.md §7.14).
export function controllerRef(obj: KubeObject): { kind: string; name: string; uid: string } | undefined {
  const refs = obj.metadata['ownerReferences'] as Array<{ kind: string; name: string; uid: string; controller?: boolean }> | undefined;
  // Indexed loops here and in isPodReady: a `for…of` made an iterator and a result per call where V8 did not optimize
  // it away, and the ReplicaSet's sync calls both for each of its pods (~1.1 GB of a 20,000-pod burst's ~2.7 GB
  // allocated: docs/performance.md §7.15).
  if (refs) for (let i = 0; i < refs.length; i++) if (refs[i]!.controller) return refs[i];
  return undefined;
}

export function ownerReference(owner: KubeObject): Record<string, unknown> {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

export function isPodReady(pod: KubeObject): boolean {
  const conditions = (pod as Pod).status?.conditions;
  if (conditions)
    for (let i = 0; i < conditions.length; i++) {
      const c = conditions[i]!;
      if (c.type === 'Ready' && c.status === 'True') return true;
    }
  return false;
}

/** A pod whose containers may still run, deleted or not: its phase is not Succeeded or Failed. */
export function isRunning(pod: KubeObject): boolean {
  const phase = (pod as Pod).status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

export function isActive(pod: KubeObject): boolean {
  return !pod.metadata.deletionTimestamp && isRunning(pod);
}
