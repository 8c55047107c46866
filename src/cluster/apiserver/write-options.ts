// The options every write carries: dryRun (query, or a DeleteOptions body's), and DELETE's DeleteOptions
// (propagationPolicy, orphanDependents, gracePeriodSeconds, preconditions) from its body and its query, checked
// as apimachinery's ValidateDeleteOptions and the storage layer's Preconditions.Check word it
// (staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go,
// staging/src/k8s.io/apiserver/pkg/storage/interfaces.go).
import { parseBody } from './body.js';
import { isPlainObject, own } from '../../http/own.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ResourceType } from '../apimachinery/resources.js';
import { fieldError, invalidObject, KubeError, qualified, type StatusCause } from '../apimachinery/status.js';
import { finalizersOf, type PropagationPolicy } from './deletion.js';

const POLICIES: PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

/** dryRun as the apiserver accepts it: absent, or "All" (each value checked). */
function dryRunOf(values: unknown[], causes: StatusCause[]): boolean {
  for (const v of values) if (v !== 'All') causes.push(fieldError.unsupported('dryRun', v, ['All']));
  return values.length > 0;
}

/** 422 Invalid for the options of a write (DeleteOptions, CreateOptions ... as the apiserver names them). */
function invalidOptions(kind: string, causes: StatusCause[]): KubeError {
  return invalidObject(kind, 'meta.k8s.io', '', causes);
}

/** Whether a create / update / patch is a dry run (?dryRun=All); 422 for any other value. */
export function isDryRun(query: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): boolean {
  const causes: StatusCause[] = [];
  const dry = dryRunOf(query.getAll('dryRun'), causes);
  if (causes.length > 0) throw invalidOptions(kind, causes);
  return dry;
}

/** DELETE's options: its body (a DeleteOptions, may be empty) then its query, which wins where both say. */
export function deleteOptions(req: { body?: string; contentType?: string; bytes?: Uint8Array; query: URLSearchParams }): DeleteOptions {
  const body = req.body && req.body.trim() !== '' ? parseBody(req) : {};
  const o = isPlainObject(body) ? body : {};
  const causes: StatusCause[] = [];
  const q = req.query;
  const policy = q.get('propagationPolicy') ?? own<unknown>(o, 'propagationPolicy');
  const orphan = q.has('orphanDependents') ? q.get('orphanDependents') === 'true' : own<unknown>(o, 'orphanDependents');
  const grace = q.has('gracePeriodSeconds') ? Number(q.get('gracePeriodSeconds')) : own<unknown>(o, 'gracePeriodSeconds');
  const pre = own<unknown>(o, 'preconditions');
  const dryBody = own<unknown>(o, 'dryRun');
  const dry = dryRunOf([...q.getAll('dryRun'), ...(Array.isArray(dryBody) ? dryBody : [])], causes);
  if (policy !== undefined && policy !== null && !POLICIES.includes(policy as PropagationPolicy))
    causes.push(fieldError.unsupported('propagationPolicy', policy, POLICIES));
  if (typeof orphan === 'boolean' && policy !== undefined && policy !== null)
    causes.push(fieldError.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  if (grace !== undefined && grace !== null && (typeof grace !== 'number' || !Number.isInteger(grace)))
    throw new KubeError(400, 'BadRequest', `invalid gracePeriodSeconds: ${String(grace)}`);
  if (causes.length > 0) throw invalidOptions('DeleteOptions', causes);
  const preconditions = isPlainObject(pre) ? pre : {};
  const resolved = typeof orphan === 'boolean' ? (orphan ? 'Orphan' : 'Background') : (policy as PropagationPolicy | undefined | null);
  return {
    ...(resolved ? { propagationPolicy: resolved } : {}),
    ...(typeof grace === 'number' ? { gracePeriodSeconds: Math.max(0, grace) } : {}),
    preconditions: {
      ...(typeof preconditions['uid'] === 'string' ? { uid: preconditions['uid'] } : {}),
      ...(typeof preconditions['resourceVersion'] === 'string' ? { resourceVersion: preconditions['resourceVersion'] } : {}),
    },
    dryRun: dry,
  };
}

/** apierrors.NewConflict: `Operation cannot be fulfilled on deployments.apps "x": <why>`. */
export function conflict(r: Pick<ResourceType, 'resource' | 'group'>, name: string, why: string): KubeError {
  return new KubeError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(r.resource, r.group)} "${name}": ${why}`, {
    name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.resource,
  });
}

/** The storage layer's optimistic concurrency message (registry/store.go's OptimisticLockErrorMsg). */
export const OPTIMISTIC_LOCK = 'the object has been modified; please apply your changes to the latest version and try again';

/** Preconditions.Check: 409 when the stored object is not the one the client meant. */
export function checkPreconditions(r: ResourceType, existing: KubeObject, pre: DeleteOptions['preconditions']): void {
  if (pre.uid !== undefined && pre.uid !== existing.metadata.uid) {
    throw conflict(r, existing.metadata.name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid ?? ''}`);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== existing.metadata.resourceVersion) {
    throw conflict(
      r,
      existing.metadata.name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion ?? ''}`,
    );
  }
}

/** An update naming a resourceVersion other than the stored one is refused (optimistic concurrency). */
export function checkResourceVersionMatches(r: ResourceType, existing: KubeObject, sent: unknown): void {
  if (typeof sent === 'string' && sent !== '' && sent !== existing.metadata.resourceVersion) throw conflict(r, existing.metadata.name, OPTIMISTIC_LOCK);
}

/** ValidatePatchOptions: apply needs a field manager; force is for apply only. */
export function checkPatchOptions(query: URLSearchParams, type: string): void {
  const causes: StatusCause[] = [];
  if (type === 'application/apply-patch+yaml') {
    if (!query.get('fieldManager')) causes.push(fieldError.required('fieldManager', 'is required for apply patch'));
  } else if (query.has('force')) causes.push(fieldError.forbidden('force', 'may not be specified for non-apply patch'));
  if (causes.length > 0) throw invalidOptions('PatchOptions', causes);
}

/**
 * What an update may not do to the stored object: name another resourceVersion (409, optimistic concurrency),
 * or add finalizers to an object being deleted (ValidateNoNewFinalizers, 422).
 */
export function checkUpdate(r: ResourceType, existing: KubeObject, next: KubeObject): void {
  checkResourceVersionMatches(r, existing, next.metadata.resourceVersion);
  if (!existing.metadata.deletionTimestamp) return;
  const before = new Set(finalizersOf(existing));
  const added = finalizersOf(next).filter((f) => !before.has(f));
  if (added.length > 0) {
    const list = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
    throw invalidObject(r.kind, r.group, existing.metadata.name, [
      fieldError.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`),
    ]);
  }
}
