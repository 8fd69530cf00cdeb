import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SitemapDroppedUrl,
  type SitemapFileRead,
  type SitemapRequest,
  SitemapSeeder,
  type SitemapSeedOptions,
  type SitemapSeedResult,
} from '../../src/sitemap/index.js';
import { RobotsStore } from '../../src/store/index.js';
import { never, redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { fixture, serveBody } from './support/sitemap-server.js';

const ROBOTS = (origin: string, extra = '') =>
  `User-agent: *\nDisallow: /private/\n\nUser-agent: OtherBot\nDisallow: /\n\nSitemap: ${origin}/index.xml\n${extra}`;

const smallUrlset = (origin: string, paths: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((path) => `<url><loc>${origin}${path}</loc></url>`)
    .join('')}</urlset>`;

/** Runs a seeder into an array sink. */
async function seedInto(
  store: RobotsStore,
  inputs: string[],
  options: Partial<SitemapSeedOptions> = {},
  seederOptions: { timeoutMs?: number } = {},
) {
  const requests: SitemapRequest[] = [];
  const dropped: SitemapDroppedUrl[] = [];
  const batches: number[] = [];
  const { log, lines } = captureLog();
  const seeder = new SitemapSeeder({ store, log, timeoutMs: seederOptions.timeoutMs ?? 1000 });
  const result = await seeder.seed(inputs, {
    enqueue: async (batch) => {
      batches.push(batch.length);
      requests.push(...batch);
    },
    onDropped: (record) => {
      dropped.push(record);
    },
    ...options,
  });
  return { result, requests, dropped, batches, lines, urls: requests.map((request) => request.url) };
}

function newStore(): RobotsStore {
  return new RobotsStore({ userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)', log: captureLog().log });
}

describe('SitemapSeeder on a site with every format', () => {
  const read: SitemapFileRead[] = [];
  let server: TestHttpServer;
  let origin: string;
  let run: Awaited<ReturnType<typeof seedInto>>;
  let result: SitemapSeedResult;

  beforeAll(async () => {
    server = await startHttpServer();
    origin = server.origin;
    const o = origin;
    server.route('/robots.txt', text(ROBOTS(o)));
    server.route('/index.xml', serveBody(fixture('index.xml', o)));
    server.route('/maps/urlset.xml', serveBody(fixture('urlset.xml', o)));
    // Gzip octets under an .xml name and a text/xml type: recognised by the magic octets 1f 8b.
    server.route('/maps/gzip-named.xml', serveBody(smallUrlset(o, ['/gz/1', '/gz/2']), { gzipFile: true }));
    // A .gz name whose octets Content-Encoding already decodes to XML.
    server.route('/maps/encoded.xml.gz', serveBody(smallUrlset(o, ['/enc/1']), { contentEncoding: true }));
    server.route('/maps/list.txt', serveBody(fixture('list.txt', o), { contentType: 'text/plain' }));
    server.route('/maps/feed.rss', serveBody(fixture('feed.rss', o), { contentType: 'application/rss+xml' }));
    server.route(
      '/maps/feed.atom',
      serveBody(fixture('feed.atom', o), { contentType: 'application/atom+xml' }),
    );
    server.route('/maps/server-error.xml', text('<html>oops</html>', 503));
    server.route('/maps/slow.xml', never());
    server.route('/maps/broken.xml', serveBody(fixture('broken.xml', o)));
    server.route('/maps/billion-laughs.xml', serveBody(fixture('billion-laughs.xml', o)));
    server.route('/maps/loop-a.xml', serveBody(fixture('loop-a.xml', o)));
    server.route('/maps/loop-b.xml', serveBody(fixture('loop-b.xml', o)));
    server.route(
      '/maps/loop-leaf.txt',
      serveBody(fixture('loop-leaf.txt', o), { contentType: 'text/plain' }),
    );
    server.route('/maps/back-to-index.xml', redirect(`${o}/index.xml`));
    run = await seedInto(
      newStore(),
      [`${o}/`],
      { batchSize: 4, onSitemapRead: (sitemap) => read.push(sitemap) },
      { timeoutMs: 600 },
    );
    result = run.result;
  });
  afterAll(() => server.close());

  it('reads the robots.txt Sitemap: line through the store, one robots.txt request', () => {
    expect(server.hits('/robots.txt')).toBe(1);
    expect(server.hits('/index.xml')).toBe(1);
  });

  it('reads urlset, gzip by magic octets, Content-Encoding gzip, text, RSS and Atom', () => {
    const o = origin;
    expect(new Set(run.urls)).toEqual(
      new Set([
        `${o}/plain/1`,
        `${o}/plain/2?a=1&b=2`,
        `${o}/plain/3?x=1&y=2`,
        `${o}/plain/4?q=a&b=c`,
        `${o}/gz/1`,
        `${o}/gz/2`,
        `${o}/enc/1`,
        `${o}/text/1`,
        `${o}/text/2`,
        `${o}/text/3`,
        `${o}/rss/1`,
        `${o}/rss/2`,
        `${o}/atom/1`,
        `${o}/atom/2`,
        `${o}/broken/1`,
        `${o}/broken/2`,
        `${o}/loop/leaf`,
      ]),
    );
    expect(run.urls.length).toBe(17);
  });

  it('skips image, video, news and hreflang extensions', () => {
    expect(run.urls.some((url) => /images|videos|thumbs|\/de\//.test(url))).toBe(false);
  });

  it('keeps lastmod (RSS pubDate, Atom updated/published) and the sitemap URL in userData', () => {
    const byUrl = new Map(run.requests.map((request) => [request.url, request.userData]));
    expect(byUrl.get(`${origin}/plain/1`)).toEqual({
      sitemapUrl: `${origin}/maps/urlset.xml`,
      lastmod: '2024-03-01T00:00:00.000Z',
    });
    expect(byUrl.get(`${origin}/plain/2?a=1&b=2`)?.lastmod).toBe('2023-01-15T10:00:00.000Z');
    expect(byUrl.get(`${origin}/rss/1`)?.lastmod).toBe('2024-03-05T10:00:00.000Z');
    expect(byUrl.get(`${origin}/atom/1`)?.lastmod).toBe('2024-03-05T10:00:00.000Z');
    expect(byUrl.get(`${origin}/atom/2`)?.lastmod).toBe('2024-02-01T00:00:00.000Z');
    expect(byUrl.get(`${origin}/text/1`)).toEqual({ sitemapUrl: `${origin}/maps/list.txt` });
  });

  it('reports robots.txt-disallowed URLs through onDropped with the rule, never enqueues them', () => {
    expect(run.dropped.map((record) => record.url).sort()).toEqual([
      `${origin}/private/secret`,
      `${origin}/private/text`,
    ]);
    const record = run.dropped.find((entry) => entry.url.endsWith('/private/secret'))!;
    expect(record.stage).toBe('sitemap');
    expect(record.sitemapUrl).toBe(`${origin}/maps/urlset.xml`);
    expect(record.lastmod).toBe('2024-04-01T00:00:00.000Z');
    expect(record.check.allowed).toBe(false);
    expect(record.check.rule).toMatchObject({ kind: 'disallow', pattern: '/private/', line: 2 });
    expect(record.check.group.token).toBe('*');
    expect(record.check.robotsTxtUrl).toBe(`${origin}/robots.txt`);
    expect(result.droppedByRobots).toBe(2);
    expect(run.urls.some((url) => url.includes('/private/'))).toBe(false);
  });

  it('reports failing children (404, 5xx, timeout, DOCTYPE, broken XML) and still loads the others', () => {
    const why = Object.fromEntries(
      result.failures.map((failure) => [failure.url.replace(origin, ''), failure.why]),
    );
    expect(why['/maps/missing.xml']).toBe('HTTP 404.');
    expect(why['/maps/server-error.xml']).toBe('HTTP 503.');
    expect(why['/maps/slow.xml']).toMatch(/No answer within 600 ms/);
    expect(why['/maps/billion-laughs.xml']).toMatch(/DOCTYPE/);
    expect(result.failures.every((failure) => failure.parent === `${origin}/index.xml`)).toBe(true);
    expect(result.sitemapsFailed).toBe(5);
    expect(result.failures).toHaveLength(5);
  });

  it('keeps what broken XML gave before the error, and counts the file as failed', () => {
    const failure = result.failures.find((entry) => entry.url.endsWith('/maps/broken.xml'));
    expect(failure?.why).toMatch(/^Broken XML: .*2 URLs read before it/);
    // Read in part, it says what it held; a file never read (a 404) does not.
    expect(failure?.format).toBe('urlset');
    expect(result.failures.find((entry) => entry.url.endsWith('/maps/missing.xml'))).not.toHaveProperty(
      'format',
    );
    expect(result.warnings.some((entry) => entry.url.endsWith('/maps/broken.xml'))).toBe(false);
    expect(run.urls.filter((url) => url.includes('/broken/'))).toHaveLength(2);
  });

  it('detects a loop between two indexes and a redirect back to an ancestor', () => {
    expect(server.hits('/maps/loop-a.xml')).toBe(1);
    expect(server.hits('/maps/loop-b.xml')).toBe(1);
    const loops = result.warnings.filter((entry) => entry.why.startsWith('Loop:')).map((entry) => entry.why);
    expect(loops).toContain(
      `Loop: ${origin}/index.xml -> ${origin}/maps/loop-a.xml -> ${origin}/maps/loop-b.xml -> ${origin}/maps/loop-a.xml.`,
    );
    expect(loops).toContain(
      `Loop: ${origin}/index.xml -> ${origin}/maps/loop-a.xml -> ${origin}/maps/loop-b.xml -> ${origin}/maps/back-to-index.xml -> ${origin}/index.xml.`,
    );
  });

  it('tells of every file read, with its format, entries and the index that listed it', () => {
    expect(read).toHaveLength(result.sitemapsRead);
    const byUrl = new Map(read.map((sitemap) => [sitemap.url.replace(origin, ''), sitemap]));
    expect(byUrl.get('/index.xml')).toEqual({
      url: `${origin}/index.xml`,
      format: 'sitemapindex',
      entries: 12,
    });
    expect(byUrl.get('/maps/list.txt')).toMatchObject({
      format: 'text',
      entries: 4,
      parent: `${origin}/index.xml`,
    });
    expect(byUrl.get('/maps/loop-b.xml')).toMatchObject({
      format: 'sitemapindex',
      parent: `${origin}/maps/loop-a.xml`,
    });
    // Neither a failed file nor the broken one.
    expect(byUrl.has('/maps/missing.xml')).toBe(false);
    expect(byUrl.has('/maps/broken.xml')).toBe(false);
  });

  it('marks the warnings about sitemaps it did not read as skipped', () => {
    const loops = result.warnings.filter((entry) => entry.why.startsWith('Loop:'));
    expect(loops.length).toBeGreaterThan(0);
    expect(loops.every((entry) => entry.skipped === true && entry.parent !== undefined)).toBe(true);
  });

  it('counts everything and enqueues in batches of batchSize', () => {
    expect(result).toMatchObject({
      sitemapsRead: 10,
      urlsFound: 19,
      kept: 17,
      droppedByRobots: 2,
      filtered: 0,
      stoppedEarly: false,
    });
    expect(Math.max(...run.batches)).toBe(4);
    expect(run.batches.reduce((a, b) => a + b, 0)).toBe(17);
  });

  it('logs a summary', () => {
    const summary = run.lines.find((line) => line.message.includes('Done in'));
    expect(summary?.message).toMatch(
      /10 sitemaps read, 5 failed.*19 URLs found, 17 kept, 2 dropped by robots.txt/,
    );
  });
});

describe('SitemapSeeder keep option', () => {
  it('drops an allowed URL it refuses as robots.txt would: counted, handed to onDropped, never enqueued', async () => {
    const server = await startHttpServer();
    const o = server.origin;
    server.route('/robots.txt', text(`User-agent: *\nDisallow: /private/\nSitemap: ${o}/sm.xml\n`));
    server.route('/sm.xml', text(smallUrlset(o, ['/a', '/b', '/private/c'])));
    const store = newStore();
    try {
      const run = await seedInto(store, [`${o}/`], { keep: (check) => !check.url.endsWith('/b') });
      expect(run.urls).toEqual([`${o}/a`]);
      expect(run.result).toMatchObject({ kept: 1, droppedByRobots: 2 });
      expect(run.dropped.map((record) => [record.url, record.check.allowed]).sort()).toEqual([
        [`${o}/b`, true],
        [`${o}/private/c`, false],
      ]);
      await expect(seedInto(store, [`${o}/`], { keep: true as never })).rejects.toThrow(
        'seed() option keep must be a function, got boolean.',
      );
    } finally {
      await store.close();
      await server.close();
    }
  });
});

describe('SitemapSeeder when a callback throws', () => {
  /** An index of six text sitemaps of 3000 URLs, the n-th answering after n * 100 ms. */
  async function openIndexSite(robots: string): Promise<TestHttpServer> {
    const server = await startHttpServer();
    const o = server.origin;
    server.route('/robots.txt', text(robots));
    const children: string[] = [];
    for (let n = 0; n < 6; n++) {
      let body = '';
      for (let i = 0; i < 3000; i++) body += `${o}/f${n}/p${i}\n`;
      server.route(`/c${n}.txt`, (_request, response) => {
        setTimeout(() => response.writeHead(200, { 'content-type': 'text/plain' }).end(body), 100 * n);
      });
      children.push(`${o}/c${n}.txt`);
    }
    server.route(
      '/index.xml',
      text(
        `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children
          .map((child) => `<sitemap><loc>${child}</loc></sitemap>`)
          .join('')}</sitemapindex>`,
      ),
    );
    return server;
  }

  it.each([
    ['enqueue', 'User-agent: *\nAllow: /\n'],
    ['onDropped', 'User-agent: *\nDisallow: /f\n'],
    ['onSitemapRead', 'User-agent: *\nAllow: /\n'],
  ] as const)(
    'stops the run when %s throws: nothing is requested or handed on after seed() rejects',
    async (callback, robots) => {
      const server = await openIndexSite(robots);
      const store = newStore();
      let calls = 0;
      let settled = false;
      let callsAfter = 0;
      const fail = () => {
        calls++;
        if (settled) callsAfter++;
        if (calls === 1) throw new Error('Request queue is gone');
      };
      try {
        const seeder = new SitemapSeeder({ store, log: captureLog().log });
        const seeding = seeder.seed([`${server.origin}/index.xml`], {
          batchSize: 100,
          progressIntervalMs: 0,
          enqueue: async () => (callback === 'enqueue' ? fail() : undefined),
          onDropped: callback === 'onDropped' ? fail : undefined,
          onSitemapRead: callback === 'onSitemapRead' ? fail : undefined,
        });
        await expect(seeding).rejects.toThrow('Request queue is gone');
        settled = true;
        // Longer than the slowest child takes to answer.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(callsAfter).toBe(0);
        // Three files are read at once: the others are requested only once one of those is done.
        expect(['/c3.txt', '/c4.txt', '/c5.txt'].map((path) => server.hits(path))).toEqual([0, 0, 0]);
      } finally {
        await store.close();
        await server.close();
      }
    },
  );
});

describe('SitemapSeeder signal', () => {
  it.each([
    ['discovery', (_site: string, silent: string) => [`${silent}/`]],
    ['the robots.txt check of a sitemap', (_site: string, silent: string) => [`${silent}/map.xml`]],
    ['the robots.txt check of a redirect target', (site: string) => [`${site}/redirect.xml`]],
    ['the robots.txt check of a page URL', (site: string) => [`${site}/cross.xml`]],
  ])('ends the run soon after an abort during %s', async (phase, inputs) => {
    const site = await startHttpServer();
    // The robots.txt of `silent` never answers: each phase waits for it.
    const silent = await startHttpServer({ '/robots.txt': never() });
    site.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
    site.route('/redirect.xml', redirect(`${silent.origin}/map.xml`, 302));
    site.route('/cross.xml', text(smallUrlset(silent.origin, ['/page'])));
    const store = new RobotsStore({
      userAgent: 'ExampleBot/1.0',
      log: captureLog().log,
      fetchTimeoutMs: 20_000,
    });
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = performance.now();
      controller.abort();
    }, 300);
    try {
      const result = await new SitemapSeeder({ store, log: captureLog().log }).seed(
        inputs(site.origin, silent.origin),
        { enqueue: async () => {}, signal: controller.signal, sameHostOnly: false, progressIntervalMs: 0 },
      );
      // The robots.txt fetch would take 20 s: the run ended at the abort, not at the fetch's end.
      expect(abortedAt).toBeGreaterThan(0);
      expect(performance.now() - abortedAt).toBeLessThan(3000);
      expect(result).toMatchObject({ stoppedEarly: true, kept: 0 });
      if (phase === 'the robots.txt check of a sitemap') {
        // Never requested: counted and named as unread, as the sitemaps still waiting are.
        expect(result.sitemapsSkipped).toBe(1);
        expect(result.warnings).toEqual([
          { url: `${silent.origin}/map.xml`, why: 'Not read: the run stopped before it.', skipped: true },
        ]);
      }
    } finally {
      // Closed first, so the store's fetch fails now instead of at its timeout.
      await silent.close();
      await site.close();
      await store.close();
    }
  });
});

describe('SitemapSeeder stopped by the signal after the last URL', () => {
  /** Seeds `input` in batches of one and aborts the run once `stopAt` URLs were handed on. */
  async function seedUntil(input: string, stopAt: number, concurrency = 3) {
    const store = newStore();
    const controller = new AbortController();
    const urls: string[] = [];
    try {
      const result = await new SitemapSeeder({ store, log: captureLog().log }).seed([input], {
        enqueue: async (batch) => {
          urls.push(...batch.map((request) => request.url));
          if (urls.length >= stopAt) controller.abort();
        },
        batchSize: 1,
        concurrency,
        signal: controller.signal,
        progressIntervalMs: 0,
      });
      return { result, urls };
    } finally {
      await store.close();
    }
  }

  let server: TestHttpServer;
  let o: string;
  beforeAll(async () => {
    server = await startHttpServer();
    o = server.origin;
    server.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
    server.route('/three.xml', text(smallUrlset(o, ['/1', '/2', '/3'])));
    server.route(
      '/index.xml',
      text(
        `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${o}/three.xml</loc></sitemap><sitemap><loc>${o}/more.xml</loc></sitemap></sitemapindex>`,
      ),
    );
    server.route('/more.xml', text(smallUrlset(o, ['/4'])));
    server.route(
      '/index4.xml',
      text(
        `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['three', 'more', 'm2', 'm3']
          .map((name) => `<sitemap><loc>${o}/${name}.xml</loc></sitemap>`)
          .join('')}</sitemapindex>`,
      ),
    );
  });
  afterAll(() => server.close());

  it('has read the file whole: no early stop, no warning', async () => {
    const { result, urls } = await seedUntil(`${o}/three.xml`, 3);
    expect(urls).toEqual([`${o}/1`, `${o}/2`, `${o}/3`]);
    expect(result).toMatchObject({ stoppedEarly: false, sitemapsRead: 1, urlsFound: 3, warnings: [] });
  });

  it('stops early when a URL of the file is left', async () => {
    const { result } = await seedUntil(`${o}/three.xml`, 2);
    expect(result).toMatchObject({ stoppedEarly: true, sitemapsRead: 0, urlsFound: 2 });
    expect(result.warnings).toEqual([
      {
        url: `${o}/three.xml`,
        why: 'Not read to the end: the run stopped (2 URLs read before).',
        format: 'urlset',
      },
    ]);
  });

  it('stops early when another sitemap of the index waits to be read', async () => {
    const { result } = await seedUntil(`${o}/index.xml`, 3, 1);
    expect(result).toMatchObject({ stoppedEarly: true, sitemapsRead: 2, urlsFound: 3, sitemapsSkipped: 1 });
    // The sitemap left unread is counted and named.
    expect(result.warnings).toEqual([
      {
        url: `${o}/more.xml`,
        parent: `${o}/index.xml`,
        why: 'Not read: the run stopped before it.',
        skipped: true,
      },
    ]);
    const four = await seedUntil(`${o}/index4.xml`, 3, 1);
    expect(four.result).toMatchObject({ sitemapsRead: 2, sitemapsSkipped: 3 });
    expect(four.result.warnings.map((warning) => [warning.url, warning.why])).toEqual([
      [`${o}/more.xml`, 'Not read: the run stopped before it and 2 more sitemaps.'],
    ]);
  });
});

describe('SitemapSeeder options', () => {
  const store = newStore();
  afterAll(() => store.close());
  const seed = (options: Partial<SitemapSeedOptions>) =>
    new SitemapSeeder({ store, log: captureLog().log }).seed([], { enqueue: async () => {}, ...options });

  it.each([
    ['concurrency', Infinity],
    ['concurrency', 1.5],
    ['concurrency', 0],
    ['batchSize', Infinity],
    ['batchSize', 0.5],
  ] as const)('refuses %s %s: a whole number of 1 or more', async (name, value) => {
    await expect(seed({ [name]: value })).rejects.toThrow(
      new RangeError(`${name} must be a whole number of 1 or more, got ${value}.`),
    );
  });

  it.each([
    ['maxDepth', 1.5, 0],
    ['maxUrls', 2.5, 1],
    ['maxSitemaps', -1, 1],
  ] as const)('refuses %s %s: a whole number (Infinity for no limit)', async (name, value, min) => {
    await expect(seed({ [name]: value })).rejects.toThrow(
      new RangeError(
        `${name} must be a whole number of ${min} or more (Infinity for no limit), got ${value}.`,
      ),
    );
  });

  it.each([
    'keepUndated',
    'sameHostOnly',
    'checkSitemapUrls',
    'tryCommonPaths',
    'enqueueWhenRobotsUnreachable',
  ])('refuses %s given as the string "false", which would read as true', async (name) => {
    await expect(seed({ [name]: 'false' })).rejects.toThrow(
      new TypeError(`seed() option ${name} must be true or false, got "false".`),
    );
  });

  it.each([
    ['label', 5, 'label must be a string, got 5.'],
    ['userData', 'x', 'userData must be an object, got "x".'],
    ['userData', [1], 'userData must be an object, got an array.'],
    [
      'userData',
      new Map([['a', 1]]),
      "userData must be a plain object, such as { from: 'sitemaps' }, got a Map.",
    ],
    ['userData', new Date(0), "userData must be a plain object, such as { from: 'sitemaps' }, got a Date."],
    ['include', 5, 'include must be a list of glob strings and RegExps, got 5.'],
    ['exclude', '/private/**', 'exclude must be a list of glob strings and RegExps, got "/private/**".'],
    ['signal', {}, 'signal must be an AbortSignal, got an object.'],
    ['modifiedSince', '2024-02-30', 'modifiedSince "2024-02-30" is no date (a field is out of range).'],
    [
      'modifiedSince',
      Infinity,
      'modifiedSince must be a Date, a time in ms or an ISO 8601 date, got Infinity.',
    ],
  ] as const)('refuses %s %j with a message that says what it takes', async (name, value, message) => {
    await expect(seed({ [name]: value })).rejects.toThrow(new TypeError(`seed() option ${message}`));
  });

  it('takes each of those options when it is of its type', async () => {
    await expect(
      seed({
        keepUndated: false,
        sameHostOnly: false,
        checkSitemapUrls: false,
        tryCommonPaths: true,
        enqueueWhenRobotsUnreachable: true,
        label: 'page',
        userData: { from: 'sitemaps' },
        include: ['**'],
        exclude: [/private/],
        signal: new AbortController().signal,
        modifiedSince: '2024-02-29',
      }),
    ).resolves.toMatchObject({ urlsFound: 0 });
  });

  it.each([
    [{ proxyUrl: 'not a url' }, 'proxyUrl must be an http:// or https:// URL'],
    [{ proxyUrl: 42 }, 'proxyUrl must be an http:// or https:// URL'],
    [{ proxyUrl: 'socks5://proxy.example:1080' }, 'proxyUrl must be an http:// or https:// URL'],
    [{ userAgent: 42 }, "userAgent must be the crawler's User-Agent"],
    [{ userAgent: 'ExampleBot/1.0\r\nX-Injected: 1' }, 'userAgent must be a value an HTTP header can hold'],
    // A token that names no group would fail every check of the run, under the store's name.
    [{ productToken: 'Example Bot' }, 'productToken must name a product token'],
    [{ productToken: '' }, 'productToken must name a product token'],
    [{ productToken: 42 }, 'productToken must name a product token'],
  ])('refuses %j when constructed, as the fetcher would refuse it in every download', (options, message) => {
    expect(() => new SitemapSeeder({ store, ...(options as object) })).toThrow(
      new RegExp(`^SitemapSeeder option ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
  });

  it.each([
    [
      { site: 'https://example.com/sitemap.xml' },
      '{ site } takes a site root such as https://example.com/, got https://example.com/sitemap.xml',
    ],
    [
      { site: 'https://example.com/?lang=de' },
      '{ site } takes a site root such as https://example.com/, got https://example.com/?lang=de',
    ],
    [
      { site: 'https://example.com/', sitemap: 'https://example.com/a.xml' },
      'A sitemap input is a URL string, a URL, { site } or { sitemap }',
    ],
    [
      { sitemaps: 'https://example.com/a.xml' },
      'A sitemap input is a URL string, a URL, { site } or { sitemap }',
    ],
  ])('refuses the input %j rather than read part of it', async (input, message) => {
    await expect(
      new SitemapSeeder({ store, log: captureLog().log }).seed([input as never], { enqueue: async () => {} }),
    ).rejects.toThrow(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('takes Infinity as no limit, and refuses a timeout Node timers cannot wait for', async () => {
    await expect(seed({ maxUrls: Infinity, maxDepth: Infinity })).resolves.toMatchObject({ urlsFound: 0 });
    expect(() => new SitemapSeeder({ store, timeoutMs: Infinity })).toThrow(
      new RangeError('timeoutMs must be at most 2147483647 ms (about 24 days), got Infinity.'),
    );
    // A string is shown quoted: `got 2` would read as if 2 were refused.
    await expect(seed({ concurrency: '2' as never })).rejects.toThrow(
      new TypeError('concurrency must be a number, got "2".'),
    );
    await expect(seed({ maxUrls: '5' as never })).rejects.toThrow(
      new TypeError('maxUrls must be a number, got "5".'),
    );
    // NaN is a number out of range, as for every other option of the package.
    await expect(seed({ concurrency: Number.NaN })).rejects.toThrow(
      new RangeError('concurrency must be a whole number of 1 or more, got NaN.'),
    );
    await expect(seed({ maxUrls: Number.NaN })).rejects.toThrow(RangeError);
  });
});

describe('SitemapSeeder on an Atom feed with xml:base', () => {
  it('reads relative entry links against the xml:base of the feed and of the entry', async () => {
    const server = await startHttpServer();
    const o = server.origin;
    server.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
    server.route(
      '/feeds/atom.xml',
      serveBody(
        `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="${o}/blog/">
  <entry><id>urn:1</id><link href="2024/post-1"/></entry>
  <entry xml:base="/news/"><id>urn:2</id><link href="post-2"/></entry>
</feed>`,
        { contentType: 'application/atom+xml' },
      ),
    );
    const store = newStore();
    try {
      const run = await seedInto(store, [`${o}/feeds/atom.xml`], { progressIntervalMs: 0 });
      expect(run.urls).toEqual([`${o}/blog/2024/post-1`, `${o}/news/post-2`]);
    } finally {
      await store.close();
      await server.close();
    }
  });
});

describe('SitemapSeeder concurrency', () => {
  it('reads many files at once without a listener-leak warning', async () => {
    const server = await startHttpServer();
    const o = server.origin;
    server.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
    const children = Array.from({ length: 16 }, (_, n) => `/child-${n}.xml`);
    for (const [n, path] of children.entries()) {
      // Held a moment, so that all of them wait at the same time.
      server.route(path, (_request, response) => {
        setTimeout(() => response.writeHead(200).end(smallUrlset(o, [`/c/${n}`])), 100);
      });
    }
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const store = newStore();
    try {
      const run = await seedInto(
        store,
        children.map((path) => `${o}${path}`),
        { concurrency: 16 },
      );
      expect(run.result.kept).toBe(16);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await store.close();
      await server.close();
    }
  });
});
