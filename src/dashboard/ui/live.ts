// The live feed: one EventSource on /ui/api/events (docs/dashboard.md §3). The server coalesces changes per 100 ms
// and names what changed: ARM resource ids and cluster ids. The app asks the page on screen whether it shows any of
// them and, if so, fetches it again; the page is never reloaded.
import type { Change } from './types.js';

export type Listener = (change: Change) => void;

export interface Feed {
  /** 'connecting' | 'live' | 'lost', for the status line. */
  state(): string;
  close(): void;
}

export function openFeed(onChange: Listener, onState: (state: string) => void): Feed {
  let state = 'connecting';
  const set = (s: string) => {
    state = s;
    onState(s);
  };
  const source = new EventSource('/ui/api/events');
  source.addEventListener('open', () => set('live'));
  // The browser reconnects by itself after the server's `retry: 2000`; until then the status says so.
  source.addEventListener('error', () => set(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'));
  source.addEventListener('change', (e) => {
    let change: Change;
    try {
      const data = JSON.parse((e as MessageEvent<string>).data) as Partial<Change>;
      change = { arm: Array.isArray(data.arm) ? data.arm : [], clusters: Array.isArray(data.clusters) ? data.clusters : [] };
    } catch {
      return;
    }
    onChange(change);
  });
  return { state: () => state, close: () => source.close() };
}

/** ARM ids compare without case (as the server's sameId does). */
export const sameId = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Whether `id` is `scope` or a resource under it. */
export function within(id: string, scope: string): boolean {
  const a = id.toLowerCase();
  const s = scope.toLowerCase().replace(/\/+$/, '');
  return a === s || a.startsWith(`${s}/`);
}
