// The apiserver as the components above it see it (docs/architecture.md §10): the one module of this folder they
// import. What it exports is what they may use; the rest of the folder is the apiserver's own.

// The objects and their change stream: what every controller, the scheduler and the kubelets read, write and watch
// in process, as client-go's informers and clients do through the real apiserver.
export { ObjectStore } from './storage/store.js';
export type { Change } from './storage/store.js';

// A write as the API makes it, for components that create objects themselves (controllers' pods, AKS's addons):
// the defaults, then the admission plugins.
export { workloadDefaults } from './admission/defaults.js';
export { admitDeletion, mutate, validateCreate } from './admission/plugins.js';

// DELETE as the generic registry carries it out: finalizers, propagation, graceful pods (the garbage collector and
// the namespace controller delete as the API would), and the kinds served, for what a namespace holds.
export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, deleteObject, finalizersOf, finishIfDue, removeFinalizer } from './deletion.js';
export { deletePodGracefully, resumePodDeletion } from './pod-deletion.js';
export { catalogOf } from './catalog.js';
export type { Catalog } from './catalog.js';
export type { KindHost } from './kind-behaviour.js';

// What the kubelet serves to the apiserver (pods/log) and receives from it (projected service-account tokens).
export { containerOf } from './pod-logs.js';
export type { LogLine, LogListener, LogReader, LogRef } from './pod-logs.js';
export {
  SERVICE_ACCOUNT_DIR,
  projectedServiceAccount,
  projectedServiceAccountWhenRead,
  serviceAccountKey,
  serviceAccountOf,
} from './service-account-tokens.js';
export type { ServiceAccountIssuer } from './service-account-tokens.js';

// The API itself and how it is served, for the assembly (cluster.ts, server.ts) and the in-process client: the
// request handler, its HTTPS and unix-socket listeners and their limits, the objects' persistence and ceiling, and
// the Node writes kept apart from the Nodes rebuilt from their records.
export { ClusterApi } from './api.js';
export { answerWhileLoading, type LoadingCluster } from './loading-lists.js';
export { serveWatch } from './watch-stream.js';
export type { ApiRequest, ApiResponse } from './api.js';
export { apiHttpsServer } from './api-https.js';
export type { ApiTls } from './api-https.js';
export { ApiSocket, apiSocketOf } from './api-socket.js';
export { MAX_BODY_BYTES, bodyTooLarge } from './validation/limits.js';
export { ObjectBudget, ObjectCeiling } from './storage/ceiling.js';
export { ObjectPersistence, forgetObjects } from './storage/persistence.js';
export { withWritten, writtenPart } from './node-writes.js';
