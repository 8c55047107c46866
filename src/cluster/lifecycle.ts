// How Microsoft.ContainerService tells the cluster APIs that a cluster changed or went away, without
// knowing about them: the server attaches its ClusterApis to its store, the provider looks them up.
// Calls come from inside store transactions; implementations must defer their work until after commit.
import type { Store } from '../store/store.js';

export type CredentialKind = 'user' | 'admin';

export interface ClusterLifecycle {
  /** The cluster was created or changed (nodes added, removed, upgraded). */
  changed(clusterId: string): void;
  /** The cluster was deleted. */
  removed(clusterId: string): void;
  /** The kubeconfig YAML for a cluster's user or admin credential. */
  kubeconfig(clusterId: string, kind: CredentialKind): Promise<string>;
}

const attached = new WeakMap<Store, ClusterLifecycle>();

export function attachLifecycle(store: Store, lifecycle: ClusterLifecycle): void {
  attached.set(store, lifecycle);
}

export function detachLifecycle(store: Store): void {
  attached.delete(store);
}

export function lifecycleOf(store: Store): ClusterLifecycle | undefined {
  return attached.get(store);
}
