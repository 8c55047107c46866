// The apiserver's validation of the workload kinds that matters to the controllers: a selector that exists
// and selects the template's labels, non-negative replicas, at least one container. Errors are 422 Invalid
// Statuses with field causes, so kubectl prints `The Deployment "x" is invalid: spec.selector: Required value`.
import type { KubeObject } from '../../apimachinery/object.js';
import type { Job, Pod, PodController, PodSpec } from '../../apimachinery/types.js';
import { labelSelectorMatches } from '../../apimachinery/selectors.js';
import { fieldError, invalidObject, type StatusCause } from '../../apimachinery/status.js';

/** Go's %#v of a map[string]string: map[string]string{"a":"b"}, keys sorted. */
function goMap(m: Record<string, string> | undefined): string {
  const keys = Object.keys(m ?? {}).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(m![k])}`).join(', ')}}`;
}

function containers(field: string, spec: PodSpec | undefined, causes: StatusCause[]): void {
  if (!Array.isArray(spec?.containers) || spec.containers.length === 0) causes.push(fieldError.required(`${field}.containers`));
}

/** Throws the apiserver's 422 for a Pod, Deployment, ReplicaSet or DaemonSet it would refuse. */
export function validateWorkload(kind: string, group: string, obj: KubeObject): void {
  const causes: StatusCause[] = [];
  if (kind === 'Pod') containers('spec', (obj as Pod).spec, causes);
  if (kind === 'Deployment' || kind === 'ReplicaSet' || kind === 'DaemonSet') {
    const o = obj as PodController;
    const sel = o.spec?.selector;
    const labels = o.spec?.template?.metadata?.labels ?? {};
    if (!sel) causes.push(fieldError.required('spec.selector'));
    else if (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.selector',
        message: `Invalid value: ${JSON.stringify(sel)}: empty selector is invalid for ${kind.toLowerCase()}`,
      });
    }
    if (!labelSelectorMatches(sel, labels)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.template.metadata.labels',
        message: `Invalid value: ${goMap(labels)}: \`selector\` does not match template \`labels\``,
      });
    }
    const replicas = o.spec?.replicas;
    if (kind !== 'DaemonSet' && replicas !== undefined && replicas !== null && replicas < 0)
      causes.push(fieldError.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
    containers('spec.template.spec', o.spec?.template?.spec, causes);
  }
  if (kind === 'Job') {
    // ValidateJobSpec: a Job's pods run to completion.
    const spec = (obj as Job).spec?.template?.spec;
    containers('spec.template.spec', spec, causes);
    const policy = spec?.restartPolicy;
    if (policy !== 'OnFailure' && policy !== 'Never')
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'spec.template.spec.restartPolicy',
        message: `Unsupported value: ${JSON.stringify(policy ?? '')}: supported values: "OnFailure", "Never"`,
      });
  }
  if (causes.length > 0) throw invalidObject(kind, group, obj.metadata.name, causes);
}
