// The Deployment controller: one ReplicaSet per pod template (`<deploy>-<pod-template-hash>`, labelled and
// selected by pod-template-hash), scaled to spec.replicas; on a template change the new ReplicaSet scales
// up and the old ones down as the new pods become available (a rolling update with a generous surge). It
// reports replicas / updated / ready / available, observedGeneration and the Available and Progressing
// conditions that `kubectl rollout status` reads.
import type { KubeObject } from '../apimachinery/object.js';
import type { Condition, Deployment, ReplicaSet } from '../apimachinery/types.js';
import type { Change } from '../apiserver/index.js';
import { k8sTime } from '../apimachinery/time.js';
import { controllerRef, ownerReference, type ControllerContext } from '../client/context.js';
import { DEPLOYMENTS, REPLICASETS, resourceKey } from '../apimachinery/resources.js';
import { templateHash } from '../apimachinery/generated-names.js';
import { splitKey, KeyedController } from '../client/queue.js';

const REVISION = 'deployment.kubernetes.io/revision';
const HASH = 'pod-template-hash';

/** "25%" of n rounded as the rolling-update fields are (surge up, unavailable down), or an absolute count. */
function scaled(value: unknown, n: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(String(value ?? ''));
  if (!m) return Number(value ?? 0) || 0;
  const exact = (Number(m[1]) * n) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
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
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects, index } = this.ctx;
    const d = objects.get(DEPLOYMENTS, namespace, name) as Deployment | undefined;
    if (!d || d.metadata.deletionTimestamp) return;
    const owned = () => index.dependents(d.metadata.uid, 'ReplicaSet').filter((rs) => controllerRef(rs)?.uid === d.metadata.uid) as ReplicaSet[];
    const desired = Math.max(0, Number(d.spec?.replicas ?? 1));
    const hash = templateHash(d.spec?.template, d.status?.collisionCount);
    let all = owned();
    let current = all.find((rs) => rs.metadata.labels?.[HASH] === hash);
    const olds = () => all.filter((rs) => rs !== current);
    const surge = scaled(d.spec?.strategy?.rollingUpdate?.maxSurge, desired, true);
    if (!current) {
      const taken = objects.get(REPLICASETS, namespace, `${name}-${hash}`);
      if (taken) {
        // The name belongs to someone else's ReplicaSet: hash again with the next collision count, as the
        // real controller does (the status write below re-queues this deployment).
        const collisionCount = Number(d.status?.collisionCount ?? 0) + 1;
        objects.put(DEPLOYMENTS, { ...d, status: { ...(d.status ?? {}), collisionCount } });
        return;
      }
      const revision = Math.max(0, ...all.map((rs) => Number(rs.metadata.annotations?.[REVISION] ?? 0))) + 1;
      current = this.createReplicaSet(d, hash, revision, olds().some((rs) => (rs.spec?.replicas ?? 0) > 0) ? 0 : desired, surge);
      all = owned();
    }
    if (!d.spec?.paused) {
      // New pods first; old ReplicaSets give up what the new one has made available.
      this.scale(d, current, desired, surge);
      const available = Number(current.status?.availableReplicas ?? 0);
      let oldBudget = Math.max(0, desired - available);
      for (const rs of olds().sort((a, b) => Date.parse(b.metadata.creationTimestamp!) - Date.parse(a.metadata.creationTimestamp!))) {
        const keep = Math.min(Number(rs.spec?.replicas ?? 0), oldBudget);
        oldBudget -= keep;
        this.scale(d, rs, keep, surge);
      }
    }
    this.writeStatus(d, objects.get(REPLICASETS, namespace, current.metadata.name) ?? current, owned(), desired);
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

  private scale(d: Deployment, rs: ReplicaSet, replicas: number, surge: number): void {
    const from = Number(rs.spec?.replicas ?? 0);
    const annotations = {
      ...(rs.metadata.annotations ?? {}),
      'deployment.kubernetes.io/desired-replicas': String(d.spec?.replicas ?? 1),
      'deployment.kubernetes.io/max-replicas': String((d.spec?.replicas ?? 1) + surge),
    };
    if (from === replicas && JSON.stringify(annotations) === JSON.stringify(rs.metadata.annotations ?? {})) return;
    const generation = (rs.metadata.generation ?? 1) + (from === replicas ? 0 : 1);
    this.ctx.objects.put(REPLICASETS, { ...rs, metadata: { ...rs.metadata, generation, annotations }, spec: { ...rs.spec, replicas } });
    if (from !== replicas) this.scaledEvent(d, rs, from, replicas);
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

  private writeStatus(d: Deployment, current: ReplicaSet, all: ReplicaSet[], desired: number): void {
    const now = k8sTime(Date.now());
    const sum = (f: string) => all.reduce((n, rs) => n + Number(rs.status?.[f] ?? 0), 0);
    const replicas = sum('replicas');
    const ready = sum('readyReplicas');
    const available = sum('availableReplicas');
    const updated = Number(current.status?.replicas ?? 0);
    const maxUnavailable = scaled(d.spec?.strategy?.rollingUpdate?.maxUnavailable, desired, false);
    const minimum = d.spec?.strategy?.type === 'Recreate' ? desired : desired - maxUnavailable;
    const previous = d.status?.conditions;
    const rsName = current.metadata.name;
    const complete = updated === desired && replicas === desired && available === desired && Number(current.status?.availableReplicas ?? 0) === desired;
    const createdNow = !previous?.some((c) => c.type === 'Progressing');
    const progressing = complete
      ? deploymentCondition('Progressing', true, 'NewReplicaSetAvailable', `ReplicaSet "${rsName}" has successfully progressed.`, previous, now)
      : createdNow
        ? deploymentCondition('Progressing', true, 'NewReplicaSetCreated', `Created new replica set "${rsName}"`, previous, now)
        : deploymentCondition('Progressing', true, 'ReplicaSetUpdated', `ReplicaSet "${rsName}" is progressing.`, previous, now);
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
    const annotations = { ...(d.metadata.annotations ?? {}), [REVISION]: String(current.metadata.annotations?.[REVISION] ?? '1') };
    this.ctx.objects.put(DEPLOYMENTS, { ...d, metadata: { ...d.metadata, annotations }, status }, { onlyIfChanged: true });
  }
}
