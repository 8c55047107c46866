// When watches that allow bookmarks get one, as the apiserver's cacher sends them (cacheWatcher.nextBookmarkTime):
// at least once a minute, and once 2 s before the watch's timeout, so a client that reconnects then resumes from
// a recent resourceVersion. One timer for every watch of the process, not one per watch: a thousand idle
// watchers cost a set entry each, and the timer runs only while there are any.
const FREQUENCY_MS = 60_000;
const BEFORE_DEADLINE_MS = 2_000;
const TICK_MS = 1_000;

interface Entry {
  due: number;
  deadline: number | undefined;
  fire: () => void;
}

function nextDue(now: number, deadline: number | undefined): number {
  const heartbeat = now + FREQUENCY_MS;
  if (deadline === undefined) return heartbeat;
  const pretimeout = deadline - BEFORE_DEADLINE_MS;
  if (pretimeout <= now) return Number.POSITIVE_INFINITY;
  return Math.min(heartbeat, pretimeout);
}

class BookmarkClock {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;

  /** Calls fire when the watch's bookmarks are due; returns how to stop. deadline: when the watch times out (ms). */
  add(deadline: number | undefined, fire: () => void): () => void {
    const entry: Entry = { due: nextDue(Date.now(), deadline), deadline, fire };
    this.entries.add(entry);
    this.timer ??= setInterval(() => this.tick(), TICK_MS).unref();
    return () => {
      this.entries.delete(entry);
      if (this.entries.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private tick(): void {
    const now = Date.now();
    for (const e of this.entries) {
      if (e.due > now) continue;
      e.due = nextDue(now, e.deadline);
      e.fire();
    }
  }
}

export const bookmarks = new BookmarkClock();
