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

  /** Whether a member is path or lies below it. */
  covers(path: Path): boolean {
    const prefix = path.join(SEP);
    for (const m of this.members) if (m === prefix || m.startsWith(prefix + SEP)) return true;
    return false;
  }

  union(other: FieldSet): FieldSet {
    return FieldSet.of([...this.paths(), ...other.paths()]);
  }

  minus(other: FieldSet): FieldSet {
    return FieldSet.of(this.paths().filter((p) => !other.has(p)));
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

/** The fields obj sets: the whole object but its type and metadata bookkeeping; status only in scope 'status'. */
export function fieldsOf(obj: unknown, scope: Scope = 'main'): FieldSet {
  const s = new FieldSet();
  if (!isPlainObject(obj)) return s;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || (k === 'status') !== (scope === 'status')) continue;
    if (k === 'metadata' && isPlainObject(v)) {
      for (const [mk, mv] of Object.entries(v)) if (!UNOWNED_METADATA.has(mk)) walkValue(s, mv, ['f:metadata', `f:${mk}`], mk);
      continue;
    }
    walkValue(s, v, [`f:${k}`], k);
  }
  return s;
}

function walkValue(s: FieldSet, v: unknown, path: Path, field: string): void {
  if (isPlainObject(v)) {
    const entries = Object.entries(v);
    if (entries.length === 0) s.add(path);
    for (const [k, child] of entries) walkValue(s, child, [...path, `f:${k}`], k);
    return;
  }
  if (Array.isArray(v)) {
    const lt = listType(field, v);
    if (lt.type === 'atomic') return s.add(path);
    for (const item of v) {
      if (lt.type === 'set') {
        s.add([...path, `v:${JSON.stringify(item)}`]);
        continue;
      }
      const itemPath = [...path, `k:${JSON.stringify(itemKey(item as Dict, lt.keys))}`];
      s.add(itemPath);
      for (const [k, child] of Object.entries(item as Dict)) walkValue(s, child, [...itemPath, `f:${k}`], k);
    }
    return;
  }
  s.add(path);
}

/** Where in `parent` (an object or a list) an element points: its container and how to reach the value. */
function step(node: unknown, el: string): { found: boolean; value: unknown; remove: () => void } {
  const none = { found: false, value: undefined, remove: () => undefined };
  const kind = el.slice(0, 2);
  const rest = el.slice(2);
  if (kind === 'f:') {
    if (!isPlainObject(node) || !Object.hasOwn(node, rest)) return none;
    return { found: true, value: node[rest], remove: () => delete node[rest] };
  }
  if (!Array.isArray(node)) return none;
  let i = -1;
  if (kind === 'i:') i = Number(rest) < node.length ? Number(rest) : -1;
  else if (kind === 'v:') i = node.findIndex((x) => JSON.stringify(x) === rest);
  else if (kind === 'k:') {
    const key = JSON.parse(rest) as Dict;
    const keys = Object.keys(key);
    i = node.findIndex((x) => isPlainObject(x) && JSON.stringify(itemKey(x, keys)) === rest);
  }
  if (i < 0) return none;
  return { found: true, value: node[i], remove: () => node.splice(i, 1) };
}

/** The value at path in obj, and whether it is there. */
export function valueAt(obj: unknown, path: Path): { found: boolean; value: unknown } {
  let node: unknown = obj;
  for (const el of path) {
    const s = step(node, el);
    if (!s.found) return { found: false, value: undefined };
    node = s.value;
  }
  return { found: true, value: node };
}

/** Removes what path points at from obj (in place); nothing when it is not there. */
export function removeAt(obj: unknown, path: Path): void {
  const parent = valueAt(obj, path.slice(0, -1));
  if (parent.found) step(parent.value, path[path.length - 1]!).remove();
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
