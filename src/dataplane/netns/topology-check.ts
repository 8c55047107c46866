// Checks a Topology before anything is built and indexes it by lower-case id. The netns data plane is
// IPv4-only: IPv6 address-space prefixes are left out; anything else it cannot build is an error that names
// the object, so a bad topology fails before a single namespace changes.
import { IpAddress, type Cidr } from '../../net/ip.js';
import type { HostTopology, SubnetTopology, Topology, VnetTopology } from '../topology.js';
import { BRIDGE_PORT_LIMIT, parseCidr } from './limits.js';
import { WIRINGS } from './wiring/index.js';

export interface CheckedSubnet {
  subnet: SubnetTopology;
  prefix: Cidr;
  gateway: string;
}

export interface CheckedVnet {
  vnet: VnetTopology;
  spaces: string[];
  subnets: Map<string, CheckedSubnet>;
}

export interface CheckedHost {
  host: HostTopology;
  vnetId: string;
  subnetId: string;
  subnet: CheckedSubnet;
}

export interface CheckedTopology {
  vnets: Map<string, CheckedVnet>;
  hosts: Map<string, CheckedHost>;
}

const v4 = (text: string): boolean => !text.includes(':');

export function checkTopology(topology: Topology): CheckedTopology {
  const vnets = new Map<string, CheckedVnet>();
  const hosts = new Map<string, CheckedHost>();
  for (const vnet of topology.vnets) {
    const id = vnet.id.toLowerCase();
    if (vnets.has(id)) throw new Error(`virtual network ${vnet.id} appears twice in the topology`);
    const spaces = vnet.addressSpace.filter(v4).map((s) => parseCidr(s, `virtual network ${vnet.id}`).toString());
    const subnets = new Map<string, CheckedSubnet>();
    for (const subnet of vnet.subnets) {
      if (!v4(subnet.prefix)) continue;
      const prefix = parseCidr(subnet.prefix, `subnet ${subnet.id}`);
      if (prefix.prefix > 29) throw new Error(`subnet ${subnet.id}: ${subnet.prefix} is too small (Azure's smallest subnet is a /29)`);
      for (const r of subnet.routes) {
        parseCidr(r.prefix, `route ${r.name} of subnet ${subnet.id}`);
        if (r.nextHopType === 'VirtualAppliance' && !IpAddress.tryParse(r.nextHopIp ?? '')) {
          throw new Error(`route ${r.name} of subnet ${subnet.id}: a VirtualAppliance route needs a nextHopIp`);
        }
      }
      subnets.set(subnet.id.toLowerCase(), { subnet, prefix, gateway: prefix.addressAt(1).toString() });
    }
    vnets.set(id, { vnet, spaces, subnets });
    const ips = new Map<string, string>();
    const ports = new Map<string, number>();
    for (const host of vnet.hosts) {
      const hid = host.id.toLowerCase();
      if (hosts.has(hid)) throw new Error(`host ${host.id} appears twice in the topology`);
      const subnet = subnets.get(host.subnetId.toLowerCase());
      if (!subnet) throw new Error(`host ${host.name}: subnet ${host.subnetId} is not an IPv4 subnet of ${vnet.id}`);
      const ip = IpAddress.tryParse(host.ip);
      const offset = ip && subnet.prefix.contains(ip) ? subnet.prefix.offsetOf(ip) : -1n;
      if (offset < 4n || offset === subnet.prefix.size - 1n) {
        throw new Error(`host ${host.name}: ${host.ip} is not a usable address of subnet ${subnet.subnet.prefix} (Azure reserves the first four and the last)`);
      }
      const clash = ips.get(host.ip);
      if (clash) throw new Error(`host ${host.name}: ${host.ip} is already the address of ${clash}`);
      ips.set(host.ip, host.name);
      const n = (ports.get(subnet.subnet.id) ?? 0) + 1;
      if (n > BRIDGE_PORT_LIMIT)
        throw new Error(`subnet ${subnet.subnet.id}: more than ${BRIDGE_PORT_LIMIT} hosts (a Linux bridge takes at most ${BRIDGE_PORT_LIMIT} ports)`);
      ports.set(subnet.subnet.id, n);
      const node = host.node;
      if (host.kind === 'node' && !node) throw new Error(`host ${host.name}: a node needs its network model`);
      if (node) WIRINGS[node.wiring].check?.(node, host.name);
      hosts.set(hid, { host, vnetId: id, subnetId: host.subnetId.toLowerCase(), subnet });
    }
  }
  return { vnets, hosts };
}
