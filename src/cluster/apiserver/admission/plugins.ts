// The admission plugins the apiserver runs on every write, in the order of kube-apiserver's
// (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins), as data: each names the resources it acts on and its
// hooks. A kind's own defaulting and validation are its strategy (kinds.ts); these are the plugins AKS enables that
// change what a write does. The API (api.ts) calls them at the points kube-apiserver does:
//   validateCreate  before a create is defaulted (NamespaceLifecycle: no new content in a Terminating namespace);
//   mutate          on a create or update, after the kind's defaults and before its validation (Priority fills
//                   spec.priority, which validation then checks; DefaultStorageClass names the default class);
//   admitDeletion   before a delete marks anything, dry run or not (NamespaceLifecycle's immortal namespaces).
// Controllers that write pods themselves (controllers/pods.ts) go through the same functions.
import type { KubeObject } from '../../apimachinery/object.js';
import { NAMESPACES, PERSISTENTVOLUMECLAIMS, PODS, type ResourceType } from '../../apimachinery/resources.js';
import type { ObjectStore } from '../storage/store.js';
import { defaultStorageClass } from './default-storage-class.js';
import { refuseIfTerminating, refuseImmortalDeletion } from './namespace-lifecycle.js';
import { admitPriority } from './priority.js';

export interface AdmissionPlugin {
  /** Kubernetes' name for it (--enable-admission-plugins). */
  readonly name: string;
  /** The resources it acts on; every resource without it. */
  readonly resources?: readonly ResourceType[];
  validateCreate?(objects: ObjectStore, r: ResourceType, namespace: string | undefined, name: string): void;
  mutate?(objects: ObjectStore, obj: KubeObject, existing: KubeObject | undefined): void;
  admitDeletion?(existing: KubeObject): void;
}

export const ADMISSION_PLUGINS: readonly AdmissionPlugin[] = [
  { name: 'NamespaceLifecycle', validateCreate: refuseIfTerminating },
  { name: 'NamespaceLifecycle', resources: [NAMESPACES], admitDeletion: refuseImmortalDeletion },
  {
    name: 'Priority',
    resources: [PODS],
    mutate: (objects, pod, existing) => {
      if (!existing) admitPriority(objects, pod);
    },
  },
  { name: 'DefaultStorageClass', resources: [PERSISTENTVOLUMECLAIMS], mutate: (objects, pvc, existing) => defaultStorageClass(pvc, existing, objects) },
];

/** Each resource's plugins, found once: every write asks (a CRD's ResourceTypes come and go, hence weakly held). */
const byResource = new WeakMap<ResourceType, readonly AdmissionPlugin[]>();

function pluginsFor(r: ResourceType): readonly AdmissionPlugin[] {
  let found = byResource.get(r);
  if (!found) byResource.set(r, (found = ADMISSION_PLUGINS.filter((p) => !p.resources || p.resources.includes(r))));
  return found;
}

/** The plugins' checks of a create, before anything is defaulted. */
export function validateCreate(objects: ObjectStore, r: ResourceType, namespace: string | undefined, name: string): void {
  for (const p of pluginsFor(r)) p.validateCreate?.(objects, r, namespace, name);
}

/** The plugins' changes to a written object, between the kind's defaults and its validation. */
export function mutate(objects: ObjectStore, r: ResourceType, obj: KubeObject, existing: KubeObject | undefined): void {
  for (const p of pluginsFor(r)) p.mutate?.(objects, obj, existing);
}

/** The plugins' checks of a delete, before anything is marked. */
export function admitDeletion(r: ResourceType, existing: KubeObject): void {
  for (const p of pluginsFor(r)) p.admitDeletion?.(existing);
}
