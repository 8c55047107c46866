// The object az prints for an SDK-typed response: the SDK deserializes the wire JSON into a model and
// azure-cli turns it back into a dict (knack todict + remove_additional_prop_layer). So keys are the
// camel-cased Python names (enableRbac, osDiskSizeGb), `properties` is flattened away, every model
// attribute is present (null when the server did not send it) and unknown wire members stay as sent.
import { MODELS } from './models.generated.js';

/** [wire path, az key, nested model, list|dict|one, read-only] */
type ModelAttr = [string[], string, string | null, 'list' | 'dict' | 'one', boolean];
export type ModelTable = Record<string, ModelAttr[]>;

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lookup(data: Record<string, Json>, path: string[]): Json {
  let cur: Json = data;
  for (const part of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function convert(model: string | null, kind: ModelAttr[3], value: Json): Json {
  if (value === undefined || value === null) return null;
  if (model === null) return value;
  if (kind === 'list') return Array.isArray(value) ? value.map((v) => toAzView(model, v)) : null;
  if (kind === 'dict') {
    if (!isObject(value)) return null;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toAzView(model, v)]));
  }
  return toAzView(model, value);
}

/** The az view of `data` deserialized as `model` (e.g. 'cs.ManagedCluster'). */
export function toAzView(model: string, data: Json): Json {
  const attrs = MODELS[model];
  if (!attrs) throw new Error(`unknown model ${model}`);
  if (!isObject(data)) return data ?? null;
  const out: Record<string, Json> = {};
  const known = new Set<string>();
  for (const [path, key, nested, kind] of attrs) {
    known.add(path[0]!);
    out[key] = convert(nested, kind, lookup(data, path));
  }
  // remove_additional_prop_layer: members the model does not know are kept, raw.
  for (const [key, value] of Object.entries(data)) if (!known.has(key)) out[key] = value;
  return out;
}

/**
 * The wire body the SDK sends back when az PUTs a model it read (aks scale, nodepool scale): the
 * same members as read, minus what the model marks read-only.
 */
export function withoutReadOnly(model: string, data: Json): Json {
  const attrs = MODELS[model];
  if (!attrs || !isObject(data)) return data;
  const out: Record<string, Json> = {};
  for (const [path, , nested, kind, readOnly] of attrs) {
    if (readOnly) continue;
    const value = lookup(data, path);
    if (value === undefined || value === null) continue;
    let serialized: Json = value;
    if (nested !== null) {
      if (kind === 'list' && Array.isArray(value)) serialized = value.map((v) => withoutReadOnly(nested, v));
      else if (kind === 'dict' && isObject(value)) serialized = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutReadOnly(nested, v)]));
      else serialized = withoutReadOnly(nested, value);
    }
    let target = out;
    for (const part of path.slice(0, -1)) {
      if (!isObject(target[part])) target[part] = {};
      target = target[part] as Record<string, Json>;
    }
    target[path[path.length - 1]!] = serialized;
  }
  return out;
}
