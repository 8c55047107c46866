// AKS names (docs/aks-rules.md §3.2): VMSS `aks-<pool>-<8 digits>-vmss`, nodes `…-vmss<6-char base-36 instance id>`,
// node resource group `MC_<rg>_<cluster>_<location>`, route table `aks-agentpool-<8 digits>-routetable`.
// The 8 digits are a hash-like cluster id whose algorithm is not public; ours is FNV-1a of a stable seed.

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
