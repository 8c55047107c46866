// The read-only lists a referenced resource shows of who references it: a route table's and an NSG's
// `subnets`, an NSG's `networkInterfaces`. They are kept on the referenced record (not recomputed by
// scanning every subnet on each read), updated by whoever adds or drops the reference.
import type { Store } from '../../store/store.js';
import { sameId } from '../../ids/compare.js';
import type { SubResource } from './resource.js';

type Member = 'subnets' | 'networkInterfaces' | 'publicIPAddresses';

interface WithBackReferences {
  properties: { subnets?: SubResource[]; networkInterfaces?: SubResource[]; publicIPAddresses?: SubResource[] };
}

function update(store: Store, targetId: string, member: Member, fn: (list: SubResource[]) => SubResource[]): void {
  const target = store.get<WithBackReferences>(targetId);
  if (!target) return;
  const list = fn(target.properties[member] ?? []);
  store.put(targetId, { ...target, properties: { ...target.properties, [member]: list } });
}

export function addBackReference(store: Store, targetId: string, member: Member, sourceId: string): void {
  update(store, targetId, member, (list) => (list.some((r) => sameId(r.id, sourceId)) ? list : [...list, { id: sourceId }]));
}

export function removeBackReference(store: Store, targetId: string, member: Member, sourceId: string): void {
  update(store, targetId, member, (list) => list.filter((r) => !sameId(r.id, sourceId)));
}

/** Moves a back-reference when a source's reference changes from `before` to `after` (either may be undefined). */
export function moveBackReference(store: Store, member: Member, sourceId: string, before: string | undefined, after: string | undefined): void {
  if (sameId(before, after)) return;
  if (before) removeBackReference(store, before, member, sourceId);
  if (after) addBackReference(store, after, member, sourceId);
}
