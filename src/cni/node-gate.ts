// Which CNI operations of one node may run together. libcni itself locks nothing and containerd runs the sandboxes
// of different pods in parallel; the spec forbids only parallel operations on one container (its "Concurrency"
// note: a runtime must not call two operations for the same container at once, and plugins must handle
// concurrent calls for different containers, as host-local's file lock and Calico's compare-and-swap IPAM do). So
// per node: operations on different containers run together up to a bound (each plugin is a process, and a
// restart re-ADDs every pod of a node at once), operations on one container run in the order they were asked, and
// an operation on the whole node (GC) runs alone, with nothing behind it overtaking it.
interface Waiter {
  /** undefined: the whole node (exclusive). */
  container: string | undefined;
  start: () => void;
}

interface Lane {
  running: number;
  exclusive: boolean;
  busy: Set<string>;
  waiting: Waiter[];
}

export class NodeGate {
  private readonly lanes = new Map<string, Lane>();

  constructor(readonly limit = 4) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`NodeGate limit must be a positive integer, not ${limit}`);
  }

  /** One operation on one container of the node. */
  container<T>(node: string, container: string, fn: () => Promise<T>): Promise<T> {
    return this.enter(node, container, fn);
  }

  /** One operation on the whole node: after what runs, before what is asked later. */
  node<T>(node: string, fn: () => Promise<T>): Promise<T> {
    return this.enter(node, undefined, fn);
  }

  private async enter<T>(node: string, container: string | undefined, fn: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(node);
    if (!lane) this.lanes.set(node, (lane = { running: 0, exclusive: false, busy: new Set(), waiting: [] }));
    const held = lane;
    await new Promise<void>((start) => {
      held.waiting.push({ container, start });
      this.pump(node, held);
    });
    try {
      return await fn();
    } finally {
      held.running--;
      if (container === undefined) held.exclusive = false;
      else held.busy.delete(container);
      this.pump(node, held);
    }
  }

  /** Starts, in order, every waiter that may run now; a container that is busy does not hold up the others. */
  private pump(node: string, lane: Lane): void {
    for (let i = 0; i < lane.waiting.length && !lane.exclusive; ) {
      const w = lane.waiting[i]!;
      if (w.container === undefined) {
        if (lane.running === 0) {
          lane.waiting.splice(i, 1);
          lane.exclusive = true;
          lane.running++;
          w.start();
        }
        break;
      }
      if (lane.running >= this.limit) break;
      if (lane.busy.has(w.container)) {
        i++;
        continue;
      }
      lane.waiting.splice(i, 1);
      lane.busy.add(w.container);
      lane.running++;
      w.start();
    }
    // Forget the node once nothing runs or waits, so the map does not grow with every node ever seen.
    if (lane.running === 0 && lane.waiting.length === 0 && this.lanes.get(node) === lane) this.lanes.delete(node);
  }
}
