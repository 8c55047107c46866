// rbac.authorization.k8s.io/v1 (field numbers: k8s.io/api rbac/v1/generated.proto): `kubectl create role,
// clusterrole, rolebinding, clusterrolebinding`.
import type { GroupTables } from './schema.js';

export const RBAC_V1: GroupTables = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kinds: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
  messages: {
    Role: { 1: 'metadata ObjectMeta', 2: 'rules PolicyRule[]!' },
    ClusterRole: { 1: 'metadata ObjectMeta', 2: 'rules PolicyRule[]!', 3: 'aggregationRule AggregationRule' },
    AggregationRule: { 1: 'clusterRoleSelectors LabelSelector[]' },
    PolicyRule: { 1: 'verbs string[]!', 2: 'apiGroups string[]', 3: 'resources string[]', 4: 'resourceNames string[]', 5: 'nonResourceURLs string[]' },
    RoleBinding: { 1: 'metadata ObjectMeta', 2: 'subjects Subject[]', 3: 'roleRef RoleRef' },
    ClusterRoleBinding: { 1: 'metadata ObjectMeta', 2: 'subjects Subject[]', 3: 'roleRef RoleRef' },
    Subject: { 1: 'kind string!', 2: 'apiGroup string', 3: 'name string!', 4: 'namespace string' },
    RoleRef: { 1: 'apiGroup string!', 2: 'kind string!', 3: 'name string!' },
  },
};
