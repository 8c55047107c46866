// A catalogued program (program.ts) as the container's process (processes.ts's Process): it ends with the
// status the program resolves with; stopping the container aborts ctx.signal and the process ends at once
// with 137 (SIGKILL), whatever the program still does while it cleans up. A program that throws crashed: its
// error is the last line of its log and its status is 1 (what a Go agent's log.Fatal exits with).
import { KILLED, type Process } from './processes.js';
import type { Program, ProgramContext } from './program.js';

export function runProgram(program: Program, ctx: Omit<ProgramContext, 'signal'>): Process {
  const abort = new AbortController();
  let killed = () => {};
  const exited = new Promise<number>((resolve) => {
    // Settled by stop() before the program hears its signal abort, as a first listener of the signal would be (a
    // listener per run cost more: a restart starts tens of thousands).
    killed = () => resolve(KILLED);
    let running: Promise<number>;
    try {
      running = program({ ...ctx, signal: abort.signal });
    } catch (e) {
      running = Promise.reject(e);
    }
    running.then(
      (status) => resolve(Number.isInteger(status) ? status : 1),
      (e: unknown) => {
        if (abort.signal.aborted) return;
        ctx.write('stderr', `${(e as Error)?.message ?? String(e)}\n`);
        resolve(1);
      },
    );
  });
  return {
    exited,
    stop: () => {
      killed();
      abort.abort();
    },
  };
}
