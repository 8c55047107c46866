// Paced continuations for the runtime's many small steps (a pod's sandbox, a container's next command).
// Each such step used to wait on its own setImmediate, and Node runs every immediate queued before its check
// phase in that phase: a pool add's two thousand new pods made one turn of the event loop seconds long, and
// the requests that came meanwhile (ARM's polls, the next pool add) waited for all of it. Here the waiters
// are let go in order, one at a time with their continuations run in between, for at most TURN_MS of a
// turn; the rest go on in the next turn, after the I/O that came meanwhile.
import { performance } from 'node:perf_hooks';

/** How long one turn of the event loop lets paced steps run before the rest wait for the next turn (ms). */
const TURN_MS = 20;

const waiting: Array<() => void> = [];
let head = 0;
let pumping = false;

/** Resolves on a later turn of the event loop (as a setImmediate would), in order, within the turn's share. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}

function pump(): void {
  const deadline = performance.now() + TURN_MS;
  // One waiter per microtask: its continuation (queued by resolve, before the next step) runs in between, so
  // the clock read at each step counts the work of the ones let go before it.
  const step = (): void => {
    if (head === waiting.length) {
      waiting.length = 0;
      head = 0;
      pumping = false;
      return;
    }
    if (performance.now() >= deadline) {
      // Let go of what was handed out, keep the rest for the next turn.
      waiting.splice(0, head);
      head = 0;
      setImmediate(pump);
      return;
    }
    const resolve = waiting[head]!;
    waiting[head++] = noop;
    resolve();
    queueMicrotask(step);
  };
  step();
}

function noop(): void {}
