// Everything that runs pods in one cluster, fed by the object store's change stream: the scheduler, the
// Deployment / ReplicaSet / DaemonSet controllers, the garbage collector, the Endpoints controller and the
// kubelets' pod lifecycle. Every controller reconciles from what exists, so objects restored after a
// restart are picked up, not duplicated.
import type { ClusterRecord } from '../../model/cluster-records.js';
import { minorOf } from '../../aks/kubernetes-versions.js';
import type { ObjectStore } from '../objects/store.js';
import { addonWorkloads } from './addons.js';
import type { ControllerContext } from './context.js';
import { DaemonSetController } from './daemonsets.js';
import { DeploymentController } from './deployments.js';
import { EndpointsController } from './endpoints.js';
import { EventRecorder } from './events.js';
import { GarbageCollector } from './gc.js';
import { NamespaceController } from './namespaces.js';
import { Indexes } from './indexes.js';
import { DAEMONSETS, DEPLOYMENTS } from './kinds.js';
import { PodLifecycle } from './pod-lifecycle.js';
import { ReplicaSetController } from './replicasets.js';
import { SandboxRecords } from './runtime-state.js';
import type { InitContainerRunner, PodSandboxes } from './sandbox.js';
import { Scheduler } from './scheduler.js';

export interface WorkloadsOptions {
  home: string;
  cluster: () => ClusterRecord;
  sandboxes: PodSandboxes;
  initRunner: InitContainerRunner;
  log?: (message: string) => void;
}

export class Workloads {
  readonly events: EventRecorder;
  private readonly ctx: ControllerContext;
  private readonly scheduler: Scheduler;
  private readonly replicaSets: ReplicaSetController;
  private readonly deployments: DeploymentController;
  private readonly daemonSets: DaemonSetController;
  private readonly gc: GarbageCollector;
  private readonly endpoints: EndpointsController;
  private readonly namespaces: NamespaceController;
  readonly lifecycle: PodLifecycle;
  private unsubscribe: (() => void) | undefined;
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    private readonly objects: ObjectStore,
    private readonly options: WorkloadsOptions,
  ) {
    this.events = new EventRecorder(objects);
    this.ctx = { objects, index: new Indexes(objects), events: this.events, log: options.log ?? ((m) => process.stderr.write(`${m}\n`)) };
    this.scheduler = new Scheduler(this.ctx);
    this.replicaSets = new ReplicaSetController(this.ctx);
    this.deployments = new DeploymentController(this.ctx);
    this.daemonSets = new DaemonSetController(this.ctx);
    this.gc = new GarbageCollector(this.ctx);
    this.endpoints = new EndpointsController(this.ctx);
    this.namespaces = new NamespaceController(this.ctx);
    const cluster = options.cluster();
    this.lifecycle = new PodLifecycle(this.ctx, {
      sandboxes: options.sandboxes,
      initRunner: options.initRunner,
      records: SandboxRecords.forCluster(options.home, () => options.cluster()),
      minor: minorOf(cluster.resolved.kubernetesVersion),
    });
  }

  /** Creates the missing add-ons and starts reconciling (call once the nodes are in the store). */
  start(): void {
    if (this.unsubscribe) return;
    const { objects, index } = this.ctx;
    this.unsubscribe = objects.subscribe((change) => {
      index.apply(change);
      this.scheduler.observe(change);
      this.lifecycle.observe(change);
      this.replicaSets.observe(change);
      this.deployments.observe(change);
      this.daemonSets.observe(change);
      this.gc.observe(change);
      this.endpoints.observe(change);
      this.namespaces.observe(change);
      if (change.type === 'DELETED') this.events.forget(change.object.metadata.uid);
    });
    for (const addon of addonWorkloads(this.options.cluster())) {
      const r = addon.kind === 'Deployment' ? DEPLOYMENTS : DAEMONSETS;
      if (!objects.get(r, addon.metadata.namespace, addon.metadata.name)) objects.put(r, addon, { system: true });
    }
    this.lifecycle.resync();
    this.gc.resync();
    this.deployments.resync();
    this.replicaSets.resync();
    this.daemonSets.resync();
    this.scheduler.resync();
    this.endpoints.resync();
    this.namespaces.resync();
    this.events.expire();
    this.expiry = setInterval(() => this.events.expire(), 60_000);
    this.expiry.unref();
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.expiry);
    this.scheduler.close();
    this.gc.close();
    for (const q of [this.replicaSets.queue, this.deployments.queue, this.daemonSets.queue, this.endpoints.queue, this.namespaces.queue]) q.close();
    this.lifecycle.close();
  }
}
