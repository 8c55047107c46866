// Writes one cluster's API objects through to the Store so they survive a restart, and reads them back.
// Keys are `aksemu:k8s<cluster id>/<group>/<resource>/<namespace>/<name>` (empty group for core, empty namespace
// for cluster-scoped kinds), and `aksemu:k8s<cluster id>` holds the revision counter so resourceVersions keep
// growing across restarts. Writes are queued and flushed in one store transaction per event-loop turn, or sooner
// once their JSON passes FLUSH_BYTES: a burst of API writes costs a commit per turn or per FLUSH_BYTES, and a crash
// loses at most the last turn (the last few, under a burst of more than FLUSH_SLICE writes).
import type { Store } from '../../../store/store.js';
import { behaviourOfKey } from '../kinds.js';
import { RESOURCES, type ResourceType } from '../../apimachinery/resources.js';
import { namedObject, storedProblem } from '../validation/object.js';
import { layOverChecked } from './sharing.js';
import { kindShape, type Shape } from '../validation/shape.js';
import { MAX_DEPTH } from '../validation/limits.js';
import { idleCompaction } from './idle-compaction.js';
import { turns } from '../../apimachinery/turns.js';
import { performance } from 'node:perf_hooks';
import { deletionDue, objectKey, type KubeObject } from '../../apimachinery/object.js';
import type { Change, LaterKind, Restored, RestoredObject, StoreBackend } from './store.js';

import { K8S_OBJECTS_PREFIX as PREFIX } from '../../../store/keys.js';
import { idKey } from '../../../ids/compare.js';
import { storedBucketOf } from '../crd/definition.js';

const CRD_BUCKET = 'apiextensions.k8s.io/customresourcedefinitions';

/** The buckets of the stored CRDs' objects, as types to check restored objects against (any kind's shape). */
function customTypes(crds: unknown[]): Map<string, ResourceType> {
  const out = new Map<string, ResourceType>();
  for (const crd of crds) {
    const b = storedBucketOf(crd);
    if (b) out.set(`${b.group}/${b.resource}`, { group: b.group, version: '', resource: b.resource, singular: '', kind: '', namespaced: b.namespaced });
  }
  return out;
}

/**
 * Kinds a restore reads after the others: nothing the cluster serves or starts with needs them (the runtime's start
 * reads no Event), and they are many rows (a restart within the hour holds 50,000 Events; after it, every one of them
 * is read to be dropped). The store reads them in slices after serving, all that is left at the first read of the
 * kind, and one by its key for a write (store.ts Restored.later; docs/performance.md §2.11, §2.13).
 */
const LATER = '/events';

/** Whether a key ends in a tail not below `tail` (as SqliteStore's countTail compares them: lower-cased). */
function recentKey(key: string, tail: string): boolean {
  const end = idKey(key.slice(-tail.length));
  return end[0] === tail[0] && end >= idKey(tail);
}

/** Rows read a turn by preload(): ~50 ms of a restart's parsing and checks, between which the server answers. */
const PRELOAD_SLICE = 1_000;

/** Writes per transaction when a burst queued more (a replica bomb's thousands): the rest go on later turns. */
const FLUSH_SLICE = 2_000;

/**
 * The queued JSON past which a write flushes the queue in its own turn: what waits for the next turn lives through
 * the turn's scavenges and is promoted, and a burst's turn (hundreds of writes) left most of V8's old-space slack
 * after it (docs/performance.md §7.5). ~150 pods' writes a transaction instead of a turn's.
 */
const FLUSH_BYTES = 256 * 1024;

/** How long queued writes wait for the runtime's catch-up to pause before they are written anyway. */
const CATCH_UP_WAIT_MS = 200;

/** A stored row under another name than its object's: the restored store would hold it elsewhere in key order. */
class OutOfPlace extends Error {
  constructor(key: string) {
    super(`stored object ${key} is not under its own name`);
  }
}

export function objectsKey(clusterId: string): string {
  return `${PREFIX}${clusterId.toLowerCase()}`;
}

/** Removes every persisted object of a cluster and its revision counter. */
export function forgetObjects(store: Store, clusterId: string): void {
  store.transaction(() => {
    store.deletePrefix(`${objectsKey(clusterId)}/`);
    store.delete(objectsKey(clusterId));
  });
}

/** A kind of stored rows, as a restore takes them: its keys' prefix, its bucket and what it is served as. */
interface StoredKind {
  prefix: string;
  bucket: string;
  type: ResourceType | undefined;
  /** Its kind's shape, the restore's walk checks against (validation/shape.ts). */
  shape: Shape | undefined;
  derived: boolean;
}

interface RevisionRecord {
  revision: number;
}

export class ObjectPersistence implements StoreBackend {
  /**
   * Key → object to write (or its JSON, when the store's write made it: not serialized twice), or null to delete;
   * the last change of a turn wins.
   */
  private pending = new Map<string, KubeObject | string | null>();
  /**
   * Rows the load dropped (deletion due, expired: a late restart's 50,000 Events), deleted FLUSH_SLICE a flush after
   * what the API wrote, so that they never hold its writes back (docs/performance.md §2.5). A key written again
   * leaves the set: its new row stays.
   */
  private readonly dropped = new Set<string>();
  private revision: number | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private closed = false;
  /** The length of the JSON queued since the last flush (an object queued as itself counts 1 KiB). */
  private queuedBytes = 0;
  /** When the oldest write now queued was first due to flush (performance.now()). */
  private queuedSince: number | undefined;

  constructor(
    private readonly store: Store,
    readonly clusterId: string,
    private readonly log: (line: string) => void = () => {},
    /**
     * Objects that went while the server was down (an Event past the apiserver's --event-ttl): load() removes them
     * as it removes those whose deletion was due, rather than restoring them for their first sweep to delete.
     */
    private readonly expired: (resource: string, obj: KubeObject) => boolean = () => false,
    /**
     * The lowest tail of the name of an object of the kind read later that is not expired when its name ends in one
     * (client/events.ts recentEventTail): such rows are counted as objects they hold, before they are read.
     */
    private readonly recentTail?: string,
  ) {}

  private get root(): string {
    return objectsKey(this.clusterId);
  }

  private keyOf(resource: string, obj: KubeObject): string {
    return `${this.root}/${resource}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
  }

  /**
   * What was saved. Objects that were being deleted gracefully (deletionTimestamp, no finalizers) are dropped
   * and their entries removed: the timer that would have finished the deletion died with the old process.
   * An entry the API would have refused to store (written before it validated, or damaged) is skipped with a
   * log line and left in place: one bad object must not keep the cluster's API down.
   *
   * Each object comes laid over the one restored before it of its kind (sharing.ts), as the store lays each write:
   * the parts they share were checked with that one, at the same place in an object of the same kind, so only the
   * rest of each is checked, in the same walk (a pod restored after its ReplicaSet sibling: its own metadata and
   * status).
   */
  load(): Restored {
    let restored = this.preloaded;
    this.preloaded = undefined;
    if (!restored) {
      const restore = this.restorer();
      this.store.each<KubeObject>(`${this.root}/`, { skip: this.laterPrefix }, restore.take);
      restored = { ...restore.done(), later: [this.later()] };
    }
    // The rows of objects dropped (deletion due, expired) go once the store is the restored one.
    if (this.pending.size > 0 || this.dropped.size > 0) this.schedule();
    return restored;
  }

  /** What preload() read, for load() to hand over. */
  private preloaded: Restored | undefined;

  /**
   * Reads what was saved as load() does, `slice` rows a turn, so that the server answers other requests between the
   * slices (a restart of 76,000 rows is seconds of it); load() then hands it over. False when `stopped()` turned true
   * between two slices: nothing is kept. Nothing else writes this cluster's rows while its API is not up.
   */
  async preload(stopped: () => boolean, slice = PRELOAD_SLICE): Promise<boolean> {
    const restore = this.restorer();
    let after: string | undefined;
    // Each row taken as it is parsed: what the share and the checks leave of it dies young.
    const take = (key: string, value: KubeObject) => {
      after = key;
      restore.take(key, value);
    };
    const skip = this.laterPrefix;
    for (;;) {
      if (this.store.each<KubeObject>(`${this.root}/`, { limit: slice, skip, ...(after === undefined ? {} : { after }) }, take) < slice) break;
      await new Promise((resolve) => setImmediate(resolve));
      if (stopped()) return false;
    }
    this.preloaded = { ...restore.done(), later: [this.later()] };
    return true;
  }

  /** The keys' prefix of the kind read later. */
  private get laterPrefix(): string {
    return `${this.root}/${LATER}/`;
  }

  /**
   * The kind read later, read as load() reads the rest: checked, laid over the one before, dropped when due or
   * expired, a refused row logged. Its rows are read in key order, a slice at a time (next), or one by its key (get:
   * what a write of one object of the kind needs). A key read by get, or written since (always after its get: the
   * store reads one before it writes it), is not read again by a slice. Nothing is read once the persistence is
   * closed.
   */
  private later(): LaterKind {
    const prefix = this.laterPrefix;
    const tail = this.recentTail;
    // The rows counted without reading them: those whose names say they are recent are restored (unless damaged).
    const counted = tail === undefined ? { keys: this.store.count(prefix), atLeast: 0 } : this.store.countTail(prefix, tail);
    let restore: ReturnType<ObjectPersistence['restorer']> | undefined;
    /** The last key a slice read (lower-cased, as keys compare). */
    let after: string | undefined;
    const got = new Set<string>();
    const kind: LaterKind = {
      resource: LATER,
      done: false,
      rows: counted.keys,
      doubtful: counted.keys - counted.atLeast,
      next: (limit: number) => {
        if (kind.done || this.closed) return undefined;
        let from: string | undefined = after;
        const take = (key: string, value: KubeObject) => {
          from = key;
          if (!got.has(idKey(key))) read(key, value);
        };
        try {
          restore ??= this.restorer();
          kind.done = this.store.each<KubeObject>(prefix, { limit, ...(from === undefined ? {} : { after: from }) }, take) < limit;
        } catch (e) {
          // A row whose text is not JSON, or the store closed under it: what was read stays, and the rest is not read.
          this.log(`cluster ${this.clusterId}: stored ${LATER} after ${from ?? 'the first'} could not be read: ${(e as Error).message.slice(0, 300)}`);
          kind.done = true;
        }
        after = from === undefined ? undefined : idKey(from);
        if (this.dropped.size > 0) this.schedule();
        return restore?.taken() ?? [];
      },
      get: (namespace: string, name: string) => {
        const key = `${prefix}${namespace}/${name}`;
        const k = idKey(key);
        if (kind.done || this.closed || got.has(k) || (after !== undefined && k <= after)) return [];
        got.add(k);
        restore ??= this.restorer();
        try {
          const value = this.store.get<KubeObject>(key);
          if (value !== undefined) read(key, value);
        } catch (e) {
          this.log(`cluster ${this.clusterId}: stored ${key} could not be read: ${(e as Error).message.slice(0, 300)}`);
          kind.rows--;
        }
        if (this.dropped.size > 0) this.schedule();
        return restore.taken();
      },
    };
    const read = (key: string, value: KubeObject) => {
      kind.rows--;
      if (tail === undefined || !recentKey(key, tail)) kind.doubtful--;
      restore!.take(key, value);
    };
    return kind;
  }

  /**
   * One kind's objects as load() restores them, in key order: the rows under `bucket`/`within` (a namespace's `ns/`,
   * or '' for all) after `after` (a `namespace/name`), read `slice` at a time and checked as the restore checks them,
   * without its log lines (the load logs each refusal once). What a page of a list is read from while the load runs
   * (loading-lists.ts): nothing writes the cluster's rows meanwhile. Yields each one's `namespace/name`; a row
   * stored under another name than its own, which the store would list elsewhere, throws `OutOfPlace`. `revision`:
   * the saved revision, which the restored store goes on from.
   */
  stored(bucket: string, within: string, after: string | undefined, slice: number): Iterator<[string, KubeObject]> & { revision: number } {
    const quiet = new ObjectPersistence(this.store, this.clusterId, () => {}, this.expired, this.recentTail);
    return Object.assign(quiet.rows(bucket, within, after, slice), { revision: this.savedRevision() });
  }

  private *rows(bucket: string, within: string, after: string | undefined, slice: number): Generator<[string, KubeObject]> {
    const base = `${this.root}/${bucket}/`;
    let from = after === undefined || after < within ? undefined : `${base}${after}`;
    // The stored CRDs, read once for every slice's restorer.
    const custom = this.customTypes();
    for (;;) {
      const rows = this.store.list<KubeObject>(`${base}${within}`, { limit: slice, ...(from === undefined ? {} : { after: from }) });
      const restore = this.restorer(custom);
      for (const { key, value } of rows) {
        if (namedObject(value) && key.slice(base.length) !== objectKey(value.metadata.namespace, value.metadata.name)) throw new OutOfPlace(key);
        restore.take(key, value);
      }
      for (const { object } of restore.done().objects) yield [objectKey(object.metadata.namespace, object.metadata.name), object];
      if (rows.length < slice) return;
      from = rows.at(-1)!.key;
    }
  }

  /** How many rows of a kind follow `after` (a `namespace/name`) under `within`, none of them read. */
  countAfter(bucket: string, within: string, after: string): number {
    const base = `${this.root}/${bucket}/`;
    return this.store.count(`${base}${within}`, after < within ? {} : { after: `${base}${after}` });
  }

  /** The revision saved with the rows: what the restored store goes on from. */
  private savedRevision(): number {
    return Number(this.store.get<RevisionRecord>(this.root)?.revision) || 0;
  }

  /** Custom resources are served again when their CRD is: the stored CRDs say which buckets are theirs. */
  private customTypes(): Map<string, ResourceType> {
    return customTypes(this.store.list<KubeObject>(`${this.root}/${CRD_BUCKET}/`).map((e) => e.value));
  }

  /** One restore's state: each stored row taken in key order, then what it gives. */
  private restorer(custom = this.customTypes()): { take(key: string, value: KubeObject): void; done(): Restored; taken(): RestoredObject[] } {
    const revision = this.savedRevision();
    const objects: RestoredObject[] = [];
    const written: RestoredObject[] = [];
    /** The object last restored of each kind: the next is laid over it. */
    const last = new Map<string, KubeObject>();
    /** The kind of the row before: rows come in key order, each kind's together, so most rows are of the one before's. */
    let kind: StoredKind | undefined;
    const kindOf = (key: string): StoredKind | undefined => {
      if (kind !== undefined && key.startsWith(kind.prefix)) return kind;
      // <group>/<resource>/<namespace>/<name>: names and groups hold no '/'.
      const [group, resource] = key.slice(this.root.length + 1).split('/', 2);
      if (resource === undefined) return undefined;
      const bucket = `${group}/${resource}`;
      const type = RESOURCES.find((r) => r.group === group && r.resource === resource) ?? custom.get(bucket);
      const derived = behaviourOfKey(bucket)?.storage === 'derived';
      return (kind = { prefix: `${this.root}/${bucket}/`, bucket, type, shape: type && kindShape(type.kind), derived });
    };
    const take = (key: string, value: KubeObject) => {
      const of = kindOf(key);
      if (of === undefined) return;
      const { bucket, type, derived } = of;
      // Laid over a checked neighbour and checked in the same walk (what fails it is checked again whole, for the
      // apiserver's message); were it refused, it is dropped, and the neighbour's parts it took are unchanged (shared
      // parts are frozen).
      const neighbour = derived ? undefined : last.get(bucket);
      const walked = of.shape !== undefined && neighbour !== undefined && namedObject(value) && layOverChecked(value, neighbour, of.shape, MAX_DEPTH);
      const problem = type ? storedProblem(type, value, walked, walked && neighbour ? neighbour.metadata : undefined) : `no resource ${bucket} is served`;
      if (problem !== undefined) {
        this.log(`cluster ${this.clusterId}: skipped stored object ${key}: ${problem.slice(0, 300)}`);
        return;
      }
      if (derived) written.push({ resource: bucket, object: value });
      else if (deletionDue(value) || this.expired(bucket, value)) this.dropped.add(key);
      else {
        objects.push({ resource: bucket, object: value });
        last.set(bucket, value);
      }
    };
    return { take, done: () => ({ revision, objects, written }), taken: () => objects.splice(0) };
  }

  /** Queues one change of the ObjectStore; `revision` is the store's counter after it. */
  record(change: Change, revision: number, json?: string): void {
    if (this.closed) return;
    this.revision = revision;
    idleCompaction.noteWrite(json?.length ?? 0);
    // Derived kinds (Nodes, from the provider's node records) are made again on every start; what writers put
    // on them is kept apart (keepWritten). Nothing of theirs is queued, so their JSON does not count towards a flush
    // (counted, a restart's nodes flushed the dropped rows inside the runtime's start).
    if (behaviourOfKey(change.resource)?.storage === 'derived') return this.schedule();
    const key = this.keyOf(change.resource, change.object);
    this.dropped.delete(key);
    this.pending.set(key, change.type === 'DELETED' ? null : (json ?? change.object));
    this.queuedBytes += json?.length ?? 1024;
    // Not inside a writer's open transaction: its rollback would take these writes with it.
    if (this.queuedBytes >= FLUSH_BYTES && this.store.inTransaction !== true) this.flush(FLUSH_SLICE);
    else this.schedule();
  }

  /**
   * Queues what writers put on an object of a derived kind (`written`, a partial object), or its removal (null):
   * load() hands it back apart from the objects.
   */
  keepWritten(resource: string, name: string, written: KubeObject | null): void {
    if (this.closed) return;
    this.pending.set(`${this.root}/${resource}//${name}`, written);
    this.schedule();
  }

  private schedule(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      // While the runtime catches up in bounded turns (apimachinery/turns.ts), a transaction per short turn would
      // cost more than the turns save: the queue waits for its size, the runtime's idle turn, or CATCH_UP_WAIT_MS.
      this.queuedSince ??= performance.now();
      if (turns.behind() && performance.now() - this.queuedSince < CATCH_UP_WAIT_MS) return this.schedule();
      this.flush(FLUSH_SLICE);
    });
  }

  /**
   * Writes what is queued (at most `limit` entries, the oldest first, the rest on the next turn), then deletes at
   * most `limit` of the rows the load dropped, in one transaction. The revision counter is written with the last of
   * the queued entries.
   */
  flush(limit = Infinity): void {
    if (this.closed || (this.pending.size === 0 && this.revision === undefined && this.dropped.size === 0)) return;
    let batch = this.pending;
    if (this.pending.size > limit) {
      batch = new Map();
      for (const [key, obj] of this.pending) {
        if (batch.size === limit) break;
        batch.set(key, obj);
      }
      for (const key of batch.keys()) this.pending.delete(key);
      this.schedule();
    } else this.pending = new Map();
    this.queuedBytes = 0;
    this.queuedSince = undefined;
    const revision = this.pending.size === 0 ? this.revision : undefined;
    if (this.pending.size === 0) this.revision = undefined;
    const gone: string[] = [];
    for (const key of this.dropped) {
      if (gone.length === limit) break;
      gone.push(key);
    }
    for (const key of gone) this.dropped.delete(key);
    if (this.dropped.size > 0) this.schedule();
    this.store.transaction(() => {
      for (const [key, obj] of batch) {
        if (obj === null) this.store.delete(key);
        else if (typeof obj === 'string') this.store.putJson(key, obj);
        else this.store.put(key, obj);
      }
      for (const key of gone) this.store.delete(key);
      if (revision !== undefined) this.store.put(this.root, { revision } satisfies RevisionRecord);
    });
  }

  /** The server is stopping: write what is queued, and nothing after. */
  close(): void {
    this.flush();
    this.stop();
  }

  /** The cluster is gone: drop what is queued, and remove what was saved. */
  destroy(): void {
    this.stop();
    this.pending.clear();
    this.dropped.clear();
    forgetObjects(this.store, this.clusterId);
  }

  private stop(): void {
    this.closed = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }
}
