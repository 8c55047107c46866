// The DefaultStorageClass admission plugin (plugin/pkg/admission/storage/storageclass/setdefault): a new claim
// that names no class gets the cluster's default one.
import type { KubeObject } from '../../apimachinery/object.js';
import { STORAGECLASSES } from '../../apimachinery/resources.js';
import { isPlainObject } from '../../../http/own.js';
import { isDefaultClass } from '../group-printers.js';
import type { ObjectStore } from '../storage/store.js';

/** The DefaultStorageClass admission plugin: a new claim without a class gets the default one (the newest, if several). */
export function defaultStorageClass(pvc: KubeObject, existing: KubeObject | undefined, objects: ObjectStore): void {
  const spec = pvc['spec'];
  if (existing || !isPlainObject(spec) || spec['storageClassName'] !== undefined) return;
  const defaults = objects.list(STORAGECLASSES).filter(isDefaultClass);
  defaults.sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')));
  if (defaults[0]) spec['storageClassName'] = defaults[0].metadata.name;
}
