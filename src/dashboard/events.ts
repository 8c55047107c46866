// GET /ui/api/events (docs/dashboard.md §3.7): server-sent events naming what changed, so the page re-fetches only
// what it shows. ARM changes come from the store's one change feed (ObservedStore.onCommit,
// docs/architecture.md §3), Kubernetes changes from the running cluster APIs' own object stores (nodes, pods,
// services, endpointslices, networkpolicies). Changes are gathered for 100 ms and sent as one event.
import type { ServerResponse } from 'node:http';
import type { Operation } from '../arm/lro.js';
import type { ClusterApis } from '../cluster/server.js';
import { ENDPOINTSLICES, NETWORKPOLICIES, NODES, PODS, resourceKey, SERVICES } from '../cluster/apimachinery/resources.js';
import type { Change, ChangeFeed } from '../store/observed.js';
import { CLUSTER_API_PREFIX, IPAM_BY_SUBNET_PREFIX, NODES_PREFIX, OPERATIONS_PREFIX } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { idKey } from '../ids/compare.js';
import { UI_HEADERS } from './headers.js';

const COALESCE_MS = 100;
const PING_MS = 15_000;
/** How often the set of running cluster APIs is looked at again (they start after the commit that makes their nodes). */
const RESCAN_MS = 1000;
export const MAX_STREAMS_PER_SESSION = 16;

const WATCHED = new Set([NODES, PODS, SERVICES, ENDPOINTSLICES, NETWORKPOLICIES].map(resourceKey));

/** A resource group id and a top-level resource id from any ARM id below them. */
const ARM_ID = /^(\/subscriptions\/[^/]+\/resourcegroups\/[^/|]+)(\/providers\/[^/|]+\/[^/|]+\/[^/|]+)?/i;

/** The ARM ids (group, top-level resource) an id names or lies under. */
function armIdsOf(id: string): string[] {
  const m = ARM_ID.exec(id);
  if (!m) return [];
  return m[2] ? [m[1]!, m[1]! + m[2]] : [m[1]!];
}

interface Stream {
  session: string;
  res: ServerResponse;
}

export class EventHub {
  private readonly streams = new Set<Stream>();
  private pendingArm = new Map<string, string>();
  private pendingClusters = new Map<string, string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
  private unsubscribeStore: (() => void) | undefined;
  /** Per cluster id (lower case): the runtime's object store watched and how to stop watching it. */
  private readonly watches = new Map<string, { objects: unknown; stop: () => void }>();

  constructor(
    private readonly store: Store & ChangeFeed,
    private readonly clusterApis: ClusterApis,
  ) {}

  /** Opens a stream on `res` for `session`; false when the session has too many open already. */
  open(session: string, res: ServerResponse): boolean {
    if ([...this.streams].filter((s) => s.session === session).length >= MAX_STREAMS_PER_SESSION) return false;
    const stream = { session, res };
    this.streams.add(stream);
    res.writeHead(200, { ...UI_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write('retry: 2000\n\n');
    res.on('close', () => this.drop(stream));
    if (this.streams.size === 1) this.start();
    return true;
  }

  close(): void {
    for (const s of [...this.streams]) s.res.end();
    this.streams.clear();
    this.stop();
  }

  private drop(stream: Stream): void {
    this.streams.delete(stream);
    if (this.streams.size === 0) this.stop();
  }

  private start(): void {
    this.unsubscribeStore = this.store.onCommit((changes) => this.onCommit(changes));
    this.pingTimer = setInterval(() => this.send(': ping\n\n'), PING_MS);
    this.rescanTimer = setInterval(() => this.rescan(), RESCAN_MS);
    this.pingTimer.unref();
    this.rescanTimer.unref();
    this.rescan();
  }

  private stop(): void {
    this.unsubscribeStore?.();
    this.unsubscribeStore = undefined;
    clearInterval(this.pingTimer);
    clearInterval(this.rescanTimer);
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
    this.pendingArm.clear();
    this.pendingClusters.clear();
  }

  /** Watches every running cluster API's objects (a restarted API has a new object store: watched anew). */
  private rescan(): void {
    const running = new Set<string>();
    for (const { value } of this.store.list<{ clusterId: string }>(CLUSTER_API_PREFIX)) {
      const runtime = this.clusterApis.runtimeOf(value.clusterId);
      if (!runtime) continue;
      const key = idKey(value.clusterId);
      running.add(key);
      const known = this.watches.get(key);
      if (known?.objects === runtime.objects) continue;
      known?.stop();
      const clusterId = value.clusterId;
      const stop = runtime.objects.subscribe((change) => {
        if (WATCHED.has(change.resource)) this.mark(this.pendingClusters, clusterId);
      });
      this.watches.set(key, { objects: runtime.objects, stop });
      // The API may have made its nodes (and more) before this look found it: whatever it holds is news to a page
      // that read the cluster while it had no API.
      this.mark(this.pendingClusters, clusterId);
    }
    for (const [key, w] of this.watches) {
      if (running.has(key)) continue;
      w.stop();
      this.watches.delete(key);
    }
  }

  private onCommit(changes: readonly Change[]): void {
    for (const { key } of changes) {
      if (key.startsWith('/')) for (const id of armIdsOf(key)) this.mark(this.pendingArm, id);
      else if (key.startsWith(NODES_PREFIX)) {
        // aksemu:nodes<cluster id>/<node>: the cluster, and its group.
        for (const id of armIdsOf(key.slice(NODES_PREFIX.length))) this.mark(this.pendingArm, id);
      } else if (key.startsWith(IPAM_BY_SUBNET_PREFIX)) {
        for (const id of armIdsOf(key.slice(IPAM_BY_SUBNET_PREFIX.length))) this.mark(this.pendingArm, id);
      } else if (key.startsWith(OPERATIONS_PREFIX)) {
        const op = this.store.get<Operation>(key);
        if (op) for (const id of armIdsOf(op.resourceId)) this.mark(this.pendingArm, id);
      }
    }
  }

  private mark(pending: Map<string, string>, id: string): void {
    pending.set(idKey(id), id);
    this.flushTimer ??= setTimeout(() => this.flush(), COALESCE_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.pendingArm.size === 0 && this.pendingClusters.size === 0) return;
    const data = { arm: [...this.pendingArm.values()].sort(), clusters: [...this.pendingClusters.values()].sort() };
    this.pendingArm.clear();
    this.pendingClusters.clear();
    this.send(`event: change\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private send(text: string): void {
    for (const s of this.streams) if (!s.res.writableEnded) s.res.write(text);
  }
}
