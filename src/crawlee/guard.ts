import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type BasicCrawler,
  type Configuration,
  log as crawleeLog,
  type Log,
  type Request,
  RequestState,
  type SkippedRequestCallback,
  type Source,
} from 'crawlee';
import { sameOrigin, withoutCredentials } from '../fetch/index.js';
import { isProductToken, productTokenOf, withoutEmptyQuery } from '../robots/index.js';
import { SitemapSeeder, type SitemapSeedInput, type SitemapSeedResult } from '../sitemap/index.js';
import {
  NotHttpUrlError,
  originOf,
  outsideRequestHandlers,
  type RobotsCheck,
  RobotsStore,
  unansweredCheck,
} from '../store/index.js';
import { DetectionStopped, guardPlainHttpRuns, isAdaptive, PlainRunEnded, plainRunOf } from './adaptive.js';
import { CrawlDelayCache, CrawlDelayPacer, formatWait, pacerOf, waitFor } from './crawl-delay.js';
import {
  aroundEnqueueLinks,
  browserSendsUserAgent,
  type CrawlerInternals,
  crawlerKindOf,
  forgetStatisticsJob,
  httpClientNameOf,
  interceptRequestManager,
  onPageCreated,
  sendsThroughGotScraping,
} from './crawler-internals.js';
import { DroppedDataset } from './dropped-dataset.js';
import { stricterCheck } from './empty-query.js';
import { type GuardHttpHooks, guardStreamingDownloads, isStreamingDownload } from './file-download.js';
import {
  browserNavigationHooks,
  guardSendRequest,
  type HopChecker,
  type HopVerdict,
  httpClientNavigationHooks,
  httpNavigationHook,
} from './navigation.js';
import {
  checkSeedFromSitemapsOptions,
  type ResolvedGuardOptions,
  type RobotsGuardOptions,
  type RobotsSeedFromSitemapsOptions,
  resolveGuardOptions,
} from './options.js';
import { chromiumPreloadsNothing } from './preloading.js';
import { droppedRecord, type RobotsDropReason, type RobotsDropStage } from './record.js';
import {
  type DequeueDecision,
  queueKeyOf,
  type RequestGate,
  RequestManagerInterceptor,
} from './request-manager.js';
import { isRobotsSkip, type NavigationBlock, robotsSkip } from './skip.js';
import { formatSummary, type RobotsRunSummary, RunTally } from './summary.js';
import { WeakList } from './weak-list.js';

/** Stores shared by the guards of a process that have no store of their own: one per User-Agent and proxy. */
const sharedStores = new Map<string, RobotsStore>();

/**
 * What to do with each request whose navigation a guard stopped, read in the crawler's error path.
 * Shared by the guards of a process: of two guards on one crawler, the one attached last handles
 * the errors first, and must carry out the other's deferral rather than take it for a skip.
 */
const navigationBlocks = new WeakMap<Request, NavigationBlock>();

/** Origins resolved at the same time when URLs are added. */
const ADMIT_CONCURRENCY = 64;
/** Records of a sitemap's dropped URLs waiting to be written before the seeder waits for them. */
const DROP_BACKLOG = 1000;

/**
 * How many URLs recorded at the stages `enqueue`, `sitemap` and `dequeue` each dataset remembers,
 * so that adding one again records nothing (see #drop): sitemaps of millions of disallowed URLs
 * keep a bounded memory (about 10 MB); one dropped again after that gets a second record.
 */
const DROPPED_URLS_KEPT = 100_000;
/**
 * How long past its delay a redirect hop's slot is kept for the request deferred to it (see
 * #paceHop): the page that redirects is loaded again first, which in a browser may take seconds.
 */
const HOP_SLOT_GRACE_MS = 30_000;
/** Below this many requests with a kept hop slot, #hopSlots is not swept. */
const HOP_SLOTS_SWEEP_MIN = 1024;
/**
 * How many requests of one origin may wait for their Crawl-delay slots before the guard warns
 * that they are held in memory and locked in the queue (see #warnManyPaced).
 */
const MANY_PACED_REQUESTS = 5000;
/**
 * A request its Crawl-delay slot let go at most this much too soon after the last one handed out
 * waits for the rest of the delay, without a new slot (see CrawlDelayPacer.grantableAt).
 */
const REPACE_SLACK_MS = 50;
/**
 * What the turns of a store's backend (a fleet's, see #claimFleetTurn) add to the Crawl-delay: the
 * processes of a fleet each pace how their own requests go out, but not how the others' do, and a
 * request slower to leave than another process's must still not reach the site within the delay
 * of the one before.
 */
const FLEET_MARGIN_MS = 100;

/**
 * What the guard decides for a URL, from a store check: `allow`, `drop` (recorded), or `defer`
 * while the origin's robots.txt is unreachable.
 */
type UrlVerdict =
  | { kind: 'allow'; crawlDelayMs: number }
  | { kind: 'drop'; reason: RobotsDropReason; crawlDelaySeconds?: number }
  | { kind: 'defer'; until: number };

/**
 * Makes a Crawlee crawler obey robots.txt (RFC 9309) everywhere it can fetch, and leaves a record
 * of every URL it did not fetch in a Dataset (`robots-dropped` by default).
 *
 * `attach(crawler)` wraps the crawler's request manager (URLs are checked when they are added and
 * again when they are taken out), checks every redirect hop (HTTP crawlers: got's `beforeRedirect`,
 * or, with a custom `httpClient`, its `followRedirect` option and the URLs it reached;
 * PlaywrightCrawler with Chromium: a CDP `Fetch` interception before the first `goto`, and popups
 * stopped in the browser, their URLs enqueued instead), defers the URLs of origins whose robots.txt
 * is unreachable, paces origins that ask for a `Crawl-delay` (redirect hops into them included),
 * and logs a summary at the end of `crawler.run()`. Skipped requests are marked handled: never
 * failed, never retried. The user's `onSkippedRequest`, hooks and router keep working.
 *
 * @example
 * import { CheerioCrawler } from 'crawlee';
 * import { RobotsGuard } from 'crawlee-robots';
 *
 * const guard = new RobotsGuard({
 *   productToken: 'ExampleBot',
 *   userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)',
 * });
 * const crawler = new CheerioCrawler({
 *   async requestHandler({ request, $, enqueueLinks }) {
 *     console.log(request.loadedUrl, $('title').text());
 *     await enqueueLinks();
 *   },
 * });
 * guard.attach(crawler);
 * await crawler.run(['https://example.com/']);
 * console.log(guard.summary().totals);
 */
export class RobotsGuard implements HopChecker {
  /** The product token rules are matched for (lower case). */
  readonly productToken: string;
  /** The User-Agent the crawler is made to send, if one was given. */
  readonly userAgent: string | undefined;

  readonly #options: ResolvedGuardOptions;
  readonly #log: Log;
  readonly #givenStore: RobotsStore | undefined;
  #store: Promise<RobotsStore> | undefined;
  /**
   * The dataset of dropped URLs in the storage of each crawler the guard is attached to, by its
   * configuration: weak, as that holds the crawler's whole storage, which a long-lived guard
   * attached to crawler after crawler would otherwise keep (17 MB a crawler).
   */
  readonly #datasets = new WeakMap<Configuration, DroppedDataset>();
  /** The same datasets, to flush them all. */
  readonly #allDatasets = new WeakList<DroppedDataset>();
  /** The dataset of the drops of no crawler (a seeding before any attach). */
  #datasetOfNone: DroppedDataset | undefined;
  /** Records that could not be written, in all datasets (each failure is logged with its URLs). */
  #unwritten = 0;
  /** The calls of crawlers' `onSkippedRequest` not returned yet (awaited by flush). */
  readonly #skipCallbacks = new Set<Promise<void>>();
  readonly #tally = new RunTally();
  /** The Crawl-delay pacer, shared with the guards of the same store and product token (see #pacer). */
  #sharedPacer: CrawlDelayPacer | undefined;
  /** Stands in before the guard has a store, when nothing can be paced yet. */
  readonly #ownPacer = new CrawlDelayPacer();
  /**
   * When each unreachable origin was first deferred (the give-up clock), and the store's start of
   * the outage that deferral was in (OriginPolicy.unreachableSince), once known.
   */
  readonly #deferrals = new Map<string, { since: number; outage: number | undefined }>();
  /** Origins whose robots.txt a request taken out of the queue waited for in vain, until the fetch settles (see #resolveAndDecide). */
  readonly #slowOrigins = new Map<string, Promise<void>>();
  /** Requests waiting aside for their origin's robots.txt (see #resolveAndDecide), until decided. */
  readonly #heldForRobots = new Set<string>();
  /**
   * Requests deferred and not decided since: each is counted once however many times it is
   * deferred, over the runs of the guard, as the summary counts.
   */
  readonly #deferredRequests = new Set<string>();
  /** Requests counted as allowed in the summary. */
  readonly #countedAllowed = new WeakSet<Request>();
  /**
   * Requests counted as allowed that the crawler gave back unfetched, by id: the queue hands each
   * out again as a new object, which must not be counted again.
   */
  readonly #returnedUnfetched = new Set<string>();
  /** The origins whose many requests waiting for a Crawl-delay slot were warned about. */
  readonly #warnedPaced = new Set<string>();
  /** The Crawl-delay of each origin, and until when its policy holds. */
  readonly #crawlDelays = new CrawlDelayCache();
  /**
   * Per request, the origins whose Crawl-delay slot a redirect hop of it has taken while the
   * request waits for it, each with the time the slot ends: the hop uses that slot when the
   * request is fetched again within it. Once a hop entered the origin, the time it did, negated
   * (see #paceHop). A request that never comes back (it failed, or no longer redirects there)
   * leaves an entry that the next sweep removes.
   */
  readonly #hopSlots = new Map<string, Map<string, number>>();
  /**
   * Per request deferred at a redirect hop into an origin whose robots.txt is unreachable, that
   * hop's URL: the request is decided by that origin while it stays unreachable, and the page
   * that redirects is fetched again only once it answers (or never, when the request is given
   * up). Forgotten when the request is released past it or given up, and when a run starts.
   */
  readonly #deferredHops = new Map<string, string>();
  /** The size of #hopSlots at which it is swept next. */
  #hopSlotsSweepAt = HOP_SLOTS_SWEEP_MIN;
  /** The interceptor of each crawler attached; weak, so that a crawler done with is let go. */
  readonly #interceptors = new WeakMap<CrawlerInternals, RequestManagerInterceptor>();
  /** The crawlers attached, for a middleware whose context names none. */
  readonly #attached = new WeakList<CrawlerInternals>();
  /** The `onSkippedRequest` of the `enqueueLinks` call whose URLs are being added, if it has one. */
  readonly #enqueueLinksCallback = new AsyncLocalStorage<SkippedRequestCallback>();
  /** Runs of the crawlers of this guard going on now. */
  #runs = 0;
  /** @internal {@link HopChecker}: the crawler's User-Agent was seen (and warned about if needed). */
  userAgentObserved = false;

  constructor(options: RobotsGuardOptions) {
    const token = typeof options?.productToken === 'string' ? productTokenOf(options.productToken) : '';
    if (!isProductToken(token)) {
      throw new TypeError(
        `RobotsGuard needs the crawler's product token, the name robots.txt groups address (letters, "-" and "_"), alone or in a User-Agent header: new RobotsGuard({ productToken: 'ExampleBot' }); got ${JSON.stringify(options?.productToken)}.`,
      );
    }
    this.#options = resolveGuardOptions(options);
    this.productToken = token;
    this.userAgent = options.userAgent;
    this.#log = (options.log ?? crawleeLog).child({ prefix: 'RobotsGuard' });
    this.#givenStore = options.store;
    // A name of one word is read as robots.txt reads a user-agent line: up to its first character
    // outside letters, "-" and "_". Bot2000 is bot, Bötchen is b, as sites' lines naming them are.
    const word = options.productToken.trim();
    if (!/[\s/();]/.test(word) && token !== word.toLowerCase()) {
      this.#log.warning(
        `The productToken "${word}" is read as "${token}": robots.txt names crawlers by letters, "-" and "_" only, up to the first other character (RFC 9309 2.2.1). Name the crawler with those characters alone.`,
      );
    }
    if (options.userAgent !== undefined) this.observeUserAgent(options.userAgent);
    const storeAgent = options.store?.userAgent;
    if (options.userAgent !== undefined && storeAgent !== undefined && storeAgent !== options.userAgent) {
      // A site sees robots.txt fetched by one client and pages by another, and may answer each its own way.
      this.#log.warning(
        `The crawler is made to send User-Agent "${options.userAgent}", but robots.txt is fetched with "${storeAgent}", the store's. Give both the same User-Agent.`,
      );
    }
  }

  /**
   * Registers the guard on a crawler (any BasicCrawler subclass), right after it is constructed and
   * before `run()`. Returns the guard.
   *
   * @throws TypeError when the object is not a Crawlee crawler, or the guard is attached twice.
   */
  attach(crawler: Pick<BasicCrawler, 'run' | 'addRequests' | 'stats'>): this {
    const internals = crawler as unknown as CrawlerInternals;
    if (
      typeof internals?._requestFunctionErrorHandler !== 'function' ||
      typeof internals.run !== 'function'
    ) {
      throw new TypeError('RobotsGuard.attach() expects a Crawlee crawler (a BasicCrawler subclass).');
    }
    if (this.#interceptors.has(internals)) {
      throw new TypeError('This RobotsGuard is already attached to this crawler.');
    }
    if (internals.running) {
      throw new TypeError(
        'RobotsGuard.attach() must come before crawler.run(): this crawler is running, and what it took out of its queue already would go unchecked.',
      );
    }
    this.#takeProxyOf(internals);
    this.#datasetOf(internals).writtenBy(internals);
    const interceptor = new RequestManagerInterceptor(this.#gateFor(internals), this);
    this.#interceptors.set(internals, interceptor);
    this.#attached.add(internals);
    this.#replaceBuiltinCheck(internals);
    // An enqueueLinks call's own onSkippedRequest hears of the URLs the guard drops from it, as it
    // would of those Crawlee's own robots.txt check skips.
    aroundEnqueueLinks(internals, (options, call) => {
      const callback = options?.onSkippedRequest;
      return typeof callback === 'function' ? this.#enqueueLinksCallback.run(callback, call) : call();
    });

    // DESIGN.md: the request manager is the one choke point of every add path and of dequeueing.
    const wrap = (value: unknown) => interceptor.wrap(value);
    const unwrap = (value: unknown) => interceptor.unwrap(value);
    const rewrap = interceptRequestManager(internals, wrap, unwrap);

    // Navigation checks: appended, so the user's hooks (which may replace gotOptions.hooks) run first.
    const kind = crawlerKindOf(internals);
    // A BasicCrawler's handler sends its request itself: paced as it does.
    guardSendRequest(internals, this.userAgent, kind === 'basic' ? this : undefined);
    let browserBlockOf: ((context: object, error: Error) => NavigationBlock | undefined) | undefined;
    /** The guard's own hooks of an HTTP crawler, for a FileDownload that streams without navigating. */
    const httpHooks: Omit<GuardHttpHooks, 'beforeHandler'> = {
      pre: [],
      post: [],
      answered: (url) => this.answered(url),
    };
    if (kind === 'http') {
      // A hook of the user's may point the request at another URL (`request.url = ...`, or a `url`
      // in the got options, which Crawlee lets override it) after it was checked at dequeue, and an
      // HTTP crawler fetches that URL when the hooks are done: it is checked first, as a browser
      // crawler checks a goto of the hooks.
      const dequeuedUrls = new WeakMap<Request, string>();
      internals.preNavigationHooks!.unshift(({ request }: { request: Request }) => {
        dequeuedUrls.set(request, request.url);
      });
      internals.preNavigationHooks!.push(
        async ({ request }: { request: Request }, gotOptions?: { url?: unknown }) => {
          const checked = dequeuedUrls.get(request);
          const url = gotOptions?.url === undefined ? request.url : String(gotOptions.url);
          if (checked === undefined || checked === url) return;
          dequeuedUrls.set(request, url);
          const verdict = await this.checkHop(internals, request, url, 'navigation', true, undefined, false);
          if (verdict === 'allow') return;
          this.block(request, verdict);
          throw robotsSkip(withoutCredentials(url), 'navigation');
        },
      );
    }
    if (kind === 'http' && sendsThroughGotScraping(internals)) {
      const hook = httpNavigationHook(this, internals, this.userAgent);
      httpHooks.pre.push(hook);
      internals.preNavigationHooks!.push(hook);
    } else if (kind === 'http') {
      // A custom httpClient may ignore got's hooks: its hops go through followRedirect, and what
      // it followed unasked is checked before any other postNavigationHook or handler runs.
      const hooks = httpClientNavigationHooks(this, internals, this.userAgent, httpClientNameOf(internals));
      httpHooks.pre.push(hooks.pre);
      httpHooks.post.push(hooks.post);
      internals.preNavigationHooks!.push(hooks.pre);
      internals.postNavigationHooks?.unshift(hooks.post);
    } else if (kind === 'browser') {
      // Popups are stopped in the browser and their URLs added as requests, checked like any other.
      // The run waits for a new popup's navigation, and for the add (a new origin's robots.txt
      // may take seconds): it would otherwise end first, and leave the popup's URL unseen, or in
      // the queue, neither crawled nor recorded.
      const hooks = browserNavigationHooks(this, internals, this.userAgent, {
        enqueue: (url) => interceptor.whileBusy(crawler.addRequests([url])),
        hold: (work) => void interceptor.whileBusy(work),
      });
      // AdaptivePlaywrightCrawler fetches the pages it predicts to be static without the browser:
      // those runs are checked as an HTTP crawler's are, and the browser hooks leave them alone.
      if (isAdaptive(internals)) {
        const plainHttpHooks = (checker: HopChecker) =>
          sendsThroughGotScraping(internals)
            ? { pre: httpNavigationHook(checker, internals, this.userAgent), pacedAsSent: true }
            : httpClientNavigationHooks(checker, internals, this.userAgent, httpClientNameOf(internals));
        guardPlainHttpRuns(internals, {
          run: plainHttpHooks(this),
          detection: plainHttpHooks(this.#detectionChecks()),
          detectionMayFetch: (request) => this.#detectionMayFetch(request),
          leavesNow: (url) => this.leavesNow(url),
          answered: (url) => this.answered(url),
          stoppedByGuard: (error, request) => navigationBlocks.has(request) || isRobotsSkip(error),
        });
      }
      const inBrowser =
        <C>(hook: (context: C) => unknown) =>
        (context: C & { request: Request }) =>
          plainRunOf(context.request) === undefined ? hook(context) : undefined;
      // The page is watched before the user's hooks run, so their gotos are checked too; only
      // the goto between the last pre hook and the first post hook is the crawler's own.
      internals.preNavigationHooks!.unshift(inBrowser(hooks.pre));
      internals.preNavigationHooks!.push(inBrowser(hooks.navigate));
      internals.postNavigationHooks?.unshift(inBrowser(hooks.post));
      onPageCreated(internals, hooks.pageCreated);
      if (this.userAgent !== undefined) browserSendsUserAgent(internals, this.userAgent);
      chromiumPreloadsNothing(internals);
      browserBlockOf = hooks.blockOf;
    }
    // Crawl-delay again as the request goes out (see #beforeSend), after the user's hooks.
    const crawlDelayHook = async ({ request }: { request: Request }) => {
      // An HTTP-only run of AdaptivePlaywrightCrawler, or undefined.
      const plain = plainRunOf(request);
      // A detection fetch robots.txt no longer allows is stopped before it takes a slot.
      if (plain?.detection && !(await this.#detectionMayFetch(request))) {
        throw new DetectionStopped(withoutCredentials(request.url));
      }
      const wait = this.#beforeSend(request.url);
      if (wait <= 0) return;
      await waitFor(wait);
      // The run may have timed out meanwhile (the request then goes to the browser, or is
      // counted), and a detection run's request was handled by the browser already: neither is
      // decided again here (a detection run checks its fetch itself).
      if (plain?.ended) throw new PlainRunEnded(request.url);
      if (plain?.detection) return;
      // A wait may last a whole Crawl-delay, in which robots.txt may have been read again.
      const block = await this.#recheck(internals, request, () => plain?.ended === true);
      if (plain?.ended) throw new PlainRunEnded(request.url);
      if (block === undefined) return;
      navigationBlocks.set(request, block);
      throw robotsSkip(request.url, 'dequeue');
    };
    internals.preNavigationHooks?.push(crawlDelayHook);
    if (kind === 'http' && isStreamingDownload(internals)) {
      guardStreamingDownloads(internals, { ...httpHooks, beforeHandler: crawlDelayHook });
    }
    if (kind === 'http') {
      // got sends a request some time after the last hook: tens of milliseconds for a new
      // connection. The server had it by the time its response came, so the origin's next request
      // follows the response by the delay. First among the post hooks: Crawlee's own first one
      // throws for a content type it does not take.
      internals.postNavigationHooks?.unshift(({ request }: { request: Request }) => {
        this.answered(request.url);
        if (request.loadedUrl !== undefined && request.loadedUrl !== request.url)
          this.answered(request.loadedUrl);
      });
    }

    // Skips raised inside processing (redirects, navigations, the middleware) become skips or
    // deferrals here, before Crawlee counts a failure or schedules a retry.
    const handleError = internals._requestFunctionErrorHandler;
    internals._requestFunctionErrorHandler = async (error, context, source) => {
      const { request } = context;
      let block = navigationBlocks.get(request) ?? browserBlockOf?.(context, error);
      if (block === undefined && isRobotsSkip(error)) block = { action: 'skip' };
      if (block === undefined) return handleError.call(internals, error, context, source);
      navigationBlocks.delete(request);
      forgetStatisticsJob(internals, request);
      // Crawlee marks the session bad after every error it handled. A skip or a deferral says
      // nothing about the session: counted, a few of them would retire it, and on a browser
      // crawler the browser with it.
      (context as { session?: unknown }).session = undefined;
      if (block.action === 'defer') {
        interceptor.hold(source, request, block.until, false, block.wake);
        return;
      }
      request.noRetry = true;
      request.state = RequestState.SKIPPED;
      // Its record first (see RequestGate.recorded).
      await this.#datasetOf(internals).flush();
      await (source as { markRequestHandled(request: Request): Promise<unknown> }).markRequestHandled(
        request,
      );
      if (!block.told) this.#tellSkipped(internals, request.url);
    };

    const run = internals.run;
    let starting = false;
    internals.run = async (...args: unknown[]) => {
      // Refused by Crawlee while a run goes on: that run's held requests stay held.
      if (internals.running || starting) return run.apply(internals, args);
      // The store first, so that the run is counted by the Crawl-delay pacer it shares with the
      // other guards of the store (a store that cannot be made fails the crawl's first check).
      if (this.#givenStore === undefined && this.#settledStore === undefined) {
        starting = true;
        await this.#storeFor()
          .catch(() => undefined)
          .finally(() => {
            starting = false;
          });
      }
      // A queue the user assigned to the crawler since: wrapped before the crawl reads it.
      rewrap();
      // Each run gives an unreachable origin's URLs their whole wait again (giveUpAfterMs): a
      // run of the URLs given up before is how they are tried later. Not while another crawler of
      // the guard runs: its deferred requests would wait longer.
      if (this.#runs === 0) {
        this.#deferrals.clear();
        this.#heldForRobots.clear();
        this.#deferredHops.clear();
        this.#returnedUnfetched.clear();
      }
      this.#runs++;
      const pacer = this.#pacer;
      pacer.runStarted();
      try {
        return await run.apply(internals, args);
      } finally {
        const givenBack = await interceptor.dispose();
        if (givenBack > 0) this.#log.info(givenBackMessage(givenBack, internals));
        // The Crawl-delay slots of the requests given back are free, unless another crawler of
        // the pacer still runs with requests waiting for theirs. The URLs recorded are remembered
        // for one run (with the seeding before it): a later run that drops them again records
        // them, counts them and tells onSkippedRequest again.
        pacer.runEnded();
        if (--this.#runs === 0) for (const dataset of this.#allDatasets.values()) dataset.forgetDrops();
        await this.flush();
        if (this.#options.logSummary) this.#log.info(formatSummary(this.summary()));
      }
    };
    return this;
  }

  /**
   * Turns off Crawlee's own `respectRobotsTxtFile`. Left on, it reads robots.txt for the `*` group
   * (or a User-Agent of its own) and skips, with a log line only, URLs the guard would allow: they
   * never reach the guard, so no record, no count in the summary.
   */
  #replaceBuiltinCheck(crawler: CrawlerInternals): void {
    if (!crawler.respectRobotsTxtFile) return;
    crawler.respectRobotsTxtFile = false;
    this.#log.warning(
      `The crawler's respectRobotsTxtFile option is turned off: RobotsGuard checks robots.txt for "${this.productToken}" and records every URL it skips, while Crawlee's own check would skip URLs with no record. Leave the option out when you attach a guard.`,
    );
  }

  /**
   * A router middleware that keeps the handlers from processing a page whose final URL
   * (`request.loadedUrl`; on a browser crawler, the URL the page's document came from) is
   * disallowed: `router.use(guard.middleware())`. Such a request is skipped and recorded with
   * stage `navigation`. It needs the guard attached to the crawler. The crawler is read from the
   * crawling context; AdaptivePlaywrightCrawler's context has none, so there the guard's one
   * crawler is used, or the one given: `guard.middleware(crawler)`.
   */
  middleware(
    forCrawler?: Pick<BasicCrawler, 'run'>,
  ): (context: { request: Request; crawler?: unknown; response?: unknown }) => Promise<void> {
    return async ({ request, crawler: ofContext, response }) => {
      const crawler = ofContext ?? forCrawler ?? this.#onlyCrawler();
      // A browser's page: the URL its document was fetched from (Playwright's response, whose
      // `url` AdaptivePlaywrightCrawler hands on as a string), not `loadedUrl`, the address bar,
      // which a script may have changed without any fetch (`history.pushState`). An HTTP
      // crawler's response URL is its `loadedUrl`.
      const fetched = (response as { url?: unknown } | undefined)?.url;
      const url =
        typeof fetched === 'function'
          ? String(fetched.call(response))
          : typeof fetched === 'string' && fetched !== ''
            ? fetched
            : (request.loadedUrl ?? request.url);
      // In a detection run the browser has handled the request: a URL robots.txt no longer
      // allows ends that run, with no record.
      if (plainRunOf(request)?.detection) {
        if ((await this.#detectionHop(request, url, undefined)) !== 'allow')
          throw new DetectionStopped(withoutCredentials(url));
        return;
      }
      const verdict = await this.checkHop(
        crawler as CrawlerInternals,
        request,
        url,
        'navigation',
        true,
        undefined,
        false,
      );
      if (verdict === 'allow') return;
      this.block(request, verdict);
      throw robotsSkip(withoutCredentials(url), 'navigation');
    };
  }

  /** The crawler the guard is attached to, for a middleware whose context names none. */
  #onlyCrawler(): CrawlerInternals {
    const attached = this.#attached.values();
    if (attached.length === 1) return attached[0];
    throw new TypeError(
      `RobotsGuard.middleware(): the crawling context names no crawler (AdaptivePlaywrightCrawler's does not), and the guard is attached to ${attached.length} crawlers: pass the crawler, guard.middleware(crawler).`,
    );
  }

  /**
   * The run summary so far: per origin the robots.txt status and age, URLs allowed, dropped,
   * deferred and given up, and the rules that dropped the most.
   */
  summary(): RobotsRunSummary {
    // A store the user closed has no policies to show: the counts stand without them.
    return this.#tally.summary(
      this.productToken,
      (origin) => this.#policyOf(`${origin}/`),
      this.#options.clock(),
      this.#unwritten,
    );
  }

  /**
   * Resolves when every record is written to the Dataset and every `onSkippedRequest` call has
   * returned (done at the end of `crawler.run()`).
   */
  async flush(): Promise<void> {
    await Promise.all([
      ...this.#allDatasets.values().map((dataset) => dataset.flush()),
      ...this.#skipCallbacks,
    ]);
  }

  /** The dataset of dropped URLs in the crawler's storage (its configuration's storage client). */
  #datasetOf(crawler: CrawlerInternals | undefined): DroppedDataset {
    const config = crawler?.config;
    let dataset = config === undefined ? this.#datasetOfNone : this.#datasets.get(config);
    if (dataset === undefined) {
      dataset = new DroppedDataset(this.#options.datasetName, this.#log, DROPPED_URLS_KEPT, (count) => {
        this.#unwritten += count;
      });
      if (config === undefined) this.#datasetOfNone = dataset;
      else {
        dataset.useConfiguration(config);
        this.#datasets.set(config, dataset);
      }
      this.#allDatasets.add(dataset);
    }
    return dataset;
  }

  /**
   * Seeds `crawler` from sitemaps, robots.txt first: the `Sitemap:` lines of each site's
   * robots.txt (read through the store, so no extra robots.txt request) and any sitemap URLs
   * given, every format streamed, each URL checked against its origin's robots.txt before it
   * is added with `crawler.addRequests` in batches. Disallowed URLs are recorded in the
   * dropped-requests dataset with stage `sitemap`. Usable before `crawler.run()` and during it.
   *
   * @example
   * const result = await guard.seedFromSitemaps(crawler, ['https://example.com/'], { label: 'PRODUCT' });
   * console.log(`${result.kept} URLs queued, ${result.droppedByRobots} disallowed by robots.txt`);
   * await crawler.run();
   */
  async seedFromSitemaps(
    crawler: Pick<BasicCrawler, 'addRequests'>,
    inputs: readonly SitemapSeedInput[],
    options: RobotsSeedFromSitemapsOptions = {},
  ): Promise<SitemapSeedResult> {
    checkSeedFromSitemapsOptions(options);
    const internals = crawler as unknown as CrawlerInternals;
    // Crawlee reads a crawler without a request manager as finished: a run started with no URL
    // and no queue would end at once, before the first seeded URL. The queue is made now.
    const queue = internals.getRequestQueue?.();
    const seeding = (async () => {
      await queue;
      return this.#seed(crawler, internals, inputs, options);
    })();
    // Seeding during crawler.run(): the run waits for the URLs still to come rather than ending
    // when its queue is empty and leaving them in it. Marked before the first wait: a run started
    // in the same tick with an empty queue would otherwise end before the seeding began.
    const interceptor = this.#interceptors.get(internals);
    return interceptor === undefined ? seeding : interceptor.whileBusy(seeding);
  }

  async #seed(
    crawler: Pick<BasicCrawler, 'addRequests'>,
    internals: CrawlerInternals,
    inputs: readonly SitemapSeedInput[],
    options: RobotsSeedFromSitemapsOptions,
  ): Promise<SitemapSeedResult> {
    const store = await this.#storeFor();
    const { proxyUrl, timeoutMs, connectTimeoutMs, ...seedOptions } = options;
    const seeder = new SitemapSeeder({
      store,
      productToken: this.productToken,
      proxyUrl,
      timeoutMs,
      connectTimeoutMs,
      log: this.#log,
    });
    const { enabled, maxSeconds, overMax } = this.#options.crawlDelay;
    const now = () => this.#options.clock();
    const seeding = seeder.seed(inputs, {
      ...seedOptions,
      // URLs of an origin whose robots.txt is unreachable are queued: the guard defers them. Given
      // as undefined, the option is not given.
      enqueueWhenRobotsUnreachable: seedOptions.enqueueWhenRobotsUnreachable ?? true,
      enqueue: async (batch) => {
        await crawler.addRequests(batch);
      },
      // An origin whose Crawl-delay the guard will not wait for: its URLs would be dropped as
      // they are added, so they are dropped here, and the seeder's counts say so.
      ...(enabled && overMax === 'skip'
        ? { keep: (check: RobotsCheck) => !((this.#crawlDelayOf(check, now()) ?? 0) > maxSeconds) }
        : {}),
      onDropped: ({ url, check }) => {
        if (check.allowed) {
          const seconds = this.#crawlDelayOf(check, now());
          this.#drop(internals, check, undefined, url, 'sitemap', 'crawl-delay-over-max', seconds);
        } else {
          this.#drop(
            internals,
            check,
            undefined,
            url,
            'sitemap',
            // As at the other stages: a complete disallow for want of robots.txt is no rule of the site.
            check.policyKind === 'disallow-all' ? 'robots-unreachable' : 'disallowed',
          );
        }
        // The seeder waits while records are written: a sitemap of disallowed URLs drops them far
        // faster than a Dataset takes them, and their records would pile up in memory.
        return this.#dropBacklog(internals);
      },
    });
    try {
      return await seeding;
    } finally {
      // Resolved once the records of what it dropped are written, as an add is.
      await this.#datasetOf(internals).flush();
    }
  }

  /** A wait while more than DROP_BACKLOG records or onSkippedRequest calls are pending, else undefined. */
  #dropBacklog(crawler: CrawlerInternals): Promise<void> | undefined {
    const writing = this.#datasetOf(crawler).backlog(DROP_BACKLOG);
    if (this.#skipCallbacks.size <= DROP_BACKLOG) return writing;
    return Promise.all([writing, ...this.#skipCallbacks]).then(() => undefined);
  }

  /**
   * The store this guard decides with: the one given, or the one it makes on first use, which
   * fetches robots.txt through the proxy of the crawler the guard is attached to (see #takeProxyOf).
   */
  async store(): Promise<RobotsStore> {
    this.#takeProxyOf(undefined);
    return this.#storeFor();
  }

  /**
   * @internal {@link HopChecker}: checks a URL a request reaches after it left the queue. `sent`
   * is false for a URL already fetched (the middleware's check of a page): let through, it is no
   * hop followed.
   */
  async checkHop(
    crawler: CrawlerInternals,
    request: Request,
    url: string,
    stage: RobotsDropStage,
    deferrable: boolean,
    from?: string,
    sent = true,
  ): Promise<HopVerdict> {
    const store = await this.#storeFor();
    // A robots.txt that takes long to answer (a silent server: the store's fetch timeout is as long
    // as Crawlee's navigation timeout) would fail the request as a navigation timeout. A hop waits
    // for it up to half its navigation time, leaving the rest for the page. Past that, a request
    // that can wait waits aside until the fetch settles (sooner, the page that redirects would be
    // fetched again for each wait), and is decided then; a frame or a navigation a page starts
    // cannot, and is stopped as for an unreachable robots.txt, so that its page still loads.
    const navigationMs = crawler.navigationTimeoutMillis;
    const waitMs = navigationMs !== undefined ? navigationMs / 2 : Number.POSITIVE_INFINITY;
    const pending = this.#checkAsSent(store, url);
    let check: RobotsCheck | undefined;
    try {
      check = await withDeadline(pending, waitMs);
    } catch (error) {
      if (notHttp(error)) return 'allow'; // data:, about:blank: robots.txt does not apply
      throw error;
    }
    if (check === undefined && !deferrable) {
      const seconds = Math.round(waitMs / 100) / 10;
      check = unansweredCheck(
        url,
        this.productToken,
        `robots.txt had not answered after ${seconds} s, half the navigation timeout, which is as long as a frame or a navigation a page starts waits for it: unreachable for it, everything disallowed (RFC 9309 2.3.1.4).`,
      );
    }
    if (check === undefined) {
      const wake = pending.then(
        () => undefined,
        () => undefined,
      );
      return { action: 'defer', until: this.#options.clock() + Math.max(4 * waitMs, 60_000), wake };
    }
    return this.#hopVerdict(crawler, check, request, url, stage, deferrable, from, sent);
  }

  /**
   * @internal {@link HopChecker}: {@link checkHop} from memory, for callers that cannot wait;
   * undefined when the policy of the URL's origin is not in memory.
   */
  checkHopCached(
    crawler: CrawlerInternals,
    request: Request,
    url: string,
    stage: RobotsDropStage,
    deferrable: boolean,
    from?: string,
  ): HopVerdict | undefined {
    const store = this.#givenStore ?? this.#settledStore;
    if (store === undefined) return undefined;
    let check: RobotsCheck | undefined;
    try {
      check = this.#checkCachedAsSent(store, url);
    } catch (error) {
      if (notHttp(error)) return 'allow'; // robots.txt does not apply
      throw error;
    }
    if (check === undefined) return undefined;
    return this.#hopVerdict(crawler, check, request, url, stage, deferrable, from, true);
  }

  #hopVerdict(
    crawler: CrawlerInternals,
    check: RobotsCheck,
    request: Request,
    url: string,
    stage: RobotsDropStage,
    deferrable: boolean,
    from: string | undefined,
    sent: boolean,
  ): HopVerdict {
    // A redirect of the request into another origin is a request to that origin: it takes that
    // origin's next slot. A hop within one origin takes none: it waits in place as it leaves, a
    // delay after the redirect that sent it (see leavesNow). Nor does a hop back into the
    // request's own origin (A, then B, then A): deferring it would send the request to its origin
    // again, and again.
    const paced = stage === 'redirect' && deferrable && entersOtherOrigin(request, from, check.origin);
    // A hop that cannot wait is dropped at once: it is no deferral.
    const verdict = this.#verdictOf(check, deferrable ? request : undefined, paced);
    if (verdict.kind === 'allow') {
      const hop =
        paced && verdict.crawlDelayMs > 0
          ? this.#paceHop(request, check.origin, verdict.crawlDelayMs)
          : 'allow';
      // Counted at the origin it enters, which may have no request of its own in the summary: once
      // per crossing (a redirect within that origin is none), when it goes (not when deferred for
      // the origin's Crawl-delay).
      if (hop === 'allow' && sent && crossesInto(request, from, check.origin)) {
        this.#tally.hopFollowed(check, this.#options.clock());
      }
      return hop;
    }
    if (verdict.kind === 'defer') {
      if (deferrable) {
        if (stage === 'redirect') this.#deferredHops.set(request.id ?? request.uniqueKey, url);
        return { action: 'defer', until: verdict.until };
      }
      this.#drop(crawler, check, request, url, stage, 'robots-unreachable');
      return { action: 'skip' };
    }
    this.#drop(crawler, check, request, url, stage, verdict.reason, verdict.crawlDelaySeconds);
    return { action: 'skip' };
  }

  /**
   * The checks of the HTTP fetch AdaptivePlaywrightCrawler makes to detect a page's rendering type,
   * after the browser has handled the request. The request is neither dropped nor deferred there,
   * so a hop is never recorded nor told to `onSkippedRequest`: a hop robots.txt does not allow now
   * is not followed, and the detection run fails (as for a page that needs a browser); a hop into
   * another origin waits for that origin's Crawl-delay in place. With a custom `httpClient`, a hop
   * into an origin whose robots.txt is not in memory is not followed either.
   */
  #detectionChecks(): HopChecker {
    const guard = this;
    return {
      checkHop: (_crawler, request, url, _stage, _deferrable, from) => this.#detectionHop(request, url, from),
      checkHopCached: () => undefined,
      block: () => {},
      observeUserAgent: (userAgent) => this.observeUserAgent(userAgent),
      leavesNow: (url) => this.leavesNow(url),
      written: (url) => this.written(url),
      sendWhenDue: (url, capMs) => this.sendWhenDue(url, capMs),
      inLine: (url, capMs) => this.inLine(url, capMs),
      answered: (url) => this.answered(url),
      get userAgentObserved() {
        return guard.userAgentObserved;
      },
    };
  }

  /** Whether a detection run may fetch its request's URL, by robots.txt as it reads now. */
  async #detectionMayFetch(request: Request): Promise<boolean> {
    return (await this.#detectionHop(request, request.url, undefined)) === 'allow';
  }

  async #detectionHop(request: Request, url: string, from: string | undefined): Promise<HopVerdict> {
    const store = await this.#storeFor();
    let check: RobotsCheck;
    try {
      check = await this.#checkAsSent(store, url);
    } catch (error) {
      if (notHttp(error)) return 'allow';
      throw error;
    }
    const verdict = this.#verdictOf(check, undefined, false);
    if (verdict.kind !== 'allow') return { action: 'skip' };
    if (verdict.crawlDelayMs > 0 && entersOtherOrigin(request, from, check.origin)) {
      const wait = this.#pacer.beforeSend(check.origin, verdict.crawlDelayMs, this.#options.clock());
      if (wait > 0) await waitFor(wait);
      // What went out while it waited (see CrawlDelayPacer.leavesNow).
      const rest = this.#pacer.leavesNow(check.origin, verdict.crawlDelayMs, this.#options.clock());
      if (rest > 0) await waitFor(rest);
    }
    return 'allow';
  }

  /**
   * A redirect hop into an origin with a Crawl-delay takes that origin's next slot, as a request
   * taken out of the queue does. Waiting for it in the redirect hook would hold one of the
   * crawler's slots, slowing other origins, and count against its navigation timeout; so a hop
   * whose slot is later defers its request until then (it is fetched again, the redirect asked
   * again) and, when the request comes back to this origin, the hop uses the slot kept for it.
   */
  #paceHop(request: Request, origin: string, delayMs: number): HopVerdict {
    const key = request.id ?? request.uniqueKey;
    const now = this.#options.clock();
    const kept = this.#hopSlots.get(key);
    const keptUntil = kept?.get(origin);
    if (kept !== undefined && keptUntil !== undefined) {
      // Entered by this request lately, in this chain of redirects (A, B, A, B): deferred, the
      // request would start the chain again and come back here, for ever. The loop goes on, its
      // hops still spaced as they leave (see leavesNow), and the redirect limit of the HTTP client
      // or the browser ends it, as it does without the guard.
      if (keptUntil < 0 && now + keptUntil < delayMs + HOP_SLOT_GRACE_MS) {
        this.#pacer.sent(origin, delayMs, now);
        return 'allow';
      }
      kept.delete(origin);
      if (kept.size === 0) this.#hopSlots.delete(key);
      // Back before its slot ends, the hop uses it: as it leaves, it is spaced from what went out
      // late before it (see leavesNow), not deferred again. Later, the slot is gone; a new one.
      if (now < keptUntil) return this.#enterHop(key, origin, delayMs, now);
    }
    const slot = this.#pacer.reserve(origin, delayMs, now);
    // Its slot has come, but the origin's last request may have gone out late (a request held
    // past its own slot): the hop waits for a delay after that one too.
    const until = Math.max(slot, now + this.#pacer.waitToSend(origin, delayMs, now));
    if (until <= now) return this.#enterHop(key, origin, delayMs, now);
    // The slot is kept for as long as the page that redirects may take to load again: a browser
    // that came back after one delay only would find it gone and be deferred again, and again.
    this.#keepHopSlot(key, origin, until + delayMs + HOP_SLOT_GRACE_MS, now);
    return { action: 'defer', until };
  }

  /**
   * A hop of request `key` enters `origin` now; the time it did is kept (negated): a hop of the
   * same chain back into the origin is a loop (see #paceHop).
   */
  #enterHop(key: string, origin: string, delayMs: number, now: number): HopVerdict {
    this.#pacer.sent(origin, delayMs, now);
    this.#keepHopSlot(key, origin, -now, now);
    return 'allow';
  }

  /** Keeps a hop's slot for its request (see #hopSlots), sweeping the slots that have ended. */
  #keepHopSlot(key: string, origin: string, until: number, now: number): void {
    if (this.#hopSlots.size >= this.#hopSlotsSweepAt) {
      for (const [request, slots] of this.#hopSlots) {
        for (const [slotOrigin, end] of slots) if (end <= now) slots.delete(slotOrigin);
        if (slots.size === 0) this.#hopSlots.delete(request);
      }
      // Swept again when it has doubled: a sweep costs its entries once more, at most.
      this.#hopSlotsSweepAt = Math.max(HOP_SLOTS_SWEEP_MIN, this.#hopSlots.size * 2);
    }
    const slots = this.#hopSlots.get(key);
    if (slots === undefined) this.#hopSlots.set(key, new Map([[origin, until]]));
    else slots.set(origin, until);
  }

  /** @internal The requests with a redirect hop's slot kept (see #hopSlots). */
  get keptHopSlots(): number {
    return this.#hopSlots.size;
  }

  /** @internal {@link HopChecker} */
  block(request: Request, block: NavigationBlock): void {
    navigationBlocks.set(request, block);
  }

  /** @internal {@link HopChecker} */
  observeUserAgent(userAgent: unknown): void {
    if (this.userAgentObserved || typeof userAgent !== 'string') return;
    this.userAgentObserved = true;
    if (userAgent.toLowerCase().includes(this.productToken)) return;
    // RFC 9309 2.2.1: crawlers identify themselves with a product token in their User-Agent.
    this.#log.warning(
      `The crawler sends User-Agent "${userAgent}", which does not contain the product token "${this.productToken}": site owners cannot address it in robots.txt. Set RobotsGuard's userAgent option.`,
    );
  }

  #settledStore: RobotsStore | undefined;

  /** The Crawl-delay pacer of the guard's store and product token, once the store is known. */
  get #pacer(): CrawlDelayPacer {
    if (this.#sharedPacer !== undefined) return this.#sharedPacer;
    const store = this.#givenStore ?? this.#settledStore;
    if (store === undefined) return this.#ownPacer;
    this.#sharedPacer = pacerOf(store, this.productToken);
    return this.#sharedPacer;
  }

  /**
   * The store made when none was given fetches robots.txt through the proxy of the crawler the
   * guard was first attached to (or through none, when `store()` made it before any attach), so
   * the site sees the client that fetches its pages (DESIGN.md). A crawler with another
   * `proxyConfiguration` is refused: its robots.txt would go out through another client, or fail
   * where only its proxy reaches the site.
   *
   * @throws TypeError for a crawler whose proxyConfiguration is not the one of the guard's store.
   */
  #takeProxyOf(crawler: CrawlerInternals | undefined): void {
    if (this.#givenStore !== undefined) return;
    if (this.#proxyOf === undefined) {
      this.#proxyOf = { attached: crawler !== undefined, proxy: crawler?.proxyConfiguration };
      return;
    }
    if (crawler === undefined || this.#proxyOf.proxy === crawler.proxyConfiguration) return;
    const made = !this.#proxyOf.attached
      ? "guard.store() made the guard's store, without a proxy, before the guard was attached to a crawler; this crawler has a proxyConfiguration. Call guard.store() after attach(),"
      : 'the guard fetches robots.txt through the proxyConfiguration of the crawler it was first attached to, and this crawler has another one: its sites would see another client fetch robots.txt than its pages, or none where only its proxy reaches them. Attach a RobotsGuard of its own to it,';
    throw new TypeError(
      `RobotsGuard: ${made} or give the guard a store: new RobotsGuard({ store: new RobotsStore({ userAgent, proxyUrl }) }).`,
    );
  }

  /**
   * The proxyConfiguration the guard's own store uses (see #takeProxyOf): that of the crawler it
   * was first attached to (`attached`), or none, made before any attach. Not the crawler itself,
   * which would then be kept for the guard's life.
   */
  #proxyOf: { attached: boolean; proxy: CrawlerInternals['proxyConfiguration'] } | undefined;

  /** The given store, or the guard's own (see #takeProxyOf), made on first use. */
  #storeFor(): Promise<RobotsStore> {
    if (this.#givenStore !== undefined) return Promise.resolve(this.#givenStore);
    const proxy = this.#proxyOf?.proxy;
    if (this.#store === undefined) {
      const making = (async () => {
        const userAgent = this.userAgent ?? `Mozilla/5.0 (compatible; ${this.productToken})`;
        // robots.txt goes through the crawler's proxy, so the site sees the same client (DESIGN.md).
        // Asked for with a session id, as Crawlee asks with its session pool: a newUrlFunction may
        // rely on one, and proxyUrls keep one proxy per session.
        const proxyUrl = (await proxy?.newUrl(ROBOTS_SESSION_ID)) ?? undefined;
        const key = `${userAgent}\n${proxyUrl ?? ''}`;
        let store = sharedStores.get(key);
        if (store === undefined) {
          store = new RobotsStore({ userAgent, productToken: this.productToken, proxyUrl });
          sharedStores.set(key, store);
        }
        this.#settledStore = store;
        return store;
      })();
      this.#store = making;
      // A proxy URL that could not be had (a proxy service's hiccup) is asked for again next time.
      making.catch(() => {
        if (this.#store === making) this.#store = undefined;
      });
    }
    return this.#store;
  }

  /** The request manager's view of the guard for one crawler. */
  #gateFor(crawler: CrawlerInternals): RequestGate {
    return {
      now: () => this.#options.clock(),
      // A pool that cannot be told looks for the request at its next look instead.
      ready: () =>
        void Promise.resolve(crawler.autoscaledPool)
          .then((pool) => pool?.notify?.())
          .catch(() => undefined),
      admit: (urls, lists, sources) => this.#admit(crawler, urls, lists, sources),
      release: (request, paced) => this.#release(crawler, request, paced),
      recorded: () => this.#datasetOf(crawler).flush(),
      stoppedAdding: (error, read) =>
        this.#log.error(
          `Adding requests stopped after the first ${read}; the rest were not added, since they could not be checked against robots.txt: ${error.message}`,
        ),
      releaseFailed: (error) => {
        // Several tasks may meet the closed store at once: one message per stop.
        if (crawler.unexpectedStop === true) return;
        this.#log.error(
          `A request taken out of the queue could not be checked against robots.txt: ${error.message} It went back to the queue, and the crawler stops, since nothing can be fetched unchecked; a run with a store that works crawls what is left.`,
        );
        crawler.stop?.(
          'RobotsGuard stopped the crawler: requests can no longer be checked against robots.txt.',
        );
      },
      returned: (request) => {
        // A retry was counted by its first attempt; one given back before any attempt (Crawlee
        // counts each attempt in retryCount first) was counted when it was let through.
        if (request.retryCount === 0 && this.#countedAllowed.has(request)) {
          this.#returnedUnfetched.add(request.id ?? request.uniqueKey);
        }
      },
    };
  }

  /**
   * URLs being added: each is checked from memory; the origins not in memory are resolved
   * together (each once: the store shares a running fetch), then their URLs are checked.
   * Disallowed URLs never enter the queue; URLs of unreachable or still unresolved origins enter
   * it and are decided when taken out.
   */
  async #admit(
    crawler: CrawlerInternals,
    urls: readonly (string | undefined)[],
    lists: ReadonlySet<number> | undefined,
    sources: readonly (Source | string)[],
  ): Promise<boolean[]> {
    const store = this.#givenStore ?? this.#settledStore ?? (await this.#storeFor());
    const checks = urls.map((url) => (url === undefined ? undefined : this.#checkCached(store, url)));
    /** The URLs (their indexes) of each origin not in memory. */
    const unresolved = new Map<string, number[]>();
    urls.forEach((url, i) => {
      if (url === undefined || checks[i] !== undefined) return;
      try {
        const origin = originOf(url);
        const indexes = unresolved.get(origin);
        if (indexes === undefined) unresolved.set(origin, [i]);
        else indexes.push(i);
      } catch {
        // not an http(s) URL: Crawlee decides what to do with it
      }
    });
    if (unresolved.size > 0) {
      // Each URL is checked against the policy its origin's fetch gave (one fetch per origin, which
      // every check of it shares), not read back from memory: an add of more new origins than the
      // store holds would find the first ones gone, let their URLs in unchecked, and fetch again.
      const checkAll = (indexes: number[]) =>
        Promise.all(
          indexes.map(async (i) => {
            checks[i] = await this.#checkAsSent(store, urls[i] as string);
          }),
        );
      await withDeadline(
        forEachConcurrently([...unresolved.values()], ADMIT_CONCURRENCY, checkAll),
        this.#options.enqueueWaitMs,
      );
    }
    // A list Crawlee downloads during the add is never checked again: it waits for its robots.txt
    // however long that takes (the store's timeouts bound it).
    for (const i of lists ?? []) {
      const url = urls[i];
      if (url === undefined || checks[i] !== undefined) continue;
      try {
        checks[i] = await this.#checkAsSent(store, url);
      } catch (error) {
        if (!notHttp(error)) throw error;
      }
    }
    const dropped: string[] = [];
    const keep = urls.map((url, i) => {
      if (url === undefined) return true;
      // A check that failed or is still running: from memory, which throws for a closed store.
      const check = checks[i] ?? (unresolved.size > 0 ? this.#checkCached(store, url) : undefined);
      if (check === undefined) return true;
      const verdict = this.#verdictOf(check, undefined, false);
      if (verdict.kind === 'allow' || (verdict.kind === 'defer' && !lists?.has(i))) return true;
      // A list whose robots.txt is unreachable cannot wait in the queue: it is given up at once.
      const reason = verdict.kind === 'defer' ? 'robots-unreachable' : verdict.reason;
      const delay = verdict.kind === 'drop' ? verdict.crawlDelaySeconds : undefined;
      this.#drop(crawler, check, undefined, url, 'enqueue', reason, delay, sources[i]);
      dropped.push(url);
      return false;
    });
    // The records are written before the add returns: the page whose links these are is marked
    // handled once its handler returns, and a crawl killed after that would not see them again.
    if (dropped.length > 0)
      await Promise.all([this.#datasetOf(crawler).flush(), this.#tellEnqueueLinksCall(dropped)]);
    return keep;
  }

  /**
   * Tells the `onSkippedRequest` of the `enqueueLinks` call adding `urls` (if any) of each, awaited
   * as Crawlee awaits it: once the call returns, the callback has heard of its skips. Every time,
   * even for a URL recorded before: it hears of what this call skipped.
   */
  async #tellEnqueueLinksCall(urls: string[]): Promise<void> {
    const callback = this.#enqueueLinksCallback.getStore();
    if (callback === undefined || urls.length === 0) return;
    await Promise.all(
      urls.map((url) =>
        Promise.resolve()
          .then(() => callback({ url, reason: 'robotsTxt' }))
          .catch((error: unknown) =>
            this.#log.exception(error as Error, 'onSkippedRequest of enqueueLinks threw'),
          ),
      ),
    );
  }

  /**
   * The store's check of `url` as its request may be sent: a URL with an empty query (`/a?`) goes
   * out with or without its `?`, by client and proxy, and is allowed only when both forms are
   * (see empty-query.ts).
   */
  #checkAsSent(store: RobotsStore, url: string): Promise<RobotsCheck> {
    const bare = withoutEmptyQuery(url);
    if (bare === undefined) return store.check(url, this.productToken);
    return Promise.all([store.check(url, this.productToken), store.check(bare, this.productToken)]).then(
      ([written, other]) => stricterCheck(written, other),
    );
  }

  /** {@link checkAsSent} from memory: undefined when the origin is not in memory. */
  #checkCachedAsSent(store: RobotsStore, url: string): RobotsCheck | undefined {
    const written = store.checkCached(url, this.productToken);
    const bare = withoutEmptyQuery(url);
    if (bare === undefined || written === undefined) return written;
    const other = store.checkCached(bare, this.productToken);
    return other === undefined ? undefined : stricterCheck(written, other);
  }

  /**
   * A store check from memory; undefined when the origin is not in memory or the URL is not
   * http(s). Any other failure (a closed store) is thrown: a guard that cannot check lets nothing
   * through.
   */
  #checkCached(store: RobotsStore, url: string): RobotsCheck | undefined {
    try {
      return this.#checkCachedAsSent(store, url);
    } catch (error) {
      if (notHttp(error)) return undefined;
      throw error;
    }
  }

  /**
   * A request taken out of the queue: fetch it, skip it, or hold it (deferral, Crawl-delay).
   * Decided at once, without a promise, when its origin's policy is in memory (nearly always).
   */
  #release(
    crawler: CrawlerInternals,
    request: Request,
    paced: boolean,
  ): DequeueDecision | Promise<DequeueDecision> {
    if (this.#deferredHops.size > 0) {
      const hop = this.#deferredHops.get(request.id ?? request.uniqueKey);
      if (hop !== undefined) return this.#releaseAfterHop(crawler, request, paced, hop);
    }
    const store = this.#givenStore ?? this.#settledStore;
    const check = store === undefined ? undefined : this.#checkCached(store, request.url);
    if (check !== undefined) return this.#decide(crawler, request, paced, check);
    return this.#resolveAndDecide(crawler, request, paced);
  }

  /**
   * A request deferred at a redirect hop into an origin whose robots.txt was unreachable (see
   * #deferredHops): decided by that origin while it stays so, without fetching the page that
   * redirects; released as any request once the origin answers.
   */
  async #releaseAfterHop(
    crawler: CrawlerInternals,
    request: Request,
    paced: boolean,
    hop: string,
  ): Promise<DequeueDecision> {
    const key = request.id ?? request.uniqueKey;
    const store = await this.#storeFor();
    let check: RobotsCheck | undefined;
    try {
      check = this.#checkCached(store, hop) ?? (await this.#checkAsSent(store, hop));
    } catch {
      // A closed store fails the request's own check below, with its error.
    }
    if (check !== undefined && check.policyKind === 'disallow-all' && !check.allowed) {
      const verdict = this.#verdictOf(check, request, true);
      if (verdict.kind === 'defer') return { action: 'hold', until: verdict.until, paced: false };
      this.#deferredHops.delete(key);
      // Given up: recorded as the hop would be, had the page been fetched again to reach it.
      this.#drop(crawler, check, request, hop, 'redirect', 'robots-unreachable');
      this.#tellSkipped(crawler, request.url);
      request.noRetry = true;
      request.state = RequestState.SKIPPED;
      return { action: 'skip' };
    }
    this.#deferredHops.delete(key);
    return this.#release(crawler, request, paced);
  }

  async #resolveAndDecide(
    crawler: CrawlerInternals,
    request: Request,
    paced: boolean,
  ): Promise<DequeueDecision> {
    const store = await this.#storeFor();
    const pending = this.#checkAsSent(store, request.url);
    let check: RobotsCheck | undefined;
    try {
      // Once a request of the origin has waited for this fetch, the next ones wait aside at once.
      const slow = this.#slowOrigins.size > 0 && this.#slowOrigins.has(originOrEmpty(request.url));
      check = slow ? undefined : await withDeadline(pending, DEQUEUE_WAIT_MS);
    } catch (error) {
      if (notHttp(error)) return { action: 'fetch' }; // robots.txt does not apply
      throw error;
    }
    if (check === undefined) {
      // A robots.txt slow to answer (a silent server is waited for up to the store's fetch timeout)
      // would hold the crawler's task, and every other origin's requests behind it: the request
      // waits aside until the fetch settles, and is decided then. Its wait counts towards
      // `unreachable.giveUpAfterMs` should robots.txt turn out unreachable.
      const origin = originOf(request.url);
      const now = this.#options.clock();
      const since = this.#deferralStart(origin, undefined, now);
      // Past the limit, a robots.txt still unanswered gives the request up: a store that retries
      // sooner than the request is looked at again has a new fetch running at each look, and
      // waiting for every one of them would defer the request for ever.
      const { giveUpAfterMs } = this.#options.unreachable;
      if (now >= since + giveUpAfterMs) {
        pending.catch(() => undefined);
        const waited = Math.round((now - since) / 100) / 10;
        const why = `robots.txt had not answered after ${waited} s of attempts, past unreachable.giveUpAfterMs: unreachable, everything disallowed (RFC 9309 2.3.1.4).`;
        return this.#decide(crawler, request, paced, unansweredCheck(request.url, this.productToken, why));
      }
      const wake = pending.then(
        () => undefined,
        () => undefined,
      );
      this.#heldForRobots.add(request.id ?? request.uniqueKey);
      if (!this.#slowOrigins.has(origin)) {
        this.#slowOrigins.set(origin, wake);
        void wake.then(() => {
          if (this.#slowOrigins.get(origin) === wake) this.#slowOrigins.delete(origin);
        });
      }
      return { action: 'hold', until: now + this.#options.unreachable.maxRecheckDelayMs, paced: false, wake };
    }
    return this.#decide(crawler, request, paced, check);
  }

  /**
   * The request's URL decided again after it waited for its Crawl-delay slot, from the policy in
   * memory, or from robots.txt read again when that policy expired meanwhile: undefined when the
   * request may go out, else what its navigation becomes. Nothing is decided once `abandoned()`
   * says the run it was asked for has ended meanwhile.
   */
  async #recheck(
    crawler: CrawlerInternals,
    request: Request,
    abandoned: () => boolean,
  ): Promise<NavigationBlock | undefined> {
    const store = this.#givenStore ?? this.#settledStore;
    if (store === undefined) return undefined;
    let check: RobotsCheck;
    try {
      check = this.#checkCachedAsSent(store, request.url) ?? (await this.#checkAsSent(store, request.url));
    } catch (error) {
      if (notHttp(error)) return undefined; // robots.txt does not apply
      throw error;
    }
    if (abandoned()) return undefined;
    const verdict = this.#verdictOf(check, request, false);
    if (verdict.kind === 'allow') return undefined;
    if (verdict.kind === 'defer') return { action: 'defer', until: verdict.until };
    // Let through when it left the queue, it is counted as dropped instead.
    if (this.#countedAllowed.delete(request)) this.#tally.notAllowed(check, this.#options.clock());
    this.#drop(crawler, check, request, request.url, 'dequeue', verdict.reason, verdict.crawlDelaySeconds);
    return { action: 'skip', told: true };
  }

  #decide(
    crawler: CrawlerInternals,
    request: Request,
    paced: boolean,
    check: RobotsCheck,
  ): DequeueDecision | Promise<DequeueDecision> {
    const verdict = this.#verdictOf(check, request, true);
    if (this.#heldForRobots.size > 0) this.#heldForRobots.delete(request.id ?? request.uniqueKey);
    if (verdict.kind === 'defer') return { action: 'hold', until: verdict.until, paced: false };
    if (verdict.kind === 'drop') {
      this.#drop(crawler, check, request, request.url, 'dequeue', verdict.reason, verdict.crawlDelaySeconds);
      request.noRetry = true;
      request.state = RequestState.SKIPPED;
      return { action: 'skip' };
    }
    if (verdict.crawlDelayMs > 0) {
      const store = this.#givenStore ?? this.#settledStore;
      // The fleet's turns are further apart than the delay (see FLEET_MARGIN_MS): slots here too,
      // or each would come a little before its turn, and wait for another.
      const fleet = store?.sharesTurns === true;
      const spacing = verdict.crawlDelayMs + (fleet ? FLEET_MARGIN_MS : 0);
      const now = this.#options.clock();
      if (!paced) {
        const slot = this.#pacer.reserve(check.origin, spacing, now);
        if (slot - now >= MANY_PACED_REQUESTS * spacing)
          this.#warnManyPaced(check.origin, spacing, slot - now);
        if (slot > now) return { action: 'hold', until: slot, paced: true };
      }
      if (!fleet) return this.#grant(request, check, spacing, now);
      return (
        this.#tooSoon(check.origin, spacing, now) ?? this.#claimFleetTurn(store, request, check, spacing)
      );
    }
    return this.#handOut(request, check);
  }

  /** Hands out a request of a paced origin, unless it would go too soon after the last one (see #tooSoon). */
  #grant(request: Request, check: RobotsCheck, spacingMs: number, now: number): DequeueDecision {
    const held = this.#tooSoon(check.origin, spacingMs, now);
    if (held !== undefined) return held;
    this.#pacer.granted(check.origin, spacingMs, now);
    return this.#handOut(request, check);
  }

  /**
   * A hold when a request of `origin` would go out too soon after the last one handed out (see
   * grantableAt); undefined when it may go. A few milliseconds short (a timer fires by the event
   * loop's clock, which may run behind the wall clock): it waits for them. More: a slot of its own
   * again, at the end of the origin's line, where no other request waits for the same moment.
   */
  #tooSoon(origin: string, delayMs: number, now: number): DequeueDecision | undefined {
    const due = this.#pacer.grantableAt(origin, delayMs);
    if (due <= now) return undefined;
    const until = due - now <= REPACE_SLACK_MS ? due : this.#pacer.reserve(origin, delayMs, due);
    return { action: 'hold', until, paced: true };
  }

  /**
   * The Crawl-delay turn of a store whose backend keeps them for every store using it (a fleet on
   * one Redis): the processes of a fleet are one crawler to the site, so a request of a paced
   * origin goes out only once `spacingMs`, its delay and FLEET_MARGIN_MS, have passed since the
   * last one the fleet let go, whichever process that was. Hands it out, or holds it until the
   * turn may be claimed again.
   */
  async #claimFleetTurn(
    store: RobotsStore,
    request: Request,
    check: RobotsCheck,
    spacingMs: number,
  ): Promise<DequeueDecision> {
    // Without a turn (the backend is down or does not answer, the store closed meanwhile), the
    // process paces alone.
    const wait = await withDeadline(
      store.claimTurn(check.origin, this.productToken, spacingMs).catch(() => undefined),
      TURN_WAIT_MS,
    );
    const now = this.#options.clock();
    if (wait !== undefined && wait > 0) {
      const until = now + wait;
      // The process's next request of the origin asks a delay after this one, not sooner: each
      // would otherwise come out of the queue every delay to wait for the fleet, and pile up.
      this.#pacer.reservedElsewhere(check.origin, spacingMs, until);
      return { action: 'hold', until, paced: true };
    }
    // Another request of the origin may have been handed out while the turn was claimed.
    return this.#grant(request, check, spacingMs, now);
  }

  /** A request that may go out now: counted once as allowed, and handed to the crawler. */
  #handOut(request: Request, check: RobotsCheck): DequeueDecision {
    // Once per request: one deferred at a redirect hop comes out of the queue again, one given
    // back unfetched comes out as another object.
    const returned =
      this.#returnedUnfetched.size > 0 && this.#returnedUnfetched.delete(request.id ?? request.uniqueKey);
    if (request.retryCount === 0 && !this.#countedAllowed.has(request)) {
      this.#countedAllowed.add(request);
      if (!returned) this.#tally.allowed(check, this.#options.clock());
    }
    return { action: 'fetch' };
  }

  /**
   * Says once per origin that its requests fill the Crawl-delay slots of the next `aheadMs`: the
   * guard took them out of the queue to reach other origins' requests behind them, and holds them
   * in memory, locked in the queue, until their slots (the README says what that costs).
   */
  #warnManyPaced(origin: string, delayMs: number, aheadMs: number): void {
    if (this.#warnedPaced.has(origin)) return;
    this.#warnedPaced.add(origin);
    this.#log.warning(
      `${MANY_PACED_REQUESTS} requests or more of ${origin} wait for their Crawl-delay slots (one every ${delayMs / 1000} s, the last in ${formatWait(aheadMs)}), held in memory and locked in the queue; with Crawlee's local storage, every listing of the queue's head walks them. Give a paced site a crawler and a queue of its own, or add its URLs among other origins' URLs.`,
    );
  }

  /** @internal {@link HopChecker}: a request leaves now (see CrawlDelayPacer.leavesNow). */
  leavesNow(url: string): number {
    const delay = this.#crawlDelayMsOf(url);
    if (delay === undefined) return 0;
    return this.#pacer.leavesNow(delay.origin, delay.ms, this.#options.clock());
  }

  /** @internal {@link HopChecker}: an HTTP request was written now (see CrawlDelayPacer.written). */
  written(url: string): void {
    const delay = this.#crawlDelayMsOf(url);
    if (delay !== undefined) this.#pacer.written(delay.origin, delay.ms, this.#options.clock());
  }

  /**
   * @internal {@link HopChecker}: an HTTP request of `url` is about to be sent; resolves when it may
   * go. The requests of an origin take turns (see CrawlDelayPacer.inSendLine): each waits until a
   * delay after the one before left (see leavesNow), and on until a delay after the last one
   * written, if that was written later (see CrawlDelayPacer.afterWritten). A turn is over after
   * `capMs` and the delay at most. False, at once, for an origin without Crawl-delay.
   */
  async sendWhenDue(url: string, capMs: number): Promise<boolean> {
    const delay = this.#crawlDelayMsOf(url);
    if (delay === undefined) return false;
    const endTurn = await this.#pacer.inSendLine(delay.origin, capMs + delay.ms);
    try {
      let wait = this.#pacer.leavesNow(delay.origin, delay.ms, this.#options.clock());
      while (wait > 0) {
        await waitFor(wait);
        wait = this.#pacer.afterWritten(delay.origin, delay.ms, this.#options.clock());
      }
    } finally {
      endTurn();
    }
    return true;
  }

  /**
   * @internal {@link HopChecker}: a page load of `url` in the browser waits for its origin's last
   * one to be answered, or `capMs` and the delay (see CrawlDelayPacer.inLine); at once for an
   * origin without Crawl-delay.
   */
  async inLine(url: string, capMs: number): Promise<() => void> {
    const delay = this.#crawlDelayMsOf(url);
    if (delay === undefined) return () => {};
    return this.#pacer.inLine(delay.origin, capMs + delay.ms);
  }

  /** @internal {@link HopChecker}: the crawler has the response of `url` (a browser's document, or an HTTP response). */
  answered(url: string): void {
    const delay = this.#crawlDelayMsOf(url);
    if (delay !== undefined) this.#pacer.answered(delay.origin, delay.ms, this.#options.clock());
  }

  /**
   * How long a request must wait before it goes out, by its origin's Crawl-delay. Its slot was
   * taken when it left the queue; a browser that starts, or a slow hook, can then hold one
   * request past the slot of the next, which would go out too soon after it. The time of each
   * request's sending is kept, and the origin's next slot moved after it.
   */
  #beforeSend(url: string): number {
    const delay = this.#crawlDelayMsOf(url);
    if (delay === undefined) return 0;
    return this.#pacer.beforeSend(delay.origin, delay.ms, this.#options.clock());
  }

  /** The origin of `url` and the Crawl-delay the guard applies to it, if any. */
  #crawlDelayMsOf(url: string): { origin: string; ms: number } | undefined {
    if (!this.#options.crawlDelay.enabled || this.#crawlDelays.pacedOrigins === 0) return undefined;
    let origin: string;
    try {
      origin = originOf(url);
    } catch {
      return undefined;
    }
    const seconds = this.#crawlDelays.get(origin)?.seconds;
    if (seconds === undefined || seconds <= 0) return undefined;
    return { origin, ms: Math.min(seconds, this.#options.crawlDelay.maxSeconds) * 1000 };
  }

  /**
   * When the deferral of `origin`'s URLs began, the start of the wait `unreachable.giveUpAfterMs`
   * bounds: now, for its first deferral in this run or in this outage of its robots.txt. An origin
   * whose robots.txt answered between two outages, as another user of the store saw (another
   * guard, another process), gets the whole wait again in the new one.
   */
  #deferralStart(origin: string, outage: number | undefined, now: number): number {
    const known = this.#deferrals.get(origin);
    if (
      known !== undefined &&
      (outage === undefined || known.outage === undefined || known.outage === outage)
    ) {
      known.outage ??= outage;
      return known.since;
    }
    this.#deferrals.set(origin, { since: now, outage });
    return now;
  }

  /** The guard's reading of a store check. `request` is set when a request can be deferred. */
  #verdictOf(check: RobotsCheck, request: Request | undefined, pace: boolean): UrlVerdict {
    const now = this.#options.clock();
    if (check.policyKind === 'disallow-all' && !check.allowed) {
      // RFC 9309 2.3.1.4: an unreachable robots.txt means complete disallow. The URL is not
      // dropped but deferred: it is fetched once the origin answers, or given up after the limit.
      if (request === undefined) return { kind: 'defer', until: now };
      const policy = this.#policyOf(check.url);
      const since = this.#deferralStart(check.origin, policy?.unreachableSince, now);
      const { giveUpAfterMs, minRecheckDelayMs, maxRecheckDelayMs } = this.#options.unreachable;
      const deadline = since + giveUpAfterMs;
      const retryAt = policy?.retryAt ?? now;
      // The store's next attempt, due just past the deadline, is waited for: its waits double (1, 2,
      // 4, then 8 minutes by default), which puts its fourth attempt just past the default 15, and
      // that attempt is the one that would see a site back in the second half of the wait.
      const lastLook = now >= deadline && retryAt > now && retryAt <= deadline + maxRecheckDelayMs;
      const key = request.id ?? request.uniqueKey;
      // By uniqueKey: a request of a RequestList gets an id when Crawlee moves it into the queue.
      const uniqueKey = request.uniqueKey;
      const counted = this.#deferredRequests.has(uniqueKey);
      if (now >= deadline && !lastLook) {
        // A request that waited aside for a silent robots.txt past the deadline (see
        // #resolveAndDecide) was deferred all the same; one given up on its first look was not.
        if (!counted && this.#heldForRobots.has(key)) this.#tally.deferred(check, now);
        // Decided: a guard that outlives many crawls keeps only the requests deferred now.
        this.#deferredRequests.delete(uniqueKey);
        return { kind: 'drop', reason: 'robots-unreachable' };
      }
      if (!counted) {
        this.#deferredRequests.add(uniqueKey);
        this.#tally.deferred(check, now);
      }
      const until = lastLook
        ? retryAt
        : Math.min(
            Math.max(retryAt, now + minRecheckDelayMs),
            now + maxRecheckDelayMs,
            Math.max(deadline, now + minRecheckDelayMs),
          );
      return { kind: 'defer', until };
    }
    if (check.policyKind !== 'disallow-all') this.#deferrals.delete(check.origin);
    // Decided: a guard that outlives many crawls keeps only the requests deferred now.
    if (request !== undefined) this.#deferredRequests.delete(request.uniqueKey);
    if (!check.allowed) return { kind: 'drop', reason: 'disallowed' };
    const { enabled, maxSeconds, overMax } = this.#options.crawlDelay;
    if (!enabled) return { kind: 'allow', crawlDelayMs: 0 };
    const asked = this.#crawlDelayOf(check, now);
    if (asked === undefined || asked <= 0) return { kind: 'allow', crawlDelayMs: 0 };
    if (asked > maxSeconds && overMax === 'skip') {
      return { kind: 'drop', reason: 'crawl-delay-over-max', crawlDelaySeconds: asked };
    }
    const seconds = Math.min(asked, maxSeconds);
    if (pace) this.#tally.crawlDelay(check.origin, seconds);
    return { kind: 'allow', crawlDelayMs: seconds * 1000 };
  }

  /**
   * The `Crawl-delay` the origin's robots.txt asks of this crawler, in seconds. Read once per
   * lifetime of the origin's policy, the time a copy of robots.txt may be used (RFC 9309 2.4).
   */
  #crawlDelayOf(check: RobotsCheck, now: number): number | undefined {
    const known = this.#crawlDelays.get(check.origin);
    if (known !== undefined && known.until > now) return known.seconds;
    const policy = this.#policyOf(check.url);
    if (policy === undefined) return undefined;
    const seconds = policy.robots?.crawlDelay(this.productToken);
    this.#crawlDelays.set(check.origin, seconds, policy.expiresAt, now);
    return seconds;
  }

  #policyOf(url: string) {
    const store = this.#givenStore ?? this.#settledStore;
    try {
      return store?.peek(url);
    } catch {
      return undefined;
    }
  }

  /** Records a dropped URL, counts it, and tells the crawler's own `onSkippedRequest`. */
  #drop(
    crawler: CrawlerInternals,
    check: RobotsCheck,
    request: Request | undefined,
    url: string,
    stage: RobotsDropStage,
    reason: RobotsDropReason,
    crawlDelaySeconds?: number,
    /** What was added, when no request exists yet (a drop on enqueue). */
    source: Source | string | undefined = request,
  ): void {
    // Links to one disallowed URL from many pages (with fragments or not), listings in many
    // sitemaps, a link to a URL dropped when it left the queue, a request leaving the queue after
    // a link to it was dropped (it was queued while its robots.txt was unknown): one record, as
    // the queue would keep one request. Requests the queue keeps apart though their URL is one
    // (a uniqueKey of their own, POSTs of other payloads) have a record each. Per storage: another
    // crawler's dataset gets a record of its own. Per reason: a URL given up while robots.txt was
    // unreachable and now disallowed is recorded again. A stopped redirect hop or navigation is
    // recorded once per attempt of the request whose page started it: a page may try one
    // navigation again and again, each try stopped before it is sent, and a retried request loads
    // its page again.
    const dataset = this.#datasetOf(crawler);
    const key =
      stage === 'redirect' || stage === 'navigation'
        ? `${reason} ${stage} ${request?.retryCount ?? 0} ${dropKeyOf(request?.url ?? url, request)} ${recordKeyOf(url)}`
        : `${reason} ${dropKeyOf(url, source)}`;
    if (!dataset.recordedUrls.add(key)) {
      // Recorded for another crawler of the same storage: this one still hears of its own drop.
      if (stage !== 'redirect' && stage !== 'navigation' && dataset.untold(crawler, key)) {
        this.#tellSkipped(crawler, request?.url ?? url);
      }
      return;
    }
    dataset.untold(crawler, key);
    const now = this.#options.clock();
    const record = droppedRecord(check, {
      url,
      requestUrl: request?.url ?? url,
      stage,
      reason,
      time: now,
      ...(crawlDelaySeconds === undefined ? {} : { crawlDelaySeconds }),
    });
    this.#tally.dropped(record, check, now);
    dataset.push(record);
    // A stopped redirect hop or navigation skips its request only when the stop reaches the
    // crawler's error path (a handler may catch it; an iframe's stop leaves the page to its handler):
    // the crawler hears of the request there.
    if (stage !== 'redirect' && stage !== 'navigation') this.#tellSkipped(crawler, request?.url ?? url);
  }

  /** Tells the crawler's own `onSkippedRequest` that `url` was skipped. */
  #tellSkipped(crawler: CrawlerInternals, url: string): void {
    const callback = crawler?.onSkippedRequest;
    if (callback === undefined) return;
    // Outside the handler run that dropped it, where the callback may use Crawlee storage.
    const call: Promise<void> = outsideRequestHandlers(() =>
      Promise.resolve()
        .then(() => callback({ url, reason: 'robotsTxt' }))
        .catch((error: unknown) => this.#log.exception(error as Error, 'onSkippedRequest threw'))
        .finally(() => this.#skipCallbacks.delete(call)),
    );
    this.#skipCallbacks.add(call);
    // The crawl does not end while the callback runs: what it adds (a fallback URL) is crawled in
    // the same run, as when Crawlee awaits its callback inside the add.
    this.#interceptors.get(crawler)?.whileBusy(call);
  }
}

/** The session the guard's own store asks the crawler's proxyConfiguration for a proxy URL with. */
const ROBOTS_SESSION_ID = 'crawlee_robots';

/** What the guard says of the requests a run left waiting (`maxRequestsPerCrawl`, `stop()`). */
function givenBackMessage(count: number, crawler: CrawlerInternals): string {
  const requests = count === 1 ? '1 request' : `${count} requests`;
  const message = `${requests} still waiting for robots.txt or a Crawl-delay slot went back to the queue, for the next run.`;
  // Crawlee drops the default queue when run() is called again, these requests with it.
  const queue = crawler.requestQueue as { name?: string } | undefined;
  if (queue?.name !== 'default') return message;
  return `${message} crawler.run() empties the default queue first unless given { purgeRequestQueue: false }.`;
}

/** The key of a dropped URL's record: its queue key when the queue keys it apart from its URL. */
function dropKeyOf(url: string, source: Source | string | undefined): string {
  const queueKey = queueKeyOf(source);
  return queueKey === undefined ? recordKeyOf(url) : `key ${queueKey}`;
}

/**
 * The URL as the queue tells requests apart, for one record per URL: without its fragment or an
 * empty query, scheme and host in lower case (Crawlee's unique key drops fragments by default).
 */
function recordKeyOf(url: string): string {
  const hash = url.indexOf('#');
  let key = hash < 0 ? url : url.slice(0, hash);
  if (key.endsWith('?')) key = key.slice(0, -1);
  const hostStart = key.indexOf('//') + 2;
  const pathStart = hostStart < 2 ? -1 : key.indexOf('/', hostStart);
  return pathStart < 0 ? key.toLowerCase() : key.slice(0, pathStart).toLowerCase() + key.slice(pathStart);
}

/**
 * True when a store call failed because its URL is not an absolute http(s) URL, which robots.txt
 * does not govern; false for anything else: a closed store, and any other TypeError (a fault
 * inside the store or a backend), which lets nothing through.
 */
function notHttp(error: unknown): boolean {
  return error instanceof NotHttpUrlError;
}

/**
 * True when a hop from `from` enters `origin`, which is neither the origin it comes from nor the
 * request's own (a hop back into it, A then B then A, belongs to the request's slot).
 */
function entersOtherOrigin(request: Request, from: string | undefined, origin: string): boolean {
  return from !== undefined && crossesInto(request, from, origin);
}

/**
 * Whether a hop of `request` from `from` (from the request's own URL when unknown, as for a
 * navigation) into `origin` crosses into it from another origin, and `origin` is not the request's.
 */
function crossesInto(request: Request, from: string | undefined, origin: string): boolean {
  return !sameOrigin(request.url, origin) && (from === undefined || !sameOrigin(from, origin));
}

/** Runs `task` over `items`, at most `limit` at a time; rejections are ignored (the store never rejects for the network). */
async function forEachConcurrently<T>(items: T[], limit: number, task: (item: T) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      await task(item).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The value of `promise`, or undefined when it has not settled within `ms` (Infinity: no limit). */
/**
 * How long a request taken out of the queue waits for its origin's robots.txt before it is put
 * aside until the fetch settles (see #resolveAndDecide): most robots.txt answer well within it.
 */
const DEQUEUE_WAIT_MS = 1000;
/**
 * How long a request waits for the claim of its fleet turn (see #claimFleetTurn) before its process
 * paces it alone: a backend of one's own may not answer at all (a RedisBackend gives up after its
 * commandTimeoutMs, 1 s by default).
 */
const TURN_WAIT_MS = 2000;

async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms === Number.POSITIVE_INFINITY) return promise;
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The origin of `url`, or '' when it has none robots.txt applies to. */
function originOrEmpty(url: string): string {
  try {
    return originOf(url);
  } catch {
    return '';
  }
}
