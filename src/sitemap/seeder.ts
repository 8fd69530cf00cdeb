import { setMaxListeners } from 'node:events';
import { log as crawleeLog, type Log } from 'crawlee';
import {
  originOf,
  parseProxyUrl,
  validateUserAgent,
  withoutCredentials,
  withoutCredentialsAt,
} from '../fetch/index.js';
import {
  booleanOption,
  type OptionKeys,
  productTokenOption,
  refuseUnknownOptions,
  show,
  withinTimer,
} from '../options.js';
import { HTTP_URL_START, hrefWithoutFragment, urlOrNull } from '../robots/index.js';
import type { OriginPolicy, RobotsCheck, RobotsStore } from '../store/index.js';
import { ABORTED, untilAborted } from './abort.js';
import {
  discoverSitemaps,
  listedSitemaps,
  type SitemapSource,
  siteSources,
  unusableSitemapWarning,
} from './discover.js';
import {
  downloadSitemap,
  type SharedByteBudget,
  type SitemapDownloadSettings,
  SitemapReadError,
} from './download.js';
import { compilePatterns, parseLastmod, parseSince } from './filter.js';
import {
  SITEMAP_DEFAULTS,
  type SitemapSeederOptions,
  type SitemapSeedInput,
  type SitemapSeedOptions,
} from './options.js';
import { MAX_LOC_LENGTH, SitemapParser } from './parse.js';
import { formatProgress, formatSummary } from './progress.js';
import type {
  SitemapDroppedUrl,
  SitemapEntry,
  SitemapFilterReason,
  SitemapFormat,
  SitemapProblem,
  SitemapRequest,
  SitemapSeedResult,
} from './types.js';

/**
 * Reads sitemaps into a crawler's request queue, robots.txt first: discovery from the
 * `Sitemap:` lines of each site's robots.txt (through the shared {@link RobotsStore}, so no
 * extra robots.txt request), streaming parse of every sitemap format (XML `urlset` and
 * `sitemapindex`, gzip, text, RSS, Atom), filters, and a robots.txt check of each URL before it
 * is handed on. URLs leave in batches and the seeder waits for each batch to be taken, so memory
 * stays flat however many URLs the sitemaps hold.
 *
 * The guard's `guard.seedFromSitemaps(crawler, inputs, options)` is this call with
 * `enqueue: (batch) => crawler.addRequests(batch)` and `onDropped` writing the record to the
 * dropped-requests dataset with stage `sitemap`. It can run before `crawler.run()` or during it.
 *
 * @example
 * import { CheerioCrawler } from 'crawlee';
 * import { RobotsStore, SitemapSeeder } from 'crawlee-robots';
 *
 * const store = new RobotsStore({ userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)' });
 * const crawler = new CheerioCrawler({ requestHandler: async ({ request }) => console.log(request.url) });
 * const seeder = new SitemapSeeder({ store });
 * const result = await seeder.seed(['https://example.com/'], {
 *   enqueue: (batch) => crawler.addRequests(batch),
 *   onDropped: ({ url, check }) => console.log(`robots.txt line ${check.rule?.line} disallows ${url}`),
 *   modifiedSince: '2024-01-01',
 * });
 * console.log(`${result.kept} URLs enqueued, ${result.droppedByRobots} disallowed`);
 * await crawler.run();
 */
export class SitemapSeeder {
  readonly #store: RobotsStore;
  readonly #productToken: string | undefined;
  readonly #download: Omit<SitemapDownloadSettings, 'maxBytes' | 'signal' | 'beforeRedirect'>;
  readonly #log: Log;

  constructor(options: SitemapSeederOptions) {
    if (options?.store === undefined || typeof options.store.check !== 'function') {
      throw new TypeError(
        'SitemapSeeder needs the policy store: new SitemapSeeder({ store: new RobotsStore({ userAgent }) }).',
      );
    }
    refuseUnknownOptions('SitemapSeeder', options, SEEDER_OPTIONS);
    this.#store = options.store;
    // Refused now, not at the first check, where the message would name the store's argument.
    if (options.productToken !== undefined)
      productTokenOption('SitemapSeeder option productToken', options.productToken);
    this.#productToken = options.productToken;
    const userAgent = options.userAgent ?? options.store.userAgent;
    const { proxyUrl } = options;
    // The fetcher's rules, applied now: a malformed value would otherwise fail every download.
    asSeederOption(() => validateUserAgent(userAgent));
    if (proxyUrl !== undefined) asSeederOption(() => parseProxyUrl(proxyUrl));
    this.#download = {
      userAgent,
      proxyUrl,
      connectTimeoutMs: withinTimer(
        'connectTimeoutMs',
        positive('connectTimeoutMs', options.connectTimeoutMs, SITEMAP_DEFAULTS.connectTimeoutMs),
      ),
      timeoutMs: withinTimer(
        'timeoutMs',
        positive('timeoutMs', options.timeoutMs, SITEMAP_DEFAULTS.timeoutMs),
      ),
      maxRedirects: limit('maxRedirects', options.maxRedirects, SITEMAP_DEFAULTS.maxRedirects, 0),
      ignoreTlsErrors: booleanOption('SitemapSeeder', 'ignoreTlsErrors', options.ignoreTlsErrors, true),
    };
    this.#log = (options.log ?? crawleeLog).child({ prefix: 'RobotsSitemaps' });
  }

  /**
   * Reads the sitemaps of `inputs` (site roots such as `https://example.com/`, or sitemap URLs)
   * and hands every URL that passes the filters and robots.txt to `options.enqueue`, in batches.
   * Logs a progress line every `progressIntervalMs` and a summary at the end.
   *
   * Resolves with the counts and every sitemap that failed, with why (and every site whose
   * robots.txt is unreachable, so its sitemaps are unknown). A failing sitemap never stops the
   * others. Rejects only when `enqueue`, `onDropped`, `keep`, `onFiltered` or `onSitemapRead`
   * throws, or on misuse (an input that is not an http(s) URL, an invalid option). A throw stops
   * the run: no sitemap is requested and no callback called after it, and `seed()` rejects with
   * that error once the files being read are closed.
   */
  async seed(inputs: readonly SitemapSeedInput[], options: SitemapSeedOptions): Promise<SitemapSeedResult> {
    if (typeof options?.enqueue !== 'function') {
      throw new TypeError(
        'seed() needs an enqueue function, e.g. { enqueue: (batch) => crawler.addRequests(batch) }.',
      );
    }
    checkSeedOptions(options);
    if (!Array.isArray(inputs)) throw new TypeError('seed() takes an array of site or sitemap URLs.');
    const run = new SeedRun(this.#store, this.#productToken, this.#download, this.#log, options);
    return run.run(inputs);
  }
}

/** Runs a check of the fetcher's; its TypeError names the seeder. */
function asSeederOption(check: () => unknown): void {
  try {
    check();
  } catch (error) {
    throw new TypeError(`SitemapSeeder option ${(error as Error).message}`);
  }
}

const SEEDER_OPTIONS: OptionKeys<SitemapSeederOptions> = {
  store: true,
  productToken: true,
  userAgent: true,
  proxyUrl: true,
  connectTimeoutMs: true,
  timeoutMs: true,
  maxRedirects: true,
  ignoreTlsErrors: true,
  log: true,
};
/** Every option of seed(); RobotsGuard.seedFromSitemaps() takes most of them. */
export const SEED_OPTIONS: OptionKeys<SitemapSeedOptions> = {
  enqueue: true,
  onDropped: true,
  keep: true,
  onFiltered: true,
  onSitemapRead: true,
  label: true,
  userData: true,
  include: true,
  exclude: true,
  modifiedSince: true,
  keepUndated: true,
  sameHostOnly: true,
  tryCommonPaths: true,
  checkSitemapUrls: true,
  unreachableWaitMs: true,
  enqueueWhenRobotsUnreachable: true,
  batchSize: true,
  concurrency: true,
  maxUrlsPerFile: true,
  maxBytesPerFile: true,
  maxUrls: true,
  maxSitemaps: true,
  maxTotalBytes: true,
  maxDepth: true,
  progressIntervalMs: true,
  maxReportedProblems: true,
  signal: true,
};

/**
 * Refuses options of the wrong type when the run starts. Options often come from configuration
 * files or environment variables, where `'false'` would read as true: with
 * `enqueueWhenRobotsUnreachable`, URLs robots.txt shuts out would be queued.
 */
function checkSeedOptions(options: SitemapSeedOptions): void {
  refuseUnknownOptions('seed()', options, SEED_OPTIONS);
  const refuse = (name: string, what: string, value: unknown) => {
    throw new TypeError(`seed() option ${name} must be ${what}, got ${show(value)}.`);
  };
  for (const name of ['onDropped', 'onFiltered', 'onSitemapRead', 'keep'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw new TypeError(`seed() option ${name} must be a function, got ${typeof options[name]}.`);
  }
  for (const name of [
    'keepUndated',
    'sameHostOnly',
    'checkSitemapUrls',
    'tryCommonPaths',
    'enqueueWhenRobotsUnreachable',
  ] as const) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'boolean') refuse(name, 'true or false', value);
  }
  if (options.label !== undefined && typeof options.label !== 'string')
    refuse('label', 'a string', options.label);
  const { userData } = options;
  if (
    userData !== undefined &&
    (typeof userData !== 'object' || userData === null || Array.isArray(userData))
  ) {
    refuse('userData', 'an object', userData);
  }
  // A request keeps its userData as JSON: a Map or a Date would reach the handler empty.
  const prototype = userData === undefined ? null : Object.getPrototypeOf(userData);
  if (prototype !== null && prototype !== Object.prototype) {
    throw new TypeError(
      `seed() option userData must be a plain object, such as { from: 'sitemaps' }, got a ${prototype.constructor?.name ?? 'object of another kind'}.`,
    );
  }
  for (const name of ['include', 'exclude'] as const) {
    const value = options[name];
    if (value !== undefined && !Array.isArray(value))
      refuse(name, 'a list of glob strings and RegExps', value);
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    refuse('signal', 'an AbortSignal', options.signal);
  }
}

/** What a reported problem says beyond its sitemap and why (see SitemapProblem). */
interface ProblemDetails {
  refusedByRobots?: boolean;
  skipped?: boolean;
  /** What the file held, when it was read in part. */
  format?: SitemapFormat;
}

/** A sitemap waiting to be read. */
interface SitemapTask {
  url: string;
  depth: number;
  /** Ancestors (and their redirect targets), for loop detection. */
  chain: readonly string[];
  /** Hosts whose URLs this sitemap may list (its own, plus those whose robots.txt vouched for it). */
  trusted: ReadonlySet<string>;
  /** Listed by its own origin's robots.txt, or a child on that origin of such a sitemap. */
  invited: boolean;
  guessed: boolean;
  parent?: string;
  /** Checked again after its robots.txt, unreachable at first, answered: it waits no more. */
  rechecked?: boolean;
}

/** The warning for a site whose robots.txt a stop left unanswered. */
const ROBOTS_TXT_UNREAD =
  'Not read: the run stopped before this robots.txt answered; the sitemaps it lists are unknown.';

/** The state of one `seed()` call. */
class SeedRun {
  readonly #result: SitemapSeedResult = {
    sitemapsRead: 0,
    sitemapsFailed: 0,
    sitemapsSkipped: 0,
    sitemapsUnread: 0,
    urlsFound: 0,
    kept: 0,
    droppedByRobots: 0,
    filtered: 0,
    filteredBy: { invalid: 0, 'cross-host': 0, include: 0, exclude: 0, lastmod: 0 },
    unchecked: 0,
    failures: [],
    warnings: [],
    stoppedEarly: false,
    durationMs: 0,
  };
  readonly #started = performance.now();
  readonly #options: SitemapSeedOptions;
  readonly #include: RegExp[];
  readonly #exclude: RegExp[];
  readonly #since: number | undefined;
  readonly #keepUndated: boolean;
  readonly #sameHostOnly: boolean;
  readonly #checksSitemaps: boolean;
  readonly #batchSize: number;
  readonly #concurrency: number;
  readonly #maxUrlsPerFile: number;
  readonly #maxBytesPerFile: number;
  readonly #maxUrls: number;
  readonly #maxSitemaps: number;
  readonly #maxTotalBytes: number;
  readonly #maxDepth: number;
  readonly #maxProblems: number;
  readonly #progressMs: number;
  readonly #userData: Record<string, unknown>;
  readonly #hasUserData: boolean;
  readonly #tryCommonPaths: boolean;
  readonly #unreachableWaitMs: number;

  #pending: SitemapTask[] = [];
  #pendingHead = 0;
  readonly #visited = new Set<string>();
  #active = 0;
  #waiters: (() => void)[] = [];
  #batch: SitemapRequest[] = [];
  #sitemapsRequested = 0;
  /** Decoded octets the run's files have read, shared by the downloads (see maxTotalBytes). */
  readonly #bytes: SharedByteBudget;
  #stopped = false;
  /**
   * True when the signal stopped the run with every sitemap known and read or being read: the
   * stop left nothing unread unless it cut one of those (see #leftUnread).
   */
  #quietStop = false;
  /** True once the run stopped with something unread: a file, a URL, or a sitemap past a limit. */
  #leftUnread = false;
  /** True once the sitemaps of the sites given are known. */
  #discovered = false;
  /** Aborted when the run stops: ends the downloads and the waits for the store at once. */
  readonly #halt = new AbortController();
  /** Set by the first throw of a callback (`enqueue`, `onDropped`, `keep`, ...): the run stops and rejects with it. */
  #failed = false;
  #error: unknown;
  #sitemapLimitWarned = false;
  #lastmodRaw = '';
  #lastmodTime: number | undefined;
  #lastmodIso = '';
  #depthLimitWarned = false;
  /** Sites and sitemaps waited for (see #awaitSite, #awaitSitemap): the workers stay while there are any. */
  #waiting = 0;
  /** Waits begun while the run goes on: settled before it ends. */
  readonly #waits: Promise<void>[] = [];
  /** Origins whose unreachable robots.txt the run asks about again (see #untilAnswered), by origin. */
  readonly #answers = new Map<string, Promise<OriginPolicy>>();
  /** How many of them are still asked about, for the progress line. */
  #originsWaited = 0;
  /** Until when the run waits for an unreachable robots.txt once it has nothing else to read. */
  #deadline = 0;
  /** Wakes each wait in progress (see #sleep). */
  readonly #sleepers = new Set<() => void>();

  constructor(
    readonly store: RobotsStore,
    readonly productToken: string | undefined,
    readonly download: Omit<SitemapDownloadSettings, 'maxBytes' | 'signal' | 'beforeRedirect'>,
    readonly log: Log,
    options: SitemapSeedOptions,
  ) {
    this.#options = options;
    // One listener per wait in progress (a worker's download or check, a site waited for):
    // more than Node's default of 10 with a higher concurrency, and none of them leaks.
    setMaxListeners(0, this.#halt.signal);
    this.#include = compilePatterns(options.include);
    this.#exclude = compilePatterns(options.exclude);
    this.#since = parseSince(options.modifiedSince);
    this.#keepUndated = options.keepUndated ?? true;
    this.#sameHostOnly = options.sameHostOnly ?? true;
    this.#checksSitemaps = options.checkSitemapUrls ?? true;
    this.#batchSize = wholeNumber('batchSize', options.batchSize, SITEMAP_DEFAULTS.batchSize);
    this.#concurrency = wholeNumber('concurrency', options.concurrency, SITEMAP_DEFAULTS.concurrency);
    this.#maxUrlsPerFile = limit(
      'maxUrlsPerFile',
      options.maxUrlsPerFile,
      SITEMAP_DEFAULTS.maxUrlsPerFile,
      1,
    );
    this.#maxBytesPerFile = limit(
      'maxBytesPerFile',
      options.maxBytesPerFile,
      SITEMAP_DEFAULTS.maxBytesPerFile,
      1,
    );
    this.#maxUrls = limit('maxUrls', options.maxUrls, SITEMAP_DEFAULTS.maxUrls, 1);
    this.#maxSitemaps = limit('maxSitemaps', options.maxSitemaps, SITEMAP_DEFAULTS.maxSitemaps, 1);
    this.#maxTotalBytes = limit('maxTotalBytes', options.maxTotalBytes, SITEMAP_DEFAULTS.maxTotalBytes, 1);
    this.#bytes = { used: 0, max: this.#maxTotalBytes };
    this.#maxDepth = limit('maxDepth', options.maxDepth, SITEMAP_DEFAULTS.maxDepth, 0);
    this.#maxProblems = limit(
      'maxReportedProblems',
      options.maxReportedProblems,
      SITEMAP_DEFAULTS.maxReportedProblems,
      0,
    );
    this.#progressMs = withinTimer(
      'progressIntervalMs',
      atLeast0('progressIntervalMs', options.progressIntervalMs, SITEMAP_DEFAULTS.progressIntervalMs),
    );
    this.#userData = options.userData ?? {};
    this.#hasUserData = Object.keys(this.#userData).length > 0;
    this.#tryCommonPaths = options.tryCommonPaths ?? false;
    this.#unreachableWaitMs = atLeast0(
      'unreachableWaitMs',
      options.unreachableWaitMs,
      SITEMAP_DEFAULTS.unreachableWaitMs,
    );
  }

  async run(inputs: readonly SitemapSeedInput[]): Promise<SitemapSeedResult> {
    // Listened to from the start: an abort ends discovery too, not only the reading.
    const signal = this.#options.signal;
    const onAbort = () => {
      this.#quietStop =
        !this.#stopped &&
        this.#discovered &&
        this.#waiting === 0 &&
        this.#pendingHead >= this.#pending.length;
      this.#stop();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) this.#stop();
    let timer: NodeJS.Timeout | undefined;
    try {
      const { sources, unreachable, warnings, unread } = await discoverSitemaps(
        inputs,
        this.store,
        this.#tryCommonPaths,
        this.#halt.signal,
      );
      for (const { url, why } of warnings) this.#warning({ url }, why);
      for (const url of unread) {
        this.#leftUnread = true;
        this.#warning({ url }, ROBOTS_TXT_UNREAD, { skipped: true });
      }
      for (const source of sources) this.#pushSource(source);
      this.#discovered = !this.#stopped;
      this.#deadline = performance.now() + this.#unreachableWaitMs;
      for (const policy of unreachable) {
        if (this.#stopped || (this.#unreachableWaitMs === 0 && this.#idle())) this.#giveUpSite(policy);
        else this.#track(this.#awaitSite(policy));
      }
      if (this.#progressMs > 0) {
        timer = setInterval(
          () => this.log.info(formatProgress(this.#result, this.#elapsedMs(), this.#originsWaited)),
          this.#progressMs,
        );
        timer.unref();
      }
      // A throw stops the whole run (see #fail), so nothing is read or enqueued after seed()
      // rejects: every worker and wait settles first.
      const workers = Array.from({ length: this.#concurrency }, () => this.#worker());
      await Promise.all(workers.map((work) => work.catch((error) => this.#fail(error))));
      // The workers stay while a wait is live, or end at a stop, which ends the waits at once.
      await Promise.all(this.#waits);
      if (this.#failed) throw this.#error;
      this.#unreadAtStop();
      await this.#flush();
      // A stop after the last entry of the last file (a caller's cap of exactly the URLs there are) is no early stop.
      if (this.#quietStop && !this.#leftUnread && this.#result.unchecked === 0)
        this.#result.stoppedEarly = false;
    } finally {
      clearInterval(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    this.#result.durationMs = Math.round(this.#elapsedMs());
    this.#logSummary();
    return this.#result;
  }

  /** Sitemaps a stop left waiting to be read: counted as skipped, and the first named. */
  #unreadAtStop(): void {
    const unread = this.#pending.length - this.#pendingHead;
    if (this.#stopped && unread > 0) this.#notRead(this.#pending[this.#pendingHead], unread - 1);
  }

  /** `task`, and `more` sitemaps after it, not requested because the run stopped first. */
  #notRead(task: SitemapTask, more = 0): void {
    this.#leftUnread = true;
    this.#result.sitemapsSkipped += 1 + more;
    this.#result.sitemapsUnread += 1 + more;
    const others = more === 0 ? '' : ` and ${more} more ${more === 1 ? 'sitemap' : 'sitemaps'}`;
    this.#warning(task, `Not read: the run stopped before it${others}.`, { skipped: true });
  }

  #elapsedMs(): number {
    return performance.now() - this.#started;
  }

  #stop(): void {
    this.#stopped = true;
    this.#result.stoppedEarly = true;
    this.#halt.abort();
    this.#wake();
    this.#wakeSleepers();
  }

  /** The first error thrown by a callback of the caller: kept to reject with, and the run stops. */
  #fail(error: unknown): void {
    if (!this.#failed) {
      this.#failed = true;
      this.#error = error;
    }
    this.#stop();
  }

  /** A wait that runs beside the workers: its throw stops the run, and the run ends after it. */
  #track(wait: Promise<void>): void {
    this.#waits.push(wait.catch((error) => this.#fail(error)));
  }

  #wakeSleepers(): void {
    for (const wake of [...this.#sleepers]) wake();
  }

  /** True when no sitemap is being read or waits to be, besides the `reading` ones of the caller. */
  #idle(reading = 0): boolean {
    return this.#active === reading && this.#pendingHead >= this.#pending.length;
  }

  /** Waits `ms`: true, or false when woken before (see #wakeSleepers). */
  #sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#sleepers.delete(wake);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.#sleepers.delete(wake);
        resolve(true);
      }, ms);
      this.#sleepers.add(wake);
    });
  }

  #pushSource(source: SitemapSource): void {
    // Also listed by another site, or given: it is read once.
    if (this.#visited.has(source.url)) return;
    // Listed by robots.txt or given with credentials: skipped as a child sitemap with them is.
    const unusable = unusableLoc(source.url);
    if (unusable !== undefined) {
      this.#visited.add(source.url);
      this.#skip({ url: withoutCredentials(source.url) }, unusable);
      return;
    }
    const origin = originOf(source.url);
    const trusted = new Set([hostOf(origin)]);
    for (const listedBy of source.listedBy) trusted.add(hostOf(listedBy));
    this.#visited.add(source.url);
    this.#enqueueTask({
      url: source.url,
      depth: 0,
      chain: [],
      trusted,
      invited: source.listedBy.has(origin),
      guessed: source.guessed,
    });
  }

  #enqueueTask(task: SitemapTask): void {
    this.#pending.push(task);
    this.#wake();
  }

  #nextTask(): SitemapTask | undefined {
    if (this.#pendingHead >= this.#pending.length) return undefined;
    const task = this.#pending[this.#pendingHead++];
    if (this.#pendingHead > 1024 && this.#pendingHead * 2 > this.#pending.length) {
      this.#pending = this.#pending.slice(this.#pendingHead);
      this.#pendingHead = 0;
    }
    return task;
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async #worker(): Promise<void> {
    for (;;) {
      if (this.#stopped) return;
      const task = this.#nextTask();
      if (task === undefined) {
        if (this.#active === 0) {
          if (this.#waiting === 0) return;
          // Nothing left to read: sites and sitemaps still waited for see the run idle (see #untilAnswered).
          this.#wakeSleepers();
        }
        await new Promise<void>((resolve) => this.#waiters.push(resolve));
        continue;
      }
      this.#active++;
      try {
        await this.#read(task);
      } catch (error) {
        this.#fail(error);
      } finally {
        this.#active--;
        this.#wake();
      }
    }
  }

  /**
   * Waits for a site whose robots.txt is unreachable (see #untilAnswered), and reads its sitemaps
   * once robots.txt answers.
   */
  async #awaitSite(policy: OriginPolicy): Promise<void> {
    this.#waiting++;
    try {
      const answered = await this.#untilAnswered(policy);
      if (answered.kind === 'disallow-all') {
        this.#giveUpSite(answered);
        return;
      }
      this.#warning(
        { url: answered.robotsTxtUrl },
        `Unreachable (${policy.status}) when the run began; answered (${answered.status}) ${Math.round(
          this.#elapsedMs() / 1000,
        )} s into it, and the site was read then.`,
      );
      const unusable = unusableSitemapWarning(answered);
      if (unusable !== undefined) this.#warning({ url: answered.robotsTxtUrl }, unusable);
      for (const source of siteSources(answered, this.#tryCommonPaths)) this.#pushSource(source);
    } finally {
      this.#waiting--;
      this.#wake();
    }
  }

  /**
   * Waits for the unreachable robots.txt of a sitemap (see #waitsFor and #untilAnswered), then
   * checks the sitemap again, or reports it refused.
   */
  async #awaitSitemap(task: SitemapTask, check: RobotsCheck): Promise<void> {
    this.#waiting++;
    try {
      const policy = await untilAborted(this.store.resolve(task.url), this.#halt.signal);
      const answered = policy === ABORTED ? undefined : await this.#untilAnswered(policy);
      if (answered === undefined || answered.kind === 'disallow-all') {
        // The why of the last attempt: the status may have changed while the run waited.
        this.#refused(
          task,
          check,
          `${check.robotsTxtUrl} does not allow it (${answered?.why ?? check.why}).`,
        );
        return;
      }
      this.#warning(
        task,
        `Its robots.txt (${answered.robotsTxtUrl}) was unreachable (${check.status}) at first; it answered (${
          answered.status
        }) ${Math.round(this.#elapsedMs() / 1000)} s into the run, and the sitemap was checked again then.`,
      );
      this.#enqueueTask({ ...task, rechecked: true });
    } finally {
      this.#waiting--;
      this.#wake();
    }
  }

  /**
   * The policy of an origin whose robots.txt is unreachable, once it answers, or the last
   * unreachable one when the run stops waiting. The store is asked again each time it plans an
   * attempt, while the run reads other sitemaps and at least until the run's deadline
   * (`unreachableWaitMs`). One wait per origin, shared by its site and its sitemaps: the caller
   * counts itself in `#waiting` for as long as it waits.
   */
  #untilAnswered(policy: OriginPolicy): Promise<OriginPolicy> {
    // Answered already (between a sitemap's check and its wait).
    if (policy.kind !== 'disallow-all') return Promise.resolve(policy);
    let answer = this.#answers.get(policy.origin);
    if (answer === undefined) {
      answer = this.#askAgain(policy);
      this.#answers.set(policy.origin, answer);
    }
    return answer;
  }

  async #askAgain(policy: OriginPolicy): Promise<OriginPolicy> {
    this.#originsWaited++;
    let current = policy;
    try {
      this.log.info(
        `robots.txt of ${policy.origin} is unreachable (${policy.status}): it is asked again while other sitemaps are read${
          this.#unreachableWaitMs === Infinity
            ? ' and then until it answers'
            : this.#unreachableWaitMs > 0
              ? ` and for ${Math.round(this.#unreachableWaitMs / 1000)} s at least`
              : ''
        }.`,
      );
      for (;;) {
        const left = this.#deadline - performance.now();
        if (this.#stopped || (left <= 0 && this.#idle())) return current;
        const wait = retryDelayOf(current);
        // Idle, the run ends with the wait; busy, it sleeps to the store's attempt, unless woken
        // when the run goes idle.
        const slept = await this.#sleep(this.#idle() ? Math.min(wait, left) : wait);
        if (this.#stopped) return current;
        if (!slept) continue;
        const next = await untilAborted(this.store.resolve(current.origin), this.#halt.signal);
        if (next === ABORTED) return current;
        current = next;
        if (current.kind !== 'disallow-all') return current;
      }
    } finally {
      this.#originsWaited--;
    }
  }

  /**
   * A site whose robots.txt is unreachable: its `Sitemap:` lines are unknown and RFC 9309 2.3.1.4
   * disallows everything on it. A failure, so a seed that found nothing says why. Its common
   * paths, when asked for, are refused by the robots.txt check and counted as skipped.
   */
  #giveUpSite(policy: OriginPolicy): void {
    const why = `The sitemaps it lists are unknown (robots.txt ${policy.status}): ${policy.why}`;
    this.#result.sitemapsFailed++;
    this.log.warning(`Site ${policy.origin} not read: robots.txt is unreachable (${policy.status}).`);
    this.#report(this.#result.failures, { url: policy.robotsTxtUrl }, why);
    if (!this.#stopped)
      for (const source of siteSources(policy, this.#tryCommonPaths)) this.#pushSource(source);
  }

  /** A sitemap that could not be read. */
  #failure(task: SitemapTask, why: string, details?: ProblemDetails): void {
    this.#result.sitemapsFailed++;
    this.log.warning(`Sitemap ${task.url} failed: ${why}`);
    this.#report(this.#result.failures, task, why, details);
  }

  /** A sitemap that is not read: counted as skipped, with a warning saying why. */
  #skip(task: Pick<SitemapTask, 'url' | 'parent'>, why: string): void {
    this.#result.sitemapsSkipped++;
    this.#warning(task, why, { skipped: true });
  }

  /** A problem met while reading `task`, or, `skipped`, why it is not read. */
  #warning(task: Pick<SitemapTask, 'url' | 'parent'>, why: string, details?: ProblemDetails): void {
    this.log.debug(`Sitemap ${task.url}: ${why}`);
    this.#report(this.#result.warnings, task, why, details);
  }

  #report(
    list: SitemapProblem[],
    task: Pick<SitemapTask, 'url' | 'parent'>,
    why: string,
    { refusedByRobots = false, skipped = false, format }: ProblemDetails = {},
  ): void {
    if (list.length >= this.#maxProblems) return;
    const problem: SitemapProblem = { url: task.url, why };
    if (task.parent !== undefined) problem.parent = task.parent;
    if (refusedByRobots) problem.refusedByRobots = true;
    if (skipped) problem.skipped = true;
    if (format !== undefined && format !== 'unknown') problem.format = format;
    list.push(problem);
  }

  /** Reads one sitemap file to its end, a limit, or an error. */
  async #read(task: SitemapTask): Promise<void> {
    if (this.#sitemapsRequested >= this.#maxSitemaps) {
      this.#sitemapLimitReached(task);
      return;
    }
    if (this.#bytes.used >= this.#maxTotalBytes) {
      this.#result.sitemapsSkipped++;
      this.#totalBytesReached(task, true);
      return;
    }
    // The file's place under maxSitemaps is taken before robots.txt is asked, and given back if
    // the file is not requested: the reads running side by side all await that answer, and would
    // all pass the test above.
    this.#sitemapsRequested++;
    if (this.#checksSitemaps && !task.invited) {
      const check = await untilAborted(this.store.check(task.url, this.productToken), this.#halt.signal);
      if (check === ABORTED) {
        this.#sitemapsRequested--;
        // Stopped before it was requested: unread, as the sitemaps still waiting their turn are.
        this.#notRead(task);
        return;
      }
      if (!check.allowed) {
        // Given, or named by an index, and listed by its own robots.txt all the same: invited, as
        // when it is found through the site.
        if (await this.#listedByItsOrigin(task.url)) task.invited = true;
        else {
          this.#sitemapsRequested--;
          if (this.#waitsFor(task, check)) this.#track(this.#awaitSitemap(task, check));
          else
            this.#refused(task, check, `${check.robotsTxtUrl} does not allow it (${describeCheck(check)}).`);
          return;
        }
      }
    }
    const redirectChain: string[] = [];
    /** Redirect targets read because their own robots.txt lists them (they may list children unchecked). */
    const invitedHops = new Set<string>();
    let refusedHop: RobotsCheck | undefined;
    // A redirect target is judged before it is requested: a loop, a file read already, robots.txt.
    const judgeRedirect = async (target: string): Promise<string | undefined> => {
      if (target === task.url || task.chain.includes(target) || redirectChain.includes(target)) {
        return `Loop: ${[...task.chain, task.url, ...redirectChain, target].join(' -> ')}.`;
      }
      redirectChain.push(target);
      if (this.#visited.has(target)) return `Redirects to ${target}, which is read already.`;
      // robots.txt first, for every hop: a redirect is a request of its own, judged by the
      // robots.txt of its target's origin (DESIGN.md: the rules of one host never serve another).
      if (this.#checksSitemaps) {
        if (await this.#invitedHop(task, target)) {
          invitedHops.add(target);
        } else {
          const check = await this.store.check(target, this.productToken);
          if (!check.allowed) {
            refusedHop = check;
            return `Redirects to ${target}, which ${check.robotsTxtUrl} does not allow (${describeCheck(check)}).`;
          }
        }
      }
      this.#visited.add(target);
      return undefined;
    };
    let redirectAborted = false;
    const body = await downloadSitemap(task.url, {
      ...this.download,
      maxBytes: this.#maxBytesPerFile,
      shared: this.#bytes,
      signal: this.#halt.signal,
      beforeRedirect: async (target) => {
        const stop = await untilAborted(judgeRedirect(target), this.#halt.signal);
        if (stop !== ABORTED) return stop;
        redirectAborted = true;
        return 'Aborted.';
      },
    });
    if (!body.ok) {
      if (body.kind === 'aborted' || redirectAborted) {
        this.#cutByStop(task, '0 URLs read');
        return;
      }
      if (refusedHop !== undefined) {
        this.#refused(task, refusedHop, body.why);
        return;
      }
      if (body.kind === 'redirect-stopped') {
        this.#skip(task, body.why);
        return;
      }
      if (task.guessed && body.kind === 'http-status') {
        // A guessed path that is not there is no failure.
        this.#result.sitemapsSkipped++;
        this.log.debug(`No sitemap at ${task.url}: ${body.why}`);
        return;
      }
      this.#failure(task, body.why);
      return;
    }

    const file = new FileState(
      task,
      body.finalUrl,
      [...task.chain, task.url, ...body.hops],
      invitedHops.has(body.finalUrl),
    );
    const parser = new SitemapParser(body.finalUrl);
    let readError: SitemapReadError | undefined;
    /** True once the file ended on its own: its last entry, a limit of its own, or an error in it. */
    let ended = false;
    let cutByRun = false;
    /** False once the run stopped before an entry the parser handed on was handled. */
    let handled = true;
    // A run that stops after the last entry of an XML file (at --max-urls, say, on a file of
    // exactly that many URLs) has read the file, though the rest of its stream never was.
    const wholeAtStop = () =>
      this.#stopped && handled && !file.unchecked && parser.rootClosed && parser.error === undefined;
    try {
      for await (const text of body.text) {
        parser.write(text);
        file.feed = parser.format === 'rss' || parser.format === 'atom';
        handled = await this.#handle(parser.take(), file);
        if (parser.error !== undefined || file.full || this.#stopped) break;
      }
      // A file cut at the size cap has no end: its last line or element is incomplete.
      if (parser.error === undefined && !file.full && !this.#stopped && !body.truncated) {
        parser.end();
        file.feed = parser.format === 'rss' || parser.format === 'atom';
        await this.#handle(parser.take(), file);
      }
      // maxTotalBytes stops the run in the middle of this file; its own cap is a limit of its own.
      cutByRun = body.truncatedByShared && parser.error === undefined && !file.full;
      ended =
        !cutByRun &&
        (!this.#stopped || parser.error !== undefined || file.full || body.truncated || wholeAtStop());
    } catch (error) {
      if (!(error instanceof SitemapReadError)) throw error;
      if (error.kind === 'aborted' && wholeAtStop()) ended = true;
      else readError = error;
    } finally {
      body.close();
    }

    const kind = parser.format === 'sitemapindex' ? 'sitemap' : 'URL';
    const found = `${file.entries} ${file.entries === 1 ? kind : `${kind}s`} read`;
    if (readError !== undefined) {
      if (readError.kind === 'aborted') this.#cutByStop(task, found, parser.format);
      else
        this.#failure(task, `${readError.message.replace(/\.$/, '')} (${found} before).`, {
          format: parser.format,
        });
      return;
    }
    if (!ended) {
      if (cutByRun) this.#totalBytesReached(task);
      this.#cutByStop(task, found, parser.format);
      return;
    }
    // Cut at its size cap before a first URL or root element (one line of 50 MiB): no sitemap
    // was found in it, which a file read whole would have said at its end.
    const unsettled = parser.error === undefined && body.truncated && parser.format === 'unknown';
    const notSitemap = unsettled
      ? `Not a sitemap: neither a URL line nor a sitemap element in the first ${body.bytes} decoded octets, where maxBytesPerFile cut it.`
      : parser.error;
    if (notSitemap !== undefined && file.entries === 0) {
      if (task.guessed) {
        // A guessed path that answers something else (an app's page for any path, a soft
        // 404) has no sitemap, as a 404 would say.
        this.#result.sitemapsSkipped++;
        this.log.debug(`No sitemap at ${task.url}: ${notSitemap}`);
        return;
      }
      this.#failure(task, notSitemap);
      return;
    }
    if (parser.error !== undefined) {
      // Not read to its end, as a body cut short is not: what parsed before the error is kept,
      // and the file is a failure, so a list or sample of its URLs is known to be incomplete.
      this.#failure(task, `${parser.error.replace(/\.$/, '')} (${found} before it).`, {
        format: parser.format,
      });
      return;
    }
    this.#result.sitemapsRead++;
    this.#options.onSitemapRead?.({
      url: task.url,
      ...(task.parent === undefined ? {} : { parent: task.parent }),
      format: parser.format,
      entries: file.entries,
    });
    if (body.truncated) {
      this.#warning(task, `Cut after ${body.bytes} decoded octets (maxBytesPerFile); ${found}.`);
      if (this.#bytes.used >= this.#maxTotalBytes) this.#totalBytesReached(task);
    }
    if (parser.misplacedEntries > 0) {
      const [entry, root, holds] =
        parser.format === 'urlset' ? ['sitemap', 'urlset', 'pages'] : ['url', 'sitemapindex', 'sitemaps'];
      this.#warning(
        task,
        `${parser.misplacedEntries} <${entry}> entries ignored: a <${root}> lists ${holds} only (sitemaps.org).`,
      );
    }
    if (parser.strayEntries > 0) {
      const [entry, where] = ENTRY_PLACES[parser.format] ?? ['url', 'directly inside <urlset>'];
      this.#warning(
        task,
        `${parser.strayEntries} <${entry}> ${plural(parser.strayEntries, 'element')} ignored: not ${where}, where entries are read (one inside another entry, or inside a wrapper element).`,
      );
    }
    if (parser.strayLocations > 0) {
      const [entry] = ENTRY_PLACES[parser.format] ?? ['url'];
      const loc = parser.format === 'rss' ? 'link' : 'loc';
      this.#warning(
        task,
        `${parser.strayLocations} <${loc}> ${plural(parser.strayLocations, 'element')} ignored: a second location in one <${entry}> (its first is read), or one outside any <${entry}>.`,
      );
    }
    for (const [meant, { count, written, otherSpellings }] of parser.miscasedElements) {
      const what = otherSpellings
        ? `${count} elements ignored for their case (<${written}> and other spellings)`
        : `${count} <${written}> ${plural(count, 'element')} ignored for ${count === 1 ? 'its' : 'their'} case`;
      this.#warning(
        task,
        `${what}: XML names are case-sensitive, and ${NAMED_BY[parser.format] ?? 'sitemaps.org'} writes <${meant}>.`,
      );
    }
    if (file.full) {
      this.#warning(
        task,
        `More than ${this.#maxUrlsPerFile} entries (${
          this.#maxUrlsPerFile === SITEMAP_DEFAULTS.maxUrlsPerFile ? "sitemaps.org's limit" : 'maxUrlsPerFile'
        }): the rest is ignored.`,
      );
    }
  }

  /**
   * A file the run stopped in the middle of (the signal, a run limit, a callback's throw): not
   * counted as read, wherever the stop found it (waiting for the server or reading), and a
   * warning says how far it got.
   */
  #cutByStop(task: SitemapTask, found: string, format?: SitemapFormat): void {
    this.#leftUnread = true;
    this.#warning(task, `Not read to the end: the run stopped (${found} before).`, { format });
  }

  /** A sitemap past `maxSitemaps`: skipped, and the first one says so. */
  #sitemapLimitReached(task: Pick<SitemapTask, 'url' | 'parent'>): void {
    this.#result.sitemapsSkipped++;
    this.#result.sitemapsUnread++;
    this.#result.stoppedEarly = true;
    this.#leftUnread = true;
    if (this.#sitemapLimitWarned) return;
    this.#sitemapLimitWarned = true;
    this.#warning(
      task,
      `maxSitemaps (${this.#maxSitemaps}) reached: this and further sitemaps are skipped.`,
      { skipped: true },
    );
  }

  /** The run has read `maxTotalBytes`: it stops, and says so once. */
  #totalBytesReached(task: SitemapTask, skipped = false): void {
    this.#leftUnread = true;
    if (this.#stopped) return;
    this.#warning(task, `maxTotalBytes (${this.#maxTotalBytes}) reached: the run stops.`, { skipped });
    this.#stop();
  }

  /**
   * A sitemap robots.txt keeps the seeder from (the file itself or a redirect target): a failure,
   * with why. A guessed path on its site whose robots.txt is unreachable is only counted as
   * skipped: discovery reports the site once, not each path it did not try.
   */
  #refused(task: SitemapTask, check: RobotsCheck, why: string): void {
    if (task.guessed && check.reason === 'disallow-all' && check.origin === originOf(task.url)) {
      this.#result.sitemapsSkipped++;
      this.log.debug(`Not trying ${task.url}: ${why}`);
      return;
    }
    this.#failure(task, why, { refusedByRobots: true });
  }

  /**
   * True when a refused sitemap waits for its robots.txt, as a site does: one given, listed or
   * named by an index (not a guessed path), refused because its own origin's robots.txt is
   * unreachable (RFC 9309 2.3.1.4), not by a rule of the file.
   */
  #waitsFor(task: SitemapTask, check: RobotsCheck): boolean {
    if (this.#stopped || task.guessed || task.rechecked === true) return false;
    if (check.policyKind !== 'disallow-all') return false;
    // Past the deadline with nothing else to read, the wait would end at once.
    return !(performance.now() >= this.#deadline && this.#idle(1));
  }

  /**
   * True when a redirect target of `task` is read without a robots.txt check, by the rule its
   * first URL follows (see `checkSitemapUrls`): a target on the origin of a sitemap its own
   * robots.txt listed, or a target that the robots.txt of its own origin lists.
   */
  async #invitedHop(task: SitemapTask, target: string): Promise<boolean> {
    if (task.invited && originOf(target) === originOf(task.url)) return true;
    // The store fetches the target origin's robots.txt here, before the target is requested.
    return this.#listedByItsOrigin(target);
  }

  /** Whether a `Sitemap:` line of the robots.txt of `url`'s own origin lists `url`. */
  async #listedByItsOrigin(url: string): Promise<boolean> {
    return listedSitemaps(await this.store.resolve(url)).includes(url);
  }

  /** Filters, checks and batches the entries of one chunk; false when some were left unhandled. */
  async #handle(entries: SitemapEntry[], file: FileState): Promise<boolean> {
    for (const entry of entries) {
      if (this.#stopped) return false;
      if (file.entries >= this.#maxUrlsPerFile) {
        file.full = true;
        return false;
      }
      // The URL past maxUrls stops the run unread: the file's count says what the run found in it.
      if (entry.kind === 'url' && this.#result.urlsFound >= this.#maxUrls) {
        this.#warning(file.task, `maxUrls (${this.#maxUrls}) reached: the run stops.`);
        this.#leftUnread = true;
        this.#stop();
        return false;
      }
      file.entries++;
      if (entry.kind === 'sitemap') {
        this.#child(entry, file);
        continue;
      }
      const waiting = this.#url(entry, file);
      if (waiting !== undefined) await waiting;
    }
    return true;
  }

  #child(entry: SitemapEntry, file: FileState): void {
    const task = file.task;
    if (entry.loc === '') {
      // Nothing to name it by: the index that lists it says so.
      this.#result.sitemapsSkipped++;
      this.#warning(task, 'Lists an entry without a location: skipped.');
      return;
    }
    // One spelling per sitemap (`HTTP://Example.com/a.xml#top` is `http://example.com/a.xml`):
    // a child is read once however its index writes it.
    const unusable = entry.tooLong ? `Longer than ${MAX_LOC_LENGTH} characters.` : unusableLoc(entry.loc);
    const url = unusable === undefined ? sitemapUrlOf(entry.loc) : undefined;
    const child = { url: url ?? withoutCredentials(entry.loc), parent: task.url };
    if (url === undefined) {
      this.#skip(child, unusable ?? 'Not an absolute http(s) URL.');
      return;
    }
    if (file.chain.includes(url)) {
      this.#skip(child, `Loop: ${[...file.chain, url].join(' -> ')}.`);
      return;
    }
    if (this.#visited.has(url)) {
      this.#result.sitemapsSkipped++;
      return;
    }
    if (task.depth + 1 > this.#maxDepth) {
      this.#result.sitemapsSkipped++;
      this.#result.sitemapsUnread++;
      if (!this.#depthLimitWarned) {
        this.#depthLimitWarned = true;
        this.#warning(
          child,
          `Deeper than maxDepth (${this.#maxDepth}): skipped, and so are other children this deep.`,
          { skipped: true },
        );
      }
      return;
    }
    if (this.#since !== undefined && !this.#recentEnough(entry.lastmod)) {
      // sitemaps.org: a sitemap's lastmod is when that file changed; an older file has no newer URLs.
      this.#result.sitemapsSkipped++;
      return;
    }
    const origin = originOf(url);
    const host = hostOf(origin);
    if (this.#sameHostOnly && !file.trusted.has(host)) {
      // sitemaps.org: an index may only list sitemaps of its own site.
      this.#skip(child, `On another host than its index ${task.url}: skipped (sitemaps.org same-host rule).`);
      return;
    }
    // Children past what maxSitemaps lets the run request are not kept waiting: indexes of
    // 50,000 children each would otherwise hold them all in memory.
    if (this.#sitemapsRequested + this.#pending.length - this.#pendingHead >= this.#maxSitemaps) {
      this.#sitemapLimitReached(child);
      return;
    }
    this.#visited.add(url);
    this.#enqueueTask({
      url,
      depth: task.depth + 1,
      chain: file.chain,
      trusted: file.trusted.has(host) ? file.trusted : new Set([...file.trusted, host]),
      invited: file.invitedOrigins.has(origin),
      guessed: false,
      parent: task.url,
    });
  }

  #recentEnough(lastmod: string | undefined): boolean {
    const time = lastmod === undefined ? undefined : parseLastmod(lastmod);
    return time === undefined ? this.#keepUndated : time >= this.#since!;
  }

  /**
   * One page URL: filters, then robots.txt. Returns a promise only when it has to wait (a new
   * origin's robots.txt, `onDropped`, a full batch), so the common case costs no promise.
   */
  #url(entry: SitemapEntry, file: FileState): Promise<void> | undefined {
    const result = this.#result;
    result.urlsFound++;
    // A location longer than any URL arrives cut: counted as invalid, never requested.
    if (entry.tooLong) return this.#filtered(entry.loc, file, 'invalid');
    const url = pageUrlOf(entry, file);
    if (url === undefined)
      return this.#filtered(withoutCredentialsAt(entry.loc, entry.base ?? file.baseUrl), file, 'invalid');
    // Most URLs share their sitemap's origin: a prefix test then spares parsing the URL.
    const sameOrigin = url.startsWith(file.originPrefix);
    if (!sameOrigin) {
      let origin: string;
      try {
        origin = originOf(url);
      } catch {
        return this.#filtered(url, file, 'invalid');
      }
      // sitemaps.org "Sitemap file location": URLs must be on the sitemap's host, unless that
      // host's robots.txt listed the sitemap (cross-submission).
      if (this.#sameHostOnly && !file.trusted.has(hostOf(origin))) {
        return this.#filtered(url, file, 'cross-host');
      }
    }
    if (this.#include.length > 0 || this.#exclude.length > 0) {
      // Patterns judge the URL the crawler will request, as the URL parser writes it:
      // `/blog/../admin/x` is `/admin/x`, and a tab or line feed inside is dropped.
      const href = new URL(url).href;
      if (this.#include.length > 0 && !this.#include.some((pattern) => pattern.test(href))) {
        return this.#filtered(url, file, 'include');
      }
      if (this.#exclude.length > 0 && this.#exclude.some((pattern) => pattern.test(href))) {
        return this.#filtered(url, file, 'exclude');
      }
    }
    let lastmod: string | undefined;
    if (entry.lastmod !== undefined) {
      const time = this.#lastmod(entry.lastmod);
      if (time !== undefined) lastmod = this.#lastmodIso;
      if (this.#since !== undefined && (time === undefined ? !this.#keepUndated : time < this.#since)) {
        return this.#filtered(url, file, 'lastmod');
      }
    } else if (this.#since !== undefined && !this.#keepUndated) {
      return this.#filtered(url, file, 'lastmod');
    }

    // robots.txt first: a cached policy answers synchronously; a new origin is fetched once. A URL
    // whose host the store cannot read from the string alone (an IP address) goes in parsed once.
    const target = sameOrigin && file.parseForStore ? new URL(url) : url;
    const check = this.store.checkCached(target, this.productToken);
    if (check !== undefined) return this.#decide(url, lastmod, check, file);
    return untilAborted(this.store.check(target, this.productToken), this.#halt.signal).then((fetched) => {
      if (fetched !== ABORTED) return this.#decide(url, lastmod, fetched, file);
      result.unchecked++;
      file.unchecked = true;
      return undefined;
    });
  }

  /**
   * The time of a `lastmod` value (and its ISO form in `#lastmodIso`). The last value is
   * remembered: sitemaps often give many URLs the same one.
   */
  #lastmod(value: string): number | undefined {
    if (value !== this.#lastmodRaw) {
      this.#lastmodRaw = value;
      this.#lastmodTime = parseLastmod(value);
      this.#lastmodIso = this.#lastmodTime === undefined ? '' : new Date(this.#lastmodTime).toISOString();
    }
    return this.#lastmodTime;
  }

  #decide(
    url: string,
    lastmod: string | undefined,
    check: RobotsCheck,
    file: FileState,
  ): Promise<void> | undefined {
    // A check that answered after a callback threw: the run is over, nothing more is handed on.
    if (this.#failed) return undefined;
    const result = this.#result;
    const dropped = check.allowed
      ? this.#options.keep !== undefined && !this.#options.keep(check)
      : !(check.reason === 'disallow-all' && this.#options.enqueueWhenRobotsUnreachable);
    if (dropped) {
      result.droppedByRobots++;
      const onDropped = this.#options.onDropped;
      if (onDropped === undefined) return undefined;
      const record: SitemapDroppedUrl = { stage: 'sitemap', url, sitemapUrl: file.task.url, check };
      if (lastmod !== undefined) record.lastmod = lastmod;
      const done = onDropped(record);
      return done instanceof Promise ? done : undefined;
    }
    const userData: SitemapRequest['userData'] = this.#hasUserData
      ? { ...this.#userData, sitemapUrl: file.task.url }
      : { sitemapUrl: file.task.url };
    if (lastmod !== undefined) userData.lastmod = lastmod;
    const request: SitemapRequest = { url, userData };
    if (this.#options.label !== undefined) request.label = this.#options.label;
    this.#batch.push(request);
    result.kept++;
    return this.#batch.length >= this.#batchSize ? this.#flush() : undefined;
  }

  #filtered(url: string, file: FileState, reason: SitemapFilterReason): undefined {
    this.#result.filtered++;
    this.#result.filteredBy[reason]++;
    this.#options.onFiltered?.({ url, sitemapUrl: file.task.url, reason });
    return undefined;
  }

  async #flush(): Promise<void> {
    if (this.#batch.length === 0 || this.#failed) return;
    const batch = this.#batch;
    this.#batch = [];
    await this.#options.enqueue(batch);
  }

  #logSummary(): void {
    const result = this.#result;
    this.log.info(formatSummary(result));
    const shown = Math.min(result.warnings.length, 10);
    for (const warning of result.warnings.slice(0, shown)) this.log.info(`  ${warning.url}: ${warning.why}`);
    if (result.warnings.length > shown)
      this.log.info(`  ... and ${result.warnings.length - shown} more warnings.`);
  }
}

/** What the seeder tracks while reading one file. */
class FileState {
  /** Entries (URLs or child sitemaps) read from the file. */
  entries = 0;
  /** True once `maxUrlsPerFile` entries were read. */
  full = false;
  /** True when the run stopped while a URL of the file waited for its robots.txt. */
  unchecked = false;
  /** True when the file is an RSS or Atom feed, whose links may be relative. */
  feed = false;
  readonly origin: string;
  /** `origin/`: a URL starting with it is on the sitemap's origin. */
  readonly originPrefix: string;
  /**
   * True when the origin's host is an IP address or otherwise not a plain domain: the store then
   * reads a URL string with the full URL parser (twice), so the seeder hands it a parsed URL.
   */
  readonly parseForStore: boolean;
  /**
   * Hosts whose URLs the file may list: those of its sitemap, and the host that answered when it
   * was redirected. sitemaps.org: a sitemap's location decides what it may list; the file is
   * where it was asked for (that host redirected to it) and where it was found.
   */
  readonly trusted: ReadonlySet<string>;
  /** Origins whose robots.txt listed this file: its children there are read without a check. */
  readonly invitedOrigins: ReadonlySet<string>;

  constructor(
    readonly task: SitemapTask,
    /** Where relative locations are resolved: the URL that answered. */
    readonly baseUrl: string,
    /** Ancestors, this file and its redirect targets. */
    readonly chain: readonly string[],
    /** True when the URL that answered is a redirect target its own robots.txt lists. */
    finalInvited: boolean,
  ) {
    this.origin = originOf(task.url);
    this.originPrefix = `${this.origin}/`;
    const finalOrigin = baseUrl === task.url ? this.origin : originOf(baseUrl);
    const finalHost = hostOf(finalOrigin);
    this.trusted = task.trusted.has(finalHost) ? task.trusted : new Set([...task.trusted, finalHost]);
    const invited = new Set<string>();
    if (task.invited) invited.add(this.origin);
    if (finalInvited) invited.add(finalOrigin);
    this.invitedOrigins = invited;
    this.parseForStore = !/^https?:\/\/([a-z0-9-]+\.)*[a-z][a-z0-9-]*(:[1-9][0-9]*)?$/.test(this.origin);
  }
}

/** The shortest wait between two questions to the store about an unreachable site. */
const MIN_SITE_RETRY_MS = 250;

/**
 * How long until the store tries an unreachable robots.txt again. Its plan (`retryAt`) is on the
 * store's clock, the wall clock unless the store was given another: the wait is then at most
 * the delay the store planned from its attempt.
 */
function retryDelayOf(policy: OriginPolicy): number {
  const retryAt = policy.retryAt ?? policy.expiresAt;
  return Math.max(MIN_SITE_RETRY_MS, Math.min(retryAt - Date.now(), retryAt - policy.fetchedAt));
}

/**
 * A page URL of a sitemap entry, or undefined when it is none. sitemaps.org: a location "must
 * begin with the protocol", so a line such as `# generated by ...` in a text sitemap or
 * `www.example.com/x` in a `urlset` is invalid, not a path to resolve. RSS and Atom links may be
 * relative: they are read against the `xml:base` in effect (RFC 4287 1.2), or the feed's URL.
 */
function pageUrlOf(entry: SitemapEntry, file: FileState): string | undefined {
  const loc = entry.loc;
  // Empty, a feed's link would read as the feed itself.
  if (loc === '' || unusableLoc(loc) !== undefined) return undefined;
  if (loc.startsWith('https://')) return authorityAt(loc, 8) ? loc : undefined;
  if (loc.startsWith('http://')) return authorityAt(loc, 7) ? loc : undefined;
  if (!file.feed && !HTTP_URL_START.test(loc)) return undefined;
  const url = urlOrNull(loc, entry.base ?? file.baseUrl);
  if (url === null) return undefined;
  // A relative link that brings credentials of its own (`//user:pass@host/x`).
  if (url.username !== '' || url.password !== '') return undefined;
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/** Whether a host starts at `at`, right after `//`: a third slash (or `\`) would make a URL parser read the path as one (see HTTP_URL_START). */
function authorityAt(loc: string, at: number): boolean {
  const c = loc.charCodeAt(at);
  return c !== 47 /* / */ && c !== 92 /* \ */;
}

/**
 * Control characters a URL parser would escape rather than drop (it drops tab, CR and LF), DEL,
 * and U+FFFD, which stands for octets that were not UTF-8: the sitemap did not write such a URL.
 */
const UNUSABLE_IN_LOC = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/;

/**
 * Why a location is no URL to request, or undefined: credentials (a sitemap would make the
 * crawler log in, and they would reach the queue and its records), control characters, octets
 * that were not UTF-8. The URL is parsed only when it holds an `@`, which few do.
 */
function unusableLoc(loc: string): string | undefined {
  if (UNUSABLE_IN_LOC.test(loc)) return 'Holds control characters, or octets that are not UTF-8.';
  if (!loc.includes('@')) return undefined;
  const url = urlOrNull(loc);
  if (url !== null && (url.username !== '' || url.password !== '')) {
    return 'Holds credentials (user:password@): not read, since a sitemap cannot make the crawler log in.';
  }
  return undefined;
}

/** The URL of a child sitemap as the URL parser writes it, without a fragment; undefined when it is no absolute http(s) URL. */
function sitemapUrlOf(loc: string): string | undefined {
  if (!HTTP_URL_START.test(loc)) return undefined;
  const url = urlOrNull(loc);
  return url === null ? undefined : hrefWithoutFragment(url);
}

/** `host[:port]` of an origin: the unit of the sitemaps.org same-host rule. */
function hostOf(origin: string): string {
  return origin.slice(origin.indexOf('//') + 2);
}

function describeCheck(check: RobotsCheck): string {
  if (check.rule !== null) return `${check.rule.kind}: ${check.rule.pattern}, line ${check.rule.line}`;
  // The why of an unreachable robots.txt says so itself.
  return check.reason === 'disallow-all' ? check.why : check.reason;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && value > 0)) {
    const message = `${name} must be a number above 0, got ${show(value)}.`;
    throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return value;
}

function atLeast0(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && value >= 0)) {
    const message = `${name} must be a number of 0 or more, got ${show(value)}.`;
    throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return value;
}

/** A count of things run at once or handed on at once (workers, a batch): a whole number, 1 or more. */
function wholeNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a number, got ${show(value)}.`);
  }
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of 1 or more, got ${value}.`);
  }
  return value;
}

/** A limit: a whole number of `min` or more, or Infinity for none. */
function limit(name: string, value: number | undefined, fallback: number, min: 0 | 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a number, got ${show(value)}.`);
  }
  if (!(Number.isInteger(value) || value === Infinity) || value < min) {
    throw new RangeError(
      `${name} must be a whole number of ${min} or more (Infinity for no limit), got ${value}.`,
    );
  }
  return value;
}

/** By format, the entry element and where the format reads it. */
const ENTRY_PLACES: Partial<Record<SitemapFormat, [entry: string, where: string]>> = {
  urlset: ['url', 'directly inside <urlset>'],
  sitemapindex: ['sitemap', 'directly inside <sitemapindex>'],
  rss: ['item', 'in <channel> (RSS 2.0) or the root (RSS 1.0)'],
  atom: ['entry', 'directly inside <feed>'],
};

/** By format, who names its elements. */
const NAMED_BY: Partial<Record<SitemapFormat, string>> = {
  urlset: 'sitemaps.org',
  sitemapindex: 'sitemaps.org',
  rss: 'RSS',
  atom: 'Atom',
};

function plural(count: number, noun: string): string {
  return count === 1 ? noun : `${noun}s`;
}
