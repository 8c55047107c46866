// What Azure gives every VM and AKS node for names and the control plane's address, shared by the cluster runtime
// (the nodes' resolv.conf, the `kubernetes` Service's endpoint) and the data plane (the emulated Azure DNS and the
// API server's listener): docs/dataplane.md §12.7 and §14.4.
import { createHash } from 'node:crypto';
import { Cidr } from '../net/ip.js';

/** Azure's DNS virtual IP, what an Azure VM with Azure-provided DNS uses (learn.microsoft.com, "What is IP address 168.63.129.16?"). */
export const AZURE_DNS = '168.63.129.16';

/**
 * The internal DNS suffix Azure-provided DNS gives the VMs of a virtual network, `<id>.<x>x.internal.cloudapp.net`
 * (the NIC's dnsSettings.internalDomainNameSuffix, Microsoft.Network networkInterfaces): here derived from a
 * resource group's name — an AKS cluster's node resource group, where its managed virtual network lives — so it is
 * stable.
 */
export function internalDomainSuffix(resourceGroup: string): string {
  const hash = createHash('sha256').update(resourceGroup.toLowerCase()).digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz012345';
  const id = Array.from(hash.subarray(0, 26), (b) => alphabet[b % 32]).join('');
  const region = 'abcdefghijklmnopqrstuvwxyz'[hash[26]! % 26];
  return `${id}.${region}x.internal.cloudapp.net`;
}

/**
 * The emulated internet's public addresses (docs/dataplane.md §3.5): RFC 2544's benchmarking range, which is never
 * routed anywhere real. Every VNet router routes it to the internet host. Its lower half holds the API servers, its
 * upper half the public IP addresses Microsoft.Network hands out.
 */
export const EMULATED_PUBLIC_RANGE = '198.18.0.0/15';

/**
 * Where the API servers of the emulated clusters live: the lower half of EMULATED_PUBLIC_RANGE. On AKS the
 * `kubernetes` Service's endpoint is the API server's public address (what the cluster's FQDN resolves to).
 */
export const API_SERVER_RANGE = '198.18.0.0/16';

/**
 * Where Microsoft.Network's public IP addresses and prefixes come from (docs/aks-rules.md §11): the upper half of
 * EMULATED_PUBLIC_RANGE, and for IPv6 RFC 5180's benchmarking block, 2001:2::/48. Azure hands out its own public
 * addresses; an emulator must not hand out anyone's real ones.
 */
export const PUBLIC_IP_RANGES = { 4: '198.19.0.0/16', 6: '2001:2::/48' } as const;

/** The API server's address of a cluster (by its ARM id, without case): a stable address of API_SERVER_RANGE. */
export function apiServerAddress(clusterId: string): string {
  const range = Cidr.parse(API_SERVER_RANGE);
  const span = range.size - 2n;
  const n = BigInt(`0x${createHash('sha256').update(clusterId.toLowerCase()).digest('hex').slice(0, 12)}`) % span;
  // Never the range's first or last address.
  return range.addressAt(n + 1n).toString();
}
