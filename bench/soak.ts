// `npm run soak`: the long forms of the CI fuzzers and crash harness (issues 11 and 25), on the same code —
// AKSEMU_FUZZ_ARM (100,000) ARM requests, then AKSEMU_FUZZ_CLUSTER (20,000) cluster API requests on the SAME
// server process (a state one run leaves behind is what the other meets, as a long-lived server would), then
// AKSEMU_FUZZ_KILLS (30) SIGKILL rounds; seed AKSEMU_FUZZ_SEED (random unless given), each run bounded by
// AKSEMU_FUZZ_BUDGET_MS (15 min). It checks the process stayed alive through both runs (one pid, no crash or
// restart) and that its resident memory stayed under AKSEMU_SOAK_RSS_MB (700), and prints the RSS figures:
// after the fixtures, after each run, and the peak. What a cluster may hold is bounded by its object ceiling
// (apiserver/storage/ceiling.ts: 50,000 objects and 50,000 events, ~425 MB of heap) and the watch history's bounds
// (apiserver/storage/store.ts); the fuzzers' replica bombs fill the first, so a long soak's RSS climbs towards that.
import { runArmFuzz } from '../test/fuzz/arm-fuzz.js';
import { runClusterFuzz } from '../test/fuzz/cluster-fuzz.js';
import { runCrashRounds } from '../test/fuzz/crash.js';
import { FuzzServer } from '../test/fuzz/fuzz-server.js';
import { countFromEnv, seedFromEnv } from '../test/fuzz/prng.js';

const seed = seedFromEnv('random');
const budget = countFromEnv('AKSEMU_FUZZ_BUDGET_MS', 15 * 60_000);
const arm = countFromEnv('AKSEMU_FUZZ_ARM', 100_000);
const cluster = countFromEnv('AKSEMU_FUZZ_CLUSTER', 20_000);
const kills = countFromEnv('AKSEMU_FUZZ_KILLS', 30);
const rssLimitMb = countFromEnv('AKSEMU_SOAK_RSS_MB', 700);
console.log(
  `aksemu soak, node ${process.version}, seed ${seed} (AKSEMU_FUZZ_SEED=${seed} replays it): ${arm} ARM requests then ${cluster} cluster API requests on one server, ${kills} kill rounds\n`,
);

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
let failed = false;
const problems: string[] = [];
const fs = await FuzzServer.start(4);
let a: Awaited<ReturnType<typeof runArmFuzz>>;
let c: Awaited<ReturnType<typeof runClusterFuzz>>;
let marks: string[] = [];
try {
  await fs.health();
  const start = fs.rss.at(-1)!;
  const snapshots = process.env['AKSEMU_FUZZ_HEAP_SNAPSHOTS'] !== undefined;
  if (snapshots) console.log(`heap snapshot: ${await fs.server.heapSnapshot()}`);
  a = await runArmFuzz({ seed, total: arm, deadlineMs: budget, server: fs });
  console.log(a.summary);
  await fs.health();
  const afterArm = fs.rss.at(-1)!;
  if (snapshots) console.log(`heap snapshot: ${await fs.server.heapSnapshot()}`);
  c = await runClusterFuzz({ seed, total: cluster, deadlineMs: budget, server: fs });
  console.log(c.summary);
  await fs.health();
  const end = fs.rss.at(-1)!;
  if (snapshots) console.log(`heap snapshot: ${await fs.server.heapSnapshot()}`);
  const pids = new Set(fs.rss.map((s) => s.pid));
  const peak = Math.max(...fs.rss.map((s) => s.bytes));
  const mark = (s: (typeof fs.rss)[number]) => `${mb(s.bytes)} MB (heap ${mb(s.heap)}, external ${mb(s.external)})`;
  marks = [`start ${mark(start)}`, `after ARM ${mark(afterArm)}`, `after cluster API ${mark(end)}`, `peak ${mb(peak)} MB`];
  console.log(`server RSS over ${fs.rss.length} samples: ${marks.join(', ')} (limit ${rssLimitMb} MB); server processes: ${pids.size}`);
  if (pids.size !== 1 || a.figures.crashes + c.figures.crashes > 0 || a.figures.restarts + c.figures.restarts > 0)
    problems.push(`the server did not stay alive through both runs: ${pids.size} processes, ${a.figures.crashes + c.figures.crashes} crashes`);
  if (mb(peak) > rssLimitMb) problems.push(`server RSS reached ${mb(peak)} MB (limit ${rssLimitMb} MB)`);
  if (!(await fs.restart(true))) problems.push('the server did not come back healthy after a clean restart at the end');
} finally {
  await fs.close();
}
const k = await runCrashRounds({ seed, rounds: kills });
console.log(k.summary);
for (const [name, findings] of [
  ['ARM fuzz', a.findings],
  ['cluster API fuzz', c.findings],
  ['crash harness', k.findings],
] as const) {
  if (findings.ok) continue;
  failed = true;
  console.log(`\n${findings.report(name)}`);
}
for (const p of problems) console.log(`\nsoak: ${p}`);
failed ||= problems.length > 0;
console.log(failed ? '\nsoak: FAILED' : '\nsoak: no failures');
process.exitCode = failed ? 1 : 0;
