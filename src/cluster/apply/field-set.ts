// Sets of field paths, as structured-merge-diff keeps them for managedFields (sigs.k8s.io/structured-merge-diff
// fieldpath): a path is a list of elements, each spelled as in FieldsV1 — `f:<field>`, `k:<item key JSON>` for
// an item of an associative list, `v:<value JSON>` for an item of a set list, `i:<index>` — and a set holds the
// leaves an object sets plus the list items it names. FieldsV1 nests the elements, `{}` marks a member leaf and
// `".": {}` a member that has members below it.
import { isPlainObject, own, setOwn, type Dict } from '../../http/own.js';
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

  /** FieldsV1: the members as nested elements. */
  toFieldsV1(): Dict {
    const root: Dict = {};
    const sorted = this.paths().sort((a, b) => (a.join(SEP) < b.join(SEP) ? -1 : 1));
    for (const p of sorted) {
      let node = root;
      for (const el of p) {
        let next = own<Dict>(node, el);
        if (!next) setOwn(node, el, (next = {}));
        node = next;
      }
      node['.'] = {};
    }
    return stripLeafDots(root);
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    const walk = (node: unknown, path: Path): void => {
      if (!isPlainObject(node)) return;
      const keys = Object.keys(node);
      if (keys.length === 0 && path.length > 0) s.add(path);
      for (const k of keys) {
        if (k === '.') s.add(path);
        else walk(node[k], [...path, k]);
      }
    };
    walk(v, []);
    return s;
  }
}

/** A member with nothing below it is `{}`, not `{".": {}}`. */
function stripLeafDots(node: Dict): Dict {
  const keys = Object.keys(node);
  if (keys.length === 1 && keys[0] === '.') return {};
  const out: Dict = {};
  for (const k of keys) setOwn(out, k, k === '.' ? {} : stripLeafDots(node[k] as Dict));
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
  for (const [path, v, field] of topLevel(obj, scope)) walkValue(out, v, path, field);
  return out;
}

/** The fields obj sets (fieldValues' members). */
export function fieldsOf(obj: unknown, scope: Scope = 'main'): FieldSet {
  return FieldSet.ofKeys(fieldValues(obj, scope).keys());
}

/** The top-level fields a write owns, with their paths and holders: metadata's own fields stand for themselves. */
function topLevel(obj: unknown, scope: Scope): Array<[Path, unknown, string, Dict]> {
  const out: Array<[Path, unknown, string, Dict]> = [];
  if (!isPlainObject(obj)) return out;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || (k === 'status') !== (scope === 'status')) continue;
    if (k === 'metadata' && isPlainObject(v)) {
      for (const [mk, mv] of Object.entries(v)) if (!UNOWNED_METADATA.has(mk)) out.push([['f:metadata', `f:${mk}`], mv, mk, v]);
    } else out.push([[`f:${k}`], v, k, obj]);
  }
  return out;
}

/** The elements of a list's items as paths spell them; undefined for an atomic list. */
function itemElements(v: unknown[], field: string): string[] | undefined {
  const lt = listType(field, v);
  if (lt.type === 'atomic') return undefined;
  return v.map((item) => (lt.type === 'set' ? `v:${JSON.stringify(item)}` : `k:${JSON.stringify(itemKey(item as Dict, lt.keys))}`));
}

function walkValue(out: Map<string, unknown>, v: unknown, path: Path, field: string): void {
  if (isPlainObject(v)) {
    const entries = Object.entries(v);
    if (entries.length === 0) out.set(path.join(SEP), v);
    for (const [k, child] of entries) walkValue(out, child, [...path, `f:${k}`], k);
    return;
  }
  const elements = Array.isArray(v) ? itemElements(v, field) : undefined;
  if (!Array.isArray(v) || !elements) return void out.set(path.join(SEP), v);
  v.forEach((item, i) => {
    const itemPath = [...path, elements[i]!];
    out.set(itemPath.join(SEP), item);
    if (elements[i]!.startsWith('k:')) for (const [k, child] of Object.entries(item as Dict)) walkValue(out, child, [...itemPath, `f:${k}`], k);
  });
}

/** Removes from obj (in place) every member whose key is in `drop`, with what lies below it: one walk. */
export function removeMembers(obj: unknown, drop: ReadonlySet<string>, scope: Scope = 'main'): void {
  if (drop.size === 0) return;
  for (const [path, v, field, holder] of topLevel(obj, scope)) {
    if (drop.has(path.join(SEP))) delete holder[field];
    else setOwn(holder, field, prune(v, path, field, drop));
  }
}

function prune(v: unknown, path: Path, field: string, drop: ReadonlySet<string>): unknown {
  if (isPlainObject(v)) {
    for (const [k, child] of Object.entries(v)) {
      const p = [...path, `f:${k}`];
      if (drop.has(p.join(SEP))) delete v[k];
      else setOwn(v, k, prune(child, p, k, drop));
    }
    return v;
  }
  const elements = Array.isArray(v) ? itemElements(v, field) : undefined;
  if (!Array.isArray(v) || !elements) return v;
  const kept: unknown[] = [];
  v.forEach((item, i) => {
    const p = [...path, elements[i]!];
    if (!drop.has(p.join(SEP))) kept.push(elements[i]!.startsWith('k:') ? prune(item, p, '', drop) : item);
  });
  return kept;
}

/** Every member of the sets and every path above one: what "someone owns this or something below it" asks. */
export function ownedOrAbove(sets: FieldSet[]): Set<string> {
  const out = new Set<string>();
  for (const s of sets) {
    for (const key of s.keys()) {
      const parts = key.split(SEP);
      for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join(SEP));
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
