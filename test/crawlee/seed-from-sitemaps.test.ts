import { CheerioCrawler, LogLevel, log, RequestQueue } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  page,
  pagesHit,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

const urlset = (locs: string[]) =>
  `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((loc) => `<url><loc>${loc}</loc></url>`)
    .join('')}</urlset>`;

const servers: TestHttpServer[] = [];
const stores: RobotsStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(): Promise<TestHttpServer> {
  const started = await startHttpServer();
  servers.push(started);
  return started;
}

function newStore(): RobotsStore {
  const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 1000, log: captureLog().log });
  stores.push(store);
  return store;
}

describe('guard.seedFromSitemaps records', () => {
  it('one record for a disallowed URL however often the sitemaps list it', async () => {
    const site = await server();
    const o = site.origin;
    site.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow: /private\nSitemap: ${o}/a.xml\nSitemap: ${o}/b.xml\n`),
    );
    site.route('/a.xml', text(urlset([`${o}/private/x`, `${o}/private/x`, `${o}/ok`])));
    site.route('/b.xml', text(urlset([`${o}/private/x`])));
    site.route('/ok', page('ok'));
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const result = await guard.seedFromSitemaps(crawler, [`${o}/`], { progressIntervalMs: 0 });
    // The seeder counts entries; the dataset holds one record per URL.
    expect(result.droppedByRobots).toBe(3);
    // Added again later, by a link: still the one record.
    await crawler.addRequests([`${o}/private/x`]);
    await crawler.run();

    expect(pagesHit(site)).toEqual(['/a.xml', '/b.xml', '/ok']);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage, r.reason])).toEqual([
      [`${o}/private/x`, 'sitemap', 'disallowed'],
    ]);
    expect(guard.summary().origins[0]).toMatchObject({
      dropped: 1,
      topRules: [{ pattern: '/private', drops: 1 }],
    });
  });

  it('one record for a URL linked with fragments, an empty query or an upper-case scheme, or dropped when it left the queue', async () => {
    const site = await server();
    const o = site.origin;
    site.route('/robots.txt', text('User-agent: *\nDisallow: /private\n'));
    site.route('/links', page('links', ['/private/y#again', '/private/z']));
    const config = freshConfiguration();
    // Requests that entered the queue before the guard saw them: /private/y, dropped when it
    // leaves the queue, then linked from a page handled after it; /private/z, linked from a page
    // handled before it leaves the queue (as a URL queued while its robots.txt was unknown).
    const queue = await RequestQueue.open(null, { config });
    await queue.addRequest({ url: `${o}/private/y` });
    await queue.addRequest({ url: `${o}/links` });
    await queue.addRequest({ url: `${o}/private/z` });
    const crawler = new CheerioCrawler(
      {
        requestQueue: queue,
        maxConcurrency: 1,
        async requestHandler({ enqueueLinks }) {
          await enqueueLinks();
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    await crawler.addRequests([
      `${o}/private/x#top`,
      `${o}/private/x#bottom`,
      `${o}/private/x`,
      `${o}/private/x?`,
      `${o.replace('http://', 'HTTP://')}/private/x`,
    ]);
    await crawler.run();

    expect(pagesHit(site)).toEqual(['/links']);

    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage])).toEqual([
      [`${o}/private/x#top`, 'enqueue'],
      [`${o}/private/y`, 'dequeue'],
      [`${o}/private/z`, 'enqueue'],
    ]);
  });

  it('again in a later run, and again when the reason changed, each time counted and told to onSkippedRequest', async () => {
    const site = await server();
    const o = site.origin;
    let robots = text('down', 503);
    site.route('/robots.txt', (request, response) => robots(request, response));
    site.route('/a', page('a'));
    const config = freshConfiguration();
    const skipped: string[] = [];
    const crawler = new CheerioCrawler(
      {
        requestHandler() {},
        onSkippedRequest: ({ url }) => void skipped.push(url.replace(o, '')),
      },
      config,
    );
    const store = new RobotsStore({
      userAgent: USER_AGENT,
      fetchTimeoutMs: 1000,
      retry: { initialDelayMs: 50, maxDelayMs: 50 },
      log: captureLog().log,
    });
    stores.push(store);
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      logSummary: false,
      unreachable: { giveUpAfterMs: 300, minRecheckDelayMs: 20, maxRecheckDelayMs: 100 },
    }).attach(crawler);

    // Run 1: robots.txt answers 503, so /private/x waits, then is given up.
    await crawler.run([`${o}/private/x`]);
    // Run 2, the README's recipe for URLs given up: robots.txt is back, and disallows them.
    robots = text('User-agent: *\nDisallow: /private\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await crawler.run([`${o}/private/x`]);
    // Run 3: dropped for the same reason as in run 2, in a run of its own.
    await crawler.run([`${o}/private/x`, `${o}/a`]);

    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url.replace(o, ''), r.stage, r.reason])).toEqual([
      ['/private/x', 'dequeue', 'robots-unreachable'],
      ['/private/x', 'enqueue', 'disallowed'],
      ['/private/x', 'enqueue', 'disallowed'],
    ]);
    expect(skipped).toEqual(['/private/x', '/private/x', '/private/x']);
    expect(guard.summary().totals).toMatchObject({ allowed: 1, dropped: 3, givenUp: 1 });
    expect(pagesHit(site)).toEqual(['/a']);
  });

  it('reason crawl-delay-over-max for the URLs of a site whose Crawl-delay is over maxSeconds, with overMax skip', async () => {
    const site = await server();
    const o = site.origin;
    site.route(
      '/robots.txt',
      text(`User-agent: *\nCrawl-delay: 120\nDisallow: /private\nSitemap: ${o}/sm.txt\n`),
    );
    site.route('/sm.txt', text(`${o}/a\n${o}/b\n${o}/private/c\n`));
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      crawlDelay: { maxSeconds: 10, overMax: 'skip' },
    }).attach(crawler);
    const result = await guard.seedFromSitemaps(crawler, [`${o}/`], { progressIntervalMs: 0 });
    await guard.flush();

    // What the seeder counts as kept is what the queue got: nothing (no record of stage enqueue).
    expect(result).toMatchObject({ kept: 0, droppedByRobots: 3 });
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url.replace(o, ''), r.stage, r.reason, r.crawlDelaySeconds])).toEqual([
      ['/a', 'sitemap', 'crawl-delay-over-max', 120],
      ['/b', 'sitemap', 'crawl-delay-over-max', 120],
      ['/private/c', 'sitemap', 'disallowed', undefined],
    ]);
  });

  it('reason robots-unreachable for URLs dropped because their robots.txt is unreachable', async () => {
    const down = await server();
    down.route('/robots.txt', text('down', 503));
    const site = await server();
    site.route('/robots.txt', text('User-agent: *\nDisallow: /private\n'));
    site.route('/sm.xml', text(urlset([`${down.origin}/page`, `${site.origin}/private/p`])));
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    await guard.seedFromSitemaps(crawler, [`${site.origin}/sm.xml`], {
      enqueueWhenRobotsUnreachable: false,
      sameHostOnly: false,
      progressIntervalMs: 0,
    });
    await guard.flush();
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(Object.fromEntries(records.map((r) => [r.url, [r.stage, r.reason, r.robotsStatus]]))).toEqual({
      [`${down.origin}/page`]: ['sitemap', 'robots-unreachable', 503],
      [`${site.origin}/private/p`]: ['sitemap', 'disallowed', 200],
    });
  });

  it('queues the URLs whose robots.txt is unreachable, for the guard to defer, also with the option given as undefined', async () => {
    const down = await server();
    down.route('/robots.txt', text('down', 503));
    const site = await server();
    site.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
    site.route('/sm.xml', text(urlset([`${down.origin}/page`, `${site.origin}/p`])));
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const result = await guard.seedFromSitemaps(crawler, [`${site.origin}/sm.xml`], {
      enqueueWhenRobotsUnreachable: undefined,
      sameHostOnly: false,
      progressIntervalMs: 0,
    });
    await guard.flush();
    expect(result).toMatchObject({ kept: 2, droppedByRobots: 0 });
    expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
  });

  it('returns a site whose robots.txt is unreachable as a failure, and logs it', async () => {
    const site = await server();
    site.route('/robots.txt', text('down', 503));
    const { log: guardLog, warnings } = captureLog();
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      log: guardLog,
    }).attach(crawler);
    const result = await guard.seedFromSitemaps(crawler, [`${site.origin}/`], {
      progressIntervalMs: 0,
      unreachableWaitMs: 0,
    });
    expect(result).toMatchObject({ sitemapsRead: 0, sitemapsFailed: 1, urlsFound: 0 });
    expect(result.failures).toEqual([
      {
        url: `${site.origin}/robots.txt`,
        why: expect.stringMatching(/^The sitemaps it lists are unknown \(robots\.txt 503\)/),
      },
    ]);
    expect(warnings()).toContainEqual(expect.stringContaining(`Site ${site.origin} not read`));
  });
});

describe('guard.seedFromSitemaps while the crawler runs', () => {
  it('keeps the run going until the seeding ends: the URLs it adds late are crawled, not left in the queue', async () => {
    const site = await server();
    const o = site.origin;
    site.route('/robots.txt', text(`User-agent: *\nAllow: /\nSitemap: ${o}/sitemap.xml\n`));
    site.route('/', page('home'));
    const paths = ['/p0', '/p1', '/p2', '/p3'];
    for (const path of paths) site.route(path, page(path));
    // Slower than the crawl of the start URL: the queue is empty before the sitemap has arrived.
    site.route('/sitemap.xml', (_request, response) => {
      setTimeout(() => response.writeHead(200).end(urlset(paths.map((path) => `${o}${path}`))), 600);
    });
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const [result] = await Promise.all([
      guard.seedFromSitemaps(crawler, [`${o}/`], { progressIntervalMs: 0 }),
      crawler.run([`${o}/`]),
    ]);
    expect(result.kept).toBe(4);
    expect(pagesHit(site).sort()).toEqual(['/', '/p0', '/p1', '/p2', '/p3', '/sitemap.xml']);
  });

  it('waits for the records of the URLs it drops: no more than a bounded number wait to be written or told', async () => {
    const site = await server();
    const o = site.origin;
    const disallowed = Array.from({ length: 6000 }, (_, i) => `${o}/private/${i}`);
    site.route('/robots.txt', text(`User-agent: *\nDisallow: /private\nSitemap: ${o}/urls.txt\n`));
    site.route('/urls.txt', text(`${disallowed.join('\n')}\n`));
    let waiting = 0;
    let mostWaiting = 0;
    const crawler = new CheerioCrawler(
      {
        requestHandler() {},
        // A callback slower than the seeder drops URLs.
        onSkippedRequest: async () => {
          mostWaiting = Math.max(mostWaiting, ++waiting);
          await new Promise((resolve) => setTimeout(resolve, 1));
          waiting--;
        },
      },
      freshConfiguration(),
    );
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      logSummary: false,
    }).attach(crawler);
    const result = await guard.seedFromSitemaps(crawler, [`${o}/`], { progressIntervalMs: 0 });
    expect(result.droppedByRobots).toBe(6000);
    await guard.flush();
    expect(mostWaiting).toBeGreaterThan(100);
    expect(mostWaiting).toBeLessThanOrEqual(1500);
  });
});

describe('guard.seedFromSitemaps during and after', () => {
  it('is crawled by a run started with no URL in the same tick, though its sitemap comes late', async () => {
    // Crawlee ends a run at once when the crawler has no request queue yet.
    const site = await server();
    const o = site.origin;
    const paths = ['/p0', '/p1', '/p2'];
    site.route('/robots.txt', text(`User-agent: *\nDisallow:\nSitemap: ${o}/late.xml\n`));
    site.route('/late.xml', (request, response) => {
      setTimeout(() => text(urlset(paths.map((path) => `${o}${path}`)))(request, response), 300);
    });
    for (const path of paths) site.route(path, page(path));
    const handled: string[] = [];
    const crawler = new CheerioCrawler(
      {
        requestHandler({ request }) {
          handled.push(new URL(request.url).pathname);
        },
      },
      freshConfiguration(),
    );
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const running = crawler.run();
    const result = await guard.seedFromSitemaps(crawler, [`${o}/`]);
    await running;
    expect(result.kept).toBe(3);
    expect(handled.sort()).toEqual(paths);
  });

  it('resolves once the records of every URL it dropped are written', async () => {
    const site = await server();
    const o = site.origin;
    const disallowed = Array.from({ length: 300 }, (_, i) => `${o}/private/${i}`);
    site.route('/robots.txt', text(`User-agent: *\nDisallow: /private\nSitemap: ${o}/s.xml\n`));
    site.route('/s.xml', text(urlset(disallowed)));
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const result = await guard.seedFromSitemaps(crawler, [`${o}/`]);
    expect(result.droppedByRobots).toBe(300);
    expect(await datasetItems<RobotsDroppedRecord>(config)).toHaveLength(300);
  });
});

describe('guard.seedFromSitemaps options', () => {
  it('rejects a malformed proxyUrl at once, and the sitemaps are not requested', async () => {
    const site = await server();
    site.route('/robots.txt', text(`User-agent: *\nAllow: /\nSitemap: ${site.origin}/a.xml\n`));
    site.route('/a.xml', text(urlset([`${site.origin}/ok`])));
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    await expect(guard.seedFromSitemaps(crawler, [site.origin], { proxyUrl: 'not a url' })).rejects.toThrow(
      /^SitemapSeeder option proxyUrl must be an http:\/\/ or https:\/\/ URL/,
    );
    // A download started with it would have failed later, with got's own error escaping as an
    // unhandled rejection that ends the process.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(site.hits('/a.xml')).toBe(0);
  });
});
