// The DaemonSet controller: one pod per eligible node (the node matches the template's nodeSelector and
// required affinity, and the template plus the controller's automatic tolerations tolerate its NoSchedule
// and NoExecute taints). Pods are pinned with nodeAffinity matchFields metadata.name, as the real controller
// does, and carry controller-revision-hash / pod-template-generation; a template change replaces them.
import type { KubeObject } from '../apimachinery/object.js';
import type { DaemonSet, Node, Pod, PodSpec, Toleration } from '../apimachinery/types.js';
import { type Change, deletePodGracefully } from '../apiserver/index.js';
import type { ControllerContext } from '../client/context.js';
import { controllerRef, isActive, isPodReady } from '../client/pod-state.js';
import { DAEMONSETS, NODES, PODS, resourceKey } from '../apimachinery/resources.js';
import { templateHash } from '../apimachinery/generated-names.js';
import { BURST_REPLICAS, BurstingController } from './burst.js';
import { createPodFrom } from './pods.js';
import { nodeMatches } from '../scheduler/placement.js';
import { tolerates, untoleratedTaint } from '../apimachinery/taints.js';
import { splitKey } from '../client/queue.js';
import { type Counts, DaemonView, daemonPodNode } from './daemon-view.js';

/** daemon.AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates on top of its template. */
export function daemonTolerations(spec: PodSpec | undefined): Toleration[] {
  const out: Toleration[] = [...(spec?.tolerations ?? [])];
  const auto: Array<[string, string]> = [
    ['node.kubernetes.io/not-ready', 'NoExecute'],
    ['node.kubernetes.io/unreachable', 'NoExecute'],
    ['node.kubernetes.io/disk-pressure', 'NoSchedule'],
    ['node.kubernetes.io/memory-pressure', 'NoSchedule'],
    ['node.kubernetes.io/pid-pressure', 'NoSchedule'],
    ['node.kubernetes.io/unschedulable', 'NoSchedule'],
  ];
  if (spec?.hostNetwork) auto.push(['node.kubernetes.io/network-unavailable', 'NoSchedule']);
  for (const [key, effect] of auto) {
    if (!out.some((t) => t.key === key && t.effect === effect && t.operator === 'Exists')) out.push({ key, operator: 'Exists', effect });
  }
  return out;
}

/**
 * templateHash of a stored template, once per template object: a stored object is never changed, only replaced, and
 * a DaemonSet's status write keeps its spec's objects (sharing.ts), so the syncs of a pool add's burst hash it once.
 */
const hashes = new WeakMap<object, string>();

function hashOf(template: object): string {
  let hash = hashes.get(template);
  if (hash === undefined) hashes.set(template, (hash = templateHash(template)));
  return hash;
}

/**
 * The controller's NodeShouldRunDaemonPod: whether a daemon pod belongs on the node, and whether one already
 * there may stay (a NoSchedule taint added later does not evict; an untolerated NoExecute one does).
 */
export function shouldRun(spec: PodSpec | undefined, tolerations: Toleration[], node: KubeObject): { run: boolean; stay: boolean } {
  if (!nodeMatches(spec, node)) return { run: false, stay: false };
  const taints = (node as Node).spec?.taints ?? [];
  const untolerated = untoleratedTaint(taints, tolerations);
  const stay =
    untoleratedTaint(
      taints.filter((t) => t.effect === 'NoExecute'),
      tolerations,
    ) === undefined;
  const cordoned =
    (node as Node).spec?.unschedulable && !tolerations.some((t) => tolerates(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }));
  return { run: !untolerated && !cordoned, stay };
}

function pinTo(spec: PodSpec, node: string): void {
  spec.affinity ??= {};
  spec.affinity.nodeAffinity ??= {};
  const required = (spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] });
  const pin = { key: 'metadata.name', operator: 'In', values: [node] };
  if (required.nodeSelectorTerms.length === 0) required.nodeSelectorTerms.push({ matchFields: [pin] });
  else for (const term of required.nodeSelectorTerms) term.matchFields = [...(term.matchFields ?? []).filter((f) => f.key !== 'metadata.name'), pin];
}

export class DaemonSetController extends BurstingController {
  constructor(ctx: ControllerContext) {
    super(ctx, DAEMONSETS, 'daemonset');
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(DAEMONSETS)) this.enqueue(change.object);
    else if (change.resource === resourceKey(NODES)) {
      const node = change.type === 'DELETED' ? undefined : change.object;
      for (const view of this.views.values()) view.nodeChanged(change.object.metadata.name, node);
      this.resync();
    } else if (change.resource === resourceKey(PODS)) {
      const uid = change.object.metadata.uid ?? '';
      const [before, after] = [this.viewOf(change.previous), this.viewOf(change.object)];
      if (before !== after) before?.podChanged(uid, undefined);
      after?.podChanged(uid, change.type === 'DELETED' ? undefined : change.object);
      this.enqueueController(change.object, 'DaemonSet');
    }
  }

  /** Per DaemonSet (by key), its view of nodes and pods (daemon-view.ts), for the template it was made for. */
  private readonly views = new Map<string, DaemonView>();
  private readonly viewsByUid = new Map<string, DaemonView>();

  private viewOf(pod: KubeObject | undefined): DaemonView | undefined {
    const ref = pod && controllerRef(pod);
    return ref?.kind === 'DaemonSet' ? this.viewsByUid.get(ref.uid) : undefined;
  }

  private dropView(key: string): void {
    const view = this.views.get(key);
    if (view) this.viewsByUid.delete(view.uid);
    this.views.delete(key);
  }

  private viewFor(key: string, ds: DaemonSet, hash: string, fit: (node: KubeObject) => { run: boolean; stay: boolean }): DaemonView {
    const uid = ds.metadata.uid ?? '';
    const known = this.views.get(key);
    if (known?.uid === uid && known.hash === hash) return known;
    this.dropView(key);
    const dependents = this.ctx.index.dependents(uid, 'Pod');
    const view = new DaemonView(uid, hash, fit, this.ctx.objects.list(NODES), dependents);
    this.views.set(key, view);
    this.viewsByUid.set(uid, view);
    return view;
  }

  /**
   * Per DaemonSet, where its template (by hash) may run: a node object from the store is replaced, never
   * changed, when the node changes, so the answer for one object holds while it lives. A burst of new nodes
   * then costs each sync the new nodes' checks, not every node's.
   */
  private readonly fits = new Map<string, { hash: string; fit: WeakMap<KubeObject, { run: boolean; stay: boolean }> }>();

  private fitOf(key: string, hash: string): WeakMap<KubeObject, { run: boolean; stay: boolean }> {
    let cached = this.fits.get(key);
    if (cached?.hash !== hash) this.fits.set(key, (cached = { hash, fit: new WeakMap() }));
    return cached.fit;
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects, index } = this.ctx;
    const ds = objects.get(DAEMONSETS, namespace, name) as DaemonSet | undefined;
    if (!ds || ds.metadata.deletionTimestamp) {
      this.dropView(key);
      return void this.fits.delete(key);
    }
    const template = ds.spec?.template ?? {};
    const hash = hashOf(template);
    const generation = String(ds.metadata.generation ?? 1);
    const tolerations = daemonTolerations(template.spec);
    const fits = this.fitOf(key, hash);
    const fitOf = (node: KubeObject) => {
      let fit = fits.get(node);
      if (!fit) fits.set(node, (fit = shouldRun(template.spec, tolerations, node)));
      return fit;
    };
    const createFor = (needPod: string[], created: Pod[]) =>
      this.bursts.create(key, ds, needPod.length, (i) => {
        const pod = createPodFrom(objects, ds, template, {
          labels: { 'controller-revision-hash': hash, 'pod-template-generation': generation },
          spec: (spec) => {
            pinTo(spec, needPod[i]!);
            spec.tolerations = daemonTolerations(spec);
          },
        });
        created.push(pod as Pod);
        return pod;
      });
    // Nothing to delete: the view's counts and missing pods are the full sync's below, without reading every node and pod.
    const view = this.viewFor(key, ds, hash, fitOf);
    if (view.counts().doomed === 0) {
      createFor(view.needPod(), []);
      return this.putStatus(ds, view.counts());
    }
    const nodes = objects.list(NODES);
    // The owned pods by node, read once: this sync's creations and deletions are applied to it below.
    const byNode = new Map<string, Pod[]>();
    const place = (p: Pod) => {
      const n = daemonPodNode(p);
      const pods = byNode.get(n);
      if (pods) pods.push(p);
      else byNode.set(n, [p]);
    };
    for (const p of index.dependents(ds.metadata.uid, 'Pod')) if (controllerRef(p)?.uid === ds.metadata.uid && isActive(p)) place(p as Pod);
    const eligible = new Set<string>();
    const staying = new Set<string>();
    const needPod: string[] = [];
    const doomed: KubeObject[] = [];
    for (const node of nodes) {
      const pods = byNode.get(node.metadata.name) ?? [];
      const fit = fitOf(node);
      if (!fit.run) {
        if (fit.stay && pods.length > 0) staying.add(node.metadata.name);
        continue;
      }
      eligible.add(node.metadata.name);
      // Replace pods of an older template one at a time (maxUnavailable 1 per node); extras go.
      const [keep, ...extra] =
        pods.length < 2
          ? pods
          : [...pods].sort(
              (a, b) => Number(b.metadata.labels?.['controller-revision-hash'] === hash) - Number(a.metadata.labels?.['controller-revision-hash'] === hash),
            );
      doomed.push(...extra);
      if (keep && keep.metadata.labels?.['controller-revision-hash'] !== hash) doomed.push(keep);
      if (!keep) needPod.push(node.metadata.name);
    }
    for (const [n, pods] of byNode) if (!eligible.has(n) && !staying.has(n)) doomed.push(...pods);
    // A burst of each per sync (burst.ts): the pods' changes bring the DaemonSet back for the rest.
    const removed = new Set(doomed.slice(0, BURST_REPLICAS));
    for (const p of removed) this.remove(ds, p);
    const created: Pod[] = [];
    createFor(needPod, created);

    const perNode = new Map<string, Pod[]>();
    for (const [n, pods] of byNode) {
      const left = removed.size === 0 ? pods : pods.filter((p) => !removed.has(p));
      if (left.length > 0) perNode.set(n, left);
    }
    for (const p of created) {
      const n = daemonPodNode(p);
      perNode.set(n, [...(perNode.get(n) ?? []), p]);
    }
    let current = 0;
    let ready = 0;
    let updated = 0;
    let misscheduled = 0;
    for (const [n, pods] of perNode) {
      if (!eligible.has(n)) {
        misscheduled++;
        continue;
      }
      current++;
      if (pods.some((p) => isPodReady(p))) ready++;
      if (pods.some((p) => p.metadata.labels?.['controller-revision-hash'] === hash)) updated++;
    }
    this.putStatus(ds, { desired: eligible.size, current, ready, updated, misscheduled });
  }

  private putStatus(ds: DaemonSet, c: Omit<Counts, 'doomed'>): void {
    const status: Record<string, unknown> = {
      currentNumberScheduled: c.current,
      desiredNumberScheduled: c.desired,
      numberMisscheduled: c.misscheduled,
      numberReady: c.ready,
      observedGeneration: ds.metadata.generation ?? 1,
    };
    if (c.ready > 0) status['numberAvailable'] = c.ready;
    if (c.desired - c.ready > 0) status['numberUnavailable'] = c.desired - c.ready;
    if (c.updated > 0) status['updatedNumberScheduled'] = c.updated;
    this.ctx.objects.put(DAEMONSETS, { ...ds, status }, { onlyIfChanged: true });
  }

  private remove(ds: DaemonSet, pod: KubeObject): void {
    deletePodGracefully(this.ctx.objects, pod);
    this.ctx.events.record(ds, { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name}`, component: 'daemonset-controller' });
  }
}
