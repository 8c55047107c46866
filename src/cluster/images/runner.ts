// A catalogued program (program.ts) as the container's process (processes.ts's Process): it ends with the
// status the program resolves with; stopping the container aborts ctx.signal and the process ends at once
// with 137 (SIGKILL), whatever the program still does while it cleans up. A program that throws crashed: its
// error is the last line of its log and its status is 1 (what a Go agent's log.Fatal exits with).
import { KILLED, type Process } from './processes.js';
import type { Program, ProgramContext } from './program.js';

export function runProgram(program: Program, ctx: Omit<ProgramContext, 'signal' | 'stopped'>): Process {
  // The program's signal is made when it is first read (an AbortSignal costs ~10 µs of CPU, and a restart resumes
  // tens of thousands of programs that only wait to be stopped: ctx.stopped); read after stop(), it is aborted.
  let abort: AbortController | undefined;
  let stopped = false;
  let whenStopped: Promise<void> | undefined;
  let wake = () => {};
  let killed = () => {};
  const exited = new Promise<number>((resolve) => {
    // Settled by stop() before the program hears its signal abort, as a first listener of the signal would be (a
    // listener per run cost more: a restart starts tens of thousands).
    killed = () => resolve(KILLED);
    let running: Promise<number>;
    try {
      running = program({
        ...ctx,
        get signal() {
          abort ??= new AbortController();
          if (stopped) abort.abort();
          return abort.signal;
        },
        stopped: () =>
          (whenStopped ??= stopped
            ? Promise.resolve()
            : new Promise<void>((r) => {
                wake = r;
              })),
      });
    } catch (e) {
      running = Promise.reject(e);
    }
    running.then(
      (status) => resolve(Number.isInteger(status) ? status : 1),
      (e: unknown) => {
        if (stopped) return;
        ctx.write('stderr', `${(e as Error)?.message ?? String(e)}\n`);
        resolve(1);
      },
    );
  });
  return {
    exited,
    stop: () => {
      stopped = true;
      killed();
      abort?.abort();
      wake();
    },
  };
}
