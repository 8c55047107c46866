// Taints and tolerations as the API's helpers match them (k8s.io/api core/v1 toleration.go): the scheduler's
// TaintToleration filter, the DaemonSet controller and the apiserver's defaulting all ask the same question.
import type { Taint, Toleration } from './types.js';

/** v1helper.Toleration.ToleratesTaint. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== 'Exists') return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

/** The first NoSchedule/NoExecute taint none of the tolerations tolerate. */
export function untoleratedTaint(taints: Taint[], tolerations: Toleration[]): Taint | undefined {
  return taints.find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerations.some((t) => tolerates(t, taint)));
}
