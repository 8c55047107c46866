// A Store that tells listeners which keys changed once the change is committed: after the outermost
// transaction returns (a rolled-back one reports nothing), or at once for a write outside any
// transaction. For consumers that mirror the state elsewhere (the cluster runtimes, the data plane) without
// the providers knowing about them.
import type { Entry, ListOptions, Store } from './store.js';

/** Keys written or deleted; a deletePrefix reports its prefix with `prefix: true`. */
export interface Change {
  key: string;
  prefix?: boolean;
}

type ChangeListener = (changes: readonly Change[]) => void;

/** The one change feed: committed transactions only (docs/architecture.md §3). */
export interface ChangeFeed {
  /** Calls listener after each committed change; returns the function that stops it. */
  onCommit(listener: ChangeListener): () => void;
}

export class ObservedStore implements Store, ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private depth = 0;
  private pending: Change[] = [];

  constructor(private readonly inner: Store) {}

  /** Calls listener after each committed change; returns the function that stops it. */
  onCommit(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get<T = unknown>(key: string): T | undefined {
    return this.inner.get<T>(key);
  }

  entry<T = unknown>(key: string): Entry<T> | undefined {
    return this.inner.entry<T>(key);
  }

  list<T = unknown>(prefix: string, options?: ListOptions): Entry<T>[] {
    return this.inner.list<T>(prefix, options);
  }

  each<T = unknown>(prefix: string, options: ListOptions, take: (key: string, value: T) => void): number {
    return this.inner.each<T>(prefix, options, take);
  }

  mapReads(on: boolean): void {
    this.inner.mapReads?.(on);
  }

  count(prefix: string, options?: Pick<ListOptions, 'after'>): number {
    return this.inner.count(prefix, options);
  }

  countTail(prefix: string, tail: string): { keys: number; atLeast: number } {
    return this.inner.countTail(prefix, tail);
  }

  put(key: string, value: unknown): void {
    this.inner.put(key, value);
    this.record({ key });
  }

  putJson(key: string, json: string): void {
    this.inner.putJson(key, json);
    this.record({ key });
  }

  delete(key: string): boolean {
    const deleted = this.inner.delete(key);
    if (deleted) this.record({ key });
    return deleted;
  }

  deletePrefix(prefix: string): number {
    const count = this.inner.deletePrefix(prefix);
    if (count > 0) this.record({ key: prefix, prefix: true });
    return count;
  }

  get inTransaction(): boolean {
    return this.depth > 0 || this.inner.inTransaction === true;
  }

  transaction<T>(fn: () => T): T {
    this.depth++;
    let committed = false;
    try {
      const result = this.inner.transaction(fn);
      committed = true;
      return result;
    } finally {
      this.depth--;
      if (this.depth === 0) {
        const changes = this.pending;
        this.pending = [];
        if (committed) this.emit(changes);
      }
    }
  }

  close(): void {
    this.listeners.clear();
    this.inner.close();
  }

  private record(change: Change): void {
    if (this.depth > 0) this.pending.push(change);
    else this.emit([change]);
  }

  private emit(changes: readonly Change[]): void {
    if (changes.length === 0) return;
    for (const listener of this.listeners) {
      // A listener's failure is its own: the change is committed and the caller must not see it.
      try {
        listener(changes);
      } catch {
        /* listeners report their own errors */
      }
    }
  }
}
