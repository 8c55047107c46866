// Pods made from a controller's template (ReplicaSet and DaemonSet controllers): the template's metadata
// and spec, a generated name, the controller's ownerReference, and the apiserver's defaults for a new pod.
import type { KubeObject, ObjectMeta } from '../apimachinery/object.js';
import type { PodSpec, PodTemplateSpec } from '../apimachinery/types.js';
import { mutate, type ObjectStore, validateCreate, workloadDefaults } from '../apiserver/index.js';
import { ownerReference } from '../client/context.js';
import { PODS } from '../apimachinery/resources.js';
import { randomSuffix } from '../apimachinery/generated-names.js';

/**
 * What createPodFrom copies of a template, as JSON, once per template object: a stored object is replaced, never
 * changed in place (daemonsets.ts's template hash relies on it too), and a status write keeps its spec's objects
 * (sharing.ts), so a controller's pods of one template (a ReplicaSet's, a DaemonSet's bursts) serialize it once.
 */
const texts = new WeakMap<PodTemplateSpec, string>();

function templateText(template: PodTemplateSpec | undefined): string {
  if (template === undefined) return JSON.stringify([{}, {}]);
  let text = texts.get(template);
  if (text === undefined) texts.set(template, (text = JSON.stringify([template.metadata ?? {}, template.spec ?? {}])));
  return text;
}

export function createPodFrom(
  objects: ObjectStore,
  owner: KubeObject,
  template: PodTemplateSpec | undefined,
  extra: { labels?: Record<string, string>; spec?: (spec: PodSpec) => void } = {},
): KubeObject {
  const namespace = owner.metadata.namespace!;
  let name: string;
  do name = `${owner.metadata.name}-${randomSuffix()}`;
  while (objects.get(PODS, namespace, name));
  validateCreate(objects, PODS, namespace, name);
  // A copy the admission below may change, made through JSON as the store copies (a stored template is JSON): a
  // structured clone allocated ~1.7 times the bytes per pod, a burst's garbage (docs/performance.md §7.15).
  const [meta, spec] = JSON.parse(templateText(template)) as [Partial<ObjectMeta>, PodSpec];
  // The template's creationTimestamp (null) is not the pod's.
  delete meta.creationTimestamp;
  extra.spec?.(spec);
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta,
      name,
      generateName: `${owner.metadata.name}-`,
      namespace,
      labels: { ...(meta.labels ?? {}), ...(extra.labels ?? {}) },
      ownerReferences: [ownerReference(owner)],
    },
    spec,
  };
  workloadDefaults('Pod', pod, true);
  // Controllers' pods pass the apiserver's admission plugins too: Priority resolves their class.
  mutate(objects, PODS, pod, undefined);
  return objects.put(PODS, pod);
}
