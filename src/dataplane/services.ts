// What kube-proxy programs on one node: the cluster's Services and their endpoints as that node sees them
// (docs/dataplane.md §12). The cluster runtime computes it from Services, EndpointSlices and Nodes
// (cluster/proxy/service-proxy.ts); the netns driver renders it as nftables in the node's namespace
// (netns/kube-proxy.ts). Plain data, so the rendering has golden tests.
import { Cidr, IpAddress } from '../net/ip.js';

/** One endpoint as kube-proxy DNATs to it. */
export interface ServiceEndpoint {
  ip: string;
  port: number;
}

/**
 * One port of one Service (kube-proxy's ServicePort), with its endpoints already sorted into what this node's
 * traffic policies use (kubernetes pkg/proxy/topology.go CategorizeEndpoints).
 */
export interface ServicePortEntry {
  namespace: string;
  name: string;
  /** The port's name ('' for an unnamed port). */
  portName: string;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  clusterIp: string;
  port: number;
  /** Set for NodePort and LoadBalancer Services. */
  nodePort?: number;
  /** status.loadBalancer.ingress IPs of a LoadBalancer Service (IPv4): traffic to them takes the node port's path. */
  loadBalancerIps?: string[];
  /** externalTrafficPolicy Local on a LoadBalancer: the port of kube-proxy's health server for the Service. */
  healthCheckNodePort?: number;
  /** externalTrafficPolicy Local (only meaningful with a nodePort). */
  externalLocal: boolean;
  /** internalTrafficPolicy Local. */
  internalLocal: boolean;
  /** sessionAffinity ClientIP: its timeoutSeconds. */
  affinitySeconds?: number;
  /** What the Cluster policy balances over: ready endpoints, else serving terminating ones. Empty when unused. */
  clusterEndpoints: ServiceEndpoint[];
  /** The same on this node only. Empty when no Local policy is used. */
  localEndpoints: ServiceEndpoint[];
  /** Whether the Service has any usable endpoint anywhere (else its traffic is rejected). */
  hasEndpoints: boolean;
}

/** One node's view of the cluster's Services. */
export interface NodeServices {
  /** The cluster this table belongs to (HostTopology.node.clusterId). */
  clusterId: string;
  /**
   * kube-proxy's `--cluster-cidr` (its local-traffic detector): traffic to a ClusterIP from outside it is
   * masqueraded, and eTP Local NodePorts short-circuit pod traffic from inside it. `node-subnet`: the node's own
   * subnet (Azure CNI node subnet, where pods and nodes share it), which the driver fills in. Undefined: no detector.
   */
  clusterCidr?: string;
  /** The service CIDRs: traffic to an unallocated address in them is dropped. */
  serviceCidrs: string[];
  ports: ServicePortEntry[];
}

/** `clusterCidr` meaning the node's own subnet. */
export const NODE_SUBNET = 'node-subnet';

/** Bounds on a table (far past what aksemu runs; a table is built from objects a user can write). */
export const SERVICE_LIMITS = { ports: 20_000, endpointsPerPort: 1_000, affinitySeconds: 86_400 } as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PORT_NAME = /^$|^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const isPort = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535;
const isIpv4 = (s: unknown): boolean => typeof s === 'string' && IpAddress.tryParse(s)?.family === 4;

/** Why a service port cannot be rendered, or undefined: every value reaches nft text only after this check. */
export function servicePortProblem(p: ServicePortEntry): string | undefined {
  const what = `service ${String(p.namespace)}/${String(p.name)} port '${String(p.portName)}'`;
  if (typeof p.namespace !== 'string' || !DNS_LABEL.test(p.namespace)) return `${what}: bad namespace`;
  if (typeof p.name !== 'string' || !DNS_LABEL.test(p.name)) return `${what}: bad name`;
  if (typeof p.portName !== 'string' || !PORT_NAME.test(p.portName)) return `${what}: bad port name`;
  if (!['TCP', 'UDP', 'SCTP'].includes(p.protocol)) return `${what}: bad protocol`;
  if (!isIpv4(p.clusterIp)) return `${what}: clusterIP '${String(p.clusterIp)}' is not an IPv4 address`;
  if (!isPort(p.port)) return `${what}: bad port`;
  if (p.nodePort !== undefined && !isPort(p.nodePort)) return `${what}: bad nodePort`;
  if (p.healthCheckNodePort !== undefined && !isPort(p.healthCheckNodePort)) return `${what}: bad healthCheckNodePort`;
  if (p.loadBalancerIps !== undefined && (!Array.isArray(p.loadBalancerIps) || p.loadBalancerIps.length > 16 || !p.loadBalancerIps.every(isIpv4)))
    return `${what}: bad load balancer ingress IPs`;
  if (
    p.affinitySeconds !== undefined &&
    !(Number.isInteger(p.affinitySeconds) && p.affinitySeconds >= 1 && p.affinitySeconds <= SERVICE_LIMITS.affinitySeconds)
  )
    return `${what}: bad session affinity timeout`;
  for (const list of [p.clusterEndpoints, p.localEndpoints]) {
    if (!Array.isArray(list) || list.length > SERVICE_LIMITS.endpointsPerPort) return `${what}: too many endpoints`;
    for (const e of list) if (!isIpv4(e.ip) || !isPort(e.port)) return `${what}: bad endpoint ${String(e.ip)}:${String(e.port)}`;
  }
  return undefined;
}

/** Throws naming the first problem of a table. */
export function checkNodeServices(t: NodeServices): void {
  if (t.ports.length > SERVICE_LIMITS.ports) throw new Error(`${t.ports.length} service ports on one node (at most ${SERVICE_LIMITS.ports})`);
  if (t.clusterCidr !== undefined && t.clusterCidr !== NODE_SUBNET) Cidr.parse(t.clusterCidr, { family: 4 });
  for (const c of t.serviceCidrs) Cidr.parse(c, { family: 4 });
  for (const p of t.ports) {
    const problem = servicePortProblem(p);
    if (problem) throw new Error(problem);
  }
}
