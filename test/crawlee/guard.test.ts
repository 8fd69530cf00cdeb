import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import {
  BasicCrawler,
  CheerioCrawler,
  createCheerioRouter,
  HttpCrawler,
  type Log,
  LogLevel,
  log,
  ProxyConfiguration,
  Request,
  RequestList,
  RequestQueue,
} from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { pacerOf } from '../../src/crawlee/crawl-delay.js';
import {
  type RobotsDroppedRecord,
  RobotsGuard,
  type RobotsGuardOptions,
  RobotsSkipError,
} from '../../src/crawlee/index.js';
import { resolveGuardOptions } from '../../src/crawlee/options.js';
import { type RobotsCheck, RobotsStore, type RobotsStoreOptions } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  page,
  pagesHit,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { never, redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { startForwardingProxy } from '../support/proxy.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

const servers: TestHttpServer[] = [];
const stores: RobotsStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(robots: string | null, pages: string[] = []): Promise<TestHttpServer> {
  const started = await startHttpServer();
  if (robots !== null) started.route('/robots.txt', text(robots));
  for (const path of pages) started.route(path, page(path));
  servers.push(started);
  return started;
}

/** Routes `/p0` to `/p<count - 1>` on `site`; the list returned fills with the time each is fetched. */
function timedPages(site: TestHttpServer, count: number): number[] {
  const sent: number[] = [];
  for (let i = 0; i < count; i++) {
    site.route(`/p${i}`, (request, response) => {
      sent.push(performance.now());
      page(`/p${i}`)(request, response);
    });
  }
  return sent;
}

function newStore(): RobotsStore {
  const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 1000 });
  stores.push(store);
  return store;
}

/**
 * A guard for an origin whose robots.txt is unreachable: its store tries it again within 200 ms,
 * and it waits for it as `unreachable` says.
 */
function unreachableGuard(
  unreachable: RobotsGuardOptions['unreachable'],
  storeOptions: Partial<RobotsStoreOptions> = { retry: { initialDelayMs: 100, maxDelayMs: 200 } },
): RobotsGuard {
  const store = new RobotsStore({ userAgent: USER_AGENT, ...storeOptions });
  stores.push(store);
  return new RobotsGuard({
    productToken: TOKEN,
    userAgent: USER_AGENT,
    store,
    logSummary: false,
    unreachable,
  });
}

/** A Log that keeps its warnings (and its infos, when asked). */
function recordingLog(warnings: string[], infos: string[] = []): Log {
  const fake = {
    child: () => fake,
    warning: (message: string) => warnings.push(message),
    warningOnce: (message: string) => warnings.push(message),
    info: (message: string) => infos.push(message),
    debug: () => {},
    exception: () => {},
    error: () => {},
  };
  return fake as unknown as Log;
}

describe('RobotsGuard request interceptor', () => {
  it('resolves each new origin once, all origins together, when many URLs are added under maxConcurrency 50', async () => {
    const origins = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const s = await server(null);
        // A slow robots.txt: resolving the 5 origins one after the other would take 5 x 400 ms.
        s.route('/robots.txt', (request, response) => {
          setTimeout(() => text('User-agent: *\nDisallow: /no\n')(request, response), 400);
        });
        for (let i = 0; i < 40; i++) s.route(`/p${i}`, page(`p${i}`));
        return s;
      }),
    );
    const config = freshConfiguration();
    let handled = 0;
    const crawler = new CheerioCrawler(
      {
        maxConcurrency: 50,
        minConcurrency: 50,
        requestHandler() {
          handled++;
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    const urls = origins.flatMap((s) => [
      ...Array.from({ length: 40 }, (_, i) => `${s.origin}/p${i}`),
      `${s.origin}/no/1`,
      `${s.origin}/no/2`,
    ]);
    const started = performance.now();
    await crawler.addRequests(urls);
    const addMs = performance.now() - started;
    await crawler.run();

    expect(addMs).toBeLessThan(1500);
    for (const s of origins) {
      expect(s.hits('/robots.txt')).toBe(1);
      expect(pagesHit(s)).toHaveLength(40);
    }
    expect(handled).toBe(200);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records).toHaveLength(10);
    expect(new Set(records.map((r) => r.stage))).toEqual(new Set(['enqueue']));
  });

  it('resolves 1,000 origins concurrently, each once, when 100,000 URLs are added', async () => {
    // One handler on 1,000 ports: every robots.txt answers after 100 ms, so resolving the
    // origins one after the other would take 100 s.
    let inFlight = 0;
    let mostInFlight = 0;
    const robotsHits = new Map<string, number>();
    const listeners = await Promise.all(
      Array.from({ length: 1000 }, async () => {
        const listener = createServer((request, response) => {
          if (request.url !== '/robots.txt') {
            response.writeHead(404).end();
            return;
          }
          const host = request.headers.host ?? '';
          robotsHits.set(host, (robotsHits.get(host) ?? 0) + 1);
          inFlight++;
          mostInFlight = Math.max(mostInFlight, inFlight);
          setTimeout(() => {
            inFlight--;
            response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /no/\n');
          }, 100);
        });
        await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
        return listener;
      }),
    );
    try {
      const origins = listeners.map((l) => `http://127.0.0.1:${(l.address() as AddressInfo).port}`);
      // Interleaved, as a list of links from many sites would be; one URL in 100 disallowed.
      const urls: string[] = [];
      for (let i = 0; i < 100; i++) {
        for (const origin of origins) urls.push(i === 0 ? `${origin}/no/x` : `${origin}/p${i}`);
      }
      const config = freshConfiguration();
      const crawler = new CheerioCrawler({ maxConcurrency: 50, requestHandler() {} }, config);
      const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 5000 });
      stores.push(store);
      new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false }).attach(
        crawler,
      );

      await crawler.addRequests(urls, { waitForAllRequestsToBeAdded: true, waitBetweenBatchesMillis: 0 });

      expect(robotsHits.size).toBe(1000);
      expect(Math.max(...robotsHits.values())).toBe(1);
      // Concurrent: far more than one robots.txt was in flight at a time.
      expect(mostInFlight).toBeGreaterThanOrEqual(32);
      const queue = await crawler.getRequestQueue();
      expect((await queue.getInfo())?.totalRequestCount).toBe(99_000);
      expect(store.checkCached(`${origins[0]}/no/x`, TOKEN)?.allowed).toBe(false);
    } finally {
      await Promise.all(listeners.map((l) => new Promise((resolve) => l.close(resolve))));
    }
  }, 120_000);

  it("counts a request once, though Crawlee's sameDomainDelaySecs gives it back to the queue unfetched", async () => {
    const site = await server('User-agent: *\nDisallow: /no\n', ['/p0', '/p1', '/p2', '/p3']);
    const proxy = await startForwardingProxy(site);
    const store = new RobotsStore({ userAgent: USER_AGENT, proxyUrl: proxy.url });
    stores.push(store);
    try {
      const crawler = new CheerioCrawler(
        {
          // Host names: sameDomainDelaySecs leaves IP addresses alone.
          sameDomainDelaySecs: 0.3,
          proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxy.url] }),
          requestHandler() {},
        },
        freshConfiguration(),
      );
      const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false });
      guard.attach(crawler);
      const stats = await crawler.run(
        ['/p0', '/p1', '/p2', '/p3'].map((path) => `http://shop.example${path}`),
      );

      expect(pagesHit(site)).toEqual(['/p0', '/p1', '/p2', '/p3']);
      expect(stats.requestsFinished).toBe(4);
      expect(guard.summary().origins).toMatchObject([{ origin: 'http://shop.example', allowed: 4 }]);
    } finally {
      await proxy.close();
    }
  });

  it("makes its store with the attached crawler's proxy, also when guard.store() is asked for before the run", async () => {
    const site = await server('User-agent: ExampleBot\nDisallow: /no\n', ['/p0', '/no/x']);
    const proxy = await startForwardingProxy(site);
    try {
      const crawler = new CheerioCrawler(
        { proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxy.url] }), requestHandler() {} },
        freshConfiguration(),
      );
      const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false }).attach(
        crawler,
      );
      // Host names only the proxy reaches: a store that fetched robots.txt directly would find none.
      const store = await guard.store();
      expect((await store.check('http://shop.example/no/x')).allowed).toBe(false);
      const stats = await crawler.run(['http://shop.example/p0', 'http://shop.example/no/x']);

      expect(pagesHit(site)).toEqual(['/p0']);
      expect(site.hits('/robots.txt')).toBe(1);
      expect(stats.requestsFinished).toBe(1);
      expect(guard.summary().totals).toMatchObject({ allowed: 1, dropped: 1, deferred: 0 });
    } finally {
      await proxy.close();
    }
  });

  it('refuses a crawler whose proxyConfiguration is not the one its store fetches through', async () => {
    const site = await server('User-agent: *\nDisallow:\n');
    const proxy = await startForwardingProxy(site);
    try {
      const proxied = () =>
        new CheerioCrawler(
          { proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxy.url] }), requestHandler() {} },
          freshConfiguration(),
        );
      const direct = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
      const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false }).attach(
        direct,
      );
      expect(() => guard.attach(proxied())).toThrow(
        'RobotsGuard: the guard fetches robots.txt through the proxyConfiguration of the crawler it was first attached to, and this crawler has another one: its sites would see another client fetch robots.txt than its pages, or none where only its proxy reaches them. Attach a RobotsGuard of its own to it, or give the guard a store: new RobotsGuard({ store: new RobotsStore({ userAgent, proxyUrl }) }).',
      );
      const early = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false });
      await early.store();
      expect(() => early.attach(proxied())).toThrow(
        /^RobotsGuard: guard\.store\(\) made the guard's store, without a proxy, before the guard was attached to a crawler; this crawler has a proxyConfiguration\. Call guard\.store\(\) after attach\(\), or give/,
      );
      // A crawler without a proxy, as the store has none, and a guard given its store, take any crawler.
      early.attach(new CheerioCrawler({ requestHandler() {} }, freshConfiguration()));
      const given = new RobotsGuard({ productToken: TOKEN, store: newStore(), logSummary: false }).attach(
        direct,
      );
      given.attach(proxied());
    } finally {
      await proxy.close();
    }
  });

  it('asks the proxyConfiguration for a proxy URL again after it failed once, always with a session id', async () => {
    const site = await server('User-agent: *\nDisallow: /no\n', ['/p0', '/p1']);
    const proxy = await startForwardingProxy(site);
    let asked = 0;
    const sessions: unknown[] = [];
    try {
      const crawler = new CheerioCrawler(
        {
          proxyConfiguration: new ProxyConfiguration({
            // As Crawlee calls it with a session pool: a function may rely on the id (sticky sessions).
            newUrlFunction: (sessionId) => {
              sessions.push(sessionId);
              if (asked++ === 0) throw new Error('the proxy service did not answer');
              return proxy.url;
            },
          }),
          requestHandler() {},
        },
        freshConfiguration(),
      );
      const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false }).attach(
        crawler,
      );
      const stats = await crawler.run([
        'http://shop.example/p0',
        'http://shop.example/p1',
        'http://shop.example/no/1',
      ]);

      expect(pagesHit(site)).toEqual(['/p0', '/p1']);
      expect(stats.requestsFinished).toBe(2);
      expect(guard.summary().totals).toMatchObject({ allowed: 2, dropped: 1 });
      expect(sessions.length).toBeGreaterThan(2);
      expect(sessions.filter((id) => typeof id !== 'string' || id === '')).toEqual([]);
      // The guard's own asks, for robots.txt, name a session of its own.
      expect(sessions.slice(0, 2)).toEqual(['crawlee_robots', 'crawlee_robots']);
    } finally {
      await proxy.close();
    }
  });

  it('checks requests again when they are taken out of the queue, and marks skipped ones handled', async () => {
    const site = await server('User-agent: ExampleBot\nDisallow: /late\n', ['/ok', '/late/1', '/late/2']);
    const config = freshConfiguration();
    // Requests that entered the queue before the guard saw them (a queue filled by another process).
    const queue = await RequestQueue.open(null, { config });
    await queue.addRequests([`${site.origin}/ok`, `${site.origin}/late/1`, `${site.origin}/late/2`]);
    const handled: string[] = [];
    const crawler = new CheerioCrawler(
      {
        requestQueue: queue,
        requestHandler({ request }) {
          handled.push(request.url);
        },
      },
      config,
    );
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const stats = await crawler.run();

    expect(pagesHit(site)).toEqual(['/ok']);
    expect(handled).toEqual([`${site.origin}/ok`]);
    expect(stats.requestsFinished).toBe(1);
    expect(stats.requestsFailed).toBe(0);
    expect(await queue.handledCount()).toBe(3);
    expect(await queue.isFinished()).toBe(true);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage, r.reason]).sort()).toEqual([
      [`${site.origin}/late/1`, 'dequeue', 'disallowed'],
      [`${site.origin}/late/2`, 'dequeue', 'disallowed'],
    ]);
    expect(guard.summary().origins[0]).toMatchObject({ allowed: 1, dropped: 2 });
    // The user's store, closed: the summary keeps its counts, without the policies.
    const store = stores[stores.length - 1];
    await store.close();
    expect(guard.summary().origins[0]).toMatchObject({ allowed: 1, dropped: 2 });
  });

  it('records each request the queue keeps apart, though their URL is one, when added and when taken out', async () => {
    const site = await server('User-agent: *\nDisallow: /no\n');
    const o = site.origin;
    const requests = () => [
      { url: `${o}/no/api`, method: 'POST' as const, payload: 'a', useExtendedUniqueKey: true },
      { url: `${o}/no/api`, method: 'POST' as const, payload: 'b', useExtendedUniqueKey: true },
      { url: `${o}/no/same`, uniqueKey: 'S1' },
      { url: `${o}/no/same`, uniqueKey: 'S2' },
      // Keyed by their URL alone: one in the queue, one record.
      { url: `${o}/no/plain` },
      { url: `${o}/no/plain#part` },
    ];
    for (const stage of ['enqueue', 'dequeue'] as const) {
      const config = freshConfiguration();
      const queue = await RequestQueue.open(null, { config });
      // Queued before the guard saw them, they are checked when taken out.
      if (stage === 'dequeue') await queue.addRequests(requests());
      const skipped: string[] = [];
      const crawler = new CheerioCrawler(
        {
          requestQueue: queue,
          onSkippedRequest: ({ url }) => {
            skipped.push(url);
          },
          requestHandler() {},
        },
        config,
      );
      const store = newStore();
      await store.resolve(o);
      const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store }).attach(crawler);
      if (stage === 'enqueue') await crawler.addRequests(requests());
      await crawler.run();
      const records = await datasetItems<RobotsDroppedRecord>(config);
      expect(records.map((r) => `${r.stage} ${r.url.replace(o, '')}`).sort()).toEqual(
        [`/no/api`, `/no/api`, `/no/plain`, `/no/same`, `/no/same`].map((path) => `${stage} ${path}`),
      );
      expect(skipped).toHaveLength(5);
      expect(guard.summary().totals).toMatchObject({ allowed: 0, dropped: 5 });
      expect(pagesHit(site)).toEqual([]);
    }
  });

  it("says each origin's robots.txt in the summary after the store has let its policy go", async () => {
    const [open, missing] = await Promise.all([
      server('User-agent: *\nDisallow: /no\n', ['/a', '/no']),
      server(null, ['/b']),
    ]);
    // Room for one policy: the first origin's leaves the store when the second's comes in.
    const store = new RobotsStore({ userAgent: USER_AGENT, maxEntries: 1 });
    stores.push(store);
    const crawler = new CheerioCrawler({ maxConcurrency: 1, requestHandler() {} }, freshConfiguration());
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false });
    guard.attach(crawler);
    await crawler.run([`${open.origin}/a`, `${open.origin}/no`]);
    await crawler.run([`${missing.origin}/b`], { purgeRequestQueue: false });

    expect(store.peek(`${open.origin}/`)).toBeUndefined();
    const summary = guard.summary().origins;
    expect(summary.find((o) => o.origin === open.origin)).toMatchObject({
      robotsStatus: 200,
      policyKind: 'rules',
      allowed: 1,
      dropped: 1,
    });
    expect(summary.find((o) => o.origin === open.origin)!.robotsAgeMs).toBeGreaterThanOrEqual(0);
    expect(summary.find((o) => o.origin === missing.origin)).toMatchObject({
      robotsStatus: 404,
      policyKind: 'allow-all',
      allowed: 1,
    });
  });

  it('keeps the crawler an object of fast properties, which Crawlee reads dozens of times per request', () => {
    // V8 turns an object whose data property becomes an accessor into a dictionary of properties.
    setFlagsFromString('--allow-natives-syntax');
    const hasFastProperties = new Function('object', 'return %HasFastProperties(object)');
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    expect(hasFastProperties(crawler)).toBe(true);
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    expect(hasFastProperties(crawler)).toBe(true);
  });

  it('checks the requests of a queue assigned to the crawler after attach, and of the queue getRequestQueue() made', async () => {
    const site = await server('User-agent: *\nDisallow: /private\n', [
      '/a',
      '/b',
      '/private/x',
      '/private/y',
    ]);
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    // The queue Crawlee creates on demand is handed out wrapped: adding to it is checked.
    const made = await crawler.getRequestQueue();
    await made.addRequests([`${site.origin}/a`, `${site.origin}/private/x`]);
    // A queue the user puts in place afterwards is wrapped when the crawl starts.
    const queue = await RequestQueue.open('assigned', { config });
    await queue.addRequests([`${site.origin}/b`, `${site.origin}/private/y`]);
    (crawler as unknown as { requestQueue: RequestQueue; requestManager: unknown }).requestQueue = queue;
    (crawler as unknown as { requestManager: unknown }).requestManager = queue;
    await crawler.run();
    expect(pagesHit(site).sort()).toEqual(['/b']);
    expect(await made.handledCount()).toBe(0);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage]).sort()).toEqual([
      [`${site.origin}/private/x`, 'enqueue'],
      [`${site.origin}/private/y`, 'dequeue'],
    ]);
  });

  it("writes the records of each crawler it guards to that crawler's own storage", async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n');
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() });
    const first = freshConfiguration();
    const second = freshConfiguration();
    const a = new CheerioCrawler({ requestHandler() {} }, first);
    const b = new CheerioCrawler({ requestHandler() {} }, second);
    guard.attach(a).attach(b);
    await a.run([`${site.origin}/private/a`]);
    await b.run([`${site.origin}/private/b`]);
    const urls = async (config: typeof first) =>
      (await datasetItems<RobotsDroppedRecord>(config)).map((record) => record.url);
    expect(await urls(first)).toEqual([`${site.origin}/private/a`]);
    expect(await urls(second)).toEqual([`${site.origin}/private/b`]);
  });

  it('records a URL in the storage of each crawler that drops it, and tells each its onSkippedRequest', async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n');
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() });
    const first = freshConfiguration();
    const second = freshConfiguration();
    const skipped: string[] = [];
    const crawler = (config: typeof first, name: string) =>
      new CheerioCrawler(
        {
          requestHandler() {},
          onSkippedRequest({ url }) {
            skipped.push(`${name} ${url}`);
          },
        },
        config,
      );
    const a = crawler(first, 'a');
    const b = crawler(second, 'b');
    guard.attach(a).attach(b);
    const url = `${site.origin}/private/a`;
    await a.run([url]);
    await b.run([url]);
    for (const config of [first, second]) {
      expect((await datasetItems<RobotsDroppedRecord>(config)).map((record) => record.url)).toEqual([url]);
    }
    expect(skipped).toEqual([`a ${url}`, `b ${url}`]);
  });

  it('tells each crawler of one storage its own drop, running at once, with one record between them', async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n', ['/ok']);
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() });
    const config = freshConfiguration();
    const skipped: string[] = [];
    const crawler = (name: string, requestQueue?: RequestQueue) =>
      new CheerioCrawler(
        {
          requestQueue,
          requestHandler() {},
          onSkippedRequest({ url }) {
            skipped.push(`${name} ${url}`);
          },
        },
        config,
      );
    const a = crawler('a');
    // Crawler b reads a queue of its own; both write to the storage's one dataset.
    const b = crawler('b', await RequestQueue.open('b-queue', { config }));
    guard.attach(a).attach(b);
    const url = `${site.origin}/private/a`;
    await Promise.all([a.run([url, `${site.origin}/ok`]), b.run([url])]);
    expect((await datasetItems<RobotsDroppedRecord>(config)).map((record) => record.url)).toEqual([url]);
    expect(skipped.sort()).toEqual([`a ${url}`, `b ${url}`]);
    // A later run of one of them is told again, as a later run always is.
    await a.run([url]);
    expect(skipped.filter((line) => line.startsWith('a '))).toEqual([`a ${url}`, `a ${url}`]);
  });

  it('refuses to attach to a crawler that is running: what it took out of its queue would go unchecked', async () => {
    const site = await server('User-agent: *\nAllow: /\n', ['/a']);
    const errors: unknown[] = [];
    const crawler = new CheerioCrawler(
      {
        requestHandler() {
          try {
            new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
              crawler,
            );
          } catch (error) {
            errors.push(error);
          }
        },
      },
      freshConfiguration(),
    );
    await crawler.run([`${site.origin}/a`]);
    expect(errors).toEqual([
      new TypeError(
        'RobotsGuard.attach() must come before crawler.run(): this crawler is running, and what it took out of its queue already would go unchecked.',
      ),
    ]);
  });

  it('records URLs without their credentials', async () => {
    const site = await server('User-agent: *\nDisallow: /private\n', ['/']);
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    const url = `${site.origin.replace('http://', 'http://user:secret@')}/private/page`;
    await crawler.run([url]);
    const [record] = await datasetItems<RobotsDroppedRecord>(config);
    expect(record.url).toBe(`${site.origin}/private/page`);
    expect(JSON.stringify(record)).not.toContain('secret');
  });
});

describe('RobotsGuard Crawl-delay', () => {
  it('spaces the requests of an origin by its Crawl-delay without slowing other origins', async () => {
    const slow = await server('User-agent: ExampleBot\nCrawl-delay: 0.5\n');
    const fast = await server('User-agent: *\nDisallow:\n');
    const times: Record<string, number[]> = { slow: [], fast: [] };
    for (let i = 0; i < 4; i++) {
      slow.route(`/s${i}`, (request, response) => {
        times.slow.push(Date.now());
        page('s')(request, response);
      });
      fast.route(`/f${i}`, (request, response) => {
        times.fast.push(Date.now());
        page('f')(request, response);
      });
    }
    const crawler = new CheerioCrawler({ maxConcurrency: 10, requestHandler() {} }, freshConfiguration());
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const started = Date.now();
    await crawler.run([
      ...Array.from({ length: 4 }, (_, i) => `${slow.origin}/s${i}`),
      ...Array.from({ length: 4 }, (_, i) => `${fast.origin}/f${i}`),
    ]);
    expect(times.slow).toHaveLength(4);
    const gaps = times.slow
      .sort((a, b) => a - b)
      .slice(1)
      .map((t, i) => t - times.slow[i]);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(480);
    // The other origin was done long before the paced one.
    expect(Math.max(...times.fast) - started).toBeLessThan(1000);
    expect(guard.summary().origins.find((o) => o.origin === slow.origin)?.crawlDelaySeconds).toBe(0.5);
  });

  for (const Kind of [CheerioCrawler, HttpCrawler] as const) {
    it(`paces redirect hops into an origin by its Crawl-delay, clamped to maxSeconds, as direct requests (${Kind.name})`, async () => {
      const from = await server('User-agent: *\nDisallow:\n');
      const paced = await server('User-agent: ExampleBot\nCrawl-delay: 60\n');
      const times: number[] = [];
      const reached = (path: string) => (request: IncomingMessage, response: ServerResponse) => {
        times.push(Date.now());
        page(path)(request, response);
      };
      for (let i = 0; i < 3; i++) {
        from.route(`/r${i}`, redirect(`${paced.origin}/p${i}`, 302));
        paced.route(`/p${i}`, reached(`/p${i}`));
      }
      paced.route('/direct', reached('/direct'));
      const config = freshConfiguration();
      const handled: string[] = [];
      const crawler = new Kind(
        {
          maxConcurrency: 10,
          requestHandler({ request }) {
            handled.push(request.loadedUrl!);
          },
        },
        config,
      );
      const guard = new RobotsGuard({
        productToken: TOKEN,
        userAgent: USER_AGENT,
        store: newStore(),
        crawlDelay: { maxSeconds: 0.5 },
      }).attach(crawler);
      const stats = await crawler.run([
        ...Array.from({ length: 3 }, (_, i) => `${from.origin}/r${i}`),
        `${paced.origin}/direct`,
      ]);

      expect(pagesHit(paced)).toEqual(['/direct', '/p0', '/p1', '/p2']);
      const gaps = times
        .sort((a, b) => a - b)
        .slice(1)
        .map((t, i) => t - times[i]);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(480);
      // Clamped: 60 s asked, 0.5 s applied.
      expect(Math.max(...gaps)).toBeLessThan(5000);
      expect(handled.sort()).toEqual(
        ['/direct', '/p0', '/p1', '/p2'].map((path) => `${paced.origin}${path}`),
      );
      expect(stats.requestsFailed).toBe(0);
      expect(await datasetItems<RobotsDroppedRecord>(config)).toEqual([]);
      expect(guard.summary().origins.find((o) => o.origin === paced.origin)?.crawlDelaySeconds).toBe(0.5);
    });
  }

  it('spaces the requests of an origin as they go out, when something holds one past its slot', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 1\n');
    const sent = timedPages(site, 3);
    let first = true;
    const crawler = new CheerioCrawler(
      {
        maxConcurrency: 3,
        // A slow first navigation (a browser that starts does the same): the first request goes
        // out long after its slot, close to the slot of the second.
        preNavigationHooks: [
          async () => {
            if (!first) return;
            first = false;
            await new Promise((resolve) => setTimeout(resolve, 800));
          },
        ],
        requestHandler() {},
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    await crawler.run([0, 1, 2].map((i) => `${site.origin}/p${i}`));
    expect(sent).toHaveLength(3);
    for (let i = 1; i < sent.length; i++) expect(sent[i] - sent[i - 1]).toBeGreaterThanOrEqual(950);
  });

  it("lets a redirect chain that leaves a paced origin and comes back to it end, on the request's own slot", async () => {
    const paced = await server('User-agent: *\nCrawl-delay: 1\n');
    const other = await server('User-agent: *\nAllow: /\n');
    paced.route('/start', redirect(`${other.origin}/x`, 302));
    other.route('/x', redirect(`${paced.origin}/final`, 302));
    paced.route('/final', page('/final'));
    const handled: string[] = [];
    const crawler = new CheerioCrawler(
      {
        maxRequestRetries: 0,
        requestHandler({ request }) {
          handled.push(request.loadedUrl ?? request.url);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    await crawler.run([`${paced.origin}/start`]);
    expect(handled).toEqual([`${paced.origin}/final`]);
    // Sent once: deferring the hop back would send the request to its origin again, and again.
    expect(pagesHit(paced).sort()).toEqual(['/final', '/start']);
  });

  it('ends a redirect loop through a paced origin as the HTTP client does, with the request failed', async () => {
    const paced = await server('User-agent: *\nCrawl-delay: 1\n');
    const other = await server('User-agent: *\nAllow: /\n');
    // A to B and back, for ever; B asks for a delay.
    other.route('/x', redirect(`${paced.origin}/y`, 302));
    const sent: number[] = [];
    const back = redirect(`${other.origin}/x`, 302);
    paced.route('/y', (request, response) => {
      sent.push(Date.now());
      back(request, response);
    });
    const failed: string[] = [];
    const crawler = new CheerioCrawler(
      {
        maxRequestRetries: 0,
        requestHandler() {},
        failedRequestHandler({ request }) {
          failed.push(request.url);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    const started = Date.now();
    // Each hop into B deferred the request to B's next slot, and the chain started again: the
    // crawl never ended.
    const stats = await crawler.run([`${other.origin}/x`]);
    expect(failed).toEqual([`${other.origin}/x`]);
    expect(stats.requestsFailed).toBe(1);
    // got's redirect limit (10 hops, 5 into B) on the one attempt, the hops into B a delay apart.
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < sent.length; i++) expect(sent[i] - sent[i - 1]).toBeGreaterThanOrEqual(990);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);

  it('finishes a crawl started from a RequestList whose handler adds links while a request waits for its slot', async () => {
    // Crawlee swaps the list for a tandem of list and queue at the first added link: a request
    // held by the list then comes out of the tandem.
    const site = await server('User-agent: *\nCrawl-delay: 0.5\n');
    site.route('/1', page('/1', ['/3']));
    site.route('/2', page('/2'));
    site.route('/3', page('/3'));
    const config = freshConfiguration();
    const requestList = await RequestList.open(null, [`${site.origin}/1`, `${site.origin}/2`]);
    const crawler = new CheerioCrawler(
      {
        requestList,
        async requestHandler({ enqueueLinks }) {
          await enqueueLinks();
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    await crawler.run();
    expect(pagesHit(site).sort()).toEqual(['/1', '/2', '/3']);
  });

  it('paces and finishes a crawl from a RequestList and a RequestQueue given together, each request on one slot', async () => {
    // Crawlee builds a tandem around the crawler's queue, which the guard wraps as well.
    const site = await server('User-agent: *\nCrawl-delay: 0.5\n');
    const sent = timedPages(site, 4);
    const config = freshConfiguration();
    const requestList = await RequestList.open(
      null,
      [0, 1, 2, 3].map((i) => `${site.origin}/p${i}`),
    );
    const requestQueue = await RequestQueue.open(null, { config });
    const crawler = new CheerioCrawler({ requestList, requestQueue, requestHandler() {} }, config);
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    await crawler.run();
    expect(pagesHit(site).sort()).toEqual(['/p0', '/p1', '/p2', '/p3']);
    // Three delays of 0.5 s between the first page and the last, not six.
    expect(Math.max(...sent) - Math.min(...sent)).toBeLessThan(2500);
    expect(guard.summary().totals).toMatchObject({ allowed: 4, dropped: 0 });
  });

  it('gives the requests still waiting for their slot back to the queue when a run stops, for the next run', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 0.5\n');
    const paths = ['/p0', '/p1', '/p2', '/p3'];
    for (const path of paths) site.route(path, page(path));
    const config = freshConfiguration();
    const requestQueue = await RequestQueue.open('held', { config });
    let handled = 0;
    const crawler = new CheerioCrawler(
      {
        requestQueue,
        requestHandler({ crawler: running }) {
          if (++handled === 1) running.stop();
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    await crawler.run(paths.map((path) => `${site.origin}${path}`));
    expect(pagesHit(site).length).toBeLessThan(paths.length);
    // Left locked, they would wait for their queue lock (over a minute) before this run saw them.
    const started = performance.now();
    await crawler.run();
    expect(pagesHit(site)).toEqual(paths);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('says how many requests a stopped run gave back, and that the next run() empties the default queue', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 0.5\n');
    const paths = ['/p0', '/p1', '/p2', '/p3'];
    for (const path of paths) site.route(path, page(path));
    let handled = 0;
    const crawler = new CheerioCrawler(
      {
        requestHandler({ crawler: running }) {
          if (++handled === 1) running.stop();
        },
      },
      freshConfiguration(),
    );
    const { log, lines } = captureLog();
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore(), log }).attach(crawler);
    await crawler.run(paths.map((path) => `${site.origin}${path}`));
    const said = lines
      .map((line) => line.message)
      .filter((message) => message.includes('went back to the queue'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^\d+ requests? still waiting for robots\.txt or a Crawl-delay slot went back to the queue, for the next run\. crawler\.run\(\) empties the default queue first unless given \{ purgeRequestQueue: false \}\.$/,
    );
    // As it says: kept, they are crawled by the next run.
    await crawler.run(undefined, { purgeRequestQueue: false });
    expect(pagesHit(site)).toEqual(paths);
  });

  it('frees the slots of the requests a stopped run gave back: the next crawler of the guard does not wait for them', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 0.5\n');
    const paths = Array.from({ length: 40 }, (_, i) => `/p${i}`);
    for (const path of [...paths, '/b']) site.route(path, page(path));
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() });
    let handled = 0;
    const stopped = new CheerioCrawler(
      {
        requestHandler({ crawler: running }) {
          if (++handled === 2) running.stop();
        },
      },
      freshConfiguration(),
    );
    guard.attach(stopped);
    await stopped.run(paths.map((path) => `${site.origin}${path}`));
    const next = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    guard.attach(next);
    const started = performance.now();
    await next.run([`${site.origin}/b`]);
    // Not after the 20 s of slots the 38 requests given back had taken.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(pagesHit(site)).toContain('/b');
  });

  it('finishes a paced crawl with two guards on one crawler, each wrapping its queue once', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 0.3\n', ['/p0', '/p1', '/p2']);
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    const first = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() });
    const second = new RobotsGuard({ productToken: 'OtherBot', userAgent: USER_AGENT, store: newStore() });
    first.attach(crawler);
    second.attach(crawler);
    await crawler.run(['/p0', '/p1', '/p2'].map((path) => `${site.origin}${path}`));
    expect(pagesHit(site)).toEqual(['/p0', '/p1', '/p2']);
    expect(first.summary().totals).toMatchObject({ allowed: 3 });
    expect(second.summary().totals).toMatchObject({ allowed: 3 });
  });

  it('still spaces the request a stopped run sent from the next run of a BasicCrawler, which has no hook as requests go out', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 1\n');
    const sent = timedPages(site, 3);
    const config = freshConfiguration();
    const requestQueue = await RequestQueue.open('basic', { config });
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() });
    const crawler = (stopAfterFirst: boolean): BasicCrawler => {
      const basic: BasicCrawler = new BasicCrawler(
        {
          requestQueue,
          async requestHandler({ sendRequest }) {
            await sendRequest({ headers: { 'user-agent': USER_AGENT } });
            if (stopAfterFirst) basic.stop();
          },
        },
        config,
      );
      guard.attach(basic);
      return basic;
    };
    const first = crawler(true);
    await first.addRequests([0, 1, 2].map((i) => `${site.origin}/p${i}`));
    await first.run();
    await crawler(false).run();
    expect(pagesHit(site)).toEqual(['/p0', '/p1', '/p2']);
    const gaps = sent.slice(1).map((at, i) => at - sent[i]);
    // One second apart at least (timers may fire a little early).
    for (const gap of gaps) expect(gap).toBeGreaterThan(950);
  });

  it('paces the crawlers of two guards with one store and product token as one crawler, and no others', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 0.5\n');
    const sent = timedPages(site, 6);
    const store = newStore();
    const crawlers = [0, 1].map(
      () => new CheerioCrawler({ maxConcurrency: 5, requestHandler() {} }, freshConfiguration()),
    );
    for (const crawler of crawlers)
      new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false }).attach(
        crawler,
      );
    await Promise.all(
      crawlers.map((crawler, c) => crawler.run([0, 1, 2].map((i) => `${site.origin}/p${c * 3 + i}`))),
    );
    expect(pagesHit(site)).toEqual(['/p0', '/p1', '/p2', '/p3', '/p4', '/p5']);
    const gaps = sent.slice(1).map((at, i) => at - sent[i]);
    for (const gap of gaps) expect(gap).toBeGreaterThan(450);

    // Another store, or another product token, is another pacer.
    expect(pacerOf(store, 'ExampleBot')).toBe(pacerOf(store, 'examplebot'));
    expect(pacerOf(store, 'ExampleBot')).not.toBe(pacerOf(store, 'OtherBot'));
    expect(pacerOf(store, 'ExampleBot')).not.toBe(pacerOf(newStore(), 'ExampleBot'));
  });

  it('leaves a run alone when run() is called again while it goes on, which Crawlee refuses', async () => {
    const site = await server('User-agent: *\nCrawl-delay: 0.3\n');
    const paths = ['/p0', '/p1', '/p2', '/p3'];
    for (const path of paths) site.route(path, page(path));
    const summaries: string[] = [];
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      log: recordingLog([], summaries),
    }).attach(crawler);
    const running = crawler.run(paths.map((path) => `${site.origin}${path}`));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(crawler.run()).rejects.toThrow(/already running/);
    await running;
    expect(pagesHit(site)).toEqual(paths);
    expect(summaries.filter((message) => message.startsWith('robots.txt summary'))).toHaveLength(1);
  });

  it('warns once per origin when thousands of its requests wait for their Crawl-delay slots, held in memory', async () => {
    const paced = await server('User-agent: *\nCrawl-delay: 1\n');
    const other = await server('User-agent: *\nCrawl-delay: 1\n');
    const { log, warnings } = captureLog();
    const crawler = new BasicCrawler({ requestHandler() {} }, freshConfiguration());
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      log,
      logSummary: false,
    }).attach(crawler);
    const slotWarnings = () => warnings().filter((message) => message.includes('Crawl-delay slots'));
    const running = crawler.run([
      ...Array.from({ length: 5050 }, (_, i) => `${paced.origin}/p${i}`),
      ...Array.from({ length: 50 }, (_, i) => `${other.origin}/p${i}`),
    ]);
    const started = performance.now();
    while (slotWarnings().length === 0 && performance.now() - started < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Time for the requests after the one warned about to be held too, and warned about again if they were.
    await new Promise((resolve) => setTimeout(resolve, 500));
    crawler.stop();
    await running;
    expect(slotWarnings()).toEqual([
      `5000 requests or more of ${paced.origin} wait for their Crawl-delay slots (one every 1 s, the last in 83 min), held in memory and locked in the queue; with Crawlee's local storage, every listing of the queue's head walks them. Give a paced site a crawler and a queue of its own, or add its URLs among other origins' URLs.`,
    ]);
  });

  it('holds a request whose slot is further ahead than a Node timer can wait (about 24.8 days) until then', async () => {
    // 800,000 s apart: the slot of the fourth request is 27.8 days ahead, the fifth's 37 days.
    const site = await server('User-agent: *\nCrawl-delay: 800000\n');
    const sent = timedPages(site, 5);
    const overflows: string[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === 'TimeoutOverflowWarning') overflows.push(warning.message);
    };
    process.on('warning', onWarning);
    const crawler: BasicCrawler = new BasicCrawler(
      {
        async requestHandler({ sendRequest }) {
          await sendRequest({ headers: { 'user-agent': USER_AGENT } });
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      logSummary: false,
      crawlDelay: { maxSeconds: 1_000_000 },
    }).attach(crawler);
    try {
      const running = crawler.run(Array.from({ length: 5 }, (_, i) => `${site.origin}/p${i}`));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      crawler.stop();
      await running;
    } finally {
      process.off('warning', onWarning);
    }
    expect(sent).toHaveLength(1);
    expect(overflows).toEqual([]);
  });

  it("skips an origin whose Crawl-delay is over the maximum when overMax is 'skip'", async () => {
    const site = await server('User-agent: *\nCrawl-delay: 120\n', ['/a']);
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      crawlDelay: { maxSeconds: 30, overMax: 'skip' },
    }).attach(crawler);
    await crawler.run([`${site.origin}/a`]);
    expect(pagesHit(site)).toEqual([]);
    const [record] = await datasetItems<RobotsDroppedRecord>(config);
    expect(record).toMatchObject({
      stage: 'enqueue',
      reason: 'crawl-delay-over-max',
      crawlDelaySeconds: 120,
    });
  });

  it('reads the Crawl-delay again once the copy of robots.txt it came from has expired', async () => {
    const site = await server(null, ['/a', '/b']);
    let fetches = 0;
    site.route('/robots.txt', (request, response) => {
      fetches++;
      text(fetches === 1 ? 'User-agent: *\nCrawl-delay: 120\n' : 'User-agent: *\nDisallow:\n')(
        request,
        response,
      );
    });
    const store = new RobotsStore({ userAgent: USER_AGENT, maxAgeMs: 300, minAgeMs: 0 });
    stores.push(store);
    const config = freshConfiguration();
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      crawlDelay: { maxSeconds: 30, overMax: 'skip' },
    });
    const first = new CheerioCrawler({ requestHandler() {} }, config);
    guard.attach(first);
    await first.run([`${site.origin}/a`]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const second = new CheerioCrawler({ requestHandler() {} }, config);
    guard.attach(second);
    await second.run([`${site.origin}/b`]);

    expect(fetches).toBe(2);
    expect(pagesHit(site)).toEqual(['/b']);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.reason])).toEqual([[`${site.origin}/a`, 'crawl-delay-over-max']]);
  });
});

describe('RobotsGuard and an origin whose robots.txt stays unreachable', () => {
  it("waits at the deadline for the store's next attempt when it is due within maxRecheckDelayMs", async () => {
    // The first three attempts fail. The store tries again 0.3, 0.6 and 1.2 s after each (its back-off
    // doubles), and the crawler looks at held requests every half second: the fourth attempt is
    // due after the URLs' 1.5 s, and within maxRecheckDelayMs of it. It is waited for.
    let attempts = 0;
    const site = await server(null, ['/a']);
    site.route('/robots.txt', (request, response) => {
      attempts++;
      (attempts <= 3 ? text('down', 503) : text('User-agent: *\nDisallow:\n'))(request, response);
    });
    const guard = unreachableGuard(
      { giveUpAfterMs: 1500, minRecheckDelayMs: 50, maxRecheckDelayMs: 3000 },
      { retry: { initialDelayMs: 300, maxDelayMs: 10_000 } },
    );
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ requestHandler() {} }, config);
    guard.attach(crawler);
    await crawler.run([`${site.origin}/a`]);
    expect(pagesHit(site), `${attempts} attempts`).toEqual(['/a']);
    expect(await datasetItems(config)).toEqual([]);
    expect(guard.summary().totals).toMatchObject({ allowed: 1, deferred: 1, givenUp: 0 });
  });

  it('gives the URLs of a new outage the whole wait, though the end of the last one was seen by another user of the store', async () => {
    let up = false;
    const x = await server(null, ['/a1', '/a2']);
    x.route('/robots.txt', (request, response) =>
      (up ? text('User-agent: *\nDisallow:\n') : text('down', 503))(request, response),
    );
    // Pages of another origin, each linking to the next, keep the run going meanwhile.
    const y = await server('User-agent: *\nDisallow:\n');
    for (let i = 0; i < 300; i++) y.route(`/y${i}`, page(`/y${i}`));
    const guard = unreachableGuard(
      { giveUpAfterMs: 1000, minRecheckDelayMs: 50, maxRecheckDelayMs: 100 },
      { maxAgeMs: 300, minAgeMs: 300, retry: { initialDelayMs: 100, maxDelayMs: 200 } },
    );
    const store = await guard.store();
    const config = freshConfiguration();
    let done = false;
    const crawler = new CheerioCrawler(
      {
        async requestHandler({ request, addRequests }) {
          if (request.url.endsWith('/a2')) done = true;
          const next = Number(/\/y(\d+)$/.exec(request.url)?.[1] ?? Number.NaN) + 1;
          if (done || !(next < 300)) return;
          await new Promise((resolve) => setTimeout(resolve, 30));
          await addRequests([`${y.origin}/y${next}`]);
        },
      },
      config,
    );
    guard.attach(crawler);
    const xOf = () => guard.summary().origins.find((origin) => origin.origin === x.origin);
    const script = (async () => {
      // /a1 is given up in the first outage.
      while (xOf()?.givenUp !== 1) await new Promise((resolve) => setTimeout(resolve, 20));
      // robots.txt answers, as another user of the store sees; then a second outage begins.
      up = true;
      await new Promise((resolve) => setTimeout(resolve, 250));
      const answered = (await store.check(`${x.origin}/other`, TOKEN)).policyKind;
      up = false;
      await new Promise((resolve) => setTimeout(resolve, 350));
      const downAgain = (await store.check(`${x.origin}/other`, TOKEN)).policyKind;
      await crawler.addRequests([`${x.origin}/a2`]);
      setTimeout(() => {
        up = true;
      }, 300);
      return [answered, downAgain];
    })();
    await crawler.run([`${x.origin}/a1`, `${y.origin}/y0`]);

    expect(await script).toEqual(['rules', 'disallow-all']);
    // /a2 waited for robots.txt in the second outage, and was fetched once it answered.
    expect(pagesHit(x)).toEqual(['/a2']);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((record) => [record.url, record.reason])).toEqual([
      [`${x.origin}/a1`, 'robots-unreachable'],
    ]);
  });

  it('gives the URLs given up in one run their whole wait again in the next', async () => {
    const site = await server(null, ['/a']);
    site.route('/robots.txt', text('down', 503));
    const store = new RobotsStore({ userAgent: USER_AGENT, retry: { initialDelayMs: 50, maxDelayMs: 50 } });
    stores.push(store);
    const config = freshConfiguration();
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      logSummary: false,
      unreachable: { giveUpAfterMs: 400, minRecheckDelayMs: 50, maxRecheckDelayMs: 100 },
    });
    const runOnce = async () => {
      const crawler = new CheerioCrawler({ requestHandler() {} }, config);
      guard.attach(crawler);
      const started = performance.now();
      await crawler.run([`${site.origin}/a?run=${performance.now()}`]);
      return performance.now() - started;
    };
    expect(await runOnce()).toBeGreaterThanOrEqual(350);
    // The recipe of the README: the URLs given up are run again later.
    expect(await runOnce()).toBeGreaterThanOrEqual(350);
    expect(pagesHit(site)).toEqual([]);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((record) => record.reason)).toEqual(['robots-unreachable', 'robots-unreachable']);
  });

  it('counts a deferred request of a RequestList once, though Crawlee moves it into the queue meanwhile', async () => {
    const down = await server(null, ['/only']);
    down.route('/robots.txt', text('down', 503));
    const up = await server('User-agent: *\nDisallow:\n', ['/a', '/b']);
    const guard = unreachableGuard({ giveUpAfterMs: 1500, minRecheckDelayMs: 100, maxRecheckDelayMs: 300 });
    const config = freshConfiguration();
    const crawler = new CheerioCrawler(
      {
        requestList: await RequestList.open(null, [`${down.origin}/only`, `${up.origin}/a`]),
        maxConcurrency: 1,
        // An add from the handler makes Crawlee read the list through the queue.
        async requestHandler({ request, addRequests }) {
          if (request.url.endsWith('/a')) await addRequests([`${up.origin}/b`]);
        },
      },
      config,
    );
    guard.attach(crawler);
    await crawler.run();
    expect(pagesHit(up)).toEqual(['/a', '/b']);
    expect(pagesHit(down)).toEqual([]);
    expect(guard.summary().origins.find((origin) => origin.origin === down.origin)).toMatchObject({
      deferred: 1,
      givenUp: 1,
      dropped: 1,
    });
    expect((await datasetItems<RobotsDroppedRecord>(config)).map((record) => record.reason)).toEqual([
      'robots-unreachable',
    ]);
  });

  it('keeps the wait and the count of a deferred request when another crawler of the guard starts a run', async () => {
    const down = await server(null);
    down.route('/robots.txt', text('down', 503));
    const up = await server('User-agent: *\nDisallow:\n');
    up.route('/slow', (request, response) => {
      setTimeout(() => page('slow')(request, response), 1500);
    });
    const guard = unreachableGuard({ giveUpAfterMs: 2000, minRecheckDelayMs: 50, maxRecheckDelayMs: 100 });
    const configA = freshConfiguration();
    const a = new CheerioCrawler({ requestHandler() {} }, configA);
    const b = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    guard.attach(a).attach(b);
    const runA = a.run([`${down.origin}/x`]);
    // B starts once A's request has waited for 1 s of its 2 s.
    const deferredOf = () =>
      guard.summary().origins.find((origin) => origin.origin === down.origin)?.deferred;
    while (!deferredOf()) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const bStarted = Date.now();
    await Promise.all([runA, b.run([`${up.origin}/slow`])]);

    // Given up 2 s after its first deferral, about 1 s after B started; had B's run started the
    // wait again, not before 2 s after B started. Read from the record's time, not from when A's
    // run ended, which a loaded machine delays by its own amount.
    const [givenUp] = await datasetItems<RobotsDroppedRecord>(configA);
    expect(givenUp).toMatchObject({ url: `${down.origin}/x`, reason: 'robots-unreachable' });
    expect(Date.parse(givenUp.time) - bStarted).toBeLessThan(1800);
    const downSummary = guard.summary().origins.find((origin) => origin.origin === down.origin);
    expect(downSummary).toMatchObject({ deferred: 1, givenUp: 1 });
  });

  it('counts a deferred request once over a stopped run and the run that resumes it', async () => {
    let down = true;
    const flaky = await server(null, ['/x', '/y']);
    flaky.route('/robots.txt', (request, response) =>
      (down ? text('down', 503) : text('User-agent: *\nDisallow:\n'))(request, response),
    );
    const up = await server('User-agent: *\nDisallow:\n', ['/a']);
    const guard = unreachableGuard({ giveUpAfterMs: 30_000, minRecheckDelayMs: 50, maxRecheckDelayMs: 100 });
    const summaryOf = () => guard.summary().origins.find((origin) => origin.origin === flaky.origin);
    let firstRun = true;
    const crawler = new CheerioCrawler(
      {
        maxConcurrency: 4,
        async requestHandler({ crawler: running }) {
          if (!firstRun) return;
          // The first run is stopped once both requests of the unreachable origin wait aside.
          while (summaryOf()?.deferred !== 2) await new Promise((resolve) => setTimeout(resolve, 20));
          running.stop();
        },
      },
      freshConfiguration(),
    );
    guard.attach(crawler);
    await crawler.run([`${flaky.origin}/x`, `${flaky.origin}/y`, `${up.origin}/a`]);
    expect(pagesHit(flaky)).toEqual([]);
    // Still down as the next run starts, so they are deferred again there; up a little later.
    const upLater = setTimeout(() => {
      down = false;
    }, 500);
    firstRun = false;
    await crawler.run(undefined, { purgeRequestQueue: false });
    clearTimeout(upLater);
    expect(pagesHit(flaky).sort()).toEqual(['/x', '/y']);
    expect(summaryOf()).toMatchObject({ allowed: 2, deferred: 2, dropped: 0 });
  });

  it('fetches later a request another guard of the crawler deferred at a redirect, rather than skip it', async () => {
    const from = await server('User-agent: *\nDisallow:\n');
    const flaky = await server(null, ['/page']);
    let answers = 0;
    flaky.route('/robots.txt', (request, response) => {
      answers++;
      text(answers === 1 ? 'down' : 'User-agent: *\nDisallow:\n', answers === 1 ? 503 : 200)(
        request,
        response,
      );
    });
    from.route('/r', redirect(`${flaky.origin}/page`, 302));
    const handled: string[] = [];
    const crawler = new CheerioCrawler(
      {
        requestHandler({ request }) {
          handled.push(request.loadedUrl!);
        },
      },
      freshConfiguration(),
    );
    const store = new RobotsStore({ userAgent: USER_AGENT, retry: { initialDelayMs: 50, maxDelayMs: 50 } });
    stores.push(store);
    const unreachable = { minRecheckDelayMs: 50 };
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, unreachable }).attach(crawler);
    new RobotsGuard({
      productToken: 'OtherBot',
      userAgent: USER_AGENT,
      store: newStore(),
      unreachable,
    }).attach(crawler);
    await crawler.run([`${from.origin}/r`]);
    expect(handled).toEqual([`${flaky.origin}/page`]);
  });

  it('puts aside a request whose robots.txt does not answer, so that the requests of other origins go on', async () => {
    const silentPaths = ['/s1', '/s2', '/s3', '/s4', '/s5', '/s6'];
    const silent = await server(null, silentPaths);
    silent.route('/robots.txt', never());
    const open = await server('User-agent: *\nDisallow:\n');
    const sent = timedPages(open, 4);
    const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 6000 });
    stores.push(store);
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ maxConcurrency: 1, requestHandler() {} }, config);
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      // The adds do not wait: every request is decided as it leaves the queue.
      enqueueWaitMs: 0,
      unreachable: { giveUpAfterMs: 2000 },
    }).attach(crawler);
    const start = performance.now();
    await crawler.run([
      ...silentPaths.map((path) => `${silent.origin}${path}`),
      ...[0, 1, 2, 3].map((i) => `${open.origin}/p${i}`),
    ]);

    // The other origin's pages did not wait for the silent one's fetch timeout (6 s): the first
    // silent request waits 1 s before it is put aside, the others of its origin at once.
    expect(sent).toHaveLength(4);
    expect(Math.max(...sent) - start).toBeLessThan(3500);
    expect(pagesHit(silent)).toEqual([]);
    // Their wait for robots.txt counted towards giveUpAfterMs: given up once the fetch failed, each
    // counted as deferred and given up.
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url.replace(silent.origin, ''), r.stage, r.reason]).sort()).toEqual(
      silentPaths.map((path) => [path, 'dequeue', 'robots-unreachable']),
    );
    expect(guard.summary().origins.find((o) => o.origin === silent.origin)).toMatchObject({
      deferred: silentPaths.length,
      givenUp: silentPaths.length,
    });
  });

  it('gives up a request whose robots.txt is fetched again and again without an answer', async () => {
    const silent = await server(null, ['/s1', '/s2']);
    silent.route('/robots.txt', never());
    // A fetch lasts as long as a request waits for it before it is put aside, and the store retries
    // sooner than the request is looked at again: a look can find a new fetch running each time,
    // and no answer (the store of the adaptive crawler's tests, whose silent origin was once held
    // for a minute). Whichever look comes past the deadline gives the requests up.
    const store = new RobotsStore({
      userAgent: USER_AGENT,
      fetchTimeoutMs: 1000,
      retry: { initialDelayMs: 200, maxDelayMs: 400 },
    });
    stores.push(store);
    const config = freshConfiguration();
    const crawler = new CheerioCrawler({ maxConcurrency: 1, requestHandler() {} }, config);
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      enqueueWaitMs: 0,
      unreachable: { giveUpAfterMs: 2500, minRecheckDelayMs: 50, maxRecheckDelayMs: 500 },
    }).attach(crawler);
    await crawler.run([`${silent.origin}/s1`, `${silent.origin}/s2`]);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url.replace(silent.origin, ''), r.reason, r.robotsStatus]).sort()).toEqual([
      ['/s1', 'robots-unreachable', 'timeout'],
      ['/s2', 'robots-unreachable', 'timeout'],
    ]);
    expect(guard.summary().origins.find((o) => o.origin === silent.origin)).toMatchObject({
      deferred: 2,
      givenUp: 2,
    });
    expect(pagesHit(silent)).toEqual([]);
  }, 20_000);

  it('counts a request given up on its first look as given up, not as deferred', async () => {
    const down = await server(null, ['/a', '/b', '/c']);
    down.route('/robots.txt', text('down', 503));
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      unreachable: { giveUpAfterMs: 0 },
    }).attach(crawler);
    await crawler.run(['/a', '/b', '/c'].map((path) => `${down.origin}${path}`));
    expect(guard.summary().totals).toMatchObject({ deferred: 0, givenUp: 3 });
    expect(pagesHit(down)).toEqual([]);
  });

  it('comes back to a request deferred at a redirect as soon as the robots.txt it waits for answers', async () => {
    const from = await server('User-agent: *\nDisallow:\n');
    const slow = await server(null, ['/page']);
    // Answers after four times what a hop may wait (half the navigation timeout).
    slow.route('/robots.txt', (request, response) => {
      setTimeout(() => text('User-agent: *\nDisallow:\n')(request, response), 2000);
    });
    from.route('/r', redirect(`${slow.origin}/page`, 302));
    const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 5000 });
    stores.push(store);
    const handled: string[] = [];
    const crawler = new HttpCrawler(
      {
        navigationTimeoutSecs: 1,
        requestHandler({ request }) {
          handled.push(request.loadedUrl!);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store }).attach(crawler);
    await crawler.run([`${from.origin}/r`]);
    expect(handled).toEqual([`${slow.origin}/page`]);
    // Once before the wait, once after: not once more for each half second of it.
    expect(pagesHit(from)).toEqual(['/r', '/r']);
  });

  it('defers, rather than fails, a request whose redirect enters an origin whose robots.txt answers slower than the navigation may take', async () => {
    const from = await server('User-agent: *\nDisallow:\n');
    const silent = await server(null, ['/page']);
    silent.route('/robots.txt', never());
    from.route('/r', redirect(`${silent.origin}/page`, 302));
    const store = new RobotsStore({ userAgent: USER_AGENT, fetchTimeoutMs: 1500 });
    stores.push(store);
    const config = freshConfiguration();
    const failed: string[] = [];
    const crawler = new HttpCrawler(
      {
        navigationTimeoutSecs: 1,
        maxRequestRetries: 0,
        requestHandler() {},
        failedRequestHandler({ request }) {
          failed.push(request.url);
        },
      },
      config,
    );
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      unreachable: { giveUpAfterMs: 1000 },
    }).attach(crawler);
    const stats = await crawler.run([`${from.origin}/r`]);

    expect(failed).toEqual([]);
    expect(stats.requestsFailed).toBe(0);
    expect(pagesHit(silent)).toEqual([]);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((r) => [r.url, r.stage, r.reason])).toEqual([
      [`${silent.origin}/page`, 'redirect', 'robots-unreachable'],
    ]);
  });
});

describe('RobotsGuard and a preNavigationHook that points the request at another URL', () => {
  for (const Kind of [CheerioCrawler, HttpCrawler] as const) {
    it(`checks the URL the hook set before ${Kind.name} fetches it, on its origin or another`, async () => {
      const a = await server('User-agent: *\nDisallow: /secret/\n', ['/p', '/q', '/open', '/secret/1']);
      const b = await server('User-agent: *\nDisallow: /private/\n', ['/private/2', '/fine']);
      const rewrites = new Map([
        [`${a.origin}/p`, `${a.origin}/secret/1`],
        [`${a.origin}/q`, `${b.origin}/private/2`],
        [`${a.origin}/open`, `${b.origin}/fine`],
      ]);
      const config = freshConfiguration();
      const handled: string[] = [];
      const crawler = new Kind(
        {
          preNavigationHooks: [
            ({ request }, gotOptions) => {
              const to = rewrites.get(request.url);
              // Both ways Crawlee offers: the request's URL, or a URL in the got options.
              if (to?.includes('/secret/')) request.url = to;
              else if (to !== undefined) gotOptions.url = to;
            },
          ],
          requestHandler({ request }) {
            handled.push(request.loadedUrl ?? request.url);
          },
        },
        config,
      );
      new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
      await crawler.run([...rewrites.keys()]);
      expect(handled).toEqual([`${b.origin}/fine`]);
      expect(pagesHit(a)).toEqual([]);
      expect(pagesHit(b)).toEqual(['/fine']);
      const records = await datasetItems<RobotsDroppedRecord>(config);
      expect(records.map((r) => [r.url, r.stage, r.reason]).sort()).toEqual(
        [
          [`${a.origin}/secret/1`, 'navigation', 'disallowed'],
          [`${b.origin}/private/2`, 'navigation', 'disallowed'],
        ].sort(),
      );
    });
  }
});

describe('RobotsGuard with a closed store', () => {
  it('lets nothing through and says why, rather than allowing what it cannot check', async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n', ['/open']);
    site.route('/private/x', page('/private/x'));
    const store = newStore();
    await store.resolve(site.origin);
    await expectNothingThrough(site, store, () => store.close(), /RobotsStore is closed/);
  });
});

/**
 * Guards a crawler with `store`, calls `before`, then runs it on two pages of `site` (one
 * disallowed) and asks about a redirect hop: the run and the hop must fail with `failure`, and
 * no page be fetched.
 */
async function expectNothingThrough(
  site: TestHttpServer,
  store: RobotsStore,
  before: () => Promise<void>,
  failure: RegExp,
): Promise<void> {
  const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store });
  const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
  guard.attach(crawler);
  await before();
  await expect(crawler.run([`${site.origin}/private/x`, `${site.origin}/open`])).rejects.toThrow(failure);
  expect(pagesHit(site)).toEqual([]);
  const hop = guard.checkHop(
    crawler as never,
    new Request({ url: `${site.origin}/open` }),
    `${site.origin}/private/x`,
    'redirect',
    true,
    `${site.origin}/open`,
  );
  await expect(hop).rejects.toThrow(failure);
}

describe('RobotsGuard with a store closed while the crawler runs', () => {
  it('gives the request it took back to the queue and stops the crawler, rather than hang', async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n', ['/a', '/b', '/c']);
    const store = newStore();
    const { log: guardLog, lines } = captureLog();
    const handled: string[] = [];
    const failed: string[] = [];
    const crawler = new CheerioCrawler(
      {
        maxConcurrency: 1,
        async requestHandler({ request }) {
          handled.push(new URL(request.url).pathname);
          // Another crawler sharing the store is done with it, say.
          await store.close();
        },
        failedRequestHandler({ request }) {
          failed.push(request.url);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, log: guardLog }).attach(crawler);
    const run = crawler.run(['/a', '/b', '/c'].map((path) => `${site.origin}${path}`));
    const outcome = await Promise.race([
      run.then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000)),
    ]);
    expect(outcome).toBe('ended');
    expect(handled).toEqual(['/a']);
    expect(failed).toEqual([]);
    expect(pagesHit(site)).toEqual(['/a']);
    // Nothing lost: the two pages not crawled are still queued, unlocked.
    const queue = await crawler.getRequestQueue();
    expect(await queue.handledCount()).toBe(1);
    expect(await queue.isFinished()).toBe(false);
    const errors = lines.filter((line) => line.level === LogLevel.ERROR).map((line) => line.message);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /could not be checked against robots\.txt: This RobotsStore is closed.* the crawler stops/,
    );
  }, 30_000);
});

describe('RobotsGuard with a store that fails with a TypeError', () => {
  /** A store with a fault inside: every check fails as a property read of undefined would. */
  class FaultyStore extends RobotsStore {
    override check(): Promise<RobotsCheck> {
      return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'rules')"));
    }
    override checkCached(): RobotsCheck | undefined {
      throw new TypeError("Cannot read properties of undefined (reading 'rules')");
    }
  }

  it('lets nothing through, rather than take the fault for a URL robots.txt does not govern', async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n', ['/open']);
    site.route('/private/x', page('/private/x'));
    const store = new FaultyStore({ userAgent: USER_AGENT, fetchTimeoutMs: 1000 });
    stores.push(store);
    await expectNothingThrough(site, store, async () => {}, /Cannot read properties of undefined/);
  });

  it('lets a URL robots.txt does not govern go its own way, with a store that works', async () => {
    const site = await server('User-agent: *\nDisallow: /\n');
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() });
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    guard.attach(crawler);
    const request = new Request({ url: `${site.origin}/page` });
    for (const url of ['data:text/html,<p>x</p>', 'about:blank', `${site.origin}/page`]) {
      const verdict = await guard.checkHop(crawler as never, request, url, 'redirect', true, request.url);
      expect(verdict === 'allow', url).toBe(!url.startsWith('http'));
    }
  });
});

describe('RobotsGuard with a store closed while requests are added in the background', () => {
  it('stops adding and says so, rather than leave an unhandled rejection and a wait that never ends', async () => {
    const site = await server('User-agent: *\nDisallow: /no\n');
    const store = newStore();
    const { log: guardLog, lines } = captureLog();
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, log: guardLog }).attach(crawler);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // Crawlee adds the first 1,000 at once and the others in batches, in the background.
      const urls = Array.from({ length: 3000 }, (_, i) => `${site.origin}/p${i}`);
      const { waitForAllRequestsToBeAdded } = await crawler.addRequests(urls, {
        waitBetweenBatchesMillis: 50,
      });
      await store.close();
      const added = await Promise.race([
        waitForAllRequestsToBeAdded.then((requests) => requests.length),
        new Promise((resolve) => setTimeout(() => resolve('still pending'), 2000)),
      ]);
      expect(added).toBeLessThan(3000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    const errors = lines.filter((line) => line.level === LogLevel.ERROR).map((line) => line.message);
    expect(errors).toEqual([
      expect.stringMatching(
        /^Adding requests stopped after the first \d+; the rest were not added, since they could not be checked against robots\.txt: This RobotsStore is closed/,
      ),
    ]);
  });
});

describe('RobotsGuard redirect hops into a paced origin', () => {
  /** A guard on a fake clock, and a redirect hop of request `id` into `paced`, as the HTTP client hook asks. */
  async function pacedHops(delaySeconds: number) {
    const paced = await server(`User-agent: *\nCrawl-delay: ${delaySeconds}\n`);
    const from = await server('User-agent: *\nAllow: /\n');
    let now = 1_000_000;
    const store = newStore();
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, clock: () => now });
    await store.resolve(paced.origin);
    await store.resolve(from.origin);
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    const hop = (id: number) =>
      guard.checkHop(
        crawler as never,
        new Request({ url: `${from.origin}/r${id}`, id: `request-${id}` } as never),
        `${paced.origin}/p${id}`,
        'redirect',
        true,
        `${from.origin}/r${id}`,
      );
    return { guard, hop, advance: (ms: number) => (now += ms), now: () => now };
  }

  it('keeps the slot a deferred hop took for its request, and gives it a new one when it comes back too late', async () => {
    const { hop, advance, now } = await pacedHops(10);
    expect(await hop(0)).toBe('allow'); // the origin's first slot is now
    const deferred = await hop(1);
    expect(deferred).toEqual({ action: 'defer', until: now() + 10_000 });
    advance(10_000);
    expect(await hop(1)).toBe('allow'); // back at its slot: it uses it
    const again = await hop(2);
    expect(again).toEqual({ action: 'defer', until: now() + 10_000 });
    advance(60_000); // back long after its slot ended: another one
    expect(await hop(2)).toBe('allow'); // the origin is free by then
    expect(await hop(3)).toEqual({ action: 'defer', until: now() + 10_000 });
  });

  it('keeps the slot while the page that redirects loads again, after the slot came', async () => {
    const { hop, advance, now } = await pacedHops(1);
    expect(await hop(0)).toBe('allow');
    expect(await hop(1)).toEqual({ action: 'defer', until: now() + 1000 });
    expect(await hop(2)).toEqual({ action: 'defer', until: now() + 2000 });
    expect(await hop(3)).toEqual({ action: 'defer', until: now() + 3000 });
    // A browser loads the page that redirects again before its hop comes: 1.5 s after its slot,
    // nothing has gone out since. It uses its slot, rather than waiting behind the others.
    advance(2500);
    expect(await hop(1)).toBe('allow');
  });

  it('lets a chain of redirects that enters the origin again go on, where a deferral would start it again for ever', async () => {
    const { hop, advance, now } = await pacedHops(1);
    expect(await hop(0)).toBe('allow');
    expect(await hop(1)).toEqual({ action: 'defer', until: now() + 1000 });
    advance(1000);
    expect(await hop(1)).toBe('allow'); // at its slot
    // A to B, B to A, A to B again, within one fetch: the loop goes on to the client's redirect limit.
    advance(20);
    expect(await hop(1)).toBe('allow');
    advance(20);
    expect(await hop(1)).toBe('allow');
    // The origin's slots are still counted: another request waits a delay after the last hop.
    expect(await hop(2)).toEqual({ action: 'defer', until: now() + 1000 });
    // Long after, the same request is paced again like any other.
    advance(60_000);
    expect(await hop(1)).toBe('allow');
    expect(await hop(1)).toBe('allow');
    expect(await hop(3)).toEqual({ action: 'defer', until: now() + 1000 });
  });

  it('forgets the slots of requests that never came back', async () => {
    const { guard, hop, advance } = await pacedHops(1);
    for (let id = 0; id < 3000; id++) await hop(id);
    expect(guard.keptHopSlots).toBeGreaterThan(1000);
    // Every slot has ended; the next ones sweep the map.
    advance(4000 * 1000);
    for (let id = 5000; id < 5000 + 1100; id++) await hop(id);
    expect(guard.keptHopSlots).toBeLessThanOrEqual(1100);
  });
});

describe('RobotsGuard and a RobotsSkipError it did not throw', () => {
  it('treats one a handler throws itself as an error like any other: retried, then failed', async () => {
    const site = await server('User-agent: *\nDisallow:\n', ['/page']);
    const skipped: string[] = [];
    const crawler = new CheerioCrawler(
      {
        maxRequestRetries: 1,
        onSkippedRequest: ({ url }) => {
          skipped.push(url);
        },
        requestHandler({ request }) {
          throw new RobotsSkipError(request.url, 'navigation');
        },
      },
      freshConfiguration(),
    );
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(
      crawler,
    );
    const stats = await crawler.run([`${site.origin}/page`]);
    expect(pagesHit(site)).toEqual(['/page', '/page']);
    expect(stats.requestsFailed).toBe(1);
    expect(skipped).toEqual([]);
    expect(guard.summary().totals).toMatchObject({ allowed: 1, dropped: 0 });
  });
});

describe('RobotsGuard router middleware and user hooks', () => {
  it('says which crawler to pass when the context names none and the guard has several', async () => {
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT });
    const request = new Request({ url: 'https://a.example/' });
    await expect(guard.middleware()({ request })).rejects.toThrow(
      'RobotsGuard.middleware(): the crawling context names no crawler',
    );
    guard.attach(new BasicCrawler({ requestHandler() {} }, freshConfiguration()));
    guard.attach(new BasicCrawler({ requestHandler() {} }, freshConfiguration()));
    await expect(guard.middleware()({ request })).rejects.toThrow(
      /attached to 2 crawlers: pass the crawler, guard\.middleware\(crawler\)\.$/,
    );
  });

  it('keeps handlers from a page that became disallowed, and leaves the user hooks and onSkippedRequest working', async () => {
    const site = await server(null, ['/a']);
    // robots.txt changes while the crawl runs: the first two fetches (enqueue, dequeue) allow /a,
    // later ones disallow it. A store that never reuses a copy sees each version.
    let fetches = 0;
    site.route('/robots.txt', (request, response) => {
      fetches++;
      text(fetches <= 2 ? 'User-agent: *\nDisallow:\n' : 'User-agent: ExampleBot\nDisallow: /a\n')(
        request,
        response,
      );
    });
    const store = new RobotsStore({ userAgent: USER_AGENT, maxAgeMs: 1, minAgeMs: 0 });
    stores.push(store);
    const config = freshConfiguration();
    const router = createCheerioRouter();
    const routed: string[] = [];
    const userHooks: string[] = [];
    const skipped: string[] = [];
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store });
    router.use(guard.middleware());
    router.addDefaultHandler(({ request }) => {
      routed.push(request.loadedUrl!);
    });
    const crawler = new CheerioCrawler(
      {
        requestHandler: router,
        onSkippedRequest: ({ url }) => {
          skipped.push(url);
        },
        preNavigationHooks: [
          ({ request }) => {
            userHooks.push(request.url);
          },
        ],
      },
      config,
    );
    guard.attach(crawler);
    const stats = await crawler.run([`${site.origin}/a`]);
    expect(pagesHit(site)).toEqual(['/a']);
    expect(userHooks).toEqual([`${site.origin}/a`]);
    expect(routed).toEqual([]);
    expect(stats.requestsFailed).toBe(0);
    expect(stats.requestsFinished).toBe(0);
    expect(skipped).toEqual([`${site.origin}/a`]);
    const [record] = await datasetItems<RobotsDroppedRecord>(config);
    expect(record).toMatchObject({
      url: `${site.origin}/a`,
      stage: 'navigation',
      reason: 'disallowed',
      rule: { kind: 'disallow', pattern: '/a', line: 2 },
    });
  });

  it("tells an enqueueLinks call's own onSkippedRequest of the URLs it dropped from that call", async () => {
    const site = await server('User-agent: *\nDisallow: /no\n', ['/a']);
    site.route('/', page('home', ['/a', '/no/1', '/no/2']));
    site.route('/a', page('a', ['/no/1']));
    const perCall: string[] = [];
    const crawlerLevel: string[] = [];
    const crawler = new CheerioCrawler(
      {
        maxConcurrency: 1,
        async requestHandler({ request, enqueueLinks }) {
          const from = new URL(request.url).pathname;
          await enqueueLinks({
            onSkippedRequest: ({ url, reason }) => {
              perCall.push(`${from} ${reason} ${new URL(url).pathname}`);
            },
          });
          // Heard before enqueueLinks returned, as for Crawlee's own skips.
          perCall.push(`${from} returned`);
        },
        onSkippedRequest: ({ url }) => {
          crawlerLevel.push(new URL(url).pathname);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store: newStore() }).attach(crawler);
    await crawler.run([`${site.origin}/`]);

    expect(perCall).toEqual([
      '/ robotsTxt /no/1',
      '/ robotsTxt /no/2',
      '/ returned',
      // Each call hears of what it skipped; the crawler's callback hears of each URL once per run.
      '/a robotsTxt /no/1',
      '/a returned',
    ]);
    expect(crawlerLevel.sort()).toEqual(['/no/1', '/no/2']);
  });

  it("crawls in the same run what the crawler's onSkippedRequest adds, however long it takes", async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n', ['/fallback/x', '/fallback/seed']);
    site.route('/start', page('start', ['/private/x']));
    const handled: string[] = [];
    const crawler: CheerioCrawler = new CheerioCrawler(
      {
        async requestHandler({ request, enqueueLinks }) {
          handled.push(new URL(request.url).pathname);
          await enqueueLinks();
        },
        // A callback that looks something up before it adds a fallback: the crawl's queue is
        // empty long before it is done.
        onSkippedRequest: async ({ url }) => {
          await new Promise((resolve) => setTimeout(resolve, 600));
          await crawler.addRequests([url.replace('/private/', '/fallback/')]);
        },
      },
      freshConfiguration(),
    );
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store: newStore(),
      logSummary: false,
    }).attach(crawler);
    await crawler.run([`${site.origin}/start`, `${site.origin}/private/seed`]);
    expect(handled.sort()).toEqual(['/fallback/seed', '/fallback/x', '/start']);
    expect(await (await crawler.getRequestQueue()).isFinished()).toBe(true);
  });

  it('warns when the User-Agent the crawler sends lacks the product token', async () => {
    const site = await server('User-agent: *\nDisallow:\n', ['/a']);
    const warnings: string[] = [];
    const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
    new RobotsGuard({ productToken: TOKEN, store: newStore(), log: recordingLog(warnings) }).attach(crawler);
    await crawler.run([`${site.origin}/a`]);
    expect(warnings.filter((w) => w.includes('does not contain the product token'))).toHaveLength(1);
    // got-scraping's generated browser header is what was sent.
    expect(site.requests.find((r) => r.path === '/a')?.headers['user-agent']).not.toContain(TOKEN);
  });

  it("warns when the crawler is to send another User-Agent than the store's, which fetches robots.txt", () => {
    const warnings: string[] = [];
    const store = newStore();
    const other = 'Mozilla/5.0 (compatible; ExampleBot/2.0)';
    new RobotsGuard({ productToken: TOKEN, userAgent: other, store, log: recordingLog(warnings) });
    expect(warnings).toEqual([expect.stringContaining(`robots.txt is fetched with "${USER_AGENT}"`)]);
    warnings.length = 0;
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, log: recordingLog(warnings) });
    new RobotsGuard({ productToken: TOKEN, store, log: recordingLog(warnings) });
    expect(warnings).toEqual([]);
  });

  it('warns when a one-word productToken is read shorter, as robots.txt reads such a name', () => {
    const warnings: string[] = [];
    const guard = new RobotsGuard({ productToken: 'Bötchen', log: recordingLog(warnings) });
    expect(guard.productToken).toBe('b');
    expect(new RobotsGuard({ productToken: 'Bot2000', log: recordingLog(warnings) }).productToken).toBe(
      'bot',
    );
    expect(warnings).toEqual([
      'The productToken "Bötchen" is read as "b": robots.txt names crawlers by letters, "-" and "_" only, up to the first other character (RFC 9309 2.2.1). Name the crawler with those characters alone.',
      expect.stringContaining('The productToken "Bot2000" is read as "bot"'),
    ]);
    // A token, or a token in a User-Agent header, is read as given.
    warnings.length = 0;
    new RobotsGuard({ productToken: 'Example-Bot_', log: recordingLog(warnings) });
    new RobotsGuard({
      productToken: 'Mozilla/5.0 (compatible; ExampleBot/2.1)',
      log: recordingLog(warnings),
    });
    new RobotsGuard({ productToken: 'ExampleBot/2.1', log: recordingLog(warnings) });
    expect(warnings).toEqual([]);
  });

  it('rejects misuse with a message that says what to do', () => {
    for (const productToken of ['', '  ', 'Example Bot', 'é-Bot/1.0', '*', 5])
      expect(() => new RobotsGuard({ productToken } as never)).toThrow(/productToken: 'ExampleBot'/);
    expect(new RobotsGuard({ productToken: 'Mozilla/5.0 (compatible; ExampleBot/2.1)' }).productToken).toBe(
      'examplebot',
    );
    expect(() => new RobotsGuard({ productToken: TOKEN, crawlDelay: { maxSeconds: -1 } })).toThrow(
      RangeError,
    );
    expect(() => new RobotsGuard({ productToken: TOKEN }).attach({} as never)).toThrow(/Crawlee crawler/);
    // Taken before, the minimum won: each deferred request waited 20 s, past its give-up time.
    expect(
      () =>
        new RobotsGuard({
          productToken: TOKEN,
          unreachable: { giveUpAfterMs: 3000, minRecheckDelayMs: 20_000, maxRecheckDelayMs: 1000 },
        }),
    ).toThrow(
      new RangeError(
        'RobotsGuard option unreachable.minRecheckDelayMs must be at most unreachable.maxRecheckDelayMs (1000), got 20000.',
      ),
    );
    // A default gives way to the other one given: a minimum over the default maximum (30 s) raises
    // it, a maximum under the default minimum (250 ms) lowers it.
    for (const [unreachable, min, max] of [
      [{ minRecheckDelayMs: 60_000 }, 60_000, 60_000],
      [{ maxRecheckDelayMs: 100 }, 100, 100],
      [{ maxRecheckDelayMs: 0 }, 0, 0],
      [{ minRecheckDelayMs: 50, maxRecheckDelayMs: 50 }, 50, 50],
      [{}, 250, 30_000],
    ] as const) {
      expect(resolveGuardOptions({ productToken: TOKEN, unreachable }).unreachable).toMatchObject({
        minRecheckDelayMs: min,
        maxRecheckDelayMs: max,
      });
    }
  });

  it('rejects options of the wrong type at once, rather than misread them during the crawl', () => {
    // Each was taken: 'false' kept the pacing on and the summary logged, a numeric dataset name lost
    // every record (one exception in the log), a clock that is no function failed crawler.run().
    const wrong: [Record<string, unknown>, RegExp | string][] = [
      [{ crawlDelay: { enabled: 'false' } }, /crawlDelay\.enabled must be a boolean, got "false"/],
      [{ logSummary: 'false' }, /logSummary must be a boolean, got "false"/],
      [
        { datasetName: 42 },
        'RobotsGuard option datasetName must be the name of a Dataset, which Crawlee keeps in a directory of that name: a non-empty string of at most 255 octets, without "/", "\\" or control characters, and not "." or "..", got 42.',
      ],
      [{ datasetName: '' }, /datasetName must be .*, got ""/],
      // Each write of a record would fail in the middle of the crawl, the records lost.
      [{ datasetName: '../../escaped' }, /datasetName must be .*, got "..\/..\/escaped"/],
      [{ datasetName: '..' }, /datasetName must be .*, got "\.\."/],
      [{ datasetName: 'a\\b' }, /datasetName must be .*, got "a\\\\b"/],
      [{ datasetName: 'é'.repeat(128) }, /datasetName must be .* at most 255 octets/],
      [{ clock: 5 }, /clock must be a function, got 5/],
      // Crawl-delay slots compared with NaN would never come.
      [
        { clock: () => Number.NaN },
        'RobotsGuard option clock must return milliseconds as a finite number, got NaN.',
      ],
      [{ userAgent: 42 }, /userAgent must be a string, got 42/],
      [{ crawlDelay: 5 }, /crawlDelay must be an object, got 5/],
      [{ crawlDelay: [] }, 'RobotsGuard option crawlDelay must be an object, got an array.'],
      // A string that looks like a number is said to be one.
      [{ enqueueWaitMs: '100' }, /enqueueWaitMs must be a finite number of zero or more, got "100"/],
      [{ unreachable: { giveUpAfterMs: Number.NaN } }, /giveUpAfterMs must be a finite number .*, got NaN/],
      // Past what a timer holds, Node fires it after 1 ms: adds would stop waiting for robots.txt.
      [
        { enqueueWaitMs: 2 ** 31 },
        /enqueueWaitMs must be at most 2147483647 ms \(about 24 days\), got 2147483648/,
      ],
      // Each was taken, and failed the first crawler.run() instead.
      [{ store: {} }, /store must be a RobotsStore, got an object without check\(\), checkCached\(\)/],
      [{ userAgent: 'ExampleBot\nX-Evil: 1' }, /userAgent must be a value an HTTP header can hold/],
      [{ log: 'x' }, /log must be a Crawlee Log, got "x"/],
    ];
    for (const [options, message] of wrong) {
      expect(() => new RobotsGuard({ productToken: TOKEN, ...options } as never)).toThrow(message);
    }
    // A number given as a string is a wrong type, not a number out of range.
    expect(() => new RobotsGuard({ productToken: TOKEN, enqueueWaitMs: '100' } as never)).toThrow(TypeError);
    expect(() => new RobotsGuard({ productToken: TOKEN, enqueueWaitMs: -1 })).toThrow(RangeError);
  });
});
