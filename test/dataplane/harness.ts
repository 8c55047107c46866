// Shared by the data-plane tests: the topology of docs/dataplane.md §3.6 (VNet 10.224.0.0/12, subnet 10.224.0.0/16, nodes
// .4 and .5, a VM .100), a unique namespace prefix per test file, why the tests must skip on this machine,
// and a snapshot of the root namespace that must be identical before and after.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PodAttachment, ProbeRequest } from '../../src/dataplane/dataplane.js';
import { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import { netnsUnsupportedReason } from '../../src/dataplane/netns/capability.js';
import { listNetns } from '../../src/dataplane/netns/exec.js';
import type { NodeTopology, NsgRule, SubnetTopology, Topology, UdrRoute } from '../../src/dataplane/topology.js';

/** `t` + 5 random base-36 characters: unique per test file and run. */
export function testPrefix(): string {
  return `t${(randomBytes(4).readUInt32BE() % 36 ** 5).toString(36).padStart(5, '0')}`;
}

export async function skipReason(prefix: string): Promise<string | false> {
  return (await netnsUnsupportedReason(prefix)) ?? false;
}

export const RG = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/mc_rg_aks_eastus';
export const VNET_ID = `${RG}/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678`;
export const SUBNET_ID = `${VNET_ID}/subnets/aks-subnet`;
export const CLUSTER_ID = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks';
export const NODES = [
  { name: 'aks-nodepool1-12345678-vmss000000', ip: '10.224.0.4' },
  { name: 'aks-nodepool1-12345678-vmss000001', ip: '10.224.0.5' },
];
export const VM = { name: 'testvm', ip: '10.224.0.100', id: `${RG}/providers/Microsoft.Compute/virtualMachines/testvm` };
export const nodeId = (i: number): string => `${CLUSTER_ID}/nodes/${NODES[i]!.name}`;

export function kubenetRoutes(): UdrRoute[] {
  return NODES.map((n, i) => ({ name: n.name, prefix: `10.244.${i}.0/24`, nextHopType: 'VirtualAppliance', nextHopIp: n.ip }));
}

/** The topology of docs/dataplane.md §3.6; `node(i)` gives each node's model, `subnet` overrides routes and NSG. */
export function topology(node: (i: number) => NodeTopology, subnet: Partial<SubnetTopology> = {}): Topology {
  return {
    vnets: [
      {
        id: VNET_ID,
        addressSpace: ['10.224.0.0/12'],
        subnets: [{ id: SUBNET_ID, name: 'aks-subnet', prefix: '10.224.0.0/16', routes: [], ...subnet }],
        hosts: [
          ...NODES.map((n, i) => ({ id: nodeId(i), kind: 'node' as const, name: n.name, subnetId: SUBNET_ID, ip: n.ip, node: node(i) })),
          { id: VM.id, kind: 'vm' as const, name: VM.name, subnetId: SUBNET_ID, ip: VM.ip },
        ],
      },
    ],
  };
}

export function pod(node: number, name: string, ip: string | undefined, extra: Partial<PodAttachment> = {}): PodAttachment {
  return {
    clusterId: CLUSTER_ID,
    node: NODES[node]!.name,
    hostId: nodeId(node),
    namespace: 'default',
    name,
    uid: `uid-${name}`,
    sandboxId: `sandbox${name.replace(/[^a-z0-9]/g, '')}`,
    ...(ip ? { ip } : {}),
    ...extra,
  };
}

/** A probe from a pod of the test cluster (or `clusterId`'s) to ip:8080. */
export function fromPod(name: string, ip: string, timeoutMs = 3000, clusterId = CLUSTER_ID): ProbeRequest {
  return { from: { kind: 'pod', clusterId, namespace: 'default', name }, to: { ip, port: 8080 }, timeoutMs };
}

/** A probe from the VM to ip:8080. */
export function fromVm(ip: string, timeoutMs = 3000): ProbeRequest {
  return { from: { kind: 'vm', name: VM.name }, to: { ip, port: 8080 }, timeoutMs };
}

/** A driver with the test's prefix, after its gc (a crashed earlier run's namespaces are gone). */
export async function openDataplane(prefix: string): Promise<NetnsDataplane> {
  const dp = new NetnsDataplane({ prefix });
  await dp.gc();
  return dp;
}

/** Azure's default rules of every NSG, plus the custom ones given. */
export function nsgRules(custom: NsgRule[] = []): NsgRule[] {
  const rule = (name: string, priority: number, direction: 'Inbound' | 'Outbound', access: 'Allow' | 'Deny', src: string, dst: string): NsgRule => ({
    name,
    priority,
    direction,
    access,
    protocol: '*',
    sourcePrefixes: [src],
    sourcePorts: ['*'],
    destinationPrefixes: [dst],
    destinationPorts: ['*'],
  });
  return [
    ...custom,
    rule('AllowVnetInBound', 65000, 'Inbound', 'Allow', 'VirtualNetwork', 'VirtualNetwork'),
    rule('AllowAzureLoadBalancerInBound', 65001, 'Inbound', 'Allow', 'AzureLoadBalancer', '*'),
    rule('DenyAllInBound', 65500, 'Inbound', 'Deny', '*', '*'),
    rule('AllowVnetOutBound', 65000, 'Outbound', 'Allow', 'VirtualNetwork', 'VirtualNetwork'),
    rule('AllowInternetOutBound', 65001, 'Outbound', 'Allow', '*', 'Internet'),
    rule('DenyAllOutBound', 65500, 'Outbound', 'Deny', '*', '*'),
  ];
}

function out(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return `(${file} ${args.join(' ')} failed: ${(e as Error).message.split('\n')[0]})`;
  }
}

const SYSCTLS = [
  'net.ipv4.ip_forward',
  'net.ipv4.conf.all.rp_filter',
  'net.ipv4.conf.default.rp_filter',
  'net.ipv4.conf.all.send_redirects',
  'net.ipv4.conf.all.accept_redirects',
  'net.ipv4.conf.all.proxy_arp',
  'net.ipv4.conf.default.proxy_arp',
  'net.bridge.bridge-nf-call-iptables',
];

/** What must not change in the root namespace. */
export function rootSnapshot(): Record<string, string> {
  return {
    'ip route': out('ip', ['route']),
    'ip rule': out('ip', ['rule']),
    'ip -br link': out('ip', ['-br', 'link']),
    'ip -br addr': out('ip', ['-br', 'addr']),
    'nft list ruleset': out('nft', ['list', 'ruleset']),
    // Its comment lines carry a timestamp.
    'iptables-save': out('iptables-save', [])
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n'),
    sysctls: SYSCTLS.map((k) => `${k}=${out('sysctl', ['-n', k]).trim()}`).join('\n'),
  };
}

/**
 * A BYO CNI's conf dir holding the reference bridge + host-local plugins on `cni0` (10.245.0.0/24), with
 * host-local's state in `ipamDir`: the user's CNI of the BYO data-plane tests.
 */
export function writeBridgeConflist(confDir: string, ipamDir: string, extra: { hairpinMode?: boolean } = {}): void {
  const ipam = { type: 'host-local', ranges: [[{ subnet: '10.245.0.0/24' }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipamDir };
  mkdirSync(confDir, { recursive: true });
  const plugins = [{ type: 'bridge', bridge: 'cni0', isGateway: true, ipMasq: true, ...extra, ipam }];
  writeFileSync(join(confDir, '10-user.conflist'), JSON.stringify({ cniVersion: '1.0.0', name: 'user-net', plugins }));
}

/** Deletes the named namespaces a test made, whatever happened to them (one may already be gone on purpose). */
export function deleteNetnsNamed(names: readonly string[]): void {
  for (const ns of names) {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}

/** No namespace of this prefix is left, and the root namespace is as `root` recorded it. */
export function assertNoneLeft(prefix: string, root: Record<string, string>): void {
  assert.deepEqual(
    listNetns((n) => n.startsWith(`${prefix}-`)),
    [],
  );
  assert.deepEqual(rootSnapshot(), root);
}

/** Closes the driver, removing every namespace it made, then asserts nothing is left (assertNoneLeft). */
export async function closeAndAssertClean(
  dp: { close(options: { removeAll: boolean }): Promise<void> },
  prefix: string,
  root: Record<string, string>,
): Promise<void> {
  await dp.close({ removeAll: true });
  assertNoneLeft(prefix, root);
}
