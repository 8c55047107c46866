// How kube-controller-manager's ReplicaSet and DaemonSet controllers pace their pods: at most burstReplicas
// pods created or deleted per sync of one object, creations in slow-start batches of 1, 2, 4, … that stop
// at the first failure (a full cluster fails one pod, not five hundred). Here each batch past 32 pods has a
// turn of the event loop to itself: the object's key comes back through the work queue for the next batch,
// so whatever else the server has to do runs in between, and `--replicas=1000000000` costs at most 256 pods
// per turn.
import type { KubeObject } from '../apimachinery/object.js';
import type { ControllerContext } from '../client/context.js';
import type { ResourceType } from '../apimachinery/resources.js';
import { KeyedController, type WorkQueue } from '../client/queue.js';

/** The controllers' burstReplicas. */
export const BURST_REPLICAS = 500;

/** controller.SlowStartInitialBatchSize */
const INITIAL_BATCH = 1;

/** Batches up to this size run in the same turn as the ones before them (1 + 2 + … + 32 = 63 pods). */
const SHARED_TURN_BATCH = 32;

interface Burst {
  /** What is left of this sync's burst. */
  left: number;
  batch: number;
}

/**
 * One controller's pod creations: per key, a burst of up to BURST_REPLICAS in doubling batches, one batch per
 * turn, each pod a SuccessfulCreate event. A refused create is the controller's FailedCreate event
 * (`Error creating: <the apiserver's words>`) and sends the key into back-off, during which nothing is tried.
 */
export class PodBursts {
  private readonly bursts = new Map<string, Burst>();

  constructor(
    private readonly ctx: Pick<ControllerContext, 'events'>,
    private readonly queue: WorkQueue,
    private readonly component: string,
  ) {}

  /** Creates the next batches of the pods `owner` (synced under `key`) misses; create(i) makes the i-th. */
  create(key: string, owner: KubeObject, missing: number, create: (i: number) => KubeObject): void {
    if (missing <= 0 || this.queue.backingOff(key)) return void this.bursts.delete(key);
    const burst = this.bursts.get(key) ?? { left: Math.min(missing, BURST_REPLICAS), batch: INITIAL_BATCH };
    let created = 0;
    try {
      // Small batches share a turn (a Deployment of a few dozen pods is created at once); big ones get their own.
      do {
        const size = Math.min(burst.batch, burst.left, missing - created);
        for (let i = 0; i < size; i++, created++, burst.left--) {
          const pod = create(created);
          this.ctx.events.record(owner, {
            type: 'Normal',
            reason: 'SuccessfulCreate',
            message: `Created pod: ${pod.metadata.name}`,
            component: this.component,
          });
        }
        burst.batch *= 2;
      } while (burst.batch <= SHARED_TURN_BATCH && burst.left > 0 && missing > created);
    } catch (error) {
      this.bursts.delete(key);
      this.ctx.events.record(owner, {
        type: 'Warning',
        reason: 'FailedCreate',
        message: `Error creating: ${(error as Error).message}`,
        component: this.component,
      });
      return this.queue.retry(key);
    }
    this.queue.forget(key);
    // The next batch on the next turn; a finished burst starts over at one pod, as the next sync does.
    if (burst.left > 0 && missing > created) this.bursts.set(key, burst);
    else this.bursts.delete(key);
    if (missing > created) this.queue.add(key);
  }
}

/** A controller that creates its pods in bursts (ReplicaSets, DaemonSets), named in events as kube-controller-manager names it. */
export abstract class BurstingController extends KeyedController {
  protected readonly bursts: PodBursts;

  constructor(
    protected override readonly ctx: ControllerContext,
    primary: ResourceType,
    label: string,
  ) {
    super(ctx, primary, label);
    this.bursts = new PodBursts(ctx, this.queue, `${label}-controller`);
  }
}
