import { type Change, deletePodGracefully } from '../apiserver/index.js';
import type { Pod, ReplicaSet } from '../apimachinery/types.js';
import { controllerRef, isActive, isPodReady, type ControllerContext } from '../client/context.js';
import { PODS, REPLICASETS, resourceKey } from '../apimachinery/resources.js';
import { BURST_REPLICAS, BurstingController } from './burst.js';
import { createPodFrom } from './pods.js';
import { splitKey } from '../client/queue.js';

/** Which extra pods go first: unscheduled, then not running, then not ready, then the newest. */
function deletionRank(pod: Pod): number[] {
  return [pod.spec?.nodeName ? 1 : 0, pod.status?.phase === 'Running' ? 1 : 0, isPodReady(pod) ? 1 : 0, -Date.parse(pod.metadata.creationTimestamp ?? '0')];
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

export class ReplicaSetController extends BurstingController {
  constructor(ctx: ControllerContext) {
    super(ctx, REPLICASETS, 'replicaset');
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(REPLICASETS)) this.enqueue(change.object);
    else if (change.resource === resourceKey(PODS)) {
      for (const p of [change.object, change.previous]) this.enqueueController(p, 'ReplicaSet');
    }
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects, index, events } = this.ctx;
    const rs = objects.get(REPLICASETS, namespace, name) as ReplicaSet | undefined;
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = index.dependents(rs.metadata.uid, 'Pod').filter((p) => controllerRef(p)?.uid === rs.metadata.uid);
    const active = pods.filter(isActive);
    const want = Math.max(0, Number(rs.spec?.replicas ?? 1));
    // At most a burst per sync; the pods' own changes bring the ReplicaSet back for the rest.
    // Whether this sync created or deleted pods: only then is the list read again for the status (a sync for a
    // pod's status change, the common one, reads its thousands of pods once).
    let changed = false;
    if (active.length < want) {
      this.bursts.create(key, rs, want - active.length, () => {
        changed = true;
        return createPodFrom(objects, rs, rs.spec?.template);
      });
    } else if (active.length > want) {
      changed = true;
      const extras = [...active].sort((a, b) => compareRank(deletionRank(a), deletionRank(b))).slice(0, Math.min(active.length - want, BURST_REPLICAS));
      for (const pod of extras) {
        deletePodGracefully(objects, pod);
        events.record(rs, { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name}`, component: 'replicaset-controller' });
      }
    }
    const now = changed ? index.dependents(rs.metadata.uid, 'Pod').filter((p) => controllerRef(p)?.uid === rs.metadata.uid && isActive(p)) : active;
    const ready = now.filter(isPodReady).length;
    const status: Record<string, unknown> = { replicas: now.length };
    if (now.length > 0) status['fullyLabeledReplicas'] = now.length;
    if (ready > 0) {
      status['readyReplicas'] = ready;
      status['availableReplicas'] = ready;
    }
    status['observedGeneration'] = rs.metadata.generation ?? 1;
    objects.put(REPLICASETS, { ...rs, status }, { onlyIfChanged: true });
  }
}
