// One resource's objects in a store, held by namespace and then by name, the name being the stored object's own
// string: a `namespace/name` key per object was a string of its own (~60 bytes for a pod, ~90 for an Event:
// docs/performance.md §7.2). Lists still come in etcd key order (byte-wise `namespace/name`), and paging still
// names a key: those keys are made when a list pages, and kept until an object comes or goes.
// A bucket may hold its objects packed (packing.ts: Events); its readers get them complete either way.
// Each namespace's names are a CompactMap (docs/performance.md §7.8): a `Map` of 20,000 pods kept 28 bytes a slot in
// 32,768 slots; lists sort the names, so the table's own order does not show.
import { CompactMap } from '../../apimachinery/compact-map.js';
import { compareKeys, objectKey, type KubeObject } from '../../apimachinery/object.js';
import { type Packed, unpacked } from './packing.js';

/** Namespaces and each one's names in etcd key order. */
interface Order {
  namespaces: string[];
  names: Map<string, string[]>;
}

export class Bucket {
  private readonly byNamespace = new Map<string, CompactMap<KubeObject | Packed>>();
  private count = 0;
  /** The order, kept until an object comes or goes (lists read it). */
  private order: Order | undefined;
  /** The `namespace/name` keys in that order, made for paging and kept as long as the order. */
  private keyList: string[] | undefined;

  get size(): number {
    return this.count;
  }

  get(namespace: string, name: string): KubeObject | undefined {
    const held = this.held(namespace, name);
    return held && unpacked(held);
  }

  /** What the bucket holds under namespace and name: the object, or it packed. */
  held(namespace: string, name: string): KubeObject | Packed | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  /** The object under a `namespace/name` key (`/name` when cluster-scoped); namespaces hold no `/`. */
  byKey(key: string): KubeObject | undefined {
    const at = key.indexOf('/');
    return at < 0 ? undefined : this.get(key.slice(0, at), key.slice(at + 1));
  }

  /** Stores obj under namespace and name (which should be obj's own strings: they stay as the keys). */
  set(namespace: string, name: string, obj: KubeObject | Packed): void {
    let names = this.byNamespace.get(namespace);
    if (!names) this.byNamespace.set(namespace, (names = new CompactMap()));
    const before = names.size;
    names.set(name, obj);
    if (names.size !== before) this.changed(1);
  }

  delete(namespace: string, name: string): boolean {
    const names = this.byNamespace.get(namespace);
    if (!names?.delete(name)) return false;
    if (names.size === 0) this.byNamespace.delete(namespace);
    this.changed(-1);
    return true;
  }

  /** The objects (of one namespace, when given) in etcd key order. */
  list(namespace?: string): KubeObject[] {
    return this.select(() => true, namespace);
  }

  /** The objects (of one namespace, when given) in etcd key order whose held value passes test: only those are unpacked. */
  select(test: (held: KubeObject | Packed) => boolean, namespace?: string): KubeObject[] {
    const order = this.sorted();
    const out: KubeObject[] = [];
    for (const ns of namespace === undefined ? order.namespaces : order.names.has(namespace) ? [namespace] : []) {
      const objects = this.byNamespace.get(ns)!;
      for (const name of order.names.get(ns)!) {
        const held = objects.get(name)!;
        if (test(held)) out.push(unpacked(held));
      }
    }
    return out;
  }

  /** Every object's `namespace/name` key in etcd key order. */
  keys(): readonly string[] {
    if (this.keyList) return this.keyList;
    const order = this.sorted();
    const keys: string[] = [];
    for (const ns of order.namespaces) for (const name of order.names.get(ns)!) keys.push(objectKey(ns, name));
    return (this.keyList = keys);
  }

  private sorted(): Order {
    if (this.order) return this.order;
    // Byte-wise `namespace/name`: namespaces compare with their `/` (`a/` sorts after `a-b/`), then names.
    const namespaces = [...this.byNamespace.keys()].sort((a, b) => compareKeys(`${a}/`, `${b}/`));
    const names = new Map(namespaces.map((ns) => [ns, this.byNamespace.get(ns)!.keys().sort(compareKeys)]));
    return (this.order = { namespaces, names });
  }

  private changed(by: number): void {
    this.count += by;
    this.order = undefined;
    this.keyList = undefined;
  }
}
