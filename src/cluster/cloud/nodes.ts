// Node objects as AKS makes them (docs/aks-rules.md §3, docs/clients.md §5.11) from the provisioner's NodeRecords: AKS's
// labels (ROLES `agent`), InternalIP + Hostname, capacity from the VM size with pods = maxPods, podCIDR for
// kubenet and overlay only, nodeInfo, and the kubelet's conditions (kubelet.ts decides network readiness).
import { minorOf } from '../../aks/kubernetes-versions.js';
import { instanceIdOf, vmssName } from '../../aks/naming.js';
import { networkModelOf } from '../../aks/network-models/index.js';
import { vmSize } from '../../aks/vm-sizes.js';
import { poolNodeImage, type ClusterRecord, type NodeRecord, type PoolRecord } from '../../model/cluster-records.js';
import { nodeImageOf, type NodeImage } from '../../aks/node-images.js';
import { setOwn } from '../../http/own.js';
import { k8sTime } from '../apimachinery/time.js';
import type { KubeObject } from '../apimachinery/object.js';
import { stableUid } from '../apimachinery/generated-names.js';
import { type KubeletState, NOT_READY_TAINT, READY_MESSAGE, NOT_READY_MESSAGE } from '../kubelet/node-status.js';

/** AKS's kube-reserved and eviction threshold: before 1.29 the regressive memory table + 750Mi; from 1.29 20MiB per pod + 50MiB, 100Mi. */
function resources(size: string, maxPods: number, version: string) {
  const vm = vmSize(size) ?? { vcpus: 2, memoryGiB: 8 };
  const capacityKi = Math.floor(vm.memoryGiB * 1024 * 1024 * 0.967);
  let reservedKi: number;
  if (minorOf(version) >= 29) {
    reservedKi = (20 * maxPods + 50) * 1024 + 100 * 1024;
  } else {
    const gib = vm.memoryGiB;
    const tiers: Array<[number, number]> = [
      [4, 0.25],
      [4, 0.2],
      [8, 0.1],
      [112, 0.06],
      [Infinity, 0.02],
    ];
    let left = gib;
    let reservedGiB = 0;
    for (const [size, rate] of tiers) {
      const part = Math.min(left, size);
      reservedGiB += part * rate;
      left -= part;
      if (left <= 0) break;
    }
    reservedKi = Math.floor(reservedGiB * 1024 * 1024) + 750 * 1024;
  }
  const cpuReservedMilli: Record<number, number> = { 1: 60, 2: 100, 4: 140, 8: 180, 16: 260, 32: 420, 64: 740 };
  const reservedCpu = cpuReservedMilli[vm.vcpus] ?? Math.min(740, 60 + 40 * Math.log2(vm.vcpus));
  const common = { 'ephemeral-storage': '129886128Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', pods: String(maxPods) };
  return {
    capacity: {
      cpu: String(vm.vcpus),
      'ephemeral-storage': common['ephemeral-storage'],
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${capacityKi}Ki`,
      pods: common.pods,
    },
    allocatable: {
      cpu: `${vm.vcpus * 1000 - reservedCpu}m`,
      'ephemeral-storage': '119703055367',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${Math.max(capacityKi - reservedKi, 0)}Ki`,
      pods: common.pods,
    },
  };
}

/** `…/virtualNetworks/<vnet>/subnets/<subnet>` → names; undefined parts when the id is not a subnet id. */
function subnetNames(subnetId: string): { vnet?: string; subnet?: string } {
  const m = /\/virtualNetworks\/([^/]+)\/subnets\/([^/]+)$/i.exec(subnetId);
  return m ? { vnet: m[1]!, subnet: m[2]! } : {};
}

/** The pool's `nodeTaints` ("key=value:Effect") as taints. */
function poolTaints(pool: PoolRecord | undefined): Array<Record<string, string>> {
  const raw = pool?.spec['nodeTaints'];
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((t) => {
    const m = /^([^=:]+)(?:=([^:]*))?:(\w+)$/.exec(String(t));
    return m ? [{ key: m[1]!, ...(m[2] ? { value: m[2] } : {}), effect: m[3]! }] : [];
  });
}

/**
 * What a Node takes from its cluster and pool: every node of a pool is built from the same basis, and a node whose
 * record and kubelet state are unchanged is rebuilt only when its pool's basis changes (cluster.ts compares them as
 * JSON, so everything buildNode reads of the cluster or pool goes through here).
 */
export interface NodeBasis {
  clusterId: string;
  subscriptionId: string;
  nodeResourceGroup: string;
  digits: string;
  version: string;
  img: NodeImage;
  /** The network model's node labels. */
  modelLabels: Record<string, string>;
  location: string;
  kubeletClientId: string;
  mode: string;
  size: string;
  /** The pool's nodeLabels, as the ARM request gave them (copied onto each node as data). */
  poolLabels: Array<[string, unknown]>;
  taints: Array<Record<string, string>>;
  routeTable: boolean;
  resources: ReturnType<typeof resources>;
}

export function nodeBasis(cluster: ClusterRecord, pool: PoolRecord | undefined): NodeBasis {
  const version = pool?.currentOrchestratorVersion ?? cluster.resolved.kubernetesVersion;
  const model = networkModelOf(cluster.resolved);
  const size = pool?.resolved.vmSize ?? 'Standard_DS2_v2';
  const extraLabels = pool?.spec['nodeLabels'];
  return {
    clusterId: cluster.id.toLowerCase(),
    subscriptionId: cluster.subscriptionId,
    nodeResourceGroup: cluster.nodeResourceGroup,
    digits: cluster.digits,
    version,
    // The pool's image (its OS SKU at its version), which its nodeImageVersion names too (src/aks/node-images.ts).
    img: pool ? poolNodeImage(pool) : nodeImageOf('Ubuntu', version),
    modelLabels: { ...model?.kubernetes.nodeLabels },
    location: cluster.location,
    kubeletClientId: cluster.kubeletIdentity.clientId,
    mode: (pool?.resolved.mode ?? 'User').toLowerCase(),
    size,
    poolLabels: extraLabels && typeof extraLabels === 'object' ? Object.entries(extraLabels) : [],
    taints: poolTaints(pool),
    routeTable: Boolean(model?.nic.routeTable),
    resources: resources(size, pool?.resolved.maxPods ?? 110, version),
  };
}

/** The label that is each node's own: every other label of a pool's nodes in one subnet is the same. */
const HOSTNAME = 'kubernetes.io/hostname';

/**
 * The labels of a node of `pool` in the subnet `subnetId`, sorted, with `name` as its hostname: what every node of a
 * pool in one subnet shares, and its name.
 */
function nodeLabels(basis: NodeBasis, pool: string, subnetId: string, name: string): Record<string, string> {
  const { img, size, location } = basis;
  const { vnet, subnet } = subnetNames(subnetId);
  const zone = '0';
  const labels: Record<string, string> = {
    agentpool: pool,
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/instance-type': size,
    'beta.kubernetes.io/os': img.operatingSystem,
    'failure-domain.beta.kubernetes.io/region': location,
    'failure-domain.beta.kubernetes.io/zone': zone,
    'kubernetes.azure.com/agentpool': pool,
    ...basis.modelLabels,
    'kubernetes.azure.com/cluster': basis.nodeResourceGroup,
    'kubernetes.azure.com/kubelet-identity-client-id': basis.kubeletClientId,
    'kubernetes.azure.com/managedby': 'aks',
    'kubernetes.azure.com/mode': basis.mode,
    ...(vnet ? { 'kubernetes.azure.com/network-name': vnet.slice(0, 63) } : {}),
    ...(subnet ? { 'kubernetes.azure.com/network-subnet': subnet.slice(0, 63) } : {}),
    'kubernetes.azure.com/node-image-version': img.nodeImageVersion,
    'kubernetes.azure.com/nodepool-type': 'VirtualMachineScaleSets',
    'kubernetes.azure.com/os-sku': img.osSku,
    'kubernetes.azure.com/role': 'agent',
    'kubernetes.azure.com/storageprofile': 'managed',
    'kubernetes.azure.com/storagetier': 'Premium_LRS',
    'kubernetes.io/arch': 'amd64',
    [HOSTNAME]: name,
    'kubernetes.io/os': img.operatingSystem,
    'kubernetes.io/role': 'agent',
    'node-role.kubernetes.io/agent': '',
    'node.kubernetes.io/instance-type': size,
    storageprofile: 'managed',
    storagetier: 'Premium_LRS',
    'topology.disk.csi.azure.com/zone': '',
    'topology.kubernetes.io/region': location,
    'topology.kubernetes.io/zone': zone,
  };
  // The pool's labels come from an ARM request: copied as data (Object.assign would let `__proto__` through).
  for (const [k, v] of basis.poolLabels) setOwn(labels, k, v);
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A pool's shared labels (nodeLabels) by basis, pool and subnet, and whether its own labels name the hostname. */
const SHARED_LABELS = new WeakMap<NodeBasis, Map<string, { labels: Record<string, string>; poolHostname: boolean }>>();

/**
 * nodeLabels, made and sorted once per basis, pool and subnet (a restart builds 5,000 nodes of a few pools, see
 * docs/performance.md §2.20): the shared labels copied, in their order, with the node's own hostname.
 */
function labelsOf(basis: NodeBasis, record: NodeRecord): Record<string, string> {
  let byPool = SHARED_LABELS.get(basis);
  if (!byPool) SHARED_LABELS.set(basis, (byPool = new Map()));
  const key = `${record.pool}\u0000${record.subnetId}`;
  let shared = byPool.get(key);
  if (!shared) {
    shared = { labels: nodeLabels(basis, record.pool, record.subnetId, ''), poolHostname: basis.poolLabels.some(([k]) => k === HOSTNAME) };
    byPool.set(key, shared);
  }
  const labels = { ...shared.labels };
  // The pool's labels are laid last: a hostname of theirs is every node's.
  if (!shared.poolHostname) labels[HOSTNAME] = record.name;
  return labels;
}

/** k8sTime of an RFC 3339 text, formatted once per second of the texts it is given (a restart's nodes share a few). */
function secondsOf(): (text: string) => string {
  let second = Number.NaN;
  let formatted = '';
  return (text) => {
    const ms = Date.parse(text);
    if (!Number.isFinite(ms)) return k8sTime(text);
    if (Math.floor(ms / 1000) !== second) {
      formatted = k8sTime(ms);
      second = Math.floor(ms / 1000);
    }
    return formatted;
  };
}
const createdTime = secondsOf();
const sinceTime = secondsOf();

export function buildNode(basis: NodeBasis, record: NodeRecord, kubelet: KubeletState): KubeObject {
  const { version, img } = basis;
  const sortedLabels = labelsOf(basis, record);

  const created = createdTime(record.createdAt);
  const since = sinceTime(kubelet.since);
  const heartbeat = since;
  const cond = (type: string, status: string, reason: string, message: string, transition = created) => ({
    type,
    status,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: transition,
    reason,
    message,
  });
  const conditions: Array<Record<string, string>> = [];
  // The route controller's word once the node's UDR exists (a model with a route table).
  if (basis.routeTable) {
    conditions.push({
      type: 'NetworkUnavailable',
      status: 'False',
      lastHeartbeatTime: created,
      lastTransitionTime: created,
      reason: 'RouteCreated',
      message: 'RouteController created a route',
    });
  }
  conditions.push(
    cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    kubelet.networkReady ? cond('Ready', 'True', 'KubeletReady', READY_MESSAGE, since) : cond('Ready', 'False', 'KubeletNotReady', NOT_READY_MESSAGE, since),
  );

  const taints = [...basis.taints, ...(kubelet.networkReady ? [] : [NOT_READY_TAINT])];
  const spec: Record<string, unknown> = {};
  if (record.podCidr) {
    spec['podCIDR'] = record.podCidr;
    // A dual-stack node holds a range of each family, IPv4 first as the cluster's families are ordered.
    spec['podCIDRs'] = record.podCidrIPv6 ? [record.podCidr, record.podCidrIPv6] : [record.podCidr];
  }
  const instance = instanceIdOf(record.name) ?? 0;
  spec['providerID'] =
    `azure:///subscriptions/${basis.subscriptionId}/resourceGroups/${basis.nodeResourceGroup.toLowerCase()}/providers/Microsoft.Compute/virtualMachineScaleSets/${vmssName(record.pool, basis.digits)}/virtualMachines/${instance}`;
  if (taints.length > 0) spec['taints'] = taints;

  const seed = `${basis.clusterId}/${record.name}/${record.createdAt}`;
  const nodeInfo: Record<string, string> = {
    architecture: 'amd64',
    // A reimaged VM boots again: a new boot ID, which the kubelet answers by making every pod's sandbox anew.
    bootID: stableUid(`boot:${seed}${record.reimagedAt ? `/${record.reimagedAt}` : ''}`),
    containerRuntimeVersion: img.containerRuntimeVersion,
    kernelVersion: img.kernelVersion,
    kubeletVersion: `v${version}`,
    machineID: stableUid(`machine:${seed}`).replace(/-/g, ''),
    operatingSystem: img.operatingSystem,
    osImage: img.osImage,
    systemUUID: stableUid(`system:${seed}`),
  };
  if (minorOf(version) < 31) nodeInfo['kubeProxyVersion'] = `v${version}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: record.name,
      uid: stableUid(seed),
      creationTimestamp: created,
      labels: sortedLabels,
      annotations: {
        'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'disk.csi.azure.com': record.name, 'file.csi.azure.com': record.name }),
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec,
    status: {
      addresses: [
        { type: 'InternalIP', address: record.ip },
        ...(record.ipv6 ? [{ type: 'InternalIP', address: record.ipv6 }] : []),
        { type: 'Hostname', address: record.name },
      ],
      ...basis.resources,
      conditions,
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      images: [],
      nodeInfo,
    },
  };
}
