import { type Change, deletePodGracefully } from '../apiserver/index.js';
import type { Pod, ReplicaSet } from '../apimachinery/types.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ControllerContext } from '../client/context.js';
import { controllerRef, isActive, isPodReady } from '../client/pod-state.js';
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

/** A pod of the ReplicaSet `uid` (it is the pod's controller) that counts: not deleted, Succeeded or Failed. */
const activeOf = (uid: string | undefined, pod: KubeObject): boolean => controllerRef(pod)?.uid === uid && isActive(pod);

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
    const uid = rs.metadata.uid;
    // Its pods are counted as they change (Indexes.tallyOf), not listed at each sync: a sync for each of its pods'
    // changes read its thousands of pods (docs/performance.md §6.10, §7.14).
    let counted = this.count(uid);
    const want = Math.max(0, Number(rs.spec?.replicas ?? 1));
    // At most a burst per sync; the pods' own changes bring the ReplicaSet back for the rest.
    // Whether this sync created or deleted pods: only then are the pods counted again for the status (a sync for a
    // pod's status change, the common one, reads its thousands of pods once).
    let changed = false;
    if (counted.active < want) {
      this.bursts.create(key, rs, want - counted.active, () => {
        changed = true;
        return createPodFrom(objects, rs, rs.spec?.template);
      });
    } else if (counted.active > want) {
      changed = true;
      const active: Pod[] = [];
      index.eachDependent(uid, 'Pod', (p) => {
        if (activeOf(uid, p)) active.push(p as Pod);
      });
      const extras = active.sort((a, b) => compareRank(deletionRank(a), deletionRank(b))).slice(0, Math.min(active.length - want, BURST_REPLICAS));
      for (const pod of extras) {
        deletePodGracefully(objects, pod);
        events.record(rs, { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name}`, component: 'replicaset-controller' });
      }
    }
    if (changed) counted = this.count(uid);
    const { active, ready } = counted;
    const status: Record<string, unknown> = { replicas: active };
    if (active > 0) status['fullyLabeledReplicas'] = active;
    if (ready > 0) {
      status['readyReplicas'] = ready;
      status['availableReplicas'] = ready;
    }
    status['observedGeneration'] = rs.metadata.generation ?? 1;
    objects.put(REPLICASETS, { ...rs, status }, { onlyIfChanged: true });
  }

  /** The ReplicaSet's active pods (it is their controller; not deleted, Succeeded or Failed), and how many are ready. */
  private count(uid: string | undefined): { active: number; ready: number } {
    const { active, ready } = this.ctx.index.tallyOf(uid);
    return { active, ready };
  }
}
