import { afterEach, describe, expect, it } from 'vitest';
import {
  type SitemapDroppedUrl,
  type SitemapFilteredUrl,
  type SitemapRequest,
  SitemapSeeder,
  type SitemapSeedOptions,
} from '../../src/sitemap/index.js';
import { RobotsStore } from '../../src/store/index.js';
import { redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { serveBody } from './support/sitemap-server.js';

const urlset = (locs: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((loc) => `<url><loc>${loc}</loc></url>`)
    .join('')}</urlset>`;

const servers: TestHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(robots: string | null): Promise<TestHttpServer> {
  const started = await startHttpServer();
  if (robots !== null) started.route('/robots.txt', text(robots));
  servers.push(started);
  return started;
}

/** Paths a server received, in order. */
const paths = (s: TestHttpServer) => s.requests.map((request) => request.path);

async function seedInto(inputs: string[], options: Partial<SitemapSeedOptions> = {}) {
  const requests: SitemapRequest[] = [];
  const dropped: SitemapDroppedUrl[] = [];
  const filtered: SitemapFilteredUrl[] = [];
  const { log, lines, warnings } = captureLog();
  const store = new RobotsStore({
    userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)',
    log,
    fetchTimeoutMs: 1000,
  });
  try {
    const result = await new SitemapSeeder({ store, log, timeoutMs: 2000 }).seed(inputs, {
      enqueue: async (batch) => {
        requests.push(...batch);
      },
      onDropped: (record) => {
        dropped.push(record);
      },
      onFiltered: (record) => filtered.push(record),
      progressIntervalMs: 0,
      ...options,
    });
    return {
      result,
      dropped,
      filtered,
      lines,
      warnings,
      urls: requests.map((request) => request.url).sort(),
    };
  } finally {
    await store.close();
  }
}

describe('redirects of a sitemap, robots.txt first', () => {
  it('does not follow a redirect into a path robots.txt disallows, and reports it as a failure', async () => {
    const site = await server('User-agent: *\nDisallow: /private/\n');
    site.route('/sm.xml', redirect('/private/sitemap.xml', 302));
    site.route('/private/sitemap.xml', serveBody(urlset([`${site.origin}/page`])));
    const run = await seedInto([`${site.origin}/sm.xml`]);
    expect(paths(site)).toEqual(['/robots.txt', '/sm.xml']);
    expect(run.urls).toEqual([]);
    expect(run.result).toMatchObject({ sitemapsRead: 0, sitemapsFailed: 1, urlsFound: 0 });
    expect(run.result.failures).toEqual([
      {
        url: `${site.origin}/sm.xml`,
        why: `Redirects to ${site.origin}/private/sitemap.xml, which robots.txt does not allow (disallow: /private/, line 2).`,
      },
    ]);
    expect(run.warnings()).toContainEqual(expect.stringContaining(`Sitemap ${site.origin}/sm.xml failed`));
  });

  it("checks a redirect to another host against that host's robots.txt before requesting it", async () => {
    const other = await server('User-agent: *\nDisallow: /\n');
    other.route('/sm.xml', serveBody(urlset([`${other.origin}/x`])));
    const site = await server('User-agent: *\nAllow: /\n');
    site.route('/sm.xml', redirect(`${other.origin}/sm.xml`, 301));
    const run = await seedInto([`${site.origin}/sm.xml`]);
    // The other host's robots.txt was asked, its sitemap never.
    expect(paths(other)).toEqual(['/robots.txt']);
    expect(run.result.failures).toEqual([
      {
        url: `${site.origin}/sm.xml`,
        why: `Redirects to ${other.origin}/sm.xml, which robots.txt does not allow (disallow: /, line 2).`,
      },
    ]);
  });

  it('does not follow a redirect to an origin whose robots.txt is unreachable', async () => {
    const down = await server(null);
    down.route('/robots.txt', text('down', 503));
    down.route('/sm.xml', serveBody(urlset([`${down.origin}/x`])));
    const site = await server('User-agent: *\nAllow: /\n');
    site.route('/sm.xml', redirect(`${down.origin}/sm.xml`, 302));
    const run = await seedInto([`${site.origin}/sm.xml`]);
    expect(paths(down)).toEqual(['/robots.txt']);
    expect(run.result.sitemapsFailed).toBe(1);
    expect(run.result.failures[0].why).toMatch(
      new RegExp(
        `^Redirects to ${down.origin}/sm.xml, which robots.txt does not allow \\(robots.txt unreachable: HTTP 503`,
      ),
    );
  });

  it('follows a redirect robots.txt invites: a target its own robots.txt lists, a target on the origin of a listed sitemap', async () => {
    // The other host disallows everything but lists the sitemap the site redirects to.
    const other = await server(null);
    other.route('/robots.txt', text(`User-agent: *\nDisallow: /\n\nSitemap: ${other.origin}/maps/sm.xml\n`));
    other.route('/maps/sm.xml', serveBody(urlset([`${other.origin}/x`])));
    const site = await server(null);
    site.route(
      '/robots.txt',
      text(`User-agent: *\nDisallow: /private/\n\nSitemap: ${site.origin}/listed.xml\n`),
    );
    site.route('/listed.xml', redirect('/private/moved.xml', 301));
    site.route('/private/moved.xml', serveBody(urlset([`${site.origin}/page`])));
    site.route('/given.xml', redirect(`${other.origin}/maps/sm.xml`, 302));

    const listed = await seedInto([`${site.origin}/`]);
    expect(paths(site)).toEqual(['/robots.txt', '/listed.xml', '/private/moved.xml']);
    expect(listed.urls).toEqual([`${site.origin}/page`]);
    expect(listed.result.failures).toEqual([]);

    const given = await seedInto([`${site.origin}/given.xml`]);
    expect(paths(other)).toEqual(['/robots.txt', '/maps/sm.xml']);
    // Read, and its URL checked against its own robots.txt like any other.
    expect(given.result).toMatchObject({ sitemapsRead: 1, failures: [], droppedByRobots: 1 });
  });

  it('lets a sitemap list the URLs of the host it redirects to, as well as those of its own host', async () => {
    const cdn = await server('User-agent: *\nAllow: /\n');
    const site = await server('User-agent: *\nAllow: /\n');
    const third = await server('User-agent: *\nAllow: /\n');
    site.route('/sm.xml', redirect(`${cdn.origin}/site/sm.xml`, 301));
    cdn.route(
      '/site/sm.xml',
      serveBody(urlset([`${site.origin}/a`, `${cdn.origin}/b`, `${third.origin}/smuggled`])),
    );
    const run = await seedInto([`${site.origin}/sm.xml`]);
    expect(run.urls).toEqual([`${site.origin}/a`, `${cdn.origin}/b`].sort());
    expect(run.filtered).toEqual([
      { url: `${third.origin}/smuggled`, sitemapUrl: `${site.origin}/sm.xml`, reason: 'cross-host' },
    ]);
  });
});

describe('a site whose robots.txt is unreachable', () => {
  it('is reported as a failure with the status and why, in the result and the log', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    const run = await seedInto([`${site.origin}/`]);
    expect(run.result).toMatchObject({ sitemapsRead: 0, sitemapsFailed: 1, urlsFound: 0 });
    expect(run.result.failures).toEqual([
      {
        url: `${site.origin}/robots.txt`,
        why: expect.stringMatching(
          /^The sitemaps it lists are unknown \(robots\.txt 503\): HTTP 503: robots\.txt is unreachable/,
        ),
      },
    ]);
    expect(run.warnings()).toContainEqual(
      expect.stringMatching(
        new RegExp(`^Site ${site.origin} not read: robots\\.txt is unreachable \\(503\\)`),
      ),
    );
  });

  it('has none of its common sitemap paths requested, each counted as skipped', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    site.route('/sitemap.xml', serveBody(urlset([`${site.origin}/x`])));
    const run = await seedInto([`${site.origin}/`], { tryCommonPaths: true });
    expect(paths(site)).toEqual(['/robots.txt']);
    expect(run.result).toMatchObject({
      sitemapsRead: 0,
      sitemapsFailed: 1,
      sitemapsSkipped: 3,
      urlsFound: 0,
    });
    expect(run.result.failures.map((failure) => failure.url)).toEqual([`${site.origin}/robots.txt`]);
  });
});

it('counts a location longer than any URL as invalid, and hands it to onFiltered', async () => {
  const site = await server('User-agent: *\nAllow: /\n');
  const long = `${site.origin}/${'a'.repeat(9000)}`;
  site.route('/sm.xml', serveBody(urlset([`${site.origin}/short`, long])));
  site.route('/sm.txt', text(`${long}\n${site.origin}/line\n`));
  const run = await seedInto([`${site.origin}/sm.xml`, `${site.origin}/sm.txt`]);
  expect(run.urls).toEqual([`${site.origin}/line`, `${site.origin}/short`]);
  expect(run.result).toMatchObject({ urlsFound: 4, kept: 2, filtered: 2 });
  expect(run.result.filteredBy.invalid).toBe(2);
  expect(run.filtered.map((record) => [record.reason, record.url.length, record.sitemapUrl]).sort()).toEqual([
    ['invalid', 8192, `${site.origin}/sm.txt`],
    ['invalid', 8192, `${site.origin}/sm.xml`],
  ]);
  expect(long.startsWith(run.filtered[0].url)).toBe(true);
});
