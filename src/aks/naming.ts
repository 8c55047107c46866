// AKS names (docs/aks-rules.md §3.2): VMSS `aks-<pool>-<8 digits>-vmss`, nodes `…-vmss<6-char base-36 instance id>`,
// node resource group `MC_<rg>_<cluster>_<location>`, route table `aks-agentpool-<8 digits>-routetable`.
// The 8 digits are a hash-like cluster id whose algorithm is not public; ours is FNV-1a of a stable seed.
import { createHash } from 'node:crypto';

export function clusterDigits(seed: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return String(h % 100_000_000).padStart(8, '0');
}

export function vmssName(pool: string, digits: string): string {
  return `aks-${pool}-${digits}-vmss`;
}

export function nodeName(pool: string, digits: string, instanceId: number): string {
  return `${vmssName(pool, digits)}${instanceId.toString(36).padStart(6, '0')}`;
}

/** The instance id at the end of a node name, or undefined when the name is not an AKS node name. */
export function instanceIdOf(name: string): number | undefined {
  const m = /-vmss([0-9a-z]{6})$/.exec(name);
  return m ? parseInt(m[1]!, 36) : undefined;
}

export function nodeResourceGroupName(resourceGroup: string, cluster: string, location: string): string {
  return `MC_${resourceGroup}_${cluster}_${location}`;
}

export function routeTableName(digits: string): string {
  return `aks-agentpool-${digits}-routetable`;
}

/**
 * The managed outbound public IP of a loadBalancer-outbound cluster: AKS names it with a GUID (what
 * `effectiveOutboundIPs` and the `kubernetes` load balancer's outbound frontend show); ours is derived from the node
 * resource group's id (and, for the second and later ones and the NAT gateway's, their index), so it is the same on
 * every read and across restarts.
 */
export function outboundIpName(nodeResourceGroupId: string, index = 0, owner: 'lb' | 'nat' = 'lb'): string {
  // The first load-balancer IP keeps the name it had before more than one could be asked for.
  const seed = index === 0 && owner === 'lb' ? nodeResourceGroupId.toLowerCase() : `${nodeResourceGroupId.toLowerCase()}#${owner}${index}`;
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The NAT gateway AKS creates for outboundType managedNATGateway (the real name is not published; docs/aks-rules.md §14). */
export const MANAGED_NAT_GATEWAY = 'aks-natgw';
