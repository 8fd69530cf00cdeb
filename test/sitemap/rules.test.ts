import type { ServerResponse } from 'node:http';
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants,
  deflateSync,
  gunzipSync,
  gzipSync,
  inflateSync,
} from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  never,
  startHttpServer,
  type TestHttpServer,
  type TestRouteHandler,
  text,
} from '../support/http-server.js';
import { seedInto } from './support/seed.js';
import { gzipBomb, serveBody } from './support/sitemap-server.js';

const urlset = (entries: { loc: string; lastmod?: string }[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries
    .map(
      ({ loc, lastmod }) => `<url><loc>${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`,
    )
    .join('')}</urlset>`;

const index = (entries: { loc: string; lastmod?: string }[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries
    .map(
      ({ loc, lastmod }) =>
        `<sitemap><loc>${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</sitemap>`,
    )
    .join('')}</sitemapindex>`;

/** A local server whose robots.txt allows everything. */
async function openSite(): Promise<TestHttpServer> {
  const server = await startHttpServer();
  server.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
  return server;
}

describe('sitemaps.org same-host rule and cross-submission', () => {
  let a: TestHttpServer;
  let b: TestHttpServer;

  beforeAll(async () => {
    a = await startHttpServer();
    b = await startHttpServer();
    // A's own sitemap lists A's URLs and, against the rule, B's.
    a.route('/robots.txt', text(`User-agent: *\nAllow: /\n\nSitemap: ${a.origin}/sitemap.xml\n`));
    a.route(
      '/sitemap.xml',
      serveBody(
        urlset([{ loc: `${a.origin}/a/1` }, { loc: `${b.origin}/b/smuggled` }, { loc: 'ftp://x/y' }]),
      ),
    );
    // B's robots.txt points to a sitemap stored on A: that sitemap may list B's URLs.
    b.route('/robots.txt', text(`User-agent: *\nDisallow: /b/private\n\nSitemap: ${a.origin}/for-b.xml\n`));
    a.route(
      '/for-b.xml',
      serveBody(
        urlset([
          { loc: `${b.origin}/b/1` },
          { loc: `${b.origin}/b/private` },
          { loc: `${a.origin}/a/from-b-map` },
        ]),
      ),
    );
    // An index on A with a child on B.
    a.route(
      '/index.xml',
      serveBody(index([{ loc: `${b.origin}/child.xml` }, { loc: `${a.origin}/sitemap.xml` }])),
    );
    b.route('/child.xml', serveBody(urlset([{ loc: `${b.origin}/b/child` }])));
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it("drops URLs on another host than the sitemap's", async () => {
    const run = await seedInto([`${a.origin}/`]);
    expect(run.urls).toEqual([`${a.origin}/a/1`]);
    expect(run.filtered).toEqual([
      { url: `${b.origin}/b/smuggled`, sitemapUrl: `${a.origin}/sitemap.xml`, reason: 'cross-host' },
      { url: 'ftp://x/y', sitemapUrl: `${a.origin}/sitemap.xml`, reason: 'invalid' },
    ]);
    expect(run.result.filteredBy).toMatchObject({ 'cross-host': 1, invalid: 1 });
  });

  it("keeps a host's URLs in a sitemap its robots.txt listed elsewhere, checked against its own robots.txt", async () => {
    const run = await seedInto([`${b.origin}/`]);
    expect(run.urls).toEqual([`${a.origin}/a/from-b-map`, `${b.origin}/b/1`].sort());
    expect(run.dropped.map((record) => [record.url, record.check.rule?.line])).toEqual([
      [`${b.origin}/b/private`, 2],
    ]);
    // The sitemap is stored on A, so A's URLs are its own.
    expect(run.filtered).toEqual([]);
    expect(run.result.urlsFound).toBe(3);
    expect(run.result.kept).toBe(2);
  });

  it('skips a child of an index on another host, and keeps everything with sameHostOnly: false', async () => {
    const strict = await seedInto([`${a.origin}/index.xml`]);
    expect(strict.urls).toEqual([`${a.origin}/a/1`]);
    expect(strict.result.warnings.map((warning) => warning.why)).toContainEqual(
      expect.stringMatching(/^On another host than its index/),
    );
    expect(b.hits('/child.xml')).toBe(0);
    const loose = await seedInto([`${a.origin}/index.xml`], { sameHostOnly: false });
    expect(loose.urls).toEqual([`${a.origin}/a/1`, `${b.origin}/b/child`, `${b.origin}/b/smuggled`].sort());
  });
});

describe('filters, discovery and limits', () => {
  let server: TestHttpServer;
  let o: string;

  beforeAll(async () => {
    server = await startHttpServer();
    o = server.origin;
    server.route('/robots.txt', text(`User-agent: *\nDisallow: /hidden\n\nSitemap: ${o}/index.xml\n`));
    server.route(
      '/index.xml',
      serveBody(
        index([
          { loc: `${o}/old.xml`, lastmod: '2020-01-01' },
          { loc: `${o}/new.xml`, lastmod: '2024-06-01T00:00:00Z' },
          { loc: `${o}/undated.xml` },
        ]),
      ),
    );
    server.route('/old.xml', serveBody(urlset([{ loc: `${o}/old/1`, lastmod: '2024-06-01' }])));
    server.route(
      '/new.xml',
      serveBody(
        urlset([
          { loc: `${o}/blog/2024/a`, lastmod: '2024-06-01' },
          { loc: `${o}/blog/2023/b`, lastmod: '2023-06-01' },
          { loc: `${o}/blog/2024/draft`, lastmod: '2024-06-02' },
          { loc: `${o}/shop/x`, lastmod: '2024-06-03' },
          { loc: `${o}/blog/2024/undated` },
        ]),
      ),
    );
    server.route('/undated.xml', serveBody(urlset([{ loc: `${o}/undated/1` }])));
  });
  afterAll(() => server.close());

  it('filters by include/exclude globs and RegExps and by lastmod, skipping older children unread', async () => {
    const before = server.hits('/old.xml');
    const run = await seedInto([`${o}/`], {
      include: [`${o}/blog/**`, /\/undated\//],
      exclude: [/draft/],
      modifiedSince: new Date('2024-01-01T00:00:00Z'),
    });
    expect(server.hits('/old.xml')).toBe(before);
    expect(run.urls).toEqual([`${o}/blog/2024/a`, `${o}/blog/2024/undated`, `${o}/undated/1`]);
    expect(run.result.filteredBy).toEqual({
      invalid: 0,
      'cross-host': 0,
      include: 1,
      exclude: 1,
      lastmod: 1,
    });
    expect(run.result.sitemapsSkipped).toBe(1);
  });

  it('matches include and exclude against the URL as the crawler requests it: dot segments resolved, tabs dropped', async () => {
    const site = await openSite();
    const s = site.origin;
    site.route(
      '/odd.xml',
      serveBody(
        urlset([
          { loc: `${s}/blog/1` },
          { loc: `${s}/blog/../admin/1` },
          { loc: `${s}/blog/%2e%2e/admin/2` },
          { loc: `${s}/./admin/3` },
          { loc: `${s}/adm&#9;in/4` },
        ]),
      ),
    );
    try {
      const excluded = await seedInto([`${s}/odd.xml`], { exclude: [`${s}/admin/**`] });
      expect(excluded.urls).toEqual([`${s}/blog/1`]);
      expect(excluded.result.filteredBy.exclude).toBe(4);
      const included = await seedInto([`${s}/odd.xml`], { include: [`${s}/blog/**`] });
      expect(included.urls).toEqual([`${s}/blog/1`]);
      expect(included.result.filteredBy.include).toBe(4);
    } finally {
      await site.close();
    }
  });

  it('drops undated URLs and children with keepUndated: false', async () => {
    const before = server.hits('/undated.xml');
    const run = await seedInto([`${o}/`], { modifiedSince: '2024-01-01', keepUndated: false });
    expect(run.urls).toEqual([`${o}/blog/2024/a`, `${o}/blog/2024/draft`, `${o}/shop/x`]);
    expect(server.hits('/undated.xml')).toBe(before);
  });

  it('puts the label and extra userData on every request', async () => {
    const run = await seedInto([`${o}/undated.xml`], { label: 'DETAIL', userData: { source: 'sitemap' } });
    expect(run.requests).toEqual([
      {
        url: `${o}/undated/1`,
        label: 'DETAIL',
        userData: { source: 'sitemap', sitemapUrl: `${o}/undated.xml` },
      },
    ]);
  });

  it('tries the common paths only when robots.txt lists no sitemap, a missing one is no failure', async () => {
    const bare = await startHttpServer({
      '/robots.txt': text('User-agent: *\nDisallow: /private/\n'),
      '/sitemap.txt': text(`http://127.0.0.1:1/elsewhere\n`),
    });
    bare.route('/sitemap_index.xml', serveBody(urlset([{ loc: `${bare.origin}/found/1` }])));
    try {
      const off = await seedInto([`${bare.origin}/`]);
      expect(off.result.sitemapsRead).toBe(0);
      expect(bare.hits('/sitemap.xml')).toBe(0);
      const on = await seedInto([`${bare.origin}/`], { tryCommonPaths: true });
      expect(on.urls).toEqual([`${bare.origin}/found/1`]);
      expect(on.result).toMatchObject({ sitemapsRead: 2, sitemapsFailed: 0, sitemapsSkipped: 1 });
      expect(on.result.filteredBy['cross-host']).toBe(1);
      expect(bare.hits('/sitemap.xml')).toBe(1);
    } finally {
      await bare.close();
    }
  });

  it('counts a guessed path that answers an HTML page (a soft 404) as not there; a given one fails as an HTML page', async () => {
    const page = (start: string) => (_request: unknown, response: ServerResponse) => {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`${start}<html><body><div id="app"></div></body></html>`);
    };
    const app = await startHttpServer({ '/robots.txt': text('User-agent: *\nAllow: /\n') });
    app.route('/sitemap.xml', page('<!DOCTYPE html>'));
    app.route('/sitemap_index.xml', page('<!doctype html>\n'));
    app.route('/sitemap.txt', page(''));
    try {
      const guessed = await seedInto([`${app.origin}/`], { tryCommonPaths: true });
      expect(guessed.result).toMatchObject({ sitemapsRead: 0, sitemapsFailed: 0, sitemapsSkipped: 3 });
      expect(guessed.result.failures).toEqual([]);
      const given = await seedInto([`${app.origin}/sitemap.xml`, `${app.origin}/sitemap.txt`]);
      expect(given.result.failures.map((failure) => failure.why)).toEqual([
        'Not a sitemap: an HTML page.',
        'Not a sitemap: an HTML page.',
      ]);
    } finally {
      await app.close();
    }
  });

  it('warns about entries of the kind their root does not hold, which it skips', async () => {
    server.route(
      '/mixed-urlset.xml',
      serveBody(
        urlset([{ loc: `${o}/m/1` }]).replace(
          '</urlset>',
          `<sitemap><loc>${o}/m/child.xml</loc></sitemap><sitemap><loc>${o}/m/child2.xml</loc></sitemap></urlset>`,
        ),
      ),
    );
    server.route(
      '/mixed-index.xml',
      serveBody(index([]).replace('</sitemapindex>', `<url><loc>${o}/m/2</loc></url></sitemapindex>`)),
    );
    const run = await seedInto([`${o}/mixed-urlset.xml`, `${o}/mixed-index.xml`]);
    expect(run.urls).toEqual([`${o}/m/1`]);
    expect(server.hits('/m/child.xml')).toBe(0);
    // The two files are read at the same time: their warnings come in either order.
    expect(run.result.warnings).toHaveLength(2);
    expect(run.result.warnings).toEqual(
      expect.arrayContaining([
        {
          url: `${o}/mixed-urlset.xml`,
          why: '2 <sitemap> entries ignored: a <urlset> lists pages only (sitemaps.org).',
        },
        {
          url: `${o}/mixed-index.xml`,
          why: '1 <url> entries ignored: a <sitemapindex> lists sitemaps only (sitemaps.org).',
        },
      ]),
    );
  });

  it('warns about entries and locations it skips: nested or wrapped entries, a second location', async () => {
    server.route(
      '/stray.xml',
      serveBody(
        urlset([{ loc: `${o}/s/1` }]).replace(
          '</urlset>',
          [
            // Two locations: the first is read, the second counted.
            `<url><loc>${o}/s/2</loc><loc>${o}/s/2-other</loc></url>`,
            // The same location twice loses nothing.
            `<url><loc>${o}/s/3</loc><loc>${o}/s/3</loc></url>`,
            // An entry inside an entry, and one inside a wrapper element.
            `<url><loc>${o}/s/4</loc><url><loc>${o}/s/nested</loc></url></url>`,
            `<group><url><loc>${o}/s/wrapped</loc></url></group>`,
            // A location outside any entry.
            `<loc>${o}/s/loose</loc>`,
            '</urlset>',
          ].join(''),
        ),
      ),
    );
    server.route(
      '/stray.rss',
      serveBody(
        `<rss version="2.0"><channel><link>${o}/</link><item><link>${o}/r/1</link><link>${o}/r/1-other</link></item></channel></rss>`,
      ),
    );
    const run = await seedInto([`${o}/stray.xml`, `${o}/stray.rss`]);
    expect(run.urls.sort()).toEqual([`${o}/r/1`, `${o}/s/1`, `${o}/s/2`, `${o}/s/3`, `${o}/s/4`]);
    expect(run.result.warnings).toHaveLength(3);
    expect(run.result.warnings).toEqual(
      expect.arrayContaining([
        {
          url: `${o}/stray.xml`,
          why: '2 <url> elements ignored: not directly inside <urlset>, where entries are read (one inside another entry, or inside a wrapper element).',
        },
        {
          url: `${o}/stray.xml`,
          why: '2 <loc> elements ignored: a second location in one <url> (its first is read), or one outside any <url>.',
        },
        {
          url: `${o}/stray.rss`,
          why: '1 <link> element ignored: a second location in one <item> (its first is read), or one outside any <item>.',
        },
      ]),
    );
  });

  it('warns about elements it skips for the case of their name: <Url>, <LOC>, <Sitemap>, <PubDate>', async () => {
    server.route(
      '/cased.xml',
      serveBody(
        urlset([{ loc: `${o}/c/1` }]).replace(
          '</urlset>',
          [
            `<Url><loc>${o}/c/2</loc></Url>`,
            `<URL><loc>${o}/c/3</loc></URL>`,
            `<url><LOC>${o}/c/4</LOC></url>`,
            // Not read in lower case either: only the entry counts, not the fields inside it.
            `<Url><Loc>${o}/c/5</Loc></Url>`,
            '</urlset>',
          ].join(''),
        ),
      ),
    );
    server.route(
      '/cased-index.xml',
      serveBody(
        index([{ loc: `${o}/c/child.xml` }])
          .replace('<sitemap>', '<Sitemap>')
          .replace('</sitemap>', '</Sitemap>'),
      ),
    );
    server.route(
      '/cased.rss',
      serveBody(
        `<rss version="2.0"><channel><item><link>${o}/r/1</link><PubDate>Mon, 03 Jun 2024 00:00:00 GMT</PubDate></item></channel></rss>`,
      ),
    );
    const run = await seedInto([`${o}/cased.xml`, `${o}/cased-index.xml`, `${o}/cased.rss`]);
    expect(run.urls).toEqual([`${o}/c/1`, `${o}/r/1`]);
    expect(server.hits('/c/child.xml')).toBe(0);
    expect(run.result.warnings).toHaveLength(4);
    expect(run.result.warnings).toEqual(
      expect.arrayContaining([
        {
          url: `${o}/cased.xml`,
          why: '3 elements ignored for their case (<Url> and other spellings): XML names are case-sensitive, and sitemaps.org writes <url>.',
        },
        {
          url: `${o}/cased.xml`,
          why: '1 <LOC> element ignored for its case: XML names are case-sensitive, and sitemaps.org writes <loc>.',
        },
        {
          url: `${o}/cased-index.xml`,
          why: '1 <Sitemap> element ignored for its case: XML names are case-sensitive, and sitemaps.org writes <sitemap>.',
        },
        {
          url: `${o}/cased.rss`,
          why: '1 <PubDate> element ignored for its case: XML names are case-sensitive, and RSS writes <pubDate>.',
        },
      ]),
    );
  });

  it('does not request a sitemap robots.txt disallows unless robots.txt lists it', async () => {
    server.route('/hidden/map.xml', serveBody(urlset([{ loc: `${o}/h/1` }])));
    const run = await seedInto([`${o}/hidden/map.xml`]);
    expect(server.hits('/hidden/map.xml')).toBe(0);
    expect(run.result.failures).toEqual([
      {
        url: `${o}/hidden/map.xml`,
        why: `${o}/robots.txt does not allow it (disallow: /hidden, line 2).`,
        refusedByRobots: true,
      },
    ]);
  });

  it('stops at maxUrls, maxSitemaps and maxUrlsPerFile', async () => {
    const urls = await seedInto([`${o}/`], { maxUrls: 2, concurrency: 1 });
    expect(urls.result.urlsFound).toBe(2);
    expect(urls.result.stoppedEarly).toBe(true);
    const maps = await seedInto([`${o}/`], { maxSitemaps: 2, concurrency: 1 });
    expect(maps.result.sitemapsRead).toBe(2);
    expect(maps.result.sitemapsSkipped).toBe(2);
    const perFile = await seedInto([`${o}/new.xml`], { maxUrlsPerFile: 2 });
    expect(perFile.result.urlsFound).toBe(2);
    // The limit named is the option's: sitemaps.org's is 50,000.
    expect(perFile.result.warnings).toEqual([
      { url: `${o}/new.xml`, why: 'More than 2 entries (maxUrlsPerFile): the rest is ignored.' },
    ]);
    server.route(
      '/many.txt',
      serveBody(Array.from({ length: 50_001 }, (_, n) => `${o}/many/${n}`).join('\n')),
    );
    const many = await seedInto([`${o}/many.txt`]);
    expect(many.result.urlsFound).toBe(50_000);
    expect(many.result.warnings).toEqual([
      { url: `${o}/many.txt`, why: "More than 50000 entries (sitemaps.org's limit): the rest is ignored." },
    ]);
  });

  it('requests no more than maxSitemaps files while several are read at once', async () => {
    const files = Array.from({ length: 10 }, (_, i) => `${o}/par/${i}.xml`);
    for (const file of files)
      server.route(new URL(file).pathname, serveBody(urlset([{ loc: `${file}/page` }])));
    const run = await seedInto(files, { maxSitemaps: 2, concurrency: 8 });
    expect(files.reduce((hits, file) => hits + server.hits(new URL(file).pathname), 0)).toBe(2);
    expect(run.result).toMatchObject({ sitemapsRead: 2, sitemapsSkipped: 8, stoppedEarly: true });
  });

  it('counts in the stop warning only the URLs maxUrls let the run find, as urlsFound does', async () => {
    const children = Array.from({ length: 8 }, (_, i) => `${o}/cap/${i}.xml`);
    server.route('/cap/index.xml', serveBody(index(children.map((loc) => ({ loc })))));
    children.forEach((loc, i) => {
      server.route(
        new URL(loc).pathname,
        serveBody(urlset([1, 2, 3].map((n) => ({ loc: `${o}/cap/${i}/${n}` })))),
      );
    });
    server.route(
      '/cap/eight.xml',
      serveBody(urlset(Array.from({ length: 8 }, (_, n) => ({ loc: `${o}/cap/eight/${n}` })))),
    );
    const one = await seedInto([`${o}/cap/eight.xml`], { maxUrls: 5 });
    expect(one.result.urlsFound).toBe(5);
    expect(one.result.warnings).toEqual([
      { url: `${o}/cap/eight.xml`, why: 'maxUrls (5) reached: the run stops.' },
      {
        url: `${o}/cap/eight.xml`,
        why: 'Not read to the end: the run stopped (5 URLs read before).',
        format: 'urlset',
      },
    ]);
    // 3 URLs of the first child, 2 of the second.
    const run = await seedInto([`${o}/cap/index.xml`], { maxUrls: 5, concurrency: 1 });
    expect(run.result.urlsFound).toBe(5);
    expect(run.result.warnings).toContainEqual({
      url: children[1],
      parent: `${o}/cap/index.xml`,
      why: 'Not read to the end: the run stopped (2 URLs read before).',
      format: 'urlset',
    });
  });

  it('stops when the signal aborts, before asking for robots.txt, and names the site it left unread', async () => {
    const controller = new AbortController();
    controller.abort();
    const asked = server.hits('/robots.txt');
    const run = await seedInto([`${o}/`], { signal: controller.signal });
    expect(run.result).toMatchObject({ stoppedEarly: true, urlsFound: 0 });
    expect(server.hits('/robots.txt')).toBe(asked);
    expect(run.result.warnings).toEqual([
      {
        url: `${o}/robots.txt`,
        why: 'Not read: the run stopped before this robots.txt answered; the sitemaps it lists are unknown.',
        skipped: true,
      },
    ]);
  });

  it('names the Sitemap: lines of robots.txt that are not absolute URLs, which it does not read', async () => {
    const site = await startHttpServer();
    try {
      site.route(
        '/robots.txt',
        text('User-agent: *\nDisallow:\n\nSitemap: /sitemap-main.xml\nSitemap: sitemap-news.xml\n'),
      );
      const run = await seedInto([`${site.origin}/`]);
      expect(site.hits('/sitemap-main.xml')).toBe(0);
      expect(run.result).toMatchObject({ sitemapsRead: 0, urlsFound: 0 });
      expect(run.result.warnings).toEqual([
        {
          url: `${site.origin}/robots.txt`,
          why: 'Its Sitemap: lines 4, 5 are not absolute http(s) URLs, which sitemaps.org asks for: no crawler can use them, and they are not read.',
        },
      ]);
    } finally {
      await site.close();
    }
  });

  it('counts no file the abort cut short as read, wherever the abort found it, and names each in a warning', async () => {
    for (const n of [0, 1]) {
      server.route(`/long-${n}.txt`, async (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 20_000; i += 500) {
          let lines = '';
          for (let k = i; k < i + 500; k++) lines += `${o}/long/${n}/${k}\n`;
          if (!response.write(lines)) await new Promise((resolve) => response.once('drain', resolve));
          if (response.destroyed) return;
        }
        response.end();
      });
    }
    server.route('/hanging.txt', never());
    const controller = new AbortController();
    let batches = 0;
    const run = await seedInto([`${o}/long-0.txt`, `${o}/long-1.txt`, `${o}/hanging.txt`], {
      signal: controller.signal,
      batchSize: 1000,
      enqueue: async () => {
        // Far less than one file holds: none can have ended.
        if (++batches === 5) controller.abort();
      },
    });
    expect(run.result).toMatchObject({ stoppedEarly: true, sitemapsRead: 0, sitemapsFailed: 0 });
    const cut = run.result.warnings.map((warning) => {
      const read = /^Not read to the end: the run stopped \((\d+) URLs? read before\)\.$/.exec(warning.why);
      return [warning.url.replace(o, ''), read === null ? warning.why : Number(read[1])] as const;
    });
    expect(cut.map(([url]) => url).sort()).toEqual(['/hanging.txt', '/long-0.txt', '/long-1.txt']);
    expect(cut.find(([url]) => url === '/hanging.txt')?.[1]).toBe(0);
    expect(cut.reduce((sum, [, read]) => sum + Number(read), 0)).toBe(run.result.urlsFound);
  });

  it('accounts for a URL still waiting for its robots.txt when the run stops: found, then unchecked', async () => {
    const controller = new AbortController();
    // Another origin, whose robots.txt is asked for while the URL waits: the run stops then.
    const other = await startHttpServer({
      '/robots.txt': () => {
        setTimeout(() => controller.abort(), 50);
      },
    });
    try {
      server.route(
        '/waits.xml',
        serveBody(urlset([{ loc: `${o}/w/1` }, { loc: `${other.origin}/x` }, { loc: `${o}/w/2` }])),
      );
      const run = await seedInto([`${o}/waits.xml`], { sameHostOnly: false, signal: controller.signal });
      const { urlsFound, kept, droppedByRobots, filtered, unchecked } = run.result;
      expect({ urlsFound, kept, droppedByRobots, filtered, unchecked }).toEqual({
        urlsFound: 2,
        kept: 1,
        droppedByRobots: 0,
        filtered: 0,
        unchecked: 1,
      });
      // A file's entries are taken in order: the one after the waiting URL was not read.
      expect(run.urls).toEqual([`${o}/w/1`]);
      expect(run.lines.find((line) => line.message.startsWith('Done in'))?.message).toMatch(
        /2 URLs found, 1 kept, 0 dropped by robots.txt, 0 filtered, 1 unchecked \(the run stopped before their robots.txt answered\);/,
      );
    } finally {
      await other.close();
    }
  });

  it('logs a progress line at the configured interval', async () => {
    server.route('/slow-body.xml', async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.write(`<urlset><url><loc>${o}/slow/1</loc></url>`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      response.end('</urlset>');
    });
    const run = await seedInto([`${o}/slow-body.xml`], { progressIntervalMs: 50 });
    const progress = run.lines.filter((line) => line.message.startsWith('Sitemaps read'));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)?.message).toMatch(
      /URLs found 1, kept 1, dropped by robots.txt 0, filtered 0, \d+ URLs\/s/,
    );
  });
});

describe('hostile sitemaps', () => {
  let server: TestHttpServer;
  let o: string;

  beforeAll(async () => {
    server = await openSite();
    o = server.origin;
    // 100 members of 10 MiB blanks: 1 GiB once inflated, about 1 MiB on the wire.
    const bomb = gzipBomb(o, 100);
    server.route('/bomb.xml', serveBody(bomb));
    server.route('/bomb-encoded.xml', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(bomb);
    });
    server.route('/corrupt.xml.gz', serveBody(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4])));
  });
  afterAll(() => server.close());

  for (const path of ['/bomb.xml', '/bomb-encoded.xml']) {
    it(`stops a gzip bomb at the decoded-size cap (${path})`, async () => {
      const rss = process.memoryUsage.rss();
      const started = performance.now();
      // A cap below the 8 Mi characters of blank text the parser holds at most, so the size
      // cap is what stops it here (the long-text refusal has its own tests).
      const run = await seedInto([`${o}${path}`], { maxBytesPerFile: 4 * 1024 * 1024 });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(run.urls).toEqual([`${o}/bomb/1`]);
      expect(run.result.warnings.map((warning) => warning.why)).toEqual([
        'Cut after 4194304 decoded octets (maxBytesPerFile); 1 URL read.',
      ]);
      expect(process.memoryUsage.rss() - rss).toBeLessThan(150 * 1024 * 1024);
    });
  }

  it('sends a request again once when its connection is closed before any answer', async () => {
    let attempts = 0;
    server.route('/reset-once.txt', (request, response) => {
      // As a server does to a kept-alive connection whose idle time ran out as it was reused.
      if (++attempts === 1) request.socket.destroy();
      else text(`${o}/after-reset\n`)(request, response);
    });
    const once = await seedInto([`${o}/reset-once.txt`]);
    expect(once.urls).toEqual([`${o}/after-reset`]);
    expect(once.result.failures).toEqual([]);
    expect(attempts).toBe(2);

    let resets = 0;
    server.route('/reset-always.txt', (request) => {
      resets++;
      request.socket.destroy();
    });
    const always = await seedInto([`${o}/reset-always.txt`]);
    expect(resets).toBe(2);
    expect(always.result.failures.map((failure) => failure.why)).toEqual([
      'connection-reset: socket hang up',
    ]);
  });

  it('fails a file its size cap cut before a first URL line or root element', async () => {
    // One line of 2 MiB, URLs with no line end between them.
    server.route('/one-line.txt', serveBody(`${o}/u `.repeat((2 * 1024 * 1024) / `${o}/u `.length)));
    const run = await seedInto([`${o}/one-line.txt`], { maxBytesPerFile: 1024 * 1024 });
    expect(run.urls).toEqual([]);
    expect(run.result.sitemapsRead).toBe(0);
    expect(run.result.failures.map((failure) => failure.why)).toEqual([
      'Not a sitemap: neither a URL line nor a sitemap element in the first 1048576 decoded octets, where maxBytesPerFile cut it.',
    ]);
    expect(run.result.warnings).toEqual([]);
  });

  it('fails a file nested deeper than the parser holds, keeping the URLs before it', async () => {
    const deep = `<urlset><url><loc>${o}/before-deep</loc></url>${'<a>'.repeat(300)}</urlset>`;
    server.route('/deep.xml', serveBody(deep));
    const run = await seedInto([`${o}/deep.xml`]);
    expect(run.urls).toEqual([`${o}/before-deep`]);
    expect(run.result.warnings).toEqual([]);
    expect(run.result.failures.map((failure) => failure.why)).toEqual([
      'Refused: elements nested more than 256 deep (no sitemap nests so deep) (1 URL read before it).',
    ]);
  });

  it('reads each Content-Encoding, and a body it cuts short is a failure whose last line is no URL', async () => {
    let list = '';
    for (let i = 0; i < 2000; i++) list += `${o}/page/${i}\n`;
    list += `${o}/private-area/secret\n`;
    const encodings = {
      gzip: gzipSync(list),
      deflate: deflateSync(list),
      br: brotliCompressSync(list),
    };
    for (const [coding, octets] of Object.entries(encodings)) {
      server.route(`/whole-${coding}.txt`, text(octets, 200, { 'content-encoding': coding }));
      const whole = await seedInto([`${o}/whole-${coding}.txt`]);
      expect(whole.urls).toHaveLength(2001);
      expect(whole.result.failures).toEqual([]);
    }
    // Cut inside the last line: `.../private-area/secret` would arrive as `.../pri`.
    const cut = encodings.gzip.subarray(0, encodings.gzip.length - 30);
    server.route('/cut.txt', text(cut, 200, { 'content-encoding': 'gzip' }));
    const run = await seedInto([`${o}/cut.txt`]);
    expect(run.urls).toEqual(wholeLines(gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH })));
    expect(run.urls).toHaveLength(2000);
    expect(run.result.sitemapsRead).toBe(0);
    expect(run.result.failures[0].why).toBe(
      'Corrupt gzip data: unexpected end of file (2000 URLs read before).',
    );
  });

  /** A list of `count` URLs, and the same list with its coded form cut to 60%. */
  const cutLists = (count: number) => {
    let list = '';
    for (let i = 0; i < count; i++) list += `${o}/cut/${i}\n`;
    const cutTo = (octets: Buffer) => octets.subarray(0, Math.floor(octets.length * 0.6));
    return {
      gzip: cutTo(gzipSync(list)),
      deflate: cutTo(deflateSync(list)),
      br: cutTo(brotliCompressSync(list)),
    };
  };
  /** The whole lines of what a decoder gets back from cut data: those a reader can keep. */
  const decodedBeforeCut = {
    gzip: (octets: Buffer) => gunzipSync(octets, { finishFlush: constants.Z_SYNC_FLUSH }),
    deflate: (octets: Buffer) => inflateSync(octets, { finishFlush: constants.Z_SYNC_FLUSH }),
    br: (octets: Buffer) => brotliDecompressSync(octets, { finishFlush: constants.BROTLI_OPERATION_FLUSH }),
  };

  for (const count of [200, 5000]) {
    it(`keeps every whole line decoded before the cut of a ${count}-URL body, in each coding`, async () => {
      for (const [coding, cut] of Object.entries(cutLists(count))) {
        const kept = wholeLines(decodedBeforeCut[coding as keyof typeof decodedBeforeCut](cut));
        expect(kept.length).toBeGreaterThan(count / 10);
        server.route(`/cut-${count}-${coding}.txt`, text(cut, 200, { 'content-encoding': coding }));
        const run = await seedInto([`${o}/cut-${count}-${coding}.txt`]);
        expect(run.urls, coding).toEqual(kept);
        expect(run.result.failures, coding).toHaveLength(1);
        expect(run.result.failures[0].why, coding).toContain(`(${kept.length} URLs read before)`);
      }
      // A .gz file cut short, served as it is.
      const { gzip } = cutLists(count);
      server.route(`/cut-${count}.txt.gz`, text(gzip));
      const run = await seedInto([`${o}/cut-${count}.txt.gz`]);
      const kept = wholeLines(decodedBeforeCut.gzip(gzip));
      expect(run.urls).toEqual(kept);
      expect(run.result.failures[0].why).toBe(
        `Corrupt gzip data: unexpected end of file (${kept.length} URLs read before).`,
      );
    });
  }

  it('keeps every whole line decoded before a connection lost in the middle of a coded body', async () => {
    const { gzip } = cutLists(3000);
    for (const [path, headers] of [
      ['/reset-coded.txt', { 'content-encoding': 'gzip' }],
      ['/reset.txt.gz', {}],
    ] as const) {
      server.route(path, (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', ...headers });
        response.write(gzip, () => setTimeout(() => response.socket?.destroy(), 50));
      });
      const run = await seedInto([`${o}${path}`]);
      const kept = wholeLines(decodedBeforeCut.gzip(gzip));
      expect(run.urls, path).toEqual(kept);
      expect(run.result.failures, path).toHaveLength(1);
      // The connection's failure is what the report gives, not the decoder's view of it.
      expect(run.result.failures[0].why, path).not.toMatch(/gzip/);
      expect(run.result.failures[0].why, path).toContain(`(${kept.length} URLs read before)`);
    }
  });

  it('reads a gzip file followed by stray octets, as browsers do, and refuses a coding it cannot undo', async () => {
    const list = `${o}/page/1\n${o}/page/2\n`;
    server.route('/stray.txt.gz', text(Buffer.concat([gzipSync(list), Buffer.from('garbage\n')])));
    const stray = await seedInto([`${o}/stray.txt.gz`]);
    expect(stray.urls).toEqual([`${o}/page/1`, `${o}/page/2`]);
    expect(stray.result.failures).toEqual([]);
    server.route('/zstd.txt', text(list, 200, { 'content-encoding': 'zstd' }));
    const zstd = await seedInto([`${o}/zstd.txt`]);
    expect(zstd.urls).toEqual([]);
    expect(zstd.result.failures[0].why).toMatch(/^Content-Encoding "zstd" cannot be decoded/);
  });

  it('reports corrupt gzip data as a failure', async () => {
    const run = await seedInto([`${o}/corrupt.xml.gz`]);
    expect(run.result.failures[0].why).toMatch(/^Corrupt gzip data/);
  });

  it('follows a redirect loop no further than its start', async () => {
    server.route('/r1.xml', (_request, response) => {
      response.writeHead(302, { location: '/r2.xml' }).end();
    });
    server.route('/r2.xml', (_request, response) => {
      response.writeHead(302, { location: '/r1.xml' }).end();
    });
    const run = await seedInto([`${o}/r1.xml`]);
    expect(run.result.warnings.map((warning) => warning.why)).toEqual([
      `Loop: ${o}/r1.xml -> ${o}/r2.xml -> ${o}/r1.xml.`,
    ]);
    expect(server.hits('/r1.xml')).toBe(1);
  });
});

describe('what a location is, and reading each sitemap once', () => {
  let server: TestHttpServer;
  let o: string;

  beforeAll(async () => {
    server = await openSite();
    o = server.origin;
  });
  afterAll(async () => {
    await server.close();
  });

  it('counts a text line or a <loc> that is no absolute http(s) URL as invalid, never as a path', async () => {
    // `http:///127.0.0.1:port/x`: a URL parser would skip the third slash and find this very host.
    const thirdSlash = o.replace('//', '///');
    server.route(
      '/dir/list.txt',
      serveBody(
        `${o}/page/1\n# generated by SitemapTool\nPowered by Foo CMS\n/relative/page\n${o}/page/2\n${thirdSlash}/page/4\n`,
        {
          contentType: 'text/plain',
        },
      ),
    );
    server.route(
      '/dir/set.xml',
      serveBody(
        urlset([
          { loc: 'page.html' },
          { loc: 'www.example.org/x' },
          { loc: '#' },
          { loc: `${o}/page/3` },
          { loc: `${thirdSlash.replace('http', 'HTTP')}/page/5` },
        ]),
      ),
    );
    const run = await seedInto([`${o}/dir/list.txt`, `${o}/dir/set.xml`]);
    expect(run.urls).toEqual([`${o}/page/1`, `${o}/page/2`, `${o}/page/3`]);
    expect(run.filtered.map((record) => [record.reason, record.url]).sort()).toEqual(
      [
        ['invalid', '# generated by SitemapTool'],
        ['invalid', 'Powered by Foo CMS'],
        ['invalid', '/relative/page'],
        ['invalid', 'page.html'],
        ['invalid', 'www.example.org/x'],
        ['invalid', '#'],
        ['invalid', `${thirdSlash}/page/4`],
        ['invalid', `${thirdSlash.replace('http', 'HTTP')}/page/5`],
      ].sort(),
    );
  });

  it('counts as invalid a location with credentials, control characters or bytes that were not UTF-8, and never requests it', async () => {
    const credentials = o.replace('http://', 'http://admin:secret@');
    server.route(
      '/dir/odd.txt',
      serveBody(
        Buffer.concat([
          Buffer.from(
            `${o}/ok/1\n${credentials}/with-password\n${o}/n\u0000ul\n${o}/esc\u001b]0;title\u0007\n${o}/bad`,
          ),
          Buffer.from([0xc3, 0x28, 0xff]),
          Buffer.from(`\n${o}/ok/2\n`),
        ]),
        { contentType: 'text/plain' },
      ),
    );
    server.route(
      '/dir/odd-index.xml',
      serveBody(index([{ loc: `${credentials}/dir/child.xml` }, { loc: `${o}/dir/child.xml` }])),
    );
    server.route('/dir/child.xml', serveBody(urlset([{ loc: `${o}/ok/3` }])));
    // A feed's relative link may bring credentials of its own.
    server.route(
      '/dir/odd-feed.xml',
      serveBody(
        `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="${credentials.slice('http:'.length)}/from-feed"/></entry></feed>`,
      ),
    );
    const run = await seedInto([`${o}/dir/odd.txt`, `${o}/dir/odd-index.xml`, `${o}/dir/odd-feed.xml`]);
    expect(run.urls.sort()).toEqual([`${o}/ok/1`, `${o}/ok/2`, `${o}/ok/3`]);
    expect(run.filtered.map((record) => record.reason)).toEqual(Array(5).fill('invalid'));
    expect(JSON.stringify(run.filtered)).not.toContain('secret');
    expect(run.result.warnings.map((warning) => warning.why)).toContainEqual(
      'Holds credentials (user:password@): not read, since a sitemap cannot make the crawler log in.',
    );
    expect(JSON.stringify(run.result)).not.toContain('secret');
    expect(server.requests.filter((request) => request.headers.authorization !== undefined)).toEqual([]);
  });

  it('skips with a warning, and never requests, a sitemap that robots.txt lists or the caller gives with credentials', async () => {
    const site = await startHttpServer();
    try {
      const credentials = site.origin.replace('http://', 'http://admin:secret@');
      site.route(
        '/robots.txt',
        text(
          `User-agent: *\nAllow: /\nSitemap: ${credentials}/listed.xml\nSitemap: ${site.origin}/plain.xml\n`,
        ),
      );
      site.route('/listed.xml', serveBody(urlset([{ loc: `${site.origin}/from-listed` }])));
      site.route('/given.xml', serveBody(urlset([{ loc: `${site.origin}/from-given` }])));
      site.route('/plain.xml', serveBody(urlset([{ loc: `${site.origin}/from-plain` }])));
      const run = await seedInto([`${site.origin}/`, `${credentials}/given.xml`]);
      expect(run.urls).toEqual([`${site.origin}/from-plain`]);
      const why =
        'Holds credentials (user:password@): not read, since a sitemap cannot make the crawler log in.';
      expect(
        run.result.warnings.filter((warning) => warning.why === why).map((warning) => warning.url),
      ).toEqual([`${site.origin}/given.xml`, `${site.origin}/listed.xml`]);
      expect(run.result.sitemapsSkipped).toBe(2);
      expect(JSON.stringify(run.result)).not.toContain('secret');
      expect(run.lines.join('\n')).not.toContain('secret');
      expect(site.requests.map((request) => request.path).sort()).toEqual(['/plain.xml', '/robots.txt']);
      expect(site.requests.filter((request) => request.headers.authorization !== undefined)).toEqual([]);
    } finally {
      await site.close();
    }
  });

  it('counts an entry without a location as invalid, and says so of an index entry, rather than lose it unsaid', async () => {
    const sitemaps = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
    server.route(
      '/dir/empty-entries.xml',
      serveBody(
        `<urlset ${sitemaps}><url></url><url><loc> </loc></url><url><lastmod>2024-01-01</lastmod></url><url><loc>${o}/kept</loc></url></urlset>`,
      ),
    );
    server.route(
      '/dir/empty-index.xml',
      serveBody(`<sitemapindex ${sitemaps}><sitemap><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>`),
    );
    server.route(
      '/dir/guid-only.rss',
      serveBody(
        '<rss version="2.0"><channel><item><guid isPermaLink="false">a-1</guid></item></channel></rss>',
      ),
    );
    const run = await seedInto([
      `${o}/dir/empty-entries.xml`,
      `${o}/dir/empty-index.xml`,
      `${o}/dir/guid-only.rss`,
    ]);
    expect(run.urls).toEqual([`${o}/kept`]);
    expect(run.result.urlsFound).toBe(5);
    expect(run.filtered.map((record) => [record.reason, record.url])).toEqual(Array(4).fill(['invalid', '']));
    expect(run.result.sitemapsSkipped).toBe(1);
    expect(run.result.warnings).toContainEqual(
      expect.objectContaining({
        url: `${o}/dir/empty-index.xml`,
        why: 'Lists an entry without a location: skipped.',
      }),
    );
  });

  it('reads the relative links of a feed against the feed', async () => {
    server.route(
      '/feeds/atom.xml',
      serveBody(
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="../posts/1"/></entry>' +
          `<entry><link href="${o.replace('http://', 'HTTP://')}/posts/2"/></entry></feed>`,
      ),
    );
    const run = await seedInto([`${o}/feeds/atom.xml`]);
    expect(run.urls).toEqual([`${o}/posts/1`, `${o}/posts/2`]);
  });

  it('reads a child sitemap once however its index spells it', async () => {
    const upper = o.replace('http://127.0.0.1', 'HTTP://127.0.0.1');
    server.route(
      '/spellings.xml',
      serveBody(
        index([
          { loc: `${o}/part.xml` },
          { loc: `${upper}/part.xml` },
          { loc: `${o}/part.xml#top` },
          { loc: `${o}/./part.xml` },
          { loc: 'part.xml' },
        ]),
      ),
    );
    server.route('/part.xml', serveBody(urlset([{ loc: `${o}/from-part` }])));
    const before = server.hits('/part.xml');
    const run = await seedInto([`${o}/spellings.xml`]);
    expect(server.hits('/part.xml') - before).toBe(1);
    expect(run.requests.map((request) => request.url)).toEqual([`${o}/from-part`]);
    expect(run.result.warnings.map((warning) => [warning.url, warning.why])).toEqual([
      ['part.xml', 'Not an absolute http(s) URL.'],
    ]);
  });

  it('never reads more than maxTotalBytes, however many files it reads at once', async () => {
    const files = [1, 2, 3].map((n) => `/total-${n}.xml`);
    for (const [n, path] of files.entries()) {
      server.route(
        path,
        serveBody(urlset(Array.from({ length: 20 }, (_, k) => ({ loc: `${o}/total/${n}/${k}` })))),
      );
    }
    const one = Buffer.byteLength(
      urlset(Array.from({ length: 20 }, (_, k) => ({ loc: `${o}/total/0/${k}` }))),
    );
    const run = await seedInto(
      files.map((path) => `${o}${path}`),
      { maxTotalBytes: one, concurrency: 3 },
    );
    // One file's worth of octets, shared by the three files read at the same time.
    expect(run.result.urlsFound).toBeLessThanOrEqual(20);
    expect(run.result.stoppedEarly).toBe(true);
    expect(run.result.warnings.map((warning) => warning.why)).toContainEqual(
      `maxTotalBytes (${one}) reached: the run stops.`,
    );
  });

  it('counts a file maxTotalBytes cut as not read to its end, and one its own cap cut as read', async () => {
    server.route(
      '/run-cut.xml',
      serveBody(urlset(Array.from({ length: 2000 }, (_, k) => ({ loc: `${o}/run-cut/${k}` })))),
    );
    const half = Math.floor(
      Buffer.byteLength(urlset(Array.from({ length: 2000 }, (_, k) => ({ loc: `${o}/run-cut/${k}` })))) / 2,
    );
    const read: string[] = [];
    const byRun = await seedInto([`${o}/run-cut.xml`], {
      maxTotalBytes: half,
      onSitemapRead: (file) => read.push(file.url),
    });
    expect(byRun.result.urlsFound).toBeGreaterThan(0);
    expect(byRun.result.sitemapsRead).toBe(0);
    expect(read).toEqual([]);
    expect(byRun.result.stoppedEarly).toBe(true);
    expect(byRun.result.warnings.map((warning) => warning.why)).toEqual([
      `maxTotalBytes (${half}) reached: the run stops.`,
      `Not read to the end: the run stopped (${byRun.result.urlsFound} URLs read before).`,
    ]);

    const byFile = await seedInto([`${o}/run-cut.xml`], {
      maxBytesPerFile: half,
      onSitemapRead: (file) => read.push(file.url),
    });
    expect(byFile.result.sitemapsRead).toBe(1);
    expect(read).toEqual([`${o}/run-cut.xml`]);
    expect(byFile.result.warnings.map((warning) => warning.why)).toEqual([
      `Cut after ${half} decoded octets (maxBytesPerFile); ${byFile.result.urlsFound} URLs read.`,
    ]);
  });

  it('reads a sitemap in the encoding its XML declaration names, or its UTF-16 byte order mark says', async () => {
    const latin1 = `<?xml version="1.0" encoding="ISO-8859-1"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/café</loc></url></urlset>`;
    server.route('/latin1.xml', serveBody(Buffer.from(latin1, 'latin1')));
    const utf16 = urlset([{ loc: `${o}/naïve` }]);
    server.route(
      '/utf16.xml',
      serveBody(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf16, 'utf16le')])),
    );
    const utf8 = `<?xml version="1.0" encoding="UTF-8"?>${urlset([{ loc: `${o}/été` }]).replace('<?xml version="1.0"?>', '')}`;
    server.route('/utf8.xml', serveBody(utf8));
    const run = await seedInto([`${o}/latin1.xml`, `${o}/utf16.xml`, `${o}/utf8.xml`]);
    expect(run.urls).toEqual([`${o}/café`, `${o}/naïve`, `${o}/été`].sort());
  });

  it('chooses the encoding from the same octets, however the server splits them', async () => {
    // The octets, whole or a hundred at a time with a pause between.
    const serve = (octets: Buffer, pieces: boolean): TestRouteHandler => {
      if (!pieces) return serveBody(octets);
      return async (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/xml' });
        for (let at = 0; at < octets.length; at += 100) {
          response.write(octets.subarray(at, at + 100));
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        response.end();
      };
    };
    const latin1 = (declaration: string) =>
      Buffer.from(
        `${declaration}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/café</loc></url></urlset>`,
        'latin1',
      );
    // The encoding named past the first 512 octets: a declaration padded with blanks, or
    // preceded by blank lines.
    const padded = latin1(`<?xml version="1.0"${' '.repeat(600)}encoding="ISO-8859-1"?>`);
    const late = latin1(`${'\n'.repeat(600)}<?xml version="1.0" encoding="ISO-8859-1"?>`);
    // Past the most octets read before choosing: read as UTF-8 both ways, the é as U+FFFD.
    const tooLate = latin1(`<?xml version="1.0"${' '.repeat(5000)}encoding="ISO-8859-1"?>`);
    for (const pieces of [false, true]) {
      server.route(`/padded-${pieces}.xml`, serve(padded, pieces));
      server.route(`/late-${pieces}.xml`, serve(late, pieces));
      server.route(`/too-late-${pieces}.xml`, serve(tooLate, pieces));
      const run = await seedInto([
        `${o}/padded-${pieces}.xml`,
        `${o}/late-${pieces}.xml`,
        `${o}/too-late-${pieces}.xml`,
      ]);
      expect(run.urls).toEqual([`${o}/café`, `${o}/café`]);
      expect(run.filtered.map((record) => [record.reason, record.url])).toEqual([
        ['invalid', `${o}/caf\uFFFD`],
      ]);
    }
  });
});

/** The URLs of the lines of `decoded` that end in a line feed, sorted as seedInto sorts them. */
function wholeLines(decoded: Buffer): string[] {
  const text = decoded.toString('utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}
