// The routed veth Calico wires a pod with (cni-plugin/pkg/dataplane/linux/dataplane_linux.go): the host end
// `cali<11 hex>` with MAC ee:ee:ee:ee:ee:ee, proxy ARP on and a /32 route to the pod; the pod end (CNI_IFNAME)
// holds the pod's /32 and routes everything through 169.254.1.1, which the host end answers for by proxy ARP.
// Runs in the node's network namespace (where the runtime runs plugins) with iproute2.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';

export const HOST_SIDE_MAC = 'ee:ee:ee:ee:ee:ee';
export const POD_GATEWAY = '169.254.1.1';

/** libcalico-go VethNameForWorkload: `cali` + the first 11 hex digits of SHA-1("<namespace>.<pod>"). */
export function vethName(namespace: string, pod: string): string {
  return `cali${createHash('sha1').update(`${namespace}.${pod}`).digest('hex').slice(0, 11)}`;
}

function run(argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), { timeout: 15_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error((stderr || err.message).trim()));
      else resolve(stdout);
    });
  });
}

const inPod = (netns: string, argv: string[]) => run(['nsenter', `--net=${netns}`, ...argv]);

/** Creates the pair and wires both ends; returns the pod end's MAC. Replaces a leftover host end of the same name. */
export async function wireRoutedVeth(o: { netns: string; hostVeth: string; ifName: string; ip: string; mtu: number }): Promise<string> {
  await run(['ip', 'link', 'del', o.hostVeth]).catch(() => undefined);
  const tmp = `tmp${o.hostVeth.slice(4, 14)}`;
  await run(['ip', 'link', 'add', o.hostVeth, 'mtu', String(o.mtu), 'type', 'veth', 'peer', 'name', tmp, 'mtu', String(o.mtu), 'netns', o.netns]);
  await run(['ip', 'link', 'set', o.hostVeth, 'address', HOST_SIDE_MAC]);
  for (const [key, value] of [
    ['proxy_arp', '1'],
    ['forwarding', '1'],
  ] as const) {
    try {
      writeFileSync(`/proc/sys/net/ipv4/conf/${o.hostVeth}/${key}`, value);
    } catch {
      await run(['sysctl', '-q', '-w', `net.ipv4.conf.${o.hostVeth}.${key}=${value}`]).catch(() => undefined);
    }
  }
  try {
    writeFileSync(`/proc/sys/net/ipv4/neigh/${o.hostVeth}/proxy_delay`, '0');
  } catch {
    // best effort, as Calico
  }
  await run(['ip', 'link', 'set', o.hostVeth, 'up']);
  await inPod(o.netns, ['ip', 'link', 'set', tmp, 'name', o.ifName]);
  await inPod(o.netns, ['ip', 'link', 'set', o.ifName, 'up']);
  await inPod(o.netns, ['ip', 'addr', 'add', `${o.ip}/32`, 'dev', o.ifName]);
  await inPod(o.netns, ['ip', 'route', 'add', POD_GATEWAY, 'dev', o.ifName, 'scope', 'link']);
  await inPod(o.netns, ['ip', 'route', 'add', 'default', 'via', POD_GATEWAY, 'dev', o.ifName]);
  await run(['ip', 'route', 'replace', `${o.ip}/32`, 'dev', o.hostVeth, 'scope', 'link']);
  const link = JSON.parse(await inPod(o.netns, ['ip', '-j', 'link', 'show', 'dev', o.ifName])) as Array<{ address?: string }>;
  return link[0]?.address ?? '';
}

/** Removes the host end (the pod end goes with it) and its route; a missing link is fine. */
export async function unwireRoutedVeth(hostVeth: string): Promise<void> {
  await run(['ip', 'link', 'del', hostVeth]).catch(() => undefined);
}
