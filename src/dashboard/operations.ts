// Long-running operations as the dashboard lists them (docs/dashboard.md §3): newest first, at most 100, each with
// what it did to which resource.
import type { Operation as ArmOperation } from '../arm/lro.js';
import { OPERATIONS_PREFIX } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { idKey } from '../ids/compare.js';
import { nameOf } from './resources.js';

export interface OperationView {
  id: string;
  resourceId: string;
  name: string;
  kind: 'create' | 'update' | 'delete' | 'other';
  status: ArmOperation['status'];
  startTime: string;
  endTime?: string;
  error?: { code: string; message: string };
}

const MAX_OPERATIONS = 100;

/** Every operation, or those on resources under `scope` (a resource group's id), newest first. */
export function operationsView(store: Store, scope?: string): OperationView[] {
  const all = store.list<ArmOperation>(OPERATIONS_PREFIX).map((e) => e.value);
  all.sort((a, b) => (a.startTime < b.startTime ? -1 : a.startTime > b.startTime ? 1 : 0));
  // A PUT is an update when an earlier PUT on the same resource succeeded; the store keeps no other sign of it.
  const created = new Set<string>();
  const views: OperationView[] = [];
  for (const op of all) {
    const key = idKey(op.resourceId);
    const kind =
      op.method === 'DELETE' ? 'delete' : op.method === 'PATCH' ? 'update' : op.method === 'PUT' ? (created.has(key) ? 'update' : 'create') : 'other';
    if (op.method === 'PUT' && op.status === 'Succeeded') created.add(key);
    if (op.method === 'DELETE' && op.status === 'Succeeded') created.delete(key);
    if (scope !== undefined && !(key === idKey(scope) || key.startsWith(`${idKey(scope)}/`))) continue;
    views.push({
      id: op.id,
      resourceId: op.resourceId,
      name: nameOf(op.resourceId),
      kind,
      status: op.status,
      startTime: op.startTime,
      ...(op.endTime === undefined ? {} : { endTime: op.endTime }),
      ...(op.error === undefined ? {} : { error: { code: op.error.code, message: op.error.message } }),
    });
  }
  return views.reverse().slice(0, MAX_OPERATIONS);
}
