// metadata.managedFields as the apiserver's field manager keeps them (staging/src/k8s.io/apimachinery/pkg/util/
// managedfields): one entry per manager, operation (Apply or Update) and subresource, with the fields it owns as
// FieldsV1. An Update makes its manager the owner of every field it changed and takes them from the others; a
// field that is gone is owned by no one; entries that own nothing are dropped.
import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '../../../http/own.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { k8sTime } from '../../apimachinery/time.js';
import { FieldSet, fieldValues, lastElement, type Scope } from './field-set.js';

export type Operation = 'Apply' | 'Update';

export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  subresource?: string;
  fields: FieldSet;
}

/** Who writes: the request's fieldManager, or the user agent's program name (kubectl/v1.30.0 ... → kubectl). */
export function managerName(query: URLSearchParams, userAgent: string | undefined): string {
  const named = query.get('fieldManager');
  if (named) return named;
  const agent = (userAgent ?? '').split('/')[0]!.trim();
  return agent || 'unknown';
}

export function readManagers(obj: KubeObject | undefined): Manager[] {
  const list = obj?.metadata['managedFields'];
  if (!Array.isArray(list)) return [];
  return list.filter(isPlainObject).map((e) => ({
    manager: String(e['manager'] ?? ''),
    operation: e['operation'] === 'Apply' ? 'Apply' : 'Update',
    apiVersion: String(e['apiVersion'] ?? ''),
    ...(typeof e['time'] === 'string' ? { time: e['time'] } : {}),
    ...(typeof e['subresource'] === 'string' && e['subresource'] ? { subresource: e['subresource'] } : {}),
    fields: FieldSet.fromFieldsV1(e['fieldsV1']),
  }));
}

/** Writes the managers into obj.metadata.managedFields (none: the field goes). */
export function writeManagers(obj: KubeObject, managers: Manager[]): void {
  const kept = managers.filter((m) => m.fields.size > 0);
  if (kept.length === 0) {
    delete obj.metadata['managedFields'];
    return;
  }
  obj.metadata['managedFields'] = kept.map((m) => ({
    manager: m.manager,
    operation: m.operation,
    apiVersion: m.apiVersion,
    ...(m.time ? { time: m.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: m.fields.toFieldsV1(),
    ...(m.subresource ? { subresource: m.subresource } : {}),
  }));
}

export function sameManager(m: Manager, name: string, operation: Operation, subresource: string | undefined): boolean {
  return m.manager === name && m.operation === operation && (m.subresource ?? '') === (subresource ?? '');
}

export interface Writer {
  manager: string;
  apiVersion: string;
  subresource?: string;
  now?: number;
}

/** A list item's own membership (its key or value): changed only by being added, not by what it holds. */
export function isItem(key: string): boolean {
  const last = lastElement(key);
  return last.startsWith('k:') || last.startsWith('v:');
}

/** Whether a member's value changed: leaves by value; items and maps only by appearing (their fields speak for them). */
function valueChanged(before: unknown, after: unknown, key: string): boolean {
  if (isItem(key) || (isPlainObject(before) && isPlainObject(after))) return false;
  return !isDeepStrictEqual(before, after);
}

/**
 * Records an Update by `w` that turned `existing` (none: a create) into `next`, in next's managedFields
 * (decodeLiveOrNew: the request's own managedFields when it carries some, else the stored object's).
 */
export function recordUpdate(existing: KubeObject | undefined, next: KubeObject, w: Writer): void {
  const scope: Scope = w.subresource === 'status' ? 'status' : 'main';
  const before = existing ? fieldValues(existing, scope) : new Map<string, unknown>();
  const after = fieldValues(next, scope);
  const changed = FieldSet.ofKeys([...after.keys()].filter((k) => !before.has(k) || valueChanged(before.get(k), after.get(k), k)));
  const gone = FieldSet.ofKeys([...before.keys()].filter((k) => !after.has(k)));
  // managedFields the client wrote are the base (kubectl's upgrade of client-side apply rewrites them); none: the stored ones.
  const sent = readManagers(next);
  const base = sent.some((m) => m.fields.size > 0) ? sent : readManagers(existing);
  const managers = base.map((m) => ({ ...m, fields: m.fields.minus(changed).minus(gone) }));
  let mine = managers.find((m) => sameManager(m, w.manager, 'Update', w.subresource));
  if (!mine && changed.size > 0) {
    mine = {
      manager: w.manager,
      operation: 'Update',
      apiVersion: w.apiVersion,
      ...(w.subresource ? { subresource: w.subresource } : {}),
      fields: new FieldSet(),
    };
    managers.push(mine);
  }
  if (mine && changed.size > 0) {
    mine.fields = mine.fields.union(changed);
    mine.apiVersion = w.apiVersion;
    mine.time = k8sTime(w.now ?? Date.now());
  }
  writeManagers(next, managers);
}
