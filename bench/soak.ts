// `npm run soak`: the long forms of the CI fuzzers and crash harness (issue 11), on the same code —
// AKSEMU_FUZZ_ARM (100,000), AKSEMU_FUZZ_CLUSTER (20,000) requests and AKSEMU_FUZZ_KILLS (30) SIGKILL
// rounds from seed AKSEMU_FUZZ_SEED, each bounded by AKSEMU_FUZZ_BUDGET_MS (15 min) — and the figures:
// requests, 2xx/4xx/5xx, hangs, crashes, kill rounds, what survived, and every failure class found.
import { runArmFuzz } from '../test/fuzz/arm-fuzz.js';
import { runClusterFuzz } from '../test/fuzz/cluster-fuzz.js';
import { runCrashRounds } from '../test/fuzz/crash.js';
import { countFromEnv, seedFromEnv } from '../test/fuzz/prng.js';

const seed = seedFromEnv('random');
const budget = countFromEnv('AKSEMU_FUZZ_BUDGET_MS', 15 * 60_000);
const arm = countFromEnv('AKSEMU_FUZZ_ARM', 100_000);
const cluster = countFromEnv('AKSEMU_FUZZ_CLUSTER', 20_000);
const kills = countFromEnv('AKSEMU_FUZZ_KILLS', 30);
console.log(
  `aksemu soak, node ${process.version}, seed ${seed} (AKSEMU_FUZZ_SEED=${seed} replays it): ${arm} ARM requests, ${cluster} cluster API requests, ${kills} kill rounds\n`,
);

let failed = false;
const a = await runArmFuzz({ seed, total: arm, deadlineMs: budget });
console.log(a.summary);
const c = await runClusterFuzz({ seed, total: cluster, deadlineMs: budget });
console.log(c.summary);
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
console.log(failed ? '\nsoak: FAILED' : '\nsoak: no failures');
process.exitCode = failed ? 1 : 0;
