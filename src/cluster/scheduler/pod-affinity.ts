// kube-scheduler's InterPodAffinity filter for required terms: a pod's podAffinity (a matching pod must run in
// the node's topology domain), its podAntiAffinity (none may), and the anti-affinity of pods already running
// (they keep matching pods out of their domain). Terms select pods by labels within namespaces (the pod's own
// unless `namespaces` or a `namespaceSelector` says otherwise); the domain is the node label `topologyKey`.
import type { KubeObject } from '../apimachinery/object.js';
import type { Pod, PodAffinityTerm } from '../apimachinery/types.js';
import { own } from '../../http/own.js';
import { labelSelectorMatches } from '../apimachinery/selectors.js';
import { isTerminal } from '../client/indexes.js';
import type { Misfit } from './placement.js';

export const AFFINITY_NOT_MATCHED = "node(s) didn't match pod affinity rules";

export { labelSelectorMatches };

function required(pod: KubeObject, kind: 'podAffinity' | 'podAntiAffinity'): PodAffinityTerm[] {
  return (pod as Pod).spec?.affinity?.[kind]?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
}

export function hasRequiredAntiAffinity(pod: KubeObject): boolean {
  return required(pod, 'podAntiAffinity').length > 0;
}

/** Whether the term (written by a pod in `ownerNamespace`) selects `pod`. An empty namespaceSelector means all. */
function termSelects(term: PodAffinityTerm, ownerNamespace: string | undefined, pod: KubeObject): boolean {
  const ns = pod.metadata.namespace;
  const inScope =
    (term.namespaces ?? []).includes(ns ?? '') ||
    (term.namespaceSelector !== undefined && term.namespaceSelector !== null && Object.keys(term.namespaceSelector).length === 0) ||
    ((term.namespaces ?? []).length === 0 && !term.namespaceSelector && ns === ownerNamespace);
  return inScope && labelSelectorMatches(term.labelSelector, pod.metadata.labels);
}

function domainOf(node: KubeObject | undefined, key: string): string | undefined {
  return own<string>(node?.metadata.labels, key);
}

export interface AffinityWorld {
  /** Pods bound to a node and not finished. */
  boundPods(): KubeObject[];
  /** Bound pods with required anti-affinity terms (kept as an index: usually none). */
  antiAffinityPods(): Iterable<KubeObject>;
  node(name: string): KubeObject | undefined;
}

/**
 * Prepares the checks for one pod (one pass over the bound pods, only when the pod has terms of its own);
 * the returned function says why a node fails, or undefined.
 */
export function podAffinityFilter(pod: KubeObject, world: AffinityWorld): (node: KubeObject) => Misfit | undefined {
  const affinity = required(pod, 'podAffinity');
  const anti = required(pod, 'podAntiAffinity');
  const ns = pod.metadata.namespace;
  // Domains the running pods' anti-affinity closes to this pod.
  const closed: Array<{ key: string; value: string }> = [];
  for (const other of world.antiAffinityPods()) {
    if (other.metadata.uid === pod.metadata.uid || isTerminal(other)) continue;
    const node = world.node((other as Pod).spec?.nodeName as string);
    for (const term of required(other, 'podAntiAffinity')) {
      const value = domainOf(node, term.topologyKey);
      if (value !== undefined && termSelects(term, other.metadata.namespace, pod)) closed.push({ key: term.topologyKey, value });
    }
  }
  // For each of the pod's own terms, the domains holding a pod it selects.
  const domains = (terms: PodAffinityTerm[]) => terms.map(() => new Set<string>());
  const affinityDomains = domains(affinity);
  const antiDomains = domains(anti);
  const anyAffinityMatch = affinity.map(() => false);
  if (affinity.length + anti.length > 0) {
    for (const other of world.boundPods()) {
      if (other.metadata.uid === pod.metadata.uid) continue;
      const node = world.node((other as Pod).spec?.nodeName as string);
      affinity.forEach((t, i) => {
        if (!termSelects(t, ns, other)) return;
        anyAffinityMatch[i] = true;
        const v = domainOf(node, t.topologyKey);
        if (v !== undefined) affinityDomains[i]!.add(v);
      });
      anti.forEach((t, i) => {
        const v = domainOf(node, t.topologyKey);
        if (v !== undefined && termSelects(t, ns, other)) antiDomains[i]!.add(v);
      });
    }
  }
  // The first pod of a group that selects itself may start anywhere (the scheduler's special case).
  const selfStart = affinity.every((t, i) => !anyAffinityMatch[i] && termSelects(t, ns, pod));
  return (node) => {
    // kube-scheduler's order: the pod's affinity, its anti-affinity, then the running pods' anti-affinity.
    const label = (key: string) => domainOf(node, key);
    const unmatched = affinity.some((t, i) => {
      const domain = label(t.topologyKey);
      return domain === undefined || (!selfStart && !affinityDomains[i]!.has(domain));
    });
    if (unmatched) return { reasons: [AFFINITY_NOT_MATCHED], resolvable: false };
    if (anti.some((t, i) => label(t.topologyKey) !== undefined && antiDomains[i]!.has(label(t.topologyKey)!))) {
      return { reasons: ["node(s) didn't match pod anti-affinity rules"], resolvable: true };
    }
    if (closed.some((c) => label(c.key) === c.value)) return { reasons: ["node(s) didn't satisfy existing pods anti-affinity rules"], resolvable: true };
    return undefined;
  };
}
