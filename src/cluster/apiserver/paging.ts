// Chunked lists (`limit` and `continue`), as kubectl asks for them (500 at a time): a page of the objects in
// key order, and a continue token in the apiserver's format (base64url of {"v","rv","start"}) naming the key
// to resume after. Pages are read from the current state (the apiserver reads them at the first page's
// revision); `remainingItemCount` counts what is left when nothing is selected.
import { objectKey, type KubeObject } from '../apimachinery/object.js';
import { badRequest } from '../apimachinery/status.js';
import { keyIndex } from './storage/store.js';

export interface Page {
  items: KubeObject[];
  continue?: string;
  remainingItemCount?: number;
}

interface Token {
  v: string;
  rv: number;
  start: string;
}

const keyOf = (o: KubeObject) => objectKey(o.metadata.namespace, o.metadata.name);

function decodeToken(text: string): Token {
  let token: Partial<Token> | undefined;
  try {
    token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    token = undefined;
  }
  if (!token || token.v !== 'meta.k8s.io/v1' || typeof token.start !== 'string' || typeof token.rv !== 'number') {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return token as Token;
}

function limitOf(query: URLSearchParams): number {
  const limitText = query.get('limit');
  const limit = limitText === null || limitText === '' ? 0 : Number(limitText);
  if (!Number.isSafeInteger(limit)) throw badRequest(`limit: Invalid value: ${JSON.stringify(limitText)}: must be an integer`);
  return limit;
}

/** The key to resume after, from the continue token (written with a trailing NUL); undefined on the first page. */
function startOf(query: URLSearchParams): string | undefined {
  const cont = query.get('continue');
  return cont ? decodeToken(cont).start.replace(/\u0000$/, '') : undefined;
}

function tokenAfter(key: string, revision: number): string {
  const token: Token = { v: 'meta.k8s.io/v1', rv: revision, start: `${key}\u0000` };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

/** items (in key order) that match, from the continue token's key on, at most `limit` of them (0 or absent: all). */
export function page(items: KubeObject[], query: URLSearchParams, revision: number, matches?: (o: KubeObject) => boolean): Page {
  const keys = items.map(keyOf);
  const byKey = new Map(keys.map((k, i) => [k, items[i]!]));
  return pageKeys({ keys, from: 0, to: keys.length, get: (k) => byKey.get(k)! }, matches, query, revision);
}

/** Where a paged list reads: keys in etcd key order (from..to of them), each object by its key. */
export interface KeyedSource {
  keys: readonly string[];
  from: number;
  to: number;
  get(key: string): KubeObject;
}

/**
 * The same page as page() gives, read from sorted keys instead of a list built for each page: the start found by
 * binary search, and only the page's objects looked at when nothing is selected (kubectl pages 250,000 pods 500
 * at a time; building and sorting the whole list for each page made that quadratic).
 */
export function pageKeys(source: KeyedSource, matches: ((o: KubeObject) => boolean) | undefined, query: URLSearchParams, revision: number): Page {
  const limit = limitOf(query);
  const start = startOf(query);
  const { keys, to } = source;
  let i = start === undefined ? source.from : Math.max(source.from, keyIndex(keys, start, false));
  const rows = {
    next: (): IteratorResult<[string, KubeObject]> => {
      if (i >= to) return { done: true, value: undefined };
      const key = keys[i++]!;
      return { done: false, value: [key, source.get(key)] };
    },
  };
  // Read just past the page's last row: what is left is every key after it.
  return pageRows(rows, matches, limit, revision, () => to - i + 1);
}

/** A page's query: its limit (0: all) and the key to resume after (undefined on the first page), or the 400. */
export function pageQuery(query: URLSearchParams): { limit: number; start: string | undefined } {
  return { limit: limitOf(query), start: startOf(query) };
}

/**
 * A page of rows read in key order from where it starts, as the apiserver reads etcd (storage/etcd3 GetList): at
 * most `limit` objects that match, and a continue token when any row follows the last of them. remainingItemCount
 * (`remaining`, given the last key of the page) only when nothing is selected: with a selector the apiserver leaves
 * it out, as the rows left are not all what the selector would list (and counting them needs every one read).
 */
export function pageRows(
  rows: Iterator<[string, KubeObject]>,
  matches: ((o: KubeObject) => boolean) | undefined,
  limit: number,
  revision: number,
  remaining: (lastKey: string) => number,
): Page {
  const items: KubeObject[] = [];
  let last = '';
  for (let row = rows.next(); !row.done; row = rows.next()) {
    const [key, o] = row.value;
    if (limit > 0 && items.length === limit) {
      const cont = tokenAfter(last, revision);
      return matches ? { items, continue: cont } : { items, continue: cont, remainingItemCount: remaining(last) };
    }
    if (!matches || matches(o)) {
      items.push(o);
      last = key;
    }
  }
  return { items };
}
