// flanneld's log lines as klog writes them to stderr (`I1203 21:30:00.123456       1 main.go:229] message`):
// severity letter, month and day, time with microseconds, the thread id column (the container's pid 1), the
// source file and line of the call in flannel v0.28.9, then the message. `kubectl logs` shows them as on AKS.
import type { ProgramContext } from './program.js';

export type Severity = 'I' | 'W' | 'E';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** One klog line (with its newline) for a call at `source` (`main.go:229`). */
export function klogLine(severity: Severity, source: string, message: string, now = new Date()): string {
  const stamp = `${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds() * 1000, 6)}`;
  return `${severity}${stamp} ${'1'.padStart(7)} ${source}] ${message}\n`;
}

/** A logger writing klog lines to the container's stderr. */
export function klog(ctx: Pick<ProgramContext, 'write'>) {
  const at = (severity: Severity) => (source: string, message: string) => ctx.write('stderr', klogLine(severity, source, message));
  return { info: at('I'), warning: at('W'), error: at('E') };
}

/** Go's `%#+v` of a map[string]string: `map[string]string{"a":"b", "c":"d"}`, keys sorted. */
export function goStringMap(map: Record<string, string>): string {
  return `map[string]string{${Object.keys(map)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(map[k])}`)
    .join(', ')}}`;
}
