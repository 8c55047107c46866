// What the emulated Azure DNS (168.63.129.16) of one virtual network answers (docs/dataplane.md §14.4): the names
// Azure-provided DNS gives its VMs and AKS nodes, `<host>.<internal suffix>` (aks/azure-dns.ts), and the public
// names it would resolve for them — each cluster's API server FQDN. Derived with the topology (derive.ts), answered
// by netns/azure-dns-answer.ts in the VNet's router namespace. Plain data.

export interface AzureDnsZone {
  /** Owner name (lower case, no trailing dot) and its IPv4 addresses, sorted by name. */
  records: Array<[string, string[]]>;
}
