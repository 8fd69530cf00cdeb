import { BasicCrawler, CheerioCrawler, HttpCrawler, LogLevel, log } from 'crawlee';
import { describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import {
  datasetItems,
  expectWholeSiteHit,
  freshConfiguration,
  gapsOf,
  servePages,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
  useTestSite,
} from '../support/crawlee-site.js';
import { redirect } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

const env = useTestSite();

function guardFor(options: Partial<ConstructorParameters<typeof RobotsGuard>[0]> = {}) {
  return new RobotsGuard({
    productToken: TOKEN,
    userAgent: USER_AGENT,
    store: env.store,
    unreachable: { giveUpAfterMs: 2500, minRecheckDelayMs: 50, maxRecheckDelayMs: 500 },
    ...options,
  });
}

const byUrl = (a: RobotsDroppedRecord, b: RobotsDroppedRecord) =>
  a.url.localeCompare(b.url) || a.stage.localeCompare(b.stage);

for (const Kind of [CheerioCrawler, HttpCrawler] as const) {
  describe(`${Kind.name} with RobotsGuard`, () => {
    it('fetches exactly the allowed URLs of every origin and records every other one', async () => {
      const config = freshConfiguration();
      const handled: string[] = [];
      const skippedByCrawlee: string[] = [];
      const crawler = new Kind(
        {
          maxConcurrency: 50,
          maxRequestRetries: 1,
          onSkippedRequest: ({ url }) => {
            skippedByCrawlee.push(url);
          },
          async requestHandler(context) {
            const { request } = context;
            handled.push(request.loadedUrl ?? request.url);
            if (request.label === 'leaf') return;
            // CheerioCrawler: enqueueLinks; HttpCrawler: context.addRequests (both go through the guard).
            if ('$' in context) {
              await context.enqueueLinks({ strategy: 'all', label: 'leaf' });
            } else {
              const links = [...String(context.body).matchAll(/href="([^"]+)"/g)].map(
                ([, href]) => new URL(href, request.loadedUrl).href,
              );
              await context.addRequests(links.map((url) => ({ url, label: 'leaf' })));
            }
          },
        },
        config,
      );
      const guard = guardFor().attach(crawler);
      const stats = await crawler.run([`${env.site.main.origin}/`]);

      const { main, other, notFound, forbidden, flaky, tooMany, silent, paced } = env.site;
      // What reached each server.
      const records = (await datasetItems<RobotsDroppedRecord>(config)).sort(byUrl);
      expectWholeSiteHit(env.site, () => ({
        failed: stats.requestsFailed,
        retries: stats.retryHistogram,
        totals: guard.summary().totals,
        records: records.map((r) => [r.url, r.stage, r.reason]),
      }));
      // robots.txt once per origin; the recovering one until it answered (2 x 500, then 200).
      for (const server of [main, other, notFound, forbidden, paced])
        expect(server.hits('/robots.txt')).toBe(1);
      expect(flaky.hits('/robots.txt')).toBe(3);
      // robots.txt was fetched with the crawler's User-Agent, and so were the pages.
      expect(main.requests.every((request) => request.headers['user-agent'] === USER_AGENT)).toBe(true);

      // What the handler saw: the redirects into disallowed paths never reached it.
      expect(handled.sort()).toEqual(
        [
          `${main.origin}/`,
          `${main.origin}/a`,
          `${main.origin}/private/open`,
          `${other.origin}/public`,
          `${notFound.origin}/p`,
          `${forbidden.origin}/p`,
          `${flaky.origin}/d1`,
          `${flaky.origin}/d2`,
          `${paced.origin}/g1`,
          `${paced.origin}/g2`,
          `${paced.origin}/g3`,
        ].sort(),
      );
      // Skips are not failures, and nothing was retried.
      expect(stats.requestsFailed).toBe(0);
      expect(stats.requestsFinished).toBe(handled.length);
      expect(stats.retryHistogram).toEqual([handled.length]);

      // One record per URL not fetched.
      expect(records.map((r) => [r.url, r.stage, r.reason])).toEqual(
        [
          [`${main.origin}/private/x`, 'enqueue', 'disallowed'],
          [`${main.origin}/private/y`, 'redirect', 'disallowed'],
          [`${other.origin}/secret`, 'enqueue', 'disallowed'],
          [`${other.origin}/secret`, 'redirect', 'disallowed'],
          [`${other.origin}/secret`, 'redirect', 'disallowed'],
          [`${tooMany.origin}/t1`, 'dequeue', 'robots-unreachable'],
          [`${silent.origin}/s1`, 'dequeue', 'robots-unreachable'],
        ].sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1])),
      );
      const privateX = records.find((r) => r.url.endsWith('/private/x'))!;
      expect(privateX).toMatchObject({
        requestUrl: `${main.origin}/private/x`,
        origin: main.origin,
        productToken: 'examplebot',
        rule: { kind: 'disallow', pattern: '/private', line: 6 },
        group: { token: 'examplebot', how: 'token', userAgentLines: [4] },
        robotsTxtUrl: `${main.origin}/robots.txt`,
        robotsStatus: 200,
      });
      expect(Number.isNaN(Date.parse(privateX.time))).toBe(false);
      const viaRedirect = records.filter((r) => r.stage === 'redirect').map((r) => r.requestUrl);
      expect(viaRedirect.sort()).toEqual(
        [
          `${main.origin}/redirect-chain`,
          `${main.origin}/redirect-other`,
          `${main.origin}/redirect-same`,
        ].sort(),
      );
      const silentRecord = records.find((r) => r.origin === silent.origin)!;
      expect(silentRecord).toMatchObject({ rule: null, robotsStatus: 'timeout' });
      expect(records.find((r) => r.origin === tooMany.origin)).toMatchObject({ robotsStatus: 429 });

      // The user's onSkippedRequest still hears about every skip.
      expect(skippedByCrawlee.length).toBe(records.length);

      // The summary says the same.
      const summary = guard.summary();
      expect(summary.totals).toMatchObject({
        allowed: handled.length + 3,
        dropped: 7,
        givenUp: 2,
        hopsStopped: 3,
      });
      const flakyOrigin = summary.origins.find((o) => o.origin === flaky.origin)!;
      expect(flakyOrigin).toMatchObject({ robotsStatus: 200, allowed: 2, deferred: 2, dropped: 0 });
      const mainOrigin = summary.origins.find((o) => o.origin === main.origin)!;
      expect(mainOrigin.topRules[0]).toMatchObject({
        kind: 'disallow',
        pattern: '/private',
        line: 6,
        drops: 2,
      });
      expect(summary.origins.find((o) => o.origin === paced.origin)?.crawlDelaySeconds).toBe(1);
    });

    it('leaves the session of a skipped request as it was', async () => {
      // One session that a single failure retires: a skip counted as a failure would show here.
      const config = freshConfiguration();
      const sessions: { path: string; id: string; errorScore: number }[] = [];
      const crawler = new Kind(
        {
          maxConcurrency: 1,
          maxRequestRetries: 0,
          sessionPoolOptions: { maxPoolSize: 1, sessionOptions: { maxErrorScore: 1 } },
          preNavigationHooks: [
            ({ request, session }) => {
              sessions.push({
                path: new URL(request.url).pathname,
                id: session!.id,
                errorScore: session!.errorScore,
              });
            },
          ],
          async requestHandler() {},
        },
        config,
      );
      guardFor().attach(crawler);
      const { main } = env.site;
      const stats = await crawler.run([
        `${main.origin}/redirect-same`,
        `${main.origin}/redirect-other`,
        `${main.origin}/a`,
      ]);
      expect(stats.requestsFinished).toBe(1);
      expect(sessions.map((s) => s.path)).toEqual(['/redirect-same', '/redirect-other', '/a']);
      expect(new Set(sessions.map((s) => s.id)).size).toBe(1);
      expect(sessions.map((s) => s.errorScore)).toEqual([0, 0, 0]);
      const records = await datasetItems<RobotsDroppedRecord>(config);
      expect(records.map((r) => r.stage)).toEqual(['redirect', 'redirect']);
    });

    it('paces a redirect hop from the redirect, an answer of its origin', async () => {
      const { paced } = env.site;
      // Crawl-delay: 1. The redirect comes 300 ms after its request reached the server.
      paced.route('/slow-hop', (request, response) => {
        setTimeout(() => redirect('/hop-target', 302)(request, response), 300);
      });
      servePages(paced, ['/hop-target']);
      const crawler = new Kind({ requestHandler() {} }, freshConfiguration());
      guardFor({ logSummary: false }).attach(crawler);
      const stats = await crawler.run([`${paced.origin}/slow-hop`]);

      expect(stats.requestsFinished).toBe(1);
      // Paced from when the request was handed to got, the hop came a delay after the request: a
      // request that waited for a connection while the one before it did not made gaps too short.
      const [gap] = gapsOf(await paced.arrivals(['/slow-hop', '/hop-target']));
      expect(gap).toBeGreaterThanOrEqual(1290);
    });
  });
}

describe('BasicCrawler with RobotsGuard', () => {
  it("sends the guard's User-Agent with sendRequest, unless the request or the call names one", async () => {
    const { main } = env.site;
    const crawler = new BasicCrawler(
      {
        async requestHandler({ request, sendRequest }) {
          await sendRequest();
          if (request.label === 'first')
            await sendRequest({ url: `${main.origin}/hop`, headers: { 'User-Agent': 'Own/2.0' } });
        },
      },
      freshConfiguration(),
    );
    const guard = guardFor({ logSummary: false }).attach(crawler);
    await crawler.run([
      { url: `${main.origin}/a`, label: 'first' },
      { url: `${main.origin}/private/open`, headers: { 'user-agent': 'Request/3.0' } },
      `${main.origin}/private/x`,
    ]);

    const agents = main.requests.map((request) => `${request.path} ${request.headers['user-agent']}`);
    expect(agents.sort()).toEqual(
      [`/robots.txt ${USER_AGENT}`, `/a ${USER_AGENT}`, '/hop Own/2.0', '/private/open Request/3.0'].sort(),
    );
    expect(guard.summary().totals).toMatchObject({ allowed: 2, dropped: 1 });
  });
});
