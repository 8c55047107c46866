// One queue per key: calls with the same key run one after another, different keys run in parallel. The CNI
// runtime keys it by node, because plugins such as host-local and bridge lock node-wide state anyway (the
// prototype measured almost no gain from parallel ADDs on one node) and the spec forbids parallel operations
// on one container.
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once nothing is queued behind this call, so the map does not grow with every node ever seen.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
