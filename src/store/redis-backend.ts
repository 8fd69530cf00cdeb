import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { RobotsFetchLock, RobotsStoreBackend } from './backend.js';
import { CLOCK_SKEW_TOLERANCE_MS } from './lifetime.js';
import { isPolicyRecord, needsBody, type StoredPolicy } from './policy.js';

/** The client with the backend's scripts, as `defineCommand` adds them. */
type ScriptedRedis = Redis & {
  crawleeRobotsSaveIfNewer(key: string, ...args: (string | Buffer)[]): Promise<number>;
  crawleeRobotsReleaseIfOwner(key: string, token: string): Promise<number>;
};

/** Options of {@link RedisBackend}. */
export interface RedisBackendOptions {
  /**
   * Redis URL, e.g. `redis://127.0.0.1:6379/0`. Ignored when `redis` is given.
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * A connected ioredis client to use instead of opening one. The backend does not close it;
   * give it `enableOfflineQueue: false` and a `commandTimeout` so a dead Redis cannot hang the crawl.
   */
  redis?: Redis;
  /**
   * Prefix of every key the backend writes.
   * @default 'crawlee-robots:'
   */
  keyPrefix?: string;
  /**
   * Longest a Redis command may take before the store gives up on it and uses its local cache.
   * @default 1000
   */
  commandTimeoutMs?: number;
  /**
   * Longest the first connection may take.
   * @default 2000
   */
  connectTimeoutMs?: number;
  /**
   * Most commands sent and not yet answered; the others wait their turn (that wait does not
   * count against `commandTimeoutMs`).
   * @default 64
   */
  maxInFlight?: number;
}

/**
 * Saves a record unless a newer one (by fetch time) is there already: a writer whose lock
 * expired while it fetched cannot overwrite the answer of the fetcher that came after it. A
 * fetch time further ahead of Redis's own clock than the tolerance comes from a writer whose
 * clock is ahead: it fences nobody, or that writer's copy would stay until the others' clocks
 * caught up with it.
 * KEYS[1] policy key; ARGV: fetchedAt, meta JSON, body, TTL in ms, has-body flag, tolerance in ms.
 */
const SAVE_IF_NEWER = `
local at = redis.call('HGET', KEYS[1], 'at')
if at and tonumber(at) > tonumber(ARGV[1]) then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if tonumber(at) <= now + tonumber(ARGV[6]) then return 0 end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'at', ARGV[1], 'meta', ARGV[2], 'body', ARGV[3], 'hasBody', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/** Deletes the lock only if it still holds our token (compare-and-delete). */
const RELEASE_IF_OWNER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Shares policies between crawlers in many processes or on many machines through Redis: the
 * record and raw body of each origin in a hash with a TTL, and a fetch lock per origin
 * (`SET NX PX` with a random token, released by compare-and-delete) so the whole fleet fetches
 * each robots.txt once. Every command is bounded by `commandTimeoutMs` and nothing is queued
 * while Redis is unreachable: the store then carries on with its local cache and one warning.
 *
 * @example
 * const store = new RobotsStore({
 *   userAgent: 'ExampleBot/1.0',
 *   backend: new RedisBackend({ url: 'redis://redis.internal:6379' }),
 * });
 */
export class RedisBackend implements RobotsStoreBackend {
  readonly name = 'redis';
  readonly #redis: Redis;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #connectTimeoutMs: number;
  readonly #maxInFlight: number;
  readonly #waiting: { go: () => void; fail: (error: unknown) => void }[] = [];
  #inFlight = 0;
  #connecting: Promise<void> | undefined;
  #lastError: Error | undefined;

  constructor(options: RedisBackendOptions = {}) {
    this.#prefix = options.keyPrefix ?? 'crawlee-robots:';
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    this.#maxInFlight = options.maxInFlight ?? 64;
    if (options.redis) {
      this.#redis = options.redis;
      this.#owned = false;
    } else {
      const redisOptions: RedisOptions = {
        lazyConnect: true,
        // Fail fast instead of queueing: a dead Redis must not hold up the crawl.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: options.commandTimeoutMs ?? 1000,
        connectTimeout: this.#connectTimeoutMs,
        // Keep reconnecting in the background, at most every 2 s.
        retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
      };
      this.#redis = new Redis(options.url ?? 'redis://127.0.0.1:6379', redisOptions);
      this.#owned = true;
      this.#connecting = this.#redis
        .connect()
        .catch((error: Error) => {
          this.#lastError = error;
        })
        .finally(() => {
          this.#connecting = undefined;
        });
    }
    // ioredis reports connection errors as events; without a listener they would crash the process.
    this.#redis.on('error', (error: Error) => {
      this.#lastError = error;
    });
    // Scripts are sent once and then called by their SHA1 (EVALSHA, ioredis falls back to EVAL).
    this.#redis.defineCommand('crawleeRobotsSaveIfNewer', { numberOfKeys: 1, lua: SAVE_IF_NEWER });
    this.#redis.defineCommand('crawleeRobotsReleaseIfOwner', { numberOfKeys: 1, lua: RELEASE_IF_OWNER });
  }

  async load(origin: string): Promise<StoredPolicy | undefined> {
    await this.#ready();
    const fields = await this.#limited(() => this.#redis.hgetallBuffer(this.#policyKey(origin)));
    if (!fields['meta']) return undefined;
    let record: unknown;
    try {
      record = JSON.parse(fields['meta'].toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isPolicyRecord(record) || record.origin !== origin) return undefined;
    const hasBody = fields['hasBody']?.toString() === '1';
    const body = hasBody && fields['body'] ? new Uint8Array(fields['body']) : null;
    if (needsBody(record) && body === null) return undefined;
    return { record, body };
  }

  async save(origin: string, policy: StoredPolicy, retainMs: number): Promise<void> {
    await this.#ready();
    await this.#limited(() =>
      (this.#redis as ScriptedRedis).crawleeRobotsSaveIfNewer(
        this.#policyKey(origin),
        String(policy.record.fetchedAt),
        JSON.stringify(policy.record),
        policy.body === null ? Buffer.alloc(0) : Buffer.from(policy.body),
        String(Math.max(1, Math.ceil(retainMs))),
        policy.body === null ? '0' : '1',
        String(CLOCK_SKEW_TOLERANCE_MS),
      ),
    );
  }

  async lock(origin: string, ttlMs: number): Promise<RobotsFetchLock | undefined> {
    await this.#ready();
    const key = this.#lockKey(origin);
    const token = randomBytes(16).toString('hex');
    const taken = await this.#limited(() =>
      this.#redis.set(key, token, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX'),
    );
    if (taken !== 'OK') return undefined;
    return {
      release: async () => {
        await this.#limited(() => (this.#redis as ScriptedRedis).crawleeRobotsReleaseIfOwner(key, token));
      },
    };
  }

  async close(): Promise<void> {
    if (!this.#owned) return;
    await this.#connecting;
    if (this.#redis.status === 'end') return;
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  /** Commands are never queued: until the connection is ready, they fail at once. */
  async #ready(): Promise<void> {
    if (this.#redis.status === 'ready') return;
    if (this.#connecting !== undefined) {
      // The first connection: worth a short, bounded wait.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((resolve) => {
        timer = setTimeout(resolve, this.#connectTimeoutMs);
      });
      await Promise.race([this.#connecting, timeout]);
      clearTimeout(timer);
      // Re-read: the status changed while we waited (TypeScript still has it narrowed).
      if ((this.#redis.status as string) === 'ready') return;
    }
    throw new Error(
      `Redis is not connected (${this.#redis.status}${this.#lastError ? `: ${this.#lastError.message}` : ''}).`,
    );
  }

  /**
   * Runs a command when fewer than `maxInFlight` are out. A burst of thousands of new origins
   * would otherwise send every command at once, and replies that wait behind the parsing of
   * earlier ones would hit `commandTimeout` although Redis answered in time.
   *
   * A command that fails fails the ones waiting behind it: with Redis down or frozen they would
   * each wait their turn only to time out too (a store stops waiting for them anyway, and its
   * next try of Redis would be queued behind them).
   */
  async #limited<T>(command: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= this.#maxInFlight) {
      await new Promise<void>((go, fail) => this.#waiting.push({ go, fail }));
    } else {
      this.#inFlight++;
    }
    try {
      return await command();
    } catch (error) {
      for (const waiter of this.#waiting.splice(0)) waiter.fail(error);
      throw error;
    } finally {
      // Hand the slot to the next waiter, or give it back.
      const next = this.#waiting.shift();
      if (next) next.go();
      else this.#inFlight--;
    }
  }

  #policyKey(origin: string): string {
    return `${this.#prefix}policy:${origin}`;
  }

  #lockKey(origin: string): string {
    return `${this.#prefix}lock:${origin}`;
  }
}
