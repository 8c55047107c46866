// The Namespace kind as the apiserver handles it: its strategy (the controller's `kubernetes` finalizer, the phase
// that follows deletion, the name label, ValidateNamespace's finalizers) and the NamespaceLifecycle admission
// plugin (no new content in a Terminating namespace, no deletion of the immortal ones). The namespace controller
// that empties a Terminating namespace is controllers/namespaces.ts.
import type { KubeObject } from '../../apimachinery/object.js';
import { isQualifiedName } from '../../apimachinery/names.js';
import { NAMESPACES } from '../../apimachinery/resources.js';
import { fieldError, forbidden, invalidObject, type StatusCause } from '../../apimachinery/status.js';
import { k8sTime } from '../../apimachinery/time.js';
import type { ObjectStore } from '../storage/store.js';

/**
 * What the apiserver fills in on a write: every new namespace carries the namespace controller's finalizer
 * (PrepareForCreate), its phase follows its deletion, and it is labelled with its name.
 */
export function namespaceDefaults(ns: KubeObject, existing: KubeObject | undefined): void {
  // PrepareForCreate adds the controller's finalizer to the client's; PrepareForUpdate keeps the stored ones
  // (only the finalize subresource changes them).
  const spec = (ns['spec'] ?? {}) as { finalizers?: unknown };
  const sent = Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
  const kept = (existing?.['spec'] as { finalizers?: string[] } | undefined)?.finalizers;
  if (!existing) checkNamespaceFinalizers(ns.metadata.name, sent);
  const finalizers = existing ? kept : sent.includes('kubernetes') ? sent : [...sent, 'kubernetes'];
  ns['spec'] = { ...spec, ...(finalizers ? { finalizers } : {}) };
  if (!finalizers) delete (ns['spec'] as { finalizers?: unknown }).finalizers;
  // The controller's deletion conditions stay (the status is the controller's, not the writer's).
  const conditions = (existing?.['status'] as { conditions?: unknown } | undefined)?.conditions;
  ns['status'] = { phase: ns.metadata.deletionTimestamp ? 'Terminating' : 'Active', ...(conditions ? { conditions } : {}) };
  ns.metadata.labels = { ...(ns.metadata.labels ?? {}), 'kubernetes.io/metadata.name': ns.metadata.name };
}

/** The finalizer names Kubernetes itself defines (helper.IsStandardFinalizerName). */
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** ValidateNamespace's spec.finalizers: qualified names, and a name without a domain must be a standard one. */
function checkNamespaceFinalizers(name: string, finalizers: string[]): void {
  const causes: StatusCause[] = [];
  for (const f of finalizers) {
    for (const m of isQualifiedName(String(f))) causes.push(fieldError.invalid('spec.finalizers', f, m));
    if (!String(f).includes('/') && !STANDARD_FINALIZERS.has(String(f)))
      causes.push(fieldError.invalid('spec.finalizers', f, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  if (causes.length > 0) throw invalidObject('Namespace', '', name, causes);
}

/** The namespace marked for deletion (what DELETE answers); unchanged when it already is. */
export function terminating(ns: KubeObject, now = Date.now()): KubeObject {
  if (ns.metadata.deletionTimestamp) return ns;
  const spec = (ns['spec'] ?? {}) as Record<string, unknown>;
  return {
    ...ns,
    metadata: { ...ns.metadata, deletionTimestamp: k8sTime(now), deletionGracePeriodSeconds: 0 },
    spec: { ...spec, finalizers: ['kubernetes'] },
    status: { phase: 'Terminating' },
  };
}

/** The NamespaceLifecycle admission plugin: 403 for new content in a namespace being deleted. */
export function refuseIfTerminating(objects: ObjectStore, resource: { resource: string; group: string }, namespace: string | undefined, name: string): void {
  const ns = namespace === undefined ? undefined : objects.get(NAMESPACES, undefined, namespace);
  if (ns?.metadata.deletionTimestamp) {
    throw forbidden(resource.resource, resource.group, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  }
}

/**
 * The namespaces NamespaceLifecycle keeps alive (its immortalNamespaces: metav1.NamespaceDefault,
 * NamespaceSystem, NamespacePublic): a DELETE of one is refused before anything is marked, dry run or not
 * (plugin/pkg/admission/namespace/lifecycle/admission.go).
 */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];

export function refuseImmortalDeletion(ns: KubeObject): void {
  if (IMMORTAL_NAMESPACES.includes(ns.metadata.name)) throw forbidden(NAMESPACES.resource, '', ns.metadata.name, 'this namespace may not be deleted');
}
