// A set of pods by namespace and name that holds each pod's own name string: a `namespace/name` key per pod is one
// more string held for every pod the scheduler has marked Unschedulable (~50 bytes each: docs/performance.md §7.1).
// Each namespace's names are a CompactSet, where a `Set` cost ~33 bytes per pod in its own table
// (docs/performance.md §7.7); its order is the Set's, which the scheduler's retries keep: pods alike in priority and
// creation second are tried in the order they were marked.
import { objectKey } from '../apimachinery/object.js';
import { CompactSet } from '../apimachinery/compact-map.js';

export class PodSet {
  private readonly byNamespace = new Map<string, CompactSet>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(namespace: string | undefined, name: string): boolean {
    return this.byNamespace.get(namespace ?? '')?.has(name) ?? false;
  }

  add(namespace: string | undefined, name: string): void {
    const ns = namespace ?? '';
    let names = this.byNamespace.get(ns);
    if (!names) this.byNamespace.set(ns, (names = new CompactSet()));
    // One look-up: the set grows only when the name is new.
    const before = names.size;
    if (names.add(name).size !== before) this.count++;
  }

  /** Whether it was there. */
  delete(namespace: string | undefined, name: string): boolean {
    const ns = namespace ?? '';
    const names = this.byNamespace.get(ns);
    if (!names?.delete(name)) return false;
    this.count--;
    if (names.size === 0) this.byNamespace.delete(ns);
    return true;
  }

  clear(): void {
    this.byNamespace.clear();
    this.count = 0;
  }

  /** The pods' `namespace/name` keys, each namespace's in the order added (made as asked: objectKey). */
  *keys(): IterableIterator<string> {
    for (const [ns, names] of this.byNamespace) for (const name of names.keys()) yield objectKey(ns, name);
  }
}
