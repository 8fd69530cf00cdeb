import { createHash } from 'node:crypto';
import { type Configuration, KeyValueStore } from 'crawlee';
import type { RobotsStoreBackend } from './backend.js';
import { isPolicyRecord, needsBody, type PolicyRecord, type StoredPolicy } from './policy.js';

/** Options of {@link KeyValueStoreBackend}. */
export interface KeyValueStoreBackendOptions {
  /**
   * Name of the Crawlee key-value store, opened with `KeyValueStore.open(name)`.
   * @default 'robots-policies'
   */
  storeName?: string;
  /**
   * Crawlee configuration the store is opened with (its storage client and directory).
   * @default Crawlee's global configuration
   */
  config?: Configuration;
  /**
   * Wall clock in milliseconds for retention.
   * @default Date.now
   */
  clock?: () => number;
}

/** The JSON value stored per origin. */
interface KeyValueRecord {
  record: PolicyRecord;
  /** The robots.txt body, base64: the raw octets, invalid UTF-8 included. */
  body: string | null;
  /** Until when the record is kept (the backend's clock, ms); past it, it is deleted on load. */
  retainUntil: number;
}

/**
 * Keeps policies in a Crawlee `KeyValueStore`, so a crawl that resumes after a restart does not
 * fetch robots.txt files that are still fresh. One JSON value per origin (the record, the raw
 * body and until when it is kept); the file is parsed again on load, and a value past its time
 * (see `keepExpiredMs` of {@link RobotsStoreOptions}) is deleted instead. No fleet lock: use
 * {@link RedisBackend} to share policies between processes running at the same time.
 *
 * @example
 * const store = new RobotsStore({
 *   userAgent: 'ExampleBot/1.0',
 *   backend: new KeyValueStoreBackend({ storeName: 'robots-policies' }),
 * });
 */
export class KeyValueStoreBackend implements RobotsStoreBackend {
  readonly name = 'key-value-store';
  readonly #storeName: string;
  readonly #config: Configuration | undefined;
  readonly #clock: () => number;
  #store: Promise<KeyValueStore> | undefined;

  constructor(options: KeyValueStoreBackendOptions = {}) {
    this.#storeName = options.storeName ?? 'robots-policies';
    this.#config = options.config;
    this.#clock = options.clock ?? Date.now;
  }

  async load(origin: string): Promise<StoredPolicy | undefined> {
    const store = await this.#open();
    const key = keyOf(origin);
    const value = await store.getValue<KeyValueRecord>(key);
    if (value === null || typeof value !== 'object' || !isPolicyRecord(value.record)) return undefined;
    // The key is a hash: the record says which origin it is really about.
    if (value.record.origin !== origin) return undefined;
    // A key-value store keeps a value forever: its retention ends here, on load. A value without
    // one was written by an earlier version, which kept it forever.
    if (typeof value.retainUntil !== 'number' || !(value.retainUntil > this.#clock())) {
      await store.setValue(key, null);
      return undefined;
    }
    const body = typeof value.body === 'string' ? new Uint8Array(Buffer.from(value.body, 'base64')) : null;
    if (needsBody(value.record) && body === null) return undefined;
    return { record: value.record, body };
  }

  async save(origin: string, policy: StoredPolicy, retainMs: number): Promise<void> {
    const store = await this.#open();
    const value: KeyValueRecord = {
      record: policy.record,
      body: policy.body === null ? null : Buffer.from(policy.body).toString('base64'),
      retainUntil: this.#clock() + retainMs,
    };
    await store.setValue(keyOf(origin), value);
  }

  async close(): Promise<void> {
    this.#store = undefined;
  }

  #open(): Promise<KeyValueStore> {
    this.#store ??= KeyValueStore.open(this.#storeName, this.#config ? { config: this.#config } : undefined);
    // A failed open is retried on the next call rather than remembered.
    this.#store.catch(() => {
      this.#store = undefined;
    });
    return this.#store;
  }
}

/**
 * A key-value store key for an origin: key names allow only `[a-zA-Z0-9!-_.'()]`, so the origin
 * is hashed (SHA-256, hex).
 */
export function keyOf(origin: string): string {
  return `origin-${createHash('sha256').update(origin).digest('hex')}`;
}
