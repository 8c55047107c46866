// A work queue's pacing (client/queue.ts, docs/performance.md §6.2): a costly key's syncs for changes are spaced
// by its cost, while its own next batch is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { WorkQueue } from '../../src/cluster/client/queue.js';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('WorkQueue: a costly key handled for a change waits REST times its cost; add() does not', async () => {
  const at: number[] = [];
  const q = new WorkQueue(
    () => {
      at.push(performance.now());
      busy(5);
    },
    () => undefined,
  );
  q.add('ds');
  while (at.length < 1) await turn();
  q.addPaced('ds');
  q.addPaced('ds');
  await turn();
  await turn();
  // Handled at 5 ms of cost or more: not again for 45 ms after it ended (checked while that is sure to hold).
  if (performance.now() - at[0]! < 45) assert.equal(at.length, 1, 'paced: not handled again within its rest');
  while (at.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.ok(at[1]! - at[0]! >= 49, `handled again ${Math.round(at[1]! - at[0]!)} ms after the last start`);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(at.length, 2, 'the two changes made one sync');
  // Its own next batch (add) does not wait.
  q.add('ds');
  for (let i = 0; i < 5 && at.length < 3; i++) await turn();
  assert.equal(at.length, 3);
  q.close();
});
