// The apiserver's validation of the workload kinds that matters to the controllers: a selector that exists
// and selects the template's labels, non-negative replicas, at least one container. Errors are 422 Invalid
// Statuses with field causes, so kubectl prints `The Deployment "x" is invalid: spec.selector: Required value`.
import type { KubeObject } from '../objects/object.js';
import { KubeError, type StatusDetails } from '../status.js';

type Obj = any;

interface Cause {
  reason: string;
  field: string;
  message: string;
}

/** Go's %#v of a map[string]string: map[string]string{"a":"b"}, keys sorted. */
function goMap(m: Record<string, string> | undefined): string {
  const keys = Object.keys(m ?? {}).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(m![k])}`).join(', ')}}`;
}

export function invalidObject(kind: string, group: string, name: string, causes: Cause[]): KubeError {
  const text = causes.map((c) => `${c.field}: ${c.message}`);
  const details = { name, ...(group ? { group } : {}), kind, causes } as StatusDetails;
  return new KubeError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`, details);
}

function selects(sel: Obj, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries((sel?.matchLabels ?? {}) as Record<string, string>)) if (labels[k] !== v) return false;
  for (const e of sel?.matchExpressions ?? []) {
    const value = labels[e.key];
    const values: string[] = e.values ?? [];
    if (e.operator === 'In' && (value === undefined || !values.includes(value))) return false;
    if (e.operator === 'NotIn' && value !== undefined && values.includes(value)) return false;
    if (e.operator === 'Exists' && value === undefined) return false;
    if (e.operator === 'DoesNotExist' && value !== undefined) return false;
  }
  return true;
}

function containers(field: string, spec: Obj, causes: Cause[]): void {
  if (!Array.isArray(spec?.containers) || spec.containers.length === 0) causes.push({ reason: 'FieldValueRequired', field: `${field}.containers`, message: 'Required value' });
}

/** Throws the apiserver's 422 for a Pod, Deployment, ReplicaSet or DaemonSet it would refuse. */
export function validateWorkload(kind: string, group: string, obj: KubeObject): void {
  const o = obj as Obj;
  const causes: Cause[] = [];
  if (kind === 'Pod') containers('spec', o.spec, causes);
  if (kind === 'Deployment' || kind === 'ReplicaSet' || kind === 'DaemonSet') {
    const sel = o.spec?.selector;
    const labels = o.spec?.template?.metadata?.labels ?? {};
    if (!sel) causes.push({ reason: 'FieldValueRequired', field: 'spec.selector', message: 'Required value' });
    else if (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0) {
      causes.push({ reason: 'FieldValueInvalid', field: 'spec.selector', message: `Invalid value: ${JSON.stringify(sel)}: empty selector is invalid for ${kind.toLowerCase()}` });
    }
    if (!sel || !selects(sel, labels)) {
      causes.push({ reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: `Invalid value: ${goMap(labels)}: \`selector\` does not match template \`labels\`` });
    }
    const replicas = o.spec?.replicas;
    if (kind !== 'DaemonSet' && replicas !== undefined && (!Number.isInteger(replicas) || replicas < 0)) {
      causes.push({ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` });
    }
    containers('spec.template.spec', o.spec?.template?.spec, causes);
  }
  if (causes.length > 0) throw invalidObject(kind, group, obj.metadata.name, causes);
}
