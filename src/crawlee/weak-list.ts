/**
 * Objects held weakly that can still be listed: what a long-lived guard keeps of the crawlers
 * it was attached to and of their storages, so that a crawler done with is let go with them.
 */
export class WeakList<T extends object> {
  readonly #refs = new Set<WeakRef<T>>();

  add(value: T): void {
    this.#prune();
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

  #prune(): void {
    for (const ref of this.#refs) if (ref.deref() === undefined) this.#refs.delete(ref);
  }
}
