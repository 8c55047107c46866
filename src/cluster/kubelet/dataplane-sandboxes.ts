// Pod sandboxes on the real data plane (`aksemu start --dataplane netns`), behind the kubelet's PodSandboxes:
//   kubenet, azure     the IPAM (ipam.ts) picks the address, then the data plane builds the pod's namespace with it
//   none (BYO CNI)     the data plane runs the node's whole conflist through the CNI runtime; the address is the
//                      one its IPAM gave (no separate IPAM call, so nothing is allocated twice)
//   hostNetwork        the node IP; nothing is built
// A pod's namespace hangs off its node's, which the data plane builds when it applies the topology (debounced
// after the ARM commit), so attaching waits for the node first, bounded. The data plane starts empty after a
// restart (it removes everything when it stops; after a SIGKILL its gc removes what was left): restored pods keep
// their addresses and are attached again in the background once their node is there (rebuild below).
import { join } from 'node:path';
import { networkModelOf } from '../../aks/network-models/index.js';
import type { DataplaneMode, PodAttachment, PodNetwork } from '../../dataplane/dataplane.js';
import { nodeHostId } from '../../dataplane/derive.js';
import { loadDefaultNetwork } from '../../cni/confdir.js';
import { nodesDir } from '../nodefs/paths.js';
import { nodeCniDataDir } from './ipam-exec.js';
import { sandboxFailure, Sandboxes, type IpamHost } from './ipam.js';
import type { PodSandboxes, RestoreReport, SandboxRequest, SandboxResult } from './sandbox.js';

/** What the sandboxes need of the data plane: the DataplaneController has it. */
export interface PodNetworkAttacher {
  readonly mode: DataplaneMode;
  attachPod(pod: PodAttachment): Promise<PodNetwork>;
  detachPod(pod: PodAttachment): Promise<void>;
  /** Resolves once the node's namespace exists; rejects (with why) after timeoutMs. */
  whenHostReady(hostId: string, timeoutMs?: number): Promise<void>;
}

export interface DataplaneSandboxesOptions {
  /** How long a new sandbox waits for its node to be in the data plane (default 30 s). */
  hostTimeoutMs?: number;
  /** How long a restored pod waits for its node after a restart (default 120 s: the first apply builds everything). */
  restoreTimeoutMs?: number;
  /** A restored pod's network that failed to build is tried again after this, doubling (default 500 ms)… */
  retryBaseMs?: number;
  /** …up to this (default 30 s). */
  retryMaxMs?: number;
  log?: (line: string) => void;
}

interface Attached {
  attachment: PodAttachment;
  /** The pod's network namespace, once attached. */
  netns?: string;
  /** The attach in flight (restored pods attach in the background), settled when done. */
  pending: Promise<void>;
  cancelled: boolean;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** How IPAMs refuse an address they cannot give (host-local: allocator.go; calico-ipam; aksemu's own). */
const ADDRESS_TAKEN = /not available|already (allocated|in use|assigned)|is in use|not in (the )?range|outside/i;

export class DataplaneSandboxes implements PodSandboxes {
  private readonly ipam: Sandboxes;
  private readonly attached = new Map<string, Attached>();
  private readonly hostTimeoutMs: number;
  private readonly restoreTimeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly log: (line: string) => void;

  constructor(
    private readonly host: IpamHost,
    private readonly dataplane: PodNetworkAttacher,
    options: DataplaneSandboxesOptions = {},
  ) {
    this.ipam = new Sandboxes(host);
    this.hostTimeoutMs = options.hostTimeoutMs ?? 30_000;
    this.restoreTimeoutMs = options.restoreTimeoutMs ?? 120_000;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
    this.log = options.log ?? (() => undefined);
  }

  /** The user's CNI attaches the cluster's pods (BYO CNI). */
  private get byo(): boolean {
    return networkModelOf(this.host.record.resolved)?.wiring === 'none';
  }

  /** What the data plane gets for one sandbox; BYO pods carry the node's CNI setup, all under the node's dir. */
  private attachment(req: SandboxRequest, ip: string | undefined): PodAttachment {
    const r = this.host.record;
    const nodeDir = join(nodesDir(this.host.home, r.resourceGroup, r.name), req.node);
    return {
      clusterId: r.id,
      node: req.node,
      hostId: nodeHostId(r.id, req.node),
      namespace: req.namespace,
      name: req.name,
      uid: req.uid,
      sandboxId: req.sandboxId,
      ...(ip ? { ip } : {}),
      ...(this.byo
        ? {
            cni: {
              confDir: this.host.kubelets.confDir(req.node),
              // `aksemu cni install --plugin-dir` first, then the node's /opt/cni/bin.
              pluginDirs: this.ipam.pluginPath(req.node),
              // libcni's /var/lib/cni (results/ under it) and host-local's /var/lib/cni/networks, of this node.
              cacheDir: join(nodeDir, 'var', 'lib', 'cni'),
              ipamDataDir: nodeCniDataDir(nodeDir),
            },
          }
        : {}),
    };
  }

  async setUp(req: SandboxRequest): Promise<SandboxResult> {
    // Host-network pods and unknown nodes: the IPAM's answer (the node IP, or its failure) is the whole story.
    if (req.hostNetwork || !this.host.nodeRecord(req.node)) return this.ipam.setUp(req);
    if (this.byo) {
      // containerd refuses sandboxes while its CNI config is missing (go-cni's ErrCNINotInitialized).
      if (!loadDefaultNetwork(this.host.kubelets.confDir(req.node))) return sandboxFailure(req, 'cni plugin not initialized');
      return this.attach(req, this.attachment(req, undefined));
    }
    const address = await this.ipam.setUp(req);
    if (!address.ok) return address;
    const result = await this.attach(req, this.attachment(req, address.ip));
    if (!result.ok) await this.ipam.tearDown(req);
    return result;
  }

  /** Waits for the node, builds the pod's network; a failure is the sandbox's (FailedCreatePodSandBox). */
  private async attach(req: SandboxRequest, attachment: PodAttachment): Promise<SandboxResult> {
    try {
      await this.dataplane.whenHostReady(attachment.hostId, this.hostTimeoutMs);
      const net = await this.dataplane.attachPod(attachment);
      this.attached.set(req.sandboxId, {
        attachment: { ...attachment, ip: net.ip },
        ...(net.netns ? { netns: net.netns } : {}),
        pending: Promise.resolve(),
        cancelled: false,
      });
      return { ok: true, ip: net.ip };
    } catch (e) {
      // BYO: the CNI runtime's error already reads `plugin type="…" failed (add): …`; node files by their node path.
      return sandboxFailure(req, message(e), this.ipam.nodeDir(req.node));
    }
  }

  async tearDown(req: SandboxRequest): Promise<void> {
    if (req.hostNetwork) return this.ipam.tearDown(req);
    const entry = this.attached.get(req.sandboxId);
    this.attached.delete(req.sandboxId);
    if (entry) {
      entry.cancelled = true;
      await entry.pending;
    }
    try {
      // A BYO sandbox unknown here (one of a run that crashed) still gets CNI DEL: it frees the IPAM's address.
      if (entry || (this.byo && loadDefaultNetwork(this.host.kubelets.confDir(req.node)))) {
        await this.dataplane.detachPod(entry?.attachment ?? this.attachment(req, undefined));
      }
    } finally {
      if (!this.byo) await this.ipam.tearDown(req);
    }
  }

  restore(req: SandboxRequest, ip: string, report?: RestoreReport): void {
    if (req.hostNetwork) return;
    if (!this.byo) this.ipam.restore(req, ip);
    // BYO: ask the plugins' IPAM for the address the pod had (CNI_ARGS IP=…).
    const entry: Attached = { attachment: this.attachment(req, ip), pending: Promise.resolve(), cancelled: false };
    entry.pending = this.rebuild(req, ip, entry, report);
    this.attached.set(req.sandboxId, entry);
  }

  /**
   * A restored pod's network, built again once its node is there: retried with back-off (the kubelet's
   * FailedCreatePodSandBox each time) until it is built or the pod goes. BYO: the CNI wiring DELs the old
   * attachment first when the plugins' cache still has it (a SIGKILL left it there: wiring/cni.ts), and a failed
   * ADD is rolled back (DEL) before the next try. An address its IPAM cannot give again is asked for afresh, and
   * the pod's status follows it.
   */
  private async rebuild(req: SandboxRequest, ip: string, entry: Attached, report: RestoreReport | undefined): Promise<void> {
    const where = `kubelet ${req.node}: pod ${req.namespace}/${req.name}`;
    const over = () => entry.cancelled || (report?.gone() ?? false);
    let attachment = entry.attachment;
    for (let attempt = 1; !over(); attempt++) {
      try {
        await this.dataplane.whenHostReady(attachment.hostId, this.restoreTimeoutMs);
        if (over()) return;
        const net = await this.dataplane.attachPod(attachment);
        entry.attachment = { ...attachment, ip: net.ip };
        if (net.netns) entry.netns = net.netns;
        if (net.ip !== ip) {
          const why = attachment.ip ? `its IPAM gave ${net.ip} for ${ip}` : `${ip} could not be had again, its IPAM gave ${net.ip}`;
          this.log(`${where} was restored with ${ip} but its network came back with ${net.ip} (${why}): its status says ${net.ip}`);
          report?.changed(net.ip, why);
        }
        return;
      } catch (e) {
        if (over()) return;
        const why = message(e);
        this.log(`${where}: the network of the restored pod (${ip}) could not be rebuilt (attempt ${attempt}, retried): ${why}`);
        report?.failed(why);
        // The address is someone else's now (or out of the IPAM's range): the next attempt asks for any.
        if (this.byo && attachment.ip && ADDRESS_TAKEN.test(why)) attachment = this.attachment(req, undefined);
        await this.backOff(attempt, over);
      }
    }
  }

  /** The kubelet's sandbox back-off: 0.5 s doubling to 30 s, cut short when the pod goes or the kubelet stops. */
  private async backOff(attempt: number, over: () => boolean): Promise<void> {
    const ms = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (attempt - 1));
    const until = Date.now() + ms;
    while (!over() && Date.now() < until) await new Promise((r) => setTimeout(r, Math.min(100, until - Date.now())));
  }

  netnsOf(namespace: string, name: string): string | undefined {
    for (const a of this.attached.values()) {
      if (a.netns && a.attachment.namespace === namespace && a.attachment.name === name) return a.netns;
    }
    return undefined;
  }

  async netnsWhenAttached(namespace: string, name: string): Promise<string | undefined> {
    for (const a of this.attached.values()) {
      if (a.attachment.namespace !== namespace || a.attachment.name !== name) continue;
      await a.pending.catch(() => undefined);
      if (a.netns) return a.netns;
    }
    return undefined;
  }

  /** Resolves when every restored pod's background attach has settled (tests, diagnostics). */
  async settled(): Promise<void> {
    await Promise.all([...this.attached.values()].map((a) => a.pending));
  }
}

/** The sandboxes a cluster runtime uses: the data plane's when one runs, else addresses only. */
export function sandboxesFor(host: IpamHost, dataplane: PodNetworkAttacher | undefined, options: DataplaneSandboxesOptions = {}): PodSandboxes {
  return dataplane && dataplane.mode !== 'none' ? new DataplaneSandboxes(host, dataplane, options) : new Sandboxes(host);
}
