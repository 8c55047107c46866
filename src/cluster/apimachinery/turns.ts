// The runtime's share of a turn of the event loop. The controllers' work queues and the scheduler catch up on
// a burst (a pool add's thousand nodes and their pods) a bounded slice at a time, the rest on
// later turns, so that a request arriving meanwhile (ARM's next call, a poll, a kubectl) is read within tens of
// milliseconds instead of waiting for the whole burst (docs/performance.md §6.8). One budget for the process:
// the event loop is shared by every cluster.
import { performance } from 'node:perf_hooks';

/** The runtime's work per turn of the event loop before it lets I/O in. */
export const TURN_MS = 20;

/** The clock of one turn: started by the first ask, ended by an immediate (the next check phase). */
class Turns {
  private started: number | undefined;
  /** Counts turns; `cut` is the turn whose slice was used up. */
  private turn = 0;
  private cut = -2;

  /** Whether this turn's slice is used up (work asking now should go on a later turn). */
  spent(): boolean {
    const started = this.start();
    if (performance.now() - started < TURN_MS) return false;
    this.cut = this.turn;
    return true;
  }

  /** Whether work was put off to a later turn in this turn or the one before: the runtime is catching up. */
  behind(): boolean {
    this.start();
    return this.cut >= this.turn - 1;
  }

  /** When this turn's clock started (now, if this is the turn's first ask). */
  private start(): number {
    if (this.started !== undefined) return this.started;
    this.started = performance.now();
    setImmediate(() => {
      this.started = undefined;
      this.turn++;
    });
    return this.started;
  }
}

export const turns = new Turns();
