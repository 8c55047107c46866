// Everything that runs pods in one cluster, fed by the object store's change stream: the scheduler, the
// Deployment / ReplicaSet / DaemonSet / Job controllers, the garbage collector, the Endpoints and EndpointSlice
// controllers, the disruption (PDB status) and APIService availability controllers and the kubelets' pod
// lifecycle. Every controller reconciles from what exists, so objects restored after a
// restart are picked up, not duplicated.
import type { ClusterRecord } from '../model/cluster-records.js';
import { minorOf } from '../aks/kubernetes-versions.js';
import type { ObjectStore } from './apiserver/index.js';
import { addonWorkloads } from './cloud/addons.js';
import { type LoadBalancerCloud, ServiceLoadBalancers } from './cloud/service-controller.js';
import type { Controller, ControllerContext } from './client/context.js';
import { ApiServiceController } from './controllers/apiservices.js';
import { DaemonSetController } from './controllers/daemonsets.js';
import { DeploymentController } from './controllers/deployments.js';
import { DisruptionController } from './controllers/disruption.js';
import { EndpointsController } from './controllers/endpoints.js';
import { EndpointSliceController } from './controllers/endpointslices.js';
import { EventRecorder } from './client/events.js';
import { GarbageCollector } from './controllers/gc.js';
import { NamespaceController } from './controllers/namespaces.js';
import { Indexes } from './client/indexes.js';
import { DAEMONSETS, DEPLOYMENTS, EVENTS } from './apimachinery/resources.js';
import { PodLifecycle } from './kubelet/pod-lifecycle.js';
import { JobController } from './controllers/jobs.js';
import { ReplicaSetController } from './controllers/replicasets.js';
import { SandboxRecords } from './kubelet/runtime-state.js';
import type { ContainerRunner, PodSandboxes } from './kubelet/sandbox.js';
import { ContainerLogs } from './kubelet/container-logs.js';
import type { ContainerIo } from './kubelet/container-io.js';
import { nodeRootDir, nodesDir } from './nodefs/paths.js';
import { aksKubeletDns, PodDnsFiles } from './kubelet/pod-files.js';
import { join } from 'node:path';
import { Scheduler } from './scheduler/scheduler.js';
import type { NodeNetwork } from './images/program.js';
import { NetworkPolicies } from './network-policy/network-policies.js';
import { ServiceProxy } from './proxy/service-proxy.js';

export interface WorkloadsOptions {
  home: string;
  cluster: () => ClusterRecord;
  sandboxes: PodSandboxes;
  containers: ContainerRunner;
  /** The data plane's node networking (undefined without one): kube-proxy and the policy engine program it. */
  network?: () => NodeNetwork | undefined;
  /** cloud-provider-azure's load balancers (cloud/azure-load-balancers.ts); without one, no Service gets an address. */
  loadBalancers?: LoadBalancerCloud;
  log?: (message: string) => void;
}

export class Workloads {
  readonly events: EventRecorder;
  /** The containers' logs, as the kubelets write them (pods/log reads them). */
  readonly logs: ContainerLogs;
  private readonly ctx: ControllerContext;
  /**
   * Every controller, in the order each hears a change and resyncs after a start: the kubelets first (running
   * pods are restored, their addresses marked taken, before any new sandbox asks for one), then the garbage
   * collector (dependents of owners deleted while the server was down go before their owners reconcile).
   */
  private readonly controllers: readonly Controller[];
  private readonly lifecycle: PodLifecycle;
  private unsubscribe: (() => void) | undefined;
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    private readonly objects: ObjectStore,
    private readonly options: WorkloadsOptions,
  ) {
    this.events = new EventRecorder(objects);
    const ctx: ControllerContext = { objects, index: new Indexes(objects), events: this.events, log: options.log ?? ((m) => process.stderr.write(`${m}\n`)) };
    this.ctx = ctx;
    const cluster = () => options.cluster();
    const network = options.network ?? (() => undefined);
    const minor = minorOf(options.cluster().resolved.kubernetesVersion);
    this.logs = new ContainerLogs((node) => join(nodesDir(options.home, cluster().resourceGroup, cluster().name), node));
    const lifecycle = new PodLifecycle(ctx, {
      sandboxes: options.sandboxes,
      containers: options.containers,
      logs: this.logs,
      records: SandboxRecords.forCluster(options.home, () => options.cluster()),
      minor,
      network,
      nodeRoot: (node) => nodeRootDir(options.home, cluster().resourceGroup, cluster().name, node),
      // Only pods with a network namespace have tools that read them (kubectl exec): nothing more to write otherwise.
      ...(options.sandboxes.netnsOf
        ? {
            podFiles: new PodDnsFiles(
              (node) => nodeRootDir(options.home, cluster().resourceGroup, cluster().name, node),
              () => aksKubeletDns(cluster()),
              ctx.log,
            ),
          }
        : {}),
    });
    this.lifecycle = lifecycle;
    this.controllers = [
      lifecycle,
      new GarbageCollector(ctx),
      new DeploymentController(ctx),
      new ReplicaSetController(ctx),
      new DaemonSetController(ctx),
      new JobController(ctx, minor),
      new Scheduler(ctx),
      new EndpointsController(ctx),
      new EndpointSliceController(ctx),
      new DisruptionController(ctx),
      new ApiServiceController(ctx),
      new NamespaceController(ctx),
      new ServiceProxy(ctx, network, cluster),
      new NetworkPolicies(ctx, network, cluster),
      ...(options.loadBalancers ? [new ServiceLoadBalancers(ctx, options.loadBalancers)] : []),
    ];
  }

  /** Creates the missing add-ons and starts reconciling (call once the nodes are in the store). */
  start(): void {
    if (this.unsubscribe) return;
    const { objects, index } = this.ctx;
    this.unsubscribe = objects.subscribe((change) => {
      index.apply(change);
      for (const c of this.controllers) c.observe(change);
      if (change.type === 'DELETED') this.events.forget(change.object.metadata.uid);
    });
    for (const addon of addonWorkloads(this.options.cluster())) {
      const r = addon.kind === 'Deployment' ? DEPLOYMENTS : DAEMONSETS;
      if (!objects.get(r, addon.metadata.namespace, addon.metadata.name)) objects.put(r, addon, { system: true });
    }
    for (const c of this.controllers) c.resync();
    // Events still being restored are dropped as they are read when expired as of the load (apiserver/storage/
    // persistence.ts LATER); what expired since goes at the next sweep. A sweep now would read them all at once.
    if (!objects.restoring(EVENTS)) this.events.expire();
    this.expiry = setInterval(() => this.events.expire(), 60_000);
    this.expiry.unref();
  }

  /** A running container's streams, for `kubectl attach` (kubelet/container-io.ts). */
  attach(namespace: string, name: string, container: string): ContainerIo | undefined {
    return this.lifecycle.attach(namespace, name, container);
  }

  /** Restored pods the kubelets have not resumed yet (their containers started again after a restart). */
  get restoring(): number {
    return this.lifecycle.restoringCount;
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.expiry);
    for (const c of this.controllers) c.close();
    this.logs.close();
  }

  /** Resolves once the disk writes queued before the close are done. */
  settled(): Promise<void> {
    return this.lifecycle.settled();
  }
}
