// The agent's side of cluster-pool IPAM (cilium/cilium pkg/ipam, hostScopeAllocator): the node's pod CIDR
// (CiliumNode spec.ipam.podCIDRs, from the operator) is a pool the agent hands addresses out of: the router IP
// first (cilium_host), then one per endpoint, never one twice. The network and broadcast addresses are not handed
// out (the ipallocator CIDR range Cilium uses leaves them out). The allocations are kept on the node's disk
// (under /var/run/cilium/state, as the agent keeps its endpoints' state there) so a restarted agent does not hand
// out an address a running pod holds.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Cidr, IpAddress } from '../../net/ip.js';

interface State {
  cidr: string;
  router: string;
  /** address → owner (`<namespace>/<pod>`, or `router`). */
  owners: Record<string, string>;
}

/** Upper bound on what one node's state file may hold (a /16 per node would be 65,534). */
const MAX_ALLOCATIONS = 65_536;

export class NodeIpam {
  readonly cidr: Cidr;
  readonly router: string;
  private readonly owners = new Map<string, string>();
  private next = 1n;

  private constructor(
    private readonly file: string,
    cidr: Cidr,
    router: string | undefined,
    owners: Record<string, string>,
  ) {
    this.cidr = cidr;
    for (const [ip, owner] of Object.entries(owners).slice(0, MAX_ALLOCATIONS)) {
      const addr = IpAddress.tryParse(ip);
      if (addr && cidr.contains(addr) && typeof owner === 'string') this.owners.set(addr.toString(), owner);
    }
    this.router = router !== undefined && this.owners.get(router) === 'router' ? router : this.take('router');
    this.save();
  }

  /** The node's pool on `cidr`, restored from `file` when it holds the same CIDR. */
  static open(file: string, cidr: Cidr): NodeIpam {
    let saved: Partial<State> = {};
    try {
      saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<State>;
    } catch {
      // no state yet, or unreadable: start empty
    }
    const same = saved.cidr === cidr.toString() && saved.owners !== null && typeof saved.owners === 'object';
    return new NodeIpam(file, cidr, same ? saved.router : undefined, same ? (saved.owners as Record<string, string>) : {});
  }

  /** The next free address for `owner`; throws Cilium's "range is full" when none is left. */
  allocate(owner: string): string {
    const ip = this.take(owner);
    this.save();
    return ip;
  }

  /**
   * That address for `owner` (the agent's POST /ipam/{ip}): 'taken' when someone holds it, 'outside' when it is not
   * a usable address of the node's CIDR.
   */
  allocateIp(ip: string, owner: string): 'ok' | 'taken' | 'outside' {
    const addr = IpAddress.tryParse(ip);
    if (!addr || !this.cidr.contains(addr)) return 'outside';
    const text = addr.toString();
    if (text === this.cidr.addressAt(0n).toString() || text === this.cidr.addressAt(this.cidr.size - 1n).toString()) return 'outside';
    if (this.owners.has(text)) return 'taken';
    this.owners.set(text, owner);
    this.save();
    return 'ok';
  }

  /** Releases an address; false when it was not allocated (the router IP is never released). */
  release(ip: string): boolean {
    if (!this.owners.has(ip) || ip === this.router) return false;
    this.owners.delete(ip);
    this.save();
    return true;
  }

  ownerOf(ip: string): string | undefined {
    return this.owners.get(ip);
  }

  get allocated(): number {
    return this.owners.size;
  }

  private take(owner: string): string {
    // Usable host offsets: 1 … size−2 (network and broadcast left out), scanned round-robin from the last one.
    const usable = this.cidr.size - 2n;
    for (let i = 0n; i < usable; i++) {
      const offset = ((this.next - 1n + i) % usable) + 1n;
      const ip = this.cidr.addressAt(offset).toString();
      if (this.owners.has(ip)) continue;
      this.owners.set(ip, owner);
      this.next = offset + 1n;
      return ip;
    }
    throw new Error('range is full');
  }

  private save(): void {
    const state: State = { cidr: this.cidr.toString(), router: this.router ?? '', owners: Object.fromEntries(this.owners) };
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, JSON.stringify(state));
    renameSync(`${this.file}.tmp`, this.file);
  }
}
