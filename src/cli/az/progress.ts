// az's indeterminate progress while an operation runs: humanfriendly's Spinner writes
// "\r\x1b[K <state> Running ..\r" to stderr; only when stderr is a terminal (az shows none in pipes).
const ERASE_LINE = '\r\x1b[K';
const STATES = ['-', '\\', '|', '/'];

export interface Progress {
  start(): void;
  stop(): void;
}

export const noProgress: Progress = { start() {}, stop() {} };

export function spinner(stream: NodeJS.WriteStream = process.stderr, label = 'Running'): Progress {
  if (!stream.isTTY) return noProgress;
  let timer: NodeJS.Timeout | undefined;
  let counter = 0;
  const step = () => {
    stream.write(`${ERASE_LINE} ${STATES[counter++ % STATES.length]} ${label} ..\r`);
  };
  return {
    start() {
      if (timer) return;
      step();
      timer = setInterval(step, 200);
      timer.unref();
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      stream.write(ERASE_LINE);
    },
  };
}
