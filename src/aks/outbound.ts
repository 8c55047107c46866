// What a cluster's outbound profile asks for (docs/aks-rules.md §14): the loadBalancerProfile's source of outbound
// IPs (managed ones AKS creates, the user's public IPs or prefixes), its ports and idle timeout, and the managed NAT
// gateway's IP count. Read by the rules (outbound-rules.ts) and by the provisioner that builds the resources.
import { MANAGED_NAT_GATEWAY, outboundIpName } from './naming.js';
import type { NetworkProfile } from './types.js';

export interface LoadBalancerOutbound {
  /** Managed: how many IPv4 addresses AKS creates (1 by default). */
  managedCount?: number;
  managedCountIPv6?: number;
  /** BYO public IP ids (outboundIPs.publicIPs). */
  publicIps?: string[];
  /** BYO public IP prefix ids (outboundIPPrefixes.publicIPPrefixes). */
  prefixes?: string[];
  /** 0: Azure's automatic allocation by backend pool size (AUTOMATIC_SNAT_PORTS). */
  allocatedOutboundPorts: number;
  idleTimeoutInMinutes: number;
  /** How many of managedOutboundIPs, outboundIPs and outboundIPPrefixes the profile names. */
  sourcesGiven: number;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const ids = (list: unknown): string[] => (Array.isArray(list) ? list.map((r) => obj(r)?.['id']).filter((id): id is string => typeof id === 'string') : []);

/** The load balancer's outbound settings: AKS's defaults are one managed IP, ports 0 (automatic) and 30 minutes. */
export function loadBalancerOutbound(network: NetworkProfile): LoadBalancerOutbound {
  const p = obj(network['loadBalancerProfile']) ?? {};
  const managed = obj(p['managedOutboundIPs']);
  const byo = obj(p['outboundIPs']);
  const prefixes = obj(p['outboundIPPrefixes']);
  const publicIps = ids(byo?.['publicIPs']);
  const prefixIds = ids(prefixes?.['publicIPPrefixes']);
  const sourcesGiven = [managed !== undefined, publicIps.length > 0, prefixIds.length > 0].filter(Boolean).length;
  const out: LoadBalancerOutbound = {
    allocatedOutboundPorts: typeof p['allocatedOutboundPorts'] === 'number' ? p['allocatedOutboundPorts'] : 0,
    idleTimeoutInMinutes: typeof p['idleTimeoutInMinutes'] === 'number' ? p['idleTimeoutInMinutes'] : 30,
    sourcesGiven,
  };
  if (publicIps.length > 0) out.publicIps = publicIps;
  else if (prefixIds.length > 0) out.prefixes = prefixIds;
  else {
    out.managedCount = typeof managed?.['count'] === 'number' ? managed['count'] : 1;
    if (typeof managed?.['countIPv6'] === 'number') out.managedCountIPv6 = managed['countIPv6'];
  }
  return out;
}

/** The managed NAT gateway's outbound IP count (1 by default) and idle timeout (4 by default). */
export function natGatewayOutbound(network: NetworkProfile): { managedCount: number; idleTimeoutInMinutes: number } {
  const p = obj(network['natGatewayProfile']) ?? {};
  const count = obj(p['managedOutboundIPProfile'])?.['count'];
  const idle = p['idleTimeoutInMinutes'];
  return { managedCount: typeof count === 'number' ? count : 1, idleTimeoutInMinutes: typeof idle === 'number' ? idle : 4 };
}

/** Ports one frontend IP offers an outbound rule (Azure load balancer's SNAT: 64,000 per IP). */
export const PORTS_PER_IP = 64000;

/**
 * Azure's default SNAT ports per backend instance when allocatedOutboundPorts is 0, by backend pool size (the load
 * balancer's outbound connections docs, "default port allocation"): at most `upTo` instances get `ports` each.
 */
export const AUTOMATIC_SNAT_PORTS: ReadonlyArray<{ upTo: number; ports: number }> = [
  { upTo: 50, ports: 1024 },
  { upTo: 100, ports: 512 },
  { upTo: 200, ports: 256 },
  { upTo: 400, ports: 128 },
  { upTo: 800, ports: 64 },
  { upTo: 1000, ports: 32 },
];

/** The ports each node gets: the fixed allocation, or the automatic table's row for the pool size. */
export function portsPerNode(allocated: number, nodes: number): number | undefined {
  if (allocated > 0) return allocated;
  return AUTOMATIC_SNAT_PORTS.find((row) => nodes <= row.upTo)?.ports;
}

const pipId = (rg: string, name: string) => `${rg}/providers/Microsoft.Network/publicIPAddresses/${name}`;

/** The managed outbound IPs' ids, in the node resource group. */
export function managedOutboundIpIds(rg: string, count: number, owner: 'lb' | 'nat'): string[] {
  return Array.from({ length: Math.max(count, 0) }, (_, i) => pipId(rg, outboundIpName(rg, i, owner)));
}

export function managedNatGatewayId(rg: string): string {
  return `${rg}/providers/Microsoft.Network/natGateways/${MANAGED_NAT_GATEWAY}`;
}

/**
 * The public IP resources the cluster sends from, as `effectiveOutboundIPs` lists them: the managed ones AKS created,
 * else the user's public IPs or prefixes as given.
 */
export function effectiveOutboundIds(network: NetworkProfile, rg: string): string[] {
  if (network.outboundType === 'managedNATGateway') return managedOutboundIpIds(rg, natGatewayOutbound(network).managedCount, 'nat');
  if (network.outboundType !== 'loadBalancer') return [];
  const lb = loadBalancerOutbound(network);
  return lb.publicIps ?? lb.prefixes ?? managedOutboundIpIds(rg, lb.managedCount ?? 1, 'lb');
}
