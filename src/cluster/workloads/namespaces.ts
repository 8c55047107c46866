// The namespace controller: a deleted namespace is Terminating (deletionTimestamp, phase Terminating, its
// `kubernetes` finalizer); after the controller's grace period its content goes as DELETE would delete it
// (finalizers hold objects, pods go gracefully), a burst per turn of the event loop, owners first (so no
// controller refills what is being emptied), with the controller's deletion conditions on the namespace's
// status; when nothing is left the `kubernetes` finalizer goes and so does the namespace. `kubectl delete
// namespace` waits for that, as with a real cluster. New content is refused meanwhile (refuseIfTerminating).
import type { KubeObject } from '../objects/object.js';
import { resourceKey, type Change, type ObjectStore } from '../objects/store.js';
import { catalogOf } from '../catalog.js';
import { DAEMONSETS, DEPLOYMENTS, NAMESPACES, REPLICASETS } from '../resources.js';
import { fieldError, forbidden, invalidObject, type StatusCause } from '../status.js';
import { isQualifiedName } from '../validation/names.js';
import { k8sTime } from '../time.js';
import { BURST_REPLICAS } from './burst.js';
import type { ControllerContext } from './context.js';
import { deleteObject, finishIfDue } from './deletion.js';
import { deletionConditions, remainingContent, withConditions } from './namespace-conditions.js';
import { KeyedController, nsKey, splitKey } from './queue.js';

/** What a namespace's content is deleted in: the owners of pods first, then every other namespaced kind. */
const OWNERS_FIRST = [DEPLOYMENTS, REPLICASETS, DAEMONSETS];

/** The built-in kinds in that order, then the kinds the cluster's CRDs serve (catalog.ts). */
function deletionOrder(objects: ObjectStore) {
  return [
    ...OWNERS_FIRST,
    ...catalogOf(objects)
      .resources()
      .filter((r) => r.namespaced && !OWNERS_FIRST.includes(r)),
  ];
}

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

/**
 * How long the namespace controller waits after a namespace is marked before it empties it
 * (pkg/controller/namespace/namespace_controller.go, namespaceDeletionGracePeriod): so a `kubectl delete -f`
 * of a namespace and its objects finds them still there when it deletes them one by one.
 */
export const NAMESPACE_DELETION_GRACE_MS = 5000;

/** How soon a namespace whose content is still going (graceful pods, finalizers) is looked at again. */
const RECHECK_MS = 500;

export class NamespaceController extends KeyedController {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(protected override readonly ctx: ControllerContext) {
    super(ctx, NAMESPACES, 'namespace');
  }

  observe(change: Change): void {
    if (change.resource !== resourceKey(NAMESPACES) || change.type === 'DELETED' || !change.object.metadata.deletionTimestamp) return;
    // The first sight of the mark starts the grace period; later writes (our own conditions) change nothing.
    if (!change.previous?.metadata.deletionTimestamp) this.later(nsKey(undefined, change.object.metadata.name), NAMESPACE_DELETION_GRACE_MS);
  }

  private later(key: string, ms: number): void {
    if (this.timers.has(key)) return;
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.queue.add(key);
      }, ms).unref(),
    );
  }

  reconcile(key: string): void {
    const [, name] = splitKey(key);
    const { objects } = this.ctx;
    const ns = objects.get(NAMESPACES, undefined, name);
    if (!ns?.metadata.deletionTimestamp) return;
    let budget = BURST_REPLICAS;
    for (const r of deletionOrder(objects)) {
      for (const o of objects.list(r, name)) {
        if (o.metadata.deletionTimestamp) continue;
        if (budget-- === 0) return this.queue.add(key);
        // Pods go without their grace period here: emptying a namespace of a pod bomb must stay quick.
        deleteObject(objects, r, o, { propagationPolicy: 'Background', gracePeriodSeconds: 0 });
      }
    }
    const remaining = remainingContent(objects, name);
    const written = objects.put(NAMESPACES, withConditions(ns, deletionConditions(remaining)), { onlyIfChanged: true });
    if (remaining.resources.size > 0) return this.later(key, RECHECK_MS);
    // Finalized: the `kubernetes` finalizer goes (what POST .../finalize does), then the namespace unless others hold it.
    const spec = (written['spec'] ?? {}) as { finalizers?: string[] };
    const finalized = { ...written, spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') } };
    finishIfDue(objects, NAMESPACES, objects.put(NAMESPACES, finalized, { onlyIfChanged: true }));
  }

  override close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    super.close();
  }
}
