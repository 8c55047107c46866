// The store's internal keys: everything it keeps that is not an ARM resource (an ARM resource's key is its id,
// which starts with '/'). They are listed in one module because the store lists and deletes by prefix: a family
// whose prefix began another's would list, or delete, the other's entries too. Seen together, no two can collide
// (test/store/keys.test.ts checks it). The module sits in the store layer (docs/architecture.md §1) because every
// layer that owns a family (arm, model, providers, cluster) is above the store, and the store is where the key
// space is; the store gives the families no meaning of its own.

/** Node records: `aksemu:nodes<cluster id>/<node name>` (model/cluster-records.ts). */
export const NODES_PREFIX = 'aksemu:nodes';

/** A cluster's Kubernetes objects, `aksemu:k8s<cluster id>/…`, and its revision counter (cluster/apiserver/storage/persistence.ts). */
export const K8S_OBJECTS_PREFIX = 'aksemu:k8s';

/** A cluster API's port and credential: `aksemu:clusterapi<cluster id>` (cluster/server.ts). */
export const CLUSTER_API_PREFIX = 'aksemu:clusterapi';

/** Long-running operations by operation id (arm/lro.ts). */
export const OPERATIONS_PREFIX = 'aksemu:operations/';

/** The key that signs the ARM tokens aksemu issues (arm/auth.ts). */
export const SIGNING_KEY = 'aksemu:signing-key';

/** The tenant, subscription and service principal of this aksemu (arm/identity.ts). */
export const IDENTITY_KEY = 'aksemu:identity';

/** Role assignments by name, whatever their scope (providers/authorization/roleAssignmentStore.ts). */
export const ROLE_ASSIGNMENTS_PREFIX = 'aksemu:authorization/roleAssignments/';

/** Address allocations by subnet, then owner: `…<subnet id>|<owner>` (providers/network/allocations.ts). */
export const IPAM_BY_SUBNET_PREFIX = 'aksemu:ipam/subnet:';

/** The same allocations indexed by owner, then subnet. */
export const IPAM_BY_OWNER_PREFIX = 'aksemu:ipam/owner:';

/** Each subnet's allocation generation, which tells the in-memory allocators they are stale. */
export const IPAM_GENERATION_PREFIX = 'aksemu:ipam/generation:';

/** Public IP addresses of the emulated range held, by address: `aksemu:publicip/<address>` (providers/network/publicAddresses.ts). */
export const PUBLIC_IP_PREFIX = 'aksemu:publicip/';
