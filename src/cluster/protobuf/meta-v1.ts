// apimachinery's meta/v1 messages embedded in every object (field numbers: pkg/apis/meta/v1/generated.proto).
// They have no kind of their own: GroupTables with no kinds.
import type { GroupTables } from './schema.js';

export const META_V1: GroupTables = {
  apiVersion: 'meta.k8s.io/v1',
  kinds: [],
  // DELETE's body, registered in every group version (metav1.AddToGroupVersion): client-go's typed clients
  // (helm's Secret storage among them) send it as protobuf under their own group version.
  everyVersionKinds: ['DeleteOptions'],
  messages: {
    ObjectMeta: {
      1: 'name string',
      2: 'generateName string',
      3: 'namespace string',
      4: 'selfLink string',
      5: 'uid string',
      6: 'resourceVersion string',
      7: 'generation int64',
      8: 'creationTimestamp Time',
      9: 'deletionTimestamp Time',
      10: 'deletionGracePeriodSeconds int64!',
      11: 'labels map<string>',
      12: 'annotations map<string>',
      13: 'ownerReferences OwnerReference[]',
      14: 'finalizers string[]',
    },
    OwnerReference: {
      1: 'kind string!',
      3: 'name string!',
      4: 'uid string!',
      5: 'apiVersion string!',
      6: 'controller bool!',
      7: 'blockOwnerDeletion bool!',
    },
    DeleteOptions: {
      1: 'gracePeriodSeconds int64!',
      2: 'preconditions Preconditions',
      3: 'orphanDependents bool!',
      4: 'propagationPolicy string!',
      5: 'dryRun string[]',
      6: 'ignoreStoreReadErrorWithClusterBreakingPotential bool!',
    },
    Preconditions: {
      1: 'uid string!',
      2: 'resourceVersion string!',
    },
    LabelSelector: {
      1: 'matchLabels map<string>',
      2: 'matchExpressions LabelSelectorRequirement[]',
    },
    LabelSelectorRequirement: {
      1: 'key string!',
      2: 'operator string!',
      3: 'values string[]',
    },
  },
};
