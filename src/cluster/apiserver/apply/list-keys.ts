// How server-side apply identifies the items of a list, by the list's field name: associative lists
// (x-kubernetes-list-type: map) by their x-kubernetes-list-map-keys, set lists by their values, the rest atomic.
// The built-in types' keys as their OpenAPI schemas declare them (staging/src/k8s.io/api/core/v1/types.go
// +listType / +listMapKey, and patchMergeKey where no listType is given, which the schema converter reads as
// the map key); ports are told apart by their items (a container's by containerPort, a Service's by port).
import { isPlainObject } from '../../../http/own.js';

const MAP_KEYS: Record<string, string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  imagePullSecrets: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  conditions: ['type'],
  hostAliases: ['ip'],
  ownerReferences: ['uid'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
  resourceClaims: ['name'],
  schedulingGates: ['name'],
};

/** Lists whose items are their own identity (metadata.finalizers). */
const SET_LISTS = new Set(['finalizers']);

/** What the apiserver defaults a key field to when an item leaves it out (Protocol: TCP). */
const KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

export type ListType = { type: 'map'; keys: string[] } | { type: 'set' } | { type: 'atomic' };

/** The kind of list `items` is when held in field `field`. */
export function listType(field: string, items: unknown[]): ListType {
  if (SET_LISTS.has(field) && items.every((v) => v === null || typeof v !== 'object')) return { type: 'set' };
  let keys = MAP_KEYS[field];
  if (field === 'ports') {
    const first = items.find(isPlainObject);
    keys = first && 'containerPort' in first ? ['containerPort', 'protocol'] : ['port', 'protocol'];
  }
  if (keys && items.every(isPlainObject)) return { type: 'map', keys };
  return { type: 'atomic' };
}

/** An item's key as FieldsV1 spells it: its key fields (defaulted where the apiserver defaults them), sorted. */
export function itemKey(item: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of [...keys].sort()) {
    const v = Object.hasOwn(item, k) ? item[k] : KEY_DEFAULTS[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
