import { type Change, type ObjectStore, catalogOf, deleteObject, finishIfDue } from '../apiserver/index.js';
import { DAEMONSETS, DEPLOYMENTS, NAMESPACES, REPLICASETS, resourceKey } from '../apimachinery/resources.js';
import { BURST_REPLICAS } from './burst.js';
import type { ControllerContext } from '../client/context.js';
import { deletionConditions, remainingContent, withConditions } from './namespace-conditions.js';
import { KeyedController, splitKey } from '../client/queue.js';
import { objectKey } from '../apimachinery/object.js';

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
    if (!change.previous?.metadata.deletionTimestamp) this.later(objectKey(undefined, change.object.metadata.name), NAMESPACE_DELETION_GRACE_MS);
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
