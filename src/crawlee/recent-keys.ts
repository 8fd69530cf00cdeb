/**
 * A set that keeps the last `limit` keys added: adding one more forgets the oldest. For what a
 * crawl remembers per URL (the URLs already recorded as dropped), or per browser request (the
 * documents a page's session let through), so that a crawl of millions keeps a bounded memory.
 */
export class RecentKeys {
  readonly #keys = new Set<string>();
  readonly #limit: number;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${limit}.`);
    this.#limit = limit;
  }

  /** Adds `key`; false when it is among the keys kept already. */
  add(key: string): boolean {
    if (this.#keys.has(key)) return false;
    // A Set iterates in insertion order: its first key is the oldest.
    if (this.#keys.size >= this.#limit) this.#keys.delete(this.#keys.values().next().value as string);
    this.#keys.add(key);
    return true;
  }

  /** Forgets `key`; false when it was not kept. */
  delete(key: string): boolean {
    return this.#keys.delete(key);
  }

  /** Forgets every key. */
  clear(): void {
    this.#keys.clear();
  }

  get size(): number {
    return this.#keys.size;
  }
}
