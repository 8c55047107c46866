// Planner throughput for a 5,000-node cluster (AKS's maximum): defaults, every rule, capacity and every node's
// addresses through planCluster, against the naive planner one would write first (a Set of used address
// strings scanned from .4 for each address, a list of /24 strings scanned for each node), same run.
import { performance } from 'node:perf_hooks';
import { planCluster, type PlanInput } from '../src/aks/plan.js';
import { Cidr } from '../src/net/ip.js';
import { best, dottedQuad, type BenchResult } from './timing.js';

const POOLS = 5;
const PER_POOL = 1000; // the per-pool maximum: 5 × 1,000 = 5,000 nodes
const BASELINE_BUDGET_MS = 400;

function input(plugin: 'azure' | 'none'): PlanInput {
  return {
    apiVersion: '2022-06-01',
    networkProfile: plugin === 'none' ? { networkPlugin: 'none', podCidr: '10.10.0.0/16' } : { networkPlugin: 'azure' },
    agentPoolProfiles: Array.from({ length: POOLS }, (_, i) => ({
      name: i === 0 ? 'system' : `user${i}`,
      mode: i === 0 ? 'System' : 'User',
      count: PER_POOL,
      maxPods: 30,
    })),
    // 5,000 × 31 = 155,000 addresses for Azure CNI: a /14 (262,139 usable).
    subnetCidr: '10.224.0.0/14',
    vnetCidr: '10.224.0.0/12',
    includeNodes: true,
  };
}

/** The naive planner: per node, its IP and (Azure CNI) 30 more, each by scanning a Set of strings from .4. */
function naiveNodesPerSecond(ipsPerNode: number): number {
  const subnet = Cidr.parse('10.224.0.0/14');
  const first = Number(subnet.network) + 4;
  return best(3, () => {
    const used = new Set<string>();
    const deadline = performance.now() + BASELINE_BUDGET_MS;
    let nodes = 0;
    while (nodes < POOLS * PER_POOL && performance.now() < deadline) {
      for (let k = 0; k < ipsPerNode; k++) {
        let v = first;
        while (used.has(dottedQuad(v))) v++;
        used.add(dottedQuad(v));
      }
      nodes++;
    }
    return nodes;
  });
}

export function benchPlanner(): BenchResult[] {
  return (['azure', 'none'] as const).map((plugin) => {
    const nodesPerSec = best(3, () => {
      const r = planCluster(input(plugin));
      if (!r.valid || r.nodes?.length !== POOLS * PER_POOL) throw new Error(`plan failed: ${JSON.stringify(r.errors)}`);
      return r.nodes.length;
    });
    const ipsPerNode = plugin === 'azure' ? 31 : 1;
    return {
      name: `planCluster: 5,000-node ${plugin === 'azure' ? 'Azure CNI (31 IPs/node)' : 'BYO CNI (1 IP/node)'} cluster in 10.224.0.0/14`,
      opsPerSec: nodesPerSec,
      baselineOpsPerSec: naiveNodesPerSecond(ipsPerNode),
      note: `one op = one node planned (validation included for aksemu); baseline stopped after ${BASELINE_BUDGET_MS} ms per repetition, so its rate is flattered`,
    };
  });
}
