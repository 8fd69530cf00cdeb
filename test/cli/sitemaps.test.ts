import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeInTurn } from '../../src/cli/io.js';
import type { SitemapsRead } from '../../src/cli/sitemap-tally.js';
import { runSitemaps, sitemapsReport } from '../../src/cli/sitemaps.js';
import { renderSitemaps } from '../../src/cli/sitemaps-render.js';
import { createStyle } from '../../src/cli/style.js';
import { RobotsTxt } from '../../src/robots/index.js';
import {
  redirect,
  startHttpServer,
  type TestHttpServer,
  type TestRouteHandler,
  text,
} from '../support/http-server.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { cells, lineStarting, runInProcess } from './run-cli.js';

afterAll(removeTempDirs);

/**
 * The site: robots.txt declares an index and a urlset; the index lists a urlset, a gzip
 * urlset and a child that answers 404. ExampleBot may not fetch /private/ (line 5) nor
 * /drafts/ (line 6); every other crawler only /private/ (line 2).
 */
let site: TestHttpServer;
/** robots.txt answers 503: nothing can be read. */
let down: TestHttpServer;
/** robots.txt declares one sitemap, which answers 404. */
let broken: TestHttpServer;
/** robots.txt declares no sitemap. */
let bare: TestHttpServer;

const xml = (body: string | Uint8Array, headers: Record<string, string> = {}): TestRouteHandler =>
  text(body, 200, { 'content-type': 'application/xml', ...headers });

function sitemapindex(origin: string, paths: readonly string[]): string {
  const children = paths.map((path) => `<sitemap><loc>${origin + path}</loc></sitemap>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children.join('')}</sitemapindex>\n`;
}

function urlset(origin: string, paths: readonly string[]): string {
  const urls = paths.map((path) => `<url><loc>${path.startsWith('http') ? path : origin + path}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>\n`;
}

beforeAll(async () => {
  site = await startHttpServer();
  const o = site.origin;
  site.route(
    '/robots.txt',
    text(
      [
        'User-agent: *',
        'Disallow: /private/',
        '',
        'User-agent: ExampleBot',
        'Disallow: /private/',
        'Disallow: /drafts/',
        '',
        `Sitemap: ${o}/sitemap_index.xml`,
        `Sitemap: ${o}/news.xml`,
        '',
      ].join('\n'),
    ),
  );
  site.route(
    '/sitemap_index.xml',
    xml(
      `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[
        '/pages.xml',
        '/archive.xml.gz',
        '/missing.xml',
      ]
        .map((path) => `<sitemap><loc>${o}${path}</loc></sitemap>`)
        .join('')}</sitemapindex>\n`,
    ),
  );
  site.route('/pages.xml', xml(urlset(o, ['/', '/about', '/private/a', '/drafts/x'])));
  site.route(
    '/archive.xml.gz',
    text(gzipSync(urlset(o, ['/2023/a', '/2023/b', '/private/old'])), 200, {
      'content-type': 'application/gzip',
    }),
  );
  site.route('/news.xml', xml(urlset(o, ['/news/1', 'https://elsewhere.example/story'])));

  down = await startHttpServer({ '/robots.txt': text('busy', 503) });
  broken = await startHttpServer();
  broken.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${broken.origin}/gone.xml\n`));
  bare = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /admin/\n') });
});

afterAll(async () => {
  await Promise.all([site.close(), down.close(), broken.close(), bare.close()]);
});

/** The rows of the "Sitemaps" table by sitemap path. */
function sitemapRows(lines: readonly string[]): Map<string, string[]> {
  const title = lines.indexOf('Sitemaps');
  const end = lines.indexOf('', title);
  return new Map(lines.slice(title + 3, end).map((line) => [cells(line)[0], cells(line).slice(1)]));
}

describe('sitemaps: the text report', () => {
  it('lists each sitemap with its URLs, kept, blocked and filtered counts, and the totals', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--agent', 'ExampleBot']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.lines[0]).toBe(`Sitemaps of ${site.origin} for ExampleBot`);
    expect(lineStarting(run.lines, 'robots.txt')).toBe(
      `  robots.txt  ${site.origin}/robots.txt: HTTP 200, 2 sitemaps declared`,
    );
    expect(run.lines).toContain('  4 sitemaps read, 1 failed, 0 skipped');
    expect(run.lines).toContain('  9 URLs: 5 kept, 3 blocked by robots.txt, 1 filtered');

    const rows = sitemapRows(run.lines);
    // Declared sitemaps come first, in file order.
    expect([...rows.keys()].slice(0, 2)).toEqual(['/sitemap_index.xml', '/news.xml']);
    expect(rows.get('/sitemap_index.xml')).toEqual(['robots.txt', '0', '0', '0', '0', 'ok']);
    expect(rows.get('/news.xml')).toEqual(['robots.txt', '2', '1', '0', '1', 'ok']);
    expect(rows.get('/pages.xml')).toEqual(['/sitemap_index.xml', '4', '2', '2', '0', 'ok']);
    expect(rows.get('/archive.xml.gz')).toEqual(['/sitemap_index.xml', '3', '2', '1', '0', 'ok']);
    expect(rows.get('/missing.xml')).toEqual(['/sitemap_index.xml', '0', '0', '0', '0', 'FAILED']);
    expect(rows.get('total')).toEqual(['9', '5', '3', '1']);
  });

  it('says why a sitemap failed and which rules block how many URLs', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--agent', 'ExampleBot']);
    const failures = run.lines.indexOf('Failures');
    expect(failures).toBeGreaterThan(0);
    expect(run.lines[failures + 1]).toMatch(/^ {2}\/missing\.xml \(listed by \/sitemap_index\.xml\): .*404/);

    const blocked = run.lines.findIndex((line) => line.startsWith('Blocked for ExampleBot'));
    expect(blocked).toBeGreaterThan(failures);
    const rows = run.lines.slice(blocked + 3, blocked + 5).map(cells);
    expect(rows).toEqual([
      ['2', '5', 'disallow: /private/'],
      ['1', '6', 'disallow: /drafts/'],
    ]);
  });

  it('matches the * group when no --agent is given', async () => {
    const run = await runInProcess(['sitemaps', site.origin]);
    expect(run.code).toBe(0);
    expect(run.lines[0]).toBe(`Sitemaps of ${site.origin} for any crawler (*)`);
    expect(run.lines).toContain('  9 URLs: 6 kept, 2 blocked by robots.txt, 1 filtered');
    expect(sitemapRows(run.lines).get('/pages.xml')).toEqual([
      '/sitemap_index.xml',
      '4',
      '3',
      '1',
      '0',
      'ok',
    ]);
  });

  it('says so when robots.txt declares no sitemap, and exits 0', async () => {
    const run = await runInProcess(['sitemaps', bare.origin]);
    expect(run.code).toBe(0);
    expect(run.lines).toContain('  robots.txt declares no sitemap');
    expect(run.lines).not.toContain('Sitemaps');
  });

  it('says why robots.txt declares none when it is an HTML page or empty, for sitemaps and audit --from-sitemaps', async () => {
    const odd = await startHttpServer();
    try {
      odd.route(
        '/robots.txt',
        text('<!DOCTYPE html><html><head><title>Not found</title></head></html>', 200),
      );
      const html = await runInProcess(['sitemaps', odd.origin]);
      expect(html.code).toBe(0);
      expect(html.lines).toContain(
        '  robots.txt is an HTML page, not a robots.txt: no Sitemap: line is read from it',
      );
      expect((await runInProcess(['audit', odd.origin, '--from-sitemaps'])).stderr).toBe(
        `crawlee-robots: --from-sitemaps: robots.txt of ${odd.origin} is an HTML page, not a robots.txt: no Sitemap: line is read from it\n`,
      );
      odd.route('/robots.txt', text('# nothing yet\n'));
      expect((await runInProcess(['sitemaps', odd.origin])).lines).toContain(
        '  robots.txt holds no directive at all (it is empty, or only comments): it declares no sitemap',
      );
      // 600 KB of comments, then the Sitemap: line, past what crawlers read.
      odd.route('/robots.txt', text(`${'# comment\n'.repeat(60_000)}Sitemap: ${odd.origin}/s.xml\n`));
      expect((await runInProcess(['sitemaps', odd.origin])).lines).toContain(
        '  robots.txt declares no sitemap in the part crawlers read: the file is larger, and the rest is ignored',
      );
    } finally {
      await odd.close();
    }
  });

  it('names the Sitemap: lines no crawler can use when they are all it has, and exits 0 as with none', async () => {
    const relative = await startHttpServer();
    relative.route('/sitemap.xml', xml(urlset(relative.origin, ['/a'])));
    try {
      relative.route('/robots.txt', text('User-agent: *\nSitemap: /sitemap.xml\nSitemap: sitemap.xml\n'));
      const run = await runInProcess(['sitemaps', relative.origin]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.lines).toContain(
        '  robots.txt declares no sitemap a crawler can use: its Sitemap: lines 2, 3 are not absolute http(s) URLs',
      );
      expect(relative.hits('/sitemap.xml')).toBe(0);
      relative.route('/robots.txt', text('User-agent: *\nDisallow:\n\nSitemap: /sitemap.xml\n'));
      const one = await runInProcess(['sitemaps', relative.origin]);
      expect(one.lines).toContain(
        '  robots.txt declares no sitemap a crawler can use: its Sitemap: line 4 is not an absolute http(s) URL',
      );
      const json = JSON.parse((await runInProcess(['sitemaps', relative.origin, '--json'])).stdout);
      expect(json).toMatchObject({ declared: [], unusableSitemapLines: [4], exitCode: 0 });
    } finally {
      await relative.close();
    }
  });

  it('names a Sitemap: line no crawler can use beside usable ones in its head, not as a sitemap', async () => {
    const mixed = await startHttpServer();
    mixed.route('/s.xml', xml(urlset(mixed.origin, ['/a'])));
    mixed.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow:\n\nSitemap: /sitemap.xml\nSitemap: ${mixed.origin}/s.xml\n`),
    );
    try {
      const run = await runInProcess(['sitemaps', mixed.origin]);
      expect(run.code).toBe(0);
      expect(run.lines).toContain(
        '  robots.txt Sitemap: line 4 is not an absolute http(s) URL, so no crawler can use it: not read',
      );
      expect(run.stdout).not.toMatch(/^\s+\/robots\.txt/m);
      expect(run.stdout).not.toContain('Warnings');
      const json = JSON.parse((await runInProcess(['sitemaps', mixed.origin, '--json'])).stdout);
      expect(json).toMatchObject({ declared: [`${mixed.origin}/s.xml`], unusableSitemapLines: [4] });
      expect(JSON.stringify(json.sitemaps)).not.toContain('/robots.txt');
    } finally {
      await mixed.close();
    }
  });
});

describe('sitemaps --json', () => {
  it('gives each sitemap, the totals and the blocking rules', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--agent', 'ExampleBot', '--json']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({
      site: `${site.origin}/`,
      origin: site.origin,
      agent: 'ExampleBot',
      robotsTxt: { url: `${site.origin}/robots.txt`, status: 200, policy: 'rules' },
      declared: [`${site.origin}/sitemap_index.xml`, `${site.origin}/news.xml`],
      totals: {
        sitemapsRead: 4,
        sitemapsFailed: 1,
        sitemapsSkipped: 0,
        urls: 9,
        kept: 5,
        blocked: 3,
        filtered: 1,
        stoppedEarly: false,
      },
      blockedBy: [
        { rule: 'disallow: /private/', line: 5, count: 2, robotsTxtUrl: `${site.origin}/robots.txt` },
        { rule: 'disallow: /drafts/', line: 6, count: 1, robotsTxtUrl: `${site.origin}/robots.txt` },
      ],
      unreadable: null,
      exitCode: 0,
    });
    expect(json.totals.filteredBy['cross-host']).toBe(1);
    const missing = json.sitemaps.find((s: { url: string }) => s.url.endsWith('/missing.xml'));
    expect(missing).toMatchObject({
      declared: false,
      parent: `${site.origin}/sitemap_index.xml`,
      format: null,
      urls: 0,
      kept: 0,
      blocked: 0,
    });
    expect(missing.failure).toMatch(/404/);
    const archive = json.sitemaps.find((s: { url: string }) => s.url.endsWith('/archive.xml.gz'));
    expect(archive).toMatchObject({
      declared: false,
      parent: `${site.origin}/sitemap_index.xml`,
      format: 'urlset',
      urls: 3,
      kept: 2,
      blocked: 1,
      filtered: 0,
      failure: null,
    });
    expect(json.sitemaps).toHaveLength(5);
    const index = json.sitemaps.find((s: { url: string }) => s.url.endsWith('/sitemap_index.xml'));
    expect(index).toMatchObject({ declared: true, parent: null, format: 'sitemapindex', urls: 0 });
  });

  it('has a row for every sitemap read, and says a loop on the index that lists it', async () => {
    // robots.txt declares a.xml, an index that lists itself and b.xml; b.xml lists c.xml and a.xml.
    const loop = await startHttpServer();
    const o = loop.origin;
    const index = (...children: string[]) =>
      text(
        `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children.map((c) => `<sitemap><loc>${o}/${c}</loc></sitemap>`).join('')}</sitemapindex>`,
      );
    loop.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/a.xml\n`));
    loop.route('/a.xml', index('a.xml', 'b.xml'));
    loop.route('/b.xml', index('c.xml', 'a.xml'));
    loop.route('/c.xml', index());
    try {
      const run = await runInProcess(['sitemaps', o]);
      expect(run.lines).toContain('  3 sitemaps read, 0 failed, 2 skipped');
      const rows = sitemapRows(run.lines);
      expect(rows.get('/a.xml')).toEqual(['robots.txt', '0', '0', '0', '0', 'warning']);
      expect(rows.get('/b.xml')).toEqual(['/a.xml', '0', '0', '0', '0', 'warning']);
      expect(rows.get('/c.xml')).toEqual(['/b.xml', '0', '0', '0', '0', 'ok']);
      const warnings = run.lines.slice(run.lines.indexOf('Warnings') + 1, run.lines.indexOf('Warnings') + 3);
      expect(warnings.sort()).toEqual([
        `  /a.xml: Lists ${o}/a.xml: Loop: ${o}/a.xml -> ${o}/a.xml.`,
        `  /b.xml (listed by /a.xml): Lists ${o}/a.xml: Loop: ${o}/a.xml -> ${o}/b.xml -> ${o}/a.xml.`,
      ]);
    } finally {
      await loop.close();
    }
  });
});

describe('sitemaps: URLs whose robots.txt is unreachable', () => {
  it('are blocked by a row that says so, not by a rule', async () => {
    const plain = await startHttpServer();
    const o = plain.origin;
    // The https origin of the same host and port: no TLS there, so its robots.txt is unreachable.
    const tls = o.replace(/^http:/, 'https:');
    plain.route('/robots.txt', text(`User-agent: *\nAllow: /\n\nSitemap: ${o}/s.xml\n`));
    plain.route(
      '/s.xml',
      xml(
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/a</loc></url><url><loc>${tls}/b</loc></url></urlset>`,
      ),
    );
    try {
      const run = await runInProcess(['sitemaps', o, '--json']);
      expect(JSON.parse(run.stdout).blockedBy).toEqual([
        {
          rule: expect.stringMatching(
            /^disallow-all: robots\.txt unreachable \((tls-error|network-error|connection-reset)\)$/,
          ),
          line: null,
          count: 1,
          robotsTxtUrl: `${tls}/robots.txt`,
        },
      ]);
      const table = await runInProcess(['sitemaps', o]);
      expect(lineStarting(table.lines, `1     ${tls}/robots.txt`)).toMatch(
        /-\s+disallow-all: robots\.txt unreachable \(/,
      );
    } finally {
      await plain.close();
    }
  });
});

describe('sitemaps --urls', () => {
  it('prints the kept URLs only, one a line', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--agent', 'ExampleBot', '--urls']);
    expect(run.code).toBe(0);
    // A child sitemap answers 404: the list goes on, and stderr says it lacks that file's URLs.
    expect(run.stderr).toBe(
      `crawlee-robots: 1 of 5 sitemaps could not be read (${site.origin}/missing.xml: HTTP 404.), so the list may be incomplete; --strict makes that exit code 2\n`,
    );
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.trimEnd().split('\n').sort()).toEqual(
      ['/', '/2023/a', '/2023/b', '/about', '/news/1'].map((path) => `${site.origin}${path}`).sort(),
    );
  });

  it('prints each URL as a crawler requests it: blanks encoded, a line feed inside one URL dropped', async () => {
    const odd = await startHttpServer();
    const o = odd.origin;
    odd.route('/robots.txt', text(`User-agent: *\nDisallow: /private\n\nSitemap: ${o}/odd.xml\n`));
    odd.route('/odd.xml', xml(urlset(o, ['/a b', '/line&#10;two', '/caf\u00e9', '/pri&#9;vate/x'])));
    try {
      const run = await runInProcess(['sitemaps', o, '--urls']);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${o}/a%20b\n${o}/linetwo\n${o}/caf%C3%A9\n`);
    } finally {
      await odd.close();
    }
  });

  it('--strict: exits 2 when any sitemap could not be read, after printing what was read', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--urls', '--strict']);
    expect(run.code).toBe(2);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(6);
    expect(run.stderr).toBe(
      `crawlee-robots: 1 of 5 sitemaps could not be read (${site.origin}/missing.xml: HTTP 404.), so the list is incomplete\n`,
    );
    const table = await runInProcess(['sitemaps', site.origin, '--strict']);
    expect(table.code).toBe(2);
    expect(table.stderr).toContain('so the list is incomplete');
    const json = await runInProcess(['sitemaps', site.origin, '--strict', '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({
      exitCode: 2,
      unreadable: expect.stringContaining('1 of 5'),
    });
  });

  it('takes --agent "*", its default, as the default', async () => {
    const star = await runInProcess(['sitemaps', site.origin, '--urls', '--agent', '*']);
    const unset = await runInProcess(['sitemaps', site.origin, '--urls']);
    expect(star.code).toBe(0);
    expect(star.stdout.split('\n').sort()).toEqual(unset.stdout.split('\n').sort());
  });

  it('--strict: exits 0 when every sitemap was read', async () => {
    const whole = await startHttpServer();
    const o = whole.origin;
    whole.route('/robots.txt', text(`User-agent: *\nDisallow: /private\n\nSitemap: ${o}/a.xml\n`));
    whole.route('/a.xml', xml(urlset(o, ['/x', '/private/y'])));
    try {
      const run = await runInProcess(['sitemaps', o, '--urls', '--strict']);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(`${o}/x\n`);
    } finally {
      await whole.close();
    }
  });

  it('--urls says when a limit of the run left sitemaps unread, and --strict exits 2', async () => {
    // An index chain one level deeper than maxDepth (5): the last file is never read.
    const deep = await startHttpServer();
    const o = deep.origin;
    deep.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/i0.xml\n`));
    for (let depth = 0; depth < 6; depth++)
      deep.route(`/i${depth}.xml`, xml(sitemapindex(o, [`/i${depth + 1}.xml`])));
    deep.route('/i6.xml', xml(urlset(o, ['/deep'])));
    try {
      const note = `crawlee-robots: 1 sitemap was left unread at a limit of the run (${o}/i6.xml: Deeper than maxDepth (5): skipped, and so are other children this deep.), so the list may be incomplete; --strict makes that exit code 2\n`;
      const run = await runInProcess(['sitemaps', o, '--urls']);
      expect(run).toMatchObject({ code: 0, stdout: '', stderr: note });
      const strict = await runInProcess(['sitemaps', o, '--urls', '--strict']);
      expect(strict).toMatchObject({
        code: 2,
        stdout: '',
        stderr: note.replace(
          ', so the list may be incomplete; --strict makes that exit code 2',
          ', so the list is incomplete',
        ),
      });
      const json = await runInProcess(['sitemaps', o, '--json', '--strict']);
      expect(JSON.parse(json.stdout)).toMatchObject({ totals: { sitemapsUnread: 1 }, exitCode: 2 });
    } finally {
      await deep.close();
    }
  });

  it('stops at --max-urls', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--urls', '--max-urls', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    const text = await runInProcess(['sitemaps', site.origin, '--max-urls', '2']);
    expect(text.lines.some((line) => line.includes('stopped early'))).toBe(true);
  });
});

describe('sitemaps: a run stopped early', () => {
  /** The report of a run that stopped after `urlsFound` URLs. */
  function stopped(urlsFound: number, maxUrls: number | undefined): string {
    const origin = 'https://example.com';
    const read: SitemapsRead = {
      policy: {
        origin,
        robotsTxtUrl: `${origin}/robots.txt`,
        finalUrl: `${origin}/robots.txt`,
        kind: 'rules',
        status: 200,
        why: 'HTTP 200',
        robots: RobotsTxt.parse(`Sitemap: ${origin}/index.xml\n`),
        fetchedAt: 0,
        expiresAt: 0,
        hops: [],
        failures: 0,
        servedFromStaleCopy: false,
        bodyBytes: 0,
        truncated: false,
        timings: { totalMs: 0, parseMs: 0 },
      },
      declared: [`${origin}/index.xml`],
      sitemaps: [],
      blockedBy: [],
      result: {
        sitemapsRead: 10_000,
        sitemapsFailed: 0,
        sitemapsSkipped: 1,
        sitemapsUnread: 1,
        urlsFound,
        kept: urlsFound,
        droppedByRobots: 0,
        filtered: 0,
        filteredBy: { invalid: 0, 'cross-host': 0, include: 0, exclude: 0, lastmod: 0 },
        unchecked: 0,
        failures: [],
        warnings: [],
        stoppedEarly: true,
        durationMs: 0,
      },
      stoppedAtMaxTime: false,
    };
    return renderSitemaps(
      sitemapsReport(read, { site: `${origin}/`, agent: '*', maxUrls }),
      createStyle(false),
    );
  }

  it('names the limit that stopped it: --max-urls, or the limits of every run when no option did', () => {
    expect(stopped(2, 2)).toContain(
      '  stopped early at --max-urls 2: not every sitemap was read to its end\n',
    );
    // 10,000 sitemaps read (maxSitemaps): --max-urls was not given, or not reached.
    for (const maxUrls of [undefined, 50_000]) {
      expect(stopped(9_999, maxUrls)).toContain(
        "  stopped early at a run's limit of 10000 sitemaps or 10 GiB: not every sitemap was read to its end\n",
      );
    }
  });
});

describe('sitemaps: exit codes', () => {
  it('exits 2 when robots.txt cannot be read', async () => {
    const run = await runInProcess(['sitemaps', down.origin]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^crawlee-robots: robots\.txt could not be read \(HTTP 503\), so neither can its Sitemap: lines\n$/,
    );
    expect(run.lines[0]).toBe(`Sitemaps of ${down.origin} for any crawler (*)`);
    expect(lineStarting(run.lines, 'robots.txt')).toContain('HTTP 503, 0 sitemaps declared');
  });

  it('reports no sitemap row and no failed sitemap for an unreachable robots.txt: it is no sitemap', async () => {
    const run = await runInProcess(['sitemaps', down.origin]);
    expect(run.code).toBe(2);
    expect(run.lines).not.toContain('Sitemaps');
    expect(run.lines).not.toContain('Failures');
    expect(run.stdout).not.toMatch(/^ {2}\/robots\.txt/m);
    const json = await runInProcess(['sitemaps', down.origin, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      sitemaps: [],
      totals: { sitemapsRead: 0, sitemapsFailed: 0 },
      unreadable: 'robots.txt could not be read (HTTP 503), so neither can its Sitemap: lines',
      exitCode: 2,
    });
  });

  it('exits 2 when no declared sitemap can be read', async () => {
    const json = await runInProcess(['sitemaps', broken.origin, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      unreadable: `the declared sitemap could not be read (${broken.origin}/gone.xml: HTTP 404.)`,
      totals: { sitemapsRead: 0, sitemapsFailed: 1 },
      exitCode: 2,
    });
    const urls = await runInProcess(['sitemaps', broken.origin, '--urls']);
    expect(urls.code).toBe(2);
    expect(urls.stdout).toBe('');
    // The URL and why, as a CI log needs them.
    expect(urls.stderr).toBe(
      `crawlee-robots: the declared sitemap could not be read (${broken.origin}/gone.xml: HTTP 404.)\n`,
    );
  });

  it('exits 2 when the declared sitemap fails after some URLs, saying the list is incomplete', async () => {
    const stall = await startHttpServer();
    const o = stall.origin;
    stall.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/stall.xml\n`));
    stall.route('/stall.xml', (_request, response) => {
      // Two URLs, then nothing more, ever.
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.write(`<urlset><url><loc>${o}/one</loc></url><url><loc>${o}/two</loc></url>`);
    });
    try {
      const urls = await runInProcess(['sitemaps', o, '--urls', '--timeout', '1000']);
      expect(urls.code).toBe(2);
      expect(urls.stdout).toBe(`${o}/one\n${o}/two\n`);
      expect(urls.stderr).toBe(
        `crawlee-robots: the declared sitemap failed after 2 URLs were read (${o}/stall.xml: Timed out after 1000 ms, 104 octets read (2 URLs read before).), so the list is incomplete\n`,
      );
    } finally {
      await stall.close();
    }
  });

  it("names another host's robots.txt for the rules that block URLs a sitemap lists on that host", async () => {
    // The site's robots.txt lists a sitemap of another origin: its URLs are judged by that
    // origin's robots.txt, whose line 2 is not the site's line 2.
    const [own, other] = [await startHttpServer(), await startHttpServer()];
    const [a, b] = [own.origin, other.origin];
    own.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow: /private\n\nSitemap: ${a}/s.xml\nSitemap: ${b}/b.xml\n`),
    );
    own.route('/s.xml', text(`${a}/private/x\n${a}/ok\n`));
    other.route('/robots.txt', text('User-agent: *\nDisallow: /secret\n'));
    other.route('/b.xml', text(`${b}/secret/y\n${b}/page\n`));
    try {
      const run = await runInProcess(['sitemaps', a]);
      expect(run.code).toBe(0);
      const table = run.lines.slice(run.lines.findIndex((line) => line.startsWith('Blocked for')));
      expect(table.slice(1, 5).map((line) => line.trim().split(/ {2,}/))).toEqual([
        ['URLs', 'robots.txt', 'line', 'rule'],
        [expect.stringMatching(/^-+$/), expect.stringMatching(/^-+$/), '----', expect.stringMatching(/^-+$/)],
        ['1', 'this site', '2', 'disallow: /private'],
        ['1', `${b}/robots.txt`, '2', 'disallow: /secret'],
      ]);
      const json = JSON.parse((await runInProcess(['sitemaps', a, '--json'])).stdout);
      expect(json.blockedBy).toEqual([
        { rule: 'disallow: /private', line: 2, count: 1, robotsTxtUrl: `${a}/robots.txt` },
        { rule: 'disallow: /secret', line: 2, count: 1, robotsTxtUrl: `${b}/robots.txt` },
      ]);
    } finally {
      await Promise.all([own.close(), other.close()]);
    }
  });

  it('--urls reads no further while stdout holds lines back, so a slow reader keeps memory bounded', async () => {
    const big = await startHttpServer();
    const o = big.origin;
    big.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/s.txt\n`));
    big.route('/s.txt', text(Array.from({ length: 5000 }, (_, i) => `${o}/p/${i}`).join('\n')));
    const written: string[] = [];
    let letGo: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const options = { site: o, agent: '*', timeoutMs: 5000, json: false, urlsOnly: true };
    try {
      const run = runSitemaps(
        options,
        createStyle(false),
        (text) => {
          written.push(text);
          // The first 1,000 lines are held back, as by a full pipe.
          return written.length === 1 ? held : undefined;
        },
        () => {},
      );
      await sleep(300);
      expect(written).toHaveLength(1);
      letGo();
      expect(await run).toBe(0);
      const lines = written.join('').split('\n').filter(Boolean);
      expect(lines).toHaveLength(5000);
      expect(new Set(lines).size).toBe(5000);
    } finally {
      await big.close();
    }
  });

  it('waits for a stream that holds a write back until it drains', async () => {
    const callbacks: (() => void)[] = [];
    const slow = new Writable({
      highWaterMark: 4,
      write(_chunk, _encoding, done) {
        callbacks.push(done);
      },
    });
    expect(writeInTurn(slow, 'ab')).toBeUndefined();
    const waiting = writeInTurn(slow, 'cdef');
    expect(waiting).toBeInstanceOf(Promise);
    let drained = false;
    void waiting?.then(() => {
      drained = true;
    });
    await sleep(20);
    expect(drained).toBe(false);
    while (callbacks.length > 0) callbacks.shift()!();
    await waiting;
    expect(drained).toBe(true);
  });

  it('exits 2 when the declared sitemap ends in the middle of its XML, saying the list is incomplete', async () => {
    // A generator that died after writing part of the file: the response itself ends normally.
    const cut = await startHttpServer();
    const o = cut.origin;
    cut.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/cut.xml\n`));
    cut.route(
      '/cut.xml',
      text(`<urlset><url><loc>${o}/one</loc></url><url><loc>${o}/two</loc></url><url><lo`),
    );
    try {
      const urls = await runInProcess(['sitemaps', o, '--urls']);
      expect(urls.code).toBe(2);
      expect(urls.stdout).toBe(`${o}/one\n${o}/two\n`);
      expect(urls.stderr).toBe(
        `crawlee-robots: the declared sitemap failed after 2 URLs were read (${o}/cut.xml: Broken XML: unclosed tag: url (2 URLs read before it).), so the list is incomplete\n`,
      );
      const audit = await runInProcess(['audit', o, '--from-sitemaps', '--agents', 'ExampleBot', '--json']);
      expect(audit.code).toBe(2);
      expect(JSON.parse(audit.stdout)).toMatchObject({
        fromSitemaps: {
          read: 0,
          failed: 1,
          failures: [
            { url: `${o}/cut.xml`, why: expect.stringMatching(/^Broken XML: .*2 URLs read before it/) },
          ],
          incomplete: expect.stringMatching(/sample of 2 URLs is incomplete/),
        },
        exitCode: 2,
      });
    } finally {
      await cut.close();
    }
  });

  it('exits 2 when the declared sitemaps redirect in a loop: skipped, none was read', async () => {
    const loop = await startHttpServer();
    const o = loop.origin;
    loop.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/a.xml\n`));
    loop.route('/a.xml', text('', 301, { location: `${o}/b.xml` }));
    loop.route('/b.xml', text('', 301, { location: `${o}/a.xml` }));
    try {
      const urls = await runInProcess(['sitemaps', o, '--urls']);
      expect(urls.code).toBe(2);
      expect(urls.stderr).toMatch(
        /^crawlee-robots: the declared sitemap could not be read \(http:\/\/127\.0\.0\.1:\d+\/a\.xml: .*\)\n$/,
      );
      const json = await runInProcess(['sitemaps', o, '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({
        totals: { sitemapsRead: 0, sitemapsFailed: 0, sitemapsSkipped: 1 },
        exitCode: 2,
      });
    } finally {
      await loop.close();
    }
  });

  it.each([
    [['sitemaps', 'example.com'], /site "example\.com" has no scheme/],
    [['sitemaps', 'https://example.com', '--max-urls', '0'], /--max-urls takes a positive integer/],
    [['sitemaps', 'https://example.com', '--json', '--urls'], /--json and --urls/],
    [['sitemaps', 'https://example.com', '--agent', 'Bad Bot!'], /--agent/],
    [['sitemaps'], /missing required argument 'site'/],
  ])('exits 2 on a usage error: %j', async (argv, message) => {
    const run = await runInProcess(argv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('sitemaps: the crawler named', () => {
  it('a whole User-Agent header is shown with the product token it yields', async () => {
    // A product token is [A-Za-z_-] (RFC 9309 2.2.1): "ÉxampleBot" is none, and with no other
    // product the header's first word names the crawler, which the head line shows.
    const run = await runInProcess([
      'sitemaps',
      site.origin,
      '--agent',
      'Mozilla/5.0 (compatible; \u00c9xampleBot/1.0)',
    ]);
    expect(run.code).toBe(0);
    expect(run.lines[0]).toBe(
      `Sitemaps of ${site.origin} for Mozilla/5.0 (compatible; \u00c9xampleBot/1.0) (product token "mozilla")`,
    );
    // ExampleBot's own group does not apply: only /private/ (line 2) blocks.
    expect(run.stdout).not.toContain('/drafts/');
  });
});

describe('audit --from-sitemaps', () => {
  it('fetches the sitemaps with the --user-agent given, as robots.txt', async () => {
    const before = site.requests.length;
    const run = await runInProcess([
      'audit',
      site.origin,
      '--from-sitemaps',
      '--agents',
      'ExampleBot',
      '--user-agent',
      'AuditBot/2.0 (+https://example.com/bot)',
    ]);
    // /missing.xml answers 404: the sample is incomplete.
    expect(run.code).toBe(2);
    const sent = site.requests.slice(before);
    expect(sent.map((request) => request.path)).toContain('/pages.xml');
    expect(new Set(sent.map((request) => request.headers['user-agent']))).toEqual(
      new Set(['AuditBot/2.0 (+https://example.com/bot)']),
    );
  });

  /** The matrix rows by crawler: the cells after the crawler's name. */
  function matrix(lines: readonly string[]): Map<string, string[]> {
    const title = lines.findIndex((line) => line.startsWith('Verdicts ('));
    const end = lines.indexOf('', title);
    return new Map(lines.slice(title + 3, end).map((line) => [cells(line)[0], cells(line).slice(1)]));
  }

  it('checks the URLs of the sitemaps, those robots.txt blocks included', async () => {
    const run = await runInProcess([
      'audit',
      site.origin,
      '--from-sitemaps',
      '--agents',
      'ExampleBot,Googlebot',
      '--json',
    ]);
    expect(run.code).toBe(2);
    const json = JSON.parse(run.stdout);
    expect(json.fromSitemaps.failures).toEqual([
      { url: `${site.origin}/missing.xml`, why: expect.stringContaining('404'), refused: false },
    ]);
    const byPath = new Map<string, string[]>(
      json.urls.map((row: { path: string; verdicts: { allowed: boolean; line: number | null }[] }) => [
        row.path,
        row.verdicts.map((v) => `${v.allowed ? 'allow' : 'BLOCK'} ${v.line ?? '-'}`),
      ]),
    );
    // Every URL on the origin; the one on another host is not audited.
    expect([...byPath.keys()].sort()).toEqual(
      ['/', '/2023/a', '/2023/b', '/about', '/drafts/x', '/news/1', '/private/a', '/private/old'].sort(),
    );
    expect(byPath.get('/private/a')).toEqual(['BLOCK 5', 'BLOCK 2']);
    expect(byPath.get('/drafts/x')).toEqual(['BLOCK 6', 'allow -']);
    expect(byPath.get('/about')).toEqual(['allow -', 'allow -']);
  });

  it('caps the URLs at --max-urls and renders them as matrix rows', async () => {
    const run = await runInProcess([
      'audit',
      site.origin,
      '--from-sitemaps',
      '--max-urls',
      '3',
      '--agents',
      'ExampleBot',
    ]);
    expect(run.code).toBe(0);
    expect(run.lines[1]).toBe('  3 URLs x 1 crawler');
    const urlsAt = run.lines.indexOf('URLs');
    expect(run.lines.slice(urlsAt + 1, urlsAt + 5).map((line) => line.slice(0, 5))).toEqual([
      '  1  ',
      '  2  ',
      '  3  ',
      '',
    ]);
    expect(matrix(run.lines).get('ExampleBot')).toHaveLength(3);
  });

  it('reads the Sitemap: lines of a local --file', async () => {
    const run = await runInProcess(
      ['audit', site.origin, '--from-sitemaps', '--file', '-', '--agents', 'ExampleBot', '--json'],
      {
        stdin: `User-agent: *\nDisallow: /about\n\nSitemap: ${site.origin}/pages.xml\n`,
      },
    );
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    const verdicts = new Map(
      json.urls.map((row: { path: string; verdicts: { allowed: boolean }[] }) => [
        row.path,
        row.verdicts[0].allowed,
      ]),
    );
    expect(Object.fromEntries(verdicts)).toEqual({
      '/': true,
      '/about': false,
      '/private/a': true,
      '/drafts/x': true,
    });
  });

  it("reads a sitemap stored on another origin only if that origin's robots.txt allows it", async () => {
    const audited = await startHttpServer();
    const storage = await startHttpServer();
    audited.route(
      '/robots.txt',
      text(
        `User-agent: *\nDisallow:\n\nSitemap: ${storage.origin}/closed.xml\nSitemap: ${storage.origin}/open.xml\n`,
      ),
    );
    storage.route('/robots.txt', text('User-agent: *\nDisallow: /closed.xml\n'));
    storage.route('/closed.xml', xml(urlset(audited.origin, ['/closed'])));
    storage.route('/open.xml', xml(urlset(audited.origin, ['/open'])));
    try {
      const run = await runInProcess([
        'audit',
        audited.origin,
        '--from-sitemaps',
        '--agents',
        'ExampleBot',
        '--json',
      ]);
      expect(run.code).toBe(0);
      const json = JSON.parse(run.stdout);
      expect(json.urls.map((row: { path: string }) => row.path)).toEqual(['/open']);
      // Refused by robots.txt, as a crawler would be: shown, but the sample misses nothing by it.
      expect(json.fromSitemaps).toMatchObject({
        failures: [{ url: `${storage.origin}/closed.xml`, refused: true }],
        incomplete: null,
      });
      expect(storage.hits('/robots.txt')).toBe(1);
      expect(storage.hits('/closed.xml')).toBe(0);
    } finally {
      await Promise.all([audited.close(), storage.close()]);
    }
  });

  it('exits 2 when robots.txt declares no sitemap, or with --urls or --max-urls alone', async () => {
    const none = await runInProcess(['audit', bare.origin, '--from-sitemaps']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      `crawlee-robots: --from-sitemaps: robots.txt of ${bare.origin} has no Sitemap: line\n`,
    );
    const both = await runInProcess(['audit', site.origin, '--from-sitemaps', '--urls', '-']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--from-sitemaps and --urls/);
    const cap = await runInProcess(['audit', site.origin, '--max-urls', '5']);
    expect(cap.code).toBe(2);
    expect(cap.stderr).toMatch(/--max-urls .* --from-sitemaps/);
    const broke = await runInProcess(['audit', broken.origin, '--from-sitemaps']);
    expect(broke.code).toBe(2);
    expect(broke.stderr).toMatch(
      /no URL to audit on .*: the sitemap of robots\.txt could not be read \(.*gone\.xml: HTTP 404/,
    );
    // A sitemap that two Sitemap: lines name is one sitemap.
    const twice = await startHttpServer();
    twice.route(
      '/robots.txt',
      text(
        `User-agent: *\nDisallow:\n\nSitemap: ${twice.origin}/gone.xml\nSitemap: ${twice.origin}/gone.xml\n`,
      ),
    );
    try {
      const run = await runInProcess(['audit', twice.origin, '--from-sitemaps']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /: no URL to audit on .*: the sitemap of robots\.txt could not be read \(.*\/gone\.xml: HTTP 404/,
      );
      // A sitemap whose redirects loop is skipped with a warning: not read either.
      twice.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${twice.origin}/loop.xml\n`));
      twice.route('/loop.xml', redirect('/loop2.xml', 302));
      twice.route('/loop2.xml', redirect('/loop.xml', 302));
      const loop = await runInProcess(['audit', twice.origin, '--from-sitemaps']);
      expect(loop.code).toBe(2);
      expect(loop.stderr).toMatch(/the sitemap of robots\.txt could not be read \(.*\/loop\.xml: Loop: /);
    } finally {
      await twice.close();
    }
  });
});

describe('audit --from-sitemaps: sitemaps that could not be read', () => {
  it('names the sitemap that failed after some URLs in text, JSON and HTML, and exits 2 with the reason', async () => {
    const stall = await startHttpServer();
    const o = stall.origin;
    stall.route(
      '/robots.txt',
      text(`User-agent: ExampleBot\nDisallow: /private/\n\nSitemap: ${o}/stall.xml\n`),
    );
    stall.route('/stall.xml', (_request, response) => {
      // One URL, then nothing more, ever.
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.write(`<urlset><url><loc>${o}/one</loc></url>`);
    });
    const html = join(tempDir('report'), 'report.html');
    const argv = ['audit', o, '--from-sitemaps', '--agents', 'ExampleBot', '--fail-on', 'blocked:ExampleBot'];
    try {
      const run = await runInProcess([...argv, '--timeout', '500', '--html', html]);
      expect(run.code).toBe(2);
      const reason =
        /^crawlee-robots: --from-sitemaps: 1 sitemap could not be read \(.*\/stall\.xml: .*\), so the sample of 1 URL is incomplete\n$/;
      expect(run.stderr).toMatch(reason);
      expect(lineStarting(run.lines, '1  ')).toBe('  1  /one');
      expect(lineStarting(run.lines, 'FAILED')).toMatch(
        /^ {2}FAILED \/stall\.xml: .*octets read \(1 URL read before\)\.$/,
      );
      expect(lineStarting(run.lines, 'Fail-on')).toBe('Fail-on (exit 2: the sitemap sample is incomplete)');
      expect(lineStarting(run.lines, 'none tripped')).toBe('  none tripped, none passed: blocked:ExampleBot');
      const page = readFileSync(html, 'utf8');
      expect(page).toContain(`<code>${o}/stall.xml</code>`);
      expect(page).toContain('Incomplete sample (exit 2)');

      const json = await runInProcess([...argv, '--timeout', '500', '--json']);
      expect(json.code).toBe(2);
      expect(json.stderr).toBe('');
      expect(JSON.parse(json.stdout)).toMatchObject({
        urls: [{ path: '/one' }],
        fromSitemaps: {
          read: 0,
          failed: 1,
          failures: [{ url: `${o}/stall.xml`, refused: false }],
          stoppedAtMax: false,
          incomplete: expect.stringMatching(/sample of 1 URL is incomplete/),
        },
        exitCode: 2,
      });
    } finally {
      await stall.close();
    }
  });

  it('keeps the URLs of the sitemaps that were read when another answers 500', async () => {
    const partial = await startHttpServer();
    const o = partial.origin;
    partial.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/a.xml\nSitemap: ${o}/b.xml\n`),
    );
    partial.route('/a.xml', xml(urlset(o, ['/a1', '/a2'])));
    partial.route('/b.xml', text('down', 500));
    try {
      const run = await runInProcess(['audit', o, '--from-sitemaps', '--agents', 'ExampleBot', '--json']);
      expect(run.code).toBe(2);
      const json = JSON.parse(run.stdout);
      expect(json.urls.map((row: { path: string }) => row.path)).toEqual(['/a1', '/a2']);
      expect(json.fromSitemaps).toMatchObject({ read: 1, failed: 1, failures: [{ url: `${o}/b.xml` }] });
    } finally {
      await partial.close();
    }
  });
});

describe('audit --from-sitemaps: a sitemap under a disallowed path', () => {
  it('that fails is a failure, not a refusal: robots.txt listed it, so it was read', async () => {
    const listed = await startHttpServer();
    const o = listed.origin;
    listed.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow: /private/\n\nSitemap: ${o}/a.xml\nSitemap: ${o}/private/b.xml\n`),
    );
    listed.route('/a.xml', xml(urlset(o, ['/a1'])));
    listed.route('/private/b.xml', text('down', 500));
    try {
      const run = await runInProcess(['audit', o, '--from-sitemaps', '--agents', 'ExampleBot', '--json']);
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stdout).fromSitemaps).toMatchObject({
        failures: [{ url: `${o}/private/b.xml`, refused: false }],
        incomplete: expect.stringContaining('/private/b.xml: HTTP 500'),
      });
    } finally {
      await listed.close();
    }
  });
});

describe('audit --from-sitemaps: sitemaps robots.txt keeps the first crawler from', () => {
  it('are read as the first of --agents; when none can be, the error says so and names the robots.txt', async () => {
    const site = await startHttpServer();
    const maps = await startHttpServer();
    site.route('/robots.txt', text(`User-agent: *\nAllow: /\n\nSitemap: ${maps.origin}/cross.xml\n`));
    maps.route('/robots.txt', text('User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n'));
    maps.route('/cross.xml', xml(urlset(site.origin, ['/a', '/b'])));
    try {
      const refused = await runInProcess([
        'audit',
        site.origin,
        '--from-sitemaps',
        '--agents',
        'GPTBot,ExampleBot',
      ]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        `crawlee-robots: --from-sitemaps: no URL to audit on ${site.origin}: the audit reads the sitemaps as GPTBot (the first of --agents), and robots.txt does not let it read the sitemap (${maps.origin}/cross.xml: ${maps.origin}/robots.txt does not allow it (disallow: /, line 5).); put first in --agents a crawler that may read them\n`,
      );
      expect(maps.hits('/cross.xml')).toBe(0);
      // With --json the reason comes in a document of its own, and stderr stays empty.
      const json = await runInProcess([
        'audit',
        site.origin,
        '--from-sitemaps',
        '--agents',
        'GPTBot',
        '--json',
      ]);
      expect(json.code).toBe(2);
      expect(json.stderr).toBe('');
      const report = JSON.parse(json.stdout);
      expect(report).toMatchObject({
        origin: site.origin,
        urls: [],
        error: expect.stringMatching(
          /^--from-sitemaps: no URL to audit on .*: the audit reads the sitemaps as GPTBot/,
        ),
        fromSitemaps: { read: 0, failed: 1, failures: [{ url: `${maps.origin}/cross.xml`, refused: true }] },
        exitCode: 2,
      });
      expect(report.robotsTxt).toMatchObject({ status: 200, sitemaps: [`${maps.origin}/cross.xml`] });
      const none = await runInProcess(
        ['audit', 'https://shop.example', '--file', '-', '--from-sitemaps', '--json'],
        {
          stdin: 'User-agent: *\nDisallow: /x\n',
        },
      );
      expect(none.code).toBe(2);
      expect(none.stderr).toBe('');
      expect(JSON.parse(none.stdout)).toMatchObject({
        urls: [],
        error: '--from-sitemaps: robots.txt of https://shop.example has no Sitemap: line',
        fromSitemaps: { read: 0, failures: [] },
      });
      const read = await runInProcess([
        'audit',
        site.origin,
        '--from-sitemaps',
        '--agents',
        'ExampleBot,GPTBot',
        '--json',
      ]);
      expect(read.code).toBe(0);
      expect(JSON.parse(read.stdout).urls.map((row: { path: string }) => row.path)).toEqual(['/a', '/b']);
    } finally {
      await Promise.all([site.close(), maps.close()]);
    }
  });
});

describe('audit --from-sitemaps: the same sample every run', () => {
  it('takes the first URLs in the order robots.txt and its index list them, however fast each sitemap answers', async () => {
    const jitter = await startHttpServer();
    const o = jitter.origin;
    const slow =
      (handler: TestRouteHandler): TestRouteHandler =>
      async (request, response) => {
        await sleep(Math.random() * 20);
        await handler(request, response);
      };
    jitter.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow: /private/\n\nSitemap: ${o}/index.xml\nSitemap: ${o}/b.xml\n`),
    );
    jitter.route(
      '/index.xml',
      slow(
        xml(
          `<sitemapindex><sitemap><loc>${o}/a1.xml</loc></sitemap><sitemap><loc>${o}/a2.xml</loc></sitemap></sitemapindex>`,
        ),
      ),
    );
    jitter.route('/a1.xml', slow(xml(urlset(o, ['/a1']))));
    jitter.route('/a2.xml', slow(xml(urlset(o, ['/a2']))));
    jitter.route('/b.xml', slow(xml(urlset(o, ['/private/1', '/private/2', '/private/3']))));
    try {
      const outcomes = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const run = await runInProcess([
          'audit',
          o,
          '--from-sitemaps',
          '--max-urls',
          '3',
          '--agents',
          'ExampleBot',
          '--fail-on',
          'blocked:ExampleBot',
          '--json',
        ]);
        const paths = JSON.parse(run.stdout).urls.map((row: { path: string }) => row.path);
        outcomes.add(`${run.code} ${paths.join(' ')}`);
      }
      // The declared sitemaps in file order, then the index's children in its order.
      expect([...outcomes]).toEqual(['1 /private/1 /private/2 /private/3']);
    } finally {
      await jitter.close();
    }
  });
});

describe('sitemaps --max-urls', () => {
  it('stops at N URLs without waiting for a sitemap that has not answered, and does not call it failed', async () => {
    const slow = await startHttpServer();
    const o = slow.origin;
    slow.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/fast.xml\nSitemap: ${o}/slow.xml\n`),
    );
    slow.route('/fast.xml', xml(urlset(o, ['/one', '/two'])));
    slow.route('/slow.xml', () => {});
    try {
      const started = performance.now();
      const run = await runInProcess(['sitemaps', o, '--max-urls', '1', '--timeout', '10000', '--json']);
      expect(performance.now() - started).toBeLessThan(5000);
      expect(run.code).toBe(0);
      const json = JSON.parse(run.stdout);
      expect(json.totals).toMatchObject({ urls: 1, sitemapsFailed: 0, stoppedEarly: true });
      expect(json.sitemaps.map((sitemap: { failure: string | null }) => sitemap.failure)).toEqual([
        null,
        null,
      ]);
      // The file cut after its first URL says what it held; the one that never answered cannot.
      expect(json.sitemaps.map((sitemap: { format: string | null }) => sitemap.format)).toEqual([
        'urlset',
        null,
      ]);
    } finally {
      await slow.close();
    }
  });
});

describe('sitemaps --max-urls N on a site of exactly N URLs', () => {
  it('reads the sitemap to its end and says it did not stop early', async () => {
    const exact = await startHttpServer();
    const o = exact.origin;
    exact.route('/robots.txt', text(`User-agent: *\nDisallow: /two\n\nSitemap: ${o}/only.xml\n`));
    exact.route('/only.xml', xml(urlset(o, ['/one', '/two', '/three'])));
    try {
      const run = await runInProcess(['sitemaps', o, '--max-urls', '3', '--json']);
      expect(run.code).toBe(0);
      const json = JSON.parse(run.stdout);
      expect(json.totals).toMatchObject({
        sitemapsRead: 1,
        urls: 3,
        kept: 2,
        blocked: 1,
        stoppedEarly: false,
      });
      expect(json.sitemaps).toMatchObject([{ url: `${o}/only.xml`, urls: 3, failure: null, warnings: [] }]);
      const shown = await runInProcess(['sitemaps', o, '--max-urls', '3']);
      expect(shown.stdout).toContain('1 sitemap read');
      expect(shown.stdout).not.toContain('stopped early');
      // One fewer: the third URL is never read, and the report says the run stopped.
      const fewer = JSON.parse((await runInProcess(['sitemaps', o, '--max-urls', '2', '--json'])).stdout);
      expect(fewer.totals).toMatchObject({ sitemapsRead: 0, urls: 2, stoppedEarly: true });
      expect(fewer.sitemaps[0].warnings).toEqual([
        'Not read to the end: the run stopped (2 URLs read before).',
      ]);
    } finally {
      await exact.close();
    }
  });

  it('still stops early when a second sitemap is left unread', async () => {
    const two = await startHttpServer();
    const o = two.origin;
    two.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/a.xml\nSitemap: ${o}/b.xml\n`));
    two.route('/a.xml', xml(urlset(o, ['/one', '/two'])));
    // Never answers: read or not, it is cut by the stop.
    two.route('/b.xml', () => {});
    try {
      const run = await runInProcess(['sitemaps', o, '--max-urls', '2', '--timeout', '10000', '--json']);
      const json = JSON.parse(run.stdout);
      expect(json.totals).toMatchObject({ sitemapsRead: 1, urls: 2, stoppedEarly: true });
      expect(json.sitemaps.map((sitemap: { warnings: string[] }) => sitemap.warnings)).toEqual([
        [],
        ['Not read to the end: the run stopped (0 URLs read before).'],
      ]);
    } finally {
      await two.close();
    }
  });
});

describe('sitemaps --urls: each URL once', () => {
  it('drops the fragment and prints a URL listed twice once', async () => {
    const dups = await startHttpServer();
    const o = dups.origin;
    dups.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/a.xml\nSitemap: ${o}/b.xml\n`));
    dups.route('/a.xml', xml(urlset(o, ['/', '/about', '/about#team'])));
    dups.route('/b.xml', xml(urlset(o, ['/', '/p/1'])));
    try {
      const run = await runInProcess(['sitemaps', o, '--urls']);
      expect(run.code).toBe(0);
      expect(run.stdout.trimEnd().split('\n').sort()).toEqual([`${o}/`, `${o}/about`, `${o}/p/1`]);
    } finally {
      await dups.close();
    }
  });
});

describe('--max-time: a bound on the whole reading of sitemaps', () => {
  /** robots.txt lists a sitemap that answers and one that drips a space every 100 ms and never ends. */
  let stalling: TestHttpServer;
  const drips = new Set<NodeJS.Timeout>();
  beforeAll(async () => {
    stalling = await startHttpServer();
    const o = stalling.origin;
    stalling.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow: /private/\n\nSitemap: ${o}/fast.xml\nSitemap: ${o}/stall.xml\n`),
    );
    stalling.route('/fast.xml', xml(urlset(o, ['/one', '/two', '/private/three'])));
    stalling.route('/stall.xml', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.write('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
      const drip = setInterval(() => response.write(' '), 100);
      drips.add(drip);
      response.on('close', () => {
        clearInterval(drip);
        drips.delete(drip);
      });
    });
  });
  afterAll(async () => {
    for (const drip of drips) clearInterval(drip);
    await stalling.close();
  });

  it('sitemaps: stops at --max-time, reports what was read and says why, exit 0', async () => {
    const o = stalling.origin;
    const started = performance.now();
    const run = await runInProcess(['sitemaps', o, '--max-time', '1', '--timeout', '30000']);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 URLs: 2 kept, 1 blocked by robots.txt, 0 filtered');
    expect(run.stdout).toContain('stopped early at --max-time 1 s: not every sitemap was read to its end');
    expect(run.stderr).toBe('');

    const json = JSON.parse((await runInProcess(['sitemaps', o, '--max-time', '1', '--json'])).stdout);
    expect(json.totals).toMatchObject({
      urls: 3,
      sitemapsFailed: 0,
      stoppedEarly: true,
      stoppedAtMaxTime: true,
    });

    // A list for a pipe says on stderr that it may be incomplete; --strict makes that exit code 2.
    const list = await runInProcess(['sitemaps', o, '--max-time', '1', '--urls']);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(`${o}/one\n${o}/two\n`);
    expect(list.stderr).toBe(
      'crawlee-robots: stopped at --max-time 1 s before every sitemap was read, so the list may be incomplete; --strict makes that exit code 2\n',
    );
    const strict = await runInProcess(['sitemaps', o, '--max-time', '1', '--urls', '--strict']);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toBe(
      'crawlee-robots: stopped at --max-time 1 s before every sitemap was read, so the list is incomplete\n',
    );
  });

  it('sitemaps: exits 2 when nothing was read within --max-time', async () => {
    const lone = await startHttpServer();
    lone.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${stalling.origin}/stall.xml\n`));
    try {
      const run = await runInProcess(['sitemaps', lone.origin, '--max-time', '1']);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('crawlee-robots: no sitemap URL was read within --max-time 1 s\n');
    } finally {
      await lone.close();
    }
  });

  it('audit --from-sitemaps: audits the URLs read by --max-time, and says it stopped there', async () => {
    const o = stalling.origin;
    const run = await runInProcess([
      'audit',
      o,
      '--from-sitemaps',
      '--max-time',
      '1',
      '--agents',
      'ExampleBot',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('1 read, 0 failed; stopped at --max-time 1 s');
    expect(run.stdout).toContain('3 URLs x 1 crawler');
    const json = JSON.parse(
      (await runInProcess(['audit', o, '--from-sitemaps', '--max-time', '1', '--json'])).stdout,
    );
    expect(json).toMatchObject({
      urls: [{ path: '/one' }, { path: '/two' }, { path: '/private/three' }],
      fromSitemaps: { read: 1, failed: 0, stoppedAtMax: false, stoppedAtMaxTime: 1, incomplete: null },
    });
  });

  it('audit --from-sitemaps: exits 2 when no URL was read within --max-time; --max-time alone or malformed is refused', async () => {
    const lone = await startHttpServer();
    lone.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${lone.origin}/stall.xml\n`));
    lone.route('/stall.xml', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.write('<urlset>');
    });
    try {
      const run = await runInProcess(['audit', lone.origin, '--from-sitemaps', '--max-time', '1']);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `crawlee-robots: --from-sitemaps: no URL to audit on ${lone.origin}: none was read within --max-time 1 s\n`,
      );
    } finally {
      await lone.close();
    }
    const alone = await runInProcess(['audit', stalling.origin, '--max-time', '5']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(
      'crawlee-robots: --max-time bounds the reading of sitemaps: use it together with --from-sitemaps\n',
    );
    for (const value of ['0', '1.5', '86401', 'soon']) {
      const bad = await runInProcess(['sitemaps', stalling.origin, '--max-time', value]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe(
        `crawlee-robots: --max-time takes seconds, from 1 to 86400 (a day), e.g. --max-time 300; got ${JSON.stringify(value)}\n`,
      );
    }
  });
});

describe('audit --from-sitemaps: URLs only past the depth limit', () => {
  it('says why no URL was found: the warning of the index nested too deep', async () => {
    const deep = await startHttpServer();
    const o = deep.origin;
    deep.route('/robots.txt', text(`User-agent: *\nDisallow:\n\nSitemap: ${o}/i0.xml\n`));
    for (let i = 0; i < 8; i++) {
      deep.route(
        `/i${i}.xml`,
        xml(
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${o}/i${i + 1}.xml</loc></sitemap></sitemapindex>`,
        ),
      );
    }
    deep.route('/i8.xml', xml(urlset(o, ['/bottom'])));
    try {
      const run = await runInProcess(['audit', o, '--from-sitemaps']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        new RegExp(
          `^crawlee-robots: --from-sitemaps: the sitemap of robots\\.txt lists no URL on ${o} \\(${o}/i\\d\\.xml: Deeper than maxDepth \\(5\\)`,
        ),
      );
    } finally {
      await deep.close();
    }
  });
});
