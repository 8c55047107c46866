// Keeps one Dataplane converged on the store: after every committed change that can alter the topology
// (debounced, so a burst of writes is one apply), at start, and once more whenever a change arrives while
// an apply runs (applies never overlap). Errors are logged: the control plane never waits for, or
// fails because of, the data plane.
import type { Server } from 'node:net';
import { K8S_OBJECTS_PREFIX, NODES_PREFIX } from '../store/keys.js';
import type { Change, ObservedStore } from '../store/observed.js';
import type { Dataplane, OutgoingMasquerade, PodAttachment, PodNetwork, ProbeRequest, ProbeResult, VxlanOverlay } from './dataplane.js';
import type { NodePolicies } from './policies.js';
import type { NodeServices } from './services.js';
import { deriveTopology, nodeHostId } from './derive.js';

export interface DataplaneControllerOptions {
  store: ObservedStore;
  dataplane: Dataplane;
  log: (line: string) => void;
  /** Quiet time after the last change before applying. */
  debounceMs?: number;
  /** Delete every namespace on close (the data plane is rebuilt from the store at start). Default true. */
  removeAllOnClose?: boolean;
}

/** Keys whose changes can change the topology: networks, NICs, VMs, clusters and their node records, groups. */
const RELEVANT = /\/providers\/microsoft\.(network|compute|containerservice)\/|^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/?$/i;

/**
 * A cluster's Kubernetes objects are kept under its id (`aksemu:k8s<cluster id>/…`, which RELEVANT would match) but
 * the topology is derived from none of them (derive.ts): a pod's status, an Event or a Calico IPAM block written
 * while a restart re-ADDs every pod would otherwise each cost an apply, and every attach waits for the applies.
 */
export function affectsTopology(changes: readonly Change[]): boolean {
  return changes.some((c) => c.prefix === true || c.key.startsWith(NODES_PREFIX) || (!c.key.startsWith(K8S_OBJECTS_PREFIX) && RELEVANT.test(c.key)));
}

/** A dataplane driver that garbage-collects what a crashed run left behind before the first apply. */
interface Collectable {
  gc(): Promise<void>;
}

function collectable(dataplane: Dataplane): dataplane is Dataplane & Collectable {
  return typeof (dataplane as Partial<Collectable>).gc === 'function';
}

/** One cluster's nodes' networks by node name, as its CNI agents program them (images/program.ts NodeNetwork). */
export interface ClusterNodeNetwork {
  applyOverlay(node: string, overlay: VxlanOverlay): Promise<void>;
  removeOverlay(node: string, device: string): Promise<void>;
  /** kube-proxy's rules on the node (services.ts). */
  applyServices(node: string, table: NodeServices): Promise<void>;
  /** The policy engine's rules on the node (policies.ts). */
  applyPolicies(node: string, table: NodePolicies): Promise<void>;
  /** The CNI agent's outgoing masquerade on the node. */
  applyMasquerade(node: string, masquerade: OutgoingMasquerade): Promise<void>;
  /** The node's network namespace once it is built (the kubelet's probes run there); undefined when it is not. */
  nodeNetns(node: string): Promise<string | undefined>;
}

export class DataplaneController {
  readonly dataplane: Dataplane;
  private readonly store: ObservedStore;
  private readonly log: (line: string) => void;
  private readonly debounceMs: number;
  private readonly removeAllOnClose: boolean;
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The apply now running, if any. */
  private running: Promise<void> | undefined;
  /** A change arrived while an apply ran: apply again when it ends. */
  private again = false;
  private closed = false;
  private applies = 0;
  private failures = 0;
  private started = false;
  /** Hosts (lower-case ids) of the last topology applied without error: pods can attach to them. */
  private readyHosts = new Set<string>();
  private lastError: string | undefined;
  /** Callers of whenHostReady, woken after every apply and on close. */
  private readonly waiters = new Set<() => void>();

  constructor(options: DataplaneControllerOptions) {
    this.store = options.store;
    this.dataplane = options.dataplane;
    this.log = options.log;
    this.debounceMs = options.debounceMs ?? 50;
    this.removeAllOnClose = options.removeAllOnClose ?? true;
  }

  get mode() {
    return this.dataplane.mode;
  }

  /** How many applies ran, and how many of them failed (for tests and diagnostics). */
  get stats(): { applies: number; failures: number } {
    return { applies: this.applies, failures: this.failures };
  }

  /** Cleans up after a previous run, applies the stored topology, then follows every change. */
  async start(): Promise<void> {
    // `none` builds nothing: deriving the topology on every change would be work for nobody.
    if (this.dataplane.mode === 'none') return;
    if (collectable(this.dataplane)) {
      try {
        await this.dataplane.gc();
      } catch (err) {
        this.log(`dataplane: garbage collection failed: ${message(err)}`);
      }
    }
    this.unsubscribe = this.store.onCommit((changes) => {
      if (affectsTopology(changes)) this.schedule();
    });
    this.started = true;
    await this.applyNow();
  }

  /**
   * Resolves once the host (HostTopology.id: a node is `<cluster id>/nodes/<name>`) is in an applied topology;
   * a pod's namespace can only be wired to its node's. Asks for an apply when the host is not there yet (its
   * ARM change may still be in the debounce), and rejects after timeoutMs, or when the controller closes.
   */
  async whenHostReady(hostId: string, timeoutMs = 30_000): Promise<void> {
    const key = hostId.toLowerCase();
    if (this.readyHosts.has(key)) return;
    if (this.dataplane.mode === 'none') throw new Error('the data plane is off');
    // Before start() the first apply is on its way (after gc); scheduling one here could race the gc.
    if (this.started) this.schedule();
    const deadline = Date.now() + timeoutMs;
    while (!this.readyHosts.has(key)) {
      if (this.closed) throw new Error('the data plane is closing');
      const left = deadline - Date.now();
      if (left <= 0) {
        const why = this.lastError ? `the last apply failed: ${this.lastError}` : 'no apply has included it yet';
        throw new Error(`the node is not in the data plane after ${timeoutMs < 1000 ? `${timeoutMs}ms` : `${Math.round(timeoutMs / 1000)}s`} (${why})`);
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  private wakeWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Applies soon (debounced). */
  schedule(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.applyNow();
    }, this.debounceMs);
  }

  /** Applies the current topology now, or right after the apply in progress. Never rejects. */
  applyNow(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no change is waiting and no apply runs. */
  async idle(): Promise<void> {
    while (this.timer || this.running) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        void this.applyNow();
      }
      await this.running;
    }
  }

  async attachPod(pod: PodAttachment): Promise<PodNetwork> {
    // After the topology change in flight: a reimaged node (a network migration) is rebuilt with its new wiring
    // there, and a pod wired to the old one would go with it (docs/dataplane.md §5.2).
    await this.idle();
    return this.dataplane.attachPod(pod);
  }

  async detachPod(pod: PodAttachment): Promise<void> {
    // As attachPod: not halfway through a rebuild of the pod's node.
    await this.idle();
    return this.dataplane.detachPod(pod);
  }

  probe(request: ProbeRequest): Promise<ProbeResult> {
    return this.dataplane.probe(request);
  }

  /**
   * A CNI agent's overlay on its node, once the node's namespace exists (an agent starts as soon as its pod
   * does, which can be before the apply that builds the node has run).
   */
  async applyOverlay(hostId: string, overlay: VxlanOverlay): Promise<void> {
    if (!this.dataplane.applyOverlay) throw new Error(`the ${this.mode} data plane builds no overlays`);
    await this.whenHostReady(hostId);
    await this.dataplane.applyOverlay(hostId, overlay);
  }

  async removeOverlay(hostId: string, device: string): Promise<void> {
    await this.dataplane.removeOverlay?.(hostId, device);
  }

  /** kube-proxy's rules on a node, once its namespace exists. */
  async applyServices(hostId: string, table: NodeServices): Promise<void> {
    if (!this.dataplane.applyServices) throw new Error(`the ${this.mode} data plane runs no kube-proxy`);
    await this.whenHostReady(hostId);
    await this.dataplane.applyServices(hostId, table);
  }

  /** The policy engine's rules on a node, once its namespace exists. */
  async applyPolicies(hostId: string, table: NodePolicies): Promise<void> {
    if (!this.dataplane.applyPolicies) throw new Error(`the ${this.mode} data plane enforces no network policy`);
    await this.whenHostReady(hostId);
    await this.dataplane.applyPolicies(hostId, table);
  }

  /**
   * A cluster API server's listener on the emulated internet (the `kubernetes` Service's endpoint), once the first
   * apply has built the internet namespace; undefined when the data plane builds nothing.
   */
  async apiListener(address: string, port: number): Promise<Server | undefined> {
    if (this.mode === 'none' || !this.dataplane.apiListener) return undefined;
    while (!this.started || this.applies === 0 || this.running) {
      if (this.closed) throw new Error('the data plane is closing');
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        // start() wakes nobody before its first apply: look again now and then.
        const timer = setTimeout(wake, 200);
        this.waiters.add(wake);
      });
    }
    return this.dataplane.apiListener(address, port);
  }

  /** A CNI agent's outgoing masquerade on a node, once its namespace exists. */
  async applyMasquerade(hostId: string, masquerade: OutgoingMasquerade): Promise<void> {
    if (!this.dataplane.applyMasquerade) throw new Error(`the ${this.mode} data plane masquerades nothing`);
    await this.whenHostReady(hostId);
    await this.dataplane.applyMasquerade(hostId, masquerade);
  }

  /** What a cluster's agents get as their node's network; undefined when the data plane builds nothing. */
  nodeNetwork(clusterId: string): ClusterNodeNetwork | undefined {
    if (this.mode === 'none' || !this.dataplane.applyOverlay) return undefined;
    return {
      applyOverlay: (node, overlay) => this.applyOverlay(nodeHostId(clusterId, node), overlay),
      removeOverlay: (node, device) => this.removeOverlay(nodeHostId(clusterId, node), device),
      applyServices: (node, table) => this.applyServices(nodeHostId(clusterId, node), table),
      applyPolicies: (node, table) => this.applyPolicies(nodeHostId(clusterId, node), table),
      applyMasquerade: (node, masquerade) => this.applyMasquerade(nodeHostId(clusterId, node), masquerade),
      nodeNetns: async (node) => {
        const hostId = nodeHostId(clusterId, node);
        try {
          await this.whenHostReady(hostId, 5_000);
        } catch {
          return undefined;
        }
        return this.dataplane.hostNetns?.(hostId);
      },
    };
  }

  /** Stops following the store, lets a running apply end, and closes the driver (removing its namespaces). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakeWaiters();
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    try {
      await this.dataplane.close({ removeAll: this.removeAllOnClose });
    } catch (err) {
      this.log(`dataplane: close failed: ${message(err)}`);
    }
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      this.applies++;
      const started = Date.now();
      try {
        // Derived at the moment of applying, so a burst of changes is read once, all committed.
        const topology = deriveTopology(this.store);
        await this.dataplane.apply(topology);
        this.readyHosts = new Set(topology.vnets.flatMap((v) => v.hosts.map((h) => h.id.toLowerCase())));
        this.lastError = undefined;
        const hosts = topology.vnets.reduce((n, v) => n + v.hosts.length, 0);
        this.log(`dataplane: applied ${topology.vnets.length} vnet(s), ${hosts} host(s) in ${Date.now() - started}ms`);
      } catch (err) {
        this.failures++;
        this.lastError = message(err);
        this.log(`dataplane: apply failed: ${message(err)}`);
      }
      this.wakeWaiters();
    } while (this.again && !this.closed);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
