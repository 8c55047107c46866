// Watches (docs/clients.md §5.7): resourceVersion unset or "0" starts with synthetic ADDED events for what
// exists; any other RV replays only newer changes (410 Expired when they are no longer known). Selectors
// apply to every event: an object that starts or stops matching is ADDED or DELETED for this watch.
// Events go out in resourceVersion order, as the apiserver sends them: the store tells its listeners in turn,
// and a controller that writes while it hears of one change has the store tell the newer change first, so a
// watch sends from the store's ordered history instead of the order it is told in. (A client keeps the last
// event of an object: a stale one last would leave a kubectl wait on a pod that is Ready waiting forever.)
// Bookmarks when asked for (bookmarks.ts: each minute and 2 s before the timeout, from one shared timer), and the
// stream ends after timeoutSeconds. `sendInitialEvents` (the WatchList feature, served from 1.32) starts with the
// current state whatever the resourceVersion, then a bookmark annotated `k8s.io/initial-events-end`.
// How fast a client must read, and what happens to one that does not, is watch-stream.ts.
import { type ResourceType, resourceKey } from '../apimachinery/resources.js';
import { selects, type Selector } from '../apimachinery/selectors.js';
import { failureStatus } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Change, ObjectStore } from './storage/store.js';
import { bookmarks } from './bookmarks.js';

/** The annotation of the bookmark that ends a watch's initial events (metav1.InitialEventsAnnotationKey). */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: unknown;
}

export interface WatchSink {
  /** `json`, when given, is JSON.stringify(event.object) already made (the store's, for the change it is telling). */
  send(event: WatchEvent, json?: string): void;
  close(): void;
}

export interface WatchOptions {
  resourceVersion?: string | null;
  timeoutSeconds?: number;
  allowBookmarks?: boolean;
  /** sendInitialEvents=true / false; undefined when the request did not say. */
  sendInitialEvents?: boolean;
  /** What objects look like on the wire (e.g. leases computed at read time). */
  view?: (obj: KubeObject) => KubeObject;
}

export interface Watch {
  stop(): void;
}

function inScope(r: ResourceType, namespace: string | undefined, obj: KubeObject): boolean {
  return namespace === undefined || !r.namespaced || obj.metadata.namespace === namespace;
}

/** What one change means to a watch with this scope and selector; undefined when nothing. `key` is resourceKey(r). */
export function translate(r: ResourceType, namespace: string | undefined, selector: Selector, change: Change, key = resourceKey(r)): WatchEvent | undefined {
  if (change.resource !== key) return undefined;
  const was = change.previous !== undefined && inScope(r, namespace, change.previous) && selects(selector, change.previous);
  if (change.type === 'DELETED') return was ? { type: 'DELETED', object: change.object } : undefined;
  const is = inScope(r, namespace, change.object) && selects(selector, change.object);
  if (is) return { type: was ? 'MODIFIED' : 'ADDED', object: change.object };
  return was ? { type: 'DELETED', object: leftAt(change.previous!, change.object) } : undefined;
}

/**
 * An object that stops matching a watch's selector is sent DELETED as the watch last matched it, at the change's
 * resourceVersion: the apiserver's cache watcher sends the previous object's content so (cache_watcher.go,
 * convertToWatchEvent, since Kubernetes 1.9), and a client resuming from that version must not see it again.
 */
function leftAt(previous: KubeObject, now: KubeObject): KubeObject {
  return { ...previous, metadata: { ...previous.metadata, resourceVersion: now.metadata.resourceVersion } } as KubeObject;
}

/** A watch as the store's changes reach it: how far it has come, and what to send past that. */
interface Watcher {
  readonly sent: number;
  sendSince(changes: Change[]): void;
}

/** The watches on one store, by the resource they watch, and the one store listener that tells them. */
const watchersOf = new WeakMap<ObjectStore, Map<string, { r: ResourceType; watchers: Set<Watcher> }>>();
const unsubscribeOf = new WeakMap<ObjectStore, () => void>();

/**
 * One store listener for all the watches of a store instead of one per watch: a change of a kind nobody watches costs
 * one map lookup, and the history is searched once per change for the watches of its kind that have come equally far
 * (all of them, between writes) instead of once per watch.
 */
function watchKind(store: ObjectStore, r: ResourceType, watcher: Watcher): () => void {
  let kinds = watchersOf.get(store);
  if (!kinds) {
    const byKind = new Map<string, { r: ResourceType; watchers: Set<Watcher> }>();
    watchersOf.set(store, (kinds = byKind));
    unsubscribeOf.set(
      store,
      store.subscribe((change) => {
        const kind = byKind.get(change.resource);
        if (!kind) return;
        let from = Number.NaN;
        let changes: Change[] = [];
        for (const w of kind.watchers) {
          // Told already (a newer change told first sent this one from the history too), or stopped.
          if (change.rv <= w.sent) continue;
          if (w.sent !== from) {
            from = w.sent;
            const since = store.since(kind.r, from);
            // A watch that heard nothing of its type while the history moved past it has missed nothing either.
            changes = since === 'gone' ? [change] : since;
          }
          w.sendSince(changes);
        }
      }),
    );
  }
  const key = resourceKey(r);
  const kind = kinds.get(key) ?? { r, watchers: new Set<Watcher>() };
  kinds.set(key, kind);
  kind.watchers.add(watcher);
  return () => {
    if (!kind.watchers.delete(watcher) || kind.watchers.size > 0) return;
    kinds.delete(key);
    if (kinds.size > 0) return;
    watchersOf.delete(store);
    unsubscribeOf.get(store)?.();
    unsubscribeOf.delete(store);
  };
}

export function openWatch(
  store: ObjectStore,
  r: ResourceType,
  namespace: string | undefined,
  selector: Selector,
  options: WatchOptions,
  sink: WatchSink,
): Watch {
  const view = options.view ?? ((o: KubeObject) => o);
  const emit = (e: WatchEvent) => {
    if (e.type === 'BOOKMARK' || e.type === 'ERROR') return sink.send(e);
    const object = view(e.object as KubeObject);
    sink.send({ type: e.type, object }, object === e.object ? store.jsonOf(object) : undefined);
  };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let unsubscribe = () => {};
  let unbook = () => {};
  const stop = () => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    unbook();
    clearTimeout(timer);
  };
  const bookmark = (rv: number, annotations?: Record<string, string>) =>
    sink.send({
      type: 'BOOKMARK',
      object: {
        kind: r.kind,
        apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`,
        metadata: { resourceVersion: String(rv), creationTimestamp: null, ...(annotations ? { annotations } : {}) },
      },
    });

  const rvText = options.resourceVersion;
  /** The revision of the last change this watch has sent (or has seen in its initial state). */
  let sent = store.resourceVersion;
  // Once per watch, not per change it is told (two map lookups, for each of a hundred watchers of every change).
  const key = resourceKey(r);
  const sendSince = (changes: Change[]) => {
    for (const c of changes) {
      const e = translate(r, namespace, selector, c, key);
      if (e) emit(e);
      sent = c.rv;
    }
  };
  const fromNow = rvText === undefined || rvText === null || rvText === '' || rvText === '0';
  if (options.sendInitialEvents === true || (options.sendInitialEvents === undefined && fromNow)) {
    for (const obj of store.list(r, r.namespaced ? namespace : undefined)) {
      if (selects(selector, obj)) emit({ type: 'ADDED', object: obj });
    }
    if (options.sendInitialEvents && options.allowBookmarks) bookmark(store.resourceVersion, { [INITIAL_EVENTS_END]: 'true' });
  } else if (!fromNow) {
    const rv = Number(rvText);
    const changes = Number.isFinite(rv) ? store.since(r, rv) : 'gone';
    if (changes === 'gone') {
      // The watch cache's answer: the version asked for and the oldest one it could start from.
      sink.send({ type: 'ERROR', object: failureStatus(410, 'Expired', `too old resource version: ${rvText} (${store.oldestResourceVersion})`) });
      sink.close();
      return { stop };
    }
    sendSince(changes);
    sent = store.resourceVersion;
  }
  unsubscribe = watchKind(store, r, {
    get sent() {
      return stopped ? Number.POSITIVE_INFINITY : sent;
    },
    sendSince,
  });
  const deadline = options.timeoutSeconds !== undefined && options.timeoutSeconds > 0 ? Date.now() + options.timeoutSeconds * 1000 : undefined;
  if (options.allowBookmarks) {
    // Between writes every change is told, so the store's revision is how far this watch has come.
    unbook = bookmarks.add(deadline, () => stopped || bookmark(store.resourceVersion));
  }
  if (deadline !== undefined) {
    timer = setTimeout(() => {
      stop();
      sink.close();
    }, deadline - Date.now()).unref();
  }
  return { stop };
}
