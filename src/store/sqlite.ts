// Store on SQLite (better-sqlite3): one table of JSON values keyed by the lower-cased id.
import Database from 'better-sqlite3';
import { idKey } from '../ids/compare.js';
import type { Entry, ListOptions, Store } from './store.js';

interface Row {
  key: string;
  value: string;
}

/** The smallest string greater than every string that starts with prefix. */
function prefixUpperBound(prefix: string): string {
  if (prefix === '') return '\uffff';
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/** The keys of a prefix, after `after` when given: [from, to (excluded), the prefix's own key]. */
function range(prefix: string, after: string | undefined): [string, string, string] {
  const low = idKey(prefix);
  // The smallest key greater than `after` is `after` and a NUL.
  return [after === undefined ? low : `${idKey(after)}\u0000`, prefixUpperBound(low), low];
}

/** The most of the file mapped while reads are mapped (SQLite's own ceiling, SQLITE_MAX_MMAP_SIZE, is just under 2 GiB). */
const MAP_BYTES = 0x7fff0000;

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly stmts;
  /** One transaction function for every call: better-sqlite3 builds four wrappers and their properties per `transaction(fn)`. */
  private readonly runInTransaction: <T>(fn: () => T) => T;

  /** path ':memory:' gives a throwaway store. */
  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // SQLite's own default page cache (2 MB): better-sqlite3 builds with 16 MB, which a store written behind fills with
    // pages just written and holds for good, ~800 bytes per pod held at 20,000 (docs/performance.md §7.5).
    this.db.pragma('cache_size = -2000');
    // A rowid table with its key in an index, not WITHOUT ROWID: that layout keeps whole rows in the B-tree's interior
    // pages too, which suits rows under ~1/20 of a page (SQLite's own advice); ours are JSON objects of 0.3–20 KB (a
    // pod, an Azure CNI node's NIC), so the tree grew deep, with overflow pages in its inner nodes, and every look-up,
    // insert and rewrite walked them (docs/performance.md §6.4). A store made before keeps its table as it is: both
    // layouts answer the same statements.
    this.db.exec('CREATE TABLE IF NOT EXISTS entries (k TEXT PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL)');
    this.stmts = {
      get: this.db.prepare<[string], Row>('SELECT key, value FROM entries WHERE k = ?'),
      put: this.db.prepare<[string, string, string]>(
        'INSERT INTO entries (k, key, value) VALUES (?, ?, ?) ON CONFLICT(k) DO UPDATE SET key = excluded.key, value = excluded.value',
      ),
      delete: this.db.prepare<[string]>('DELETE FROM entries WHERE k = ?'),
      // LIMIT -1 is SQLite's "no limit".
      list: this.db.prepare<[string, string, number], Row>('SELECT key, value FROM entries WHERE k >= ? AND k < ? ORDER BY k LIMIT ?'),
      children: this.db.prepare<[string, string, string, number], Row>(
        "SELECT key, value FROM entries WHERE k >= ? AND k < ? AND instr(substr(k, length(?) + 1), '/') = 0 ORDER BY k LIMIT ?",
      ),
      count: this.db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM entries WHERE k >= ? AND k < ?'),
      // Keys only (the key's index covers it): ~12 ms for 50,000 keys, ~55 ms with the tails compared.
      countTail: this.db.prepare<[number, string, number, string, string, string], { n: number; c: number }>(
        'SELECT count(*) AS n, coalesce(sum(substr(k, ?, 1) = ? AND substr(k, ?) >= ?), 0) AS c FROM entries WHERE k >= ? AND k < ?',
      ),
      deletePrefix: this.db.prepare<[string, string]>('DELETE FROM entries WHERE k >= ? AND k < ?'),
    };
    this.runInTransaction = this.db.transaction((fn: () => unknown) => fn()) as <T>(fn: () => T) => T;
  }

  get<T = unknown>(key: string): T | undefined {
    return this.entry<T>(key)?.value;
  }

  entry<T = unknown>(key: string): Entry<T> | undefined {
    const row = this.stmts.get.get(idKey(key));
    return row ? { key: row.key, value: JSON.parse(row.value) as T } : undefined;
  }

  put(key: string, value: unknown): void {
    this.putJson(key, JSON.stringify(value));
  }

  putJson(key: string, json: string): void {
    this.stmts.put.run(idKey(key), key, json);
  }

  delete(key: string): boolean {
    return this.stmts.delete.run(idKey(key)).changes > 0;
  }

  list<T = unknown>(prefix: string, options: ListOptions = {}): Entry<T>[] {
    const out: Entry<T>[] = [];
    this.each<T>(prefix, options, (key, value) => out.push({ key, value }));
    return out;
  }

  each<T = unknown>(prefix: string, options: ListOptions, take: (key: string, value: T) => void): number {
    const [from, high, low] = range(prefix, options.after);
    const limit = options.limit ?? -1;
    // Row by row: each row's text is parsed as it comes and dropped, young, rather than all of them held until the
    // last is read (a restart reads ~200 MB of a big cluster's objects here: held, the collector copied them twice).
    if (options.children) return this.take(this.stmts.children.iterate(from, high, low, limit), take);
    if (options.skip === undefined) return this.take(this.stmts.list.iterate(from, high, limit), take);
    // The range as two: before the skipped prefix's keys, and after them.
    const skipLow = idKey(options.skip);
    const skipHigh = prefixUpperBound(skipLow);
    let n = from < skipLow ? this.take(this.stmts.list.iterate(from, skipLow < high ? skipLow : high, limit), take) : 0;
    if (limit < 0 || n < limit) n += this.take(this.stmts.list.iterate(from > skipHigh ? from : skipHigh, high, limit < 0 ? limit : limit - n), take);
    return n;
  }

  private take<T>(rows: IterableIterator<Row>, take: (key: string, value: T) => void): number {
    let n = 0;
    for (const row of rows) {
      take(row.key, JSON.parse(row.value) as T);
      n++;
    }
    return n;
  }

  count(prefix: string, options: Pick<ListOptions, 'after'> = {}): number {
    const [from, high] = range(prefix, options.after);
    return this.stmts.count.get(from, high)!.n;
  }

  countTail(prefix: string, tail: string): { keys: number; atLeast: number } {
    const [from, high] = range(prefix, undefined);
    const low = idKey(tail);
    const { n, c } = this.stmts.countTail.get(-low.length, low.slice(0, 1), -low.length, low, from, high)!;
    return { keys: n, atLeast: c };
  }

  deletePrefix(prefix: string): number {
    const low = idKey(prefix);
    return this.stmts.deletePrefix.run(low, prefixUpperBound(low)).changes;
  }

  /**
   * SQLite's mmap_size: reads of the mapped part take the page from the map instead of a read() into SQLite's page
   * cache. A load in key order reads each row through the key's index and then the table by rowid, in no order of
   * the file: with the 2 MB page cache, most of those reads went to the kernel (at 5,000 nodes: 0.42–0.45 s of system
   * CPU of ~0.95 s to read 65,000 pods' rows, 0.12–0.16 s mapped; docs/performance.md §2.17). Off by default: mapped
   * pages count in the process's resident memory while mapped, and SQLite drops the map when it is set to 0.
   */
  mapReads(on: boolean): void {
    this.db.pragma(`mmap_size = ${on ? MAP_BYTES : 0}`);
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  transaction<T>(fn: () => T): T {
    // better-sqlite3 turns nested calls into savepoints and refuses functions returning promises.
    return this.runInTransaction(fn);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
