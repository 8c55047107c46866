// kube-proxy's nftables mode in a node's namespace (docs/dataplane.md §12): the table of kube-proxy-rules.ts,
// loaded whole the first time and converged by difference after, one transaction per apply, applies on one node
// one at a time. What was applied is remembered per host object, so a host rebuilt because its shape changed
// (a new HostState, an empty namespace) gets the whole table again. Chains dropped by an apply are flushed at
// once and deleted a second later, as kube-proxy does (a map element naming a chain is released after a grace
// period on kernels before 6.2).
import { checkNodeServices, NODE_SUBNET, type NodeServices } from '../services.js';
import { inNetns, run } from './exec.js';
import { deleteChainsScript, type ProxyModel, proxyScript, renderProxy, staleChains } from './kube-proxy-rules.js';
import type { HostState, NetnsState } from './state.js';

interface HostProxy {
  applied: ProxyModel | undefined;
  /** Flushed chains waiting to be deleted, with when they were flushed. */
  stale: Map<string, number>;
  queue: Promise<void>;
  timer: NodeJS.Timeout | undefined;
}

const STALE_MS = 1000;
const hosts = new WeakMap<HostState, HostProxy>();

async function nft(netns: string, script: string): Promise<void> {
  const [file, args] = inNetns(netns, 'nft', ['-f', '-']);
  const r = await run(file, args, script);
  if (r.code !== 0) throw new Error(`kube-proxy rules in ${netns}: ${(r.stderr || r.stdout).trim().split('\n').slice(0, 3).join(' ')}`);
}

/** The chains flushed at least a second ago (and not wanted again), due for deletion. */
function dueStale(hp: HostProxy, want: ProxyModel | undefined): string[] {
  const now = Date.now();
  for (const n of hp.stale.keys()) if (want?.chains.has(n)) hp.stale.delete(n);
  return [...hp.stale].filter(([, at]) => now - at >= STALE_MS).map(([n]) => n);
}

/** Deletes due stale chains on their own; a failure leaves them for the next try. */
async function deleteStale(host: HostState, hp: HostProxy): Promise<void> {
  const due = dueStale(hp, hp.applied);
  if (!due.length) return;
  try {
    await nft(host.netns, deleteChainsScript(due));
    for (const n of due) hp.stale.delete(n);
  } catch {
    // Still referenced for a moment longer: the next apply or timer tries again.
  }
}

function scheduleCleanup(host: HostState, hp: HostProxy): void {
  if (hp.timer || hp.stale.size === 0) return;
  hp.timer = setTimeout(() => {
    hp.timer = undefined;
    hp.queue = hp.queue.then(() => deleteStale(host, hp)).then(() => scheduleCleanup(host, hp));
  }, STALE_MS + 100);
  hp.timer.unref();
}

/** Converges the node's service rules on the table; idempotent. */
export async function applyKubeProxy(state: NetnsState, hostId: string, given: NodeServices): Promise<void> {
  checkNodeServices(given);
  const host = state.hosts.get(hostId.toLowerCase());
  if (!host || host.kind !== 'node') throw new Error(`kube-proxy: ${hostId} is not a node of the data plane`);
  const table = given.clusterCidr === NODE_SUBNET ? { ...given, clusterCidr: host.subnetPrefix.toString() } : given;
  let hp = hosts.get(host);
  if (!hp) hosts.set(host, (hp = { applied: undefined, stale: new Map(), queue: Promise.resolve(), timer: undefined }));
  const proxy = hp;
  const next = proxy.queue.then(async () => {
    const want = renderProxy(table);
    const script = proxyScript(table, want, proxy.applied);
    // Chains flushed a second ago go in the same transaction (one nft process: each loads the table's cache,
    // which is most of its cost on a big table); should that fail, the update is tried alone.
    const due = proxy.applied?.base === want.base ? dueStale(proxy, want) : [];
    if (!script && !due.length) return;
    try {
      await nft(host.netns, script + deleteChainsScript(due));
      for (const n of due) proxy.stale.delete(n);
    } catch (e) {
      try {
        if (!due.length) throw e;
        // The stale chains stay for a later try; the update goes alone.
        if (script) await nft(host.netns, script);
      } catch (again) {
        // Unknown state: the next apply loads the whole table.
        proxy.applied = undefined;
        throw again;
      }
    }
    const dropped = proxy.applied && proxy.applied.base === want.base ? staleChains(proxy.applied, want) : [];
    for (const n of dropped) proxy.stale.set(n, Date.now());
    if (proxy.applied?.base !== want.base) proxy.stale.clear();
    proxy.applied = want;
    scheduleCleanup(host, proxy);
  });
  proxy.queue = next.catch(() => undefined);
  return next;
}
