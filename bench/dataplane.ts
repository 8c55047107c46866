// Pod attach rate of the netns data plane (kubenet: namespace + veth on cbr0 + address, route, static
// neighbours), in one run against two baselines doing the same job:
//   (a) batched iproute2 by hand, the prototype's best (docs/dataplane.md §7.3): one `ip -b` for all namespaces, one
//       for all node-side lines, one per pod;
//   (b) the real bridge + host-local CNI plugins, executed once per pod (src/cni/exec.ts), as kubenet does.
// Every side creates its pods' namespaces inside the timed section. Needs root, iproute2, nft and
// /usr/lib/cni; otherwise it says why it skipped. Everything is deleted by name at the end.
import { existsSync, mkdtempSync } from 'node:fs';
import { discard } from './trash.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execPlugin } from '../src/cni/exec.js';
import type { PodAttachment } from '../src/dataplane/dataplane.js';
import { netnsUnsupportedReason } from '../src/dataplane/netns/capability.js';
import { NetnsDataplane } from '../src/dataplane/netns/driver.js';
import { IpBatcher, listNetns, mayFail, netnsPath } from '../src/dataplane/netns/exec.js';
import { macFor } from '../src/dataplane/netns/names.js';
import type { Topology } from '../src/dataplane/topology.js';

const PODS = 200;
const REPS = 3;
const PLUGINS = '/usr/lib/cni';

export interface DataplaneBench {
  pods: number;
  driverPerSec: number;
  baselinePerSec: number;
  pluginsPerSec: number;
}

const VNET = '/subscriptions/b/resourceGroups/bench/providers/Microsoft.Network/virtualNetworks/vnet';
export const NODE = '/subscriptions/b/resourceGroups/bench/providers/Microsoft.ContainerService/managedClusters/c/nodes/n0';
export const TOPOLOGY: Topology = {
  vnets: [
    {
      id: VNET,
      addressSpace: ['10.224.0.0/12'],
      subnets: [{ id: `${VNET}/subnets/s`, name: 's', prefix: '10.224.0.0/16', routes: [] }],
      hosts: [
        {
          id: NODE,
          kind: 'node',
          name: 'n0',
          subnetId: `${VNET}/subnets/s`,
          ip: '10.224.0.4',
          node: { clusterId: 'c', wiring: 'bridge', podCidr: '10.244.0.0/24', clusterPodCidr: '10.244.0.0/16' },
        },
      ],
    },
  ],
};
const podIp = (i: number): string => `10.244.0.${i + 2}`;

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** One side of the comparison: `rep(n)` attaches PODS pods (timed) and tears them down (not timed). */
interface Side {
  rep(n: number): Promise<number>;
  close(): Promise<void>;
}

async function driverSide(prefix: string): Promise<Side> {
  const dp = new NetnsDataplane({ prefix });
  await dp.apply(TOPOLOGY);
  return {
    async rep(n) {
      const pods: PodAttachment[] = Array.from({ length: PODS }, (_, i) => ({
        clusterId: 'c',
        node: 'n0',
        hostId: NODE,
        namespace: 'bench',
        name: `p${i}`,
        uid: `u${i}`,
        sandboxId: `s${n}x${i}`,
        ip: podIp(i),
      }));
      const ms = await timed(async () => void (await Promise.all(pods.map((p) => dp.attachPod(p)))));
      await Promise.all(pods.map((p) => dp.detachPod(p)));
      return ms;
    },
    close: () => dp.close({ removeAll: true }),
  };
}

/** A node namespace with cbr0, built by hand for the baselines. */
async function handNode(ip: IpBatcher, node: string, withBridge: boolean): Promise<void> {
  await ip.batch(null, [`netns add ${node}`]);
  await ip.batch(node, [
    'link set lo up',
    ...(withBridge ? [`link add cbr0 address ${macFor(node)} type bridge`, 'link set cbr0 up', 'addr add 10.244.0.1/24 dev cbr0'] : []),
  ]);
}

async function baselineSide(prefix: string): Promise<Side> {
  const ip = new IpBatcher();
  const node = `${prefix}-base`;
  await handNode(ip, node, true);
  return {
    async rep(n) {
      const pods = Array.from({ length: PODS }, (_, i) => `${prefix}-b${n}x${i}`);
      const ms = await timed(async () => {
        await ip.batch(
          null,
          pods.map((p) => `netns add ${p}`),
        );
        await ip.batch(
          node,
          pods.flatMap((p, i) => [
            `link add v${n}x${i} type veth peer name eth0 address ${macFor(p)} netns ${p}`,
            `link set v${n}x${i} master cbr0 up`,
            `neigh replace ${podIp(i)} lladdr ${macFor(p)} dev cbr0 nud permanent`,
          ]),
        );
        for (const [i, p] of pods.entries()) {
          await ip.batch(p, [
            'link set lo up',
            'link set eth0 up',
            `addr replace ${podIp(i)}/24 dev eth0`,
            'route replace default via 10.244.0.1 dev eth0',
            `neigh replace 10.244.0.1 lladdr ${macFor(node)} dev eth0 nud permanent`,
          ]);
        }
      });
      await ip.batch(
        null,
        pods.map((p) => mayFail(`netns del ${p}`)),
      );
      await ip.batch(
        node,
        pods.map((_, i) => mayFail(`neigh del ${podIp(i)} dev cbr0`)),
      );
      return ms;
    },
    close: () => ip.batch(null, [mayFail(`netns del ${node}`)]),
  };
}

async function pluginsSide(prefix: string): Promise<Side> {
  const ip = new IpBatcher();
  const node = `${prefix}-cni`;
  await handNode(ip, node, false);
  return {
    async rep(n) {
      const dataDir = mkdtempSync(join(tmpdir(), 'aksemu-bench-ipam-'));
      const config = {
        cniVersion: '1.0.0',
        name: 'kubenet',
        type: 'bridge',
        bridge: 'cbr0',
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.0.0/24', gateway: '10.244.0.1' }]], routes: [{ dst: '0.0.0.0/0' }], dataDir },
      };
      const pods = Array.from({ length: PODS }, (_, i) => `${prefix}-c${n}x${i}`);
      try {
        return await timed(async () => {
          await ip.batch(
            null,
            pods.map((p) => `netns add ${p}`),
          );
          for (const [i, p] of pods.entries()) {
            await execPlugin({
              command: 'ADD',
              type: 'bridge',
              path: [PLUGINS],
              config,
              containerId: `c${n}x${i}`,
              netns: netnsPath(p),
              ifName: 'eth0',
              hostNetns: netnsPath(node),
            });
          }
        });
      } finally {
        await ip.batch(
          null,
          pods.map((p) => mayFail(`netns del ${p}`)),
        );
        discard(dataDir);
      }
    },
    close: () => ip.batch(null, [mayFail(`netns del ${node}`)]),
  };
}

export async function benchDataplane(): Promise<DataplaneBench | { skipped: string }> {
  const prefix = `b${Math.floor(Math.random() * 36 ** 5)
    .toString(36)
    .padStart(5, '0')}`;
  const reason = (await netnsUnsupportedReason(prefix)) ?? (existsSync(join(PLUGINS, 'bridge')) ? undefined : `no CNI plugins in ${PLUGINS}`);
  if (reason) return { skipped: reason };
  const sides: Side[] = [];
  try {
    for (const make of [driverSide, baselineSide, pluginsSide]) sides.push(await make(prefix));
    // Interleaved repetitions, best of each: the machine's load drifts less between neighbours.
    const best = sides.map(() => Infinity);
    for (let n = 0; n < REPS; n++) {
      for (const [k, side] of sides.entries()) best[k] = Math.min(best[k]!, await side.rep(n));
    }
    const [driverPerSec, baselinePerSec, pluginsPerSec] = best.map((ms) => PODS / (ms / 1000)) as [number, number, number];
    return { pods: PODS, driverPerSec, baselinePerSec, pluginsPerSec };
  } finally {
    for (const side of sides) await side.close().catch(() => undefined);
    const left = listNetns((n) => n.startsWith(`${prefix}-`));
    if (left.length)
      await new IpBatcher().batch(
        null,
        left.map((n) => mayFail(`netns del ${n}`)),
      );
  }
}
