// How many objects a cluster may hold, and all the clusters of one server together. Past the ceiling a create
// is refused as a ResourceQuota refuses one, 403 Forbidden `exceeded quota`, the closest thing a client
// knows: etcd's own answer when full (`mvcc: database space exceeded`) reaches clients as a 500, and aksemu
// answers no 5xx for what a request asked; 403 is final for kubectl and the controllers alike, where a 429
// would be retried forever. Updates and deletes always pass, so a full cluster can be emptied.
//
// Events are counted apart, as large clusters keep them in an etcd of their own (--etcd-servers-overrides):
// a deleted replica bomb leaves its events behind for their hour (--event-ttl), and they must not keep the
// cluster full. The recorder aggregates them (client/events.ts) and drops what does not fit.
//
// The numbers: a pod cost ~7 KB of heap (`npm run bench`) when the limits were first set, ~1.2 KB held Pending since
// pods share their equal parts and are stored compactly (sharing.ts, docs/performance.md §7); an event ~1.5 KB.
// A cluster holds up to 150,000 objects: Kubernetes' own scalability limit of 150,000 pods per cluster, which
// also makes room for what issue 32 asks of one cluster (5,000 nodes, their add-ons' 15,000 pods and 50,000 more;
// at 50,000, the limit before, the add-ons' pods left room for 35,000). The server's 250,000 objects and 250,000
// events over all its clusters stay the bound on memory: Node's default heap on a 24 GiB machine is ~4 GiB (V8 sizes
// it from physical memory), and that, not the machine, is what runs out.
import { type ResourceType, resourceKey } from '../../apimachinery/resources.js';
import { forbidden } from '../../apimachinery/status.js';

type Pool = 'objects' | 'events';

export const CLUSTER_LIMITS: Readonly<Record<Pool, number>> = { objects: 150_000, events: 50_000 };
export const SERVER_LIMITS: Readonly<Record<Pool, number>> = { objects: 250_000, events: 250_000 };

/** Where a kind counts; Nodes come from ARM's node records (bounded by ARM: 5,000 per cluster) and do not. */
const POOLS: Record<string, Pool | undefined> = { '/nodes': undefined, '/events': 'events' };

function poolOf(resource: string): Pool | undefined {
  return Object.hasOwn(POOLS, resource) ? POOLS[resource] : 'objects';
}

const zero = (): Record<Pool, number> => ({ objects: 0, events: 0 });

/** The objects of every cluster of one server. */
export class ObjectBudget {
  readonly used = zero();
  /** Of `used`, rows still to read that may not become objects (ObjectCeiling.unread). */
  readonly doubtful = zero();
  /** The clusters with rows still to read. */
  readonly reading = new Set<ObjectCeiling>();
  constructor(readonly limits: Record<Pool, number> = { ...SERVER_LIMITS }) {}
}

export class ObjectCeiling {
  /** What this cluster holds. */
  readonly count = zero();

  constructor(
    readonly budget: ObjectBudget = new ObjectBudget(),
    readonly limits: Record<Pool, number> = { ...CLUSTER_LIMITS },
  ) {}

  /**
   * Whether one more object of r would pass the cluster's or the server's ceiling (admit would throw), as it would
   * were every restore complete. Rows a restore has still to read count as the objects they hold (unread); when only
   * those that may not become objects (expired, refused) leave the answer open, rows are read, a slice at a time,
   * until it is known: a new Event is judged without the rest of the Events read (docs/performance.md §2.13).
   */
  refuses(r: Pick<ResourceType, 'group' | 'resource'>): boolean {
    const pool = poolOf(resourceKey(r));
    if (pool === undefined) return false;
    for (;;) {
      if (!this.full(pool, 0)) return false;
      if (this.full(pool, 1)) return true;
      if (!this.readSome(pool)) return true;
    }
  }

  /** Whether the cluster or the server holds its limit, counting the rows in doubt (`doubt` 0) or not (1). */
  private full(pool: Pool, doubt: 0 | 1): boolean {
    const { budget } = this;
    return this.count[pool] - doubt * this.doubtful[pool] >= this.limits[pool] || budget.used[pool] - doubt * budget.doubtful[pool] >= budget.limits[pool];
  }

  /** Reads a slice of rows in doubt of the pool, this cluster's first; false when none is left to read. */
  private readSome(pool: Pool): boolean {
    for (const c of [this, ...this.budget.reading]) if (c.doubtful[pool] > 0 && c.reader?.()) return true;
    return false;
  }

  /**
   * Rows of r's kind still to read in a restore (store.ts Restored.later), counted as objects until they are read
   * (negative: read); `doubtful` of them may not become objects (expired, refused). Their objects, when read, are
   * added() as any other.
   */
  unread(resource: string, rows: number, doubtful: number): void {
    const pool = poolOf(resource);
    if (!pool || this.gone) return;
    this.change(resource, rows);
    this.doubtful[pool] += doubtful;
    this.budget.doubtful[pool] += doubtful;
  }

  /** What reads a slice of this cluster's rows still to read (false once none is left), or undefined when none is. */
  reading(reader: (() => boolean) | undefined): void {
    this.reader = reader;
    if (reader) this.budget.reading.add(this);
    else this.budget.reading.delete(this);
  }

  private reader: (() => boolean) | undefined;
  private gone = false;

  /** Whether the cluster's objects left the server (release): nothing of it counts any more. */
  get released(): boolean {
    return this.gone;
  }
  /** Of `count`, rows still to read that may not become objects. */
  private readonly doubtful = zero();

  /** Throws the 403 when one more object of r would pass the cluster's or the server's ceiling. */
  admit(r: Pick<ResourceType, 'group' | 'resource'>, name: string): void {
    const pool = poolOf(resourceKey(r));
    if (!pool || !this.refuses(r)) return;
    const full = (scope: string, used: number, limit: number) =>
      forbidden(
        r.resource,
        r.group,
        name,
        `exceeded quota: ${scope}, requested: count/${pool}=1, used: count/${pool}=${used}, limited: count/${pool}=${limit}`,
      );
    if (this.count[pool] >= this.limits[pool]) throw full('aksemu-cluster-objects', this.count[pool], this.limits[pool]);
    if (this.budget.used[pool] >= this.budget.limits[pool]) throw full('aksemu-server-objects', this.budget.used[pool], this.budget.limits[pool]);
  }

  added(resource: string): void {
    this.change(resource, 1);
  }

  removed(resource: string): void {
    this.change(resource, -1);
  }

  private change(resource: string, by: number): void {
    const pool = poolOf(resource);
    if (!pool || this.gone) return;
    this.count[pool] += by;
    this.budget.used[pool] += by;
  }

  /** The cluster's objects leave the server (its API stops or the cluster is deleted). */
  release(): void {
    this.reading(undefined);
    this.gone = true;
    for (const pool of ['objects', 'events'] as const) {
      this.budget.used[pool] -= this.count[pool];
      this.count[pool] = 0;
      this.budget.doubtful[pool] -= this.doubtful[pool];
      this.doubtful[pool] = 0;
    }
  }
}
