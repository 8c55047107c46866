// The disruption controller's PodDisruptionBudget status (kubernetes pkg/controller/disruption/disruption.go):
// the pods the selector picks in the budget's namespace; expectedPods and desiredHealthy from minAvailable (a
// count: the pods themselves are expected) or from maxUnavailable / a percentage (the scale of the pods'
// controllers: a ReplicaSet's replicas, its Deployment's when it has one); currentHealthy the ready pods not
// being deleted; disruptionsAllowed what exceeds desiredHealthy; the DisruptionAllowed condition
// (SufficientPods / InsufficientPods) and observedGeneration. Pods whose controller has no scale leave the
// status at zero with the controller's SyncFailed condition.
import { isPlainObject } from '../../http/own.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Change } from '../apiserver/index.js';
import { DEPLOYMENTS, PDBS, PODS, REPLICASETS, resourceKey } from '../apimachinery/resources.js';
import { labelSelectorMatches } from '../apimachinery/selectors.js';
import { k8sTime } from '../apimachinery/time.js';
import type { ControllerContext } from '../client/context.js';
import { controllerRef, isPodReady } from '../client/pod-state.js';
import { splitKey, KeyedController } from '../client/queue.js';

type Selector = Parameters<typeof labelSelectorMatches>[0];

/** The budget's selector when it has the LabelSelector's shape; anything else selects nothing. */
function selectorOf(pdb: KubeObject): Selector {
  const sel = (pdb['spec'] as Record<string, unknown> | undefined)?.['selector'];
  if (!isPlainObject(sel)) return null;
  const { matchLabels, matchExpressions } = sel;
  if (matchLabels !== undefined && !isPlainObject(matchLabels)) return null;
  if (matchExpressions !== undefined && !(Array.isArray(matchExpressions) && matchExpressions.every(isPlainObject))) return null;
  return sel as Selector;
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up; undefined when it is neither. */
function scaled(v: unknown, total: number): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+%$/.test(v)) return Math.ceil((Number(v.slice(0, -1)) * total) / 100);
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

export class DisruptionController extends KeyedController {
  constructor(protected override readonly ctx: ControllerContext) {
    super(ctx, PDBS, 'disruption');
  }

  observe(change: Change): void {
    const o = change.object;
    if (change.resource === resourceKey(PDBS)) {
      if (change.type !== 'DELETED') this.enqueue(o);
    } else if (change.resource === resourceKey(PODS) || change.resource === resourceKey(REPLICASETS) || change.resource === resourceKey(DEPLOYMENTS)) {
      for (const pdb of this.ctx.objects.list(PDBS, o.metadata.namespace)) this.enqueue(pdb);
    }
  }

  /** The scale of the pods' controllers, each counted once; a string naming the pod when one has none. */
  private expectedScale(pods: KubeObject[]): number | string {
    const { objects } = this.ctx;
    const seen = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerRef(pod);
      if (!ref) return `found no controller ref for pod "${pod.metadata.name}"`;
      const rs = ref.kind === 'ReplicaSet' ? objects.get(REPLICASETS, pod.metadata.namespace, ref.name) : undefined;
      if (!rs) return `found no controllers for pod "${pod.metadata.name}"`;
      const depRef = controllerRef(rs);
      const dep = depRef?.kind === 'Deployment' ? objects.get(DEPLOYMENTS, rs.metadata.namespace, depRef.name) : undefined;
      const owner = dep ?? rs;
      const replicas = (owner['spec'] as { replicas?: unknown } | undefined)?.replicas;
      seen.set(owner.metadata.uid ?? owner.metadata.name, typeof replicas === 'number' ? replicas : 1);
    }
    return [...seen.values()].reduce((a, b) => a + b, 0);
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects } = this.ctx;
    const pdb = objects.get(PDBS, namespace, name);
    if (!pdb) return;
    const spec = (isPlainObject(pdb['spec']) ? pdb['spec'] : {}) as Record<string, unknown>;
    const selector = selectorOf(pdb);
    const pods = objects.list(PODS, namespace).filter((p) => labelSelectorMatches(selector, p.metadata.labels));
    const currentHealthy = pods.filter((p) => !p.metadata.deletionTimestamp && isPodReady(p)).length;
    let expectedPods = pods.length;
    let desiredHealthy = 0;
    let failure: string | undefined;
    const min = spec['minAvailable'];
    const max = spec['maxUnavailable'];
    if (max !== undefined || (typeof min === 'string' && min.endsWith('%'))) {
      const scale = this.expectedScale(pods);
      if (typeof scale === 'string') failure = scale;
      else {
        expectedPods = scale;
        desiredHealthy = max !== undefined ? Math.max(0, expectedPods - (scaled(max, expectedPods) ?? 0)) : (scaled(min, expectedPods) ?? 0);
      }
    } else if (min !== undefined) desiredHealthy = scaled(min, expectedPods) ?? 0;
    const prior = (isPlainObject(pdb['status']) ? pdb['status'] : {}) as Record<string, unknown>;
    const generation = pdb.metadata.generation ?? 1;
    let allowed = currentHealthy - desiredHealthy;
    if (failure || expectedPods <= 0 || allowed <= 0) allowed = 0;
    const condition = failure
      ? { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: failure }
      : allowed > 0
        ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }
        : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' };
    const before = (Array.isArray(prior['conditions']) ? prior['conditions'] : []).find((c) => isPlainObject(c) && c['type'] === 'DisruptionAllowed') as
      | Record<string, unknown>
      | undefined;
    const since =
      before && before['status'] === condition.status && typeof before['lastTransitionTime'] === 'string' ? before['lastTransitionTime'] : k8sTime(Date.now());
    const status = failure
      ? {
          ...prior,
          disruptionsAllowed: 0,
          observedGeneration: generation,
          conditions: [{ ...condition, observedGeneration: generation, lastTransitionTime: since }],
        }
      : {
          observedGeneration: generation,
          ...(isPlainObject(prior['disruptedPods']) ? { disruptedPods: prior['disruptedPods'] } : {}),
          disruptionsAllowed: allowed,
          currentHealthy,
          desiredHealthy,
          expectedPods,
          conditions: [{ ...condition, observedGeneration: generation, lastTransitionTime: since }],
        };
    objects.put(PDBS, { ...pdb, status }, { onlyIfChanged: true });
  }
}
