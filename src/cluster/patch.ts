// PATCH bodies: JSON merge patch (RFC 7386), strategic merge patch as kubectl sends it for built-in kinds
// (lists of objects merged by their patch merge key; `$setElementOrder`, `$patch`, `$retainKeys` honoured or
// dropped), and JSON patch (RFC 6902) for the simple ops.
import { badRequest } from './status.js';

type Json = unknown;
type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** The merge keys of the built-in types' lists (the `patchMergeKey` tags kubectl's compiled-in schemas carry). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  imagePullSecrets: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  ports: 'containerPort',
  conditions: 'type',
  tolerations: 'key',
  hostAliases: 'ip',
  ownerReferences: 'uid',
  topologySpreadConstraints: 'topologyKey',
};

export function strategicMergePatch(target: Json, patch: Json, field = ''): Json {
  if (!isObject(patch)) {
    if (Array.isArray(patch) && Array.isArray(target) && MERGE_KEYS[field]) return mergeList(target, patch, MERGE_KEYS[field]!);
    return patch;
  }
  if (patch['$patch'] === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch['$patch'] === 'delete') return undefined;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  const retain = patch['$retainKeys'];
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const merged = strategicMergePatch(out[k], v, k);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  for (const [k, v] of Object.entries(patch)) {
    const m = /^\$deleteFromPrimitiveList\/(.+)$/.exec(k);
    if (m && Array.isArray(out[m[1]!]) && Array.isArray(v)) out[m[1]!] = (out[m[1]!] as unknown[]).filter((x) => !v.includes(x));
  }
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

function mergeList(target: unknown[], patch: unknown[], key: string): unknown[] {
  if (!patch.every((p) => isObject(p)) || !target.every((t) => isObject(t))) return patch;
  const out = target.map((t) => ({ ...(t as JsonObject) })) as unknown[];
  for (const p of patch as JsonObject[]) {
    const i = out.findIndex((t) => (t as JsonObject)[key] === p[key]);
    if (p['$patch'] === 'delete') {
      if (i >= 0) out.splice(i, 1);
    } else if (i >= 0) out[i] = strategicMergePatch(out[i], p);
    else out.push(stripDirectives(p));
  }
  return out;
}

function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('$')).map(([k, x]) => [k, stripDirectives(x)]));
}

function pointer(path: string): string[] {
  return path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function jsonPatch(target: Json, ops: unknown): Json {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array');
  let doc = structuredClone(target);
  for (const op of ops as Array<{ op: string; path: string; value?: unknown; from?: string }>) {
    const parts = pointer(op.path);
    const last = parts.pop()!;
    let parent: any = doc;
    for (const p of parts) parent = parent?.[p];
    if (parent === undefined || parent === null) throw badRequest(`jsonpatch ${op.op} operation does not apply: doc is missing path: ${op.path}`);
    switch (op.op) {
      case 'add':
      case 'replace':
        if (Array.isArray(parent)) {
          if (last === '-') parent.push(op.value);
          else if (op.op === 'add') parent.splice(Number(last), 0, op.value);
          else parent[Number(last)] = op.value;
        } else parent[last] = op.value;
        break;
      case 'remove':
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete parent[last];
        break;
      case 'test':
        if (JSON.stringify(parent[last]) !== JSON.stringify(op.value)) throw new Error('testing value failed');
        break;
      default:
        throw badRequest(`unsupported json patch op ${op.op}`);
    }
    if (parts.length === 0 && last === '') doc = op.value;
  }
  return doc;
}
