// Server-side apply (PATCH application/apply-patch+yaml), as the apiserver's field manager does it with
// structured-merge-diff: the applied configuration is merged into the live object (maps by key, associative
// lists by their keys, set lists by value, the rest replaced); a field another manager owns with a different
// value is a conflict — 409 worded as staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager
// (internal/conflict.go) words it — unless force=true, which takes the field from them; fields this manager
// applied before and no longer applies are removed when no one else owns them. The manager's Apply entry then
// owns exactly the applied fields.
import { isDeepStrictEqual } from 'node:util';
import { isPlainObject, own, setOwn, type Dict } from '../../../http/own.js';
import { clone, type KubeObject } from '../../apimachinery/object.js';
import { KubeError, type StatusCause } from '../../apimachinery/status.js';
import { FieldSet, fieldsOf, fieldValues, ownedOrAbove, pathOf, pathString, removeMembers, type Path, type Scope } from './field-set.js';
import { itemKey, listType } from './list-keys.js';
import { isItem, readManagers, sameManager, writeManagers, type Manager } from './managed-fields.js';
import { k8sTime } from '../../apimachinery/time.js';

export interface ApplyRequest {
  manager: string;
  apiVersion: string;
  force: boolean;
  /** 'status': an apply to the status subresource, which applies the status and nothing else. */
  subresource?: string;
  now?: number;
}

interface Conflict {
  manager: Manager;
  path: Path;
}

/** printManager: `"m"` for an Apply, `"m" using apps/v1` for an Update (the identifier carries no time). */
function printManager(m: Manager): string {
  const name = `${JSON.stringify(m.manager)}${m.subresource ? ` with subresource ${JSON.stringify(m.subresource)}` : ''}`;
  return m.operation === 'Update' ? `${name} using ${m.apiVersion}` : name;
}

/** errors.NewApplyConflict with getConflictMessage's words. */
export function conflictError(conflicts: Conflict[]): KubeError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const key = printManager(c.manager);
      byManager.set(key, [...(byManager.get(key) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const key of [...byManager.keys()].sort()) lines.push(`conflicts with ${key}:`, ...byManager.get(key)!.map((p) => `- ${p}`));
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new KubeError(409, 'Conflict', message, { causes });
}

/** The live value merged with the applied one, as structured-merge-diff merges them. */
export function mergeApplied(live: unknown, applied: unknown, field = ''): unknown {
  if (isPlainObject(applied)) {
    const out: Dict = isPlainObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else setOwn(out, k, mergeApplied(own(out, k), v, k));
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const lt = listType(field, applied);
    if (lt.type === 'set') {
      const seen = new Set(live.map((x) => JSON.stringify(x)));
      return [...live, ...applied.filter((v) => !seen.has(JSON.stringify(v)))];
    }
    if (lt.type === 'map' && live.every(isPlainObject)) {
      const key = (item: Dict) => JSON.stringify(itemKey(item, lt.keys));
      const out = live.map((x) => x as unknown);
      // Items by key, once: a long list must not cost its length squared.
      const at = new Map<string, number>();
      out.forEach((x, i) => at.set(key(x as Dict), i));
      for (const item of applied as Dict[]) {
        const i = at.get(key(item));
        if (i !== undefined) out[i] = mergeApplied(out[i], item);
        else at.set(key(item), out.push(clone(item)) - 1);
      }
      return out;
    }
  }
  return clone(applied);
}

/**
 * `config` applied by `req.manager` to `live` (none: the object is created): the merged object with its
 * managedFields, or the 409 conflict.
 */
export function serverSideApply(live: KubeObject | undefined, config: Dict, req: ApplyRequest): KubeObject {
  const status = req.subresource === 'status';
  const scope: Scope = status ? 'status' : 'main';
  const configValues = fieldValues(config, scope);
  const applied = FieldSet.ofKeys(configValues.keys());
  const managers = readManagers(live);
  const others = managers.filter((m) => !sameManager(m, req.manager, 'Apply', req.subresource));
  const conflicts: Conflict[] = [];
  const liveValues = live ? fieldValues(live, scope) : new Map<string, unknown>();
  for (const m of others) {
    for (const [key, mine] of configValues) {
      if (!m.fields.hasKey(key) || !liveValues.has(key)) continue;
      const now = liveValues.get(key);
      // Items and maps are never in conflict themselves (an empty map is a member): only leaves are.
      if (!isItem(key) && !(isPlainObject(mine) && isPlainObject(now)) && !isDeepStrictEqual(now, mine)) conflicts.push({ manager: m, path: pathOf(key) });
    }
  }
  if (conflicts.length > 0 && !req.force && !upgradesClientSideApply(live, req.manager, conflicts)) throw conflictError(conflicts);
  for (const c of conflicts) c.manager.fields.delete(c.path);
  const previous = managers.find((m) => sameManager(m, req.manager, 'Apply', req.subresource));
  const merged = (
    status && live
      ? { ...clone(live), status: mergeApplied(clone(live['status']), config['status'], 'status') }
      : live
        ? mergeApplied(clone(live), config)
        : clone(config)
  ) as KubeObject;
  if (previous) releaseDropped(merged, previous.fields.minus(applied), others, scope);
  const mine: Manager = {
    manager: req.manager,
    operation: 'Apply',
    apiVersion: req.apiVersion,
    time: k8sTime(req.now ?? Date.now()),
    ...(req.subresource ? { subresource: req.subresource } : {}),
    fields: applied,
  };
  const kept = managers.map((m) => (m === previous ? mine : m));
  if (!previous) kept.push(mine);
  writeManagers(merged, kept);
  keepLastApplied(live, merged, config, req.manager);
  return merged;
}

/** kubectl's client-side apply keeps the applied object here. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function lastApplied(obj: KubeObject | undefined): string | undefined {
  const v = obj?.metadata.annotations?.[LAST_APPLIED];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * lastAppliedManager: kubectl's server-side apply of an object it applied client-side before does not
 * conflict over the fields the last-applied annotation holds (it is the same user taking them over).
 */
function upgradesClientSideApply(live: KubeObject | undefined, manager: string, conflicts: Conflict[]): boolean {
  const text = manager === 'kubectl' ? lastApplied(live) : undefined;
  if (!text) return false;
  let before: unknown;
  try {
    before = JSON.parse(text);
  } catch {
    return false;
  }
  const allowed = fieldsOf(before);
  return conflicts.every((c) => allowed.has(c.path));
}

/** lastAppliedUpdater: kubectl's server-side apply keeps an existing last-applied annotation in step. */
function keepLastApplied(live: KubeObject | undefined, merged: KubeObject, config: Dict, manager: string): void {
  if (manager !== 'kubectl' || !lastApplied(live)) return;
  const applied = clone(config) as KubeObject;
  if (isPlainObject(applied.metadata) && isPlainObject(applied.metadata.annotations)) delete applied.metadata.annotations[LAST_APPLIED];
  merged.metadata.annotations = { ...(merged.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(applied) };
}

/** Fields the manager stopped applying: removed from the object unless another manager owns them (or below them). */
function releaseDropped(obj: KubeObject, dropped: FieldSet, others: Manager[], scope: Scope): void {
  const held = ownedOrAbove(others.map((m) => m.fields));
  // An item's key fields are the item's own: they go with it or not at all.
  removeMembers(obj, new Set([...dropped.keys()].filter((k) => !held.has(k) && !isKeyField(k))), scope);
}

/** Whether a member is a key field of the list item it is in (`...k:{"name":"x"}`, `f:name`). */
function isKeyField(key: string): boolean {
  const path = pathOf(key);
  const item = path[path.length - 2] ?? '';
  const field = path[path.length - 1] ?? '';
  return item.startsWith('k:') && field.startsWith('f:') && Object.hasOwn(JSON.parse(item.slice(2)) as object, field.slice(2));
}
