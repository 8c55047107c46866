// What the controllers and the indexes read of a pod's state and ownership, many times per pod: kept apart from
// context.ts so that the indexes (which context.ts names) can use it too.
import type { KubeObject } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';

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
