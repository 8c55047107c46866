// A recording Dataplane for control-plane tests: it keeps every topology it is given, checks that applies
// never overlap, and answers probes from the last applied topology (the source's address on its subnet,
// as a listener on the far side of a flat VNet would see it).
import type { Dataplane, PodAttachment, PodNetwork, ProbeRequest, ProbeResult } from '../../src/dataplane/dataplane.js';
import type { Topology } from '../../src/dataplane/topology.js';

export class RecordingDataplane implements Dataplane {
  readonly mode = 'netns' as const;
  readonly calls: string[] = [];
  readonly applied: Topology[] = [];
  readonly probes: ProbeRequest[] = [];
  closedWith: { removeAll?: boolean } | undefined;
  /** Set to make the next applies fail. */
  failApplies = false;
  /** The far side refuses connections to this port. */
  refusedPort: number | undefined;
  maxConcurrentApplies = 0;
  private active = 0;
  /** Lets a test hold an apply open. */
  gate: Promise<void> | undefined;

  async gc(): Promise<void> {
    this.calls.push('gc');
  }

  async apply(topology: Topology): Promise<void> {
    this.calls.push('apply');
    this.active++;
    this.maxConcurrentApplies = Math.max(this.maxConcurrentApplies, this.active);
    try {
      await this.gate;
      if (this.failApplies) throw new Error('injected apply failure');
      this.applied.push(structuredClone(topology));
    } finally {
      this.active--;
    }
  }

  async attachPod(pod: PodAttachment): Promise<PodNetwork> {
    return { ip: pod.ip ?? '' };
  }

  async detachPod(): Promise<void> {}

  async probe(request: ProbeRequest): Promise<ProbeResult> {
    this.probes.push(request);
    if (request.to.port === this.refusedPort) return { connected: false, error: `connect ECONNREFUSED ${request.to.ip}:${request.to.port}`, ms: 1 };
    if (request.from.kind === 'pod') throw new Error(`pod ${request.from.namespace}/${request.from.name} has no sandbox`);
    const last = this.applied.at(-1);
    const host = last?.vnets.flatMap((v) => v.hosts).find((h) => h.kind === request.from.kind && h.name === request.from.name);
    return host ? { connected: true, seenSource: host.ip, ms: 1 } : { connected: false, error: 'source not built', ms: 1 };
  }

  async close(options?: { removeAll?: boolean }): Promise<void> {
    this.calls.push('close');
    this.closedWith = options ?? {};
  }
}
