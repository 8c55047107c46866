// The scale subresource of Deployments and ReplicaSets (autoscaling/v1 Scale): what `kubectl scale` reads
// and patches. spec.replicas maps to the parent's; status shows its replicas and selector as text.
import type { KubeObject } from '../apimachinery/object.js';
import type { LabelSelector, Scalable } from '../apimachinery/types.js';
import { fieldError, invalidObject } from '../apimachinery/status.js';

function selectorText(sel: LabelSelector | undefined): string {
  const parts = Object.entries(sel?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const op = String(e.operator);
    if (op === 'Exists') parts.push(e.key);
    else if (op === 'DoesNotExist') parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${op.toLowerCase()} (${(e.values ?? []).join(',')})`);
  }
  return parts.join(',');
}

export function scaleOf(parent: KubeObject): KubeObject {
  const p = parent as Scalable;
  const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: p.spec?.replicas ?? 1 },
    status: { replicas: p.status?.replicas ?? 0, selector: selectorText(p.spec?.selector) },
  };
}

/** The parent with the replicas a written Scale asks for (already decoded as an int32); 422 when negative. */
export function withScale(parent: KubeObject, scale: { spec?: { replicas?: number } }): KubeObject {
  const replicas = scale?.spec?.replicas ?? 0;
  if (replicas < 0)
    throw invalidObject('Scale', 'autoscaling', parent.metadata.name, [fieldError.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  // A copy all the way down: what the write path defaults next must not reach the stored parent's parts.
  const next = structuredClone(parent) as Scalable & KubeObject;
  next.spec = { ...(next.spec ?? {}), replicas };
  return next;
}
