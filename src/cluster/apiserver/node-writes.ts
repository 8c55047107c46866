// What the API's writers own on a Node, and the apiserver's rules for it. Nodes are rebuilt from the provider's
// records (nodes.ts, cluster.ts); what users and agents wrote through the API stays on the rebuilt object, as a
// real Node keeps it while its kubelet reports status: annotations and labels added (flannel's
// flannel.alpha.coreos.com/*, Calico's and Cilium's), a pod CIDR given to a node that had none (a BYO CNI node on
// AKS, given one by `kubectl patch node`), taints and cordons, and conditions another controller reports
// (flannel's NetworkUnavailable). That part (writtenPart) is kept apart from the record's and persisted with the
// cluster's objects, so a restart or the rebuild of a node that keeps its name loses none of it.
//
// The rules are kubernetes pkg/apis/core/validation/validation.go (ValidateNode, ValidateNodeUpdate) and the v1
// conversion of NodeSpec (pkg/apis/core/v1/conversion.go): spec.podCIDR is spec.podCIDRs[0]; each entry must be a
// CIDR, at most one per family; and once set, podCIDRs never change ("node updates may not change podCIDR except
// from "" to valid").
import { Cidr } from '../../net/ip.js';
import { fieldError, invalidObject, type StatusCause } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const specOf = (node: KubeObject | undefined): Obj => (node && isObj(node['spec']) ? node['spec'] : {});

/** The node's pod CIDRs as the apiserver holds them (podCIDRs, or the lone podCIDR). */
function podCidrs(node: KubeObject | undefined): unknown[] {
  const spec = specOf(node);
  if (Array.isArray(spec['podCIDRs']) && spec['podCIDRs'].length > 0) return spec['podCIDRs'];
  return typeof spec['podCIDR'] === 'string' && spec['podCIDR'] !== '' ? [spec['podCIDR']] : [];
}

/** Go's `%#v` of a []string, as field.Invalid prints a slice it was given. */
function goSlice(values: unknown[]): string {
  return `[]string{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
}

/** The conversion of a written Node: podCIDRs from a lone podCIDR, and podCIDR = podCIDRs[0]. */
export function nodeDefaults(node: KubeObject): void {
  const list = podCidrs(node);
  if (list.length === 0) return;
  const spec = isObj(node['spec']) ? node['spec'] : (node['spec'] = {});
  spec['podCIDRs'] = list;
  spec['podCIDR'] = list[0];
}

/** ValidateNode's podCIDRs rules and ValidateNodeUpdate's immutability; throws the 422. */
export function admitNode(node: KubeObject, existing: KubeObject | undefined): void {
  const causes: StatusCause[] = [];
  const list = podCidrs(node);
  const families: number[] = [];
  list.forEach((value, i) => {
    try {
      families.push(Cidr.parse(String(value), { canonical: false }).family);
      if (typeof value !== 'string') throw new Error('not a string');
    } catch {
      causes.push({ reason: 'FieldValueInvalid', field: `spec.podCIDRs[${i}]`, message: `Invalid value: ${goSlice(list)}: must be valid CIDR` });
    }
  });
  if (list.length > 1 && families.length === list.length && (list.length > 2 || families[0] === families[1]))
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.podCIDRs',
      message: `Invalid value: ${goSlice(list)}: may specify no more than one CIDR for each IP family`,
    });
  list.forEach((value, i) => {
    if (list.indexOf(value) < i)
      causes.push({ reason: 'FieldValueDuplicate', field: `spec.podCIDRs[${i}]`, message: `Duplicate value: ${JSON.stringify(value)}` });
  });
  const before = podCidrs(existing);
  if (existing && before.length > 0 && (before.length !== list.length || before.some((v, i) => v !== list[i])))
    causes.push(fieldError.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  if (causes.length > 0) throw invalidObject('Node', '', node.metadata.name, causes);
}

/** Taints the kubelet and node controllers set and clear themselves: never kept as a writer's. */
const KUBELET_TAINTS = new Set(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);

const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const statusOf = (node: KubeObject): Obj => (isObj(node['status']) ? node['status'] : {});
const taintKey = (t: unknown): string => (isObj(t) ? `${String(t['key'])}:${String(t['effect'])}` : '');
const sorted = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The entries of `written` whose keys `built` does not have. */
function added(written: Record<string, string> | undefined, built: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!written) return undefined;
  const out = Object.entries(written).filter(([k]) => !(built && Object.hasOwn(built, k)));
  return out.length > 0 ? Object.fromEntries(out) : undefined;
}

/**
 * What the API's writers put on a Node beyond what its record builds (`built`), as a partial Node: annotations and
 * labels of keys the record does not give, a pod CIDR where the record gives none, taints and the cordon
 * (spec.unschedulable) of users, conditions of types the kubelet does not report. Undefined when there is none.
 * This is what survives the kubelet rebuilding the Node and, persisted, a restart (cluster.ts).
 */
export function writtenPart(node: KubeObject, built: KubeObject): KubeObject | undefined {
  const annotations = added(node.metadata.annotations, built.metadata.annotations);
  const labels = added(node.metadata.labels, built.metadata.labels);
  const spec: Obj = {};
  const cidrs = podCidrs(node);
  if (podCidrs(built).length === 0 && cidrs.length > 0) Object.assign(spec, { podCIDR: cidrs[0], podCIDRs: cidrs });
  const builtTaints = new Set(listOf(specOf(built)['taints']).map(taintKey));
  const taints = listOf(specOf(node)['taints']).filter((t) => isObj(t) && !KUBELET_TAINTS.has(String(t['key'])) && !builtTaints.has(taintKey(t)));
  if (taints.length > 0) spec['taints'] = taints;
  if (specOf(node)['unschedulable'] === true) spec['unschedulable'] = true;
  const builtTypes = new Set(listOf(statusOf(built)['conditions']).map((c) => (isObj(c) ? c['type'] : undefined)));
  const conditions = listOf(statusOf(node)['conditions']).filter((c) => isObj(c) && !builtTypes.has(c['type']));
  if (!annotations && !labels && Object.keys(spec).length === 0 && conditions.length === 0) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.metadata.name, ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) },
    spec,
    status: conditions.length > 0 ? { conditions } : {},
  };
}

/** A Node rebuilt from its record (`built`) with what writers wrote on it (writtenPart); the record wins where both say. */
export function withWritten(built: KubeObject, written: KubeObject | undefined): KubeObject {
  if (!written) return built;
  const metadata = { ...built.metadata };
  if (written.metadata.annotations) metadata.annotations = sorted({ ...written.metadata.annotations, ...built.metadata.annotations });
  if (written.metadata.labels) metadata.labels = sorted({ ...written.metadata.labels, ...built.metadata.labels });
  const kept = specOf(written);
  const spec: Obj = { ...specOf(built) };
  if (podCidrs(built).length === 0 && podCidrs(written).length > 0) Object.assign(spec, { podCIDR: kept['podCIDR'], podCIDRs: kept['podCIDRs'] });
  if (kept['unschedulable'] === true) spec['unschedulable'] = true;
  const builtTaints = listOf(spec['taints']);
  const have = new Set(builtTaints.map(taintKey));
  const taints = [...builtTaints, ...listOf(kept['taints']).filter((t) => !have.has(taintKey(t)))];
  if (taints.length > 0) spec['taints'] = taints;
  const status = { ...statusOf(built) };
  const others = listOf(statusOf(written)['conditions']);
  if (others.length > 0) status['conditions'] = [...others, ...listOf(status['conditions'])];
  return { ...built, metadata, spec, status };
}
