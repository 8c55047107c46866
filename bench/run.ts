// `npm run bench`: every benchmark, each against its baseline measured in the same run, printed as ratios.
import { benchAllocators } from './allocators.js';
import { benchAzCreate } from './az-create.js';
import { benchPlanner } from './planner.js';
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
for (const c of creates) console.log(`${c.name}\n  ${(c.ms / 1000).toFixed(2)} s`);
console.log(`  ratio 1,000-node / 3-node: ${(creates[1]!.ms / creates[0]!.ms).toFixed(1)}x`);
