// Running a BYO CNI's real IPAM plugin for one pod sandbox, as the main plugin would delegate to it (or aksemu's
// own main plugin address-only, ipam.ts): the plugin
// gets the main plugin's config (with the list's name and cniVersion, as libcni injects them) on stdin, ADD or
// DEL with the sandbox id as container id. Only the address is emulated, not the interface, so CNI_NETNS names
// a path under the node's directory that never exists (host-local does not open it). host-local's state goes
// to the node's own /var/lib/cni/networks under $AKSEMU_HOME, never the machine's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execPlugin, type CniErrorContext } from '../../cni/exec.js';

export interface IpamExec {
  /** The IPAM plugin's type (ipam.type) and the binary found for it. */
  type: string;
  binary: string;
  path: string[];
  config: Record<string, unknown>;
  /** The plugin whose `ipam` this is, for libcni's `plugin type="…" failed (add)`. */
  owner: CniErrorContext;
  /** The node's IPAM state dir (host-local's dataDir). */
  dataDir: string;
  netnsDir: string;
  /** More CNI_ARGS after the pod's (AKSEMU_ADDRESS_ONLY=true when the plugin is aksemu's main plugin). */
  args?: Record<string, string>;
}

/** The node's host-local state dir: /var/lib/cni/networks of the emulated node. */
export function nodeCniDataDir(nodeDir: string): string {
  return join(nodeDir, 'var', 'lib', 'cni', 'networks');
}

/**
 * The config an IPAM plugin is run with: the owner plugin object with the list's identity, and `ipam.dataDir` set
 * to the node's directory whatever the type: host-local honours it also when installed under another name (a
 * `calico-ipam` that is host-local), and plugins that keep no such state ignore the key.
 */
export function ipamConfig(owner: Record<string, unknown>, list: { name: string; cniVersion?: string }, dataDir: string): Record<string, unknown> {
  const ipam = owner['ipam'] as Record<string, unknown>;
  const cniVersion = list.cniVersion ?? (typeof owner['cniVersion'] === 'string' ? owner['cniVersion'] : undefined);
  return { ...owner, name: list.name, ...(cniVersion ? { cniVersion } : {}), ipam: { ...ipam, dataDir } };
}

export interface SandboxIdentity {
  namespace: string;
  name: string;
  uid: string;
  sandboxId: string;
}

/** CNI_ARGS as containerd sends them for a pod. */
function podArgs(pod: SandboxIdentity): Record<string, string> {
  return { K8S_POD_NAMESPACE: pod.namespace, K8S_POD_NAME: pod.name, K8S_POD_INFRA_CONTAINER_ID: pod.sandboxId, K8S_POD_UID: pod.uid };
}

/** The first IPv4 address of an ADD result: `ips[].address` (0.3.0+) or `ip4.ip` (0.1/0.2). */
export function resultAddress(result: Record<string, unknown> | undefined): string | undefined {
  const ips = result?.['ips'];
  const candidates: unknown[] = Array.isArray(ips)
    ? ips.map((i) => (i as Record<string, unknown>)?.['address'])
    : [(result?.['ip4'] as Record<string, unknown> | undefined)?.['ip']];
  for (const c of candidates) {
    if (typeof c === 'string' && c.includes('.')) return c.split('/')[0];
  }
  return undefined;
}

function call(plan: IpamExec, command: 'ADD' | 'DEL', pod: SandboxIdentity, containerId: string) {
  return execPlugin({
    command,
    type: plan.type,
    binary: plan.binary,
    path: plan.path,
    config: plan.config,
    containerId,
    netns: join(plan.netnsDir, `cni-${containerId.slice(0, 12)}`),
    ifName: 'eth0',
    args: { ...podArgs(pod), ...plan.args },
    timeoutMs: 30_000,
  });
}

/** ADD: the address the plugin gave, or a CniError (the plugin's error object) — also when it gave no IPv4. */
export async function ipamAdd(plan: IpamExec, pod: SandboxIdentity): Promise<string> {
  const result = await call(plan, 'ADD', pod, pod.sandboxId);
  const ip = resultAddress(result);
  if (ip) return ip;
  // A result without an address is useless to the pod; give it back before failing.
  await call(plan, 'DEL', pod, pod.sandboxId).catch(() => undefined);
  throw new Error(`IPAM plugin "${plan.type}" returned no IPv4 address`);
}

export async function ipamDel(plan: IpamExec, pod: SandboxIdentity, containerId: string): Promise<void> {
  await call(plan, 'DEL', pod, containerId);
}

/** Which container host-local recorded for an address (its file `<dataDir>/<network>/<ip>`: id, CRLF, ifname). */
export function hostLocalOwner(dataDir: string, network: string, ip: string): string | undefined {
  try {
    const id = readFileSync(join(dataDir, network, ip), 'utf8')
      .split(/\r?\n/)[0]
      ?.trim();
    return id || undefined;
  } catch {
    return undefined;
  }
}
