// Events as the cluster's components post them. The kubelet and kube-controller-manager use the core/v1
// recorder (source, first/lastTimestamp, count); kube-scheduler uses events.k8s.io (eventTime, action,
// reportingController, and a series when the same event repeats). Repeats update the one Event, as the
// recorders' aggregation does, instead of piling up new ones; past ten different messages of one reason for
// one object within ten minutes, the rest share one "(combined from similar events)" Event, as client-go's
// EventAggregator does (a ReplicaSet creating a thousand pods posts eleven Events, not a thousand). Events are
// best effort: one the cluster refuses (it is full: apiserver/storage/ceiling.ts) is dropped, as the recorders drop them.
import { hostname } from 'node:os';
import type { KubeObject } from '../apimachinery/object.js';
import type { Event } from '../apimachinery/types.js';
import type { ObjectStore } from '../apiserver/index.js';
import { k8sTime, microTime } from '../apimachinery/time.js';
import { EVENTS } from '../apimachinery/resources.js';

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

export const SCHEDULER_INSTANCE = `default-scheduler-${hostname()}`;

/** client-go's EventAggregator: distinct messages per object and reason before they are combined, and when. */
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 10 * 60 * 1000;

interface Similar {
  messages: Set<string>;
  last: number;
}

let sequence = 0n;

/** The recorders name events `<object>.<unix nanoseconds in hex>`. */
function eventName(object: string): string {
  sequence = (sequence + 1n) % 1_000_000n;
  return `${object}.${(BigInt(Date.now()) * 1_000_000n + sequence).toString(16)}`;
}

export class EventRecorder {
  /** Per involved object uid: aggregation key → the Event that carries it. */
  private readonly posted = new Map<string, Map<string, { namespace: string; name: string }>>();
  /** Per involved object uid: (type, reason, component, host) → the distinct messages seen lately. */
  private readonly similar = new Map<string, Map<string, Similar>>();

  constructor(private readonly objects: ObjectStore) {}

  record(involved: KubeObject, spec: EventSpec, now = Date.now()): void {
    try {
      this.post(involved, this.aggregate(involved, spec, now), now);
    } catch {
      // The cluster refused it (full): dropped.
    }
  }

  /** The event as EventAggregator passes it on: as it is, or combined with its similar ones. */
  private aggregate(involved: KubeObject, e: EventSpec, now: number): EventSpec & { combined?: boolean } {
    const uid = String(involved.metadata.uid ?? '');
    const key = [e.fieldPath ?? '', e.type, e.reason, e.component, e.host ?? ''].join('\u0000');
    let mine = this.similar.get(uid);
    if (!mine) this.similar.set(uid, (mine = new Map()));
    let seen = mine.get(key);
    if (!seen || now - seen.last > AGGREGATE_INTERVAL_MS) mine.set(key, (seen = { messages: new Set(), last: now }));
    seen.messages.add(e.message);
    seen.last = now;
    if (seen.messages.size < AGGREGATE_MAX_EVENTS) return e;
    seen.messages.delete(seen.messages.values().next().value!);
    return { ...e, message: `(combined from similar events): ${e.message}`, combined: true };
  }

  private post(involved: KubeObject, e: EventSpec & { combined?: boolean }, now: number): void {
    const namespace = involved.metadata.namespace ?? 'default';
    const uid = String(involved.metadata.uid ?? '');
    // A combined event is one per object and reason, whatever its latest message.
    const key = [e.fieldPath ?? '', e.type, e.reason, e.combined ? '(combined)' : e.message, e.component, e.host ?? ''].join('\u0000');
    let mine = this.posted.get(uid);
    if (!mine) this.posted.set(uid, (mine = new Map()));
    const known = mine.get(key);
    const existing = known && this.objects.get(EVENTS, known.namespace, known.name);
    if (existing) {
      const ev = existing as Event;
      const next = e.action
        ? { ...existing, series: { count: (ev.series?.count ?? 1) + 1, lastObservedTime: microTime(now) } }
        : { ...existing, message: e.message, count: (ev.count ?? 1) + 1, lastTimestamp: k8sTime(now) };
      this.objects.put(EVENTS, next as KubeObject);
      return;
    }
    const involvedObject: Record<string, unknown> = {
      kind: involved.kind,
      ...(involved.metadata.namespace ? { namespace: involved.metadata.namespace } : {}),
      name: involved.metadata.name,
      uid: involved.metadata.uid,
      apiVersion: involved.apiVersion,
      resourceVersion: involved.metadata.resourceVersion,
      ...(e.fieldPath ? { fieldPath: e.fieldPath } : {}),
    };
    const name = eventName(involved.metadata.name);
    const common = { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace }, involvedObject, reason: e.reason, message: e.message, type: e.type };
    const event = e.action
      ? {
          ...common,
          source: {},
          firstTimestamp: null,
          lastTimestamp: null,
          eventTime: microTime(now),
          action: e.action,
          reportingComponent: e.component,
          reportingInstance: SCHEDULER_INSTANCE,
        }
      : {
          ...common,
          source: { component: e.component, ...(e.host ? { host: e.host } : {}) },
          firstTimestamp: k8sTime(now),
          lastTimestamp: k8sTime(now),
          count: 1,
          eventTime: null,
          reportingComponent: e.component,
          reportingInstance: e.host ?? '',
        };
    this.objects.put(EVENTS, event as KubeObject);
    mine.set(key, { namespace, name });
  }

  /** Deletes events last seen before `ttlMs` ago (the apiserver's --event-ttl, one hour by default). */
  expire(ttlMs = EVENT_TTL_MS, now = Date.now()): void {
    for (const e of this.objects.list(EVENTS) as Event[]) {
      const last = Date.parse(e.series?.lastObservedTime || e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp || '');
      if (Number.isFinite(last) && now - last > ttlMs) this.objects.delete(EVENTS, e.metadata.namespace, e.metadata.name);
    }
  }

  /** Forgets the aggregation of an object's events (it is gone). */
  forget(uid: string | undefined): void {
    if (!uid) return;
    this.posted.delete(uid);
    this.similar.delete(uid);
  }
}
