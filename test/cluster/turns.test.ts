// The runtime's work in bounded turns (apimachinery/turns.ts, docs/performance.md §6.8): a work queue's backlog goes
// on a slice of each turn at a time, in order and each exactly once, and I/O that arrives
// meanwhile (a request) is read between the slices, before the backlog is done. The mechanism is tested, not a time.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { TURN_MS, turns } from '../../src/cluster/apimachinery/turns.js';
import { WorkQueue } from '../../src/cluster/client/queue.js';

/** Work that takes `ms` of CPU, as a reconcile or a pod step does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Counts turns of the event loop (one immediate a turn) until stopped. */
function turnCounter(): { now(): number; stop(): void } {
  let n = 0;
  let stopped = false;
  const tick = () => {
    n++;
    if (!stopped) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => n, stop: () => void (stopped = true) };
}

/** A request on a loopback socket: resolves with what `seen()` says when its bytes are read. */
async function requestDuring<T>(start: () => void, seen: () => T): Promise<T> {
  let read!: (at: T) => void;
  const readAt = new Promise<T>((resolve) => (read = resolve));
  const server = createServer((socket) => socket.once('data', () => read(seen())));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(client, 'connect');
    // The request is on its way when the backlog starts: it is read at the first turn that lets I/O in.
    client.write('GET / HTTP/1.1\r\n\r\n');
    start();
    const at = await readAt;
    client.destroy();
    return at;
  } finally {
    server.close();
  }
}

test('a work queue handles a backlog a slice a turn, in order, each key once, and reads a request in between', async () => {
  const handled: string[] = [];
  const turnsOf = new Set<number>();
  const counter = turnCounter();
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const keys = Array.from({ length: 120 }, (_, i) => `ns/k${i}`);
  const queue = new WorkQueue(
    (key) => {
      busy(2);
      handled.push(key);
      turnsOf.add(counter.now());
      if (handled.length === keys.length) done();
    },
    (_key, e) => assert.fail(String(e)),
  );
  let handledAtRead: number;
  try {
    handledAtRead = await requestDuring(
      () => {
        for (const key of keys) queue.add(key);
        // Added again while it still waits: handled once, in its place.
        queue.add('ns/k0');
      },
      () => handled.length,
    );
    await finished;
  } finally {
    counter.stop();
    queue.close();
  }
  assert.deepEqual(handled, keys);
  // 120 keys of 2 ms in slices of TURN_MS: several turns, and the request was read before the last of them.
  assert.ok(turnsOf.size >= Math.floor((keys.length * 2) / (TURN_MS * 2)), `handled in ${turnsOf.size} turns`);
  assert.ok(handledAtRead < keys.length, `the request was read after ${handledAtRead} of ${keys.length} keys`);
});

test('keys left for the next turn go before keys added since, and one added twice is handled once', async () => {
  const handled: string[] = [];
  const queue = new WorkQueue(
    (key) => {
      handled.push(key);
      if (key === 'a/0') {
        // Uses up the turn: the rest of this batch goes on the next one, ahead of what is added now.
        busy(TURN_MS + 5);
        queue.add('a/new');
        queue.add('a/2');
      }
    },
    (_key, e) => assert.fail(String(e)),
  );
  for (const key of ['a/0', 'a/1', 'a/2', 'a/3']) queue.add(key);
  for (let i = 0; i < 100 && handled.length < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 5));
  queue.close();
  // a/0 alone in the first turn, then the rest in order; a/2 (added again while it waited) once, a/new last.
  assert.deepEqual(handled, ['a/0', 'a/1', 'a/2', 'a/3', 'a/new']);
});

test('behind(): true while work is put off to later turns, false once a turn passes without it', async () => {
  turns.spent();
  busy(TURN_MS + 1);
  assert.equal(turns.spent(), true);
  assert.equal(turns.behind(), true);
  // Asked each turn, as the write-behind asks while it waits.
  const seen: boolean[] = [];
  for (let i = 0; i < 3; i++) {
    seen.push(turns.behind());
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(seen, [true, true, false]);
});
