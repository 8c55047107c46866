// The namespace controller: a deleted namespace is Terminating (deletionTimestamp, phase Terminating, its
// `kubernetes` finalizer) while its content goes, a burst per turn of the event loop, owners first (so no
// controller refills what is being emptied); then the namespace itself goes. `kubectl delete namespace`
// waits for that, as with a real cluster. New content is refused meanwhile (terminatingNamespace).
import type { KubeObject } from '../objects/object.js';
import { resourceKey, type Change, type ObjectStore } from '../objects/store.js';
import { DAEMONSETS, DEPLOYMENTS, NAMESPACES, REPLICASETS, RESOURCES } from '../resources.js';
import { forbidden } from '../status.js';
import { k8sTime } from '../time.js';
import { BURST_REPLICAS } from './burst.js';
import type { ControllerContext } from './context.js';
import { KeyedController, splitKey } from './queue.js';

/** What a namespace's content is deleted in: the owners of pods first, then every other namespaced kind. */
const ORDER = [DEPLOYMENTS, REPLICASETS, DAEMONSETS, ...RESOURCES.filter((r) => r.namespaced && ![DEPLOYMENTS, REPLICASETS, DAEMONSETS].includes(r))];

/**
 * What the apiserver fills in on a write: every new namespace carries the namespace controller's finalizer
 * (PrepareForCreate), its phase follows its deletion, and it is labelled with its name.
 */
export function namespaceDefaults(ns: KubeObject, existing: KubeObject | undefined): void {
  if (!existing) ns['spec'] = { ...((ns['spec'] as object | undefined) ?? {}), finalizers: ['kubernetes'] };
  ns['status'] = { phase: ns.metadata.deletionTimestamp ? 'Terminating' : 'Active' };
  ns.metadata.labels = { ...(ns.metadata.labels ?? {}), 'kubernetes.io/metadata.name': ns.metadata.name };
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

export class NamespaceController extends KeyedController {
  constructor(protected override readonly ctx: ControllerContext) {
    super(ctx, NAMESPACES, 'namespace');
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(NAMESPACES) && change.type !== 'DELETED' && change.object.metadata.deletionTimestamp) this.enqueue(change.object);
  }

  reconcile(key: string): void {
    const [, name] = splitKey(key);
    const { objects } = this.ctx;
    if (!objects.get(NAMESPACES, undefined, name)?.metadata.deletionTimestamp) return;
    let budget = BURST_REPLICAS;
    for (const r of ORDER) {
      for (const o of objects.list(r, name)) {
        if (budget-- === 0) return this.queue.add(key);
        objects.delete(r, name, o.metadata.name);
      }
    }
    objects.delete(NAMESPACES, undefined, name);
  }
}
