// policy/v1 (field numbers: k8s.io/api policy/v1/generated.proto): `kubectl create poddisruptionbudget`.
import type { GroupTables } from './schema.js';

export const POLICY_V1: GroupTables = {
  apiVersion: 'policy/v1',
  kinds: ['PodDisruptionBudget'],
  messages: {
    PodDisruptionBudget: { 1: 'metadata ObjectMeta', 2: 'spec PodDisruptionBudgetSpec', 3: 'status PodDisruptionBudgetStatus' },
    PodDisruptionBudgetSpec: {
      1: 'minAvailable IntOrString',
      2: 'selector LabelSelector',
      3: 'maxUnavailable IntOrString',
      4: 'unhealthyPodEvictionPolicy string!',
    },
    // Server-owned; its counters have no omitempty, so an empty status still reads as zeros.
    PodDisruptionBudgetStatus: {
      1: 'observedGeneration int64',
      3: 'disruptionsAllowed int32!',
      4: 'currentHealthy int32!',
      5: 'desiredHealthy int32!',
      6: 'expectedPods int32!',
    },
  },
};
