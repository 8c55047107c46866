// Sets of field paths, as structured-merge-diff keeps them for managedFields (sigs.k8s.io/structured-merge-diff
// fieldpath): a path is a list of elements, each spelled as in FieldsV1 — `f:<field>`, `k:<item key JSON>` for
// an item of an associative list, `v:<value JSON>` for an item of a set list, `i:<index>` — and a set holds the
// leaves an object sets plus the list items it names. FieldsV1 nests the elements, `{}` marks a member leaf and
// `".": {}` a member that has members below it.
import { isPlainObject, setOwn, type Dict } from '../../../http/own.js';
import { itemKey, listType } from './list-keys.js';

export type Path = string[];

const SEP = '\u0000';

export class FieldSet {
  private readonly members = new Set<string>();

  static of(paths: Iterable<Path>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.add(p);
    return s;
  }

  static ofKeys(keys: Iterable<string>): FieldSet {
    const s = new FieldSet();
    for (const k of keys) s.members.add(k);
    return s;
  }

  keys(): IterableIterator<string> {
    return this.members.values();
  }

  hasKey(key: string): boolean {
    return this.members.has(key);
  }

  add(path: Path): void {
    this.members.add(path.join(SEP));
  }

  has(path: Path): boolean {
    return this.members.has(path.join(SEP));
  }

  delete(path: Path): void {
    this.members.delete(path.join(SEP));
  }

  get size(): number {
    return this.members.size;
  }

  paths(): Path[] {
    return [...this.members].map((m) => m.split(SEP));
  }

  union(other: FieldSet): FieldSet {
    return FieldSet.ofKeys([...this.members, ...other.members]);
  }

  minus(other: FieldSet): FieldSet {
    return FieldSet.ofKeys([...this.members].filter((k) => !other.members.has(k)));
  }

  /** FieldsV1: the members as nested elements (built as a tree of Maps, then written out once). */
  toFieldsV1(): Dict {
    const root: Tree = new Map();
    for (const key of [...this.members].sort()) {
      let node = root;
      for (const el of key.split(SEP)) {
        let next = node.get(el);
        if (!next) node.set(el, (next = new Map()));
        node = next;
      }
      node.set('.', new Map());
    }
    return written(root);
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    const walk = (node: unknown, key: string): void => {
      if (!isPlainObject(node)) return;
      const keys = Object.keys(node);
      if (keys.length === 0 && key !== '') s.members.add(key);
      for (const k of keys) {
        if (k === '.') s.members.add(key);
        else walk(node[k], key === '' ? k : key + SEP + k);
      }
    };
    walk(v, '');
    return s;
  }
}

type Tree = Map<string, Tree>;

/** The tree as FieldsV1: a member with nothing below it is `{}`, not `{".": {}}`. */
function written(node: Tree): Dict {
  const out: Dict = {};
  if (node.size === 1 && node.has('.')) return out;
  for (const [k, child] of node) setOwn(out, k, written(child));
  return out;
}

/** What a write does not own: identity, bookkeeping the apiserver keeps, and the type. */
const UNOWNED_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

export type Scope = 'main' | 'status';

/**
 * The members obj sets, each with its value (a leaf's, an item's, an empty map's): its whole content but its
 * type and metadata bookkeeping; status only in scope 'status'. One walk, so reading values costs no more.
 */
export function fieldValues(obj: unknown, scope: Scope = 'main'): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, v, field] of topLevel(obj, scope)) walkValue(out, v, key, field);
  return out;
}

/** The fields obj sets (fieldValues' members). */
export function fieldsOf(obj: unknown, scope: Scope = 'main'): FieldSet {
  return FieldSet.ofKeys(fieldValues(obj, scope).keys());
}

/** The top-level fields a write owns, with their keys and holders: metadata's own fields stand for themselves. */
function topLevel(obj: unknown, scope: Scope): Array<[string, unknown, string, Dict]> {
  const out: Array<[string, unknown, string, Dict]> = [];
  if (!isPlainObject(obj)) return out;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || (k === 'status') !== (scope === 'status')) continue;
    if (k === 'metadata' && isPlainObject(v)) {
      for (const [mk, mv] of Object.entries(v)) if (!UNOWNED_METADATA.has(mk)) out.push([`f:metadata${SEP}f:${mk}`, mv, mk, v]);
    } else out.push([`f:${k}`, v, k, obj]);
  }
  return out;
}

/** The elements of a list's items as paths spell them; undefined for an atomic list. */
function itemElements(v: unknown[], field: string): string[] | undefined {
  const lt = listType(field, v);
  if (lt.type === 'atomic') return undefined;
  return v.map((item) => (lt.type === 'set' ? `v:${JSON.stringify(item)}` : `k:${JSON.stringify(itemKey(item as Dict, lt.keys))}`));
}

function walkValue(out: Map<string, unknown>, v: unknown, key: string, field: string): void {
  if (isPlainObject(v)) {
    let empty = true;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      empty = false;
      walkValue(out, v[k], `${key}${SEP}f:${k}`, k);
    }
    if (empty) out.set(key, v);
    return;
  }
  const elements = Array.isArray(v) ? itemElements(v, field) : undefined;
  if (!Array.isArray(v) || !elements) return void out.set(key, v);
  for (let i = 0; i < v.length; i++) {
    const itemKey = `${key}${SEP}${elements[i]}`;
    const item = v[i] as Dict;
    out.set(itemKey, item);
    if (elements[i]!.startsWith('k:')) for (const k of Object.keys(item)) walkValue(out, item[k], `${itemKey}${SEP}f:${k}`, k);
  }
}

/** Removes from obj (in place) every member whose key is in `drop`, with what lies below it: one walk. */
export function removeMembers(obj: unknown, drop: ReadonlySet<string>, scope: Scope = 'main'): void {
  if (drop.size === 0) return;
  for (const [key, v, field, holder] of topLevel(obj, scope)) {
    if (drop.has(key)) delete holder[field];
    else setOwn(holder, field, prune(v, key, field, drop));
  }
}

function prune(v: unknown, key: string, field: string, drop: ReadonlySet<string>): unknown {
  if (isPlainObject(v)) {
    for (const k of Object.keys(v)) {
      const child = `${key}${SEP}f:${k}`;
      if (drop.has(child)) delete v[k];
      else setOwn(v, k, prune(v[k], child, k, drop));
    }
    return v;
  }
  const elements = Array.isArray(v) ? itemElements(v, field) : undefined;
  if (!Array.isArray(v) || !elements) return v;
  const kept: unknown[] = [];
  v.forEach((item, i) => {
    const child = `${key}${SEP}${elements[i]}`;
    if (!drop.has(child)) kept.push(elements[i]!.startsWith('k:') ? prune(item, child, '', drop) : item);
  });
  return kept;
}

/** Every member of the sets and every path above one: what "someone owns this or something below it" asks. */
export function ownedOrAbove(sets: FieldSet[]): Set<string> {
  const out = new Set<string>();
  for (const s of sets) {
    for (const key of s.keys()) {
      for (let i = key.indexOf(SEP); i >= 0; i = key.indexOf(SEP, i + 1)) out.add(key.slice(0, i));
      out.add(key);
    }
  }
  return out;
}

export function pathKey(path: Path): string {
  return path.join(SEP);
}

export function pathOf(key: string): Path {
  return key.split(SEP);
}

/** The last element of a member's key. */
export function lastElement(key: string): string {
  return key.slice(key.lastIndexOf(SEP) + 1);
}

/** fieldpath.Path.String(): `.spec.replicas`, `.spec.containers[name="x"].image`, `[="v"]`, `[0]`. */
export function pathString(path: Path): string {
  return path
    .map((el) => {
      const rest = el.slice(2);
      switch (el.slice(0, 2)) {
        case 'f:':
          return `.${rest}`;
        case 'k:':
          return `[${Object.entries(JSON.parse(rest) as Dict)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(',')}]`;
        case 'v:':
          return `[=${rest}]`;
        default:
          return `[${rest}]`;
      }
    })
    .join('');
}
