import { LRUCache } from 'lru-cache';
import {
  clockOption,
  MAX_LRU_ENTRIES,
  numberOption,
  type OptionKeys,
  refuseUnknownOptions,
} from '../options.js';
import type { RobotsBackendScope, RobotsFetchLock, RobotsStoreBackend } from './backend.js';
import { CLOCK_SKEW_TOLERANCE_MS } from './lifetime.js';
import type { StoredPolicy } from './policy.js';

const OWNER = 'MemoryBackend';

/** Options of {@link MemoryBackend}. */
export interface MemoryBackendOptions {
  /**
   * Most records kept (a whole number from 1 to 10,000,000; the LRU reserves 36 bytes for each up
   * front); the least recently used go first.
   * @default 100000
   */
  maxEntries?: number;
  /**
   * Most bytes of records kept (a whole number, 1 or more): each is counted as its robots.txt
   * body plus its record (two bytes per character of its JSON) plus a fixed share. The least
   * recently used go first; a record larger than this is not kept.
   * @default 268435456 (256 MiB)
   */
  maxBytes?: number;
  /**
   * Wall clock in milliseconds for retention and lock expiry.
   * @default Date.now
   */
  clock?: () => number;
}

/** A kept record: the policy and until when it is kept (the backend's clock). */
interface Kept {
  policy: StoredPolicy;
  retainUntil: number;
}

/** Below this many origins with a Crawl-delay turn, the turns are not swept. */
const TURNS_SWEEP_MIN = 4096;

/** What a kept record costs besides its body and its record's strings: the objects and the LRU's slot. */
const KEPT_BYTES = 400;

/**
 * Shares policies between several {@link RobotsStore}s of one process (several crawlers running
 * side by side), with the same fetch lock the Redis backend gives a fleet. A single store needs
 * no backend: its own LRU is the memory cache. Records are kept per origin and User-Agent,
 * within `maxEntries` and `maxBytes`.
 *
 * @example
 * const shared = new MemoryBackend();
 * const shop = new RobotsStore({ userAgent: 'ExampleBot/1.0', backend: shared });
 * const news = new RobotsStore({ userAgent: 'ExampleBot/1.0', backend: shared });
 */
export class MemoryBackend implements RobotsStoreBackend {
  readonly name = 'memory';
  readonly #records: LRUCache<string, Kept>;
  readonly #locks = new Map<string, { token: symbol; until: number }>();
  /** When the last Crawl-delay turn of each crawler and origin was claimed, and until when it delays others. */
  readonly #turns = new Map<string, { at: number; until: number }>();
  #sweepTurnsAt = TURNS_SWEEP_MIN;
  readonly #clock: () => number;

  /**
   * @throws TypeError or RangeError when an option is of the wrong type or out of range; the
   *   message names it and says what is accepted.
   */
  constructor(options: MemoryBackendOptions = {}) {
    refuseUnknownOptions(OWNER, options, {
      maxEntries: true,
      maxBytes: true,
      clock: true,
    } satisfies OptionKeys<MemoryBackendOptions>);
    const max = numberOption(OWNER, 'maxEntries', options.maxEntries, 100_000, {
      min: 1,
      max: MAX_LRU_ENTRIES,
      integer: true,
    });
    const maxSize = numberOption(OWNER, 'maxBytes', options.maxBytes, 256 * 1024 * 1024, {
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      integer: true,
      unit: 'bytes',
    });
    this.#clock = clockOption(OWNER, options.clock);
    this.#records = new LRUCache<string, Kept>({ max, maxSize, sizeCalculation: keptBytes });
  }

  async load(origin: string, scope: RobotsBackendScope): Promise<StoredPolicy | undefined> {
    const key = keyOf(origin, scope);
    const kept = this.#records.get(key);
    if (kept === undefined) return undefined;
    if (kept.retainUntil <= this.#clock()) {
      this.#records.delete(key);
      return undefined;
    }
    return kept.policy;
  }

  async save(
    origin: string,
    policy: StoredPolicy,
    retainMs: number,
    scope: RobotsBackendScope,
  ): Promise<void> {
    const key = keyOf(origin, scope);
    // Read without counting as a use: a refused save leaves the order as it was.
    const kept = this.#records.peek(key);
    // The newer answer wins, as with the Redis backend, unless it was fetched by a store whose
    // clock is ahead of the backend's by more than the tolerance: that one fences nobody, or its
    // copy would stay until the other clocks caught up with it.
    const keptAt = kept?.policy.record.fetchedAt;
    const fences = keptAt !== undefined && keptAt <= this.#clock() + CLOCK_SKEW_TOLERANCE_MS;
    if (fences && keptAt > policy.record.fetchedAt) return;
    // A record larger than maxBytes is refused by the LRU, which drops the one it replaces.
    this.#records.set(key, { policy, retainUntil: this.#clock() + retainMs });
  }

  async lock(origin: string, ttlMs: number, scope: RobotsBackendScope): Promise<RobotsFetchLock | undefined> {
    const key = keyOf(origin, scope);
    const now = this.#clock();
    const held = this.#locks.get(key);
    if (held !== undefined && held.until > now) return undefined;
    const token = Symbol(origin);
    this.#locks.set(key, { token, until: now + ttlMs });
    return {
      release: async () => {
        if (this.#locks.get(key)?.token === token) this.#locks.delete(key);
      },
    };
  }

  async claimTurn(origin: string, crawler: string, spacingMs: number): Promise<number> {
    const now = this.#clock();
    if (this.#turns.size >= this.#sweepTurnsAt) {
      for (const [key, turn] of this.#turns) if (turn.until <= now) this.#turns.delete(key);
      // Swept again once the live ones have doubled: a sweep costs each turn a constant share.
      this.#sweepTurnsAt = Math.max(TURNS_SWEEP_MIN, 2 * this.#turns.size);
    }
    const key = `${crawler} ${origin}`;
    const last = this.#turns.get(key);
    if (last !== undefined && last.at <= now && now < last.until) return last.until - now;
    this.#turns.set(key, { at: now, until: now + spacingMs });
    return 0;
  }

  /** Records kept and the bytes they are counted as. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.#records.size, bytes: this.#records.calculatedSize };
  }

  async close(): Promise<void> {}
}

function keyOf(origin: string, scope: RobotsBackendScope): string {
  return `${scope.client} ${origin}`;
}

/** The memory a kept record takes, counted from what it holds. */
function keptBytes(kept: Kept): number {
  const { record, body } = kept.policy;
  return KEPT_BYTES + 2 * JSON.stringify(record).length + (body?.byteLength ?? 0);
}
