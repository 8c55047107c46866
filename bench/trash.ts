// Directories a benchmark is done with, removed when the whole run ends rather than between figures. On ext4 without
// a journal (this machine's `/`), making a file or directory skips one by one every inode freed in the last minute or
// more, so removing one figure's tens of thousands of entries slowed the next figure's creates by seconds of kernel
// time (docs/performance.md §6.13). A rename is one entry; the removal waits for the process's exit.
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

const bins = new Map<string, string>();
let discarded = 0;

/** Moves `path` out of the way now (into a bin beside it) and removes it when the process exits. */
export function discard(path: string): void {
  const parent = dirname(path);
  let bin = bins.get(parent);
  if (!bin) {
    bin = mkdtempSync(join(parent, 'aksemu-bench-trash-'));
    bins.set(parent, bin);
    if (bins.size === 1) process.once('exit', emptyTrash);
  }
  try {
    renameSync(path, join(bin, String(++discarded)));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') rmSync(path, { recursive: true, force: true });
  }
}

/** Removes everything discard() moved aside. */
export function emptyTrash(): void {
  for (const bin of bins.values()) rmSync(bin, { recursive: true, force: true });
  bins.clear();
}
