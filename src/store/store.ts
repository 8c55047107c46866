// The one place state lives. Keys are ARM resource ids (or `aksemu:` internal keys); they are
// compared case-insensitively, as ARM compares ids, but each entry keeps the casing it was written with.

export interface Entry<T = unknown> {
  key: string;
  value: T;
}

export interface ListOptions {
  /** Only direct children: keys with no further '/' after the prefix. */
  children?: boolean;
  /** At most this many entries, the first in key order (work done in slices takes one at a time). */
  limit?: number;
  /** Only keys after this one (a key under the prefix): where the previous slice ended. */
  after?: string;
  /** Leaves out the keys under this prefix (a kind read apart: docs/performance.md §2.11). Not with `children`. */
  skip?: string;
}

export interface Store {
  get<T = unknown>(key: string): T | undefined;
  /** The stored entry, with the key's stored casing. */
  entry<T = unknown>(key: string): Entry<T> | undefined;
  put(key: string, value: unknown): void;
  /** put() of a value the caller has serialized already (`json` is JSON.stringify of it): no second serialization. */
  putJson(key: string, json: string): void;
  /** True when something was deleted. */
  delete(key: string): boolean;
  /** Entries whose key starts with prefix, in key order (case-insensitive). */
  list<T = unknown>(prefix: string, options?: ListOptions): Entry<T>[];
  /**
   * list() one entry at a time: each is handed to `take` as it is read, and nothing holds it after (a restart's load
   * of ~100 MB of rows: a slice held whole lived through the young generation's collections). `take` must not use the
   * store (the rows are being read). Returns how many entries were taken.
   */
  each<T = unknown>(prefix: string, options: ListOptions, take: (key: string, value: T) => void): number;
  /** How many keys start with prefix (and come after `options.after`, when given), none of their values read. */
  count(prefix: string, options?: Pick<ListOptions, 'after'>): number;
  /**
   * How many keys start with prefix, and how many of them end in a tail of `tail`'s length that begins with `tail`'s
   * first character and is not below `tail` in key order (a name's `.<time in hex>`): none of their values read.
   */
  countTail(prefix: string, tail: string): { keys: number; atLeast: number };
  /** Deletes every key starting with prefix; returns how many. */
  deletePrefix(prefix: string): number;
  /**
   * Runs fn atomically: every change inside commits together or not at all. fn must be
   * synchronous (a change is one transaction, never spread over awaits). Nesting is allowed.
   */
  transaction<T>(fn: () => T): T;
  /** Whether a transaction is open: a write now commits, or rolls back, with it. */
  readonly inTransaction?: boolean;
  /**
   * While `on`, reads go through a memory map of the file rather than a copy per page read (a restart's load reads
   * most of it once); off, the map is dropped and its pages leave the process's memory. Nothing else changes.
   */
  mapReads?(on: boolean): void;
  close(): void;
}
