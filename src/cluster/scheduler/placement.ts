// Where a pod may run: the scheduler's filter plugins in their default order (NodeUnschedulable,
// TaintToleration, NodeAffinity incl. nodeSelector, NodeResourcesFit for the pod count), and the
// FailedScheduling message kube-scheduler composes from the per-node reasons.
import type { KubeObject } from '../apimachinery/object.js';
import type { Node, NodeSelectorRequirement, Pod, PodSpec, Taint, Toleration } from '../apimachinery/types.js';
import { own } from '../../http/own.js';
import { allocatable, podRequests, type Usage } from '../apimachinery/requests.js';
import { tolerates, untoleratedTaint } from '../apimachinery/taints.js';

function requirementHolds(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1) return false;
      return req.operator === 'Gt' ? Number(value) > Number(values[0]) : Number(value) < Number(values[0]);
    }
    default:
      return false;
  }
}

/** nodeSelector and required node affinity (terms ORed, expressions ANDed; matchFields on metadata.name). */
export function nodeMatches(spec: PodSpec | undefined, node: KubeObject): boolean {
  const labels = node.metadata.labels;
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (own(labels, k) !== v) return false;
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  return terms.some((term) => {
    const exprs = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((r) => requirementHolds(r, own<string>(labels, r.key))) &&
      fields.every((r) => requirementHolds(r, r.key === 'metadata.name' ? node.metadata.name : undefined))
    );
  });
}

/** The one node a pod's affinity names through matchFields metadata.name (how DaemonSet pods are pinned). */
export function pinnedNode(spec: PodSpec | undefined): string | undefined {
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length !== 1) return undefined;
  const f = (terms[0]!.matchFields ?? []).find((r) => r.key === 'metadata.name' && r.operator === 'In' && r.values?.length === 1);
  return f?.values![0];
}

export const UNSCHEDULABLE_TAINT: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/** Why a node does not fit; `resolvable` says whether preemption could help (it can only free what pods hold). */
export interface Misfit {
  reasons: string[];
  resolvable: boolean;
}

/** The filters in kube-scheduler's order; undefined when the pod fits. `used` is what the node's pods hold. */
export function misfit(pod: KubeObject, node: KubeObject, used: Usage): Misfit | undefined {
  const spec = (pod as Pod).spec ?? {};
  const tolerations: Toleration[] = spec.tolerations ?? [];
  const n = node as Node;
  if (n.spec?.unschedulable && !tolerations.some((t) => tolerates(t, UNSCHEDULABLE_TAINT)))
    return { reasons: ['node(s) were unschedulable'], resolvable: false };
  const taint = untoleratedTaint(n.spec?.taints ?? [], tolerations);
  if (taint) return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`], resolvable: false };
  if (!nodeMatches(spec, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false };
  // NodeResourcesFit reports every resource that does not fit.
  const want = podRequests(pod);
  const has = allocatable(node);
  const short: string[] = [];
  if (used.pods + 1 > has.pods) short.push('Too many pods');
  if (want.cpu > 0 && used.cpu + want.cpu > has.cpu) short.push('Insufficient cpu');
  if (want.memory > 0 && used.memory + want.memory > has.memory) short.push('Insufficient memory');
  return short.length ? { reasons: short, resolvable: true } : undefined;
}

function tally(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts]
    .map(([r, c]) => `${c} ${r}`)
    .sort()
    .join(', ');
}

/** FitError.Error() plus the preemption post-filter's summary, as kube-scheduler 1.32 words them. */
export function failedSchedulingMessage(nodeCount: number, misfits: Misfit[]): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  const fit = `0/${nodeCount} nodes are available: ${tally(misfits.flatMap((m) => m.reasons))}.`;
  const preemption = tally(misfits.map((m) => (m.resolvable ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling')));
  return `${fit} preemption: 0/${nodeCount} nodes are available: ${preemption}.`;
}
