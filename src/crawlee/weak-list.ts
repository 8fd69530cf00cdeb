/**
 * Objects held weakly that can still be listed: what a long-lived guard keeps of the crawlers
 * it was attached to and of their storages, so that a crawler done with is let go with them.
 */
export class WeakList<T extends object> {
  readonly #refs = new Set<WeakRef<T>>();
  /** The size at which the references of collected objects are dropped next. */
  #pruneAt = 64;

  add(value: T): void {
    if (this.#refs.size >= this.#pruneAt) {
      this.values();
      this.#pruneAt = Math.max(64, this.#refs.size * 2);
    }
    this.#refs.add(new WeakRef(value));
  }

  /** The objects still alive. */
  values(): T[] {
    const alive: T[] = [];
    for (const ref of this.#refs) {
      const value = ref.deref();
      if (value === undefined) this.#refs.delete(ref);
      else alive.push(value);
    }
    return alive;
  }
}
