import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type TestHttpServer, type TestRouteHandler, text } from '../support/http-server.js';
import { cells, lineStarting, runInProcess } from './run-cli.js';

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
      `  robots.txt  ${site.origin}/robots.txt: HTTP 200, 2 Sitemap: lines`,
    );
    expect(run.lines).toContain('  4 sitemaps read, 1 failed, 0 skipped');
    expect(run.lines).toContain('  9 URLs: 5 kept, 3 blocked by robots.txt, 1 filtered');

    const rows = sitemapRows(run.lines);
    // Declared sitemaps come first, in file order.
    expect([...rows.keys()].slice(0, 2)).toEqual(['/sitemap_index.xml', '/news.xml']);
    expect(rows.get('/sitemap_index.xml')).toEqual(['robots.txt', '0', '0', '0', '0', 'ok']);
    expect(rows.get('/news.xml')).toEqual(['robots.txt', '2', '1', '0', '1', 'ok']);
    expect(rows.get('/pages.xml')).toEqual(['an index', '4', '2', '2', '0', 'ok']);
    expect(rows.get('/archive.xml.gz')).toEqual(['an index', '3', '2', '1', '0', 'ok']);
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
    expect(sitemapRows(run.lines).get('/pages.xml')).toEqual(['an index', '4', '3', '1', '0', 'ok']);
  });

  it('says so when robots.txt declares no sitemap, and exits 0', async () => {
    const run = await runInProcess(['sitemaps', bare.origin]);
    expect(run.code).toBe(0);
    expect(run.lines).toContain('  robots.txt declares no sitemap');
    expect(run.lines).not.toContain('Sitemaps');
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
        { rule: 'disallow: /private/', line: 5, count: 2 },
        { rule: 'disallow: /drafts/', line: 6, count: 1 },
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
      urls: 3,
      kept: 2,
      blocked: 1,
      filtered: 0,
      failure: null,
    });
    expect(json.sitemaps).toHaveLength(5);
  });
});

describe('sitemaps --urls', () => {
  it('prints the kept URLs only, one a line', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--agent', 'ExampleBot', '--urls']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.trimEnd().split('\n').sort()).toEqual(
      ['/', '/2023/a', '/2023/b', '/about', '/news/1'].map((path) => `${site.origin}${path}`).sort(),
    );
  });

  it('stops at --max-urls', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--urls', '--max-urls', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    const text = await runInProcess(['sitemaps', site.origin, '--max-urls', '2']);
    expect(text.lines.some((line) => line.includes('stopped early'))).toBe(true);
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
    expect(lineStarting(run.lines, 'robots.txt')).toContain('HTTP 503, 0 Sitemap: lines');
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
      unreadable: 'none of the 1 declared sitemaps could be read',
      totals: { sitemapsRead: 0, sitemapsFailed: 1 },
      exitCode: 2,
    });
    const urls = await runInProcess(['sitemaps', broken.origin, '--urls']);
    expect(urls.code).toBe(2);
    expect(urls.stdout).toBe('');
    expect(urls.stderr).toBe('crawlee-robots: none of the 1 declared sitemaps could be read\n');
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
    expect(run.code).toBe(0);
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
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
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
    expect(run.lines[1]).toBe('  3 URLs x 1 crawlers');
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
    expect(broke.stderr).toMatch(/list no URL .*1 failed; .*gone\.xml/);
  });
});
