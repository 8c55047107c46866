// The conditions the namespace controller writes on a Terminating namespace's status, worded as
// pkg/controller/namespace/deletion/status_condition_utils.go words them: each of the five types is True with
// what went wrong, or False with its "ok" reason and message; lastTransitionTime changes only with the status.
import type { KubeObject } from '../apimachinery/object.js';
import { type ObjectStore, catalogOf, finalizersOf } from '../apiserver/index.js';
import { k8sTime } from '../apimachinery/time.js';

interface Condition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** The types in the controller's order, with their "ok" reason and message. */
const OK: Array<[string, string, string]> = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

export interface Remaining {
  /** `resource.group` (core: `pods.`) → how many are left. */
  resources: Map<string, number>;
  /** finalizer → how many of what is left it holds. */
  finalizers: Map<string, number>;
}

/** What is left in the namespace, counted as the controller counts it. */
export function remainingContent(objects: ObjectStore, namespace: string): Remaining {
  const out: Remaining = { resources: new Map(), finalizers: new Map() };
  // Built-in kinds and the kinds the cluster's CRDs serve (catalog.ts).
  for (const r of catalogOf(objects).resources()) {
    if (!r.namespaced) continue;
    const left = objects.list(r, namespace);
    if (left.length === 0) continue;
    out.resources.set(`${r.resource}.${r.group}`, left.length);
    for (const o of left) for (const f of finalizersOf(o)) out.finalizers.set(f, (out.finalizers.get(f) ?? 0) + 1);
  }
  return out;
}

function counted(m: Map<string, number>, what: (key: string, n: number) => string): string {
  return [...m.entries()]
    .map(([k, n]) => what(k, n))
    .sort()
    .join(', ');
}

/** The conditions for what is left: the failures that apply, the "ok" variant of the rest. */
export function deletionConditions(left: Remaining): Condition[] {
  const failing = new Map<string, Condition>();
  if (left.resources.size > 0)
    failing.set('NamespaceContentRemaining', {
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${counted(left.resources, (k, n) => `${k} has ${n} resource instances`)}`,
    });
  if (left.finalizers.size > 0)
    failing.set('NamespaceFinalizersRemaining', {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${counted(left.finalizers, (k, n) => `${k} in ${n} resource instances`)}`,
    });
  return OK.map(([type, reason, message]) => failing.get(type) ?? { type, status: 'False', reason, message });
}

/** ns with the conditions merged into its status (updateConditions: times move only when a status flips). */
export function withConditions(ns: KubeObject, conditions: Condition[], now = Date.now()): KubeObject {
  const status = (ns['status'] ?? {}) as { conditions?: Condition[] };
  const old = new Map((status.conditions ?? []).map((c) => [c.type, c]));
  const merged = conditions.map((c) => {
    const before = old.get(c.type);
    return { ...c, lastTransitionTime: before && before.status === c.status ? (before.lastTransitionTime ?? k8sTime(now)) : k8sTime(now) };
  });
  // Types the controller does not keep stay as they are.
  const kept = (status.conditions ?? []).filter((c) => !conditions.some((n) => n.type === c.type));
  return { ...ns, status: { ...status, phase: 'Terminating', conditions: [...merged, ...kept] } };
}
