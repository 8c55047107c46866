// The pod end of Cilium's veth datapath (pkg/datapath/connector: SetupVeth, SetupVethRemoteNs; cilium-cni's
// addIPConfigToLink): a veth pair whose host end is lxc<hash of the endpoint> in the node's namespace (the one the
// plugin runs in) and whose pod end, renamed to the CNI_IFNAME, holds the pod's /32 with a link route to the
// node's router IP (cilium_host) and the default route through it. Cilium's BPF programs on lxc answer and
// forward for the pod; here the kernel does: proxy ARP on the host end and a /32 route to the pod through it.
// A minimal version until the shared wiring helper (links.ts) reaches this branch.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${[file, ...args].join(' ')}: ${String(stderr).trim() || err.message}`));
      else resolve(String(stdout));
    });
  });
}

/** The host end's name (connector.Endpoint2IfName: "lxc" and the first 11 hex digits of SHA-256 of the id). */
export function hostIfName(containerId: string): string {
  return `lxc${createHash('sha256').update(containerId).digest('hex').slice(0, 11)}`;
}

function tmpIfName(containerId: string): string {
  return `tmp${createHash('sha256').update(containerId).digest('hex').slice(0, 11)}`;
}

export interface VethWiring {
  containerId: string;
  netns: string;
  ifName: string;
  ip: string;
  gateway: string;
  mtu: number;
}

/** Creates the pair and configures both ends; returns the pod end's MAC and the host end's name. */
export async function wireRoutedVeth(w: VethWiring): Promise<{ mac: string; hostIf: string }> {
  const host = hostIfName(w.containerId);
  const tmp = tmpIfName(w.containerId);
  const inPod = (args: string[]) => run('nsenter', [`--net=${w.netns}`, 'ip', ...args]);
  await run('ip', ['link', 'del', host]).catch(() => undefined);
  await run('ip', ['link', 'add', host, 'mtu', String(w.mtu), 'type', 'veth', 'peer', 'name', tmp, 'mtu', String(w.mtu)]);
  await run('ip', ['link', 'set', tmp, 'netns', w.netns]);
  await inPod(['link', 'set', tmp, 'name', w.ifName]);
  await inPod(['addr', 'add', `${w.ip}/32`, 'dev', w.ifName]);
  await inPod(['link', 'set', w.ifName, 'up']);
  await inPod(['link', 'set', 'lo', 'up']);
  await inPod(['route', 'replace', `${w.gateway}/32`, 'dev', w.ifName, 'scope', 'link']);
  await inPod(['route', 'replace', 'default', 'via', w.gateway, 'dev', w.ifName]);
  // /proc/sys/net shows the namespace of the process that opens it: the node's, where this plugin runs.
  writeFileSync(`/proc/sys/net/ipv4/conf/${host}/proxy_arp`, '1');
  await run('ip', ['link', 'set', host, 'up']);
  await run('ip', ['route', 'replace', `${w.ip}/32`, 'dev', host]);
  const shown = JSON.parse(await inPod(['-j', 'link', 'show', w.ifName])) as Array<{ address?: string }>;
  return { mac: shown[0]?.address ?? '', hostIf: host };
}

/** Removes the pair (its route goes with it); a missing pair is not an error. */
export async function unwireRoutedVeth(containerId: string): Promise<void> {
  await run('ip', ['link', 'del', hostIfName(containerId)]).catch(() => undefined);
}
