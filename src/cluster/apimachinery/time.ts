// Kubernetes time formats: metav1.Time is RFC 3339 in whole seconds; MicroTime has exactly 6 fractional
// digits (docs/clients.md §5.10). HumanDuration is the apiserver's AGE cell (§5.4.3).

/** The second k8sTime formatted last, and its text: most calls are for now, thousands in one second after a restart. */
let lastSecond = Number.NaN;
let lastText = '';

export function k8sTime(at: Date | string | number): string {
  const ms = typeof at === 'number' ? at : at instanceof Date ? at.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}

export function microTime(at: Date | string | number): string {
  const d = new Date(at);
  return d.toISOString().replace(/\.(\d{3})Z$/, (_m, ms: string) => `.${ms}000Z`);
}

/** apimachinery's duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.floor(hours / 24);
    return h === 0 ? `${d}d` : `${d}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const years = Math.floor(hours / 24 / 365);
    const d = Math.floor(hours / 24) % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** The last AGE cell made: a list's rows are read at one `now`, and neighbours were mostly created in the same second. */
let lastAge = { created: '', now: 0, cell: '' };

/** The AGE cell of an object created at `created` (RFC 3339), `<unknown>` when unset. */
export function age(created: string | undefined, now = Date.now()): string {
  if (!created) return '<unknown>';
  if (created === lastAge.created && now === lastAge.now) return lastAge.cell;
  lastAge = { created, now, cell: humanDuration(now - Date.parse(created)) };
  return lastAge.cell;
}
