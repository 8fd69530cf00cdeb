/**
 * Crawl-delay pacing per origin. `Crawl-delay` is not part of RFC 9309 (it lists it among the
 * extensions crawlers may read); it asks for a number of seconds between two requests to the
 * origin. Each origin has its own next free slot, so a slow origin never delays another one.
 */
export class CrawlDelayPacer {
  readonly #nextSlot = new Map<string, number>();

  /**
   * Reserves the next slot of `origin` for one request. Returns `now` when it may go at once, or
   * the later time of its slot; the slot after it is `delayMs` later either way.
   */
  reserve(origin: string, delayMs: number, now: number): number {
    const next = this.#nextSlot.get(origin) ?? 0;
    const slot = Math.max(now, next);
    this.#nextSlot.set(origin, slot + delayMs);
    return slot;
  }
}
