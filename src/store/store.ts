import { setTimeout as sleep } from 'node:timers/promises';
import { log as crawleeLog, type Log } from 'crawlee';
import { LRUCache } from 'lru-cache';
import {
  FETCH_DEFAULTS,
  fetchRobotsTxt,
  MAX_FETCH_TIMEOUT_MS,
  MAX_ROBOTS_BYTES,
  originOf,
  parseProxyUrl,
  type RobotsFetchResult,
  type RobotsHttpClient,
  validateUserAgent,
} from '../fetch/index.js';
import {
  booleanOption,
  clockOption,
  durationOption,
  MAX_LRU_ENTRIES,
  MAX_SPAN_MS,
  MAX_TIMER_MS,
  numberOption,
  type OptionKeys,
  objectOption,
  productTokenOption,
  refuseUnknownOptions,
} from '../options.js';
import { isProductToken, MAX_LINE_OCTETS, RobotsTxt } from '../robots/index.js';
import {
  clientOf,
  type RobotsBackendScope,
  type RobotsFetchLock,
  type RobotsStoreBackend,
} from './backend.js';
import { type BackendAdmission, BackendBreaker } from './breaker.js';
import {
  answerStatus,
  type ComparedPolicy,
  diffPolicies,
  type RobotsChange,
  type RobotsChangeListener,
} from './changes.js';
import { checkPolicy, type RobotsCheck, type RobotsCheckOptions } from './check.js';
import { PolicyEntry } from './entry.js';
import {
  CLOCK_SKEW_TOLERANCE_MS,
  type LifetimeSettings,
  nextState,
  onClock,
  retentionMs,
} from './lifetime.js';
import { ConcurrencyLimit } from './limit.js';
import { entrySize } from './memory.js';
import { needsBody, type OriginPolicy, type StoredPolicy } from './policy.js';

/** The most octets of a record's JSON, its hops aside: its texts are short. */
const RECORD_JSON_BYTES = 2 ** 20;
/**
 * Octets of a hop in a record's JSON: more than its two texts of at most 4,097 characters (see
 * MAX_HOP_TEXT in fetch.ts) can take, a URL at two octets a character (a `\\` of its query) and a
 * Location at three (a character as UTF-8).
 */
const HOP_JSON_BYTES = 32 * 1024;

/** Retry settings of an unreachable robots.txt. */
export interface RobotsRetryOptions {
  /**
   * Delay before the first retry; it doubles with each failure.
   * @default 60000 (1 minute)
   */
  initialDelayMs?: number;
  /**
   * Longest delay between two attempts.
   * @default 3600000 (1 hour)
   */
  maxDelayMs?: number;
}

/**
 * The circuit breaker of a failing backend. After a backend call fails or times out, the store
 * does not call the backend at all for a cool-down: new origins are fetched directly, their
 * policies are not saved (nor shared) and no fetch lock is taken. A lock this store held before
 * is still released (without waiting for the answer) or expires after `lockTtlMs`. After the
 * cool-down, one call tries the backend again: if it answers, the backend is used again;
 * if not, the cool-down doubles.
 */
export interface RobotsBackendRetryOptions {
  /**
   * Cool-down after the backend first fails.
   * @default 5000 (5 seconds)
   */
  initialDelayMs?: number;
  /**
   * Longest cool-down between two tries of a backend that keeps failing.
   * @default 60000 (1 minute)
   */
  maxDelayMs?: number;
}

/** Options of {@link RobotsStore}. Everything but `userAgent` is optional. */
export interface RobotsStoreOptions {
  /**
   * The User-Agent header robots.txt is fetched with: the crawler's own, containing its
   * product token (RFC 9309 2.2.1), e.g. `Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)`.
   * Without `productToken`, one that names no product token is a TypeError.
   */
  userAgent: string;
  /**
   * The product token the rules are matched for, when {@link RobotsStore.check} is not given
   * one: letters, `-` and `_` (RFC 9309 2.2.1), alone or in a User-Agent header, or `*` for the
   * `*` group alone. One that names no token (`''`, blanks, `Example Bot`) is a TypeError: it
   * would match `*` alone, silently. It should appear in `userAgent`; the store warns once if
   * it does not.
   * @default the product token read from `userAgent`
   */
  productToken?: string;
  /**
   * Fetch robots.txt through this proxy (the crawler's proxy, so the site sees the same client):
   * an `http://` or `https://` URL.
   */
  proxyUrl?: string;
  /**
   * Where policies are shared or persisted beyond the in-memory LRU: a {@link RedisBackend}
   * for a fleet of processes, a {@link KeyValueStoreBackend} to survive restarts, a
   * {@link MemoryBackend} for several stores in one process.
   * @default none: the in-memory LRU only
   */
  backend?: RobotsStoreBackend;
  /**
   * The HTTP client robots.txt is fetched with.
   * @default a {@link GotScrapingRobotsClient}
   */
  httpClient?: RobotsHttpClient;
  /**
   * Time allowed for a whole robots.txt fetch, redirects included; past it the file is
   * unreachable.
   *
   * Every `...Ms` option is a number of milliseconds no larger than what a Node timer holds
   * (2147483647, about 24.8 days; the two fetch timeouts 500 ms less, for the margin the fetcher
   * adds to its own deadlines); a larger one is a RangeError when the store is made.
   * @default 30000
   */
  fetchTimeoutMs?: number;
  /**
   * Time allowed to open a connection.
   * @default 10000
   */
  connectTimeoutMs?: number;
  /**
   * Octets of a robots.txt that are read (after decoding); the rest is not downloaded. A whole
   * number from 1 to 1073741824 (1 GiB). RFC 9309 2.5 asks for at least 500 KiB.
   * @default 512000
   */
  maxBytes?: number;
  /**
   * Redirects followed; more make the file unavailable. RFC 9309 2.3.1.2 asks for at least 5.
   * @default 5
   */
  maxRedirects?: number;
  /**
   * robots.txt fetches running at the same time, for every origin together; more wait their
   * turn. A crawl that meets thousands of new origins at once would otherwise open a connection
   * to each, run out of file descriptors, and take that local failure for each site's being
   * unreachable. A whole number from 1 to 100000.
   * @default 64
   */
  maxConcurrentFetches?: number;
  /**
   * Longest a fetched robots.txt is used before it is fetched again. RFC 9309 2.4: a crawler
   * should not use a cached copy for more than 24 hours; larger values are cut to 24 hours.
   * `Cache-Control: max-age` shortens it.
   * @default 86400000 (24 hours)
   */
  maxAgeMs?: number;
  /**
   * Shortest a fetched robots.txt is used, even under `Cache-Control: no-cache` or
   * `max-age=0`, so a crawler never asks for robots.txt before every page. At most 24 hours
   * (RFC 9309 2.4) and at most `maxAgeMs`; a larger one is a RangeError when the store is made.
   * @default 60000 (1 minute), or `maxAgeMs` if that is shorter
   */
  minAgeMs?: number;
  /** Backoff of an unreachable robots.txt (5xx, 429, network failure). */
  retry?: RobotsRetryOptions;
  /**
   * How many days robots.txt must stay unreachable before the last good copy (an earlier
   * 2xx or 4xx answer) is used instead of a complete disallow. RFC 9309 2.3.1.4 lets a crawler
   * do so "after a reasonably long period of time (for example, 30 days)". An origin that never
   * answered stays disallowed. At most 36500 (100 years), so that every retention time stays a
   * whole number of milliseconds a backend (Redis's PEXPIRE) accepts.
   * @default 30
   */
  unreachableGraceDays?: number;
  /**
   * Most origins kept in memory (least recently used go first): a whole number from 1 to
   * 10,000,000 (the LRU reserves its tables for all of them up front, 36 bytes each).
   * @default 50000
   */
  maxEntries?: number;
  /**
   * Most bytes of policies kept in memory, each entry measured (body plus parsed rules).
   * @default 67108864 (64 MiB)
   */
  maxBytesInMemory?: number;
  /**
   * How long a backend keeps a policy after it expired, as the base of the next one (the last
   * good copy, the outage clock, change detection).
   * @default 604800000 (7 days)
   */
  keepExpiredMs?: number;
  /**
   * How long the store leaves a backend alone after a call failed or timed out (during which
   * policies are neither read from it nor saved to it), and how often it tries it again.
   */
  backendRetry?: RobotsBackendRetryOptions;
  /**
   * How long the fleet-wide fetch lock of a backend is held at most; a crashed holder blocks
   * nobody for longer.
   * @default fetchTimeoutMs + 5000
   */
  lockTtlMs?: number;
  /**
   * How long a store waits for another process that holds an origin's fetch lock, before it
   * fetches the file itself without the lock. While it waits it tries to take the lock: when a
   * holder crashed, its lock expires and the first waiter to take it fetches the file, the
   * others wait for that result. The default outlasts a dead holder's lock and then one fetch.
   * @default lockTtlMs + fetchTimeoutMs + 2000
   */
  lockWaitMs?: number;
  /**
   * How often a waiting store looks for the other process's result.
   * @default 50
   */
  lockPollMs?: number;
  /**
   * Wall clock in milliseconds: every lifetime and backoff is measured on it.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Crawlee logger; the store logs through `log.child({ prefix: 'RobotsStore' })`.
   * @default Crawlee's `log`
   */
  log?: Log;
}

const STORE_OPTIONS: OptionKeys<RobotsStoreOptions> = {
  userAgent: true,
  productToken: true,
  proxyUrl: true,
  backend: true,
  httpClient: true,
  fetchTimeoutMs: true,
  connectTimeoutMs: true,
  maxBytes: true,
  maxRedirects: true,
  maxConcurrentFetches: true,
  maxAgeMs: true,
  minAgeMs: true,
  retry: true,
  unreachableGraceDays: true,
  maxEntries: true,
  maxBytesInMemory: true,
  keepExpiredMs: true,
  backendRetry: true,
  lockTtlMs: true,
  lockWaitMs: true,
  lockPollMs: true,
  clock: true,
  log: true,
};
const CHECK_OPTIONS: OptionKeys<RobotsCheckOptions> = { candidates: true };
const RETRY_OPTIONS: OptionKeys<RobotsRetryOptions & RobotsBackendRetryOptions> = {
  initialDelayMs: true,
  maxDelayMs: true,
};

/** Defaults of {@link RobotsStoreOptions}. */
export const STORE_DEFAULTS = {
  fetchTimeoutMs: FETCH_DEFAULTS.timeoutMs,
  connectTimeoutMs: FETCH_DEFAULTS.connectTimeoutMs,
  maxBytes: FETCH_DEFAULTS.maxBytes,
  maxRedirects: FETCH_DEFAULTS.maxRedirects,
  maxConcurrentFetches: 64,
  maxAgeMs: 86_400_000,
  minAgeMs: 60_000,
  retryInitialDelayMs: 60_000,
  retryMaxDelayMs: 3_600_000,
  unreachableGraceDays: 30,
  maxEntries: 50_000,
  maxBytesInMemory: 64 * 1024 * 1024,
  keepExpiredMs: 7 * 86_400_000,
  backendRetryInitialDelayMs: 5000,
  backendRetryMaxDelayMs: 60_000,
  lockPollMs: 50,
} as const;

/** Counters of a store, for tests, benchmarks and run summaries. */
export interface RobotsStoreStats {
  /** robots.txt fetches this store made. */
  fetches: number;
  /** Fresh policies taken from the backend instead of fetching. */
  backendHits: number;
  /** Times this store waited for another holder of the fetch lock. */
  lockWaits: number;
  /** Backend calls that failed or timed out. */
  backendErrors: number;
  /**
   * Backend calls not made, or not waited for, because the backend had failed (its circuit
   * breaker was open; see {@link RobotsStoreOptions.backendRetry}).
   */
  backendSkipped: number;
  /** Origins in memory and their measured size. */
  entries: number;
  bytesInMemory: number;
}

type BackendResult<T> = { ok: true; value: T } | { ok: false };

/** Rejects a check that waited for a fetch (a turn of its own, or another process's) when the store was closed. */
class ClosedWhileWaiting extends Error {
  constructor(origin: string, what: 'turn' | 'lock') {
    super(
      what === 'turn'
        ? `This RobotsStore was closed while a check waited for a turn to fetch ${origin}/robots.txt (maxConcurrentFetches were under way); it was not fetched.`
        : `This RobotsStore was closed while a check waited for another process to fetch ${origin}/robots.txt.`,
    );
    this.name = 'Error';
  }
}

/** What a backend call raced with the breaker's opening resolves to when the breaker won. */
const ABANDONED: unique symbol = Symbol('abandoned');

/** Releases a fetch lock that came too late to be used. */
/** Refuses a first wait (`retry.initialDelayMs`) longer than the longest, which would be cut to it unsaid. */
function firstWaitWithinLongest(name: string, initialDelayMs: number, maxDelayMs: number): void {
  if (initialDelayMs <= maxDelayMs) return;
  throw new RangeError(
    `${OWNER} option ${name}.initialDelayMs must be at most ${name}.maxDelayMs (${maxDelayMs}), got ${initialDelayMs}.`,
  );
}

function giveBack(lock: RobotsFetchLock | undefined): Promise<void> | undefined {
  return lock?.release();
}

const DAY_MS = 86_400_000;
const RFC_MAX_AGE_MS = 86_400_000;
const OWNER = 'RobotsStore';
/** Longest unreachableGraceDays: with it every retention time is an integer well inside 2^53. */
const MAX_GRACE_DAYS = 36_500;
/** Origins whose ignored backend record was reported; past this many, the list starts again. */
const IGNORED_REPORTS_KEPT = 10_000;

/** The newest state known of an origin: the entry in memory, or a record read from the backend. */
type KnownState = PolicyEntry | StoredPolicy | undefined;

function fetchedAtOf(state: KnownState): number {
  if (state === undefined) return Number.NEGATIVE_INFINITY;
  return state instanceof PolicyEntry ? state.fetchedAt : state.record.fetchedAt;
}

/**
 * The shared per-origin robots.txt policy store. It fetches each origin's robots.txt once (one
 * fetch per origin at a time in the process, and in the fleet with a locking backend), keeps the
 * policy for its lifetime, follows outages with backoff, and answers "may I fetch this URL?".
 *
 * A fetch failure never rejects: it becomes a `disallow-all` policy whose `status` and `why` say
 * what happened. Only API misuse (a URL that is not absolute http(s)) rejects.
 *
 * @example
 * import { RobotsStore } from 'crawlee-robots';
 *
 * const store = new RobotsStore({ userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)' });
 * const check = await store.check('https://example.com/private/page');
 * if (!check.allowed) console.log(`skipped: ${check.reason}, line ${check.rule?.line}`);
 * await store.close();
 */
export class RobotsStore {
  /** The User-Agent header robots.txt is fetched with. */
  readonly userAgent: string;
  /** The product token rules are matched for by default (lower case). */
  readonly productToken: string;

  readonly #agent: string;
  readonly #proxyUrl: string | undefined;
  readonly #backend: RobotsStoreBackend | undefined;
  readonly #httpClient: RobotsHttpClient | undefined;
  readonly #fetchTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #maxBytes: number;
  readonly #maxRedirects: number;
  readonly #fetches: ConcurrencyLimit;
  readonly #lifetime: LifetimeSettings;
  readonly #keepExpiredMs: number;
  readonly #lockTtlMs: number;
  readonly #lockWaitMs: number;
  readonly #lockPollMs: number;
  readonly #clock: () => number;
  readonly #log: Log;
  readonly #cache: LRUCache<string, PolicyEntry>;
  /** The entry of the last check (see #cachedEntry); forgotten whenever the cache changes. */
  #recent: PolicyEntry | undefined;
  /**
   * Where the authority of the URL #cachedEntry read last ends when it began with the recent
   * entry's origin, else -1: the core then reads the path alone.
   */
  #authorityEnd = -1;
  /**
   * The last entry larger than `maxBytesInMemory`, which the LRU does not keep: without it,
   * every check of its origin would fetch the robots.txt again.
   */
  #oversized: PolicyEntry | undefined;
  readonly #inflight = new Map<string, Promise<PolicyEntry>>();
  readonly #listeners = new Set<RobotsChangeListener>();
  readonly #stats = { fetches: 0, backendHits: 0, lockWaits: 0, backendErrors: 0, backendSkipped: 0 };
  readonly #breaker: BackendBreaker;
  /** What the backend is told on each call: this store's client, and where ignored records are reported. */
  readonly #scope: RobotsBackendScope;
  /** Origins whose ignored backend record was reported already (one warning per origin). */
  readonly #ignoredOrigins = new Set<string>();
  /** The last agent a check was given that names a product token (see #agentOf). */
  #checkedAgent: string;
  /** The last options object of a check found valid: a crawler passes the same one every time. */
  #checkedOptions: RobotsCheckOptions | undefined;
  #skewWarned = false;
  #closed = false;
  /** The one closing of the store (see close). */
  #closing: Promise<void> | undefined;

  /**
   * @throws TypeError or RangeError when an option is of the wrong type or out of range; the
   *   message names it and says what is accepted.
   * @throws Error when `backend` takes no more stores (a RedisBackend whose stores were closed).
   */
  constructor(options: RobotsStoreOptions) {
    if (typeof options?.userAgent !== 'string' || options.userAgent.trim() === '') {
      throw new TypeError(
        'RobotsStore needs the crawler\'s User-Agent: new RobotsStore({ userAgent: "ExampleBot/1.0 (+https://example.com/bot)" }).',
      );
    }
    refuseUnknownOptions(OWNER, options, STORE_OPTIONS);
    try {
      validateUserAgent(options.userAgent);
    } catch (error) {
      throw new TypeError(`RobotsStore option ${(error as Error).message}`);
    }
    this.userAgent = options.userAgent;
    const log = objectOption<Log>(OWNER, 'log', options.log, "a Crawlee Log (`log` from 'crawlee')", {
      methods: ['child'],
    });
    this.#log = (log ?? crawleeLog).child({ prefix: 'RobotsStore' });
    // A token that names no group would match `*` alone, silently (RFC 9309 2.2.1).
    this.productToken =
      options.productToken === undefined
        ? productTokenOption(`${OWNER} option userAgent`, options.userAgent, {
            star: false,
            hint: 'Put the crawler\'s name in it ("ExampleBot/1.0 (+https://example.com/bot)"), or give the productToken option ({ productToken: "ExampleBot" }).',
          })
        : productTokenOption(`${OWNER} option productToken`, options.productToken);
    this.#agent = options.productToken ?? options.userAgent;
    this.#checkedAgent = this.#agent;
    if (this.productToken !== '*' && !options.userAgent.toLowerCase().includes(this.productToken)) {
      // RFC 9309 2.2.1: the crawler identifies itself by the product token in its User-Agent.
      this.#log.warning(
        `The User-Agent "${options.userAgent}" does not contain the product token "${this.productToken}": site owners cannot address this crawler in robots.txt.`,
      );
    }
    this.#proxyUrl = proxyUrlOf(options.proxyUrl);
    this.#backend = objectOption<RobotsStoreBackend>(
      OWNER,
      'backend',
      options.backend,
      'a RobotsStoreBackend (new MemoryBackend(), new KeyValueStoreBackend() or new RedisBackend())',
      { methods: ['load', 'save', 'close'], optional: ['lock', 'attach'] },
    );
    this.#httpClient = objectOption<RobotsHttpClient>(
      OWNER,
      'httpClient',
      options.httpClient,
      'a RobotsHttpClient (an object with a request() method)',
      { methods: ['request'] },
    );
    const retry = objectOption<RobotsRetryOptions>(
      OWNER,
      'retry',
      options.retry,
      'an object such as { initialDelayMs: 60000, maxDelayMs: 3600000 }',
    );
    const backendRetry = objectOption<RobotsBackendRetryOptions>(
      OWNER,
      'backendRetry',
      options.backendRetry,
      'an object such as { initialDelayMs: 5000, maxDelayMs: 60000 }',
    );
    if (retry) refuseUnknownOptions(`${OWNER} option retry`, retry, RETRY_OPTIONS);
    if (backendRetry) refuseUnknownOptions(`${OWNER} option backendRetry`, backendRetry, RETRY_OPTIONS);
    const fetchTimer = { max: MAX_FETCH_TIMEOUT_MS };
    this.#fetchTimeoutMs = durationOption(
      OWNER,
      'fetchTimeoutMs',
      options.fetchTimeoutMs,
      STORE_DEFAULTS.fetchTimeoutMs,
      fetchTimer,
    );
    this.#connectTimeoutMs = durationOption(
      OWNER,
      'connectTimeoutMs',
      options.connectTimeoutMs,
      STORE_DEFAULTS.connectTimeoutMs,
      fetchTimer,
    );
    this.#maxBytes = numberOption(OWNER, 'maxBytes', options.maxBytes, STORE_DEFAULTS.maxBytes, {
      min: 1,
      max: MAX_ROBOTS_BYTES,
      integer: true,
      unit: 'bytes',
    });
    this.#fetches = new ConcurrencyLimit(
      numberOption(
        OWNER,
        'maxConcurrentFetches',
        options.maxConcurrentFetches,
        STORE_DEFAULTS.maxConcurrentFetches,
        {
          min: 1,
          max: 100_000,
          integer: true,
        },
      ),
    );
    this.#maxRedirects = numberOption(
      OWNER,
      'maxRedirects',
      options.maxRedirects,
      STORE_DEFAULTS.maxRedirects,
      {
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
        integer: true,
      },
    );
    this.#scope = {
      client: clientOf(options.userAgent, { maxBytes: this.#maxBytes, maxRedirects: this.#maxRedirects }),
      // The body (the limit and the rest of its last line, see fetch.ts) and the record's JSON.
      maxRecordBytes:
        this.#maxBytes + MAX_LINE_OCTETS + 1 + RECORD_JSON_BYTES + (this.#maxRedirects + 1) * HOP_JSON_BYTES,
      ignored: (origin, reason, what) => this.#reportIgnored(origin, reason, what),
    };
    // Lifetimes and backoffs are compared with the clock, never set as timers.
    const span = { max: MAX_SPAN_MS };
    let maxAgeMs = durationOption(OWNER, 'maxAgeMs', options.maxAgeMs, STORE_DEFAULTS.maxAgeMs, span);
    if (maxAgeMs > RFC_MAX_AGE_MS) {
      this.#log.warning(`maxAgeMs ${maxAgeMs} is over the 24 hours RFC 9309 2.4 allows; 24 hours are used.`);
      maxAgeMs = RFC_MAX_AGE_MS;
    }
    const graceDays = numberOption(
      OWNER,
      'unreachableGraceDays',
      options.unreachableGraceDays,
      STORE_DEFAULTS.unreachableGraceDays,
      { min: 0, max: MAX_GRACE_DAYS, unit: 'days' },
    );
    // RFC 9309 2.4: no copy is used for more than 24 hours, however short maxAgeMs is not.
    const minAgeMs = durationOption(OWNER, 'minAgeMs', options.minAgeMs, STORE_DEFAULTS.minAgeMs, {
      max: RFC_MAX_AGE_MS,
      allowZero: true,
    });
    if (options.minAgeMs !== undefined && minAgeMs > maxAgeMs) {
      throw new RangeError(
        `${OWNER} option minAgeMs must be at most maxAgeMs (${maxAgeMs}), got ${minAgeMs}: a copy cannot be kept longer than it may be used.`,
      );
    }
    const retryMaxDelayMs = durationOption(
      OWNER,
      'retry.maxDelayMs',
      retry?.maxDelayMs,
      STORE_DEFAULTS.retryMaxDelayMs,
      span,
    );
    // The default first wait gives way to a shorter longest one.
    const retryInitialDelayMs = durationOption(
      OWNER,
      'retry.initialDelayMs',
      retry?.initialDelayMs,
      Math.min(STORE_DEFAULTS.retryInitialDelayMs, retryMaxDelayMs),
      span,
    );
    firstWaitWithinLongest('retry', retryInitialDelayMs, retryMaxDelayMs);
    this.#lifetime = {
      maxAgeMs,
      // The default gives way to a shorter maxAgeMs.
      minAgeMs: Math.min(maxAgeMs, minAgeMs),
      retryInitialDelayMs,
      retryMaxDelayMs,
      unreachableGraceMs: Math.round(graceDays * DAY_MS),
    };
    this.#keepExpiredMs = durationOption(
      OWNER,
      'keepExpiredMs',
      options.keepExpiredMs,
      STORE_DEFAULTS.keepExpiredMs,
      { ...span, allowZero: true },
    );
    this.#lockTtlMs = durationOption(OWNER, 'lockTtlMs', options.lockTtlMs, this.#fetchTimeoutMs + 5000);
    if (this.#lockTtlMs < this.#fetchTimeoutMs && this.#backend?.lock !== undefined) {
      this.#log.warning(
        `lockTtlMs ${this.#lockTtlMs} is shorter than fetchTimeoutMs ${this.#fetchTimeoutMs}: a robots.txt slower than the lock is fetched by other processes too, not once for all.`,
      );
    }
    // A waiter outlasts the lock of a holder that died, then the fetch of the waiter that takes it.
    this.#lockWaitMs = durationOption(
      OWNER,
      'lockWaitMs',
      options.lockWaitMs,
      Math.min(MAX_TIMER_MS, this.#lockTtlMs + this.#fetchTimeoutMs + 2000),
      { allowZero: true },
    );
    this.#lockPollMs = durationOption(OWNER, 'lockPollMs', options.lockPollMs, STORE_DEFAULTS.lockPollMs);
    this.#clock = clockOption(OWNER, options.clock);
    const backendMaxDelayMs = durationOption(
      OWNER,
      'backendRetry.maxDelayMs',
      backendRetry?.maxDelayMs,
      STORE_DEFAULTS.backendRetryMaxDelayMs,
    );
    const backendInitialDelayMs = durationOption(
      OWNER,
      'backendRetry.initialDelayMs',
      backendRetry?.initialDelayMs,
      Math.min(STORE_DEFAULTS.backendRetryInitialDelayMs, backendMaxDelayMs),
    );
    firstWaitWithinLongest('backendRetry', backendInitialDelayMs, backendMaxDelayMs);
    this.#breaker = new BackendBreaker(
      { initialDelayMs: backendInitialDelayMs, maxDelayMs: backendMaxDelayMs },
      this.#clock,
    );
    this.#cache = new LRUCache<string, PolicyEntry>({
      max: numberOption(OWNER, 'maxEntries', options.maxEntries, STORE_DEFAULTS.maxEntries, {
        min: 1,
        max: MAX_LRU_ENTRIES,
        integer: true,
      }),
      maxSize: numberOption(
        OWNER,
        'maxBytesInMemory',
        options.maxBytesInMemory,
        STORE_DEFAULTS.maxBytesInMemory,
        { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true, unit: 'bytes' },
      ),
      sizeCalculation: entrySize,
    });
    // Last: a store whose options are refused never uses the backend, and never closes it.
    this.#backend?.attach?.();
  }

  /**
   * The policy of the origin of `url`: from memory while fresh, else from the backend, else
   * fetched (once per origin, however many callers ask at the same time).
   *
   * Never rejects because of the network, the server or the backend: an unreachable robots.txt
   * gives a `disallow-all` policy that says why.
   *
   * @throws NotHttpUrlError (a TypeError; as a rejection) when `url` is not an absolute http(s) URL.
   */
  async resolve(url: string | URL): Promise<OriginPolicy> {
    this.#assertOpen();
    const origin = originOf(url);
    const entry = this.#freshEntry(origin) ?? (await this.#refresh(origin));
    return entry.policy();
  }

  /**
   * May the crawler fetch `url`? The core's verdict (decisive rule, group, normalised path) plus
   * the policy behind it: kind, robots.txt status, age.
   *
   * @param productTokenOrUserAgent matched instead of the store's product token: a product token,
   *   a User-Agent header holding one, or `*` for the `*` group alone.
   * @throws NotHttpUrlError (a TypeError; as a rejection) when `url` is not an absolute http(s) URL;
   *   TypeError when `productTokenOrUserAgent` names no product token (`''`, blanks): it would
   *   match `*` alone.
   */
  check(
    url: string | URL,
    productTokenOrUserAgent?: string,
    options?: RobotsCheckOptions,
  ): Promise<RobotsCheck> {
    // Not an async function: a cached origin (the crawler's hot path) is answered with an
    // already settled promise, without an async frame.
    try {
      this.#assertOpen();
      const agent = this.#agentOf(productTokenOrUserAgent, 'check');
      if (options !== undefined && options !== this.#checkedOptions) this.#checkOptions(options, 'check');
      // One clock read on the hot path: the clock may be a system call.
      const now = this.#clock();
      const cached = this.#cachedEntry(url);
      if (cached?.isFreshAt(now)) {
        return Promise.resolve(checkPolicy(cached, url, agent, now, options, this.#authorityEnd));
      }
      const origin = originOf(url);
      return this.#refresh(origin).then((entry) => checkPolicy(entry, url, agent, this.#clock(), options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The policy of the origin of `url` if a fresh one is in memory; never fetches, never waits.
   * For synchronous callers such as Crawlee's `transformRequestFunction`.
   *
   * @throws NotHttpUrlError (a TypeError) when `url` is not an absolute http(s) URL.
   * @throws Error when the store is closed, as {@link RobotsStore.check} rejects then.
   */
  peek(url: string | URL): OriginPolicy | undefined {
    this.#assertOpen();
    return this.#freshEntry(originOf(url))?.policy();
  }

  /**
   * {@link RobotsStore.check} from memory only: undefined when no fresh policy is in memory.
   *
   * @throws NotHttpUrlError (a TypeError) when `url` is not an absolute http(s) URL; TypeError
   *   when `productTokenOrUserAgent` names no product token.
   * @throws Error when the store is closed.
   */
  checkCached(
    url: string | URL,
    productTokenOrUserAgent?: string,
    options?: RobotsCheckOptions,
  ): RobotsCheck | undefined {
    this.#assertOpen();
    const agent = this.#agentOf(productTokenOrUserAgent, 'checkCached');
    if (options !== undefined && options !== this.#checkedOptions) this.#checkOptions(options, 'checkCached');
    const now = this.#clock();
    const entry = this.#cachedEntry(url);
    if (entry === undefined || !entry.isFreshAt(now)) return undefined;
    return checkPolicy(entry, url, agent, now, options, this.#authorityEnd);
  }

  /**
   * Whether the store's backend keeps Crawl-delay turns for every store that uses it (see
   * {@link RobotsStore.claimTurn}): a fleet on one Redis, or the stores of one process on one
   * MemoryBackend.
   */
  get sharesTurns(): boolean {
    return this.#backend?.claimTurn !== undefined;
  }

  /**
   * Claims the Crawl-delay turn of the origin of `url` for the crawler `productToken` from the
   * backend, shared by every store that uses it: resolves to 0 when the last turn of that origin
   * and product token was claimed `spacingMs` ago or more, whichever store claimed it, and the
   * turn is then the caller's; to how many milliseconds remain until it may claim again
   * otherwise; or to undefined when the backend keeps no turns or cannot be reached now, and the
   * caller paces its own requests alone. RobotsGuard claims one for every request of an origin
   * with a Crawl-delay.
   *
   * @throws NotHttpUrlError (a TypeError; as a rejection) when `url` is not an absolute http(s) URL;
   *   TypeError when `productToken` is not a product token; RangeError when `spacingMs` is not a
   *   whole number of milliseconds from 1 to about 24 days.
   */
  async claimTurn(url: string | URL, productToken: string, spacingMs: number): Promise<number | undefined> {
    this.#assertOpen();
    const origin = originOf(url);
    if (typeof productToken !== 'string' || !isProductToken(productToken)) {
      throw new TypeError(
        `RobotsStore.claimTurn takes a product token (letters, "-" and "_"), got ${JSON.stringify(productToken)}.`,
      );
    }
    if (!Number.isSafeInteger(spacingMs) || spacingMs < 1 || spacingMs > MAX_TIMER_MS) {
      throw new RangeError(
        `RobotsStore.claimTurn takes a spacing of a whole number of ms from 1 to ${MAX_TIMER_MS}, got ${spacingMs}.`,
      );
    }
    const backend = this.#backend;
    if (backend?.claimTurn === undefined) return undefined;
    const crawler = productToken.toLowerCase();
    const claimed = await this.#call('turn', () => backend.claimTurn!(origin, crawler, spacingMs));
    // A custom backend's answer that is no wait is no turn: the process paces alone. One longer
    // than a spacing, which no turn claimed before can ask for, waits a spacing.
    if (!claimed.ok || typeof claimed.value !== 'number' || !(claimed.value >= 0)) return undefined;
    return Math.min(claimed.value, spacingMs);
  }

  /**
   * Calls `listener` whenever a refreshed policy differs from the one it replaces (kind, status,
   * rules, crawl-delays or sitemaps). A listener that throws or rejects is logged; the store
   * goes on. Returns a function that removes the listener.
   */
  onChange(listener: RobotsChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Counters and memory use. */
  stats(): RobotsStoreStats {
    return { ...this.#stats, entries: this.#cache.size, bytesInMemory: this.#cache.calculatedSize };
  }

  /**
   * Waits for running fetches, then closes the backend, unless other stores still use it. The
   * store cannot be used afterwards. A check waiting for another process to fetch its origin's
   * robots.txt (a shared backend's lock) stops waiting and rejects with an Error.
   */
  close(): Promise<void> {
    // Every call waits for the same: one that returned at once would let its caller exit while
    // the first still waits for fetches, or before the backend's connection is closed.
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#inflight.values()]);
    this.#listeners.clear();
    await this.#backend?.close();
  }

  /**
   * The agent a check matches: the store's, or the one given if it names a product token (or is
   * `*`). Checked once per new value: a crawler passes the same one on every call.
   *
   * @throws TypeError when the given one names no product token: it would match `*` alone.
   */
  #agentOf(given: string | undefined, method: string): string {
    if (given === undefined) return this.#agent;
    if (given !== this.#checkedAgent) {
      productTokenOption(`RobotsStore.${method}'s productTokenOrUserAgent`, given);
      this.#checkedAgent = given;
    }
    return given;
  }

  /**
   * @throws TypeError when `options` is no object, names an option checks do not have, or gives
   *   `candidates` as something other than true or false: `{ candidates: 'yes' }` would mean false.
   */
  #checkOptions(options: RobotsCheckOptions, method: string): void {
    const owner = `RobotsStore.${method}()`;
    refuseUnknownOptions(owner, options, CHECK_OPTIONS);
    booleanOption(owner, 'candidates', options.candidates, false);
    this.#checkedOptions = options;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('This RobotsStore is closed; create a new one.');
  }

  /**
   * The entry in memory for the origin of `url`, fresh or not. A crawler checks runs of URLs
   * of one origin: a URL that starts with the origin of the last entry found, followed by the
   * end of the authority, has that origin without being parsed or looked up.
   *
   * @throws NotHttpUrlError (a TypeError) when `url` is not an absolute http(s) URL.
   */
  #cachedEntry(url: string | URL): PolicyEntry | undefined {
    const recent = this.#recent;
    if (recent !== undefined && typeof url === 'string') {
      const origin = recent.origin;
      // `lastIndexOf(origin, 0)` compares at 0 alone, and measured twice as fast as startsWith.
      if (url.lastIndexOf(origin, 0) === 0) {
        const next = url.charCodeAt(origin.length);
        // NaN (the URL is the origin), `/`, `?` or `#`.
        if (!(next >= 0) || next === 47 || next === 63 || next === 35) {
          this.#authorityEnd = origin.length;
          return recent;
        }
      }
    }
    this.#authorityEnd = -1;
    const entry = this.#entryOf(originOf(url));
    if (entry !== undefined) this.#recent = entry;
    return entry;
  }

  /** The entry in memory for `origin`, fresh or not. */
  #entryOf(origin: string): PolicyEntry | undefined {
    return this.#cache.get(origin) ?? (this.#oversized?.origin === origin ? this.#oversized : undefined);
  }

  #freshEntry(origin: string): PolicyEntry | undefined {
    const entry = this.#entryOf(origin);
    return entry?.isFreshAt(this.#clock()) ? entry : undefined;
  }

  /** Keeps an entry the LRU refused for its size, in place of the one kept before. */
  #keepOversized(entry: PolicyEntry): void {
    if (this.#oversized === undefined) {
      this.#log.warning(
        `The robots.txt of ${entry.origin} takes ${entrySize(entry)} bytes in memory, more than maxBytesInMemory (${this.#cache.maxSize}); it is kept outside the cache, one such file at a time. Raise maxBytesInMemory to cache such files.`,
      );
    }
    this.#oversized = entry;
  }

  /** One refresh per origin at a time: later callers share the running one. */
  #refresh(origin: string): Promise<PolicyEntry> {
    let pending = this.#inflight.get(origin);
    if (pending === undefined) {
      pending = this.#obtain(origin).finally(() => this.#inflight.delete(origin));
      this.#inflight.set(origin, pending);
    }
    return pending;
  }

  async #obtain(origin: string): Promise<PolicyEntry> {
    const local = this.#entryOf(origin);
    // The newest state known, here or in the backend (a resumed crawl, another process, an entry
    // the LRU dropped): the base of the next state, and what a change is reported against.
    let previous: KnownState = local;
    // Fresh records of the backend that could not be installed, by fetch time: tried once.
    const unusable = new Set<number>();
    try {
      const backend = this.#backend;
      if (backend === undefined) return await this.#fetch(origin, previous, local);

      const loaded = await this.#call('load', () => backend.load(origin, this.#scope));
      // As stored, before #onOurClock: what a wait for another fetcher compares against.
      const seenAt = loaded.ok ? loaded.value?.record.fetchedAt : undefined;
      const shared = loaded.ok ? this.#onOurClock(loaded.value) : undefined;
      if (shared !== undefined && this.#isFresh(shared)) {
        const adopted = this.#adopt(origin, shared, local, previous, unusable);
        if (adopted !== undefined) return adopted;
      } else if (shared !== undefined && shared.record.fetchedAt > fetchedAtOf(previous)) {
        previous = shared;
      }
      if (!loaded.ok || backend.lock === undefined) return await this.#fetch(origin, previous, local);

      // The fetch turn is taken before the lock: a lock is held only while its fetch can run. Taken
      // the other way round, another process would wait out the lock's whole lifetime for a fetch
      // still queued here, then fetch the file too.
      let endTurn: (() => void) | undefined = await this.#turn(origin);
      try {
        let lock: RobotsFetchLock | undefined;
        const locked = await this.#call('lock', () => backend.lock!(origin, this.#lockTtlMs, this.#scope), {
          late: giveBack,
        });
        if (locked.ok && locked.value === undefined) {
          // Another process is fetching this origin: wait for its result, within bounds, and
          // without a turn.
          endTurn();
          endTurn = undefined;
          this.#stats.lockWaits++;
          const waited = await this.#waitForPeer(origin, backend, local, seenAt);
          if ('stored' in waited) {
            const adopted = this.#adopt(origin, waited.stored, local, previous, unusable);
            if (adopted !== undefined) return adopted;
          } else if (waited.lock !== undefined) {
            lock = waited.lock;
            endTurn = waited.endTurn;
          }
        } else if (locked.ok) {
          lock = locked.value;
        }
        try {
          if (lock !== undefined) {
            // Double-checked: the previous holder may have saved its result and released the lock
            // between our load and our lock.
            const again = await this.#call('load', () => backend.load(origin, this.#scope));
            const stored = again.ok ? this.#onOurClock(again.value) : undefined;
            const adopted =
              stored !== undefined &&
              this.#isFresh(stored) &&
              this.#adopt(origin, stored, local, previous, unusable);
            if (adopted) return adopted;
          }
          endTurn ??= await this.#turn(origin);
          return await this.#fetchNow(origin, previous, local);
        } finally {
          if (lock !== undefined) {
            const held = lock;
            // Sent even while the breaker is open (not waited for then): the fleet gets the origin
            // back at once if the backend answers; otherwise the lock expires after lockTtlMs.
            await this.#call('unlock', () => held.release(), { always: true });
          }
        }
      } finally {
        endTurn?.();
      }
    } catch (error) {
      if (error instanceof ClosedWhileWaiting) throw error;
      // A bug, not the network: still answer, with the safe policy, and say so.
      this.#log.exception(error as Error, `Resolving the robots.txt policy of ${origin} failed`);
      return this.#install(origin, this.#internalFailure(origin, error), local, previous);
    }
  }

  /**
   * Installs a fresh policy another process (or an earlier run) stored. A record that cannot be
   * installed is dropped with a warning, and the caller fetches the file instead: a bad record
   * must not keep an origin closed for as long as it claims to hold. A record older than the
   * entry in memory is not installed either (after a backend outage this store may have fetched
   * a newer answer than the one the fleet shares): the caller fetches again, and saves.
   */
  #adopt(
    origin: string,
    stored: StoredPolicy,
    local: PolicyEntry | undefined,
    previous: KnownState,
    unusable: Set<number>,
  ): PolicyEntry | undefined {
    if (unusable.has(stored.record.fetchedAt) || this.#olderThan(stored, local)) return undefined;
    try {
      const entry = this.#install(origin, stored, local, previous);
      this.#stats.backendHits++;
      return entry;
    } catch (error) {
      unusable.add(stored.record.fetchedAt);
      this.#log.warning(
        `The ${this.#backend?.name} backend's record of ${origin} cannot be used (${(error as Error)?.message ?? error}); it is ignored and robots.txt is fetched.`,
      );
      return undefined;
    }
  }

  /** True when the stored record was fetched before the entry in memory. */
  #olderThan(stored: StoredPolicy, local: PolicyEntry | undefined): boolean {
    return local !== undefined && stored.record.fetchedAt < local.fetchedAt;
  }

  /**
   * Warns that the backend ignored the record of an origin (see RobotsBackendScope.ignored): once
   * per origin, so a record read on every refresh does not flood the log.
   */
  #reportIgnored(origin: string, reason: string, what: 'record' | 'lock' = 'record'): void {
    const key = `${what} ${origin}`;
    if (this.#ignoredOrigins.has(key)) return;
    if (this.#ignoredOrigins.size >= IGNORED_REPORTS_KEPT) this.#ignoredOrigins.clear();
    this.#ignoredOrigins.add(key);
    this.#log.warning(
      what === 'lock'
        ? `The ${this.#backend?.name} backend's fetch lock of ${origin} was no lock: ${reason}. It was taken over, and robots.txt is fetched here.`
        : `The ${this.#backend?.name} backend's record of ${origin} is ignored: ${reason}. robots.txt is fetched again and the record replaced.`,
    );
  }

  #isFresh(stored: StoredPolicy): boolean {
    return stored.record.expiresAt > this.#clock();
  }

  /** A loaded record with its times on this store's clock (see onClock); warns once about a clock ahead. */
  #onOurClock(stored: StoredPolicy | undefined): StoredPolicy | undefined {
    if (stored === undefined) return undefined;
    const now = this.#clock();
    const ahead = stored.record.fetchedAt - now;
    if (ahead > CLOCK_SKEW_TOLERANCE_MS && !this.#skewWarned) {
      this.#skewWarned = true;
      this.#log.warning(
        `The ${this.#backend?.name} backend holds a robots.txt of ${stored.record.origin} fetched ${Math.round(ahead / 1000)} s ahead of this process's clock: the clocks of the processes sharing it differ, or this clock was set back since. Such records are not used as fresh (robots.txt is fetched again here); keep the clocks in sync (NTP).`,
      );
    }
    return onClock(stored, now, this.#lifetime);
  }

  /**
   * Fetches robots.txt and saves the answer, within the limit of fetches at a time. The save is
   * inside the turn: a burst of new origins must not send as many large writes to a shared
   * backend at once either (a local Redis timed out under 200 saves of 400 KiB at once).
   */
  async #fetch(origin: string, previous: KnownState, local: PolicyEntry | undefined): Promise<PolicyEntry> {
    const endTurn = await this.#turn(origin);
    try {
      return await this.#fetchNow(origin, previous, local);
    } finally {
      endTurn();
    }
  }

  /**
   * A fetch turn (see maxConcurrentFetches). A store closed while its fetches waited for a turn
   * sends none of them: each rejects, as a check waiting for another process does. One that got
   * its turn at once is under way, as before there was a limit, and close() waits for it.
   */
  async #turn(origin: string): Promise<() => void> {
    const queued = this.#fetches.full;
    const endTurn = await this.#fetches.acquire();
    if (!queued || !this.#closed) return endTurn;
    endTurn();
    throw new ClosedWhileWaiting(origin, 'turn');
  }

  async #fetchNow(origin: string, previous: KnownState, local: PolicyEntry | undefined) {
    this.#stats.fetches++;
    const fetched = await fetchRobotsTxt(origin, {
      userAgent: this.userAgent,
      proxyUrl: this.#proxyUrl,
      client: this.#httpClient,
      timeoutMs: this.#fetchTimeoutMs,
      connectTimeoutMs: this.#connectTimeoutMs,
      maxBytes: this.#maxBytes,
      maxRedirects: this.#maxRedirects,
      clock: this.#clock,
    });
    const now = this.#clock();
    const before = previous instanceof PolicyEntry ? previous.stored() : previous;
    const stored = nextState(before, fetched, now, this.#lifetime);
    const entry = this.#install(origin, stored, local, previous, fetched);
    const backend = this.#backend;
    if (backend !== undefined) {
      const retain = retentionMs(stored.record, now, this.#lifetime, this.#keepExpiredMs);
      await this.#call('save', () => backend.save(origin, stored, retain, this.#scope));
    }
    return entry;
  }

  /**
   * Polls the backend until the lock holder's result appears, or the lock is free again (its
   * holder crashed and the lock expired: then we hold it, with a fetch turn taken before it, and
   * the other waiters wait for our result), or `lockWaitMs` is over: then the lock is tried one
   * last time, and the file is fetched without it only if someone still holds it. A result
   * older than the entry in memory is not the holder's: waiting goes on. A backend that tells the
   * fetch time of its record (`fetchedAt`) is asked that on each poll, and the record is loaded
   * only when it changed from `seenAt`: a record of 500 KiB polled every 50 ms would cost 10 MB/s
   * per waiting origin.
   */
  async #waitForPeer(
    origin: string,
    backend: RobotsStoreBackend,
    local: PolicyEntry | undefined,
    seenAt: number | undefined,
  ): Promise<
    { stored: StoredPolicy } | { lock: RobotsFetchLock; endTurn: () => void } | { lock: undefined }
  > {
    const deadline = performance.now() + this.#lockWaitMs;
    let seen = seenAt;
    /** The holder's result if it is stored now; `failed` when the backend did not answer. */
    const look = async (): Promise<{ stored?: StoredPolicy; failed?: true }> => {
      let changed = true;
      let stamp: number | undefined;
      if (backend.fetchedAt !== undefined) {
        const asked = await this.#call('load', () => backend.fetchedAt!(origin, this.#scope));
        if (!asked.ok) return { failed: true };
        stamp = asked.value;
        changed = stamp !== undefined && stamp !== seen;
      }
      if (!changed) return {};
      const loaded = await this.#call('load', () => backend.load(origin, this.#scope));
      if (!loaded.ok) return { failed: true };
      // A record the store cannot use (another version, a malformed one) still has its stamp:
      // remembered, it is not loaded again until it changes.
      seen = loaded.value?.record.fetchedAt ?? stamp;
      const stored = this.#onOurClock(loaded.value);
      return stored !== undefined && this.#isFresh(stored) && !this.#olderThan(stored, local)
        ? { stored }
        : {};
    };
    for (;;) {
      const remainingMs = deadline - performance.now();
      await sleep(Math.max(0, Math.min(this.#lockPollMs, remainingMs)));
      // close() waits for what is in flight: not for another process, nor for a fetch started after it.
      if (this.#closed) throw new ClosedWhileWaiting(origin, 'lock');
      const polled = await look();
      if (polled.failed) return { lock: undefined };
      if (polled.stored !== undefined) return { stored: polled.stored };
      const lock = () =>
        this.#call('lock', () => backend.lock!(origin, this.#lockTtlMs, this.#scope), { late: giveBack });
      const locked = await lock();
      if (!locked.ok) return { lock: undefined };
      const held = locked.value;
      if (held !== undefined) {
        // The holder is gone, or saved its result and let go of the lock since the look above
        // (#obtain looks for it again once it has the lock). As in #obtain, a lock is held only
        // while its fetch can run: with every fetch turn taken, it is given back while this store
        // waits for one, then taken again (another store may have taken it meanwhile: then the
        // wait for its result goes on).
        if (!this.#fetches.full) return { lock: held, endTurn: await this.#turn(origin) };
        // A result saved just now is adopted before that wait, which would last a whole fetch.
        const since = await look();
        await this.#call('unlock', () => held.release(), { always: true });
        if (since.stored !== undefined) return { stored: since.stored };
        const endTurn = await this.#turn(origin);
        const again = await lock();
        if (again.ok && again.value !== undefined) return { lock: again.value, endTurn };
        endTurn();
        if (!again.ok) return { lock: undefined };
      }
      if (performance.now() >= deadline) break;
    }
    this.#log.warning(
      `Waited ${this.#lockWaitMs} ms for another process to fetch ${origin}/robots.txt; fetching it here.`,
    );
    return { lock: undefined };
  }

  /**
   * Puts a policy in memory and tells listeners if it differs from `previous`, the newest state
   * known before it (see #obtain).
   */
  #install(
    origin: string,
    stored: StoredPolicy,
    local: PolicyEntry | undefined,
    previous: KnownState,
    fetched?: RobotsFetchResult,
  ): PolicyEntry {
    const { record } = stored;
    // The good copy of the previous entry, if it is the same answer: no need to parse it again.
    const carried =
      local !== undefined && record.good && local.good?.fetchedAt === record.good.fetchedAt
        ? local.goodRobots
        : null;
    let robots: RobotsTxt | null = null;
    if (record.kind === 'rules') {
      robots =
        fetched?.robots && !record.servedFromStaleCopy
          ? fetched.robots
          : (carried ?? RobotsTxt.parse(bodyOf(stored), { maxBytes: this.#maxBytes }));
    }
    // The tables the store's own checks need are built before the entry's size is counted.
    robots?.prepare(this.#agent);
    // Without a backend the raw body is never needed again: only the parsed file is kept.
    const entry = new PolicyEntry(origin, stored, robots, robots ?? carried, this.#backend !== undefined);
    // Keyed by the entry's own copy of the origin: one string per origin.
    this.#cache.set(entry.origin, entry);
    this.#recent = undefined;
    if (!this.#cache.has(entry.origin)) this.#keepOversized(entry);
    else if (this.#oversized?.origin === entry.origin) this.#oversized = undefined;
    // A change is what this store's listeners had not seen: against its own copy, or, when it
    // has none in memory, against the newest copy known (the backend's).
    const before = local ?? previous;
    if (before !== undefined && this.#listeners.size > 0) {
      const change = diffPolicies(this.#compared(before), this.#compared(entry));
      if (change !== null) this.#tell(change);
    }
    return entry;
  }

  /** What change detection compares of a state: during an outage, its last good file. */
  #compared(state: PolicyEntry | StoredPolicy): ComparedPolicy {
    if (!(state instanceof PolicyEntry)) {
      // A record read from the backend: its file (or the good copy's) is parsed from the body.
      const { record, body } = state;
      return {
        origin: record.origin,
        robotsTxtUrl: record.robotsTxtUrl,
        kind: record.kind,
        status: record.status,
        fetchedAt: record.fetchedAt,
        answerStatus: answerStatus(record.status, record.failures, record.good),
        file: needsBody(record) && body !== null ? RobotsTxt.parse(body, { maxBytes: this.#maxBytes }) : null,
      };
    }
    const entry = state;
    // A good copy loaded from a backend during an outage is kept as its raw body, unparsed.
    const unparsed = entry.goodRobots === null && entry.good?.kind === 'rules' ? entry.body : null;
    return {
      origin: entry.origin,
      robotsTxtUrl: entry.robotsTxtUrl,
      kind: entry.kind,
      status: entry.status,
      fetchedAt: entry.fetchedAt,
      answerStatus: answerStatus(entry.status, entry.failures, entry.good),
      file: unparsed === null ? entry.goodRobots : RobotsTxt.parse(unparsed, { maxBytes: this.#maxBytes }),
    };
  }

  /** Calls every listener; one that throws or rejects is logged and the others still hear of it. */
  #tell(change: RobotsChange): void {
    const failed = (error: unknown) =>
      this.#log.exception(error as Error, `A robots.txt change listener failed (${change.origin})`);
    for (const listener of this.#listeners) {
      try {
        const result = listener(change);
        // An async listener's rejection would otherwise be unhandled, and end the process.
        if (isThenable(result)) Promise.resolve(result).catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  }

  /**
   * Runs a backend call through the circuit breaker (see {@link BackendBreaker}); a failure is
   * returned as a value. The first failure opens the breaker, with one warning: calls are then
   * skipped (`{ ok: false }` at once) until the cool-down is over, and calls still waiting for
   * the backend stop waiting. After the cool-down one call probes the backend; its success closes
   * the breaker, with one info line. A failure soon after is the same outage: no new warning.
   *
   * @param options.always make the call even while the breaker is open, without waiting for it
   *   (releasing a lock: nobody waits for a down backend, but the fleet should get it back).
   * @param options.late given the value of a call that answered after it was given up on.
   */
  async #call<T>(
    what: string,
    call: () => Promise<T>,
    options: { always?: boolean; late?: (value: T) => unknown } = {},
  ): Promise<BackendResult<T>> {
    const breaker = this.#breaker;
    let admission: BackendAdmission = breaker.admit();
    const skipped = admission === 'skip';
    if (skipped) {
      this.#stats.backendSkipped++;
      if (!options.always) return { ok: false };
      // Sent, and not waited for: the breaker is open, so the race below ends at once.
      admission = 'call';
    }
    let forget: (() => void) | undefined;
    try {
      const pending = call();
      let value: T | typeof ABANDONED;
      if (admission === 'probe') {
        value = await pending;
      } else {
        // Any other call stops waiting when the breaker opens (at once if it is open).
        const opened = new Promise<typeof ABANDONED>((resolve) => {
          forget = breaker.whenOpen(() => resolve(ABANDONED));
        });
        value = await Promise.race([pending, opened]);
      }
      if (value === ABANDONED) {
        // What still comes is handed over: a lock taken after we gave up on it is given back.
        if (options.late) pending.then(options.late).catch(() => undefined);
        if (!skipped) this.#stats.backendSkipped++;
        return { ok: false };
      }
      const closed = breaker.succeeded(admission);
      if (closed !== undefined) {
        // Told once an outage: a backend that answers reads and refuses writes closes it again and again.
        this.#log[closed === 'closed' ? 'info' : 'debug'](
          `The ${this.#backend?.name} backend answers again; policies are shared again.`,
        );
      }
      return { ok: true, value };
    } catch (error) {
      this.#stats.backendErrors++;
      const message = (error as Error)?.message ?? error;
      const outcome = breaker.failed(admission);
      if (outcome === 'opened') {
        this.#log.warning(
          `The ${this.#backend?.name} backend failed (${what}: ${message}); crawling goes on with the local cache, without the backend, which is tried again in ${breaker.coolDownMs / 1000} s.`,
        );
      } else if (outcome === 'reopened') {
        this.#log.debug(
          `The ${this.#backend?.name} backend still fails (${what}: ${message}); tried again in ${breaker.coolDownMs / 1000} s.`,
        );
      }
      return { ok: false };
    } finally {
      forget?.();
    }
  }

  /**
   * The policy after an unexpected error: disallow-all, retried with the first backoff delay.
   * The previous state is left out on purpose, so nothing of what failed is used again.
   */
  #internalFailure(origin: string, error: unknown): StoredPolicy {
    const now = this.#clock();
    const fetched: RobotsFetchResult = {
      origin,
      robotsTxtUrl: `${origin}/robots.txt`,
      finalUrl: `${origin}/robots.txt`,
      hops: [],
      status: 'network-error',
      kind: 'disallow-all',
      why: `Internal error (${(error as Error)?.message ?? error}): everything is disallowed.`,
      robots: null,
      body: null,
      truncated: false,
      cacheDirectives: { noReuse: false },
      fetchedAt: now,
      timings: { totalMs: 0, parseMs: 0 },
    };
    return nextState(undefined, fetched, now, this.#lifetime);
  }
}

function bodyOf({ record, body }: StoredPolicy): Uint8Array {
  // Backends reject such records on load (see needsBody). One that gets here anyway is dropped by
  // #adopt; from anywhere else it is a bug, which #obtain turns into disallow-all.
  if (body === null) throw new Error(`The policy of ${record.origin} has rules but no robots.txt body.`);
  return body;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

/**
 * The proxy URL option, checked here with the fetcher's rule: a malformed one would only fail
 * later, in every fetch.
 */
function proxyUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    parseProxyUrl(value);
  } catch (error) {
    throw new TypeError(`RobotsStore option ${(error as Error).message}`);
  }
  return value;
}
