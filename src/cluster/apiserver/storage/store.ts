// One cluster's objects, in memory, with one resourceVersion counter (like etcd's revision) and a window of
// recent changes that watches replay from. Each write bumps the counter and tells the subscribers. With a
// persistence, the objects and the counter are restored at construction and every change is written through.
// New objects count against the cluster's ceiling (ceiling.ts); past it, creates are refused.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { resourceKey, type ResourceType } from '../../apimachinery/resources.js';
import { k8sTime } from '../../apimachinery/time.js';
import { sameJson } from '../../apimachinery/json-equal.js';
import { ObjectCeiling } from './ceiling.js';
import { shareParts } from './sharing.js';
import type { KubeObject, MemberReader } from '../../apimachinery/object.js';
import { Bucket } from './bucket.js';
import { heldMember, pack, packingOf, type Packed, unpacked } from './packing.js';
import { type Change, WatchHistory } from './history.js';

export type { Change, ChangeType } from './history.js';

export interface RestoredObject {
  /** `group/resource`, as ObjectStore keys its buckets. */
  resource: string;
  object: KubeObject;
}

export interface Restored {
  revision: number;
  /** In the order stored, each laid over the one before it of its kind already (sharing.ts shareParts). */
  objects: RestoredObject[];
  /** What writers put on objects of derived kinds (a Node's writtenPart), for their runtime to lay over them. */
  written: RestoredObject[];
  /** Kinds whose rows are read after the rest (persistence.ts): in slices when idle, on a read of the kind, a row for a write. */
  later?: LaterKind[];
}

/** A kind restored after the rest: its rows read, checked and laid over each other as `objects` are. */
export interface LaterKind {
  /** `group/resource`. */
  resource: string;
  /** Rows still to read (a row written since the load is not one). */
  rows: number;
  /** Of `rows`, those that may not become objects (expired, refused): those the count did not judge from their names. */
  doubtful: number;
  /** Whether every row was read (or the read stopped at one that is not JSON). */
  done: boolean;
  /** The next objects restored of it, at most `limit` rows read; undefined once all were read. */
  next(limit: number): RestoredObject[] | undefined;
  /** The object stored under one key, when its row is still to read: a slice will not read that row again. */
  get(namespace: string, name: string): RestoredObject[];
}

/** Rows of a kind restored later read a turn: ~20 ms of Events. */
const LATER_SLICE = 1_000;

/** The late read reads a slice when the event loop was busy at most LATER_BUSY of the LATER_WAIT_MS before. */
const LATER_WAIT_MS = 20;
const LATER_BUSY = 0.5;

/** What the store asks of what keeps it across restarts (persistence.ts): what was there, and each change as made. */
export interface StoreBackend {
  load(): Restored;
  /** `json`, when given, is the change's object as JSON already (the store's copy was made through it). */
  record(change: Change, revision: number, json?: string): void;
}

/**
 * The watch history: at most HISTORY changes and about HISTORY_BYTES of the objects (as JSON) they hold
 * (each change's object and the version before it), whichever comes first; a watch from before it gets 410 Gone and relists,
 * as from the apiserver's watch cache. The bytes matter: a client rewriting a 1.5 MB object would otherwise make
 * 20,000 versions of it stay in memory (issue 25: the process ran out of memory under a fuzz run). A change's
 * object weighs what the API measured (etcd's limit, apiserver/validation/limits.ts), else the length of the store's
 * copy; the version before it is counted at the same weight rather than remembered per object (a table of sizes
 * cost ~105 bytes per held pod: docs/performance.md §7.2). Over a window the sum is the same but for one version's
 * difference per object at its edge: each version is counted twice, as a change's object and as the next one's before.
 */
const HISTORY = 20_000;
// JSON bytes: an object's heap is several times its JSON (a 650-byte pod holds ~5 KB), so this is ~100-200 MB of heap.
const HISTORY_BYTES = 32 * 1024 * 1024;

/** The revision a cluster's objects start from (a restored one goes on from its saved revision when later). */
export const FIRST_REVISION = 1000;

export class ObjectStore {
  private revision: number;
  private readonly objects = new Map<string, Bucket>();
  private readonly history: WatchHistory;
  private readonly listeners = new Set<(change: Change) => void>();
  /** What writers had put on objects of derived kinds before a restart (persistence.ts), by bucket. */
  private restoredWritten: RestoredObject[];
  /** The object last stored in each bucket: a new object shares what it can with it (sharing.ts). */
  private readonly lastPut = new Map<string, KubeObject>();
  /** The object whose change the listeners are hearing of, and its JSON when the write made it (jsonOf). */
  private tellingObject: KubeObject | undefined;
  private tellingJson: string | undefined;

  constructor(
    startRevision = FIRST_REVISION,
    private readonly persistence?: StoreBackend,
    readonly ceiling = new ObjectCeiling(),
  ) {
    const saved = persistence?.load();
    this.restore(saved?.objects ?? []);
    this.restoredWritten = saved?.written ?? [];
    this.revision = Math.max(startRevision, saved?.revision ?? 0);
    // Changes from before a restart are not replayable: older watches get 410 Gone and relist.
    this.history = new WatchHistory(this.revision, HISTORY, HISTORY_BYTES);
    for (const kind of saved?.later ?? []) {
      // A kind with no rows has nothing to read (a new cluster's, or a restart's with no Events).
      if (kind.rows === 0) continue;
      this.later.set(kind.resource, kind);
      ceiling.unread(kind.resource, kind.rows, kind.doubtful);
    }
    if (this.later.size > 0) {
      ceiling.reading(() => this.readSlice());
      this.readLater();
    }
  }

  /**
   * Kinds whose rows are still to read (Restored.later: the Events, which nothing needs to serve): read in slices
   * while the event loop is idle (readLater); the first read of one (a list, a count, keys for paging) reads the rest of it first; a write, or a
   * get, of one object reads that object's row alone. The ceiling counts the rows still to read as the objects they
   * hold, and reads slices when that leaves its answer open. Either way the kind is as a whole restore makes it
   * (docs/performance.md §2.11, §2.13).
   */
  private readonly later = new Map<string, LaterKind>();

  /** The backend laid each restored object over the one before it of its kind (Restored.objects). */
  private restore(objects: readonly RestoredObject[]): void {
    for (const { resource, object } of objects) {
      this.lastPut.set(resource, object);
      this.bucketOf(resource).set(...place(object.metadata.namespace, object.metadata.name), held(resource, object));
      this.ceiling.added(resource);
    }
  }

  /** Reads from a kind still to read (a slice, or one row), the ceiling told of the rows read; false once all were. */
  private readFrom(kind: LaterKind, read: (kind: LaterKind) => RestoredObject[] | undefined): boolean {
    const { rows, doubtful } = kind;
    const objects = read(kind);
    this.ceiling.unread(kind.resource, kind.rows - rows, kind.doubtful - doubtful);
    if (objects) this.restore(objects);
    if (!objects || kind.done) this.laterDone(kind);
    return objects !== undefined && !kind.done;
  }

  /** A slice of the first kind still to read; false when none is left. */
  private readSlice(): boolean {
    const [first] = this.later.values();
    if (!first) return false;
    this.readFrom(first, (k) => k.next(LATER_SLICE));
    return true;
  }

  /**
   * A slice once the event loop has been idle at least half of LATER_WAIT_MS, and the next one after: what a restart
   * does first (the restored pods' resumption, requests) goes first. A read of the kind reads the rest at once, and the
   * recorder's sweep (every minute) is one.
   */
  private readLater(): void {
    const since = performance.eventLoopUtilization();
    setTimeout(() => {
      // The cluster's API stopped (its objects left the server's count): nothing more to read.
      if (this.later.size === 0 || this.ceiling.released) return;
      if (performance.eventLoopUtilization(since).utilization <= LATER_BUSY) this.readSlice();
      if (this.later.size > 0) this.readLater();
    }, LATER_WAIT_MS).unref();
  }

  /**
   * Reads the rest of a kind's rows (its bucket is about to be read), a slice at a time: each slice's objects are held
   * (packed) before the next is parsed, so what the parse leaves dies young.
   */
  private finishKind(kind: LaterKind): void {
    while (this.readFrom(kind, (k) => k.next(LATER_SLICE)));
  }

  private laterDone(kind: LaterKind): void {
    // Rows not read (the read stopped at one that is not JSON) are no longer counted.
    this.ceiling.unread(kind.resource, -kind.rows, -kind.doubtful);
    kind.rows = 0;
    kind.doubtful = 0;
    this.later.delete(kind.resource);
    if (this.later.size === 0) this.ceiling.reading(undefined);
  }

  /** Whether a kind's stored objects are still being read (its first read reads them). */
  restoring(r: Pick<ResourceType, 'group' | 'resource'>): boolean {
    return this.later.has(resourceKey(r));
  }

  /** Hands over (once) what writers had put on the restored objects of one derived kind. */
  takeRestoredWritten(r: Pick<ResourceType, 'group' | 'resource'>): KubeObject[] {
    const key = resourceKey(r);
    const mine = this.restoredWritten.filter((w) => w.resource === key).map((w) => w.object);
    this.restoredWritten = this.restoredWritten.filter((w) => w.resource !== key);
    return mine;
  }

  get resourceVersion(): number {
    return this.revision;
  }

  /** The oldest resourceVersion a watch may start from (older ones are answered 410 Expired). */
  get oldestResourceVersion(): number {
    return this.history.oldest;
  }

  private bucket(r: Pick<ResourceType, 'group' | 'resource'>): Bucket {
    const key = resourceKey(r);
    const later = this.later.size > 0 ? this.later.get(key) : undefined;
    if (later) this.finishKind(later);
    return this.bucketOf(key);
  }

  /** The bucket of r for the object at (namespace, name): that object's row read first, when still to read. */
  private bucketFor(r: Pick<ResourceType, 'group' | 'resource'>, namespace: string, name: string): Bucket {
    const key = resourceKey(r);
    const later = this.later.size > 0 ? this.later.get(key) : undefined;
    if (later) this.readFrom(later, (k) => k.get(namespace, name));
    return this.bucketOf(key);
  }

  private bucketOf(key: string): Bucket {
    let b = this.objects.get(key);
    if (!b) this.objects.set(key, (b = new Bucket()));
    return b;
  }

  /** Objects of one type (in one namespace, when given), in etcd key order. Stored objects: do not modify. */
  list(r: ResourceType, namespace?: string): KubeObject[] {
    return this.bucket(r).list(namespace);
  }

  /**
   * The objects of one type whose members, read in place by test (packing.ts heldMember: a packed object is not
   * unpacked to be tested), pass it; in etcd key order. Stored objects: do not modify.
   */
  select(r: ResourceType, test: (member: MemberReader) => boolean): KubeObject[] {
    return this.bucket(r).select((held) => test((path) => heldMember(held, path)));
  }

  /**
   * The keys (`namespace/name`, `/name` when cluster-scoped) of one type in etcd key order, for paging: made on
   * demand and kept until an object of the type comes or goes (bucket.ts). Do not modify.
   */
  keys(r: Pick<ResourceType, 'group' | 'resource'>): readonly string[] {
    return this.bucket(r).keys();
  }

  /** The object stored under one of keys()'s keys. */
  byKey(r: Pick<ResourceType, 'group' | 'resource'>, key: string): KubeObject | undefined {
    return this.bucket(r).byKey(key);
  }

  /** byKey for one type's many keys (a page of a list reads 500), its bucket found once. */
  byKeyOf(r: Pick<ResourceType, 'group' | 'resource'>): (key: string) => KubeObject | undefined {
    const b = this.bucket(r);
    return (key) => b.byKey(key);
  }

  get(r: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const at = place(r.namespaced ? namespace : undefined, name);
    return this.bucketFor(r, ...at).get(...at);
  }

  count(r: ResourceType): number {
    return this.bucket(r).size;
  }

  /**
   * Writes obj (a copy): new objects get uid, creationTimestamp and generation unless they carry them.
   * Returns the stored object. `onlyIfChanged` skips writes that change nothing but the resourceVersion;
   * `system` marks what the control plane makes for itself at start (namespaces, add-ons), which the ceiling
   * never refuses. `like` is a further neighbour to share with (sharing.ts): what the writer copied from another
   * object, at the places it has in this one (an Event's involvedObject, its pod's name and uid). Throws the
   * ceiling's 403 for a new object past it.
   */
  put(r: ResourceType, obj: KubeObject, opts: { onlyIfChanged?: boolean; system?: boolean; bytes?: number; like?: Record<string, unknown> } = {}): KubeObject {
    const at = place(r.namespaced ? obj.metadata.namespace : undefined, obj.metadata.name);
    const b = this.bucketFor(r, ...at);
    const before = b.held(...at);
    const previous = before && unpacked(before);
    // The version to store, drafted over obj's members (obj itself is the writer's, and unchanged): what the store
    // sets is in place before the copy, so the copy is laid out once with every member.
    const metadata = { ...obj.metadata };
    const draft = { ...obj, metadata } as KubeObject;
    draft.apiVersion = r.group === '' ? r.version : `${r.group}/${r.version}`;
    draft.kind = r.kind;
    if (previous) {
      metadata.uid = previous.metadata.uid;
      metadata.creationTimestamp = previous.metadata.creationTimestamp;
      if (opts.onlyIfChanged && sameExceptVersion(previous, draft)) return previous;
    } else {
      if (!opts.system) this.ceiling.admit(r, obj.metadata.name);
      metadata.uid ??= newUid();
      metadata.creationTimestamp ??= k8sTime(Date.now());
    }
    metadata.resourceVersion = String(++this.revision);
    // The copy goes through JSON rather than clone(): the same object (stored objects are JSON: they persist and
    // serve as JSON), but V8 lays out what JSON.parse makes compactly (members in the object, arrays at their length),
    // about a third less heap per held object than a structured clone (docs/performance.md §7).
    const text = JSON.stringify(draft);
    const next = JSON.parse(text) as KubeObject;
    const last = this.lastPut.get(resourceKey(r));
    shareParts(next, previous ?? last, previous ? last : undefined, opts.like);
    this.lastPut.set(resourceKey(r), next);
    const kept = held(resourceKey(r), next);
    // Held under the stored copy's own strings (an update's are its version before's: sharing.ts).
    b.set(...place(r.namespaced ? next.metadata.namespace : undefined, next.metadata.name), kept);
    if (!previous) this.ceiling.added(resourceKey(r));
    const change: Change = {
      rv: this.revision,
      type: previous ? 'MODIFIED' : 'ADDED',
      resource: resourceKey(r),
      object: next,
      ...(previous ? { previous } : {}),
    };
    this.record(change, (opts.bytes ?? text.length) * (previous ? 2 : 1), text, kept, before);
    return next;
  }

  /**
   * Writes obj only when no object of that name exists (bootstrap after a restart adds only what is missing).
   * Returns the stored object and whether it was created now.
   */
  putIfAbsent(r: ResourceType, obj: KubeObject): { object: KubeObject; created: boolean } {
    const existing = this.get(r, obj.metadata.namespace, obj.metadata.name);
    if (existing) return { object: existing, created: false };
    return { object: this.put(r, obj, { system: true }), created: true };
  }

  delete(r: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const at = place(r.namespaced ? namespace : undefined, name);
    const b = this.bucketFor(r, ...at);
    const before = b.held(...at);
    if (!before) return undefined;
    const previous = unpacked(before);
    b.delete(...at);
    this.ceiling.removed(resourceKey(r));
    // Copied through JSON, as put does (stored objects are JSON): the copy's length weighs the change.
    const text = JSON.stringify(previous);
    const gone = JSON.parse(text) as KubeObject;
    gone.metadata.resourceVersion = String(++this.revision);
    const change: Change = { rv: this.revision, type: 'DELETED', resource: resourceKey(r), object: gone, previous };
    this.record(change, 2 * text.length, undefined, before === previous ? gone : held(resourceKey(r), gone), before);
    return gone;
  }

  /**
   * weight: the change's object and the version before it (which outlives its own entry once that is trimmed).
   * `json`: the object's JSON when the write made it (shareParts keeps members and their order: it is the stored
   * object's too), which the write-behind saves as it is. `kept` and `keptBefore`: what the bucket holds of the
   * change's two versions (packed when their kind is), which the history holds.
   */
  private record(change: Change, weight: number, json: string | undefined, kept: KubeObject | Packed, keptBefore: KubeObject | Packed | undefined): void {
    this.history.add(change, weight, kept, keptBefore);
    this.persistence?.record(change, this.revision, json);
    // The change is made: every listener hears of it, even when one of them fails. A listener that writes has
    // the store tell that change first (nested), so what jsonOf knows is put back after.
    const object = this.tellingObject;
    const text = this.tellingJson;
    const told = this.history.telling;
    this.tellingObject = change.object;
    this.tellingJson = json;
    this.history.telling = change;
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (e) {
        process.stderr.write(
          `cluster objects: a listener failed on ${change.type} ${change.resource} ${change.object.metadata.name}: ${(e as Error).stack ?? e}\n`,
        );
      }
    }
    this.tellingObject = object;
    this.tellingJson = text;
    this.history.telling = told;
  }

  /**
   * The JSON of obj while the store tells its change, when the write made it (as record's `json`): a watch's line
   * reuses it instead of serializing the object again (watch-stream.ts). Undefined for any other object.
   */
  jsonOf(obj: KubeObject): string | undefined {
    return obj === this.tellingObject ? this.tellingJson : undefined;
  }

  /** Changes to one type after rv, or 'gone' when they are no longer all known. */
  since(r: ResourceType, rv: number): Change[] | 'gone' {
    return this.history.since(resourceKey(r), rv);
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The first index of sorted keys whose key is greater than (or, with orEqual, equal to) key. */
export function keyIndex(keys: readonly string[], key: string, orEqual = true): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < key || (!orEqual && keys[mid] === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The range of sorted keys that begin with prefix. */
export function keyRange(keys: readonly string[], prefix: string): [number, number] {
  // Every key with the prefix sorts before the prefix followed by the highest code unit.
  return [keyIndex(keys, prefix), keyIndex(keys, `${prefix}\uffff`)];
}

/** Where a bucket holds an object: its namespace ('' when cluster-scoped) and name, as objectKey joins them. */
function place(namespace: string | undefined, name: string): [string, string] {
  return [String(namespace ?? ''), String(name)];
}

/**
 * A random (version 4) UUID as one flat string: randomUUID() returns a tree of its 20 pieces, ~480 bytes until V8
 * flattens it on first comparison, and 32 bytes more after (held by every object: docs/performance.md §7).
 */
function newUid(): string {
  const u = randomUUID();
  return [u.slice(0, 8), u.slice(9, 13), u.slice(14, 18), u.slice(19, 23), u.slice(24)].join('-');
}

/** What a bucket holds of a stored object: the object, or it packed when its kind is (packing.ts). */
function held(bucket: string, obj: KubeObject): KubeObject | Packed {
  const packing = packingOf(bucket);
  return (packing && pack(obj, packing)) ?? obj;
}

/** Whether a and b serialize alike but for their resourceVersion (compared member by member: sameJson). */
function sameExceptVersion(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return sameJson(strip(a), strip(b));
}
