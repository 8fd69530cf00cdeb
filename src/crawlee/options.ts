import type { Log } from 'crawlee';
import { validateUserAgent } from '../fetch/index.js';
import {
  clockOption,
  type OptionKeys,
  objectOption,
  refuseUnknownOptions,
  show,
  withinTimer,
} from '../options.js';
import type { SitemapSeederOptions, SitemapSeedOptions } from '../sitemap/index.js';
import { SEED_OPTIONS } from '../sitemap/index.js';
import type { RobotsStore } from '../store/index.js';

/** How the guard honours the `Crawl-delay` of the group that applies to the crawler. */
export interface RobotsCrawlDelayOptions {
  /**
   * Space the requests to one origin by its `Crawl-delay` (an extension, not part of RFC 9309;
   * read from the group the crawler's product token selects). Other origins are not slowed.
   * @default true
   */
  enabled?: boolean;
  /**
   * Longest delay honoured, in seconds.
   * @default 30
   */
  maxSeconds?: number;
  /**
   * What to do with an origin whose `Crawl-delay` is over `maxSeconds`: `clamp` waits
   * `maxSeconds` between its requests; `skip` drops its URLs with reason `crawl-delay-over-max`.
   * @default 'clamp'
   */
  overMax?: 'clamp' | 'skip';
}

/** What happens to URLs whose origin's robots.txt is unreachable (5xx, 429, timeout, network error). */
export interface RobotsUnreachableOptions {
  /**
   * How long the URLs of an unreachable origin are deferred before they are given up and recorded
   * with reason `robots-unreachable`, counted from the first deferral of that origin. The default
   * lets a crawl whose other origins are done end within about 15 minutes; raise it to days for
   * long crawls.
   * @default 900000 (15 minutes)
   */
  giveUpAfterMs?: number;
  /**
   * Longest a deferred request waits before it is checked again, even when the store plans its
   * next robots.txt attempt later. Short enough that a request never outlives its queue lock
   * unnoticed (Crawlee locks a request for at least 60 s).
   * @default 30000
   */
  maxRecheckDelayMs?: number;
  /**
   * Shortest wait before a deferred request is checked again, so an origin whose retry time has
   * already passed does not spin the queue.
   * @default 250
   */
  minRecheckDelayMs?: number;
}

/** Options of {@link RobotsGuard}. Only `productToken` is required. */
export interface RobotsGuardOptions {
  /**
   * The crawler's product token, the name robots.txt groups address (RFC 9309 2.2.1), e.g.
   * `ExampleBot`. Only letters, `_` and `-` count; a full User-Agent is reduced to its token.
   */
  productToken: string;
  /**
   * The User-Agent the crawler identifies with. When set, the guard makes the crawler send it
   * (HTTP crawlers: the `User-Agent` request header; PlaywrightCrawler: a CDP user-agent
   * override) and robots.txt is fetched with it. It should contain `productToken`.
   * @default unset: the crawler keeps its own User-Agent and robots.txt is fetched with
   * `Mozilla/5.0 (compatible; <productToken>)`
   */
  userAgent?: string;
  /**
   * The policy store robots.txt decisions come from. Pass one to share it across processes
   * (a Redis backend) or to tune fetch timeouts and retry backoff.
   * @default a store shared by every guard of the process with the same User-Agent and proxy
   */
  store?: RobotsStore;
  /**
   * Name of the Dataset that gets one record per URL the guard kept from being fetched.
   * @default 'robots-dropped'
   */
  datasetName?: string;
  /** `Crawl-delay` pacing. */
  crawlDelay?: RobotsCrawlDelayOptions;
  /** Deferral of URLs whose robots.txt is unreachable. */
  unreachable?: RobotsUnreachableOptions;
  /**
   * Longest `addRequests` / `enqueueLinks` waits for the robots.txt of new origins. URLs whose
   * origin is still being resolved then enter the queue and are checked when taken out.
   * @default 10000
   */
  enqueueWaitMs?: number;
  /**
   * Log the run summary (one block) at the end of `crawler.run()`.
   * @default true
   */
  logSummary?: boolean;
  /**
   * Crawlee logger; the guard logs through `log.child({ prefix: 'RobotsGuard' })`.
   * @default Crawlee's `log`
   */
  log?: Log;
  /**
   * Wall clock in milliseconds, for deferral and pacing. It should be the store's clock.
   * @default Date.now
   */
  clock?: () => number;
}

/** Defaults of {@link RobotsGuardOptions}. */
export const GUARD_DEFAULTS = {
  datasetName: 'robots-dropped',
  crawlDelayEnabled: true,
  crawlDelayMaxSeconds: 30,
  crawlDelayOverMax: 'clamp',
  giveUpAfterMs: 15 * 60_000,
  maxRecheckDelayMs: 30_000,
  minRecheckDelayMs: 250,
  enqueueWaitMs: 10_000,
} as const;

const GUARD_OPTIONS: OptionKeys<RobotsGuardOptions> = {
  productToken: true,
  userAgent: true,
  store: true,
  datasetName: true,
  crawlDelay: true,
  unreachable: true,
  enqueueWaitMs: true,
  logSummary: true,
  log: true,
  clock: true,
};
const CRAWL_DELAY_OPTIONS: OptionKeys<RobotsCrawlDelayOptions> = {
  enabled: true,
  maxSeconds: true,
  overMax: true,
};
const UNREACHABLE_OPTIONS: OptionKeys<RobotsUnreachableOptions> = {
  giveUpAfterMs: true,
  maxRecheckDelayMs: true,
  minRecheckDelayMs: true,
};

/** The options with every default applied and checked. */
export interface ResolvedGuardOptions {
  userAgent: string | undefined;
  datasetName: string;
  crawlDelay: { enabled: boolean; maxSeconds: number; overMax: 'clamp' | 'skip' };
  unreachable: { giveUpAfterMs: number; maxRecheckDelayMs: number; minRecheckDelayMs: number };
  enqueueWaitMs: number;
  logSummary: boolean;
  clock: () => number;
}

/** The longest file name of common file systems. */
const MAX_DATASET_NAME_OCTETS = 255;

/** Applies defaults; throws on misuse with a message that says what is accepted. */
export function resolveGuardOptions(options: RobotsGuardOptions): ResolvedGuardOptions {
  // Options often come from configuration files or environment variables: a string 'false' would
  // read as true, and a wrong type would only fail in the middle of a crawl, or lose its records.
  refuseUnknownOptions('RobotsGuard', options, GUARD_OPTIONS);
  optionalOfType('userAgent', options.userAgent, 'string');
  // The header the crawler is made to send, and robots.txt fetched with: refused here rather than
  // by the store, on the first crawler.run().
  if (options.userAgent !== undefined && options.userAgent !== null) {
    try {
      validateUserAgent(options.userAgent);
    } catch (error) {
      throw new TypeError(`RobotsGuard option ${(error as Error).message}`);
    }
  }
  objectOption('RobotsGuard', 'store', options.store, 'a RobotsStore', {
    methods: ['check', 'checkCached', 'peek', 'resolve'],
  });
  objectOption('RobotsGuard', 'log', options.log, 'a Crawlee Log', { methods: ['child'] });
  optionalOfType('crawlDelay', options.crawlDelay, 'object');
  optionalOfType('unreachable', options.unreachable, 'object');
  if (options.crawlDelay)
    refuseUnknownOptions('RobotsGuard option crawlDelay', options.crawlDelay, CRAWL_DELAY_OPTIONS);
  if (options.unreachable)
    refuseUnknownOptions('RobotsGuard option unreachable', options.unreachable, UNREACHABLE_OPTIONS);
  const overMax = options.crawlDelay?.overMax ?? GUARD_DEFAULTS.crawlDelayOverMax;
  if (overMax !== 'clamp' && overMax !== 'skip') {
    throw new TypeError(
      `RobotsGuard option crawlDelay.overMax must be 'clamp' or 'skip', got ${show(overMax)}.`,
    );
  }
  const datasetName = options.datasetName ?? GUARD_DEFAULTS.datasetName;
  // Crawlee keeps a Dataset in a directory of that name: refused here, such a name would lose the
  // records in the middle of the crawl, each write failing.
  if (
    typeof datasetName !== 'string' ||
    !/^[^/\\\u0000-\u001f\u007f]+$/.test(datasetName) ||
    datasetName === '.' ||
    datasetName === '..' ||
    Buffer.byteLength(datasetName) > MAX_DATASET_NAME_OCTETS
  ) {
    throw new TypeError(
      `RobotsGuard option datasetName must be the name of a Dataset, which Crawlee keeps in a directory of that name: a non-empty string of at most ${MAX_DATASET_NAME_OCTETS} octets, without "/", "\\" or control characters, and not "." or "..", got ${show(datasetName)}.`,
    );
  }
  const unreachable = options.unreachable ?? {};
  const { minRecheckDelayMs, maxRecheckDelayMs } = recheckDelays(unreachable);
  return {
    userAgent: options.userAgent,
    datasetName,
    crawlDelay: {
      enabled: flag('crawlDelay.enabled', options.crawlDelay?.enabled, GUARD_DEFAULTS.crawlDelayEnabled),
      maxSeconds: nonNegative(
        'crawlDelay.maxSeconds',
        options.crawlDelay?.maxSeconds,
        GUARD_DEFAULTS.crawlDelayMaxSeconds,
      ),
      overMax,
    },
    unreachable: {
      giveUpAfterMs: nonNegative(
        'unreachable.giveUpAfterMs',
        unreachable.giveUpAfterMs,
        GUARD_DEFAULTS.giveUpAfterMs,
      ),
      maxRecheckDelayMs,
      minRecheckDelayMs,
    },
    enqueueWaitMs: withinTimer(
      'RobotsGuard option enqueueWaitMs',
      nonNegative('enqueueWaitMs', options.enqueueWaitMs, GUARD_DEFAULTS.enqueueWaitMs),
    ),
    logSummary: flag('logSummary', options.logSummary, true),
    // null is unset here, as for every option of the guard.
    clock: options.clock === null ? Date.now : clockOption('RobotsGuard', options.clock),
  };
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    const Refusal = typeof value === 'number' ? RangeError : TypeError;
    throw new Refusal(
      `RobotsGuard option ${name} must be a finite number of zero or more, got ${show(value)}.`,
    );
  }
  return value;
}

function flag(name: string, value: boolean | undefined, fallback: boolean): boolean {
  return optionalOfType(name, value, 'boolean') ?? fallback;
}

/** `value`, when it is unset (undefined or null) or of `type`; throws otherwise. */
function optionalOfType<T>(name: string, value: T, type: 'string' | 'boolean' | 'object' | 'function'): T {
  if (value === undefined || value === null || typeof value === type) return value;
  const article = type === 'object' ? 'an' : 'a';
  throw new TypeError(`RobotsGuard option ${name} must be ${article} ${type}, got ${show(value)}.`);
}

/**
 * Options of {@link RobotsGuard.seedFromSitemaps}: those of `SitemapSeeder.seed()` but `enqueue`,
 * `onDropped` and `keep` (the guard queues through the crawler, records what it drops, and keeps
 * out the URLs of an origin whose Crawl-delay it will not wait for), and the download settings of
 * a `SitemapSeeder`.
 */
export type RobotsSeedFromSitemapsOptions = Omit<SitemapSeedOptions, 'enqueue' | 'onDropped' | 'keep'> &
  Partial<Pick<SitemapSeederOptions, 'proxyUrl' | 'timeoutMs' | 'connectTimeoutMs'>>;

// seed()'s options but the three the guard sets itself, and the download settings of a seeder.
const { enqueue, onDropped, keep, ...SEED_KEYS } = SEED_OPTIONS;
const SEED_FROM_SITEMAPS_OPTIONS: OptionKeys<RobotsSeedFromSitemapsOptions> = {
  ...SEED_KEYS,
  proxyUrl: true,
  timeoutMs: true,
  connectTimeoutMs: true,
};

/** Refuses an option seedFromSitemaps() does not read; the seeder checks the values. */
export function checkSeedFromSitemapsOptions(options: RobotsSeedFromSitemapsOptions): void {
  const owner = 'RobotsGuard.seedFromSitemaps()';
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${owner} takes an object of options, got ${show(options)}.`);
  }
  for (const taken of ['enqueue', 'onDropped', 'keep']) {
    if ((options as Record<string, unknown>)[taken] !== undefined) {
      throw new TypeError(
        `${owner} has no option ${taken}: it queues through crawler.addRequests(), records what robots.txt drops in the guard's dataset, and keeps out the URLs of an origin whose Crawl-delay it will not wait for. Choose URLs with include and exclude, or call SitemapSeeder.seed() to take ${taken} yourself.`,
      );
    }
  }
  refuseUnknownOptions(owner, options, SEED_FROM_SITEMAPS_OPTIONS);
}

/**
 * The shortest and longest waits before a deferred request is checked again. The two given are
 * refused when the shortest is the longer, where one would be ignored unsaid; a default gives way
 * to the other one given (a minimum of 60 s raises the longest wait to it, a maximum of 100 ms
 * lowers the shortest).
 */
function recheckDelays(unreachable: RobotsUnreachableOptions): {
  minRecheckDelayMs: number;
  maxRecheckDelayMs: number;
} {
  const min = nonNegative(
    'unreachable.minRecheckDelayMs',
    unreachable.minRecheckDelayMs,
    GUARD_DEFAULTS.minRecheckDelayMs,
  );
  const max = nonNegative(
    'unreachable.maxRecheckDelayMs',
    unreachable.maxRecheckDelayMs,
    GUARD_DEFAULTS.maxRecheckDelayMs,
  );
  if (min <= max) return { minRecheckDelayMs: min, maxRecheckDelayMs: max };
  if (unreachable.maxRecheckDelayMs === undefined) return { minRecheckDelayMs: min, maxRecheckDelayMs: min };
  if (unreachable.minRecheckDelayMs === undefined) return { minRecheckDelayMs: max, maxRecheckDelayMs: max };
  throw new RangeError(
    `RobotsGuard option unreachable.minRecheckDelayMs must be at most unreachable.maxRecheckDelayMs (${max}), got ${min}.`,
  );
}
