import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { LogLevel, log, PlaywrightCrawler } from 'crawlee';
import { describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard, RobotsSkipError } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import { CHROMIUM_LAUNCH_OPTIONS } from '../support/chromium.js';
import {
  datasetItems,
  freshConfiguration,
  page,
  pagesHit,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
  useTestSite,
} from '../support/crawlee-site.js';
import { redirect } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

const CHROMIUM = { launchOptions: CHROMIUM_LAUNCH_OPTIONS };

useTemporaryStorageDir();

const env = useTestSite();

/** The records of a crawl as [url, stage, reason, requestUrl], origins shortened, sorted. */
async function recordsOf(config: ReturnType<typeof freshConfiguration>): Promise<string[][]> {
  const { main, tooMany } = env.site;
  const short = (url: string) => url.replace(main.origin, 'main').replace(tooMany.origin, 'tooMany');
  const records = await datasetItems<RobotsDroppedRecord>(config);
  return records.map((r) => [short(r.url), r.stage, r.reason, short(r.requestUrl)]).sort();
}

describe('PlaywrightCrawler with RobotsGuard: speculative loads (Debian Chromium)', () => {
  it("never lets the browser prefetch, prerender or fetch the page's icon, while the pages and their own fetches load", async () => {
    const { main } = env.site;
    const rules = (action: string, url: string) => `{"${action}":[{"source":"list","urls":["${url}"]}]}`;
    main.route(
      '/prerenders',
      page(
        'prerenders',
        [],
        `<script type="speculationrules">${rules('prerender', '/private/prerendered')}</script>`,
      ),
    );
    main.route(
      '/prefetches',
      page(
        'prefetches',
        [],
        `<script type="speculationrules">${rules('prefetch', '/private/prefetched')}</script>
        <link rel="icon" href="/private/icon.png">`,
      ),
    );
    main.route(
      '/inserts-rules',
      page(
        'inserts rules',
        [],
        `<script>
          const rules = document.createElement('script');
          rules.type = 'speculationrules';
          rules.textContent = '${rules('prefetch', '/private/inserted')}';
          document.head.append(rules);
        </script>`,
      ),
    );
    main.route('/rules-header', (_request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html', 'speculation-rules': '"/rules.json"' })
        .end('<title>rules header</title>');
    });
    main.route('/rules.json', (_request, response) => {
      response
        .writeHead(200, { 'content-type': 'application/speculationrules+json' })
        .end(rules('prefetch', '/private/by-header'));
    });
    // The page's own fetch() pauses in the same Fetch pattern as a link prefetch: it must go through.
    main.route(
      '/link-prefetch',
      page(
        'link prefetch',
        [],
        `<link rel="prefetch" href="/private/link-prefetched">
        <script>fetch('/data.txt').then((r) => r.text()).then((t) => { document.title = t; });</script>`,
      ),
    );
    main.route('/data.txt', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('fetched');
    });
    // Rules in open declarative shadow roots: a host's first child, nested, after text in the host.
    main.route(
      '/shadow-rules',
      page(
        'shadow rules',
        [],
        `<div><template shadowrootmode="open"><script type="speculationrules">${rules('prefetch', '/private/in-shadow')}</script>
          <p><template shadowrootmode="open"><script type="speculationrules">${rules('prefetch', '/private/nested-shadow')}</script></template></p>
          <slot></slot></template>light</div>
        <section><script>document.title = 'shadow rules';</script>text<template shadowrootmode="open"><script type="speculationrules">${rules('prerender', '/private/after-text')}</script></template></section>`,
      ),
    );
    // Rules no sweep of the page reaches: in a closed shadow root, and in an open one a script
    // attaches to an element already in the page. Chromium's preloading is off for them.
    main.route(
      '/unreachable-rules',
      page(
        'unreachable rules',
        [],
        `<div id="closed"></div><div id="open"></div>
        <script>
          const ruleSet = (url) => {
            const rules = document.createElement('script');
            rules.type = 'speculationrules';
            rules.textContent = '{"prefetch":[{"source":"list","urls":["' + url + '"]}]}';
            return rules;
          };
          document.getElementById('closed').attachShadow({ mode: 'closed' }).append(ruleSet('/private/closed-shadow'));
          setTimeout(() => document.getElementById('open').attachShadow({ mode: 'open' }).append(ruleSet('/private/attached-shadow')), 100);
        </script>`,
      ),
    );
    // A beacon, and a link with a ping the page clicks: POSTs a crawler's page must not send.
    main.route(
      '/pings',
      page(
        'pings',
        [],
        `<a href="/pings-landing" ping="/private/pinged">on</a>
        <script>
          navigator.sendBeacon('/private/beacon', 'seen');
          setTimeout(() => document.querySelector('a').click(), 50);
        </script>`,
      ),
    );
    main.route('/pings-landing', page('pings landing'));
    for (const path of [
      '/private/prerendered',
      '/private/prefetched',
      '/private/inserted',
      '/private/by-header',
      '/private/link-prefetched',
      '/private/in-shadow',
      '/private/nested-shadow',
      '/private/after-text',
      '/private/closed-shadow',
      '/private/attached-shadow',
      '/private/pinged',
      '/private/beacon',
    ])
      main.route(path, page(path));

    const config = freshConfiguration();
    const titles: Record<string, string> = {};
    const profiles: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        // The user's hooks run before the guard's post-launch hook, after its pre-launch one.
        browserPoolOptions: {
          postLaunchHooks: [(_id, controller) => void profiles.push(controller.launchContext.userDataDir)],
        },
        // One page at a time: Chromium does not speculate for every page of a busy browser.
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          // Chromium starts speculative loads within a few hundred milliseconds of parsing the rules.
          await browserPage.waitForTimeout(1000);
          titles[new URL(request.url).pathname] = await browserPage.title();
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const pages = [
      '/prerenders',
      '/prefetches',
      '/inserts-rules',
      '/rules-header',
      '/link-prefetch',
      '/shadow-rules',
      '/unreachable-rules',
      '/pings',
    ];
    const stats = await crawler.run(pages.map((path) => `${main.origin}${path}`));

    // No speculative request reached the server (not even the rules file), nor any icon
    // (`/favicon.ico` after each page, `/private/icon.png`), nor a ping or beacon; the page's
    // fetch did, and so did the page the clicked link led to.
    expect(pagesHit(main)).toEqual([...pages, '/data.txt', '/pings-landing'].sort());
    expect(main.requests.filter((r) => r.headers['sec-purpose'] !== undefined)).toEqual([]);
    expect(main.requests.filter((r) => r.path === '/favicon.ico')).toEqual([]);
    expect(titles).toEqual({
      '/prerenders': 'prerenders',
      '/prefetches': 'prefetches',
      '/inserts-rules': 'inserts rules',
      '/rules-header': 'rules header',
      '/link-prefetch': 'fetched',
      '/shadow-rules': 'shadow rules',
      '/unreachable-rules': 'unreachable rules',
      // The link the page clicked loaded its page before the handler read the title.
      '/pings': 'pings landing',
    });
    expect(stats.requestsFailed).toBe(0);
    // Nothing of the crawl was left out: speculative loads are not recorded.
    expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
    // The browser ran on a temporary profile of the guard's, gone once the run is over.
    expect(profiles).toHaveLength(1);
    expect(basename(profiles[0]!)).toMatch(/^crawlee-robots-profile-/);
    expect(existsSync(profiles[0]!)).toBe(false);
    // And stays gone: Chromium writes to its profile as it exits, which must not bring it back.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(existsSync(profiles[0]!)).toBe(false);
  });

  it("with incognito pages, where the profile is not the guard's, still removes the rules it reaches", async () => {
    const { main } = env.site;
    const rules = (url: string) => `{"prefetch":[{"source":"list","urls":["${url}"]}]}`;
    main.route(
      '/i-inline',
      page('inline', [], `<script type="speculationrules">${rules('/private/i-inline')}</script>`),
    );
    main.route(
      '/i-inserted',
      page(
        'inserted',
        [],
        `<script>
          const host = document.createElement('div');
          const rules = document.createElement('script');
          rules.type = 'speculationrules';
          rules.textContent = '${rules('/private/i-in-shadow')}';
          // A shadow root filled before its host joins the page.
          host.attachShadow({ mode: 'open' }).append(rules);
          setTimeout(() => document.body.append(host), 50);
          const later = document.createElement('script');
          later.type = 'speculationrules';
          document.head.append(later);
          later.textContent = '${rules('/private/i-filled-later')}';
        </script>`,
      ),
    );
    main.route('/i-header', (_request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html', 'speculation-rules': '"/i-rules.json"' })
        .end('<title>header</title>');
    });
    main.route('/i-rules.json', (_request, response) => {
      response
        .writeHead(200, { 'content-type': 'application/speculationrules+json' })
        .end(rules('/private/i-by-header'));
    });
    for (const path of [
      '/private/i-inline',
      '/private/i-in-shadow',
      '/private/i-filled-later',
      '/private/i-by-header',
    ])
      main.route(path, page(path));

    const profiles: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: { ...CHROMIUM, useIncognitoPages: true },
        browserPoolOptions: {
          postLaunchHooks: [(_id, controller) => void profiles.push(controller.launchContext.userDataDir)],
        },
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ page: browserPage }) {
          await browserPage.waitForTimeout(1000);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const pages = ['/i-inline', '/i-inserted', '/i-header'];
    const stats = await crawler.run(pages.map((path) => `${main.origin}${path}`));

    expect(stats.requestsFinished).toBe(3);
    expect(profiles).toEqual(['']);
    expect(pagesHit(main)).toEqual([...pages].sort());
    expect(main.requests.filter((r) => r.headers['sec-purpose'] !== undefined)).toEqual([]);
  });

  it("lets the page's workers load: their scripts pause as 'Other' requests, as the icon does", async () => {
    const { main } = env.site;
    const script = (body: string) => (_request: unknown, response: import('node:http').ServerResponse) =>
      void response.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
    main.route('/worker.js', script(`postMessage('dedicated');`));
    main.route('/shared-worker.js', script(`onconnect = (event) => event.ports[0].postMessage('shared');`));
    main.route(
      '/with-workers',
      page(
        'workers',
        [],
        `<link rel="icon" href="/private/icon.png">
        <script>
          const seen = [];
          const saw = (what) => { seen.push(what); document.title = seen.sort().join(' '); };
          new Worker('/worker.js').onmessage = (event) => saw(event.data);
          new SharedWorker('/shared-worker.js').port.onmessage = (event) => saw(event.data);
        </script>`,
      ),
    );

    const config = freshConfiguration();
    let title = '';
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ page: browserPage }) {
          await browserPage.waitForFunction(() => document.title.includes(' '), undefined, { timeout: 5000 });
          // Time for the icon request, which comes after the page load.
          await browserPage.waitForTimeout(500);
          title = await browserPage.title();
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/with-workers`]);

    expect(title).toBe('dedicated shared');
    expect(stats.requestsFailed).toBe(0);
    // The workers' scripts reached the server; the icon did not.
    expect(pagesHit(main)).toEqual(['/shared-worker.js', '/with-workers', '/worker.js']);
    expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
  });
});

describe("PlaywrightCrawler with RobotsGuard: the guard's browser profiles (Debian Chromium)", () => {
  it('removes the profile of every browser the pool closes, for good, by the time the run resolves', async () => {
    const { main } = env.site;
    const paths = Array.from({ length: 8 }, (_, i) => `/retired-${i}`);
    for (const path of paths) main.route(path, page(path));
    const profiles: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        // A browser a page: each closes, with its profile, as the next one opens.
        browserPoolOptions: {
          retireBrowserAfterPageCount: 1,
          postLaunchHooks: [(_id, controller) => void profiles.push(controller.launchContext.userDataDir)],
        },
        maxConcurrency: 1,
        maxRequestRetries: 0,
        async requestHandler() {},
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run(paths.map((path) => `${main.origin}${path}`));
    expect(stats.requestsFinished).toBe(paths.length);
    expect(profiles.length).toBeGreaterThan(1);
    // Gone already: a process stopped as its crawl ends (a test runner's SIGTERM) runs no exit handler.
    expect(profiles.filter((dir) => existsSync(dir))).toEqual([]);
    // Nothing Chromium wrote as it exited brings one back.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(profiles.filter((dir) => existsSync(dir))).toEqual([]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: navigations the page starts (Debian Chromium)', () => {
  it("checks a script navigation's redirect as a navigation of its own, not as a hop of the page load", async () => {
    const { main, tooMany } = env.site;
    // tooMany's robots.txt answers 429: a navigation into it cannot wait, it is dropped.
    main.route('/script-then-redirect', page('s', [], `<script>location.href = '/go-away';</script>`));
    main.route('/go-away', redirect(`${tooMany.origin}/t1`, 302));
    main.route('/script-direct', page('s', [], `<script>location.href = '${tooMany.origin}/t1';</script>`));

    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 2,
        maxRequestRetries: 1,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          await browserPage.waitForTimeout(500);
          handled.push(request.url);
        },
      },
      config,
    );
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: env.store,
      unreachable: { giveUpAfterMs: 2500, minRecheckDelayMs: 50, maxRecheckDelayMs: 500 },
    }).attach(crawler);
    const stats = await crawler.run(
      ['/script-then-redirect', '/script-direct'].map((path) => `${main.origin}${path}`),
    );

    expect(pagesHit(main)).toEqual(['/go-away', '/script-direct', '/script-then-redirect']);
    expect(pagesHit(tooMany)).toEqual([]);
    // Both pages loaded once and were handled; their navigations were stopped alike.
    expect(handled.sort()).toEqual([`${main.origin}/script-direct`, `${main.origin}/script-then-redirect`]);
    expect(stats.requestsFailed).toBe(0);
    expect(stats.retryHistogram).toEqual([2]);
    expect(await recordsOf(config)).toEqual([
      ['tooMany/t1', 'navigation', 'robots-unreachable', 'main/script-direct'],
      ['tooMany/t1', 'navigation', 'robots-unreachable', 'main/script-then-redirect'],
    ]);
  });

  it('leaves the page on the document it loaded: the handler reads it, and clicking elements goes on', async () => {
    const { main } = env.site;
    main.route(
      '/navigates-away',
      page(
        'still here',
        [],
        `<script>onload = () => setTimeout(() => { location.href = '/private/gone'; }, 50);</script>`,
      ),
    );
    // Tried again and again while the handler runs: one record, however many tries.
    main.route(
      '/keeps-trying',
      page(
        'trying',
        [],
        `<script>onload = () => setInterval(() => { location.href = '/private/loop'; }, 20);</script>`,
      ),
    );
    const clickable = [
      `<div class="c" onclick="location.href='/private/clicked'">p</div>`,
      `<div class="c" onclick="location.href='/allowed/a'">a</div>`,
    ].join('');
    main.route('/clicks', (_request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>clicks</title>${clickable}`);
    });
    main.route('/allowed/a', page('allowed a'));

    const config = freshConfiguration();
    const seen: string[] = [];
    const enqueued: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 1,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage, enqueueLinksByClickingElements }) {
          await browserPage.waitForTimeout(300);
          seen.push(
            `${new URL(request.url).pathname}: ${await browserPage.title()} at ${new URL(browserPage.url()).pathname}`,
          );
          if (request.url.endsWith('/clicks')) {
            const { processedRequests } = await enqueueLinksByClickingElements({ selector: '.c' });
            enqueued.push(...processedRequests.map((added) => new URL(added.uniqueKey).pathname));
          }
        },
      },
      config,
    );
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(
      crawler,
    );
    const stats = await crawler.run([
      `${main.origin}/navigates-away`,
      `${main.origin}/clicks`,
      `${main.origin}/keeps-trying`,
    ]);

    expect(seen.filter((line) => !line.startsWith('/keeps-trying')).sort()).toEqual([
      '/allowed/a: allowed a at /allowed/a',
      '/clicks: clicks at /clicks',
      '/navigates-away: still here at /navigates-away',
    ]);
    expect(enqueued).toEqual(['/allowed/a']);
    expect(stats.requestsFailed).toBe(0);
    expect(stats.retryHistogram).toEqual([4]);
    expect(pagesHit(main)).toEqual(['/allowed/a', '/clicks', '/keeps-trying', '/navigates-away']);
    expect(await recordsOf(config)).toEqual([
      ['main/private/clicked', 'navigation', 'disallowed', 'main/clicks'],
      ['main/private/gone', 'navigation', 'disallowed', 'main/navigates-away'],
      ['main/private/loop', 'navigation', 'disallowed', 'main/keeps-trying'],
    ]);
    expect(guard.summary().totals).toMatchObject({ dropped: 3, hopsStopped: 3 });
  });

  it('fails and retries a request whose handler throws, after its page had a navigation stopped', async () => {
    const { main } = env.site;
    main.route('/script-then-redirect', page('s', [], `<script>location.href = '/go-private';</script>`));
    main.route('/go-private', redirect('/private/x', 302));

    const config = freshConfiguration();
    const attempts: string[] = [];
    const failed: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 1,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          await browserPage.waitForTimeout(500);
          attempts.push(request.url);
          throw new Error('a bug in the handler');
        },
        failedRequestHandler({ request }) {
          failed.push(request.url);
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/script-then-redirect`]);

    // The handler's error is the handler's: the request is retried, then failed.
    expect(attempts).toEqual([`${main.origin}/script-then-redirect`, `${main.origin}/script-then-redirect`]);
    expect(failed).toEqual([`${main.origin}/script-then-redirect`]);
    expect(stats.requestsFailed).toBe(1);
    expect(pagesHit(main)).toEqual([
      '/go-private',
      '/go-private',
      '/script-then-redirect',
      '/script-then-redirect',
    ]);
    // One record per page load that started the navigation.
    expect(await recordsOf(config)).toEqual([
      ['main/private/x', 'navigation', 'disallowed', 'main/script-then-redirect'],
      ['main/private/x', 'navigation', 'disallowed', 'main/script-then-redirect'],
    ]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: what a page loads into an empty popup (Debian Chromium)', () => {
  it("checks the popup's frames as iframes of the crawled page, and still enqueues the popups it sends away", async () => {
    const { main } = env.site;
    // localhost is another site than 127.0.0.1: that frame runs in a process of its own.
    const crossSite = `http://localhost:${main.port}`;
    const frames = ['/private/in-popup', '/in-popup', `${crossSite}/cross-in-popup`]
      .map((src) => `<iframe src="${src}"></iframe>`)
      .join('');
    // window.open('') sends no request: the popup stays open, and its opener writes into it.
    main.route(
      '/opens-empty-popup',
      page(
        'opener',
        [],
        `<script>
          const popup = window.open('');
          popup.document.write('${frames}');
          popup.document.close();
          window.open('/open/queued');
        </script>`,
      ),
    );
    // An iframe inside the popup's out-of-process frame: no target of its own either.
    main.route('/cross-in-popup', page('cross', [], '<iframe src="/private/nested-in-popup"></iframe>'));
    for (const path of [
      '/private/in-popup',
      '/in-popup',
      '/private/nested-in-popup',
      '/open/queued',
      '/private/handler-frame',
    ])
      main.route(path, page(path));

    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          // The popup's frames, and the one inside its cross-site frame, load meanwhile.
          for (let waited = 0; waited < 5000 && !pagesHit(main).includes('/cross-in-popup'); waited += 100)
            await browserPage.waitForTimeout(100);
          await browserPage.waitForTimeout(1000);
          // A page the handler opens itself is not checked, its frames neither, popups open or not.
          if (request.url.endsWith('/opens-empty-popup')) {
            const own = await browserPage.context().newPage();
            await own.setContent(`<iframe src="${main.origin}/private/handler-frame"></iframe>`);
            await own.close();
          }
          handled.push(request.url);
        },
      },
      config,
    );
    // localhost's robots.txt is read as its frame loads: the shared store's 400 ms fetch timeout
    // can pass on a loaded machine, which would make it unreachable and stop its frame.
    const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 5000 });
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/opens-empty-popup`]).finally(() => store.close());

    // The disallowed frames of the popup never reached the server; the allowed ones did, and the
    // popup that navigated was crawled as a request of its own.
    expect(pagesHit(main)).toEqual([
      '/cross-in-popup',
      '/in-popup',
      '/open/queued',
      '/opens-empty-popup',
      '/private/handler-frame',
    ]);
    expect(handled).toEqual([`${main.origin}/opens-empty-popup`, `${main.origin}/open/queued`]);
    expect(stats.requestsFailed).toBe(0);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage, r.reason, r.requestUrl]).sort()).toEqual([
      [`${main.origin}/private/in-popup`, 'navigation', 'disallowed', `${main.origin}/opens-empty-popup`],
      [
        `${crossSite}/private/nested-in-popup`,
        'navigation',
        'disallowed',
        `${main.origin}/opens-empty-popup`,
      ],
    ]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: popups that outlive their crawled page (Debian Chromium)', () => {
  it('stops and enqueues what a popup loads after Crawlee closed the page that opened it, and its beacons', async () => {
    const { main } = env.site;
    // Chromium forgets a popup's opener once the opener closes: these popups then act alone.
    const later = (action: string) => {
      const html = `<body><script>setTimeout(() => { ${action} }, 1500);</script></body>`;
      return `{ const popup = window.open(''); popup.document.write(${JSON.stringify(html).replace(/<\//g, '<\\/')}); popup.document.close(); }`;
    };
    main.route(
      '/opens-and-closes',
      page(
        'opener',
        [],
        `<script>
          ${later(`location.href = '${main.origin}/private/orphan-script';`)}
          ${later(`document.body.innerHTML = '<iframe src="${main.origin}/private/orphan-frame"></iframe>';`)}
          ${later(`location.href = '${main.origin}/orphan-allowed';`)}
          addEventListener('pagehide', () => navigator.sendBeacon('/private/beacon-at-close', 'bye'));
        </script>`,
      ),
    );
    for (const path of [
      '/private/orphan-script',
      '/private/orphan-frame',
      '/private/beacon-at-close',
      '/orphan-allowed',
      '/slow',
    ])
      main.route(path, page(path));

    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          // The opener's handler returns at once, and Crawlee closes its page; the browser stays
          // open for the next request while the popups act.
          if (request.url.endsWith('/slow')) await browserPage.waitForTimeout(3500);
          handled.push(new URL(request.url).pathname);
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/opens-and-closes`, `${main.origin}/slow`]);

    expect(pagesHit(main).filter((path) => path.startsWith('/private/'))).toEqual([]);
    expect(handled).toEqual(['/opens-and-closes', '/slow', '/orphan-allowed']);
    expect(stats.requestsFailed).toBe(0);
    expect(await recordsOf(config)).toEqual([
      ['main/private/orphan-frame', 'enqueue', 'disallowed', 'main/private/orphan-frame'],
      ['main/private/orphan-script', 'enqueue', 'disallowed', 'main/private/orphan-script'],
    ]);
  }, 60_000);
});

describe("PlaywrightCrawler with RobotsGuard: a handler's page.goto that fails on its own (Debian Chromium)", () => {
  it('retries, then fails, a request whose goto ends in net::ERR_ABORTED after an iframe of its page was stopped', async () => {
    const { main } = env.site;
    main.route('/embeds', page('embeds', [], '<iframe src="/private/frame"></iframe>'));
    main.route('/private/frame', page('frame'));
    // Chromium aborts a navigation to a 204: Playwright's goto throws net::ERR_ABORTED.
    main.route('/no-content', (_request, response) => {
      response.writeHead(204).end();
    });

    const config = freshConfiguration();
    const failed: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 1,
        navigationTimeoutSecs: 15,
        async requestHandler({ page: browserPage }) {
          await browserPage.waitForTimeout(300);
          await browserPage.goto(`${main.origin}/no-content`);
        },
        failedRequestHandler({ request }, error) {
          failed.push(`${request.url} ${error.message.split('\n')[0]}`);
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/embeds`]);

    // As without the guard: the goto's failure is no stop of the guard's.
    expect(failed).toEqual([
      `${main.origin}/embeds page.goto: net::ERR_ABORTED at ${main.origin}/no-content`,
    ]);
    expect(stats.requestsFailed).toBe(1);
    expect(pagesHit(main)).toEqual(['/embeds', '/embeds', '/no-content', '/no-content']);
    expect(await recordsOf(config)).toEqual([
      ['main/private/frame', 'navigation', 'disallowed', 'main/embeds'],
      ['main/private/frame', 'navigation', 'disallowed', 'main/embeds'],
    ]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: onSkippedRequest (Debian Chromium)', () => {
  it('hears of a request the guard skipped, not of one whose page only had an iframe or a caught goto stopped', async () => {
    const { main } = env.site;
    main.route('/embeds', page('embeds', [], '<iframe src="/private/frame"></iframe>'));
    main.route('/catches', page('catches'));
    main.route('/lets-it-through', page('lets it through'));

    const skipped: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          await browserPage.waitForTimeout(300);
          const path = new URL(request.url).pathname;
          if (path === '/catches') await browserPage.goto(`${main.origin}/private/x`).catch(() => undefined);
          if (path === '/lets-it-through') await browserPage.goto(`${main.origin}/private/y`);
        },
        onSkippedRequest({ url }) {
          skipped.push(url.replace(main.origin, ''));
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run(
      ['/embeds', '/catches', '/lets-it-through'].map((p) => `${main.origin}${p}`),
    );

    // /embeds and /catches were handled to the end; only /lets-it-through was skipped.
    expect(stats.requestsFinished).toBe(2);
    expect(skipped).toEqual(['/lets-it-through']);
  });
});

describe('PlaywrightCrawler with RobotsGuard: a navigation that cannot be checked (Debian Chromium)', () => {
  it('does not leave the browser when the store was closed', async () => {
    const { main } = env.site;
    main.route('/start', page('start'));
    main.route('/after-close', page('after close'));
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 15,
        async requestHandler({ page: browserPage }) {
          await env.store.close();
          // A navigation of the page itself, after the store is gone: nothing can say it is allowed.
          await browserPage.evaluate(() => {
            location.href = '/after-close';
          });
          await browserPage.waitForTimeout(1000);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    await crawler.run([`${main.origin}/start`]).catch(() => undefined);
    expect(pagesHit(main)).toEqual(['/start']);
  });
});

describe("PlaywrightCrawler with RobotsGuard: the handler's own page.goto (Debian Chromium)", () => {
  it('fails a goto into a disallowed URL with a RobotsSkipError; uncaught, it skips the request once', async () => {
    const { main } = env.site;
    main.route('/catches', page('catches'));
    main.route('/lets-it-through', page('lets it through'));
    main.route('/goes-on', page('goes on'));

    const config = freshConfiguration();
    const attempts: string[] = [];
    const caught: unknown[] = [];
    const after: string[] = [];
    const failed: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 2,
        maxRequestRetries: 2,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          attempts.push(request.url);
          if (request.url.endsWith('/catches')) {
            // An allowed goto works as ever; a redirect of the next one into /private is stopped.
            await browserPage.goto(`${main.origin}/a`);
            await browserPage
              .goto(`${main.origin}/redirect-same`)
              .catch((error: unknown) => caught.push(error));
            after.push(browserPage.url());
            // The page is still usable: the next goto is not interrupted by an error page.
            await browserPage.goto(`${main.origin}/goes-on`);
            after.push(await browserPage.title());
          } else {
            await browserPage.goto(`${main.origin}/private/x`);
          }
        },
        failedRequestHandler({ request }) {
          failed.push(request.url);
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run(['/catches', '/lets-it-through'].map((path) => `${main.origin}${path}`));

    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(RobotsSkipError);
    expect(caught[0]).toMatchObject({ url: `${main.origin}/private/y`, stage: 'redirect' });
    expect(after).toEqual([`${main.origin}/a`, 'goes on']);
    // Each handler ran once: the uncaught stop skipped its request instead of retrying it.
    expect(attempts.sort()).toEqual([`${main.origin}/catches`, `${main.origin}/lets-it-through`]);
    expect(failed).toEqual([]);
    expect(stats.requestsFailed).toBe(0);
    expect(pagesHit(main)).toEqual(['/a', '/catches', '/goes-on', '/lets-it-through', '/redirect-same']);
    expect(await recordsOf(config)).toEqual([
      ['main/private/x', 'navigation', 'disallowed', 'main/lets-it-through'],
      ['main/private/y', 'redirect', 'disallowed', 'main/catches'],
    ]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: a request with skipNavigation (Debian Chromium)', () => {
  it("checks the handler's own page.goto, though no navigation hook runs for the request", async () => {
    const { main } = env.site;
    const config = freshConfiguration();
    const caught: unknown[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxRequestRetries: 0,
        async requestHandler({ page: browserPage }) {
          await browserPage.goto(`${main.origin}/a`);
          await browserPage.goto(`${main.origin}/private/x`).catch((error: unknown) => caught.push(error));
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    await crawler.run([{ url: `${main.origin}/`, skipNavigation: true }]);

    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(RobotsSkipError);
    expect(pagesHit(main)).toEqual(['/a']);
    expect(await recordsOf(config)).toEqual([['main/private/x', 'navigation', 'disallowed', 'main/']]);
  });
});

describe("PlaywrightCrawler with RobotsGuard: the handler's navigations outside page.goto (Debian Chromium)", () => {
  it('skips, not retries, a request whose handler awaits a navigation the guard stopped', async () => {
    const { main } = env.site;
    main.route('/frame-goto', page('frame goto', [], '<iframe name="inner" src="/a"></iframe>'));
    main.route('/main-frame-goto', page('main frame goto'));
    main.route('/clicks', page('clicks', ['/private/x']));
    main.route('/assigns', page('assigns'));

    const config = freshConfiguration();
    const attempts: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 2,
        maxRequestRetries: 2,
        navigationTimeoutSecs: 15,
        async requestHandler({ request, page: browserPage }) {
          attempts.push(new URL(request.url).pathname);
          const privateUrl = `${main.origin}/private/x`;
          switch (new URL(request.url).pathname) {
            case '/frame-goto':
              await browserPage.waitForSelector('iframe');
              await browserPage.frame({ name: 'inner' })!.goto(privateUrl);
              break;
            case '/main-frame-goto':
              await browserPage.mainFrame().goto(privateUrl);
              break;
            case '/clicks':
              await Promise.all([browserPage.waitForNavigation(), browserPage.click('a[href="/private/x"]')]);
              break;
            default:
              await browserPage.evaluate(() => {
                location.href = '/private/x';
              });
              await browserPage.waitForURL('**/private/x');
          }
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const pages = ['/frame-goto', '/main-frame-goto', '/clicks', '/assigns'];
    const stats = await crawler.run(pages.map((path) => `${main.origin}${path}`));

    // Each handler ran once: its Playwright error (net::ERR_ABORTED) was the guard's stop.
    expect(attempts.sort()).toEqual([...pages].sort());
    expect(stats.requestsFailed).toBe(0);
    expect(pagesHit(main)).toEqual(['/a', ...pages].sort());
    expect(await recordsOf(config)).toEqual(
      pages.map((path) => ['main/private/x', 'navigation', 'disallowed', `main${path}`]).sort(),
    );
  });

  it('retries a request whose frame.goto fails on its own (a 204), though an iframe of its page was stopped', async () => {
    const { main } = env.site;
    main.route(
      '/stopped-iframe',
      page(
        'stopped iframe',
        [],
        '<iframe src="/private/ad"></iframe><iframe name="inner" src="/a"></iframe>',
      ),
    );
    main.route('/no-content', (_request, response) => void response.writeHead(204).end());

    const config = freshConfiguration();
    const attempts: string[] = [];
    const skipped: string[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 1,
        maxRequestRetries: 1,
        navigationTimeoutSecs: 15,
        onSkippedRequest: ({ url }) => void skipped.push(url),
        async requestHandler({ request, page: browserPage }) {
          attempts.push(new URL(request.url).pathname);
          await browserPage.waitForSelector('iframe[name="inner"]');
          // Chromium answers a 204 with net::ERR_ABORTED: not the guard's stop, a failure to retry.
          await browserPage.frame({ name: 'inner' })!.goto(`${main.origin}/no-content`);
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run([`${main.origin}/stopped-iframe`]);

    expect(attempts).toEqual(['/stopped-iframe', '/stopped-iframe']);
    expect(stats.requestsFailed).toBe(1);
    expect(skipped).toEqual([]);
    expect(await recordsOf(config)).toEqual([
      ['main/private/ad', 'navigation', 'disallowed', 'main/stopped-iframe'],
      ['main/private/ad', 'navigation', 'disallowed', 'main/stopped-iframe'],
    ]);
  });
});

describe("PlaywrightCrawler with RobotsGuard: a goto in the user's navigation hooks (Debian Chromium)", () => {
  it("checks it as the handler's own goto, before and after the crawler's navigation", async () => {
    const { main } = env.site;
    main.route('/pre-hook', page('pre hook'));
    main.route('/post-hook', page('post hook'));

    const config = freshConfiguration();
    const handled: string[] = [];
    const caught: unknown[] = [];
    const crawler = new PlaywrightCrawler(
      {
        launchContext: CHROMIUM,
        maxConcurrency: 2,
        maxRequestRetries: 2,
        navigationTimeoutSecs: 15,
        preNavigationHooks: [
          async ({ request, page: browserPage }) => {
            // Uncaught: the request is skipped, its own page never loaded.
            if (request.url.endsWith('/pre-hook')) await browserPage.goto(`${main.origin}/private/x`);
          },
        ],
        postNavigationHooks: [
          async ({ request, page: browserPage }) => {
            if (request.url.endsWith('/post-hook'))
              await browserPage
                .goto(`${main.origin}/private/y`)
                .catch((error: unknown) => caught.push(error));
          },
        ],
        async requestHandler({ request }) {
          handled.push(request.url);
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    const stats = await crawler.run(['/pre-hook', '/post-hook'].map((path) => `${main.origin}${path}`));

    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(RobotsSkipError);
    expect(handled).toEqual([`${main.origin}/post-hook`]);
    expect(stats.requestsFailed).toBe(0);
    expect(pagesHit(main)).toEqual(['/post-hook']);
    expect(await recordsOf(config)).toEqual([
      ['main/private/x', 'navigation', 'disallowed', 'main/pre-hook'],
      ['main/private/y', 'navigation', 'disallowed', 'main/post-hook'],
    ]);
  });
});

describe('PlaywrightCrawler with RobotsGuard: the User-Agent the browser sends (Debian Chromium)', () => {
  /** A page with an image, a fetch of its script's, and an empty popup holding an iframe. */
  function routes(prefix: string): void {
    const { main } = env.site;
    main.route(
      `/${prefix}-page`,
      page(
        `${prefix} page`,
        [],
        `<img src="/${prefix}-img.png">
        <script>
          fetch('/${prefix}-api');
          const popup = window.open('');
          popup.document.write('<iframe src="/${prefix}-in-popup"></iframe>');
        </script>`,
      ),
    );
    for (const path of ['img.png', 'api', 'in-popup']) main.route(`/${prefix}-${path}`, page(path));
  }
  async function crawl(prefix: string, useFingerprints: boolean, useIncognitoPages = false) {
    const { main } = env.site;
    const crawler = new PlaywrightCrawler(
      {
        launchContext: { ...CHROMIUM, useIncognitoPages },
        browserPoolOptions: { useFingerprints },
        maxConcurrency: 1,
        maxRequestRetries: 0,
        async requestHandler({ page: browserPage }) {
          await browserPage.waitForTimeout(800);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: env.store }).attach(crawler);
    await crawler.run([`${main.origin}/${prefix}-page`]);
    return new Map(
      main.requests
        .filter((request) => request.path.startsWith(`/${prefix}-`))
        .map((request) => [request.path.slice(prefix.length + 2), request.headers['user-agent']]),
    );
  }

  it('without fingerprints, every request of the page and of its popup carries userAgent', async () => {
    routes('plain');
    const sent = await crawl('plain', false);
    expect(Object.fromEntries(sent)).toEqual({
      page: USER_AGENT,
      'img.png': USER_AGENT,
      api: USER_AGENT,
      'in-popup': USER_AGENT,
    });
  });

  it("with Crawlee's fingerprints, page loads and the documents of popups carry userAgent, in a persistent or an incognito context", async () => {
    routes('fingerprint');
    for (const incognito of [false, true]) {
      env.site.main.requests.length = 0;
      const sent = await crawl('fingerprint', true, incognito);
      expect([incognito, sent.get('page'), sent.get('in-popup')]).toEqual([
        incognito,
        USER_AGENT,
        USER_AGENT,
      ]);
      // The fingerprint's User-Agent is an extra header of the browser context: subresources go with it.
      expect(sent.get('img.png')).not.toBe(USER_AGENT);
    }
  });
});
