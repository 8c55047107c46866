// `npm run bench`: every benchmark, each against its baseline measured in the same run, printed as ratios.
import { benchAllocators } from './allocators.js';
import { benchAzCreate, describe } from './az-create.js';
import { benchKubectlGetNodes, benchPodsPerGiB, podsPerGiB } from './cluster-api.js';
import { benchDataplane } from './dataplane.js';
import { benchPlanner } from './planner.js';
import { benchRestart } from './restart.js';
import { benchServices } from './services.js';
import { benchBigList, benchWatchers } from './watchers.js';
import type { BenchResult } from './timing.js';

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function print(results: BenchResult[]): void {
  for (const r of results) {
    const ratio = r.opsPerSec / r.baselineOpsPerSec;
    console.log(`${r.name}\n  aksemu ${fmt(r.opsPerSec)} ops/s   baseline ${fmt(r.baselineOpsPerSec)} ops/s   ratio ${ratio.toFixed(1)}x\n  (${r.note})`);
  }
}

console.log(`aksemu benchmarks, node ${process.version}\n`);
print(await benchAllocators());
print(benchPlanner());

const creates = await benchAzCreate();
for (const c of creates) console.log(`${c.name}\n  ${describe(c)}   goal ≤ ${c.goalS} s`);
console.log(`  ratio 1,000-node / 3-node: ${(creates[1]!.ms / creates[0]!.ms).toFixed(1)}x`);

const restart = await benchRestart();
console.log(
  `restart of a server holding a ${fmt(restart.nodes)}-node Azure CNI cluster with ${fmt(restart.pods)} pods (no data plane) → serving and every pod Running again`,
);
console.log(
  `  (made in ${fmt(restart.setupMs / 1000)} s, not part of the figure${restart.setupMs === 0 ? ': a saved home' : ''})\n  best of ${restart.restarts} restarts: serving ${(restart.servingMs / 1000).toFixed(2)} s (CPU ${(restart.servingCpuMs / 1000).toFixed(2)} s)   every pod Running ${(restart.runningMs / 1000).toFixed(2)} s (CPU ${(restart.runningCpuMs / 1000).toFixed(2)} s; goal ≤ 3 s)` +
    `\n  first answers, asked from the start on: ARM ${(restart.armMs / 1000).toFixed(2)} s   a page of nodes ${(restart.nodesPageMs / 1000).toFixed(2)} s   a page of pods ${(restart.podsPageMs / 1000).toFixed(2)} s`,
);

const dp = await benchDataplane();
if ('skipped' in dp) console.log(`netns data plane: pod attach\n  skipped: ${dp.skipped}`);
else {
  console.log(`netns data plane: pod attach, kubenet, ${dp.pods} pods (namespace + veth on cbr0 + address, route, static neighbours)`);
  console.log(
    `  driver ${fmt(dp.driverPerSec)} pods/s   batched ip -b baseline ${fmt(dp.baselinePerSec)} pods/s   ratio ${(dp.driverPerSec / dp.baselinePerSec).toFixed(2)}x (goal: the driver within 1.5x of the baseline)`,
  );
  console.log(`  bridge+host-local plugins per pod ${fmt(dp.pluginsPerSec)} pods/s   driver / plugins ${(dp.driverPerSec / dp.pluginsPerSec).toFixed(1)}x`);
}

const svc = await benchServices();
if ('skipped' in svc) console.log(`netns data plane: kube-proxy rules\n  skipped: ${svc.skipped}`);
else {
  console.log(`netns data plane: kube-proxy rules, ${fmt(svc.services)} Services × ${svc.endpoints} endpoints (ClusterIP + NodePort) on one node`);
  console.log(`  full program ${fmt(svc.fullMs)} ms (${fmt(svc.fullCommands)} nft commands in one transaction)`);
  console.log(
    `  one Service's endpoints changing: partial ${fmt(svc.updateMs)} ms (${svc.updateCommands} commands)   full re-render + reload baseline ${fmt(svc.baselineUpdateMs)} ms   ratio ${(svc.baselineUpdateMs / svc.updateMs).toFixed(1)}x`,
  );
}

const api = await benchKubectlGetNodes();
console.log(
  `aksemu az aks create + 4 × nodepool add, 5,000-node BYO CNI cluster (5 pools of 1,000) → Succeeded\n  ${describe(api.create)}   ${fmt(5000 / (api.create.ms / 1000))} nodes/s   goal ≤ 10 s (≥ 500 nodes/s)`,
);
console.log(
  `kubectl get nodes (real /usr/bin/kubectl, best of 5, fresh discovery cache)\n  3-node seed cluster ${fmt(api.kubectlSeedMs)} ms   5,000-node cluster ${fmt(api.kubectlBigMs)} ms   ratio ${(api.kubectlBigMs / api.kubectlSeedMs).toFixed(1)}x`,
);
console.log(
  `  server side of it (GET /api/v1/nodes as a Table, built and serialized in process): ${fmt(api.serverMs)} ms for ${(api.responseBytes / 1e6).toFixed(1)} MB, ${((api.serverMs / api.kubectlBigMs) * 100).toFixed(0)}% of the kubectl wall time`,
);
const pods = await benchPodsPerGiB();
const posted = pods.posted;
console.log(
  `pods held per GiB (a ${fmt(pods.pods)}-replica Deployment, its pods made by the cluster's controllers, after a full GC)\n  heap ${fmt(podsPerGiB(pods, pods.heapBytes))} pods/GiB (${fmt(pods.heapBytes / pods.pods)} bytes/pod, goal ≤ 1,024)   RSS ${fmt(podsPerGiB(pods, pods.rssBytes))} pods/GiB (${fmt(pods.rssBytes / pods.pods)} bytes/pod, goal ≤ 2,048)\n  (held when measured: ${fmt(pods.held.pods)} pods, ${fmt(pods.held.events)} Events, ${fmt(pods.held.scheduled ?? 0)} pods through the scheduler after waiting ${fmt(pods.held.waitedMs ?? 0)} ms; V8's committed heap ${fmt(pods.heapTotalBytes / pods.pods)} bytes/pod, outside it ${fmt(pods.externalBytes / pods.pods)}; the burst's CPU ${fmt(pods.burstCpuMs ?? Number.NaN)} ms, the server's compactions in it ${fmt(pods.burstCompactions?.count ?? 0)}, the last one's pause ${fmt(pods.burstCompactions?.lastMs ?? Number.NaN)} ms)`,
);
for (const [m, what] of [
  [pods, 'the Deployment'],
  [posted, 'the POSTed pods below'],
] as const) {
  const settled = m.settled;
  if (settled)
    console.log(
      `  ${what}, settled (the server's next collection at idle, ${fmt(settled.compactedAfterMs)} ms after the figure, its pause ${fmt(settled.compactionMs)} ms; baseline compacted likewise): RSS ${fmt(settled.rssBytes / m.pods)} bytes/pod (goal ≤ 2,048), heap ${fmt(settled.heapBytes / m.pods)} bytes/pod, V8's committed heap ${fmt(settled.heapTotalBytes / m.pods)} bytes/pod`,
    );
}
console.log(
  `pods held per GiB, the form of rounds one to seven (${fmt(posted.pods)} pods POSTed through the cluster API, each with an env value of its own, so no two specs alike)\n  heap ${fmt(posted.heapBytes / posted.pods)} bytes/pod (9,591 before sharing)   RSS ${fmt(posted.rssBytes / posted.pods)} bytes/pod (14,357 before sharing)\n  (round one: heap 2,135 bytes/pod, RSS 4,103; round two, every pod through the scheduler: 2,110 before, ~1,840 after; held when measured: ${fmt(posted.held.pods)} pods, ${fmt(posted.held.events)} Events, ${fmt(posted.held.scheduled ?? 0)} pods through the scheduler after waiting ${fmt(posted.held.waitedMs ?? 0)} ms)${posted.marginalHeapBytes !== undefined ? `\n  the second half's own growth (another child, the heap also read at ${fmt(posted.pods >> 1)} pods held and placed; code compiled for the pods' path is then mostly in its baseline): heap ${fmt(posted.marginalHeapBytes)} bytes/pod` : ''}`,
);

const watch = await benchWatchers();
console.log(
  `${watch.watchers} watchers on pods (HTTPS, another process) while ${fmt(watch.pods)} pods are created through the cluster API (${(watch.createMs / 1000).toFixed(1)} s, server CPU ${(watch.serverCpuMs / 1000).toFixed(1)} s, busy ${Math.round(watch.serverBusy * 100)}%; watchers' CPU ${(watch.clientCpuMs / 1000).toFixed(1)} s, busy ${Math.round(watch.clientBusy * 100)}%; ${watch.cipher})`,
);
console.log(
  `  slowest watcher behind by ${fmt(watch.maxLagMs)} ms at most, p99 ${fmt(watch.p99LagMs)} ms (goal: none behind by > 1,000 ms)   watchers cut off ${watch.cutOff}   heap growth after GC ${(watch.heapGrowthBytes / 1e6).toFixed(1)} MB, pods included (bounded: ≤ 8 MiB unsent per watcher)`,
);
console.log(
  `  of it the server's: each pod's line written to the last watcher ${fmt(watch.maxWrittenMs)} ms after its create at most (p99 ${fmt(watch.p99WrittenMs)} ms), out of Node ${fmt(watch.maxSentMs)} ms (p99 ${fmt(watch.p99SentMs)} ms); the rest waits for the watchers' process to read it`,
);

const list = await benchBigList();
console.log(`kubectl get pods -A on ${fmt(list.pods)} pods (real /usr/bin/kubectl, 500 per page; pods written in ${(list.fillMs / 1000).toFixed(1)} s)`);
console.log(
  `  kubectl ${(list.kubectlMs / 1000).toFixed(1)} s for ${fmt(list.rows)} rows (kubectl's client-side limit of 5 requests/s sets this)   server side ${fmt(list.serverTotalMs)} ms (CPU ${fmt(list.serverCpuMs)} ms) for ${list.pages} pages (goal ≤ 2,000 ms), slowest page ${fmt(list.serverMaxPageMs)} ms`,
);
