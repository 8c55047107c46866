// The Deployment controller: one ReplicaSet per pod template (`<deploy>-<pod-template-hash>`, labelled and
// selected by pod-template-hash), scaled to spec.replicas; on a template change a rolling update after kube's
// rolling.go (the new ReplicaSet grows within maxSurge, the old ones shrink as the new pods become available, never
// below spec.replicas - maxUnavailable available) or a Recreate (old pods gone before the new ReplicaSet). It
// reports replicas / updated / ready / available, observedGeneration and the Available and Progressing
// conditions that `kubectl rollout status` reads.
import type { KubeObject } from '../apimachinery/object.js';
import type { Condition, Deployment, ReplicaSet } from '../apimachinery/types.js';
import type { Change } from '../apiserver/index.js';
import { k8sTime } from '../apimachinery/time.js';
import { ownerReference, type ControllerContext } from '../client/context.js';
import { controllerRef, isRunning } from '../client/pod-state.js';
import { DEPLOYMENTS, PODS, REPLICASETS, resourceKey } from '../apimachinery/resources.js';
import { templateHash } from '../apimachinery/generated-names.js';
import { splitKey, KeyedController } from '../client/queue.js';

const REVISION = 'deployment.kubernetes.io/revision';
const HASH = 'pod-template-hash';
const PODS_KEY = resourceKey(PODS);

/** "25%" of n rounded as the rolling-update fields are (surge up, unavailable down), or an absolute count. */
function scaled(value: unknown, n: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(String(value ?? ''));
  if (!m) return Number(value ?? 0) || 0;
  const exact = (Number(m[1]) * n) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

interface Fences {
  surge: number;
  unavailable: number;
}

/** ResolveFenceposts: the surge rounded up, the unavailable down, and not both 0; none for Recreate. */
function fenceposts(d: Deployment, desired: number): Fences {
  if (d.spec?.strategy?.type === 'Recreate') return { surge: 0, unavailable: 0 };
  const rolling = d.spec?.strategy?.rollingUpdate;
  const surge = scaled(rolling?.maxSurge, desired, true);
  const unavailable = scaled(rolling?.maxUnavailable, desired, false);
  if (desired === 0) return { surge, unavailable: 0 };
  return { surge, unavailable: Math.min(desired, surge === 0 && unavailable === 0 ? 1 : unavailable) };
}

const replicasOf = (rs: ReplicaSet): number => Number(rs.spec?.replicas ?? 0);
const availableOf = (rs: ReplicaSet): number => Number(rs.status?.availableReplicas ?? 0);
const sum = (all: ReplicaSet[], of: (rs: ReplicaSet) => number): number => all.reduce((n, rs) => n + of(rs), 0);

/** NewRSNewReplicas for a rolling update: grow toward the desired count while every ReplicaSet's sum stays within the surge. */
function newReplicas(all: ReplicaSet[], has: number, desired: number, surge: number): number {
  const count = sum(all, replicasOf);
  const room = desired + surge - count;
  return room <= 0 ? has : has + Math.min(room, desired - has);
}

/** ReplicaSetsByCreationTimestamp: oldest first, by name when made in the same second. */
function byAge(sets: ReplicaSet[]): ReplicaSet[] {
  const at = (rs: ReplicaSet) => Date.parse(rs.metadata.creationTimestamp ?? '') || 0;
  return sets.sort((a, b) => at(a) - at(b) || (a.metadata.name < b.metadata.name ? -1 : 1));
}

function deploymentCondition(type: string, status: boolean, reason: string, message: string, previous: Condition[] | undefined, now: string): Condition {
  const old = previous?.find((c) => c.type === type);
  const same = old && old.status === (status ? 'True' : 'False');
  const unchanged = same && old.reason === reason && old.message === message;
  return {
    type,
    status: status ? 'True' : 'False',
    lastUpdateTime: unchanged ? old.lastUpdateTime : now,
    lastTransitionTime: same ? old.lastTransitionTime : now,
    reason,
    message,
  };
}

export class DeploymentController extends KeyedController {
  constructor(protected override readonly ctx: ControllerContext) {
    super(ctx, DEPLOYMENTS, 'deployment');
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(DEPLOYMENTS)) this.enqueue(change.object);
    else if (change.resource === resourceKey(REPLICASETS)) this.enqueueController(change.object, 'Deployment');
    else if (change.type === 'DELETED' && change.resource === PODS_KEY) this.podGone(change.object);
  }

  /** deletePod: a Recreate Deployment waits for its old pods to be gone, so each one gone looks again. */
  private podGone(pod: KubeObject): void {
    const ref = controllerRef(pod);
    if (ref?.kind !== 'ReplicaSet') return;
    const rs = this.ctx.objects.get(REPLICASETS, pod.metadata.namespace, ref.name);
    const owner = rs && controllerRef(rs);
    if (owner?.kind !== 'Deployment') return;
    const d = this.ctx.objects.get(DEPLOYMENTS, pod.metadata.namespace, owner.name) as Deployment | undefined;
    if (d?.spec?.strategy?.type === 'Recreate') this.enqueue(d);
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects, index } = this.ctx;
    const d = objects.get(DEPLOYMENTS, namespace, name) as Deployment | undefined;
    if (!d || d.metadata.deletionTimestamp) return;
    const owned = () => index.dependents(d.metadata.uid, 'ReplicaSet').filter((rs) => controllerRef(rs)?.uid === d.metadata.uid) as ReplicaSet[];
    const desired = Math.max(0, Number(d.spec?.replicas ?? 1));
    const hash = templateHash(d.spec?.template, d.status?.collisionCount);
    const fences = fenceposts(d, desired);
    const recreate = d.spec?.strategy?.type === 'Recreate';
    let all = owned();
    let current = all.find((rs) => rs.metadata.labels?.[HASH] === hash);
    // The old ReplicaSets, oldest first: a new one made below is not among them, and nothing here changes them first.
    const olds = byAge(all.filter((rs) => rs !== current));
    // A paused Deployment is only scaled; Recreate makes no new ReplicaSet while old pods run (recreate.go).
    const waiting = d.spec?.paused || (recreate && (this.scaleOldsToZero(d, olds, fences.surge) || this.oldPodsRunning(olds)));
    if (!current && !waiting) {
      const taken = objects.get(REPLICASETS, namespace, `${name}-${hash}`);
      if (taken) {
        // The name belongs to someone else's ReplicaSet: hash again with the next collision count, as the
        // real controller does (the status write below re-queues this deployment).
        const collisionCount = Number(d.status?.collisionCount ?? 0) + 1;
        objects.put(DEPLOYMENTS, { ...d, status: { ...(d.status ?? {}), collisionCount } });
        return;
      }
      const revision = Math.max(0, ...all.map((rs) => Number(rs.metadata.annotations?.[REVISION] ?? 0))) + 1;
      current = this.createReplicaSet(d, hash, revision, recreate ? desired : newReplicas(all, 0, desired, fences.surge), fences.surge);
      all = owned();
    }
    if (current && !waiting) {
      if (recreate) this.scale(d, current, desired, fences.surge);
      else if (!this.scaleNew(d, current, all, desired, fences.surge)) this.scaleOldsDown(d, current, olds, desired, fences);
    }
    const now = current && objects.get(REPLICASETS, namespace, current.metadata.name);
    this.writeStatus(d, now ?? current, owned(), desired, fences.unavailable);
  }

  /** reconcileNewReplicaSet: the new ReplicaSet grows within the surge (or shrinks to the desired count). */
  private scaleNew(d: Deployment, current: ReplicaSet, all: ReplicaSet[], desired: number, surge: number): boolean {
    const has = replicasOf(current);
    if (has === desired) {
      this.scale(d, current, desired, surge);
      return false;
    }
    return this.scale(d, current, has > desired ? desired : newReplicas(all, has, desired, surge), surge);
  }

  /**
   * reconcileOldReplicaSets: the old ReplicaSets give up what keeps the Deployment above its minimum available, their
   * unavailable replicas first, oldest ReplicaSet first.
   */
  private scaleOldsDown(d: Deployment, current: ReplicaSet, olds: ReplicaSet[], desired: number, fences: Fences): void {
    const active = olds.filter((rs) => replicasOf(rs) > 0);
    if (active.length === 0) return;
    const all = [...olds, current];
    const minAvailable = desired - fences.unavailable;
    const newUnavailable = replicasOf(current) - availableOf(current);
    const maxScaledDown = sum(all, replicasOf) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return;
    // cleanupUnhealthyReplicas
    let cleaned = 0;
    for (const rs of active) {
      const down = Math.min(maxScaledDown - cleaned, replicasOf(rs) - availableOf(rs));
      if (down <= 0) continue;
      this.scale(d, rs, replicasOf(rs) - down, fences.surge);
      cleaned += down;
      if (cleaned >= maxScaledDown) break;
    }
    // scaleDownOldReplicaSetsForRollingUpdate, on the ReplicaSets as the clean-up left them
    const fresh = (rs: ReplicaSet) => (this.ctx.objects.get(REPLICASETS, rs.metadata.namespace, rs.metadata.name) as ReplicaSet | undefined) ?? rs;
    const now = active.map(fresh);
    const available = sum([...now, current], availableOf);
    let budget = available - minAvailable;
    for (const rs of now) {
      if (budget <= 0) break;
      const down = Math.min(replicasOf(rs), budget);
      if (down === 0) continue;
      this.scale(d, rs, replicasOf(rs) - down, fences.surge);
      budget -= down;
    }
  }

  /** scaleDownOldReplicaSetsForRecreate: every old ReplicaSet to 0 at once. */
  private scaleOldsToZero(d: Deployment, olds: ReplicaSet[], surge: number): boolean {
    let scaledDown = false;
    for (const rs of olds) if (replicasOf(rs) > 0) scaledDown = this.scale(d, rs, 0, surge) || scaledDown;
    return scaledDown;
  }

  /** oldPodsRunning: an old ReplicaSet still counts pods, or owns a pod that has not finished. */
  private oldPodsRunning(olds: ReplicaSet[]): boolean {
    return olds.some((rs) => Number(rs.status?.replicas ?? 0) > 0 || this.ctx.index.dependents(rs.metadata.uid, 'Pod').some(isRunning));
  }

  private createReplicaSet(d: Deployment, hash: string, revision: number, replicas: number, surge: number): ReplicaSet {
    const template = structuredClone(d.spec?.template ?? {});
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [HASH]: hash } };
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        generation: 1,
        labels: { ...(d.spec?.template?.metadata?.labels ?? {}), [HASH]: hash },
        annotations: {
          'deployment.kubernetes.io/desired-replicas': String(d.spec?.replicas ?? 1),
          'deployment.kubernetes.io/max-replicas': String((d.spec?.replicas ?? 1) + surge),
          [REVISION]: String(revision),
        },
        ownerReferences: [ownerReference(d)],
      },
      spec: {
        replicas,
        ...(d.spec?.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
        selector: { ...(d.spec?.selector ?? {}), matchLabels: { ...(d.spec?.selector?.matchLabels ?? {}), [HASH]: hash } },
        template,
      },
    };
    const stored = this.ctx.objects.put(REPLICASETS, rs);
    if (replicas > 0) this.scaledEvent(d, stored, 0, replicas);
    return stored;
  }

  /** Sets a ReplicaSet's size and the Deployment's annotations on it; true when the size changed. */
  private scale(d: Deployment, rs: ReplicaSet, replicas: number, surge: number): boolean {
    const from = replicasOf(rs);
    const annotations = {
      ...(rs.metadata.annotations ?? {}),
      'deployment.kubernetes.io/desired-replicas': String(d.spec?.replicas ?? 1),
      'deployment.kubernetes.io/max-replicas': String((d.spec?.replicas ?? 1) + surge),
    };
    if (from === replicas && JSON.stringify(annotations) === JSON.stringify(rs.metadata.annotations ?? {})) return false;
    const generation = (rs.metadata.generation ?? 1) + (from === replicas ? 0 : 1);
    this.ctx.objects.put(REPLICASETS, { ...rs, metadata: { ...rs.metadata, generation, annotations }, spec: { ...rs.spec, replicas } });
    if (from === replicas) return false;
    this.scaledEvent(d, rs, from, replicas);
    return true;
  }

  private scaledEvent(d: Deployment, rs: ReplicaSet, from: number, to: number): void {
    const verb = to > from ? 'up' : 'down';
    this.ctx.events.record(d, {
      type: 'Normal',
      reason: 'ScalingReplicaSet',
      message: `Scaled ${verb} replica set ${rs.metadata.name} from ${from} to ${to}`,
      component: 'deployment-controller',
    });
  }

  private writeStatus(d: Deployment, current: ReplicaSet | undefined, all: ReplicaSet[], desired: number, maxUnavailable: number): void {
    const now = k8sTime(Date.now());
    const total = (f: string) => sum(all, (rs) => Number(rs.status?.[f] ?? 0));
    const replicas = total('replicas');
    const ready = total('readyReplicas');
    const available = total('availableReplicas');
    const updated = Number(current?.status?.replicas ?? 0);
    const minimum = desired - maxUnavailable;
    const previous = d.status?.conditions;
    const rsName = current?.metadata.name;
    const complete = current !== undefined && updated === desired && replicas === desired && available === desired && availableOf(current) === desired;
    const createdNow = !previous?.some((c) => c.type === 'Progressing');
    const progressing = complete
      ? deploymentCondition('Progressing', true, 'NewReplicaSetAvailable', `ReplicaSet "${rsName}" has successfully progressed.`, previous, now)
      : createdNow
        ? deploymentCondition('Progressing', true, 'NewReplicaSetCreated', `Created new replica set "${rsName}"`, previous, now)
        : deploymentCondition(
            'Progressing',
            true,
            'ReplicaSetUpdated',
            rsName ? `ReplicaSet "${rsName}" is progressing.` : `Deployment "${d.metadata.name}" is progressing.`,
            previous,
            now,
          );
    const availableCondition =
      available >= minimum
        ? deploymentCondition('Available', true, 'MinimumReplicasAvailable', 'Deployment has minimum availability.', previous, now)
        : deploymentCondition('Available', false, 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', previous, now);
    const status: Record<string, unknown> = {
      ...(d.status?.collisionCount ? { collisionCount: d.status.collisionCount } : {}),
      availableReplicas: available || undefined,
      conditions: [availableCondition, progressing],
      observedGeneration: d.metadata.generation ?? 1,
      readyReplicas: ready || undefined,
      replicas: replicas || undefined,
      unavailableReplicas: Math.max(0, desired - available) || undefined,
      updatedReplicas: updated || undefined,
    };
    for (const k of Object.keys(status)) if (status[k] === undefined) delete status[k];
    const revision = current?.metadata.annotations?.[REVISION] ?? d.metadata.annotations?.[REVISION] ?? '1';
    const annotations = { ...(d.metadata.annotations ?? {}), [REVISION]: String(revision) };
    this.ctx.objects.put(DEPLOYMENTS, { ...d, metadata: { ...d.metadata, annotations }, status }, { onlyIfChanged: true });
  }
}
