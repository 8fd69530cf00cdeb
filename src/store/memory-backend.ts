import type { RobotsFetchLock, RobotsStoreBackend } from './backend.js';
import type { StoredPolicy } from './policy.js';

/** Options of {@link MemoryBackend}. */
export interface MemoryBackendOptions {
  /**
   * Most origins kept; the oldest written go first.
   * @default 100000
   */
  maxEntries?: number;
  /**
   * Wall clock in milliseconds for retention and lock expiry.
   * @default Date.now
   */
  clock?: () => number;
}

/**
 * Shares policies between several {@link RobotsStore}s of one process (several crawlers running
 * side by side), with the same fetch lock the Redis backend gives a fleet. A single store needs
 * no backend: its own LRU is the memory cache.
 *
 * @example
 * const shared = new MemoryBackend();
 * const shop = new RobotsStore({ userAgent: 'ExampleBot/1.0', backend: shared });
 * const news = new RobotsStore({ userAgent: 'ExampleBot/1.0', backend: shared });
 */
export class MemoryBackend implements RobotsStoreBackend {
  readonly name = 'memory';
  readonly #records = new Map<string, { policy: StoredPolicy; retainUntil: number }>();
  readonly #locks = new Map<string, { token: symbol; until: number }>();
  readonly #maxEntries: number;
  readonly #clock: () => number;

  constructor(options: MemoryBackendOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#clock = options.clock ?? Date.now;
  }

  async load(origin: string): Promise<StoredPolicy | undefined> {
    const kept = this.#records.get(origin);
    if (kept === undefined) return undefined;
    if (kept.retainUntil <= this.#clock()) {
      this.#records.delete(origin);
      return undefined;
    }
    return kept.policy;
  }

  async save(origin: string, policy: StoredPolicy, retainMs: number): Promise<void> {
    const kept = this.#records.get(origin);
    // The newer answer wins, as with the Redis backend.
    if (kept !== undefined && kept.policy.record.fetchedAt > policy.record.fetchedAt) return;
    this.#records.delete(origin);
    this.#records.set(origin, { policy, retainUntil: this.#clock() + retainMs });
    if (this.#records.size > this.#maxEntries) {
      this.#records.delete(this.#records.keys().next().value!);
    }
  }

  async lock(origin: string, ttlMs: number): Promise<RobotsFetchLock | undefined> {
    const now = this.#clock();
    const held = this.#locks.get(origin);
    if (held !== undefined && held.until > now) return undefined;
    const token = Symbol(origin);
    this.#locks.set(origin, { token, until: now + ttlMs });
    return {
      release: async () => {
        if (this.#locks.get(origin)?.token === token) this.#locks.delete(origin);
      },
    };
  }

  async close(): Promise<void> {}
}
