import {
  type BaseHttpClient,
  CheerioCrawler,
  GotScrapingHttpClient,
  HttpCrawler,
  LogLevel,
  log,
} from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  page,
  pagesHit,
  quickStore,
  recoveringRobots,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { FetchHttpClient, GotInterfaceHttpClient } from '../support/http-clients.js';
import { redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

const servers: TestHttpServer[] = [];
const stores: RobotsStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * `main` disallows /private/ and redirects into it (/a), into a disallowed path of `other` (/b),
 * to an allowed page of its own (/c) and of `third` (/d). `other` and `third` disallow /secret;
 * each is reached by one redirect only, so its robots.txt is never known before that redirect.
 */
async function site() {
  const [main, other, third] = await Promise.all([startHttpServer(), startHttpServer(), startHttpServer()]);
  servers.push(main, other, third);
  main.route('/robots.txt', text('User-agent: *\nDisallow: /private/\n'));
  main.route('/a', redirect('/private/x', 301));
  main.route('/b', redirect(`${other.origin}/secret`, 302));
  main.route('/c', redirect('/ok', 301));
  main.route('/d', redirect(`${third.origin}/public`, 307));
  for (const path of ['/private/x', '/ok']) main.route(path, page(path));
  for (const server of [other, third]) {
    server.route('/robots.txt', text('User-agent: *\nDisallow: /secret\n'));
    for (const path of ['/secret', '/public']) server.route(path, page(path));
  }
  const start = ['/a', '/b', '/c', '/d'].map((path) => `${main.origin}${path}`);
  return { main, other, third, start };
}

function guard(): RobotsGuard {
  const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 1000 });
  stores.push(store);
  return new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false });
}

/** The origins with hops followed into them, and how many. */
function hopsFollowedOf(attached: RobotsGuard): [string, number][] {
  return attached
    .summary()
    .origins.filter((origin) => origin.hopsFollowed > 0)
    .map((origin) => [origin.origin, origin.hopsFollowed]);
}

const byRequestUrl = (a: { requestUrl: string }, b: { requestUrl: string }) =>
  a.requestUrl.localeCompare(b.requestUrl);

for (const Kind of [HttpCrawler, CheerioCrawler] as const) {
  describe(`${Kind.name} with a custom httpClient`, () => {
    it('stops a redirect hop into a disallowed path before it is requested when the client asks followRedirect', async () => {
      const { main, other, third, start } = await site();
      const config = freshConfiguration();
      const crawlerLog = captureLog();
      const handled: string[] = [];
      const askedByUser: string[] = [];
      const crawler = new Kind(
        {
          httpClient: new GotInterfaceHttpClient(),
          log: crawlerLog.log,
          maxRequestRetries: 0,
          // The user's own followRedirect keeps being asked.
          preNavigationHooks: [
            (_context, gotOptions) => {
              gotOptions.followRedirect = (response: { url: string }) => {
                askedByUser.push(response.url);
                return true;
              };
            },
          ],
          requestHandler({ request }) {
            handled.push(request.loadedUrl ?? request.url);
          },
        },
        config,
      );
      const attached = guard().attach(crawler);
      const stats = await crawler.run(start);

      // The disallowed hops never reached their servers. /d went to an origin whose robots.txt
      // was not known yet: it was fetched again once it was, and its hop followed then.
      expect(pagesHit(main)).toEqual(['/a', '/b', '/c', '/d', '/d', '/ok']);
      expect(pagesHit(other)).toEqual([]);
      expect(pagesHit(third)).toEqual(['/public']);
      for (const server of [main, other, third]) expect(server.hits('/robots.txt')).toBe(1);
      expect(handled.sort()).toEqual([`${main.origin}/ok`, `${third.origin}/public`].sort());
      const records = (await datasetItems<RobotsDroppedRecord>(config)).sort(byRequestUrl);
      expect(records).toHaveLength(2);
      expect(records[0]).toMatchObject({
        url: `${main.origin}/private/x`,
        requestUrl: `${main.origin}/a`,
        stage: 'redirect',
        reason: 'disallowed',
        rule: { kind: 'disallow', pattern: '/private/', line: 2 },
      });
      expect(records[1]).toMatchObject({
        url: `${other.origin}/secret`,
        requestUrl: `${main.origin}/b`,
        origin: other.origin,
        stage: 'redirect',
        reason: 'disallowed',
        rule: { kind: 'disallow', pattern: '/secret', line: 2 },
      });
      expect(stats.requestsFailed).toBe(0);
      expect(stats.requestsFinished).toBe(2);
      expect(askedByUser).toContain(`${main.origin}/c`);
      // The one hop let into another origin, counted once though its request was fetched twice.
      expect(hopsFollowedOf(attached)).toEqual([[third.origin, 1]]);
      expect(crawlerLog.warnings().filter((line) => line.includes('RobotsGuard'))).toEqual([]);
    });

    it('drops a page its client reached through a disallowed redirect, unasked, before any hook or handler sees it, and warns once', async () => {
      const { main, other, third, start } = await site();
      const config = freshConfiguration();
      const crawlerLog = captureLog();
      const handled: string[] = [];
      const postHooked: string[] = [];
      const crawler = new Kind(
        {
          httpClient: new FetchHttpClient(),
          log: crawlerLog.log,
          maxRequestRetries: 0,
          postNavigationHooks: [
            ({ request }) => {
              postHooked.push(request.url);
            },
          ],
          requestHandler({ request }) {
            handled.push(request.loadedUrl ?? request.url);
          },
        },
        config,
      );
      const attached = guard().attach(crawler);
      const stats = await crawler.run(start);

      // fetch follows redirects inside itself: the hops were requested before anyone could check
      // them. What the guard can still do: keep their pages from the crawl, and say so.
      expect(pagesHit(main)).toEqual(['/a', '/b', '/c', '/d', '/ok', '/private/x']);
      expect(pagesHit(other)).toEqual(['/secret']);
      expect(pagesHit(third)).toEqual(['/public']);
      expect(handled.sort()).toEqual([`${main.origin}/ok`, `${third.origin}/public`].sort());
      expect(postHooked.sort()).toEqual([`${main.origin}/c`, `${main.origin}/d`]);
      const records = (await datasetItems<RobotsDroppedRecord>(config)).sort(byRequestUrl);
      expect(records.map((r) => [r.url, r.requestUrl, r.stage, r.reason])).toEqual([
        [`${main.origin}/private/x`, `${main.origin}/a`, 'navigation', 'disallowed'],
        [`${other.origin}/secret`, `${main.origin}/b`, 'navigation', 'disallowed'],
      ]);
      expect(records[0]).toMatchObject({ rule: { kind: 'disallow', pattern: '/private/', line: 2 } });
      // The page of another origin its client reached, let into the crawl.
      expect(hopsFollowedOf(attached)).toEqual([[third.origin, 1]]);
      expect(stats.requestsFailed).toBe(0);
      expect(stats.requestsFinished).toBe(2);
      const warnings = crawlerLog.warnings().filter((line) => line.includes('RobotsGuard'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('FetchHttpClient');
      expect(warnings[0]).toContain('followRedirect');
    });
  });
}

describe('RobotsGuard and the httpClient of HTTP crawlers', () => {
  it('defers a request whose hop enters an origin with an unreachable robots.txt, and follows the hop once it answers', async () => {
    const [main, flaky] = await Promise.all([startHttpServer(), startHttpServer()]);
    servers.push(main, flaky);
    main.route('/robots.txt', text('User-agent: *\nDisallow: /private/\n'));
    main.route('/e', redirect(`${flaky.origin}/page`, 302));
    flaky.route('/robots.txt', recoveringRobots(2, 'User-agent: *\nDisallow: /never\n'));
    flaky.route('/page', page('/page'));
    const store = quickStore();
    stores.push(store);
    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new HttpCrawler(
      {
        httpClient: new GotInterfaceHttpClient(),
        maxRequestRetries: 0,
        requestHandler({ request }) {
          handled.push(request.loadedUrl ?? request.url);
        },
      },
      config,
    );
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      logSummary: false,
      unreachable: { giveUpAfterMs: 5000, minRecheckDelayMs: 50, maxRecheckDelayMs: 500 },
    }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/e`]);

    // RFC 9309 2.3.1.4: while robots.txt answers 500 the hop is not requested. followRedirect
    // cannot wait for robots.txt: /e was fetched and stopped at the hop, and the request then
    // waited for the hop's origin (2 x 500, then 200) without fetching /e again; /e is fetched
    // once more to follow the allowed hop.
    expect(flaky.hits('/robots.txt')).toBe(3);
    expect(pagesHit(flaky)).toEqual(['/page']);
    expect(main.hits('/e')).toBe(2);
    expect(handled).toEqual([`${flaky.origin}/page`]);
    expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
    expect(stats.requestsFailed).toBe(0);
    // One request, allowed once however often it came back for its hop.
    expect(guard.summary().totals).toMatchObject({ allowed: 1, dropped: 0, givenUp: 0 });
  });

  it("keeps Crawlee's own got-scraping client on got's beforeRedirect hook, and treats any other client as custom", () => {
    class OwnStream extends GotScrapingHttpClient {
      override stream(...args: Parameters<GotScrapingHttpClient['stream']>) {
        return super.stream(...args);
      }
    }
    const postHooks = (httpClient?: BaseHttpClient) => {
      const crawler = new HttpCrawler({ httpClient, requestHandler() {} }, freshConfiguration());
      const hooks = (crawler as unknown as { postNavigationHooks: unknown[] }).postNavigationHooks;
      const before = hooks.length;
      guard().attach(crawler);
      return hooks.length - before;
    };
    // Every HTTP crawler gets one, for Crawl-delay (the response time); a custom client one more.
    expect(postHooks()).toBe(1);
    expect(postHooks(new GotScrapingHttpClient())).toBe(1);
    expect(postHooks(new OwnStream())).toBe(2);
    expect(postHooks(new FetchHttpClient())).toBe(2);
  });
});
