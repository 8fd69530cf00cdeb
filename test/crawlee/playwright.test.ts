import { createPlaywrightRouter, LogLevel, log, PlaywrightCrawler } from 'crawlee';
import { describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import { CHROMIUM_LAUNCH_OPTIONS } from '../support/chromium.js';
import {
  datasetItems,
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
import { redirect, startHttpServer, text } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

const CHROMIUM = { launchOptions: CHROMIUM_LAUNCH_OPTIONS };

useTemporaryStorageDir();

const env = useTestSite();

describe('PlaywrightCrawler with RobotsGuard (Debian Chromium)', () => {
  it('stops disallowed redirect hops and script navigations in the browser, before they are sent', async () => {
    const { main, other, flaky, tooMany, silent, paced } = env.site;
    // A page that navigates by script, a meta refresh, and an iframe, all into disallowed paths.
    main.route('/script-nav', page('script', [], `<script>location.href = '/private/by-script';</script>`));
    main.route(
      '/meta-refresh',
      page('meta', [], `<meta http-equiv="refresh" content="0; url=/private/by-meta">`),
    );
    main.route(
      '/with-iframe',
      (_request, response) =>
        void response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<iframe src="${other.origin}/secret"></iframe>`),
    );
    for (const path of ['/private/by-script', '/private/by-meta']) main.route(path, page(path));
    main.route('/redirect-allowed', redirect('/a', 302));

    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 4,
        maxRequestRetries: 1,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          // Give script navigations and meta refreshes time to start.
          await browserPage.waitForTimeout(300);
          handled.push(request.url);
        },
      },
      config,
    );
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: env.store,
      unreachable: { giveUpAfterMs: 2500, minRecheckDelayMs: 50, maxRecheckDelayMs: 500 },
    }).attach(crawler);
    const stats = await crawler.run([
      `${main.origin}/a`,
      `${main.origin}/private/x`,
      `${main.origin}/redirect-same`,
      `${main.origin}/redirect-other`,
      `${main.origin}/redirect-chain`,
      `${main.origin}/redirect-allowed`,
      `${main.origin}/script-nav`,
      `${main.origin}/meta-refresh`,
      `${main.origin}/with-iframe`,
      `${flaky.origin}/d1`,
      `${tooMany.origin}/t1`,
      `${silent.origin}/s1`,
      `${paced.origin}/g1`,
    ]);

    // Nothing disallowed left the browser: not the hops, not the page's own navigations.
    expect(pagesHit(main)).toEqual([
      '/a',
      '/a',
      '/hop-1',
      '/meta-refresh',
      '/redirect-allowed',
      '/redirect-chain',
      '/redirect-other',
      '/redirect-same',
      '/script-nav',
      '/with-iframe',
    ]);
    expect(pagesHit(other)).toEqual([]);
    expect(pagesHit(flaky)).toEqual(['/d1']);
    expect(pagesHit(tooMany)).toEqual([]);
    expect(pagesHit(silent)).toEqual([]);
    expect(main.hits('/robots.txt')).toBe(1);
    expect(other.hits('/robots.txt')).toBe(1);
    // The page requests carried the crawler's User-Agent (a CDP override; the browser's own
    // favicon request is not the page's).
    const pageRequests = main.requests.filter((r) => r.path !== '/favicon.ico');
    expect(pageRequests.every((r) => r.headers['user-agent'] === USER_AGENT)).toBe(true);

    expect(handled.sort()).toEqual(
      [
        `${main.origin}/a`,
        `${main.origin}/redirect-allowed`,
        `${main.origin}/script-nav`,
        `${main.origin}/meta-refresh`,
        `${main.origin}/with-iframe`,
        `${flaky.origin}/d1`,
        `${paced.origin}/g1`,
      ].sort(),
    );
    expect(stats.requestsFailed).toBe(0);
    expect(stats.retryHistogram).toEqual([handled.length]);

    const records = await datasetItems<RobotsDroppedRecord>(config);
    const seen = records.map((r) => [
      r.url.replace(main.origin, 'main').replace(other.origin, 'other'),
      r.stage,
      r.reason,
    ]);
    expect(seen.sort()).toEqual(
      [
        ['main/private/x', 'enqueue', 'disallowed'],
        ['main/private/y', 'redirect', 'disallowed'],
        ['other/secret', 'redirect', 'disallowed'],
        ['other/secret', 'redirect', 'disallowed'],
        ['main/private/by-script', 'navigation', 'disallowed'],
        ['main/private/by-meta', 'navigation', 'disallowed'],
        ['other/secret', 'navigation', 'disallowed'],
        [`${tooMany.origin}/t1`, 'dequeue', 'robots-unreachable'],
        [`${silent.origin}/s1`, 'dequeue', 'robots-unreachable'],
      ].sort(),
    );
    const hop = records.find((r) => r.url === `${main.origin}/private/y`)!;
    expect(hop).toMatchObject({
      requestUrl: `${main.origin}/redirect-same`,
      rule: { kind: 'disallow', pattern: '/private', line: 6 },
      group: { token: 'examplebot', how: 'token' },
    });
    expect(guard.summary().totals.hopsStopped).toBe(6);
  });
});

describe("PlaywrightCrawler with RobotsGuard: the browser's icon requests (Debian Chromium)", () => {
  it('sends no /favicon.ico, even from pages closed as soon as they loaded', async () => {
    // Chromium asks for the page's icon around its load event; a page's own CDP session lets the
    // request go as the page closes, which a handler that returns at once makes the common case.
    const site = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /favicon.ico\n') });
    try {
      const paths = Array.from({ length: 40 }, (_, i) => `/p${i}`);
      for (const path of paths) site.route(path, page(path));
      const crawler = new PlaywrightCrawler(
        { launchContext: CHROMIUM, minConcurrency: 4, maxConcurrency: 4, async requestHandler() {} },
        freshConfiguration(),
      );
      new RobotsGuard({
        productToken: TOKEN,
        userAgent: USER_AGENT,
        store: env.store,
        logSummary: false,
      }).attach(crawler);
      await crawler.run(paths.map((path) => `${site.origin}${path}`));
      expect(pagesHit(site)).toEqual([...paths].sort());
    } finally {
      await site.close();
    }
    // Forty browser pages take about 20 s here on a quiet machine, with or without the guard.
  }, 120_000);
});

describe('PlaywrightCrawler with RobotsGuard: Crawl-delay (Debian Chromium)', () => {
  it('spaces the page loads of an origin by its whole Crawl-delay as they leave the browser', async () => {
    const { paced } = env.site;
    const paths = ['/q1', '/q2', '/q3', '/q4', '/q5'];
    servePages(paced, paths);
    const crawler = new PlaywrightCrawler(
      { launchContext: CHROMIUM, maxConcurrency: 4, navigationTimeoutSecs: 15, requestHandler() {} },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    await crawler.run(paths.map((path) => `${paced.origin}${path}`));

    expect(pagesHit(paced)).toEqual(paths);
    // Crawl-delay: 1. Reckoned from the navigation hook alone, the browser's varying latency made
    // gaps of 940 to 983 ms. A few milliseconds are left to the loopback and the relay's clock.
    for (const gap of gapsOf(await paced.arrivals(paths))) expect(gap).toBeGreaterThanOrEqual(990);
  });

  it("paces redirect hops into another origin by that origin's Crawl-delay", async () => {
    const { main, paced } = env.site;
    // paced asks for Crawl-delay: 1; main's pages redirect into it.
    for (const path of ['/g1', '/g2', '/g3'])
      main.route(`/to${path}`, redirect(`${paced.origin}${path}`, 302));
    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 3,
        navigationTimeoutSecs: 15,
        requestHandler({ request }) {
          handled.push(request.loadedUrl ?? request.url);
        },
      },
      config,
    );
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(
      crawler,
    );
    const stats = await crawler.run(['/to/g1', '/to/g2', '/to/g3'].map((path) => `${main.origin}${path}`));

    expect(pagesHit(paced)).toEqual(['/g1', '/g2', '/g3']);
    // Each hop counted once, as it went: not when it was deferred for its slot.
    expect(guard.summary().origins.find((o) => o.origin === paced.origin)).toMatchObject({
      allowed: 0,
      hopsFollowed: 3,
    });
    for (const gap of gapsOf(await paced.arrivals(['/g1', '/g2', '/g3'])))
      expect(gap).toBeGreaterThanOrEqual(950);
    expect(handled.sort()).toEqual(['/g1', '/g2', '/g3'].map((path) => `${paced.origin}${path}`));
    expect(stats.requestsFailed).toBe(0);
    expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
  });

  it('fetches a page that redirects into a busy paced origin twice at most: once for its slot, once in it', async () => {
    const { main, paced } = env.site;
    // paced asks for Crawl-delay: 1; its own pages are crawled at the same time.
    const targets = ['/k1', '/k2', '/k3', '/k4'];
    for (const path of targets) main.route(`/to${path}`, redirect(`${paced.origin}${path}`, 302));
    const direct = ['/k5', '/k6', '/k7', '/k8'];
    servePages(paced, [...targets, ...direct]);
    const crawler = new PlaywrightCrawler(
      { launchContext: CHROMIUM, maxConcurrency: 4, navigationTimeoutSecs: 15, requestHandler() {} },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([
      ...targets.map((path) => `${main.origin}/to${path}`),
      ...direct.map((path) => `${paced.origin}${path}`),
    ]);

    expect(stats.requestsFailed).toBe(0);
    expect(pagesHit(paced)).toEqual([...targets, ...direct]);
    // Deferred again whenever a page load of the origin had left late, a page was fetched up to 15 times.
    for (const path of targets) expect(main.hits(`/to${path}`)).toBeLessThanOrEqual(2);
    for (const gap of gapsOf(await paced.arrivals([...targets, ...direct])))
      expect(gap).toBeGreaterThanOrEqual(950);
  });

  it("paces the page loads of the handler's own page.goto, and the crawler's after them", async () => {
    const { paced } = env.site;
    const paths = ['/h1', '/h1-next', '/h1-last', '/h2', '/h2-next', '/h2-last'];
    servePages(paced, paths);
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 2,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          // Two more pages of the same origin, loaded by the handler itself.
          await browserPage.goto(`${request.url}-next`);
          await browserPage.goto(`${request.url}-last`);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${paced.origin}/h1`, `${paced.origin}/h2`]);

    expect(pagesHit(paced)).toEqual([...paths].sort());
    // Crawl-delay: 1, between any two page loads of the origin, whoever started them.
    for (const gap of gapsOf(await paced.arrivals(paths))) expect(gap).toBeGreaterThanOrEqual(990);
    expect(stats.requestsFailed).toBe(0);
  });

  it('paces a redirect hop within the origin from the redirect, for the crawler, the handler and the page', async () => {
    const { paced } = env.site;
    // Crawl-delay: 1. /r redirects within the origin 300 ms after its request reached the server;
    // the handler's own goto, and a navigation the page then starts by script, redirect too.
    paced.route('/r', (request, response) => {
      setTimeout(() => redirect('/r-target', 302)(request, response), 300);
    });
    paced.route('/r2', redirect('/r2-target', 302));
    paced.route(
      '/r2-target',
      page('/r2-target', [], `<script>addEventListener('load', () => { location.href = '/r3'; });</script>`),
    );
    paced.route('/r3', redirect('/r3-target', 302));
    servePages(paced, ['/r-target', '/r3-target']);
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        navigationTimeoutSecs: 15,
        async requestHandler({ page: browserPage }) {
          await browserPage.goto(`${paced.origin}/r2`);
          await browserPage.waitForURL('**/r3-target', { timeout: 10_000 });
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${paced.origin}/r`]);

    expect(stats.requestsFailed).toBe(0);
    const paths = ['/r', '/r-target', '/r2', '/r2-target', '/r3', '/r3-target'];
    expect(pagesHit(paced)).toEqual([...paths].sort());
    const [hop, ...gaps] = gapsOf(await paced.arrivals(paths));
    // The redirect is an answer of the origin: the hop leaves a delay after it, as in HTTP crawlers.
    expect(hop).toBeGreaterThanOrEqual(1290);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(990);
  });

  it('paces a redirect loop within the origin until the navigation timeout fails its request', async () => {
    const { paced } = env.site;
    // Crawl-delay: 1. Each hop waits a delay: the loop ends at the navigation timeout, well before
    // the browser's limit of 20 redirects.
    paced.route('/loop-a', redirect('/loop-b', 302));
    paced.route('/loop-b', redirect('/loop-a', 302));
    servePages(paced, ['/after-loop']);
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 4,
        requestHandler() {},
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${paced.origin}/loop-a`, `${paced.origin}/after-loop`]);

    expect(stats.requestsFailed).toBe(1);
    expect(stats.requestsFinished).toBe(1);
    const arrivals = await paced.arrivals(['/loop-a', '/loop-b', '/after-loop']);
    expect(arrivals.length).toBeLessThanOrEqual(7);
    const gaps = gapsOf(arrivals);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(990);
    // The page load that the timeout gave up held the next one of the origin until its page closed.
    expect(gaps[gaps.length - 1]).toBeLessThan(4000);
  });

  it("paces the navigations a page starts, and the redirects of the handler's page.goto into the origin", async () => {
    const { main, paced } = env.site;
    // paced asks for Crawl-delay: 1. Its page moves on by script once loaded, then by a meta
    // refresh; the handler then loads a page of main that redirects into paced.
    paced.route(
      '/s1',
      page('/s1', [], `<script>addEventListener('load', () => { location.href = '/s2'; });</script>`),
    );
    paced.route('/s2', page('/s2', [], `<meta http-equiv="refresh" content="0; url=/s3">`));
    servePages(paced, ['/s3', '/s4']);
    main.route('/to-s4', redirect(`${paced.origin}/s4`, 302));
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        navigationTimeoutSecs: 15,
        async requestHandler({ page: browserPage }) {
          await browserPage.waitForURL('**/s3', { timeout: 10_000 });
          await browserPage.goto(`${main.origin}/to-s4`);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${paced.origin}/s1`]);

    expect(pagesHit(paced)).toEqual(['/s1', '/s2', '/s3', '/s4']);
    for (const gap of gapsOf(await paced.arrivals(['/s1', '/s2', '/s3', '/s4']))) {
      expect(gap).toBeGreaterThanOrEqual(990);
    }
    expect(stats.requestsFailed).toBe(0);
  });

  it('spaces by the whole delay the navigations pages of an origin start by script while others load', async () => {
    const { paced } = env.site;
    paced.route('/robots.txt', text('User-agent: *\nCrawl-delay: 2\n'));
    // Each page moves on by script once loaded, while the other pages of the origin load.
    const starts = ['/v1', '/v2', '/v3', '/v4', '/v5'];
    const nexts = starts.map((path) => `${path}-next`);
    for (const path of starts)
      paced.route(
        path,
        page(
          path,
          [],
          `<script>addEventListener('load', () => { location.href = '${path}-next'; });</script>`,
        ),
      );
    servePages(paced, nexts);
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        minConcurrency: 5,
        maxConcurrency: 5,
        navigationTimeoutSecs: 30,
        requestHandlerTimeoutSecs: 60,
        async requestHandler({ request, page: browserPage }) {
          await browserPage.waitForURL(`${request.url}-next`, { timeout: 40_000 });
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run(starts.map((path) => `${paced.origin}${path}`));

    expect(pagesHit(paced)).toEqual([...starts, ...nexts].sort());
    // Crawl-delay: 2, measured by the relay's own clock: no slack.
    const gaps = gapsOf(await paced.arrivals([...starts, ...nexts]));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2000);
    expect(stats.requestsFailed).toBe(0);
  }, 120_000);

  it.each([
    ['the page navigates again', `location.href = '/after';`],
    [
      'the page stops it, and navigates later',
      `window.stop(); setTimeout(() => { location.href = '/after'; }, 1500);`,
    ],
  ])(
    'lets the next page load of an origin go once the browser cancels the one before it: %s',
    async (_, cancel) => {
      const { main, paced } = env.site;
      // Crawl-delay: 1. The page moves on by script to /held, whose server holds its answer; once
      // /held has reached the server (main tells the page), the page cancels it. The Fetch domain
      // tells nothing of a cancelled load: left waiting for its answer, /after would wait until the
      // page closed, or for the navigation timeout and the delay (30 s after /held, measured).
      let reached!: () => void;
      const heldReached = new Promise<void>((resolve) => {
        reached = resolve;
      });
      paced.route('/held', (_request, response) => {
        reached();
        setTimeout(() => {
          if (!response.destroyed) response.writeHead(200, { 'content-type': 'text/html' }).end('held');
        }, 8000).unref();
      });
      main.route('/held-reached', async (_request, response) => {
        await heldReached;
        response.writeHead(204).end();
      });
      paced.route(
        '/c1',
        page(
          '/c1',
          [],
          `<script>addEventListener('load', () => {
          location.href = '/held';
          fetch('${main.origin}/held-reached', { mode: 'no-cors' }).then(() => { ${cancel} });
        });</script>`,
        ),
      );
      servePages(paced, ['/after']);
      const crawler = new PlaywrightCrawler(
        {
          launchContext: CHROMIUM,
          maxConcurrency: 1,
          navigationTimeoutSecs: 30,
          requestHandlerTimeoutSecs: 60,
          async requestHandler({ page: browserPage }) {
            // waitForURL fails with a navigation the page stops.
            await expect.poll(() => browserPage.url(), { timeout: 45_000 }).toBe(`${paced.origin}/after`);
          },
        },
        freshConfiguration(),
      );
      new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
      const stats = await crawler.run([`${paced.origin}/c1`]);

      expect(pagesHit(paced)).toEqual(['/after', '/c1', '/held']);
      const [held, after] = gapsOf(await paced.arrivals(['/c1', '/held', '/after']));
      // Still paced: a cancelled page load counts as answered as it is cancelled.
      expect(Math.min(held, after)).toBeGreaterThanOrEqual(1000);
      // /after waited for the delay (and the page's 1.5 s, when it stops /held), not for the navigation timeout.
      expect(after).toBeLessThan(4000);
      expect(stats.requestsFailed).toBe(0);
    },
    120_000,
  );
});

describe('PlaywrightCrawler with RobotsGuard: frames of another site (Debian Chromium)', () => {
  it('checks the navigations inside an out-of-process iframe, and sends them with the User-Agent', async () => {
    const { main } = env.site;
    // localhost is another site than 127.0.0.1: Chromium runs the frame in a process of its own.
    const crossSite = `http://localhost:${main.port}`;
    main.route('/embeds', page('embeds', [], `<iframe src="${crossSite}/inner"></iframe>`));
    main.route(
      '/inner',
      page(
        'inner',
        [],
        `<iframe src="/private/nested"></iframe><iframe src="/allowed-nested"></iframe>
        <script>setTimeout(() => { location.href = '/private/by-script'; }, 300);</script>`,
      ),
    );
    for (const path of ['/private/nested', '/private/by-script', '/allowed-nested'])
      main.route(path, page(path));

    const config = freshConfiguration();
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ page: browserPage }) {
          await browserPage.waitForTimeout(1000);
        },
      },
      config,
    );
    // A store of its own: the shared one gives up on a robots.txt after 400 ms (for the silent
    // site), which localhost's may take on a loaded machine, and the frame would be unreachable.
    const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 5000 });
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/embeds`]).finally(() => store.close());

    expect(stats.requestsFailed).toBe(0);
    expect(pagesHit(main)).toEqual(['/allowed-nested', '/embeds', '/inner']);
    for (const path of ['/inner', '/allowed-nested'])
      expect(main.requests.find((r) => r.path === path)?.headers['user-agent']).toBe(USER_AGENT);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage, r.reason, r.requestUrl]).sort()).toEqual([
      [`${crossSite}/private/by-script`, 'navigation', 'disallowed', `${main.origin}/embeds`],
      [`${crossSite}/private/nested`, 'navigation', 'disallowed', `${main.origin}/embeds`],
    ]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: an iframe whose robots.txt does not answer (Debian Chromium)', () => {
  it('stops it after half the navigation timeout, as unreachable, so that its page loads', async () => {
    const { main, silent } = env.site;
    main.route('/embeds-silent', page('embeds silent', [], `<iframe src="${silent.origin}/s1"></iframe>`));
    const config = freshConfiguration();
    const titles: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 4,
        async requestHandler({ page: browserPage }) {
          titles.push(await browserPage.title());
        },
      },
      config,
    );
    // Longer than the navigation timeout: a frame waiting for it would hold its page's load past it.
    const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 8000 });
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/embeds-silent`]).finally(() => store.close());

    expect(stats.requestsFailed).toBe(0);
    expect(titles).toEqual(['embeds silent']);
    expect(pagesHit(silent)).toEqual([]);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage, r.reason, r.requestUrl, r.robotsStatus])).toEqual([
      [`${silent.origin}/s1`, 'navigation', 'robots-unreachable', `${main.origin}/embeds-silent`, 'timeout'],
    ]);
    expect(records[0].robotsWhy).toMatch(
      /^robots\.txt had not answered after 2 s, half the navigation timeout/,
    );
  }, 60_000);
});

describe('PlaywrightCrawler with RobotsGuard: popups (Debian Chromium)', () => {
  it('stops popup navigations in the browser and enqueues their URLs as requests of their own', async () => {
    const { main } = env.site;
    // On load: two window.open calls and a script-clicked target=_blank link.
    main.route(
      '/opens-popups',
      page(
        'opener',
        [],
        `<script>
          window.open('/private/popup');
          window.open('/open/popup');
          addEventListener('load', () => {
            const link = Object.assign(document.createElement('a'), { href: '/private/by-link', target: '_blank' });
            document.body.append(link);
            link.click();
          });
        </script>`,
      ),
    );
    for (const path of ['/private/popup', '/open/popup', '/private/by-link']) main.route(path, page(path));

    const config = freshConfiguration();
    const handled: string[] = [];
    const otherPages: string[][] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          // Give the popups time to open, then up to 5 s more to be closed again (under load the
          // browser takes its time).
          await browserPage.waitForTimeout(500);
          handled.push(request.url);
          // The persistent context's first page stays at about:blank.
          const others = () =>
            browserPage
              .context()
              .pages()
              .filter((other) => other !== browserPage && other.url() !== 'about:blank');
          for (let waited = 0; others().length > 0 && waited < 5000; waited += 100) {
            await browserPage.waitForTimeout(100);
          }
          otherPages.push(others().map((other) => other.url()));
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/opens-popups`]);

    // The disallowed popups never reached the server; the allowed one was fetched once, as a request.
    expect(pagesHit(main)).toEqual(['/open/popup', '/opens-popups']);
    expect(handled).toEqual([`${main.origin}/opens-popups`, `${main.origin}/open/popup`]);
    // The popups were closed again.
    expect(otherPages).toEqual([[], []]);
    expect(stats.requestsFailed).toBe(0);

    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage, r.reason]).sort()).toEqual([
      [`${main.origin}/private/by-link`, 'enqueue', 'disallowed'],
      [`${main.origin}/private/popup`, 'enqueue', 'disallowed'],
    ]);
    expect(records.find((r) => r.url === `${main.origin}/private/popup`)).toMatchObject({
      requestUrl: `${main.origin}/private/popup`,
      rule: { kind: 'disallow', pattern: '/private', line: 6 },
    });
  });
});

describe('PlaywrightCrawler with RobotsGuard: the router middleware (Debian Chromium)', () => {
  it("checks the URL the page's document came from, not an address a script set without fetching it", async () => {
    const { main } = env.site;
    const config = freshConfiguration();
    const router = createPlaywrightRouter();
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false });
    router.use(guard.middleware());
    const handled: string[] = [];
    const skipped: string[] = [];
    router.addDefaultHandler(async ({ request, page: browserPage }) => {
      handled.push(`${new URL(request.url).pathname} at ${new URL(browserPage.url()).pathname}`);
    });
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 0,
        requestHandler: router,
        onSkippedRequest: ({ url }) => {
          skipped.push(url);
        },
      },
      config,
    );
    guard.attach(crawler);
    await crawler.run([`${main.origin}/pushes`]);
    expect(handled).toEqual(['/pushes at /private/pushed']);
    expect(skipped).toEqual([]);
    expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
    expect(pagesHit(main).filter((path) => path.startsWith('/private'))).toEqual([]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: a popup into a new origin (Debian Chromium)', () => {
  it("crawls it in the same run, though its robots.txt answers after the opener's handler is done", async () => {
    const { main } = env.site;
    const slow = await startHttpServer();
    const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 5000 });
    try {
      slow.route('/robots.txt', (request, response) => {
        setTimeout(() => text('User-agent: *\nDisallow:\n')(request, response), 1500);
      });
      slow.route('/target', page('target'));
      main.route('/opener', page('opener', [], `<script>window.open('${slow.origin}/target');</script>`));
      const handled: string[] = [];
      const crawler = new PlaywrightCrawler(
        {
          launchContext: CHROMIUM,
          maxRequestRetries: 0,
          async requestHandler({ request, page: browserPage }) {
            // The opener's handler ends once the popup is handed over (its origin's robots.txt is
            // asked for), well before that answer: a fixed wait lost that race on a busy machine.
            const deadline = Date.now() + 10_000;
            while (
              request.url.startsWith(main.origin) &&
              slow.hits('/robots.txt') === 0 &&
              Date.now() < deadline
            ) {
              await browserPage.waitForTimeout(20);
            }
            handled.push(request.url);
          },
        },
        freshConfiguration(),
      );
      new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false }).attach(
        crawler,
      );
      await crawler.run([`${main.origin}/opener`]);

      // Not left in the queue after the run, neither crawled nor recorded.
      expect(handled).toEqual([`${main.origin}/opener`, `${slow.origin}/target`]);
      expect(pagesHit(slow)).toEqual(['/target']);
      expect(slow.hits('/robots.txt')).toBe(1);
    } finally {
      await store.close();
      await slow.close();
    }
  });
});

describe('PlaywrightCrawler with RobotsGuard: a popup opened as the handler returns (Debian Chromium)', () => {
  /**
   * Crawls `start` with a handler whose last act opens a popup of `popupUrl`: by `window.open`, or
   * by a click on a `target=_blank` link (a popup without an opener).
   */
  async function crawlOpeningPopup(
    start: string,
    popupUrl: string,
    store: RobotsStore,
    by: 'window.open' | 'link' = 'window.open',
  ) {
    const handled: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 0,
        async requestHandler({ request, page: browserPage }) {
          handled.push(request.url);
          if (request.url !== start) return;
          await browserPage.evaluate(
            ([url, how]) => {
              if (how === 'window.open') window.open(url);
              else {
                const link = Object.assign(document.createElement('a'), { href: url, target: '_blank' });
                document.body.append(link);
                link.click();
              }
            },
            [popupUrl, by],
          );
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false }).attach(crawler);
    const stats = await crawler.run([start]);
    return { handled, stats };
  }

  it.each(['window.open', 'link'] as const)(
    'crawls it in the same run: the run waits for its navigation (%s)',
    async (by) => {
      const { main } = env.site;
      const other = await startHttpServer();
      const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 5000 });
      try {
        other.route('/robots.txt', text('User-agent: *\nDisallow: /private\n'));
        other.route('/target', page('target'));
        main.route('/last-act', page('last act'));
        const { handled } = await crawlOpeningPopup(
          `${main.origin}/last-act`,
          `${other.origin}/target`,
          store,
          by,
        );

        expect(handled).toEqual([`${main.origin}/last-act`, `${other.origin}/target`]);
        expect(pagesHit(other)).toEqual(['/target']);
      } finally {
        await store.close();
        await other.close();
      }
    },
  );

  it('ends the run when the popup makes no navigation at all', async () => {
    const { main } = env.site;
    main.route('/empty-popup', page('empty popup'));
    // Held for the navigation that never comes, then let go: the run ends, and with it the browser.
    const { handled, stats } = await crawlOpeningPopup(`${main.origin}/empty-popup`, '', env.store);

    expect(stats.requestsFinished).toBe(1);
    expect(handled).toEqual([`${main.origin}/empty-popup`]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: sessions (Debian Chromium)', () => {
  it('keeps the session and the browser of requests whose navigation it stopped', async () => {
    const { main } = env.site;
    // One session that a single failure retires, and with it its browser.
    const config = freshConfiguration();
    const sessions: { path: string; id: string; errorScore: number }[] = [];
    let launches = 0;
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        sessionPoolOptions: { maxPoolSize: 1, sessionOptions: { maxErrorScore: 1 } },
        browserPoolOptions: {
          postLaunchHooks: [
            () => {
              launches++;
            },
          ],
        },
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
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([
      `${main.origin}/redirect-same`,
      `${main.origin}/redirect-other`,
      `${main.origin}/a`,
    ]);

    expect(stats.requestsFinished).toBe(1);
    expect(sessions.map((s) => s.path)).toEqual(['/redirect-same', '/redirect-other', '/a']);
    expect(new Set(sessions.map((s) => s.id)).size).toBe(1);
    expect(sessions.map((s) => s.errorScore)).toEqual([0, 0, 0]);
    expect(launches).toBe(1);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => r.stage)).toEqual(['redirect', 'redirect']);
  });
});
