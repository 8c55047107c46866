// apps/v1 (field numbers: k8s.io/api apps/v1/generated.proto).
import type { GroupTables } from './schema.js';

export const APPS_V1: GroupTables = {
  apiVersion: 'apps/v1',
  kinds: ['Deployment', 'ReplicaSet', 'DaemonSet'],
  messages: {
    Deployment: { 1: 'metadata ObjectMeta', 2: 'spec DeploymentSpec', 3: 'status DeploymentStatus' },
    DeploymentSpec: {
      1: 'replicas int32!',
      2: 'selector LabelSelector',
      3: 'template PodTemplateSpec',
      4: 'strategy DeploymentStrategy',
      5: 'minReadySeconds int32',
      6: 'revisionHistoryLimit int32!',
      7: 'paused bool',
      9: 'progressDeadlineSeconds int32!',
    },
    DeploymentStrategy: { 1: 'type string', 2: 'rollingUpdate RollingUpdateDeployment' },
    RollingUpdateDeployment: { 1: 'maxUnavailable IntOrString', 2: 'maxSurge IntOrString' },
    ReplicaSet: { 1: 'metadata ObjectMeta', 2: 'spec ReplicaSetSpec', 3: 'status ReplicaSetStatus' },
    ReplicaSetSpec: {
      1: 'replicas int32!',
      2: 'selector LabelSelector',
      3: 'template PodTemplateSpec',
      4: 'minReadySeconds int32',
    },
    DaemonSet: { 1: 'metadata ObjectMeta', 2: 'spec DaemonSetSpec', 3: 'status DaemonSetStatus' },
    DaemonSetSpec: {
      1: 'selector LabelSelector',
      2: 'template PodTemplateSpec',
      3: 'updateStrategy DaemonSetUpdateStrategy',
      4: 'minReadySeconds int32',
      6: 'revisionHistoryLimit int32!',
    },
    DaemonSetUpdateStrategy: { 1: 'type string', 2: 'rollingUpdate RollingUpdateDaemonSet' },
    RollingUpdateDaemonSet: { 1: 'maxUnavailable IntOrString', 2: 'maxSurge IntOrString' },
    // Status belongs to the controllers: the apiserver resets it on create and ignores it on update, so a
    // client's status decodes to {} (what a typed client sends anyway).
    DeploymentStatus: {},
    ReplicaSetStatus: {},
    DaemonSetStatus: {},
  },
};
