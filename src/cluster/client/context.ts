// What every controller shares: the objects, the indexes kept from their changes, and the event recorder.
import type { KubeObject } from '../apimachinery/object.js';
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

export function ownerReference(owner: KubeObject): Record<string, unknown> {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}
