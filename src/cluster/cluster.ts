// One emulated cluster's control plane state: its objects (store.ts), its kubelets (kubelet.ts), and the
// sync that turns the provisioner's NodeRecords into Node objects whenever the cluster changes.
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { nodeKey, nodesOf, poolsOf, type ClusterRecord, type NodeRecord, type PoolRecord } from '../model/cluster-records.js';
import type { Store } from '../store/store.js';
import type { ApiHandler } from './client/agent-client.js';
import type { NodeNetwork } from './images/program.js';
import { Kubelets } from './kubelet/kubelet.js';
import {
  withWritten,
  writtenPart,
  type ServiceAccountIssuer,
  type ObjectPersistence,
  type ObjectBudget,
  ObjectCeiling,
  type Change,
  ObjectStore,
} from './apiserver/index.js';
import { buildNode, nodeBasis, type NodeBasis } from './cloud/nodes.js';
import { AzureLoadBalancers } from './cloud/azure-load-balancers.js';
import { growPodSubnetBatch } from './cloud/pod-subnet-batches.js';
import type { KubeObject } from './apimachinery/object.js';
import { apiServerEndpoints, namespaceObject, SYSTEM_NAMESPACES, systemObjects, systemServices } from './cloud/system.js';
import { clusterDir } from './nodefs/paths.js';
import { Workloads } from './components.js';
import { createContainerRunner } from './kubelet/init-containers.js';
import { createSandboxes, type IpamHost } from './kubelet/ipam.js';
import type { ContainerRunner, PodSandboxes } from './kubelet/sandbox.js';
import { NAMESPACES, NODES, SERVICES, resourceKey } from './apimachinery/resources.js';
import { k8sTime } from './apimachinery/time.js';
import { TURN_MS } from './apimachinery/turns.js';
import { sameId } from '../ids/compare.js';

const NODES_KEY = resourceKey(NODES);
/** The nodes a sync in slices builds in its first call at least, whatever its clock says. */
const SLICE_NODES = 64;

/** Each pool's basis (cloud/nodes.ts) by lower-cased pool name, made when first asked for, and its JSON. */
interface Bases {
  of(pool: string): { basis: NodeBasis; json: string };
}

/** A sync's nodes left to build on later turns (syncInSlices), and what its end needs. */
interface Slicing {
  records: NodeRecord[];
  next: number;
  bases: Bases;
  built: Set<string>;
  changedNodes: ReadonlySet<string> | undefined;
  stale: Set<string>;
  /** Told of an error in a later turn's slice (the slicing ends there). */
  failed: (e: unknown) => void;
  immediate: NodeJS.Immediate | undefined;
  done: Promise<void>;
  resolve: () => void;
}

export class ClusterRuntime {
  readonly objects: ObjectStore;
  readonly kubelets: Kubelets;
  /** Scheduler, controllers and the kubelets' pod lifecycle. */
  readonly workloads: Workloads;
  /** The pods' sandboxes: where `kubectl exec` and `port-forward` find a pod's network namespace. */
  readonly sandboxes: PodSandboxes;
  /** The cluster's API (server.ts makes it after the runtime: setApi); CNI agents' clients call it in-process. */
  api: ApiHandler | undefined;
  /** The data plane's node networking for CNI agents (server.ts sets it when a data plane runs). */
  network: NodeNetwork | undefined;
  /** What projected service-account tokens are signed with and the CA they come with (service-account-tokens.ts). */
  readonly serviceAccounts: ServiceAccountIssuer;
  private bootstrapped = false;
  private readonly persistence: ObjectPersistence | undefined;
  /** What writers put on each Node beyond its record (node-writes.ts writtenPart), by node name. */
  private readonly written = new Map<string, KubeObject>();
  /** True while the runtime itself writes Nodes from their records: those writes are no writer's. */
  private building = false;
  /** The names of the cluster's node records as of the last sync. */
  private recordNames: Set<string> | undefined;
  /** The basis (JSON) each pool's nodes were last built from, by lower-cased pool name. */
  private readonly builtBases = new Map<string, string>();
  /** A sync in slices whose nodes are not all built yet. */
  private slicing: Slicing | undefined;

  constructor(
    private readonly store: Store,
    readonly home: string,
    public record: ClusterRecord,
    options: {
      rescanMs?: number;
      persistence?: ObjectPersistence;
      /**
       * The pod network and containers; by default the IPAM per plugin and the container runner (init-containers.ts). The
       * sandboxes may be given as a factory of this runtime (they read its record and nodes).
       */
      sandboxes?: PodSandboxes | ((runtime: IpamHost) => PodSandboxes);
      containers?: ContainerRunner;
      /** The object budget this cluster shares with the server's other clusters (ceiling.ts). */
      budget?: ObjectBudget;
      /** What CNI agents program on their nodes when a data plane runs (images/program.ts NodeNetwork). */
      network?: NodeNetwork;
      /** The cluster's token signing key and CA (server.ts); a runtime without its server gets a key of its own. */
      serviceAccounts?: ServiceAccountIssuer;
    } = {},
  ) {
    this.network = options.network;
    this.serviceAccounts = options.serviceAccounts ?? { key: randomBytes(32), caPem: '' };
    this.objects = new ObjectStore(undefined, options.persistence, new ObjectCeiling(options.budget));
    this.persistence = options.persistence;
    for (const w of this.objects.takeRestoredWritten(NODES)) this.written.set(w.metadata.name, w);
    this.objects.subscribe((change) => {
      if (!this.building && change.resource === NODES_KEY) this.noteNodeWrite(change);
    });
    this.kubelets = new Kubelets(home, this.kubeletInfo(), (node) => this.syncNode(node), options.rescanMs);
    this.sandboxes = typeof options.sandboxes === 'function' ? options.sandboxes(this) : (options.sandboxes ?? createSandboxes(this));
    this.workloads = new Workloads(this.objects, {
      home,
      cluster: () => this.record,
      sandboxes: this.sandboxes,
      containers: options.containers ?? createContainerRunner(this),
      network: () => this.network,
      loadBalancers: new AzureLoadBalancers(store, () => this.record),
    });
  }

  setApi(api: ApiHandler): void {
    this.api = api;
  }

  /** CNS's next batch of the pod subnet for one of the nodes (IpamHost; cloud/pod-subnet-batches.ts). */
  growPodSubnet(node: string): string[] | undefined {
    return growPodSubnetBatch(this.store, this.record, node);
  }

  /** The provisioner's record of one of this cluster's nodes (its addresses). */
  nodeRecord(name: string): NodeRecord | undefined {
    return this.store.get<NodeRecord>(nodeKey(this.record.id, name));
  }

  get id(): string {
    return this.record.id;
  }

  get kubernetesVersion(): string {
    return this.record.resolved.kubernetesVersion;
  }

  private kubeletInfo() {
    const net = this.record.resolved.network;
    return {
      resourceGroup: this.record.resourceGroup,
      name: this.record.name,
      networkPlugin: net.networkPlugin,
      ...(net.networkPluginMode ? { networkPluginMode: net.networkPluginMode } : {}),
    };
  }

  start(): void {
    this.sync();
    this.kubelets.start();
    this.workloads.start();
  }

  /**
   * Brings the objects in line with the store: the cluster, its pools and nodes. False when the cluster is gone.
   * `changedNodes`: the names of the node records written or deleted since the last sync (the store's change list,
   * server.ts); only those nodes, and the nodes of a pool whose basis changed, are rebuilt. Without it (the first
   * sync, a change the caller cannot name) every node is.
   */
  sync(changedNodes?: ReadonlySet<string>): boolean {
    return this.syncWith(changedNodes, undefined);
  }

  /**
   * sync(), with its nodes built a turn's slice at a time when they are many (a pool add's thousand), so that the
   * requests arriving meanwhile (the operation's poll, the next ARM call) are read between slices instead of after
   * the whole sync (docs/performance.md §6.9). At least SLICE_NODES are built at once: a small sync ends in this
   * call, as sync() does. Until the last slice, `settling()` is pending (the cluster's API waits for it), and a sync
   * started meanwhile builds the rest first. A node record deleted before its slice is skipped; one changed is
   * built as it is then. `failed`: told of an error thrown in a later turn's slice.
   */
  syncInSlices(changedNodes: ReadonlySet<string> | undefined, failed: (e: unknown) => void): boolean {
    return this.syncWith(changedNodes, failed);
  }

  /** While a sync in slices has nodes left to build: when it has built them. */
  settling(): Promise<void> | undefined {
    return this.slicing?.done;
  }

  /** sync(), in slices when told where a later slice's error goes. */
  private syncWith(changedNodes: ReadonlySet<string> | undefined, inSlices: ((e: unknown) => void) | undefined): boolean {
    // A sync in slices while one is under way joins it; any other sync finishes it first.
    const pending = inSlices ? this.slicing : undefined;
    if (!pending) this.finishSlices();
    const record = this.store.get<ClusterRecord>(this.record.id);
    if (!record) return false;
    this.record = record;
    this.kubelets.setCluster(this.kubeletInfo());
    if (!this.bootstrapped) {
      const created = k8sTime(record.createdAt);
      // Restored objects win: bootstrap only adds what is missing.
      for (const ns of SYSTEM_NAMESPACES) this.objects.putIfAbsent(NAMESPACES, namespaceObject(ns, created));
      for (const svc of systemServices(record)) this.objects.putIfAbsent(SERVICES, svc);
      for (const { r, object } of systemObjects(record)) this.objects.putIfAbsent(r, object);
      // The apiserver writes its own endpoints at every start (restored ones of an older aksemu included).
      for (const { r, object } of apiServerEndpoints(record)) this.objects.put(r, object, { onlyIfChanged: true, system: true });
      this.bootstrapped = true;
    }
    const bases = this.basesOf(poolsOf(this.store, record));
    // Pools whose nodes were built from a basis that is not theirs now (an upgrade, new labels or taints).
    const stale = new Set<string>();
    for (const [pool, json] of this.builtBases) if (bases.of(pool).json !== json) stale.add(pool);
    let records: NodeRecord[];
    if (!changedNodes || stale.size > 0 || !this.recordNames) {
      records = nodesOf(this.store, record);
      this.recordNames = new Set(records.map((n) => n.name));
      const pools = new Set(records.map((n) => n.pool.toLowerCase()));
      for (const pool of this.builtBases.keys()) if (!pools.has(pool)) this.builtBases.delete(pool);
      if (changedNodes) records = records.filter((n) => changedNodes.has(n.name) || stale.has(n.pool.toLowerCase()));
    } else {
      records = [];
      for (const name of changedNodes) {
        const n = this.store.get<NodeRecord>(nodeKey(record.id, name));
        if (n) {
          records.push(n);
          this.recordNames.add(n.name);
        } else this.recordNames.delete(name);
      }
    }
    const present = this.recordNames;
    this.building = true;
    try {
      for (const node of this.objects.list(NODES)) {
        if (!present.has(node.metadata.name)) {
          this.objects.delete(NODES, undefined, node.metadata.name);
          this.keepWritten(node.metadata.name, undefined);
          this.kubelets.forget(node.metadata.name, true);
        }
      }
    } finally {
      this.building = false;
    }
    if (pending) {
      // This sync's nodes after the pending one's, in its slices (each record read again then), from the bases now.
      pending.records.push(...records);
      pending.bases = bases;
      for (const pool of stale) pending.stale.add(pool);
      pending.changedNodes = pending.changedNodes && changedNodes ? new Set([...pending.changedNodes, ...changedNodes]) : undefined;
      return true;
    }
    let resolve = () => {};
    const done = new Promise<void>((r) => (resolve = r));
    const failed = inSlices ?? (() => {});
    const slicing: Slicing = { records, next: 0, bases, built: new Set(), changedNodes, stale, failed, immediate: undefined, done, resolve };
    this.buildSlice(slicing, inSlices ? SLICE_NODES : Infinity, false);
    if (slicing.next < records.length) {
      this.slicing = slicing;
      this.nextSlice(slicing);
    } else this.endSync(slicing);
    return true;
  }

  /**
   * Builds the slicing's next nodes: at least `least`, then for as long as a turn's slice of the runtime's work
   * (TURN_MS, on its own clock: the controllers' catching up, which shares theirs, would leave it a node a turn).
   * `reread`: each record read again first (a later turn's: an operation may have changed or deleted it since).
   */
  private buildSlice(slicing: Slicing, least: number, reread: boolean): void {
    const { records, bases, built } = slicing;
    const started = performance.now();
    this.building = true;
    try {
      for (let i = 0; slicing.next < records.length && (i < least || performance.now() - started < TURN_MS); i++) {
        let n: NodeRecord | undefined = records[slicing.next++]!;
        if (reread) n = this.store.get<NodeRecord>(nodeKey(this.record.id, n.name));
        if (!n) continue;
        this.putNode(this.build(n, bases));
        built.add(n.pool.toLowerCase());
      }
    } finally {
      this.building = false;
    }
  }

  private nextSlice(slicing: Slicing): void {
    slicing.immediate = setImmediate(() => {
      slicing.immediate = undefined;
      if (this.slicing !== slicing) return;
      try {
        this.buildSlice(slicing, 1, true);
        if (slicing.next < slicing.records.length) return this.nextSlice(slicing);
        this.slicing = undefined;
        this.endSync(slicing);
      } catch (e) {
        // As an error in sync() leaves the nodes after it: logged, the slicing ended.
        this.slicing = undefined;
        slicing.resolve();
        slicing.failed(e);
      }
    });
  }

  /** A sync in slices not ended yet: its nodes left built now (each record read again), and its end. */
  private finishSlices(): void {
    const slicing = this.slicing;
    if (!slicing) return;
    this.slicing = undefined;
    if (slicing.immediate) clearImmediate(slicing.immediate);
    this.buildSlice(slicing, Infinity, true);
    this.endSync(slicing);
  }

  /** What a sync does once its nodes are built. */
  private endSync({ bases, built, changedNodes, stale, resolve }: Slicing): void {
    const present = this.recordNames ?? new Set<string>();
    this.building = true;
    try {
      // A record whose Node is not there (deleted through the API): built again, as a full sync would.
      if (present.size !== this.objects.count(NODES)) {
        for (const name of present) {
          if (this.objects.get(NODES, undefined, name)) continue;
          const n = this.store.get<NodeRecord>(nodeKey(this.record.id, name));
          if (n) this.putNode(this.build(n, bases));
        }
      }
      // Pools all of whose nodes were built now, from the basis they have now.
      for (const pool of built) if (!changedNodes || stale.has(pool) || !this.builtBases.has(pool)) this.builtBases.set(pool, bases.of(pool).json);
      // Writes kept for nodes that never came back (gone while the server was down).
      for (const name of this.written.keys()) if (!present.has(name)) this.keepWritten(name, undefined);
    } finally {
      this.building = false;
      resolve();
    }
  }

  /** Each pool's basis (cloud/nodes.ts), by lower-cased pool name, made when first asked for. */
  private basesOf(pools: PoolRecord[]): Bases {
    const made = new Map<string, { basis: NodeBasis; json: string }>();
    return {
      of: (pool) => {
        let b = made.get(pool);
        if (!b) {
          const basis = nodeBasis(
            this.record,
            pools.find((p) => sameId(p.name, pool)),
          );
          made.set(pool, (b = { basis, json: JSON.stringify(basis) }));
        }
        return b;
      },
    };
  }

  /** The Node its record and kubelet make, before what writers put on it. */
  private build(n: NodeRecord, bases = this.basesOf(poolsOf(this.store, this.record))): KubeObject {
    const state = this.kubelets.ensure({
      name: n.name,
      createdAt: n.createdAt,
      ...(n.podCidr ? { podCidr: n.podCidr } : {}),
      ...(n.podSubnetId ? { podSubnetId: n.podSubnetId } : {}),
      ...(n.reimagedAt ? { reimagedAt: n.reimagedAt } : {}),
    });
    return buildNode(bases.of(n.pool.toLowerCase()).basis, n, state);
  }

  private putNode(built: KubeObject): void {
    this.objects.put(NODES, withWritten(built, this.written.get(built.metadata.name)), { onlyIfChanged: true });
  }

  /** Rebuilds one node after its kubelet saw a change. */
  private syncNode(name: string): void {
    const n = this.store.get<NodeRecord>(nodeKey(this.record.id, name));
    if (!n || !this.kubelets.state(name)) return;
    this.building = true;
    try {
      this.putNode(this.build(n));
    } finally {
      this.building = false;
    }
  }

  /** A writer (the API) changed a Node: what it wrote beyond the record is kept, and persisted when it changed. */
  private noteNodeWrite(change: Change): void {
    const name = change.object.metadata.name;
    const n = change.type === 'DELETED' ? undefined : this.nodeRecord(name);
    this.keepWritten(name, n && this.kubelets.state(name) ? writtenPart(change.object, this.build(n)) : undefined);
  }

  private keepWritten(name: string, written: KubeObject | undefined): void {
    const before = this.written.get(name);
    if (JSON.stringify(before) === JSON.stringify(written)) return;
    if (written) this.written.set(name, written);
    else this.written.delete(name);
    this.persistence?.keepWritten(NODES_KEY, name, written ?? null);
  }

  close(): void {
    const slicing = this.slicing;
    this.slicing = undefined;
    if (slicing?.immediate) clearImmediate(slicing.immediate);
    slicing?.resolve();
    this.workloads.close();
    this.kubelets.close();
    this.objects.ceiling.release();
  }

  /** After close(): resolves once the node files queued before it are written, so the home can be removed. */
  settled(): Promise<void> {
    return this.workloads.settled();
  }

  /** The cluster is gone: stop, and remove its node files. */
  destroy(): void {
    this.close();
    // Moved aside at once and removed in the background: deleting many clusters must not hold the event
    // loop on the disk, and a cluster created again under the same name starts from an empty folder.
    const dir = clusterDir(this.home, this.record.resourceGroup, this.record.name);
    const doomed = `${dir}.deleted-${randomUUID()}`;
    try {
      renameSync(dir, doomed);
    } catch {
      return; // nothing there
    }
    rm(doomed, { recursive: true, force: true }).catch(() => undefined);
  }
}
