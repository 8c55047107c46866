// Hands out the addresses of a cluster's nodes, per network model: node IPs ascending from .4 of their subnet;
// kubenet and overlay nodes a /24 of the pod CIDR in kube-controller-manager order; Azure CNI node-subnet
// nodes maxPods pre-allocated secondary IPs; pools with a pod subnet batches or /28 blocks of it; kubenet one
// route per node (docs/aks-rules.md §3.4–§3.6, §3.8, §5 step 7).
// Allocators are injected so that the ARM layer can share one per subnet with everything else on it.
import { CidrSet } from '../net/cidrset.js';
import { Cidr, IpAddress } from '../net/ip.js';
import { SubnetAllocator } from '../net/subnet-allocator.js';
import { isDualStack, type ResolvedCluster, type ResolvedPool } from './defaults.js';
import { subnetOfPool, type NetworkEnvironment, type SubnetInfo } from './environment.js';
import { instanceIdOf, nodeName } from './naming.js';
import { subnetCidr, subnetCidrIPv6 } from './parsed-network.js';
import { ipsPerNode, NODE_POD_CIDR_MASK, NODE_POD_CIDR_MASK_IPV6, type NetworkModel } from './network-models/index.js';
import { formatMessage, ruleById } from './rules.js';
import { POD_SUBNET_BATCH, podIpAllocationMode, podSubnetIpsPerNewNode, podSubnetOfPool, STATIC_BLOCK_PREFIX, staticBlocksPerNode } from './pod-subnet.js';
import type { Problem } from './types.js';

export interface PlannedNode {
  name: string;
  pool: string;
  subnetId: string;
  ip: string;
  /** kubenet and overlay: the node's /24 (node.spec.podCIDR). */
  podCidr?: string;
  /** Azure CNI node subnet: the maxPods secondary addresses on the node's NIC. */
  secondaryIps?: string[];
  /** Dual-stack: the node's IPv6 address, from its subnet's IPv6 prefix (docs/aks-rules.md §9.4). */
  ipv6?: string;
  /** Azure CNI with a pod subnet: the subnet its pods take addresses of (docs/aks-rules.md §3.8). */
  podSubnetId?: string;
  /** The pod-subnet addresses the node holds: its dynamic batches, or every address of its static blocks. */
  podSubnetIps?: string[];
  /** StaticBlock: the node's /28 blocks. */
  podSubnetBlocks?: string[];
  /** Dual-stack kubenet and overlay: the node's /80 of the IPv6 pod CIDR (node.spec.podCIDRs[1]). */
  podCidrIPv6?: string;
}

export interface PlannedRoute {
  name: string;
  addressPrefix: string;
  nextHopType: 'VirtualAppliance';
  nextHopIpAddress: string;
}

/** An allocation that failed at "NIC time": the rule table's SubnetIsFull or InsufficientPodCidr. */
export class AllocationError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
    this.name = 'AllocationError';
  }
}

/** What the planner needs of a subnet's address allocator; SubnetAllocator is one, the ARM layer's IPAM another. */
export interface AddressPool {
  readonly free: number;
  /** The n lowest free addresses, all or nothing. */
  allocateMany(n: number, owner: string): IpAddress[] | undefined;
  claim(ip: IpAddress, owner: string): boolean;
  releaseOwner(owner: string): number;
  /** `count` free aligned blocks of length `prefixLength` (static pod blocks), all or nothing. */
  allocateBlocks(count: number, prefixLength: number, owner: string): Cidr[] | undefined;
}

/** `use` 'pods': the addresses are a node's pods' on its pod subnet, held apart from the node's NIC. */
export type AllocatorSource = (subnet: SubnetInfo, cidr: Cidr, use?: 'pods') => AddressPool;

/** Fresh allocators per subnet and family, for plans that own their subnets (aksemu plan, tests). */
export function privateAllocators(): AllocatorSource {
  const byId = new Map<string, SubnetAllocator>();
  return (subnet, cidr) => {
    const key = `${subnet.id.toLowerCase()} ${cidr.family}`;
    let a = byId.get(key);
    if (!a) byId.set(key, (a = new SubnetAllocator(cidr)));
    return a;
  };
}

function problem(ruleId: string, params: Record<string, string | number>): Problem {
  const rule = ruleById(ruleId)!;
  return { code: rule.code, message: formatMessage(rule.message, params), target: rule.target, rule: rule.id };
}

export class IpPlanner {
  private readonly nodes = new Map<string, PlannedNode>();
  private readonly nextInstance = new Map<string, number>();
  private readonly podCidrs?: CidrSet;
  /** Dual-stack: the IPv6 pod CIDR's /80s, and whether nodes take an IPv6 address at all. */
  private readonly podCidrsIPv6?: CidrSet;
  private readonly dualStack: boolean;

  constructor(
    private readonly cluster: ResolvedCluster,
    private readonly model: NetworkModel,
    private readonly env: NetworkEnvironment,
    private readonly digits: string,
    private readonly allocators: AllocatorSource = privateAllocators(),
  ) {
    const pod = cluster.network.podCidr;
    if (model.nodes.carvesPodCidr && pod) this.podCidrs = new CidrSet(Cidr.parse(pod), NODE_POD_CIDR_MASK);
    this.dualStack = isDualStack(cluster.network) && model.dualStack !== undefined;
    const podV6 = cluster.network.podCidrs?.[1];
    if (this.dualStack && model.nodes.carvesPodCidr && podV6) this.podCidrsIPv6 = new CidrSet(Cidr.parse(podV6), NODE_POD_CIDR_MASK_IPV6);
  }

  /** Takes back nodes that already exist (after a restart): their addresses and /24s are claimed again. */
  restore(nodes: PlannedNode[]): void {
    // A pool's subnet, its prefix and its allocator once per pool, not per node (a pool add restores thousands).
    const subnets = new Map<string, ReturnType<IpPlanner['subnetOf']>>();
    for (const n of nodes) {
      const pool = this.pool(n.pool);
      let subnet = subnets.get(pool.name);
      if (!subnet) subnets.set(pool.name, (subnet = this.subnetOf(pool)));
      const { allocator } = subnet;
      allocator.claim(IpAddress.parse(n.ip), n.name);
      for (const ip of n.secondaryIps ?? []) allocator.claim(IpAddress.parse(ip), n.name);
      // A /24 outside the pod CIDR (a node of the model the cluster migrates from) is given a new one by reimage().
      if (n.podCidr && this.podCidrs?.cluster.containsCidr(Cidr.parse(n.podCidr))) this.podCidrs.occupy(Cidr.parse(n.podCidr));
      if (n.ipv6) this.subnetOfFamily(pool, 6)?.allocator.claim(IpAddress.parse(n.ipv6), n.name);
      const pods = n.podSubnetIps?.length ? this.podSubnetOf(pool) : undefined;
      for (const ip of pods ? n.podSubnetIps! : []) pods!.allocator.claim(IpAddress.parse(ip), n.name);
      if (n.podCidrIPv6 && this.podCidrsIPv6) this.podCidrsIPv6.occupy(Cidr.parse(n.podCidrIPv6));
      const id = instanceIdOf(n.name);
      if (id !== undefined) this.nextInstance.set(n.pool, Math.max(this.nextInstance.get(n.pool) ?? 0, id + 1));
      this.nodes.set(n.name, n);
    }
  }

  /** Adds `count` nodes to a pool, all or nothing. VMSS instance ids only grow, as Azure's do. */
  addNodes(poolName: string, count: number): PlannedNode[] {
    const pool = this.pool(poolName);
    const { subnet, cidr, allocator } = this.subnetOf(pool);
    const perNode = ipsPerNode(this.model, pool);
    if (allocator.free < count * perNode) {
      throw new AllocationError(problem('K4', { name: subnet.name, cidr: String(cidr), count: count * perNode }));
    }
    if (this.podCidrs && this.podCidrs.freeCount < count) {
      const pod = this.podCidrs.cluster;
      throw new AllocationError(problem('K2', { required: (this.podCidrs.allocatedCount + count) * 256, available: Number(pod.size), cidr: String(pod) }));
    }
    const v6 = this.dualStack ? this.subnetOfFamily(pool, 6) : undefined;
    if (v6 && v6.allocator.free < count) throw new AllocationError(problem('K4', { name: subnet.name, cidr: String(v6.cidr), count }));
    if (this.podCidrsIPv6 && this.podCidrsIPv6.freeCount < count) {
      const pod = this.podCidrsIPv6.cluster;
      throw new AllocationError(
        problem('D12', {
          cidr: String(pod),
          available: this.podCidrsIPv6.allocatedCount + this.podCidrsIPv6.freeCount,
          mask: NODE_POD_CIDR_MASK_IPV6,
          required: this.podCidrsIPv6.allocatedCount + count,
        }),
      );
    }
    const pods = this.podSubnetOf(pool);
    const podIps = podSubnetIpsPerNewNode(pool);
    if (pods && pods.allocator.free < count * podIps) {
      throw new AllocationError(problem('PS7', { name: pods.subnet.name, cidr: String(pods.cidr), count: count * podIps }));
    }
    const added: PlannedNode[] = [];
    for (let i = 0; i < count; i++) {
      const instance = this.nextInstance.get(pool.name) ?? 0;
      this.nextInstance.set(pool.name, instance + 1);
      const name = nodeName(pool.name, this.digits, instance);
      // Ascending: the node's own address is the lowest of its block, its secondary IPs follow.
      const [ip, ...secondary] = allocator.allocateMany(perNode, name)!;
      const node: PlannedNode = { name, pool: pool.name, subnetId: subnet.id, ip: ip!.toString() };
      if (this.podCidrs) node.podCidr = this.podCidrs.allocateNext().toString();
      if (perNode > 1) node.secondaryIps = secondary.map(String);
      if (v6) node.ipv6 = v6.allocator.allocateMany(1, name)![0]!.toString();
      if (this.podCidrsIPv6) node.podCidrIPv6 = this.podCidrsIPv6.allocateNext().toString();
      if (pods) Object.assign(node, this.podSubnetAddresses(pool, pods, name));
      this.nodes.set(name, node);
      added.push(node);
    }
    return added;
  }

  /**
   * A restored node as the cluster's model wants it, for a network migration's reimage (docs/aks-rules.md §2.6): the
   * same name and address; secondary IPs the model does not pre-allocate are freed; a /24 of the pod CIDR is given
   * where the model carves one and the node has none in it (K2 when none is left). Undefined: nothing changes.
   */
  reimage(name: string): PlannedNode | undefined {
    const node = this.nodes.get(name);
    if (!node) return undefined;
    const pool = this.pool(node.pool);
    const next: PlannedNode = { ...node };
    if (node.secondaryIps?.length && ipsPerNode(this.model, pool) === 1) {
      const { allocator } = this.subnetOf(pool);
      allocator.releaseOwner(name);
      allocator.claim(IpAddress.parse(node.ip), name);
      delete next.secondaryIps;
    }
    const inRange = node.podCidr !== undefined && this.podCidrs?.cluster.containsCidr(Cidr.parse(node.podCidr));
    if (this.podCidrs && !inRange) {
      if (this.podCidrs.freeCount < 1) {
        const pod = this.podCidrs.cluster;
        throw new AllocationError(problem('K2', { required: (this.podCidrs.allocatedCount + 1) * 256, available: Number(pod.size), cidr: String(pod) }));
      }
      next.podCidr = this.podCidrs.allocateNext().toString();
    } else if (!this.podCidrs && node.podCidr) delete next.podCidr;
    if (JSON.stringify(next) === JSON.stringify(node)) return undefined;
    this.nodes.set(name, next);
    return next;
  }

  /** Removes a node and frees what it held; its /24 is not reused until the cidrset scan wraps. */
  removeNode(name: string): boolean {
    const node = this.nodes.get(name);
    if (!node) return false;
    const { allocator } = this.subnetOf(this.pool(node.pool));
    allocator.releaseOwner(name);
    if (node.podCidr && this.podCidrs) this.podCidrs.release(Cidr.parse(node.podCidr));
    if (node.ipv6) this.subnetOfFamily(this.pool(node.pool), 6)?.allocator.releaseOwner(name);
    if (node.podCidrIPv6 && this.podCidrsIPv6) this.podCidrsIPv6.release(Cidr.parse(node.podCidrIPv6));
    if (node.podSubnetIps?.length) this.podSubnetOf(this.pool(node.pool))?.allocator.releaseOwner(name);
    this.nodes.delete(name);
    return true;
  }

  list(pool?: string): PlannedNode[] {
    const all = [...this.nodes.values()];
    return pool ? all.filter((n) => n.pool === pool) : all;
  }

  /**
   * kubenet's route table: one UDR per node, named after it; on a dual-stack cluster one per node and family,
   * named node____<CIDR without ':', '.' and '/'> (cloud-provider-azure azure_routes.go mapNodeNameToRouteName).
   */
  routes(): PlannedRoute[] {
    if (!this.model.nic.routeTable) return [];
    const route = (n: PlannedNode, cidr: string, hop: string): PlannedRoute => ({
      name: this.dualStack ? `${n.name}____${cidr.replace(/[:./]/g, '')}` : n.name,
      addressPrefix: cidr,
      nextHopType: 'VirtualAppliance',
      nextHopIpAddress: hop,
    });
    return this.list().flatMap((n) => [
      ...(n.podCidr ? [route(n, n.podCidr, n.ip)] : []),
      ...(n.podCidrIPv6 && n.ipv6 ? [route(n, n.podCidrIPv6, n.ipv6)] : []),
    ]);
  }

  private pool(name: string): ResolvedPool {
    const pool = this.cluster.pools.find((p) => p.name === name);
    if (!pool) throw new Error(`agent pool ${name} is not part of the cluster`);
    return pool;
  }

  /** The pool's pod subnet, its IPv4 prefix and its allocator for pods; undefined for a pool without one. */
  private podSubnetOf(pool: ResolvedPool): { subnet: SubnetInfo; cidr: Cidr; allocator: AddressPool } | undefined {
    if (!pool.podSubnetID) return undefined;
    const subnet = podSubnetOfPool(this.env, pool);
    const cidr = subnet && subnetCidr(subnet);
    if (!subnet || !cidr) throw new Error(`agent pool ${pool.name} has no usable pod subnet`);
    return { subnet, cidr, allocator: this.allocators(subnet, cidr, 'pods') };
  }

  /** A new node's pod-subnet addresses: one batch of 16 (dynamic) or its /28 blocks (static); P5 when the subnet is full. */
  private podSubnetAddresses(pool: ResolvedPool, pods: { subnet: SubnetInfo; cidr: Cidr; allocator: AddressPool }, name: string): Partial<PlannedNode> {
    const full = (count: number) => new AllocationError(problem('PS7', { name: pods.subnet.name, cidr: String(pods.cidr), count }));
    if (podIpAllocationMode(pool) === 'StaticBlock') {
      const n = staticBlocksPerNode(pool);
      const blocks = pods.allocator.allocateBlocks(n, STATIC_BLOCK_PREFIX, name);
      if (!blocks) throw full(n * POD_SUBNET_BATCH);
      const ips = blocks.flatMap((b) => Array.from({ length: Number(b.size) }, (_, i) => b.addressAt(i).toString()));
      return { podSubnetId: pods.subnet.id, podSubnetIps: ips, podSubnetBlocks: blocks.map(String) };
    }
    const batch = pods.allocator.allocateMany(POD_SUBNET_BATCH, name);
    if (!batch) throw full(POD_SUBNET_BATCH);
    return { podSubnetId: pods.subnet.id, podSubnetIps: batch.map(String) };
  }

  /** The pool subnet's prefix of one family and its allocator; undefined when the subnet has none. */
  private subnetOfFamily(pool: ResolvedPool, family: 6): { cidr: Cidr; allocator: AddressPool } | undefined {
    const subnet = subnetOfPool(this.env, pool);
    const cidr = subnet && subnetCidrIPv6(subnet);
    return subnet && cidr ? { cidr, allocator: this.allocators(subnet, cidr) } : undefined;
  }

  private subnetOf(pool: ResolvedPool): { subnet: SubnetInfo; cidr: Cidr; allocator: AddressPool } {
    const subnet = subnetOfPool(this.env, pool);
    const cidr = subnet && subnetCidr(subnet);
    if (!subnet || !cidr) throw new Error(`agent pool ${pool.name} has no usable subnet`);
    return { subnet, cidr, allocator: this.allocators(subnet, cidr) };
  }
}
