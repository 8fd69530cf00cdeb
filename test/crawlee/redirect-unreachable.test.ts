import { CheerioCrawler, HttpCrawler, LogLevel, log, Router } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { formatSummary } from '../../src/crawlee/summary.js';
import type { RobotsStore } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  page,
  quickStore,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

/**
 * A request redirected into an origin whose robots.txt is unreachable waits for that origin, as
 * a request of the origin itself does. While it waits, the page that redirects is not fetched
 * again at each recheck: only once the target's robots.txt answers. A redirect let into another
 * origin is counted at that origin.
 */
describe.each([
  ['CheerioCrawler', CheerioCrawler],
  ['HttpCrawler', HttpCrawler],
] as const)('%s: a redirect into another origin', (_name, Crawler) => {
  let servers: TestHttpServer[] = [];
  let store: RobotsStore | undefined;
  afterEach(async () => {
    await store?.close();
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  });

  /** A guard on the describe's store that logs no summary. */
  function quietGuard(crawler: InstanceType<typeof Crawler>): RobotsGuard {
    return new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false }).attach(
      crawler,
    );
  }

  async function sites(targetRobots: (served: number) => [status: number, body: string]) {
    let served = 0;
    const target = await startHttpServer({
      '/robots.txt': (request, response) => text(...swap(targetRobots(++served)))(request, response),
      '/page': page('target'),
    });
    const source = await startHttpServer({
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/go': redirect(`${target.origin}/page`, 302),
      '/ok': page('ok'),
    });
    servers = [source, target];
    store = quickStore();
    return { source, target };
  }

  async function crawl(source: TestHttpServer, giveUpAfterMs: number) {
    const config = freshConfiguration();
    const handled: string[] = [];
    const skipped: string[] = [];
    const crawler = new Crawler(
      {
        maxRequestRetries: 0,
        onSkippedRequest: ({ url }) => {
          skipped.push(url);
        },
        async requestHandler({ request }) {
          handled.push(request.loadedUrl ?? request.url);
        },
      },
      config,
    );
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      unreachable: { giveUpAfterMs, minRecheckDelayMs: 50, maxRecheckDelayMs: 100 },
    }).attach(crawler);
    await crawler.run([`${source.origin}/go`, `${source.origin}/ok`]);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    return { handled, skipped, records, guard };
  }

  it('whose robots.txt stays unreachable: fetches the redirecting page once, and gives the request up', async () => {
    const { source, target } = await sites(() => [503, 'down']);
    const { handled, skipped, records, guard } = await crawl(source, 1500);

    // Rechecked every 50-100 ms for 1.5 s, the redirecting page was fetched once.
    expect(source.hits('/go')).toBe(1);
    expect(target.hits('/page')).toBe(0);
    expect(target.hits('/robots.txt')).toBeGreaterThan(1);
    expect(handled).toEqual([`${source.origin}/ok`]);
    expect(records.map((r) => [r.url, r.requestUrl, r.stage, r.reason, r.robotsStatus])).toEqual([
      [`${target.origin}/page`, `${source.origin}/go`, 'redirect', 'robots-unreachable', 503],
    ]);
    expect(skipped).toEqual([`${source.origin}/go`]);
    expect(guard.summary().totals).toMatchObject({ deferred: 1, givenUp: 1 });
  });

  it('whose robots.txt answers late: fetches the redirecting page again then, and follows the redirect', async () => {
    // 503 for the first three fetches (about 0.8 s with the store's retry delays), then rules.
    const { source, target } = await sites((served) =>
      served <= 3 ? [503, 'down'] : [200, 'User-agent: *\nAllow: /\n'],
    );
    const { handled, records } = await crawl(source, 10_000);

    expect(target.hits('/robots.txt')).toBe(4);
    expect(source.hits('/go')).toBe(2);
    expect(target.hits('/page')).toBe(1);
    expect(handled.sort()).toEqual([`${source.origin}/ok`, `${target.origin}/page`].sort());
    expect(records).toEqual([]);
  });

  it('records a stopped hop once for each request the queue keeps apart, though their URL is one', async () => {
    const source = await startHttpServer({
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/go': redirect('/private/z', 302),
    });
    servers = [source];
    store = quickStore();
    const config = freshConfiguration();
    const crawler = new Crawler({ maxRequestRetries: 0, requestHandler() {} }, config);
    const guard = quietGuard(crawler);
    const go = `${source.origin}/go`;
    // Two keys of one URL, and the URL itself: three requests, each loading /go and stopped.
    await crawler.run([{ url: go, uniqueKey: 'first' }, { url: go, uniqueKey: 'second' }, go]);

    expect(source.hits('/go')).toBe(3);
    expect(source.hits('/private/z')).toBe(0);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.requestUrl, r.stage])).toEqual(
      Array.from({ length: 3 }, () => [`${source.origin}/private/z`, go, 'redirect']),
    );
    expect(guard.summary().totals).toMatchObject({ allowed: 3, dropped: 3, hopsStopped: 3 });
  });

  it('lists an origin entered by redirects alone in the summary, with the robots.txt that let them in', async () => {
    const target = await startHttpServer({
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/page': page('target'),
      '/other': page('other'),
      '/hop': redirect('/end', 302),
      '/end': page('end'),
    });
    const source = await startHttpServer({
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/go': redirect(`${target.origin}/page`, 302),
      '/again': redirect(`${target.origin}/other`, 302),
      '/chain': redirect(`${target.origin}/hop`, 302),
      '/home': redirect('/ok', 302),
      '/ok': page('ok'),
    });
    servers = [source, target];
    store = quickStore();
    const handled: string[] = [];
    // The guard's middleware checks each page again as it reaches the handler: no hop of its own.
    const router = Router.create();
    const crawler = new Crawler({ maxRequestRetries: 0, requestHandler: router }, freshConfiguration());
    const guard = quietGuard(crawler);
    router.use(guard.middleware());
    router.addDefaultHandler(({ request }) => {
      handled.push(request.loadedUrl ?? request.url);
    });
    const starts = ['/go', '/again', '/chain', '/home'].map((path) => `${source.origin}${path}`);
    await crawler.run(starts);

    expect(['/page', '/other', '/hop', '/end'].map((path) => target.hits(path))).toEqual([1, 1, 1, 1]);
    expect(handled.sort()).toEqual(
      [`${source.origin}/ok`, ...['/end', '/other', '/page'].map((path) => `${target.origin}${path}`)].sort(),
    );
    const summary = guard.summary();
    // Three crossings into the target: the hop within it (/hop to /end) is none, nor is the hop
    // within the source origin (/home to /ok).
    expect(summary.origins.map((o) => [o.origin, o.robotsStatus, o.allowed, o.hopsFollowed])).toEqual(
      [
        [source.origin, 200, 4, 0],
        [target.origin, 200, 0, 3],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(summary.totals).toMatchObject({ allowed: 4, dropped: 0, hopsStopped: 0, hopsFollowed: 3 });
    const block = formatSummary(summary);
    expect(block.split('\n')[0]).toContain('3 redirects/navigations followed across origins');
    expect(block).toContain(`${target.origin} robots.txt 200 (rules`);
    expect(block).toContain('0 allowed, 0 dropped, 0 deferred, 0 given up, 3 followed in from other origins');
  });
});

/** `[status, body]` as `text()` takes them. */
function swap([status, body]: [number, string]): [string, number] {
  return [body, status];
}
