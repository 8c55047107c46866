// Deterministic names for everything the netns data plane creates. Namespaces carry the instance prefix
// (`<prefix>-…`) so garbage collection and teardown find exactly ours, by name. Interface names live inside
// one namespace each and must fit IFNAMSIZ (15 characters); MACs are locally administered (02:…) so
// neighbour entries can be static (the kernel's 1024-entry ARP budget is shared by every namespace).
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { localMac } from '../../cni/plugins/links.js';

const PREFIX_RE = /^[a-z][a-z0-9]{1,9}$/;

/** `len` base-36 characters of the SHA-1 of `text` (8 characters ≈ 41 bits). */
export function shortHash(text: string, len = 8): string {
  const hex = createHash('sha1').update(text).digest('hex');
  return BigInt(`0x${hex.slice(0, 16)}`)
    .toString(36)
    .padStart(len, '0')
    .slice(-len);
}

/** A locally administered unicast MAC derived from `text` (one derivation with aksemu's CNI plugins). */
export const macFor = localMac;

/** The default instance prefix: `ak` + 4 base-36 characters of the aksemu home directory. */
export function defaultPrefix(home = process.env['AKSEMU_HOME'] || join(homedir(), '.aksemu')): string {
  return `ak${shortHash(home, 4)}`;
}

export function checkPrefix(prefix: string): string {
  if (!PREFIX_RE.test(prefix)) throw new Error(`invalid data plane prefix '${prefix}': 2 to 10 lower-case letters and digits, starting with a letter`);
  return prefix;
}

/** Interface names (all ≤ 15 characters). */
export const IF = {
  /** Router: the bridge of a subnet. */
  subnetBridge: (subnetId: string) => `b${shortHash(subnetId.toLowerCase())}`,
  /** Router: a host's port on its subnet bridge. */
  hostPort: (hostId: string) => `h${shortHash(hostId.toLowerCase())}`,
  /** Internet namespace: a VNet router's port on the `wan` bridge. */
  routerPort: (vnetId: string) => `r${shortHash(vnetId.toLowerCase())}`,
  /** Node: a pod's host-side veth (`veth…` on cbr0, `azv…` as azure-vnet names them: the wiring's choice). */
  podVeth: (prefix: 'veth' | 'azv', podKey: string) => `${prefix}${shortHash(podKey)}`,
  wan: 'wan0',
  internetBridge: 'wan',
  cbr0: 'cbr0',
  eth0: 'eth0',
} as const;

/** Namespace names of one instance. */
export class NetnsNames {
  constructor(readonly prefix: string) {
    checkPrefix(prefix);
  }
  owns(netns: string): boolean {
    return netns.startsWith(`${this.prefix}-`);
  }
  internet(): string {
    return `${this.prefix}-inet`;
  }
  router(vnetId: string): string {
    return `${this.prefix}-v${shortHash(vnetId.toLowerCase())}`;
  }
  host(hostId: string): string {
    return `${this.prefix}-h${shortHash(hostId.toLowerCase())}`;
  }
  pod(podKey: string): string {
    return `${this.prefix}-p${shortHash(podKey, 10)}`;
  }
}
