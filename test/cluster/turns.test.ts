// The runtime's pacing (docs/performance.md §6.2): paced steps (client/turns.ts) and a work queue's keys
// (client/queue.ts) leave the event loop to other work after a share of a turn, and a costly key's syncs for
// changes are spaced by its cost while its own next batch is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { nextTurn } from '../../src/cluster/client/turns.js';
import { WorkQueue } from '../../src/cluster/client/queue.js';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('nextTurn: waiters go on in order, and other work gets the loop after a share of a turn', async () => {
  const order: number[] = [];
  const all = Array.from({ length: 200 }, async (_, i) => {
    await nextTurn();
    order.push(i);
    busy(1);
  });
  // Queued after all 200 waiters: with one immediate each (as before), it would run after all of them.
  let doneWhenOtherRan = -1;
  setImmediate(() => (doneWhenOtherRan = order.length));
  await Promise.all(all);
  assert.deepEqual(
    order,
    Array.from({ length: 200 }, (_, i) => i),
  );
  assert.ok(doneWhenOtherRan >= 0 && doneWhenOtherRan < 200, `other work ran after ${doneWhenOtherRan} of 200 paced steps`);
  // Nothing left waiting: a later waiter goes on by itself.
  await nextTurn();
});

test('WorkQueue: a turn handles keys for a share of it; the rest, and keys added meanwhile, follow once each', async () => {
  const handled: string[] = [];
  const q = new WorkQueue(
    (key) => {
      handled.push(key);
      busy(2);
    },
    () => undefined,
  );
  for (let i = 0; i < 100; i++) q.add(`k${i}`);
  await turn();
  assert.ok(handled.length > 0 && handled.length < 100, `one turn handled ${handled.length} of 100 keys`);
  // A key still waiting in the batch is not queued twice; one handled already comes again.
  q.add('k99');
  q.add('k0');
  for (let i = 0; i < 200 && handled.length < 101; i++) await turn();
  assert.equal(handled.filter((k) => k === 'k99').length, 1);
  assert.equal(handled.filter((k) => k === 'k0').length, 2);
  assert.equal(handled.length, 101);
  q.close();
});

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
