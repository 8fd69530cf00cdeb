import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AdaptivePlaywrightCrawler,
  type BaseHttpClient,
  type Configuration,
  Dataset,
  KeyValueStore,
  LogLevel,
  log,
  type Request,
} from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { KeyValueStoreBackend, RobotsStore } from '../../src/store/index.js';
import { CHROMIUM_LAUNCH_OPTIONS } from '../support/chromium.js';
import {
  datasetItems,
  expectWholeSiteHit,
  freshConfiguration,
  gapsOf,
  page,
  pagesHit,
  servePages,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
  useTestSite,
} from '../support/crawlee-site.js';
import { FetchHttpClient, GotInterfaceHttpClient } from '../support/http-clients.js';
import { redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

const env = useTestSite();

type RenderingType = 'static' | 'clientOnly';

interface Predictor {
  initialize(): Promise<void>;
  predict(request: Request): { renderingType: RenderingType; detectionProbabilityRecommendation: number };
  storeResult(request: Request, renderingType: RenderingType): void;
}

/**
 * A predictor that answers `renderingType` (or what it returns for the request), asks for a
 * detection run with the given probability (or the one it returns), and keeps what detection runs
 * found, by path.
 */
function predictor(
  renderingType: RenderingType | ((request: Request) => RenderingType),
  detection: number | ((request: Request) => number) = 0,
): Predictor & { detected: string[] } {
  const detected: string[] = [];
  return {
    detected,
    initialize: async () => {},
    predict: (request) => ({
      renderingType: typeof renderingType === 'string' ? renderingType : renderingType(request),
      detectionProbabilityRecommendation: typeof detection === 'number' ? detection : detection(request),
    }),
    storeResult: (request, found) => void detected.push(`${new URL(request.url).pathname} ${found}`),
  };
}

/** The URLs each test crawls: allowed, disallowed, and redirects into disallowed paths of two origins. */
function startUrls(): string[] {
  const { main, flaky } = env.site;
  return [
    `${main.origin}/a`,
    `${main.origin}/private/x`,
    `${main.origin}/redirect-same`,
    `${main.origin}/redirect-other`,
    `${main.origin}/redirect-chain`,
    `${main.origin}/redirect-allowed`,
    `${flaky.origin}/d1`,
  ];
}

interface CrawlOptions {
  httpClient?: BaseHttpClient;
  store?: RobotsStore;
  config?: Configuration;
  urls?: string[];
  /** Follows the links of each page (through the guard, as every request the crawler adds). */
  enqueue?: boolean;
}

async function crawl(prediction: RenderingType | Predictor, options: CrawlOptions = {}) {
  const { main } = env.site;
  main.route('/redirect-allowed', redirect('/a', 302));
  const config = options.config ?? freshConfiguration();
  const crawlerLog = captureLog();
  const handled: { url: string; loadedUrl?: string; browser: boolean }[] = [];
  const crawler = new AdaptivePlaywrightCrawler(
    {
      launchContext: { launchOptions: CHROMIUM_LAUNCH_OPTIONS },
      renderingTypePredictor: typeof prediction === 'string' ? predictor(prediction) : prediction,
      maxConcurrency: 4,
      maxRequestRetries: 1,
      navigationTimeoutSecs: 15,
      log: crawlerLog.log,
      httpClient: options.httpClient,
      // A callback that keeps what it is told in storage, as a crawler would.
      async onSkippedRequest({ url }) {
        await (await Dataset.open('skipped', { config })).pushData({ url });
      },
      async requestHandler(context) {
        const { request, querySelector, enqueueLinks } = context;
        // An HTTP-only run's context has a page that throws when read.
        let browser = true;
        try {
          void context.page.url();
        } catch {
          browser = false;
        }
        const title = await querySelector('title');
        handled.push({ url: request.url, loadedUrl: request.loadedUrl, browser });
        expect(title.text()).not.toBe('');
        if (options.enqueue) await enqueueLinks({ strategy: 'all' });
      },
    },
    config,
  );
  const guard = new RobotsGuard({
    productToken: TOKEN,
    userAgent: USER_AGENT,
    store: options.store ?? env.store,
    log: crawlerLog.log,
    unreachable: { giveUpAfterMs: 2500, minRecheckDelayMs: 50, maxRecheckDelayMs: 500 },
  }).attach(crawler);
  const stats = await crawler.run(options.urls ?? startUrls());
  const records = await datasetItems<RobotsDroppedRecord>(config);
  const skipped = await datasetItems<{ url: string }>(config, 'skipped');
  return { crawler, guard, stats, handled, records, skipped, lines: crawlerLog.lines };
}

/** The records of a crawl as `[url, stage, reason]`, sorted, with `main` and `other` for their origins. */
function droppedRows(result: Awaited<ReturnType<typeof crawl>>): string[][] {
  const { main, other } = env.site;
  return result.records
    .map((r) => [r.url.replace(main.origin, 'main').replace(other.origin, 'other'), r.stage, r.reason])
    .sort();
}

/** What every route of the test crawls must end with, whichever way the pages are loaded. */
function expectRobotsObeyed(result: Awaited<ReturnType<typeof crawl>>): void {
  const { main, other, flaky } = env.site;
  // Nothing disallowed was requested: not the start URL, not a redirect hop on either origin.
  expect(pagesHit(main)).toEqual([
    '/a',
    '/a',
    '/hop-1',
    '/redirect-allowed',
    '/redirect-chain',
    '/redirect-other',
    '/redirect-same',
  ]);
  expect(pagesHit(other)).toEqual([]);
  expect(pagesHit(flaky)).toEqual(['/d1']);
  // Every page request carried the crawler's User-Agent (the browser's favicon is not the page's).
  const pageRequests = main.requests.filter((r) => r.path !== '/favicon.ico');
  expect(pageRequests.every((r) => r.headers['user-agent'] === USER_AGENT)).toBe(true);

  expect(result.handled.map((h) => h.url).sort()).toEqual(
    [`${main.origin}/a`, `${main.origin}/redirect-allowed`, `${flaky.origin}/d1`].sort(),
  );
  expect(result.handled.find((h) => h.url.endsWith('/redirect-allowed'))?.loadedUrl).toBe(`${main.origin}/a`);
  expect(result.stats.requestsFailed).toBe(0);
  expect(droppedRows(result)).toEqual(
    [
      ['main/private/x', 'enqueue', 'disallowed'],
      ['main/private/y', 'redirect', 'disallowed'],
      ['other/secret', 'redirect', 'disallowed'],
      ['other/secret', 'redirect', 'disallowed'],
    ].sort(),
  );
  expect(result.guard.summary().totals).toMatchObject({ dropped: 4 });
  // Crawlee's onSkippedRequest heard of each, by the URL of the request.
  expect(result.skipped.map((s) => s.url.replace(main.origin, 'main')).sort()).toEqual([
    'main/private/x',
    'main/redirect-chain',
    'main/redirect-other',
    'main/redirect-same',
  ]);
  // No request went through the crawler's error paths: a robots.txt stop is no failure.
  expect(result.lines.filter((line) => line.level <= LogLevel.ERROR)).toEqual([]);
}

describe('AdaptivePlaywrightCrawler with RobotsGuard (Debian Chromium)', () => {
  it('crawls HTTP-only pages without the browser, redirect hops checked before they are sent', async () => {
    const result = await crawl('static');
    expectRobotsObeyed(result);
    // Each page was handled once, over plain HTTP: the guard sent nothing to the browser.
    expect(result.handled.every((h) => !h.browser)).toBe(true);
    const state = (result.crawler.stats as unknown as { state: Record<string, number> }).state;
    expect(state.httpOnlyRequestHandlerRuns).toBe(result.handled.length + 3);
    expect(state.browserRequestHandlerRuns ?? 0).toBe(0);
  });

  it('crawls browser-rendered pages the way PlaywrightCrawler does', async () => {
    const result = await crawl('clientOnly');
    expectRobotsObeyed(result);
    expect(result.handled.every((h) => h.browser)).toBe(true);
  });

  it('follows links through the guard and keeps the Crawl-delay', async () => {
    const { main, other, tooMany, silent, paced } = env.site;
    const result = await crawl('static', { urls: [`${main.origin}/`], enqueue: true });
    expect(result.handled.every((h) => !h.browser)).toBe(true);
    expectWholeSiteHit(env.site, () => ({
      failed: result.stats.requestsFailed,
      retries: result.stats.retryHistogram,
      totals: result.guard.summary().totals,
      records: droppedRows(result),
    }));
    // Crawl-delay: 1 (a few milliseconds left to the loopback and the relay's clock).
    for (const gap of gapsOf(await paced.arrivals(['/g1', '/g2', '/g3'])))
      expect(gap).toBeGreaterThanOrEqual(990);

    const seen = result.records.map((r) => [r.url, r.stage, r.reason]);
    expect(seen.sort()).toEqual(
      [
        [`${main.origin}/private/x`, 'enqueue', 'disallowed'],
        [`${main.origin}/private/y`, 'redirect', 'disallowed'],
        [`${other.origin}/secret`, 'enqueue', 'disallowed'],
        [`${other.origin}/secret`, 'redirect', 'disallowed'],
        [`${other.origin}/secret`, 'redirect', 'disallowed'],
        [`${tooMany.origin}/t1`, 'dequeue', 'robots-unreachable'],
        [`${silent.origin}/s1`, 'dequeue', 'robots-unreachable'],
      ].sort(),
    );
    expect(result.stats.requestsFailed).toBe(0);
    expect(result.lines.filter((line) => line.level <= LogLevel.ERROR)).toEqual([]);
  });

  it('keeps in a KeyValueStore the policies it reads during HTTP-only runs', async () => {
    const config = freshConfiguration();
    const storeLog = captureLog();
    const store = new RobotsStore({
      userAgent: USER_AGENT,
      backend: new KeyValueStoreBackend({ config }),
      log: storeLog.log,
      fetchTimeoutMs: 400,
      connectTimeoutMs: 400,
      retry: { initialDelayMs: 200, maxDelayMs: 400 },
    });
    try {
      // The robots.txt of `other` is first read for a redirect hop, inside a handler run, where
      // AdaptivePlaywrightCrawler refuses storage access.
      const result = await crawl('static', { config, store });
      expectRobotsObeyed(result);
      expect(storeLog.warnings()).toEqual([]);
      const saved: string[] = [];
      await (await KeyValueStore.open('robots-policies', { config })).forEachKey(async (key) => {
        saved.push(key);
      });
      // main, other and flaky (whose robots.txt answered after two 500s).
      expect(saved).toHaveLength(3);
    } finally {
      await store.close();
    }
  });

  it('checks each redirect hop of a custom httpClient through its followRedirect option', async () => {
    const result = await crawl('static', { httpClient: new GotInterfaceHttpClient() });
    expectRobotsObeyed(result);
    expect(result.handled.every((h) => !h.browser)).toBe(true);
  });

  it('drops what a client that follows redirects unasked reached through a disallowed URL', async () => {
    const result = await crawl('static', { httpClient: new FetchHttpClient() });
    const { main, other, flaky } = env.site;
    // node's fetch follows redirects before anyone can check them: the hops were requested...
    expect(pagesHit(other)).toEqual(['/secret', '/secret']);
    // ...and the responses reached through them never got to the handler.
    expect(result.handled.map((h) => h.url).sort()).toEqual(
      [`${main.origin}/a`, `${main.origin}/redirect-allowed`, `${flaky.origin}/d1`].sort(),
    );
    expect(result.handled.every((h) => !h.browser)).toBe(true);
    expect(droppedRows(result)).toEqual(
      [
        ['main/private/x', 'enqueue', 'disallowed'],
        ['main/private/y', 'navigation', 'disallowed'],
        ['other/secret', 'navigation', 'disallowed'],
        ['other/secret', 'navigation', 'disallowed'],
      ].sort(),
    );
    const warnings = result.lines.filter((line) => line.level === LogLevel.WARNING);
    expect(warnings.filter((line) => line.message.includes('FetchHttpClient'))).toHaveLength(1);
    expect(result.stats.requestsFailed).toBe(0);
    expect(result.lines.filter((line) => line.level <= LogLevel.ERROR)).toEqual([]);
  });

  it('keeps the Crawl-delay when browser and HTTP-only runs load pages of one origin', async () => {
    const { paced } = env.site;
    const paths = ['/m1', '/m2', '/m3', '/m4', '/m5', '/m6', '/m7', '/m8'];
    servePages(paced, paths);
    // Odd pages in the browser, even ones over plain HTTP, three at a time.
    const mixed = predictor((request) => (Number(request.url.slice(-1)) % 2 === 0 ? 'static' : 'clientOnly'));
    const result = await crawl(mixed, { urls: paths.map((path) => `${paced.origin}${path}`) });

    expect(pagesHit(paced)).toEqual(paths);
    expect(result.handled.filter((h) => h.browser)).toHaveLength(4);
    // Crawl-delay: 1. A plain HTTP request paced from when the page load before it was planned to
    // leave the browser came 30-104 ms short when that load left late.
    const arrivals = await paced.arrivals(paths);
    const gaps = gapsOf(arrivals);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(990);
    // ...and only once: each HTTP request, already waiting for its slot, leaves a delay after the
    // page load before it. Paced again as got sent it, it came two delays after it.
    const beforePlain = gaps.filter((_, i) => Number(arrivals[i + 1].path.slice(-1)) % 2 === 0);
    expect(beforePlain.length).toBeGreaterThanOrEqual(3);
    for (const gap of beforePlain) expect(gap).toBeLessThan(1800);
    expect(result.stats.requestsFailed).toBe(0);
  });

  it('neither drops nor defers a request in the HTTP fetch that detects its rendering type', async () => {
    const { main, paced } = env.site;
    servePages(paced, ['/p']);
    main.route('/to-paced', redirect(`${paced.origin}/p`, 302));
    // A page that redirects into a disallowed path from its second request on.
    let served = 0;
    main.route('/changing', (request, response) =>
      served++ === 0 ? page('changing')(request, response) : redirect('/private/y', 302)(request, response),
    );
    // Every page in the browser, then fetched again over HTTP to compare.
    const detecting = predictor('clientOnly', 1);
    const result = await crawl(detecting, { urls: [`${main.origin}/to-paced`, `${main.origin}/changing`] });

    expect(result.handled.map((h) => [new URL(h.url).pathname, h.browser]).sort()).toEqual([
      ['/changing', true],
      ['/to-paced', false],
      ['/to-paced', true],
    ]);
    // The redirect into the paced origin waited for its slot in place, and the page was found
    // static (deferred, the run had failed and the page been taken for one that needs a browser).
    expect(pagesHit(paced)).toEqual(['/p', '/p']);
    expect(gapsOf(await paced.arrivals(['/p']))[0]).toBeGreaterThanOrEqual(990);
    // The disallowed hop was not followed, and nothing says a request was dropped: both were handled.
    expect(pagesHit(main)).toEqual(['/changing', '/changing', '/to-paced', '/to-paced']);
    expect(detecting.detected.sort()).toEqual(['/changing clientOnly', '/to-paced static']);
    expect(result.records).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.guard.summary().totals).toMatchObject({ allowed: 2, dropped: 0, deferred: 0 });
    expect(result.stats.requestsFinished).toBe(2);
    expect(result.lines.filter((line) => line.level <= LogLevel.ERROR)).toEqual([]);
  });
});

interface DetectingCrawl {
  /** The server's robots.txt, read again for each request of it. */
  robots: () => string;
  routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void>;
  requestHandlerTimeoutSecs?: number;
  /** A store whose policies expire after a second, so that robots.txt is read again during the crawl. */
  shortLivedPolicies?: boolean;
  /** What the handler does after the guard's middleware, if it runs it. */
  handler?: (context: { request: Request }) => Promise<void>;
  middleware?: boolean;
  /** Requests crawled after the first, one at a time, with no detection run. */
  after?: string[];
}

/** The servers of detectingCrawl, closed after each test (once it has waited for what a run could still send). */
const detectionServers: TestHttpServer[] = [];
afterEach(async () => {
  await Promise.all(detectionServers.splice(0).map((server) => server.close()));
});

/** A crawl of `path` on a server of its own, handled in the browser and then fetched again to detect its rendering type. */
async function detectingCrawl(path: string, options: DetectingCrawl) {
  const server = await startHttpServer({
    '/robots.txt': (request, response) => text(options.robots())(request, response),
    ...options.routes,
  });
  detectionServers.push(server);
  const config = freshConfiguration();
  const store = options.shortLivedPolicies
    ? new RobotsStore({ userAgent: USER_AGENT, maxAgeMs: 1000, minAgeMs: 1000 })
    : undefined;
  const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false });
  const middleware = guard.middleware();
  // With requests after the first, the first alone gets a detection run.
  const detecting = predictor('clientOnly', (request) =>
    options.after === undefined || new URL(request.url).pathname === path ? 1 : 0,
  );
  const skipped: string[] = [];
  const handled: string[] = [];
  const crawlerLog = captureLog();
  const crawler = new AdaptivePlaywrightCrawler(
    {
      launchContext: { launchOptions: CHROMIUM_LAUNCH_OPTIONS },
      renderingTypePredictor: detecting,
      requestHandlerTimeoutSecs: options.requestHandlerTimeoutSecs ?? 30,
      maxRequestRetries: 0,
      maxConcurrency: options.after === undefined ? undefined : 1,
      log: crawlerLog.log,
      onSkippedRequest: ({ url }) => {
        skipped.push(url);
      },
      async requestHandler(context) {
        if (options.middleware) await middleware(context);
        handled.push(new URL(context.request.url).pathname);
        await options.handler?.(context);
      },
    },
    config,
  );
  guard.attach(crawler);
  try {
    await crawler.run([path, ...(options.after ?? [])].map((each) => `${server.origin}${each}`));
    return {
      server,
      guard,
      skipped,
      handled,
      detected: detecting.detected,
      records: await datasetItems<RobotsDroppedRecord>(config),
      stats: crawler.stats.state,
    };
  } finally {
    await store?.close();
  }
}

/** The one request was handled, in the browser, and nothing says it was dropped. */
function expectHandledOnce(result: Awaited<ReturnType<typeof detectingCrawl>>, path: string): void {
  expect(result.handled).toEqual([path]);
  expect(result.records).toEqual([]);
  expect(result.skipped).toEqual([]);
  expect(result.guard.summary().totals).toMatchObject({ allowed: 1, dropped: 0, hopsStopped: 0 });
  expect(result.stats.requestsFinished).toBe(1);
}

describe('AdaptivePlaywrightCrawler rendering-type detection runs (Debian Chromium)', () => {
  it('sends nothing of a detection run that timed out waiting for its Crawl-delay slot', async () => {
    let served = 0;
    const result = await detectingCrawl('/changing', {
      robots: () => 'User-agent: *\nCrawl-delay: 3\nDisallow: /private/\n',
      // The page, then a redirect into a disallowed path.
      routes: {
        '/changing': (request, response) =>
          served++ === 0
            ? page('changing')(request, response)
            : redirect('/private/y', 302)(request, response),
      },
      // The detection run waits about 3 s for the slot after the browser's page load: it times out first.
      requestHandlerTimeoutSecs: 2,
    });
    // Its hooks went on waiting; their slot came about a second after the run ended.
    await sleep(2500);
    expect(pagesHit(result.server)).toEqual(['/changing']);
    expect(result.detected).toEqual(['/changing clientOnly']);
    expectHandledOnce(result, '/changing');
  });

  it('does not drop a request the browser handled when robots.txt disallows it by the Crawl-delay slot of its detection run', async () => {
    let pageServed = false;
    const result = await detectingCrawl('/page', {
      robots: () => `User-agent: *\nCrawl-delay: 3\nDisallow: ${pageServed ? '/page' : '/private/'}\n`,
      routes: {
        '/page': (request, response) => {
          pageServed = true;
          page('page')(request, response);
        },
      },
      shortLivedPolicies: true,
    });
    // robots.txt read again for the detection fetch, which it no longer allows: not sent.
    expect(pagesHit(result.server)).toEqual(['/page']);
    expectHandledOnce(result, '/page');
  });

  it('takes no Crawl-delay slot for a detection fetch robots.txt no longer allows when the run starts', async () => {
    let pageServed = false;
    const arrivals = new Map<string, number>();
    const arrive = (path: string) => (request: IncomingMessage, response: ServerResponse) => {
      arrivals.set(path, Date.now());
      if (path === '/page') pageServed = true;
      page(path)(request, response);
    };
    const result = await detectingCrawl('/page', {
      robots: () => `User-agent: *\nCrawl-delay: 2\nDisallow: ${pageServed ? '/page' : '/private/'}\n`,
      routes: { '/page': arrive('/page'), '/next': arrive('/next') },
      shortLivedPolicies: true,
      // The policy the page was let through with expires before its detection run starts.
      handler: () => sleep(1500),
      after: ['/next'],
    });
    expect(pagesHit(result.server)).toEqual(['/next', '/page']);
    // One delay after the page: the stopped fetch took no slot of its own (with one, the gap was 4 s).
    expect(arrivals.get('/next')! - arrivals.get('/page')!).toBeLessThan(3500);
    expect(result.records).toEqual([]);
  });

  it("checks a detection run's fetch against robots.txt as it reads then", async () => {
    let pageServed = false;
    const result = await detectingCrawl('/page', {
      robots: () => `User-agent: *\nDisallow: ${pageServed ? '/page' : '/private/'}\n`,
      routes: {
        '/page': (request, response) => {
          pageServed = true;
          page('page')(request, response);
        },
      },
      shortLivedPolicies: true,
      middleware: true,
      // The policy the request was let through with expires before the detection run starts.
      handler: () => sleep(1500),
    });
    expect(pagesHit(result.server)).toEqual(['/page']);
    expectHandledOnce(result, '/page');
  });

  it('records nothing when the middleware of a detection run finds robots.txt changed', async () => {
    let pageServed = 0;
    const result = await detectingCrawl('/page', {
      robots: () => `User-agent: *\nDisallow: ${pageServed >= 2 ? '/page' : '/private/'}\n`,
      routes: {
        // The detection fetch is answered late: the policy it was sent with has expired by then,
        // and robots.txt disallows the page from that fetch on.
        '/page': (request, response) => {
          pageServed++;
          if (pageServed === 1) page('page')(request, response);
          else setTimeout(() => page('page')(request, response), 1500);
        },
      },
      shortLivedPolicies: true,
      middleware: true,
    });
    expect(pagesHit(result.server)).toEqual(['/page', '/page']);
    expect(result.detected).toEqual(['/page clientOnly']);
    expectHandledOnce(result, '/page');
  });
});

describe('AdaptivePlaywrightCrawler with the router middleware (Debian Chromium)', () => {
  it("checks the URL the page's document came from in a browser run, not an address a script set", async () => {
    const { main } = env.site;
    const config = freshConfiguration();
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false });
    const middleware = guard.middleware();
    const handled: string[] = [];
    const skipped: string[] = [];
    const crawler = new AdaptivePlaywrightCrawler(
      {
        launchContext: { launchOptions: CHROMIUM_LAUNCH_OPTIONS },
        renderingTypePredictor: predictor('clientOnly'),
        maxRequestRetries: 0,
        onSkippedRequest: ({ url }) => {
          skipped.push(url);
        },
        async requestHandler(context) {
          // The context names no crawler: the middleware uses the guard's.
          await middleware(context);
          handled.push(`${new URL(context.request.url).pathname} at ${new URL(context.page.url()).pathname}`);
        },
      },
      config,
    );
    guard.attach(crawler);
    await crawler.run([`${main.origin}/pushes`]);
    expect(handled).toEqual(['/pushes at /private/pushed']);
    expect(skipped).toEqual([]);
    expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
  });
});
