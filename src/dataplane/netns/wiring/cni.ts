// Pods attached through their node's CNI configuration (BYO CNI, docs/dataplane.md §6): the node's default
// network (its conf dir, as containerd loads it) run through the CNI runtime inside the node's namespace, with
// the pod's namespace as CNI_NETNS. The address is whatever the plugins' IPAM gave. One runtime per cache dir
// and plugin path, so ADD/DEL stay serialised per node.
import { loadDefaultNetwork } from '../../../cni/confdir.js';
import { CniRuntime, toNetworkList, type Attachment, type NetworkList } from '../../../cni/runtime.js';
import type { PodAttachment } from '../../dataplane.js';
import { netnsPath } from '../exec.js';
import type { Wiring } from './wiring.js';

const runtimes = new Map<string, CniRuntime>();

function setup(pod: PodAttachment, hostNetns: string, podNetns: string): { rt: CniRuntime; net: NetworkList; att: Attachment } {
  const cni = pod.cni!;
  const key = JSON.stringify([cni.cacheDir, cni.pluginDirs]);
  let rt = runtimes.get(key);
  if (!rt) runtimes.set(key, (rt = new CniRuntime({ cacheDir: cni.cacheDir, pluginDirs: cni.pluginDirs })));
  const loaded = loadDefaultNetwork(cni.confDir);
  if (!loaded) throw new Error(`node ${pod.node}: cni plugin not initialized (no network configuration in ${cni.confDir})`);
  const att: Attachment = {
    containerId: pod.sandboxId,
    netns: netnsPath(podNetns),
    ifName: 'eth0',
    pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid },
    hostNetns: netnsPath(hostNetns),
    ...(pod.ip ? { args: { IP: pod.ip } } : {}),
  };
  const config = cni.ipamDataDir ? withIpamDataDir(loaded.config, cni.ipamDataDir) : loaded.config;
  return { rt, net: toNetworkList({ ...loaded, config, file: `${cni.confDir}/${loaded.file}` }), att };
}

/** The network config with every plugin's ipam section keeping its state in dataDir. */
function withIpamDataDir(config: Record<string, unknown>, dataDir: string): Record<string, unknown> {
  const one = (p: Record<string, unknown>): Record<string, unknown> =>
    p['ipam'] && typeof p['ipam'] === 'object' ? { ...p, ipam: { ...(p['ipam'] as Record<string, unknown>), dataDir } } : p;
  const plugins = config['plugins'];
  return Array.isArray(plugins) ? { ...config, plugins: plugins.map((p) => one(p as Record<string, unknown>)) } : one(config);
}

/**
 * ADD; returns the pod's first IPv4 address from the result. A sandbox the cache still holds (a restored pod whose
 * server was killed before it could DEL) is DELeted first, with its cached result as prevResult, as the kubelet
 * tears an old sandbox down before making one: the spec forbids a second ADD, and the plugins' IPAM would refuse
 * the address it still holds for it (CNI_ARGS IP=). A fresh sandbox id is never in the cache.
 */
async function cniAdd(pod: PodAttachment, hostNetns: string, podNetns: string): Promise<string> {
  const { rt, net, att } = setup(pod, hostNetns, podNetns);
  if (rt.cache.read({ networkName: net.name, containerId: att.containerId, ifName: att.ifName }) !== undefined) await rt.del(net, att);
  const result = await rt.add(net, att);
  const ips = (result['ips'] as Array<{ address?: string }> | undefined) ?? [];
  const v4 = ips.map((i) => i.address?.split('/')[0] ?? '').find((a) => a.includes('.'));
  if (!v4) {
    await rt.del(net, att).catch(() => undefined);
    throw new Error(`node ${pod.node}: network "${net.name}" gave pod ${pod.namespace}/${pod.name} no IPv4 address`);
  }
  return v4;
}

/** DEL through the cached result; idempotent, works after the pod namespace is gone. */
async function cniDel(pod: PodAttachment, hostNetns: string, podNetns: string): Promise<void> {
  const { rt, net, att } = setup(pod, hostNetns, podNetns);
  await rt.del(net, att);
}

export const cni: Wiring = {
  admit: () => undefined,
  wire: (_ip, host, pod) => cniAdd(pod.attachment, host.netns, pod.netns),
  unwire: cniDel,
};
