import { CheerioCrawler, LogLevel, log } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  MAIN_ROBOTS,
  page,
  pagesHit,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

interface ComparisonSite {
  /** Groups for ExampleBot and for `*` (which disallows everything). */
  named: TestHttpServer;
  /** robots.txt answers 500 with an HTML error page. */
  broken: TestHttpServer;
  /** `Disallow: /secret`; `/go` redirects there. */
  redirecting: TestHttpServer;
  urls: string[];
  close(): Promise<void>;
}

async function startComparisonSite(): Promise<ComparisonSite> {
  const [named, broken, redirecting] = await Promise.all([
    startHttpServer(),
    startHttpServer(),
    startHttpServer(),
  ]);
  named.route('/robots.txt', text(MAIN_ROBOTS));
  named.route('/a', page('a'));
  broken.route('/robots.txt', text('<html><body>Internal Server Error</body></html>', 500));
  broken.route('/p', page('p'));
  redirecting.route('/robots.txt', text('User-agent: *\nDisallow: /secret\n'));
  redirecting.route('/go', redirect('/secret'));
  redirecting.route('/secret', page('secret'));
  return {
    named,
    broken,
    redirecting,
    urls: [`${named.origin}/a`, `${broken.origin}/p`, `${redirecting.origin}/go`],
    close: async () => {
      await Promise.all([named.close(), broken.close(), redirecting.close()]);
    },
  };
}

const sites: ComparisonSite[] = [];
const servers: TestHttpServer[] = [];
const stores: RobotsStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(sites.splice(0).map((site) => site.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("RobotsGuard compared with crawlee's respectRobotsTxtFile", () => {
  it('differs where RFC 9309 says so: 5xx robots.txt, full User-Agent, redirects, records', async () => {
    // crawlee's own check, given the same full User-Agent.
    const builtinSite = await startComparisonSite();
    sites.push(builtinSite);
    const builtinConfig = freshConfiguration();
    const builtin = new CheerioCrawler(
      {
        respectRobotsTxtFile: { userAgent: USER_AGENT },
        maxRequestRetries: 0,
        requestHandler() {},
      },
      builtinConfig,
    );
    const builtinStats = await builtin.run(builtinSite.urls);

    // The guard.
    const guardSite = await startComparisonSite();
    sites.push(guardSite);
    const store = new RobotsStore({ userAgent: USER_AGENT, retry: { initialDelayMs: 100, maxDelayMs: 100 } });
    stores.push(store);
    const guardConfig = freshConfiguration();
    const guarded = new CheerioCrawler({ maxRequestRetries: 0, requestHandler() {} }, guardConfig);
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      unreachable: { giveUpAfterMs: 500, minRecheckDelayMs: 50 },
    }).attach(guarded);
    const guardStats = await guarded.run(guardSite.urls);

    // 1. An HTML 500 page as robots.txt: crawlee parses it as a file and allows everything;
    //    RFC 9309 2.3.1.4: unreachable means complete disallow (the guard defers, then gives up).
    expect(pagesHit(builtinSite.broken)).toEqual(['/p']);
    expect(pagesHit(guardSite.broken)).toEqual([]);

    // 2. A full User-Agent: crawlee falls back to the `*` group (which disallows everything);
    //    RFC 9309 2.2.1: the product token selects the ExampleBot group, which allows /a.
    expect(pagesHit(builtinSite.named)).toEqual([]);
    expect(pagesHit(guardSite.named)).toEqual(['/a']);

    // 3. A redirect into a disallowed path: crawlee follows it; the guard stops the hop.
    expect(pagesHit(builtinSite.redirecting)).toEqual(['/go', '/secret']);
    expect(pagesHit(guardSite.redirecting)).toEqual(['/go']);

    // 4. robots.txt is fetched with a generated browser User-Agent by crawlee, with the crawler's
    //    own by the guard.
    const robotsUserAgent = (server: TestHttpServer) =>
      server.requests.find((request) => request.path === '/robots.txt')?.headers['user-agent'];
    expect(robotsUserAgent(builtinSite.named)).not.toContain(TOKEN);
    expect(robotsUserAgent(guardSite.named)).toBe(USER_AGENT);

    // 5. crawlee leaves a log line; the guard leaves a record per URL, and no failure.
    expect(await datasetItems(builtinConfig)).toEqual([]);
    const records = await datasetItems<RobotsDroppedRecord>(guardConfig);
    expect(records.map((r) => [r.url, r.stage, r.reason]).sort()).toEqual(
      [
        [`${guardSite.broken.origin}/p`, 'dequeue', 'robots-unreachable'],
        [`${guardSite.redirecting.origin}/secret`, 'redirect', 'disallowed'],
      ].sort(),
    );
    expect(guardStats.requestsFailed).toBe(0);
    expect(builtinStats.requestsFailed).toBe(0);
  });
});

describe("RobotsGuard on a crawler with crawlee's respectRobotsTxtFile on", () => {
  it('turns the option off and says so: URLs its `*` reading would skip are decided and recorded by the guard', async () => {
    const site = await startHttpServer();
    servers.push(site);
    site.route('/robots.txt', text(MAIN_ROBOTS));
    site.route('/a', page('a', ['/private/open', '/private/x']));
    site.route('/private/open', page('open'));
    const store = new RobotsStore({ userAgent: USER_AGENT });
    stores.push(store);
    const config = freshConfiguration();
    const skipped: string[] = [];
    const crawler = new CheerioCrawler(
      {
        respectRobotsTxtFile: true,
        async requestHandler({ enqueueLinks }) {
          await enqueueLinks();
        },
        onSkippedRequest({ url }) {
          skipped.push(url);
        },
      },
      config,
    );
    const { log: guardLog, warnings } = captureLog();
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, log: guardLog });
    guard.attach(crawler);
    await crawler.run([`${site.origin}/a`]);

    // The ExampleBot group allows /a and /private/open; crawlee's `*` reading disallowed everything.
    expect(pagesHit(site)).toEqual(['/a', '/private/open']);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage])).toEqual([[`${site.origin}/private/x`, 'enqueue']]);
    expect(skipped).toEqual([`${site.origin}/private/x`]);
    expect(guard.summary().totals).toMatchObject({ allowed: 2, dropped: 1 });
    expect(warnings().filter((w) => w.includes('respectRobotsTxtFile'))).toHaveLength(1);
  });
});
