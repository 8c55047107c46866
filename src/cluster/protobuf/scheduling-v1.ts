// scheduling.k8s.io/v1 (field numbers: k8s.io/api scheduling/v1/generated.proto): `kubectl create priorityclass`.
import type { GroupTables } from './schema.js';

export const SCHEDULING_V1: GroupTables = {
  apiVersion: 'scheduling.k8s.io/v1',
  kinds: ['PriorityClass'],
  messages: {
    PriorityClass: { 1: 'metadata ObjectMeta', 2: 'value int32!', 3: 'globalDefault bool', 4: 'description string', 5: 'preemptionPolicy string!' },
  },
};
