import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BasicCrawler,
  CheerioCrawler,
  Configuration,
  HttpCrawler,
  LogLevel,
  log,
  RequestQueue,
} from 'crawlee';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CRAWL_DELAYS_SWEEP_MIN,
  CrawlDelayCache,
  formatWait,
  waitFor,
} from '../../src/crawlee/crawl-delay.js';
import { RobotsGuard } from '../../src/crawlee/index.js';
import { MAX_TIMER_MS } from '../../src/options.js';
import { MemoryBackend, RedisBackend, RobotsStore, type RobotsStoreBackend } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  page,
  pagesHit,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { FetchHttpClient } from '../support/http-clients.js';
import { startHttpServer } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { startRedis } from '../support/redis.js';
import { startTimedSites, type TimedSite } from '../support/timed-site.js';

describe('waitFor', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits longer than a Node timer holds (about 24.8 days) in parts, rather than 1 ms', async () => {
    vi.useFakeTimers();
    let done = false;
    void waitFor(MAX_TIMER_MS + 1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(true);
  });
});

describe('CrawlDelayCache', () => {
  it('counts the origins that ask for a delay as their robots.txt changes', () => {
    const cache = new CrawlDelayCache();
    cache.set('https://a.example', 2, 1000, 0);
    cache.set('https://b.example', undefined, 1000, 0);
    cache.set('https://c.example', 0, 1000, 0);
    expect(cache.pacedOrigins).toBe(1);
    cache.set('https://b.example', 5, 2000, 10);
    cache.set('https://a.example', undefined, 2000, 10);
    expect(cache.pacedOrigins).toBe(1);
    expect(cache.get('https://b.example')).toEqual({ seconds: 5, until: 2000 });
  });

  it('forgets the origins whose policy expired as it doubles, and only those', () => {
    const cache = new CrawlDelayCache();
    const count = CRAWL_DELAYS_SWEEP_MIN * 2;
    // Half expire at 100, half hold to 10,000; every fourth asks for a delay.
    for (let i = 0; i < count; i++)
      cache.set(`https://s${i}.example`, i % 4 === 0 ? 1 : undefined, i % 2 ? 10_000 : 100, 0);
    expect([cache.size, cache.pacedOrigins]).toEqual([count, count / 4]);
    cache.set('https://new.example', 3, 10_000, 200);
    expect(cache.size).toBe(count / 2 + 1);
    // The origins with a delay all expired (even numbers): only the new one is left.
    expect(cache.pacedOrigins).toBe(1);
    expect(cache.get('https://s0.example')).toBeUndefined();
    expect(cache.get('https://s1.example')).toEqual({ seconds: undefined, until: 10_000 });
    // Known origins are updated in place, with no sweep.
    cache.set('https://s1.example', 2, 20_000, 20_000);
    expect([cache.size, cache.pacedOrigins]).toEqual([count / 2 + 1, 2]);
  });
});

describe('formatWait', () => {
  it('says a wait in seconds, minutes, hours or days, whichever reads best', () => {
    expect(formatWait(50_000)).toBe('50 s');
    expect(formatWait(119_000)).toBe('119 s');
    expect(formatWait(120_000)).toBe('2 min');
    expect(formatWait(5_000_000)).toBe('83 min');
    expect(formatWait(7_200_000)).toBe('2.0 h');
    expect(formatWait(150_000_000)).toBe('41.7 h');
    expect(formatWait(172_800_000)).toBe('2.0 days');
    expect(formatWait(4_000_000_000)).toBe('46.3 days');
  });
});

log.setLevel(LogLevel.OFF);

/** A guard of ExampleBot with its own store, whose log is kept from the test output. */
function quietGuard(): RobotsGuard {
  return new RobotsGuard({
    productToken: 'ExampleBot',
    userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)',
    logSummary: false,
    log: captureLog().log,
  });
}

/** A guard of the site helpers' product token and User-Agent on `store`, its log kept from the output. */
function storeGuard(store: RobotsStore): RobotsGuard {
  return new RobotsGuard({
    productToken: TOKEN,
    userAgent: USER_AGENT,
    store,
    logSummary: false,
    log: captureLog().log,
  });
}

describe('Crawl-delay as the server sees it', () => {
  it.each([
    ['HttpCrawler', HttpCrawler],
    ['CheerioCrawler', CheerioCrawler],
  ] as const)(
    '%s: each request of a paced origin reaches it a whole delay after the one before',
    async (_name, Crawler) => {
      // A paced origin and a busy one that keeps the crawler asking for requests, in a process
      // of their own, so that the times are the server's. got sends a request some milliseconds
      // after the navigation hooks, tens of them for a new connection: the spacing must hold at
      // the server all the same, the first gap included.
      const { sites, close } = await startTimedSites([
        { robots: 'User-agent: *\nCrawl-delay: 0.3\n' },
        { robots: 'User-agent: *\nAllow: /\n', pageDelayMs: 50 },
      ]);
      const [paced, busy] = sites;
      try {
        const guard = quietGuard();
        const crawler = new Crawler(
          { maxConcurrency: 10, requestHandler: async () => {} },
          new Configuration({ persistStorage: false }),
        );
        guard.attach(crawler);
        const urls: string[] = [];
        for (let i = 0; i < 8; i++)
          urls.push(`${paced.origin}/p${i}`, `${busy.origin}/a${i}`, `${busy.origin}/b${i}`);
        await crawler.run(urls);
        const hits = await paced.hits();
        expect(hits).toHaveLength(8);
        const gaps = hits.slice(1).map((hit, i) => hit.at - hits[i].at);
        expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(300);
      } finally {
        await close();
      }
    },
  );
});

describe('Crawl-delay when a held request is due', () => {
  it("hands the request out as its slot comes, not at the crawler's next look for work half a second later", async () => {
    // With nothing else to do, Crawlee's pool looks for a task every 500 ms: a request whose
    // slot came between two looks went out at the second, so 0.7 s came to 1 s and more.
    const { sites, close } = await startTimedSites([{ robots: 'User-agent: *\nCrawl-delay: 0.7\n' }]);
    const [paced] = sites;
    try {
      const crawler = new CheerioCrawler(
        { maxConcurrency: 5, requestHandler: async () => {} },
        new Configuration({ persistStorage: false }),
      );
      quietGuard().attach(crawler);
      await crawler.run(Array.from({ length: 6 }, (_, i) => `${paced.origin}/p${i}`));
      const hits = await paced.hits();
      expect(hits).toHaveLength(6);
      const gaps = hits
        .slice(1)
        .map((hit, i) => hit.at - hits[i].at)
        .sort((a, b) => a - b);
      expect(gaps[0], `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(700);
      expect(gaps[2], `gaps ${gaps.join(', ')} ms`).toBeLessThan(950);
    } finally {
      await close();
    }
  });
});

describe('Crawl-delay across crawlers whose stores share a backend (a fleet)', () => {
  const backends: [string, () => Promise<{ make: () => RobotsStoreBackend; stop: () => Promise<void> }>][] = [
    [
      'two RedisBackends on one Redis, as two processes have',
      async () => {
        const redis = await startRedis();
        return { make: () => new RedisBackend({ url: redis.url }), stop: () => redis.stop() };
      },
    ],
    [
      'one MemoryBackend',
      async () => {
        const shared = new MemoryBackend();
        return { make: () => shared, stop: async () => {} };
      },
    ],
  ];

  it('paces alone, without hanging, when the backend never answers a claim', async () => {
    const { sites, close } = await startTimedSites([{ robots: 'User-agent: *\nCrawl-delay: 0.5\n' }]);
    const [paced] = sites;
    const backend = new MemoryBackend();
    Object.assign(backend, { claimTurn: () => new Promise<number>(() => {}) });
    const store = new RobotsStore({ userAgent: USER_AGENT, backend, log: captureLog().log });
    try {
      const crawler = new CheerioCrawler(
        { maxConcurrency: 5, requestHandler: async () => {} },
        new Configuration({ persistStorage: false }),
      );
      new RobotsGuard({ productToken: TOKEN, store, logSummary: false, log: captureLog().log }).attach(
        crawler,
      );
      await crawler.run([`${paced.origin}/a`, `${paced.origin}/b`]);
      const hits = await paced.hits();
      expect(hits.map((hit) => hit.path).sort()).toEqual(['/a', '/b']);
      expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(500);
    } finally {
      await store.close();
      await close();
    }
  });

  it.each(backends)(
    '%s: the crawlers are one crawler to the site, a whole delay between any two of their requests',
    async (_name, start) => {
      const { sites, close } = await startTimedSites([{ robots: 'User-agent: *\nCrawl-delay: 1\n' }]);
      const [paced] = sites;
      const backend = await start();
      const stores: RobotsStore[] = [];
      try {
        const crawl = async (name: string) => {
          const store = new RobotsStore({
            userAgent: `Mozilla/5.0 (compatible; ExampleBot/1.0; ${name})`,
            backend: backend.make(),
            log: captureLog().log,
          });
          stores.push(store);
          const crawler = new CheerioCrawler(
            { maxConcurrency: 5, requestHandler: async () => {} },
            new Configuration({ persistStorage: false }),
          );
          new RobotsGuard({
            productToken: 'ExampleBot',
            store,
            logSummary: false,
            log: captureLog().log,
          }).attach(crawler);
          await crawler.run(Array.from({ length: 4 }, (_, i) => `${paced.origin}/${name}/${i}`));
        };
        await Promise.all([crawl('a'), crawl('b')]);
        const hits = await paced.hits();
        expect(hits).toHaveLength(8);
        const gaps = hits.slice(1).map((hit, i) => hit.at - hits[i].at);
        expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(1000);
      } finally {
        for (const store of stores) await store.close();
        await backend.stop();
        await close();
      }
    },
  );
});

/** An agent that opens each connection `ms` late (a far server, a proxy), and keeps none alive. */
function lateAgent(ms: number): Agent {
  const agent = new Agent({ keepAlive: false });
  (agent as unknown as { createConnection: unknown }).createConnection = (
    options: { port: number; host: string },
    done: (error: Error | null, socket: Socket) => void,
  ) => {
    setTimeout(() => done(null, createConnection({ port: options.port, host: options.host })), ms);
  };
  return agent;
}

describe('Crawl-delay after a request written late', () => {
  /**
   * Crawls `paths` of `site` with an HttpCrawler of five slots and a guard, the requests whose URL
   * `late` accepts sent through `agent`: what reached the site, and the shortest gap between two.
   */
  async function crawlThrough(
    site: TimedSite,
    paths: string[],
    agent: Agent,
    late: (url: string) => boolean,
  ) {
    const crawler = new HttpCrawler(
      {
        minConcurrency: 5,
        maxConcurrency: 5,
        preNavigationHooks: [
          ({ request }, gotOptions) => {
            if (late(request.url)) gotOptions.agent = { http: agent };
          },
        ],
        requestHandler: async () => {},
      },
      new Configuration({ persistStorage: false }),
    );
    quietGuard().attach(crawler);
    await crawler.run(paths.map((path) => `${site.origin}${path}`));
    const hits = await site.hits();
    const gaps = hits.slice(1).map((hit, i) => hit.at - hits[i].at);
    const shown = gaps.map((gap, i) => `${hits[i].path} ${hits[i + 1].path} +${gap}`).join(', ');
    return { paths: hits.map((hit) => hit.path), shortest: Math.min(...gaps), shown };
  }

  it('spaces the next request of the origin from when got wrote the one before, not from when it left', async () => {
    // /slow* go through an agent that opens each connection 150 ms late (a far server, a proxy),
    // so their requests are written 150 ms after they leave the guard's hook; their answers come
    // 250 ms later still. The next request, over the kept-alive connection of /p*, leaves a delay
    // after /slow* left, before its answer: it reached the server 150 ms short.
    const { sites, close } = await startTimedSites([
      { robots: 'User-agent: *\nCrawl-delay: 0.3\n', pageDelayMs: 250 },
    ]);
    const slowAgent = lateAgent(150);
    try {
      const paths = ['/p0', '/slow1', '/p1', '/slow2', '/p2'];
      const seen = await crawlThrough(sites[0], paths, slowAgent, (url) => url.includes('/slow'));
      expect(seen.paths.sort()).toEqual([...paths].sort());
      // Spaced from when they left, /p* came 106-157 ms after /slow*. Spaced from the write, one
      // gap of 294 ms was measured once on a loaded machine (not explained: the server's own
      // handling of the new connection, perhaps); the margin keeps the test from failing on it.
      expect(seen.shortest, seen.shown).toBeGreaterThanOrEqual(270);
    } finally {
      slowAgent.destroy();
      await close();
    }
  });

  it('spaces the requests waiting behind one written late from when it left, not from its plan', async () => {
    // Five pages that each redirect once within the origin, every connection opened 100 ms late:
    // pages and hops wait in got's hook together. One that waits on for the write of the one
    // before leaves later than planned; reckoned from its plan, the request behind it reached the
    // server 94-98 ms after it.
    const redirects = Object.fromEntries(['/a', '/b', '/c', '/d', '/e'].map((path) => [path, `${path}-hop`]));
    const { sites, close } = await startTimedSites([
      { robots: 'User-agent: *\nCrawl-delay: 0.3\n', pageDelayMs: 50, redirects },
    ]);
    const agent = lateAgent(100);
    try {
      const seen = await crawlThrough(sites[0], Object.keys(redirects), agent, () => true);
      expect(seen.paths).toHaveLength(10);
      expect(seen.shortest, seen.shown).toBeGreaterThanOrEqual(270);
    } finally {
      agent.destroy();
      await close();
    }
  });
});

describe("Crawl-delay on a BasicCrawler's sendRequest", () => {
  it.each([
    ["Crawlee's own client", undefined, ['/p0', '/slow1', '/p1', '/wait2', '/p2', '/slow3', '/p3']],
    ['a client on fetch', new FetchHttpClient(), ['/p0', '/wait1', '/p1', '/wait2', '/p2']],
  ] as const)(
    '%s: spaces the next request of the origin from when the handler sent the one before',
    async (_name, httpClient, paths) => {
      // A BasicCrawler's handler sends its request itself, when it gets there: the handlers of
      // /wait* take 200 ms first, and /slow* go through an agent that opens each connection 150 ms
      // late (got only: the request is paced from when got wrote it). Spaced only as the guard
      // hands requests to the crawler, the request after either one reached the server 100 or
      // 150 ms short of the delay.
      const { sites, close } = await startTimedSites([{ robots: 'User-agent: *\nCrawl-delay: 0.3\n' }]);
      const [paced] = sites;
      const slowAgent = lateAgent(150);
      try {
        const crawler = new BasicCrawler(
          {
            minConcurrency: 5,
            maxConcurrency: 5,
            ...(httpClient === undefined ? {} : { httpClient }),
            requestHandler: async ({ request, sendRequest }) => {
              const path = new URL(request.url).pathname;
              if (path.startsWith('/wait')) await sleep(200);
              await sendRequest(path.startsWith('/slow') ? { agent: { http: slowAgent } } : {});
            },
          },
          new Configuration({ persistStorage: false }),
        );
        quietGuard().attach(crawler);
        await crawler.run(paths.map((path) => `${paced.origin}${path}`));
        const hits = await paced.hits();
        expect(hits.map((hit) => hit.path).sort()).toEqual([...paths].sort());
        const gaps = hits.slice(1).map((hit, i) => hit.at - hits[i].at);
        const shown = gaps.map((gap, i) => `${hits[i].path} ${hits[i + 1].path} +${gap}`).join(', ');
        // The margin is the HttpCrawler test's (see 'Crawl-delay after a request written late').
        expect(Math.min(...gaps), shown).toBeGreaterThanOrEqual(270);
      } finally {
        slowAgent.destroy();
        await close();
      }
    },
  );
});

describe("Crawl-delay and a crawler given the queue of an earlier crawler's run", () => {
  it('decides the next run once, as its own: its requests follow the last request, not the slots the first run held', async () => {
    const hits: number[] = [];
    const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
      '/robots.txt': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n');
      },
    };
    for (let i = 0; i < 8; i++) {
      routes[`/p${i}`] = (request, response) => {
        hits.push(Date.now());
        page('p')(request, response);
      };
    }
    const site = await startHttpServer(routes);
    const store = new RobotsStore({ userAgent: USER_AGENT, log: captureLog().log });
    try {
      const guard = storeGuard(store);
      const config = freshConfiguration();
      const queue = await RequestQueue.open('paced', { config });
      await queue.addRequests(Array.from({ length: 8 }, (_, i) => ({ url: `${site.origin}/p${i}` })));
      const first = new CheerioCrawler(
        { requestQueue: queue, maxRequestsPerCrawl: 2, requestHandler: async () => {} },
        config,
      );
      guard.attach(first);
      await first.run();
      const firstEnded = Date.now();
      expect(hits).toHaveLength(2);
      // The queue as the first crawler hands it out: wrapped by the guard for that crawler.
      const next = new CheerioCrawler(
        { requestQueue: await first.getRequestQueue(), requestHandler: async () => {} },
        config,
      );
      guard.attach(next);
      await next.run();
      expect(hits).toHaveLength(8);
      // Decided through both crawlers' wrappers, the first request of the next run waited behind
      // the six slots the first run had taken for the requests it gave back.
      expect(hits[2] - firstEnded).toBeLessThan(3000);
      const gaps = hits.slice(1).map((at, i) => at - hits[i]);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000);
    } finally {
      await store.close();
      await site.close();
    }
  });
});

describe('Crawl-delay and skipNavigation', () => {
  it('a request with skipNavigation takes its slot too: its handler may fetch from the origin itself', async () => {
    const { sites, close } = await startTimedSites([{ robots: 'User-agent: *\nCrawl-delay: 0.3\n' }]);
    const [paced] = sites;
    try {
      const guard = quietGuard();
      const handled: string[] = [];
      const crawler = new HttpCrawler(
        {
          maxConcurrency: 10,
          requestHandler: async ({ request }) => {
            handled.push(new URL(request.url).pathname);
          },
        },
        new Configuration({ persistStorage: false }),
      );
      guard.attach(crawler);
      await crawler.run([
        `${paced.origin}/p0`,
        { url: `${paced.origin}/skipped`, skipNavigation: true },
        `${paced.origin}/p1`,
      ]);
      expect(handled.sort()).toEqual(['/p0', '/p1', '/skipped']);
      // The server saw the two page loads, two delays apart: the request in between held one. The
      // margin is for a loaded machine; without the held slot the gap is one delay.
      const hits = await paced.hits();
      expect(hits.map((hit) => hit.path)).toEqual(['/p0', '/p1']);
      expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(560);
    } finally {
      await close();
    }
  });
});

describe('Crawl-delay and a robots.txt read again meanwhile', () => {
  useTemporaryStorageDir();

  it('decides a request again once its wait for a slot ends, from the robots.txt read while it waited', async () => {
    let rules = 'User-agent: *\nCrawl-delay: 2\n';
    const site = await startHttpServer({
      '/robots.txt': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=1' }).end(rules);
      },
      '/p1': page('p1'),
      '/p2': page('p2'),
    });
    const store = new RobotsStore({ userAgent: USER_AGENT, minAgeMs: 1000, log: captureLog().log });
    try {
      const guard = storeGuard(store);
      const skipped: string[] = [];
      const config = freshConfiguration();
      const crawler = new CheerioCrawler(
        {
          maxConcurrency: 2,
          // /p1 is held by a hook of the crawler's own, and goes out at 1.8 s. /p2, let through
          // when it leaves the queue at its slot (2 s), then waits in the guard's hook for a whole
          // delay after /p1, until 3.8 s.
          preNavigationHooks: [
            async ({ request }) => {
              if (request.url.endsWith('/p1')) await sleep(1800);
            },
          ],
          requestHandler: async () => {},
          onSkippedRequest: async ({ url }) => {
            skipped.push(url);
          },
        },
        config,
      );
      guard.attach(crawler);
      // At 3.3 s, the policy read at 2 s has expired: a check of another URL reads robots.txt
      // again, which now disallows /p.
      const changed = sleep(3300).then(async () => {
        rules = 'User-agent: *\nCrawl-delay: 2\nDisallow: /p\n';
        await store.check(`${site.origin}/other`, TOKEN);
      });
      await crawler.run([`${site.origin}/p1`, `${site.origin}/p2`]);
      await changed;
      expect(pagesHit(site)).toEqual(['/p1']);
      expect(await datasetItems(config)).toEqual([
        expect.objectContaining({
          url: `${site.origin}/p2`,
          stage: 'dequeue',
          reason: 'disallowed',
          rule: { kind: 'disallow', pattern: '/p', line: 3 },
        }),
      ]);
      expect(skipped).toEqual([`${site.origin}/p2`]);
      expect(guard.summary().totals).toMatchObject({ allowed: 1, dropped: 1, deferred: 0 });
    } finally {
      await store.close();
      await site.close();
    }
  });
});

/**
 * A BasicCrawler's handler fetches with `sendRequest`: the requests of a paced origin are spaced
 * as the guard hands them to the crawler, and again as the handler sends them.
 */
describe('Crawl-delay on a BasicCrawler, robots.txt read again during the crawl', () => {
  useTemporaryStorageDir();

  async function crawlPaced(
    robots: (request: IncomingMessage, response: ServerResponse) => void,
    storeOptions: { maxAgeMs: number },
    urls: number,
  ): Promise<{ pages: number[]; robots: number[] }> {
    const pages: number[] = [];
    const robotsAt: number[] = [];
    const site = await startHttpServer();
    const started = Date.now();
    site.route('/robots.txt', (request, response) => {
      robotsAt.push(Date.now() - started);
      robots(request, response);
    });
    for (let i = 0; i < urls; i++)
      site.route(`/p${i}`, (_request, response) => {
        pages.push(Date.now() - started);
        response.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
      });
    const store = new RobotsStore({
      userAgent: USER_AGENT,
      minAgeMs: storeOptions.maxAgeMs,
      maxAgeMs: storeOptions.maxAgeMs,
      log: captureLog().log,
    });
    try {
      const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false });
      const crawler = new BasicCrawler(
        {
          maxConcurrency: 4,
          requestHandler: async ({ sendRequest }) => {
            await sendRequest();
          },
        },
        freshConfiguration(),
      );
      guard.attach(crawler);
      await crawler.run(Array.from({ length: urls }, (_, i) => `${site.origin}/p${i}`));
      return { pages, robots: robotsAt };
    } finally {
      await store.close();
      await site.close();
    }
  }

  it('follows a Crawl-delay that grows, also for the requests holding slots of the old one', async () => {
    let delay = '0.25';
    setTimeout(() => {
      delay = '1';
    }, 600).unref();
    const { pages, robots } = await crawlPaced(
      (_request, response) => {
        response
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`User-agent: *\nCrawl-delay: ${delay}\n`);
      },
      { maxAgeMs: 1000 },
      6,
    );
    // From the first read of the new file on, a request a whole second after the one before.
    const changed = robots.find((at) => at >= 600)!;
    const gaps = pages.slice(1).map((at, i) => [at - pages[i], at] as const);
    const after = gaps.filter(([, at]) => at > changed + 50).map(([gap]) => gap);
    expect(after.length, `pages at ${pages.join(', ')}; robots.txt at ${robots.join(', ')}`).toBeGreaterThan(
      0,
    );
    expect(Math.min(...after), `gaps ${after.join(', ')} ms`).toBeGreaterThanOrEqual(950);
  }, 30_000);

  it('spaces the requests after one that waited for robots.txt to be read again from when it went', async () => {
    // Each read of robots.txt takes 400 ms; a copy is kept 1.2 s. A request whose slot comes while
    // the copy has expired waits for the new one and goes out late: the next must not keep its
    // own slot, which the late one ate into.
    const { pages, robots } = await crawlPaced(
      (_request, response) => {
        setTimeout(() => {
          response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 0.5\n');
        }, 400);
      },
      { maxAgeMs: 1200 },
      10,
    );
    expect(robots.length, `robots.txt at ${robots.join(', ')}`).toBeGreaterThan(1);
    const gaps = pages.slice(1).map((at, i) => at - pages[i]);
    expect(
      Math.min(...gaps),
      `pages at ${pages.join(', ')}; robots.txt at ${robots.join(', ')}`,
    ).toBeGreaterThanOrEqual(480);
  }, 30_000);
});
