// CNS's next batch for a node with a pod subnet in dynamic mode (docs/aks-rules.md §3.8): when the node's pods hold
// every address it has, another 16 of the pod subnet are allocated to it (MicrosoftDocs/azure-docs#97370: "then
// dynamically scale"), up to maxPods' worth. The batch is written to the node's record in one store transaction,
// so the data plane routes the new addresses to the node and a restart keeps them. A full pod subnet gives nothing:
// the pod then fails with CNS's "not enough IPs available" (cluster/kubelet/ipam.ts) and waits for addresses.
import { dynamicCeiling, podIpAllocationMode, POD_SUBNET_BATCH } from '../../aks/pod-subnet.js';
import { nodeKey, poolsOf, type ClusterRecord, type NodeRecord } from '../../model/cluster-records.js';
import { podAddressOwner } from '../../providers/containerservice/network.js';
import { AddressSpaceExhaustedError, allocateAddresses } from '../../providers/network/ipam.js';
import type { Store } from '../../store/store.js';
import { sameId } from '../../ids/compare.js';

/** The node's new batch of pod-subnet addresses, or undefined when it may not or cannot have one. */
export function growPodSubnetBatch(store: Store, cluster: ClusterRecord, nodeName: string): string[] | undefined {
  return store.transaction(() => {
    const key = nodeKey(cluster.id, nodeName);
    const node = store.get<NodeRecord>(key);
    if (!node?.podSubnetId || !node.podSubnetIps) return undefined;
    const pool = poolsOf(store, cluster).find((p) => sameId(p.name, node.pool));
    if (!pool || podIpAllocationMode(pool.resolved) !== 'DynamicIndividual') return undefined;
    if (node.podSubnetIps.length + POD_SUBNET_BATCH > dynamicCeiling(pool.resolved)) return undefined;
    let batch: string[];
    try {
      batch = allocateAddresses(store, node.podSubnetId, podAddressOwner(cluster, nodeName), POD_SUBNET_BATCH);
    } catch (e) {
      if (e instanceof AddressSpaceExhaustedError) return undefined;
      throw e;
    }
    store.put(key, { ...node, podSubnetIps: [...node.podSubnetIps, ...batch] } satisfies NodeRecord);
    return batch;
  });
}
