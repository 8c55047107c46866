// PATCH bodies: JSON merge patch (RFC 7386), strategic merge patch as kubectl sends it for built-in kinds
// (lists of objects merged by their patch merge key; `$setElementOrder`, `$patch`, `$retainKeys` honoured or
// dropped), and JSON patch (RFC 6902) with the apiserver's limits and its patch library's errors. Keys are
// walked as own properties only (own.ts): `__proto__` in a patch is a key, never a way to the prototype.
import { isDeepStrictEqual } from 'node:util';
import { isPlainObject as isObject, own, setOwn, type Dict } from '../../http/own.js';
import { badRequest, patchRejected, tooLarge } from '../apimachinery/status.js';
import { jsonKind } from './validation/shape.js';

type Json = unknown;
type JsonObject = Dict;

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(own(out, k), v));
  }
  return out;
}

/** The merge keys of the built-in types' lists (the `patchMergeKey` tags kubectl's compiled-in schemas carry). */
const MERGE_KEYS = new Map<string, string>([
  ['containers', 'name'],
  ['initContainers', 'name'],
  ['ephemeralContainers', 'name'],
  ['env', 'name'],
  ['volumes', 'name'],
  ['imagePullSecrets', 'name'],
  ['volumeMounts', 'mountPath'],
  ['volumeDevices', 'devicePath'],
  ['ports', 'containerPort'],
  ['conditions', 'type'],
  ['tolerations', 'key'],
  ['hostAliases', 'ip'],
  ['ownerReferences', 'uid'],
  ['topologySpreadConstraints', 'topologyKey'],
]);

export function strategicMergePatch(target: Json, patch: Json, field = ''): Json {
  if (!isObject(patch)) {
    const key = MERGE_KEYS.get(field);
    if (Array.isArray(patch) && Array.isArray(target) && key) return mergeList(target, patch, key);
    return patch;
  }
  if (own(patch, '$patch') === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (own(patch, '$patch') === 'delete') return undefined;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  const retain = own(patch, '$retainKeys');
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const merged = strategicMergePatch(own(out, k), v, k);
    if (merged === undefined) delete out[k];
    else setOwn(out, k, merged);
  }
  for (const [k, v] of Object.entries(patch)) {
    const m = /^\$deleteFromPrimitiveList\/(.+)$/.exec(k);
    const list = m ? own(out, m[1]!) : undefined;
    if (m && Array.isArray(list) && Array.isArray(v))
      setOwn(
        out,
        m[1]!,
        list.filter((x) => !v.includes(x)),
      );
  }
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

function mergeList(target: unknown[], patch: unknown[], key: string): unknown[] {
  if (!patch.every((p) => isObject(p)) || !target.every((t) => isObject(t))) return patch;
  const out = target.map((t) => ({ ...(t as JsonObject) })) as unknown[];
  for (const p of patch as JsonObject[]) {
    const i = out.findIndex((t) => own(t, key) === own(p, key));
    if (own(p, '$patch') === 'delete') {
      if (i >= 0) out.splice(i, 1);
    } else if (i >= 0) out[i] = strategicMergePatch(out[i], p);
    else out.push(stripDirectives(p));
  }
  return out;
}

function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !k.startsWith('$'))
      .map(([k, x]) => [k, stripDirectives(x)]),
  );
}

/** The apiserver's maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

interface Operation {
  op: unknown;
  path: unknown;
  from?: unknown;
  value?: unknown;
}

/** jsonpatch.DecodePatch: an array of operation objects, or the decode error the apiserver answers 400 with. */
function decode(ops: unknown): Operation[] {
  if (!Array.isArray(ops)) throw badRequest(`json: cannot unmarshal ${jsonKind(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops) if (op !== null && !isObject(op)) throw badRequest(`json: cannot unmarshal ${jsonKind(op)} into Go value of type jsonpatch.Operation`);
  if (ops.length > MAX_JSON_PATCH_OPERATIONS)
    throw tooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`);
  // An operation without `value` carries JSON null, as the apiserver's json-patch library reads it.
  return ops.map((op) => ({ op: own(op, 'op'), path: own(op, 'path'), from: own(op, 'from'), value: own(op, 'value') ?? null }));
}

/** A JSON pointer's reference tokens; undefined when it is not a pointer. */
function tokens(path: unknown): string[] | undefined {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) return undefined;
  return path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** An array index token: decimal, no leading zeros, at most `max`; undefined otherwise. */
function arrayIndex(token: string, max: number): number | undefined {
  if (!/^(0|[1-9][0-9]{0,8})$/.test(token)) return undefined;
  const i = Number(token);
  return i <= max ? i : undefined;
}

/** Where a pointer points: the container that holds its last token, and that token. */
function locate(doc: Json, path: unknown, what: string): { parent: Dict | unknown[]; key: string } {
  const parts = tokens(path);
  const missing = () => patchRejected(`${what} operation does not apply: doc is missing path: ${JSON.stringify(path)}: missing value`);
  if (!parts || parts.length === 0) throw missing();
  let parent: Json = doc;
  for (const p of parts.slice(0, -1)) {
    parent = Array.isArray(parent) ? (arrayIndex(p, parent.length - 1) === undefined ? undefined : parent[Number(p)]) : own(parent, p);
    if (parent === null || typeof parent !== 'object') throw missing();
  }
  if (parent === null || typeof parent !== 'object') throw missing();
  return { parent: parent as Dict | unknown[], key: parts[parts.length - 1]! };
}

function get(doc: Json, path: unknown, what: string): Json {
  if (path === '') return doc;
  const { parent, key } = locate(doc, path, what);
  const value = Array.isArray(parent) ? (arrayIndex(key, parent.length - 1) === undefined ? undefined : parent[Number(key)]) : own(parent, key);
  if (value === undefined) throw patchRejected(`${what} operation does not apply: doc is missing path: ${JSON.stringify(path)}: missing value`);
  return value;
}

function invalidIndex(key: string): never {
  throw patchRejected(`Unable to access invalid index: ${key}: invalid index referenced`);
}

function add(doc: Json, path: unknown, value: Json): Json {
  if (path === '') return value;
  const { parent, key } = locate(doc, path, 'add');
  if (!Array.isArray(parent)) setOwn(parent, key, value);
  else if (key === '-') parent.push(value);
  else parent.splice(arrayIndex(key, parent.length) ?? invalidIndex(key), 0, value);
  return doc;
}

function remove(doc: Json, path: unknown, what = 'remove'): Json {
  const { parent, key } = locate(doc, path, what);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length - 1) ?? invalidIndex(key), 1);
  else if (Object.hasOwn(parent, key)) delete parent[key];
  else throw patchRejected(`Unable to remove nonexistent key: ${key}: missing value`);
  return doc;
}

function replace(doc: Json, path: unknown, value: Json): Json {
  if (path === '') return value;
  const { parent, key } = locate(doc, path, 'replace');
  if (Array.isArray(parent)) parent[arrayIndex(key, parent.length - 1) ?? invalidIndex(key)] = value;
  else if (Object.hasOwn(parent, key)) setOwn(parent, key, value);
  else throw patchRejected(`replace operation does not apply: doc is missing key: ${String(path)}: missing value`);
  return doc;
}

/** RFC 6902 on a copy of target; 400 for a body that is not a patch, 422 for operations that do not apply. */
export function jsonPatch(target: Json, body: unknown): Json {
  let doc = structuredClone(target);
  for (const { op, path, from, value } of decode(body)) {
    switch (op) {
      case 'add':
        doc = add(doc, path, structuredClone(value));
        break;
      case 'remove':
        doc = remove(doc, path);
        break;
      case 'replace':
        doc = replace(doc, path, structuredClone(value));
        break;
      case 'move': {
        const moved = get(doc, from, 'move');
        doc = add(remove(doc, from, 'move'), path, moved);
        break;
      }
      case 'copy':
        doc = add(doc, path, structuredClone(get(doc, from, 'copy')));
        break;
      case 'test':
        if (!isDeepStrictEqual(get(doc, path, 'test'), value)) throw patchRejected(`testing value ${String(path)} failed: test failed`);
        break;
      default:
        throw patchRejected(`Unexpected kind: ${typeof op === 'string' ? op : 'unknown'}`);
    }
  }
  return doc;
}
