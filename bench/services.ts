// kube-proxy rule programming on one node (docs/dataplane.md §12): 1,000 Services × 10 endpoints (ClusterIP and
// NodePort), programmed through the netns driver (applyServices: the whole table in one `nft -f`), then one
// Service's endpoints changing, repeatedly: the driver sends only the difference (kube-proxy's partial sync).
// Baseline, in the same run: the same update as a full re-render and reload of the table, which is what a proxy
// without partial syncs does on every change. Needs root and nft; otherwise it says why it skipped.
import { performance } from 'node:perf_hooks';
import { netnsUnsupportedReason } from '../src/dataplane/netns/capability.js';
import { NetnsDataplane } from '../src/dataplane/netns/driver.js';
import { inNetns, run } from '../src/dataplane/netns/exec.js';
import { proxyScript, renderProxy } from '../src/dataplane/netns/kube-proxy-rules.js';
import type { NodeServices, ServicePortEntry } from '../src/dataplane/services.js';
import { NODE, TOPOLOGY } from './dataplane.js';
import { dottedQuad } from './timing.js';

const SERVICES = 1000;
const ENDPOINTS = 10;
const UPDATES = 20;
const BASELINE_UPDATES = 5;

export interface ServicesBench {
  services: number;
  endpoints: number;
  /** The whole table, first load. */
  fullMs: number;
  /** One Service's endpoints changing, through the driver (partial transaction): mean. */
  updateMs: number;
  /** The same update as a full re-render and reload: mean. */
  baselineUpdateMs: number;
  /** nft commands in one partial update. */
  updateCommands: number;
  fullCommands: number;
}

/** Service i's endpoints, shifted by `gen` so each update gives one Service new pods. */
function port(i: number, gen: number): ServicePortEntry {
  const endpoints = Array.from({ length: ENDPOINTS }, (_, k) => ({ ip: dottedQuad((10 << 24) | (244 << 16) | (i * ENDPOINTS + k + gen * 7 + 2)), port: 8080 }));
  return {
    namespace: 'bench',
    name: `svc-${i}`,
    portName: 'http',
    protocol: 'TCP',
    clusterIp: dottedQuad((10 << 24) | (i + 10)),
    port: 80,
    nodePort: 30000 + i,
    externalLocal: false,
    internalLocal: false,
    clusterEndpoints: endpoints,
    localEndpoints: [],
    hasEndpoints: true,
  };
}

const table = (gens: number[]): NodeServices => ({
  clusterId: 'c',
  clusterCidr: '10.244.0.0/16',
  serviceCidrs: ['10.0.0.0/16'],
  ports: gens.map((g, i) => port(i, g)),
});

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function benchServices(): Promise<ServicesBench | { skipped: string }> {
  const prefix = `b${Math.floor(Math.random() * 36 ** 5)
    .toString(36)
    .padStart(5, '0')}`;
  const reason = await netnsUnsupportedReason(prefix);
  if (reason) return { skipped: reason };
  const dp = new NetnsDataplane({ prefix });
  try {
    await dp.apply(TOPOLOGY);
    const gens = new Array<number>(SERVICES).fill(0);
    const first = table(gens);
    const fullMs = await timed(() => dp.applyServices(NODE, first));
    let updateMs = 0;
    let prev = first;
    let updateCommands = 0;
    for (let u = 1; u <= UPDATES; u++) {
      gens[(u * 37) % SERVICES] = u;
      const next = table(gens);
      updateCommands = proxyScript(next, renderProxy(next), renderProxy(prev)).split('\n').length - 1;
      updateMs += await timed(() => dp.applyServices(NODE, next));
      prev = next;
    }
    // The baseline replaces the driver's table with whole reloads; it runs last for that reason.
    const netns = dp.names.host(NODE);
    let baselineUpdateMs = 0;
    for (let u = 1; u <= BASELINE_UPDATES; u++) {
      gens[(u * 53) % SERVICES] = UPDATES + u;
      baselineUpdateMs += await timed(async () => {
        const next = table(gens);
        const [file, args] = inNetns(netns, 'nft', ['-f', '-']);
        const r = await run(file, args, proxyScript(next, renderProxy(next), undefined));
        if (r.code !== 0) throw new Error(r.stderr);
      });
    }
    return {
      services: SERVICES,
      endpoints: ENDPOINTS,
      fullMs,
      updateMs: updateMs / UPDATES,
      baselineUpdateMs: baselineUpdateMs / BASELINE_UPDATES,
      updateCommands,
      fullCommands: proxyScript(first, renderProxy(first), undefined).split('\n').length - 1,
    };
  } finally {
    await dp.close({ removeAll: true });
  }
}
