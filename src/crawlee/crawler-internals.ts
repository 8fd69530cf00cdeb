import {
  type Configuration,
  GotScrapingHttpClient,
  type Log,
  type ProxyConfiguration,
  type Request,
  type SkippedRequestCallback,
} from 'crawlee';

/**
 * The members of a Crawlee 3.18 crawler the guard reads or wraps (verified in
 * `@crawlee/basic/internals/basic-crawler.js`, `@crawlee/http`, `@crawlee/browser`). Several are
 * protected in Crawlee's types; they are reached through this one view so an upgrade of Crawlee
 * has one place to look at.
 */
export interface CrawlerInternals {
  /** The choke point: set in the constructor or lazily by `getRequestQueue()` / `run()`. */
  requestManager?: unknown;
  /** Passed to `enqueueLinks` directly, so it is wrapped too (often the same object). */
  requestQueue?: unknown;
  readonly config: Configuration;
  readonly log: Log;
  readonly stats: { requestsInProgress?: Map<string, unknown> };
  /** True while `run()` goes on: Crawlee refuses another `run()` then. */
  readonly running?: boolean;
  /**
   * Crawlee's own robots.txt check (`respectRobotsTxtFile`), read before each add and dequeue: a
   * URL it refuses never reaches the guard.
   */
  respectRobotsTxtFile?: boolean | { userAgent?: string };
  /** A single crawler option: the guard calls it for its own skips and never replaces it. */
  onSkippedRequest?: SkippedRequestCallback;
  /** HttpCrawler and BrowserCrawler: how long a navigation (redirects included) may take. */
  navigationTimeoutMillis?: number;
  /** How long the handlers of one request may take (the navigation too, for a crawler with one). */
  requestHandlerTimeoutMillis?: number;
  /** HttpCrawler and BrowserCrawler: read at every navigation, so hooks pushed later count. */
  preNavigationHooks?: unknown[];
  postNavigationHooks?: unknown[];
  /** BrowserCrawler only. */
  browserPool?: unknown;
  /** The context of each request being processed, by its id (a browser crawler's page id). */
  crawlingContexts?: Map<string, { request: Request }>;
  proxyConfiguration?: ProxyConfiguration;
  /** The `httpClient` option (a BaseHttpClient): HTTP crawlers send their page requests through it. */
  httpClient?: unknown;
  /** Where Crawlee decides between retry and failure: the guard turns its own errors into skips here. */
  _requestFunctionErrorHandler(error: Error, context: { request: Request }, source: object): Promise<void>;
  run(...args: unknown[]): Promise<unknown>;
  /** Ends the run once the requests in progress are done: no task starts after it. */
  stop?(reason?: string): void;
  /** Set by `stop()` until the next `run()`. */
  readonly unexpectedStop?: boolean;
  /** Runs the navigation (if any) and the handlers of one request, with its crawling context. */
  _runRequestHandler?(context: { request: Request; sendRequest?: unknown }): Promise<unknown>;
  /**
   * Runs the crawler's tasks during `run()`. Between tasks it looks for a new one every half
   * second, unless told sooner (`notify()`).
   */
  readonly autoscaledPool?: { notify?(): unknown };
  /** Makes the crawler's request queue and manager when it has none. */
  getRequestQueue?(): Promise<unknown>;
}

/** The crawler's properties that hold its request manager. */
const MANAGER_PROPERTIES = ['requestManager', 'requestQueue'] as const;

/**
 * Crawlee's own methods that assign those properties after the constructor; `run()` assigns
 * `requestQueue` only right before it calls `initializeRequestManager()`.
 */
const ASSIGNING_METHODS = ['getRequestQueue', 'initializeRequestManager'] as const;

/**
 * Keeps the crawler's `requestManager` and `requestQueue` wrapped by `wrap`, including what Crawlee
 * assigns to them later, and returns a function that wraps them again at once.
 *
 * They stay plain data properties: the methods of Crawlee that assign them are wrapped to wrap what
 * they assigned (and the queue `getRequestQueue()` returns). Turning the properties into accessors
 * would catch every assignment, but V8 then keeps the crawler as a dictionary of properties, and
 * every property Crawlee reads from it while handling a request (dozens) becomes a hash lookup:
 * about 4% of a crawl's CPU, measured. A crawler without those methods (another Crawlee) gets the
 * accessors all the same.
 */
export function interceptRequestManager(
  crawler: CrawlerInternals,
  wrap: (value: unknown) => unknown,
  unwrap: (value: unknown) => unknown,
): () => void {
  const methods = crawler as unknown as Record<string, unknown>;
  if (!ASSIGNING_METHODS.every((name) => typeof methods[name] === 'function')) {
    for (const name of MANAGER_PROPERTIES) interceptProperty(crawler, name, wrap, unwrap);
    return () => {};
  }
  const rewrap = () => {
    for (const name of MANAGER_PROPERTIES) {
      const value = crawler[name];
      const wrapped = wrap(unwrap(value));
      if (wrapped !== value) crawler[name] = wrapped;
    }
  };
  rewrap();
  for (const name of ASSIGNING_METHODS) {
    const original = methods[name] as (...args: unknown[]) => Promise<unknown>;
    methods[name] = async (...args: unknown[]) => {
      try {
        const result = await original.apply(crawler, args);
        return wrap(unwrap(result));
      } finally {
        rewrap();
      }
    };
  }
  return rewrap;
}

/** Replaces a data property of the crawler by an accessor that wraps every value assigned to it. */
function interceptProperty(
  crawler: CrawlerInternals,
  name: (typeof MANAGER_PROPERTIES)[number],
  wrap: (value: unknown) => unknown,
  unwrap: (value: unknown) => unknown,
): void {
  let wrapped = wrap(unwrap(crawler[name]));
  Object.defineProperty(crawler, name, {
    configurable: true,
    enumerable: true,
    get: () => wrapped,
    set: (value: unknown) => {
      wrapped = wrap(unwrap(value));
    },
  });
}

/**
 * Forgets the statistics job Crawlee started for a request, so the request that the guard skipped
 * counts neither as finished nor as failed (Crawlee's own robots.txt skip never starts a job).
 */
export function forgetStatisticsJob(crawler: CrawlerInternals, request: Request): void {
  crawler.stats.requestsInProgress?.delete(request.id ?? request.uniqueKey);
}

/**
 * Calls `hook` with each page the crawler's browser pool opens for a request, and that request,
 * before the crawler does anything with the page: BrowserCrawler opens it with the id of the
 * request's crawling context (`browserPool.newPage({ id })`).
 */
export function onPageCreated(
  crawler: CrawlerInternals,
  hook: (page: object, request: Request) => Promise<void>,
): void {
  const pool = crawler.browserPool as
    | { postPageCreateHooks?: unknown[]; getPageId(page: object): string | undefined }
    | undefined;
  pool?.postPageCreateHooks?.push(async (page: object) => {
    const id = pool.getPageId(page);
    const request = id === undefined ? undefined : crawler.crawlingContexts?.get(id)?.request;
    if (request !== undefined) await hook(page, request);
  });
}

/**
 * Makes the crawler's browsers send `userAgent` beyond the page loads the guard's CDP session
 * overrides: Crawlee gives the browser a User-Agent of its own (a fingerprint's, or with
 * fingerprints off `--user-agent=` a desktop Chrome's), which the page's subresources, its scripts'
 * fetches and the documents of its popups go out with. Run last of the hooks, so that it wins over
 * the fingerprint's context option and over `launchContext.userAgent`; a fingerprint's extra
 * `User-Agent` header still wins for subresources (README).
 */
export function browserSendsUserAgent(crawler: CrawlerInternals, userAgent: string): void {
  const pool = crawler.browserPool as
    | { preLaunchHooks?: unknown[]; prePageCreateHooks?: unknown[] }
    | undefined;
  pool?.preLaunchHooks?.push(
    (
      _pageId: string,
      launchContext: {
        launchOptions?: { userAgent?: string; args?: string[] };
        browserPlugin?: { library?: { name?: () => string } };
      },
    ) => {
      launchContext.launchOptions ??= {};
      const options = launchContext.launchOptions;
      // A persistent context (Crawlee's default) takes its User-Agent from the launch options.
      options.userAgent = userAgent;
      if (launchContext.browserPlugin?.library?.name?.() !== 'chromium') return;
      // Chromium's own default, which a frame of a popup goes out with.
      options.args = [
        ...(options.args ?? []).filter((arg) => !arg.startsWith('--user-agent=')),
        `--user-agent=${userAgent}`,
      ];
    },
  );
  pool?.prePageCreateHooks?.push(
    (
      _pageId: string,
      controller: { launchContext?: { useIncognitoPages?: boolean } },
      pageOptions?: { userAgent?: string },
    ) => {
      // An incognito page has a context of its own, made with these options.
      if (controller.launchContext?.useIncognitoPages === true && pageOptions !== undefined) {
        pageOptions.userAgent = userAgent;
      }
    },
  );
}

/** The options of one `enqueueLinks` call the guard reads. */
export interface EnqueueLinksCallOptions {
  /** Told of each URL this call skips, besides the crawler's own `onSkippedRequest`. */
  onSkippedRequest?: SkippedRequestCallback;
}

/**
 * Runs each `enqueueLinks` call of the crawler's handlers through `around`, with its options:
 * every crawler's context `enqueueLinks` goes through `enqueueLinksWithCrawlDepth` in Crawlee 3.18.
 */
export function aroundEnqueueLinks(
  crawler: CrawlerInternals,
  around: (options: EnqueueLinksCallOptions | undefined, call: () => Promise<unknown>) => Promise<unknown>,
): void {
  const methods = crawler as unknown as Record<string, unknown>;
  const original = methods.enqueueLinksWithCrawlDepth;
  if (typeof original !== 'function') return;
  methods.enqueueLinksWithCrawlDepth = (options: EnqueueLinksCallOptions | undefined, ...rest: unknown[]) =>
    around(options, () => original.call(crawler, options, ...rest));
}

/** The kind of crawler, by what it has. */
export function crawlerKindOf(crawler: CrawlerInternals): 'browser' | 'http' | 'basic' {
  if (crawler.browserPool !== undefined && Array.isArray(crawler.preNavigationHooks)) return 'browser';
  if (Array.isArray(crawler.preNavigationHooks)) return 'http';
  return 'basic';
}

/**
 * True when the crawler sends its requests through Crawlee's own `GotScrapingHttpClient` (the
 * default), which hands the `hooks` of `gotOptions` to got, so a `beforeRedirect` hook sees every
 * hop. A custom `httpClient` (any BaseHttpClient) gets them as an option it does not know, and
 * may well ignore them (DESIGN.md: "Integration points").
 */
export function sendsThroughGotScraping(crawler: CrawlerInternals): boolean {
  const client = crawler.httpClient;
  if (client === undefined || client === null) return true; // a crawler without the option: got-scraping
  return (
    client instanceof GotScrapingHttpClient &&
    (client as GotScrapingHttpClient).stream === GotScrapingHttpClient.prototype.stream
  );
}

/** The name of the crawler's HTTP client, for messages. */
export function httpClientNameOf(crawler: CrawlerInternals): string {
  const client = crawler.httpClient as { constructor?: { name?: unknown } } | undefined;
  const name = client?.constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'a custom httpClient';
}
