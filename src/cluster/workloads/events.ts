// Events as the cluster's components post them. The kubelet and kube-controller-manager use the core/v1
// recorder (source, first/lastTimestamp, count); kube-scheduler uses events.k8s.io (eventTime, action,
// reportingController, and a series when the same event repeats). Repeats update the one Event, as the
// recorders' aggregation does, instead of piling up new ones.
import { hostname } from 'node:os';
import type { KubeObject } from '../objects/object.js';
import type { ObjectStore } from '../objects/store.js';
import { k8sTime, microTime } from '../time.js';
import { EVENTS } from './kinds.js';

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

let sequence = 0n;

/** The recorders name events `<object>.<unix nanoseconds in hex>`. */
function eventName(object: string): string {
  sequence = (sequence + 1n) % 1_000_000n;
  return `${object}.${(BigInt(Date.now()) * 1_000_000n + sequence).toString(16)}`;
}

export class EventRecorder {
  /** Per involved object uid: aggregation key → the Event that carries it. */
  private readonly posted = new Map<string, Map<string, { namespace: string; name: string }>>();

  constructor(private readonly objects: ObjectStore) {}

  record(involved: KubeObject, e: EventSpec, now = Date.now()): void {
    const namespace = involved.metadata.namespace ?? 'default';
    const uid = String(involved.metadata.uid ?? '');
    const key = [e.fieldPath ?? '', e.type, e.reason, e.message, e.component, e.host ?? ''].join('\u0000');
    let mine = this.posted.get(uid);
    if (!mine) this.posted.set(uid, (mine = new Map()));
    const known = mine.get(key);
    const existing = known && this.objects.get(EVENTS, known.namespace, known.name);
    if (existing) {
      const ev = existing as any;
      const next = e.action
        ? { ...existing, series: { count: (ev.series?.count ?? 1) + 1, lastObservedTime: microTime(now) } }
        : { ...existing, count: (ev.count ?? 1) + 1, lastTimestamp: k8sTime(now) };
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
      ? { ...common, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: microTime(now), action: e.action, reportingComponent: e.component, reportingInstance: SCHEDULER_INSTANCE }
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
    for (const e of this.objects.list(EVENTS) as any[]) {
      const last = Date.parse(e.series?.lastObservedTime || e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp || '');
      if (Number.isFinite(last) && now - last > ttlMs) this.objects.delete(EVENTS, e.metadata.namespace, e.metadata.name);
    }
  }

  /** Forgets the aggregation of an object's events (it is gone). */
  forget(uid: string | undefined): void {
    if (uid) this.posted.delete(uid);
  }
}
