// What the API's writers own on a Node, and the apiserver's rules for it. Nodes are rebuilt from the provider's
// records (nodes.ts, cluster.ts); what users and agents wrote through the API stays on the rebuilt object, as a
// real Node keeps it while its kubelet reports status: annotations and labels added (flannel's
// flannel.alpha.coreos.com/*), a pod CIDR given to a node that had none (a BYO CNI node on AKS, given one by
// `kubectl patch node`), and conditions another controller reports (flannel's NetworkUnavailable).
//
// The rules are kubernetes pkg/apis/core/validation/validation.go (ValidateNode, ValidateNodeUpdate) and the v1
// conversion of NodeSpec (pkg/apis/core/v1/conversion.go): spec.podCIDR is spec.podCIDRs[0]; each entry must be a
// CIDR, at most one per family; and once set, podCIDRs never change ("node updates may not change podCIDR except
// from "" to valid").
import { Cidr } from '../../net/ip.js';
import { fieldError, invalidObject, type StatusCause } from '../status.js';
import type { KubeObject } from './object.js';

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

/**
 * A Node rebuilt from its record (`built`) with what was written to the stored one (`existing`): added
 * annotations and labels, the pod CIDR when the record gives none, and the conditions of other writers.
 */
export function keepWritten(built: KubeObject, existing: KubeObject | undefined): KubeObject {
  if (!existing) return built;
  const metadata = { ...built.metadata };
  const sorted = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  if (existing.metadata.annotations) metadata.annotations = sorted({ ...existing.metadata.annotations, ...built.metadata.annotations });
  if (existing.metadata.labels) metadata.labels = sorted({ ...existing.metadata.labels, ...built.metadata.labels });
  const given = podCidrs(existing);
  const spec = podCidrs(built).length === 0 && given.length > 0 ? { podCIDR: given[0], podCIDRs: given, ...specOf(built) } : specOf(built);
  const status = isObj(built['status']) ? { ...built['status'] } : {};
  const ownTypes = new Set((Array.isArray(status['conditions']) ? status['conditions'] : []).map((c) => (isObj(c) ? c['type'] : undefined)));
  const existingStatus = isObj(existing['status']) ? existing['status'] : {};
  const others = (Array.isArray(existingStatus['conditions']) ? existingStatus['conditions'] : []).filter((c) => isObj(c) && !ownTypes.has(c['type']));
  if (others.length > 0) status['conditions'] = [...others, ...(Array.isArray(status['conditions']) ? status['conditions'] : [])];
  return { ...built, metadata, spec, status };
}
