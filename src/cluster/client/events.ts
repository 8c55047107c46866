// Events as the cluster's components post them. The kubelet and kube-controller-manager use the core/v1
// recorder (source, first/lastTimestamp, count); kube-scheduler uses events.k8s.io (eventTime, action,
// reportingController, and a series when the same event repeats). Repeats update the one Event, as the
// recorders' aggregation does, instead of piling up new ones; past ten different messages of one reason for
// one object within ten minutes, the rest share one "(combined from similar events)" Event, as client-go's
// EventAggregator does (a ReplicaSet creating a thousand pods posts eleven Events, not a thousand). Events are
// best effort: one the cluster refuses (it is full: apiserver/storage/ceiling.ts) is dropped, as the recorders drop them.
import { hostname } from 'node:os';
import { type KubeObject, memberAt, type MemberReader } from '../apimachinery/object.js';
import type { Event } from '../apimachinery/types.js';
import type { ObjectStore } from '../apiserver/index.js';
import { k8sTime, microTime } from '../apimachinery/time.js';
import { EVENTS } from '../apimachinery/resources.js';
import { CompactMap } from '../apimachinery/compact-map.js';

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** The reporting component: kubelet, default-scheduler, deployment-controller… */
  component: string;
  /** The node, for kubelet events. */
  host?: string;
  fieldPath?: string;
  /** events.k8s.io style (the scheduler): the action taken. */
  action?: string;
}

export const EVENT_TTL_MS = 60 * 60 * 1000;

/** Where an event says when it was last seen, the first of them set. */
const LAST_SEEN = [['series', 'lastObservedTime'], ['lastTimestamp'], ['eventTime'], ['metadata', 'creationTimestamp']] as const;

/**
 * Whether an event was last seen more than `ttlMs` before `now`: its time in etcd is over. The event is given as its
 * member reader (the store's select reads a held Event's members in place) or as itself.
 */
export function eventExpired(e: Event | MemberReader, now = Date.now(), ttlMs = EVENT_TTL_MS): boolean {
  const member: MemberReader = typeof e === 'function' ? e : (path) => memberAt(e, path);
  let seen: unknown = '';
  for (const path of LAST_SEEN) if ((seen = member(path))) break;
  const last = Date.parse((seen || '') as string);
  return Number.isFinite(last) && now - last > ttlMs;
}

/**
 * The lowest tail of the name of an Event that cannot have expired at `now`, when the recorders named it
 * (`<object>.<unix nanoseconds in hex>`: eventName, as client-go names them): made at most ttlMs - 2 s before now. Its
 * last time seen is no earlier than a second before it was made (lastTimestamp is in whole seconds). A restart counts
 * the Events it has still to read by their names (apiserver/storage/persistence.ts; docs/performance.md §2.13).
 */
export function recentEventTail(now = Date.now(), ttlMs = EVENT_TTL_MS): string {
  return `.${(BigInt(Math.max(0, now - ttlMs + 2000)) * 1_000_000n).toString(16).padStart(16, '0')}`;
}

export const SCHEDULER_INSTANCE = `default-scheduler-${hostname()}`;

/** client-go's EventAggregator: distinct messages per object and reason before they are combined, and when. */
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * One aggregation key of one object: its distinct messages lately (oldest first, at most ten; one message is held as
 * itself, not in a list) and when last seen (ms since SINCE: a small integer, held in the record rather than as a
 * number object of its own).
 */
interface Similar {
  key: string;
  messages: Few<string>;
  last: number;
}

const SINCE = Date.now();

/**
 * now as Similar.last: the same number, made a small integer (a Smi, held in the record) when it is one of 32 bits
 * (the first 24 days after the module loaded). A difference of two times is computed as a float, and one float
 * stored made V8 box the member in a number object of its own in every record (16 bytes per pod with an Event:
 * docs/performance.md §7.3).
 */
function since(now: number): number {
  const t = now - SINCE;
  return t === (t | 0) ? t | 0 : t;
}

/** One Event posted for one object: its key and name (its namespace is the object's). */
interface Posted {
  postedKey: string;
  name: string;
}

/** An object's aggregation records and Events past its first of each: one record or, past one, a list. */
interface More {
  similar: Few<Similar> | undefined;
  posted: Few<Posted> | undefined;
}

/**
 * What the recorder remembers of one object, held for every pod that has an Event: its first aggregation record and
 * its first Event in one record (a pod the scheduler cannot place has one of each), any more beside it (a record
 * of each and one holding them cost ~55 bytes more per pod: docs/performance.md §7.2). postedKey '' is none yet.
 */
interface Memory extends Similar, Posted {
  more: More | undefined;
}

type Few<T> = T | T[];

/** The aggregation key of an event as posted: what it is of which component, on which host. */
function similarKey(fieldPath: string | undefined, type: string, reason: string, component: string, host: string | undefined): string {
  return intern([fieldPath ?? '', type, reason, component, host ?? ''].join('\u0000'));
}

/** The key of the Event that carries an event (its message, or '(combined)'). */
function postedKey(fieldPath: string | undefined, type: string, reason: string, message: string, component: string, host: string | undefined): string {
  return intern([fieldPath ?? '', type, reason, message, component, host ?? ''].join('\u0000'));
}

/**
 * The memory an Event stands for: its aggregation record (its message, when it was last seen) and itself as the one
 * Event posted, read back from what it holds. Undefined when it does not say (not one this recorder posts).
 */
function rememberedBy(ev: Event): Memory | undefined {
  const scheduler = ev.action !== undefined;
  const component = scheduler ? ev.reportingComponent : ev.source?.component;
  const seen = Date.parse((scheduler ? (ev.series?.lastObservedTime ?? ev.eventTime) : ev.lastTimestamp) ?? '');
  if (typeof component !== 'string' || typeof ev.message !== 'string' || !Number.isFinite(seen)) return undefined;
  const fieldPath = ev.involvedObject?.fieldPath;
  const host = scheduler ? undefined : ev.source?.host;
  return {
    key: similarKey(fieldPath, ev.type ?? '', ev.reason ?? '', component, host),
    messages: intern(ev.message),
    last: since(seen),
    postedKey: postedKey(fieldPath, ev.type ?? '', ev.reason ?? '', ev.message, component, host),
    name: ev.metadata.name,
    more: undefined,
  };
}

function findIn<T>(few: Few<T> | undefined, match: (x: T) => boolean): T | undefined {
  if (few === undefined) return undefined;
  if (Array.isArray(few)) return few.find(match);
  return match(few) ? few : undefined;
}

function similarIn(mine: Memory, key: string): Similar | undefined {
  return mine.key === key ? mine : findIn(mine.more?.similar, (x) => x.key === key);
}

function postedIn(mine: Memory, key: string): Posted | undefined {
  return mine.postedKey === key ? mine : findIn(mine.more?.posted, (x) => x.postedKey === key);
}

function withAdded<T>(few: Few<T> | undefined, item: T): Few<T> {
  if (few === undefined) return item;
  if (!Array.isArray(few)) return [few, item];
  few.push(item);
  return few;
}

/**
 * The one copy of a recurring key or message: thousands of pods the scheduler cannot place carry the same message
 * and keys, and the recorder holds them for every pod (docs/performance.md §7). Bounded: cleared when full.
 */
const INTERNED_MAX = 4096;
const interned = new Map<string, string>();
function intern(s: string): string {
  const known = interned.get(s);
  if (known !== undefined) return known;
  if (interned.size >= INTERNED_MAX) interned.clear();
  interned.set(s, s);
  return s;
}

let sequence = 0n;

/** The recorders name events `<object>.<unix nanoseconds in hex>`. */
function eventName(object: string): string {
  sequence = (sequence + 1n) % 1_000_000n;
  return `${object}.${(BigInt(Date.now()) * 1_000_000n + sequence).toString(16)}`;
}

export class EventRecorder {
  /**
   * Per involved object uid: (type, reason, component, host) → the distinct messages seen lately, and aggregation
   * key → the Event that carries it. An object whose memory is one Event and what that Event says (its message,
   * when last seen: the scheduler's one event per pod) is held as the Event's name, the string the store holds
   * anyway, instead of a record (72 bytes per pod: docs/performance.md §7.4). Should that Event be gone (deleted, or
   * expired an hour after it was last seen), so is the memory, as client-go's LRU cache of 4,096 objects forgets.
   * A CompactMap: a Map's table cost 46 bytes per pod (docs/performance.md §7.7).
   */
  private readonly memory = new CompactMap<Memory | string>();
  /** The Event a memory held as its name was read from, while record() runs: post() updates it without a second read. */
  private recalled: KubeObject | undefined;
  /** Combined Events' repeats not yet written, by `namespace/name` (fold()). */
  private readonly folded = new Map<string, { namespace: string; name: string; message: string; times: number; now: number }>();

  constructor(private readonly objects: ObjectStore) {}

  record(involved: KubeObject, spec: EventSpec, now = Date.now()): void {
    try {
      this.post(involved, this.aggregate(involved, spec, now), now);
    } catch {
      // The cluster refused it (full): dropped.
    } finally {
      this.recalled = undefined;
    }
  }

  /** The memory of one object, as a record (made from its Event when it is held as the Event's name). */
  private recall(uid: string, namespace: string): Memory | undefined {
    const mine = this.memory.get(uid);
    if (typeof mine !== 'string') return mine;
    const ev = this.objects.get(EVENTS, namespace, mine) as Event | undefined;
    this.recalled = ev;
    const made = ev && rememberedBy(ev);
    if (made) this.memory.set(uid, made);
    else this.memory.delete(uid);
    return made;
  }

  /**
   * Holds the memory as the name of the Event just stored for `e` (`ev`) when that Event says all of it: the memory is
   * one aggregation record and that one Event (so both are e's), and the Event is the scheduler's kind (action set),
   * which holds e's component and no host, and the time of this occurrence to the millisecond (its eventTime or
   * series.lastObservedTime: now). rememberedBy(ev) then gives this memory again. (The core kind's lastTimestamp is
   * in whole seconds: its memory stays a record.)
   */
  private settle(uid: string, mine: Memory, ev: KubeObject, e: EventSpec & { combined?: boolean }): void {
    if (!e.action || e.host || e.combined || mine.more || Array.isArray(mine.messages) || mine.name !== ev.metadata.name) return;
    this.memory.set(uid, ev.metadata.name);
  }

  /** The event as EventAggregator passes it on: as it is, or combined with its similar ones. */
  private aggregate(involved: KubeObject, e: EventSpec, now: number): EventSpec & { combined?: boolean } {
    const key = similarKey(e.fieldPath, e.type, e.reason, e.component, e.host);
    const uid = String(involved.metadata.uid ?? '');
    const mine = this.recall(uid, involved.metadata.namespace ?? 'default');
    let seen: Similar | undefined = mine && similarIn(mine, key);
    // Lists made at their length (a list grown from [] holds room for 17).
    if (!seen) {
      // Written out whole, so each record is laid out with all of its members.
      if (!mine) {
        const fresh: Memory = { key, messages: intern(e.message), last: since(now), postedKey: '', name: '', more: undefined };
        this.memory.set(uid, (seen = fresh));
      } else {
        const more = (mine.more ??= { similar: undefined, posted: undefined });
        more.similar = withAdded(more.similar, (seen = { key, messages: intern(e.message), last: since(now) }));
      }
    } else if (since(now) - seen.last > AGGREGATE_INTERVAL_MS) seen.messages = intern(e.message);
    // A further message of the same kind on the same object (a ReplicaSet's `Created pod: <name>`, one per pod) is
    // not interned: no other object says it, and the table of 4,096 held every pod's message of a burst until it was
    // cleared, past the scavenges that promote it (docs/performance.md §7.15).
    else if (!(Array.isArray(seen.messages) ? seen.messages.includes(e.message) : seen.messages === e.message))
      seen.messages = withAdded(seen.messages, e.message);
    seen.last = since(now);
    if (!Array.isArray(seen.messages) || seen.messages.length < AGGREGATE_MAX_EVENTS) return e;
    seen.messages.shift();
    return { ...e, message: `(combined from similar events): ${e.message}`, combined: true };
  }

  private post(involved: KubeObject, e: EventSpec & { combined?: boolean }, now: number): void {
    const namespace = involved.metadata.namespace ?? 'default';
    // A combined event is one per object and reason, whatever its latest message.
    const key = postedKey(e.fieldPath, e.type, e.reason, e.combined ? '(combined)' : e.message, e.component, e.host);
    // aggregate() has made the object's memory, a record.
    const uid = String(involved.metadata.uid ?? '');
    const mine = this.memory.get(uid) as Memory | undefined;
    const known = mine && postedIn(mine, key);
    const existing = known && (this.recalled?.metadata.name === known.name ? this.recalled : this.objects.get(EVENTS, namespace, known.name));
    if (existing) {
      if (e.combined && !e.action) return this.fold(namespace, known.name, e.message, now);
      const ev = existing as Event;
      const next = e.action
        ? { ...existing, series: { count: (ev.series?.count ?? 1) + 1, lastObservedTime: microTime(now) } }
        : { ...existing, message: e.message, count: (ev.count ?? 1) + 1, lastTimestamp: k8sTime(now) };
      const stored = this.objects.put(EVENTS, next as KubeObject);
      if (mine) this.settle(uid, mine, stored, e);
      return;
    }
    // A full cluster refuses a new Event (the store's put would throw its 403, which record() drops): not built.
    // A restart's resumed containers post thousands of Warnings into a full pool (docs/performance.md §2.12).
    if (this.objects.ceiling.refuses(EVENTS)) return;
    const involvedObject: Record<string, unknown> = {
      kind: involved.kind,
      ...(involved.metadata.namespace ? { namespace: involved.metadata.namespace } : {}),
      name: involved.metadata.name,
      uid: involved.metadata.uid,
      apiVersion: involved.apiVersion,
      resourceVersion: involved.metadata.resourceVersion,
      ...(e.fieldPath ? { fieldPath: e.fieldPath } : {}),
    };
    // One literal with the members both kinds have, the rest set in their order: built by spreading a common part
    // into each kind's, an Event cost ~10 µs more to build and store (docs/performance.md §2.9).
    const scheduler = Boolean(e.action);
    const event: Record<string, unknown> = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: eventName(involved.metadata.name), namespace },
      involvedObject,
      reason: e.reason,
      message: e.message,
      type: e.type,
      source: scheduler ? {} : e.host ? { component: e.component, host: e.host } : { component: e.component },
      firstTimestamp: scheduler ? null : k8sTime(now),
      lastTimestamp: scheduler ? null : k8sTime(now),
    };
    if (scheduler) {
      event['eventTime'] = microTime(now);
      event['action'] = e.action;
    } else {
      event['count'] = 1;
      event['eventTime'] = null;
    }
    event['reportingComponent'] = e.component;
    event['reportingInstance'] = scheduler ? SCHEDULER_INSTANCE : (e.host ?? '');
    // The name the stored Event holds, rather than a second copy of it.
    // The store's copy makes new strings of what the Event took from its object (name, uid, resourceVersion): it
    // shares the object's own instead (~100 bytes per Event: docs/performance.md §7.1).
    const like = { involvedObject: { name: involved.metadata.name, uid: involved.metadata.uid, resourceVersion: involved.metadata.resourceVersion } };
    const storedEvent = this.objects.put(EVENTS, event as KubeObject, { like });
    const stored = storedEvent.metadata.name;
    if (known) known.name = stored;
    else if (mine?.postedKey === '') {
      mine.postedKey = key;
      mine.name = stored;
    } else if (mine) {
      const more = (mine.more ??= { similar: undefined, posted: undefined });
      more.posted = withAdded(more.posted, { postedKey: key, name: stored });
    }
    if (mine) this.settle(uid, mine, storedEvent, e);
  }

  /**
   * A combined Event's repeat, written once the current run of the event loop's work is over (a microtask) with the
   * repeats made meanwhile: the Event then says what it would have said after each (the last message and time, the
   * count grown by all of them), in one write. A ReplicaSet's burst of hundreds of pods in a turn had it rewritten for
   * each pod, each version held in the watch window past the scavenges that promote it: a quarter of a 20,000-pod
   * burst's promoted bytes (docs/performance.md §7.15). client-go's recorder writes Events from a queue of its own too.
   */
  private fold(namespace: string, name: string, message: string, now: number): void {
    const key = `${namespace}/${name}`;
    const known = this.folded.get(key);
    if (known) {
      known.message = message;
      known.times++;
      known.now = now;
      return;
    }
    this.folded.set(key, { namespace, name, message, times: 1, now });
    if (this.folded.size === 1) queueMicrotask(() => this.writeFolded());
  }

  private writeFolded(): void {
    const folded = [...this.folded.values()];
    this.folded.clear();
    for (const f of folded) {
      // Gone meanwhile (deleted, expired): its repeats would have been gone with it.
      const ev = this.objects.get(EVENTS, f.namespace, f.name) as Event | undefined;
      if (!ev) continue;
      try {
        this.objects.put(EVENTS, { ...ev, message: f.message, count: (ev.count ?? 1) + f.times, lastTimestamp: k8sTime(f.now) } as KubeObject);
      } catch {
        // As record(): dropped.
      }
    }
  }

  /** Deletes events last seen before `ttlMs` ago (the apiserver's --event-ttl, one hour by default). */
  expire(ttlMs = EVENT_TTL_MS, now = Date.now()): void {
    for (const e of this.objects.select(EVENTS, (member) => eventExpired(member, now, ttlMs))) {
      this.objects.delete(EVENTS, e.metadata.namespace, e.metadata.name);
    }
  }

  /** Forgets the aggregation of an object's events (it is gone). */
  forget(uid: string | undefined): void {
    if (!uid) return;
    this.memory.delete(uid);
  }
}
