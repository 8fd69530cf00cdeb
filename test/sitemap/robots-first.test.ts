import { afterEach, describe, expect, it } from 'vitest';
import { redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import type { CapturedLine } from '../support/log.js';
import { seedInto } from './support/seed.js';
import { serveBody } from './support/sitemap-server.js';

const urlset = (locs: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((loc) => `<url><loc>${loc}</loc></url>`)
    .join('')}</urlset>`;

const sitemapIndex = (locs: string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`)
    .join('')}</sitemapindex>`;

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
        why: `Redirects to ${site.origin}/private/sitemap.xml, which ${site.origin}/robots.txt does not allow (disallow: /private/, line 2).`,
        refusedByRobots: true,
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
        why: `Redirects to ${other.origin}/sm.xml, which ${other.origin}/robots.txt does not allow (disallow: /, line 2).`,
        refusedByRobots: true,
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
        `^Redirects to ${down.origin}/sm.xml, which ${down.origin}/robots.txt does not allow \\(HTTP 503: robots.txt is unreachable`,
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

  it('reads a sitemap its own robots.txt lists in a disallowed path however it is reached: given, named by an index, or by a redirect', async () => {
    const site = await server(null);
    const o = site.origin;
    site.route('/robots.txt', text(`User-agent: *\nDisallow: /maps/\n\nSitemap: ${o}/maps/listed.xml\n`));
    site.route('/maps/listed.xml', serveBody(urlset([`${o}/page`])));
    site.route('/maps/unlisted.xml', serveBody(urlset([`${o}/other`])));
    site.route('/index.xml', serveBody(sitemapIndex([`${o}/maps/listed.xml`, `${o}/maps/unlisted.xml`])));
    site.route('/go.xml', redirect('/maps/listed.xml', 301));

    for (const input of [{ sitemap: `${o}/maps/listed.xml` }, `${o}/index.xml`, `${o}/go.xml`, `${o}/`]) {
      const run = await seedInto([input]);
      expect(run.urls, JSON.stringify(input)).toEqual([`${o}/page`]);
    }
    // The one it does not list stays refused.
    const run = await seedInto([`${o}/index.xml`]);
    expect(run.result.failures).toEqual([
      {
        url: `${o}/maps/unlisted.xml`,
        parent: `${o}/index.xml`,
        why: `${o}/robots.txt does not allow it (disallow: /maps/, line 2).`,
        refusedByRobots: true,
      },
    ]);
    expect(paths(site).filter((path) => path === '/maps/unlisted.xml')).toEqual([]);
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

  it('lets a child sitemap list the hosts its index may list, and no other', async () => {
    const site = await server(null);
    const files = await server('User-agent: *\nAllow: /\n');
    const third = await server('User-agent: *\nAllow: /\n');
    // The site's robots.txt lists an index kept on another host, whose children lie there too.
    site.route('/robots.txt', text(`User-agent: *\nAllow: /\nSitemap: ${files.origin}/site/index.xml\n`));
    files.route('/site/index.xml', serveBody(sitemapIndex([`${files.origin}/site/pages.xml`])));
    files.route(
      '/site/pages.xml',
      serveBody(urlset([`${site.origin}/a`, `${files.origin}/b`, `${third.origin}/smuggled`])),
    );
    const run = await seedInto([`${site.origin}/`]);
    expect(run.urls).toEqual([`${site.origin}/a`, `${files.origin}/b`].sort());
    expect(run.filtered).toEqual([
      { url: `${third.origin}/smuggled`, sitemapUrl: `${files.origin}/site/pages.xml`, reason: 'cross-host' },
    ]);
  });
});

/** robots.txt answers 503 to its first `failures` requests, then `body`. */
function recovering(site: TestHttpServer, failures: number, body: string): void {
  let asked = 0;
  site.route('/robots.txt', (request, response) =>
    text(asked++ < failures ? 'down' : body, asked <= failures ? 503 : 200)(request, response),
  );
}

describe('a site whose robots.txt is unreachable', () => {
  it('is reported as a failure with the status and why, in the result and the log', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    const run = await seedInto([`${site.origin}/`], { unreachableWaitMs: 0 });
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
    const run = await seedInto([`${site.origin}/`], { tryCommonPaths: true, unreachableWaitMs: 0 });
    expect(paths(site)).toEqual(['/robots.txt']);
    expect(run.result).toMatchObject({
      sitemapsRead: 0,
      sitemapsFailed: 1,
      sitemapsSkipped: 3,
      urlsFound: 0,
    });
    expect(run.result.failures.map((failure) => failure.url)).toEqual([`${site.origin}/robots.txt`]);
  });

  it('is asked again when the store plans its next attempt, and read once robots.txt answers', async () => {
    const site = await server(null);
    recovering(
      site,
      2,
      `User-agent: *\nDisallow: /private/\nSitemap: ${site.origin}/sm.xml\nSitemap: /relative.xml\n`,
    );
    site.route('/sm.xml', serveBody(urlset([`${site.origin}/a`, `${site.origin}/private/b`])));
    const other = await server('User-agent: *\nAllow: /\n');
    other.route('/sm.xml', serveBody(urlset([`${other.origin}/c`])));
    const started = performance.now();
    const run = await seedInto(
      [`${site.origin}/`, `${other.origin}/sm.xml`],
      { unreachableWaitMs: 10_000 },
      { retry: { initialDelayMs: 100, maxDelayMs: 200 } },
    );
    // Two failed attempts 100 and 200 ms apart, then the file: far less than the wait allowed.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(paths(site)).toEqual(['/robots.txt', '/robots.txt', '/robots.txt', '/sm.xml']);
    expect(run.urls).toEqual([`${other.origin}/c`, `${site.origin}/a`].sort());
    expect(run.dropped.map((record) => record.url)).toEqual([`${site.origin}/private/b`]);
    expect(run.result).toMatchObject({ sitemapsRead: 2, sitemapsFailed: 0, failures: [] });
    expect(run.result.warnings).toEqual([
      {
        url: `${site.origin}/robots.txt`,
        why: expect.stringMatching(/^Unreachable \(503\) when the run began; answered \(200\) \d+ s into it/),
      },
      {
        // As for a site that answered at once: a line no crawler can use is named.
        url: `${site.origin}/robots.txt`,
        why: 'Its Sitemap: line 4 is not an absolute http(s) URL, which sitemaps.org asks for: no crawler can use it, and it is not read.',
      },
    ]);
  });

  it('is asked again while the run reads other sitemaps, without a wait of its own', async () => {
    const site = await server(null);
    recovering(site, 1, `User-agent: *\nSitemap: ${site.origin}/sm.xml\n`);
    site.route('/sm.xml', serveBody(urlset([`${site.origin}/a`])));
    await expectReadBesideSlowSitemap(site, `${site.origin}/`);
  });

  it('is given up as soon as the run has nothing else to read, by default', async () => {
    const site = await server(null);
    recovering(site, 1, `User-agent: *\nSitemap: ${site.origin}/sm.xml\n`);
    const quick = await server('User-agent: *\nAllow: /\n');
    quick.route('/sm.xml', serveBody(urlset([`${quick.origin}/b`])));
    const started = performance.now();
    // The store would try again in 5 s; the other sitemap is read long before.
    const run = await seedInto(
      [`${site.origin}/`, `${quick.origin}/sm.xml`],
      {},
      { retry: { initialDelayMs: 5000 } },
    );
    expect(performance.now() - started).toBeLessThan(2500);
    expect(paths(site)).toEqual(['/robots.txt']);
    expect(run.urls).toEqual([`${quick.origin}/b`]);
    expect(run.result.failures.map((failure) => failure.url)).toEqual([`${site.origin}/robots.txt`]);
  });

  it('has its common paths tried once robots.txt answers without Sitemap: lines', async () => {
    const site = await server(null);
    recovering(site, 1, 'User-agent: *\nAllow: /\n');
    site.route('/sitemap.xml', serveBody(urlset([`${site.origin}/x`])));
    const run = await seedInto(
      [`${site.origin}/`],
      { tryCommonPaths: true, unreachableWaitMs: 10_000 },
      { retry: { initialDelayMs: 100 } },
    );
    expect(run.urls).toEqual([`${site.origin}/x`]);
    expect(run.result).toMatchObject({ sitemapsRead: 1, sitemapsFailed: 0, sitemapsSkipped: 2 });
  });

  it('is given up at the end of the wait, and the run lasts no longer', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    const run = await seedForTheWholeWait([`${site.origin}/`]);
    // Asked at each attempt the store planned (0, 300, 600, 900 ms), not once per wake-up.
    expect(paths(site).length).toBeGreaterThanOrEqual(3);
    expect(paths(site).length).toBeLessThanOrEqual(5);
    expect(paths(site).every((path) => path === '/robots.txt')).toBe(true);
    expect(run.result).toMatchObject({ sitemapsRead: 0, sitemapsFailed: 1 });
    expect(run.result.failures.map((failure) => failure.url)).toEqual([`${site.origin}/robots.txt`]);
  });

  it('waits no longer than the store plans to try: a later attempt is not forced', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    // The store tries again in a minute; the run waits 300 ms and asks no more.
    const run = await seedInto([`${site.origin}/`], { unreachableWaitMs: 300 });
    expect(paths(site)).toEqual(['/robots.txt']);
    expect(run.result.sitemapsFailed).toBe(1);
  });

  it('stops waiting when the signal aborts the run', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    const run = await seedAbortedWhileWaiting(`${site.origin}/`);
    expect(run.result).toMatchObject({ stoppedEarly: true, sitemapsFailed: 1 });
  });

  it('says how long it waits: a number of seconds, or until robots.txt answers for no limit', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    const waits: string[] = [];
    for (const unreachableWaitMs of [5000, Infinity]) {
      // The run is stopped once it said so (it would wait on), or after 3 s if it never does.
      const controller = new AbortController();
      const saidUnreachable = (line: CapturedLine) => line.message.includes('is unreachable (503)');
      const fallback = setTimeout(() => controller.abort(), 3000);
      const run = await seedInto(
        [`${site.origin}/`],
        { signal: controller.signal, unreachableWaitMs },
        {},
        (line) => {
          if (saidUnreachable(line)) controller.abort();
        },
      );
      clearTimeout(fallback);
      const told = run.lines.find(saidUnreachable);
      waits.push(told!.message.replace(/^.*other sitemaps are read/, ''));
    }
    expect(waits).toEqual([' and for 5 s at least.', ' and then until it answers.']);
  });

  it('rejects a negative wait as out of range, and a wait that is no number as of the wrong type', async () => {
    await expect(seedInto(['http://127.0.0.1:9/'], { unreachableWaitMs: -1 })).rejects.toThrow(
      new RangeError('unreachableWaitMs must be a number of 0 or more, got -1.'),
    );
    await expect(
      seedInto(['http://127.0.0.1:9/'], { unreachableWaitMs: '100' as unknown as number }),
    ).rejects.toThrow(new TypeError('unreachableWaitMs must be a number of 0 or more, got "100".'));
  });
});

/**
 * Seeds `input` of `site`, whose robots.txt fails once and whose /sm.xml lists /a, beside a
 * sitemap of another site that takes a second: `input` is read while that one is, with no
 * wait of its own (the store tries again 100 ms later).
 */
async function expectReadBesideSlowSitemap(site: TestHttpServer, input: string): Promise<void> {
  const slow = await server('User-agent: *\nAllow: /\n');
  slow.route('/sm.xml', async (request, response) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await serveBody(urlset([`${slow.origin}/b`]))(request, response);
  });
  const run = await seedInto([input, `${slow.origin}/sm.xml`], {}, { retry: { initialDelayMs: 100 } });
  expect(run.urls).toEqual([`${site.origin}/a`, `${slow.origin}/b`].sort());
  expect(run.result).toMatchObject({ sitemapsRead: 2, sitemapsFailed: 0 });
}

/** Seeds `inputs` with a wait of 1 s and the store trying every 300 ms: the run lasts the wait, and not much more. */
async function seedForTheWholeWait(inputs: string[]): ReturnType<typeof seedInto> {
  const started = performance.now();
  const run = await seedInto(
    inputs,
    { unreachableWaitMs: 1000 },
    { retry: { initialDelayMs: 300, maxDelayMs: 300 } },
  );
  const took = performance.now() - started;
  expect(took).toBeGreaterThanOrEqual(950);
  expect(took).toBeLessThan(3500);
  return run;
}

/** Seeds `input` with a wait of a minute that the signal aborts after 200 ms: the run ends soon after. */
async function seedAbortedWhileWaiting(input: string): ReturnType<typeof seedInto> {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const started = performance.now();
  const run = await seedInto([input], { signal: controller.signal, unreachableWaitMs: 60_000 });
  expect(performance.now() - started).toBeLessThan(3000);
  return run;
}

/** The failure of a sitemap whose robots.txt stayed unreachable (503). */
function refusedAsUnreachable(url: string) {
  return {
    url,
    why: expect.stringMatching(
      new RegExp(
        `^${new URL('/robots.txt', url).href} does not allow it \\(HTTP 503: robots\\.txt is unreachable`,
      ),
    ),
    refusedByRobots: true,
  };
}

describe('a given sitemap whose robots.txt is unreachable', () => {
  it('is checked again when the store plans its next attempt, and read once robots.txt answers', async () => {
    const site = await server(null);
    recovering(site, 2, 'User-agent: *\nDisallow: /private/\n');
    site.route('/sm.xml', serveBody(urlset([`${site.origin}/a`, `${site.origin}/private/b`])));
    const started = performance.now();
    const run = await seedInto(
      [`${site.origin}/sm.xml`],
      { unreachableWaitMs: 10_000 },
      { retry: { initialDelayMs: 100, maxDelayMs: 200 } },
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(paths(site)).toEqual(['/robots.txt', '/robots.txt', '/robots.txt', '/sm.xml']);
    expect(run.urls).toEqual([`${site.origin}/a`]);
    expect(run.dropped.map((record) => record.url)).toEqual([`${site.origin}/private/b`]);
    expect(run.result).toMatchObject({ sitemapsRead: 1, sitemapsFailed: 0, failures: [] });
    expect(run.result.warnings).toEqual([
      {
        url: `${site.origin}/sm.xml`,
        why: expect.stringMatching(
          new RegExp(
            `^Its robots\\.txt \\(${site.origin}/robots\\.txt\\) was unreachable \\(503\\) at first; it answered \\(200\\) \\d+ s into the run`,
          ),
        ),
      },
    ]);
  });

  it('is a failure at the end of the wait, not before, and is never requested', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    site.route('/sm.xml', serveBody(urlset([`${site.origin}/a`])));
    const run = await seedForTheWholeWait([`${site.origin}/sm.xml`]);
    expect(paths(site).length).toBeGreaterThanOrEqual(3);
    expect(paths(site).every((path) => path === '/robots.txt')).toBe(true);
    expect(run.urls).toEqual([]);
    expect(run.result).toMatchObject({ sitemapsRead: 0, sitemapsFailed: 1, urlsFound: 0 });
    expect(run.result.failures).toEqual([refusedAsUnreachable(`${site.origin}/sm.xml`)]);
  });

  it('is a failure at once when the run has nothing else to read, by default', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    site.route('/sm.xml', serveBody(urlset([`${site.origin}/a`])));
    const started = performance.now();
    // The store would try again in 5 s.
    const run = await seedInto([`${site.origin}/sm.xml`], {}, { retry: { initialDelayMs: 5000 } });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(paths(site)).toEqual(['/robots.txt']);
    expect(run.result).toMatchObject({ sitemapsRead: 0, sitemapsFailed: 1 });
    expect(run.result.failures).toEqual([refusedAsUnreachable(`${site.origin}/sm.xml`)]);
  });

  it('is checked again while the run reads other sitemaps, without a wait of its own', async () => {
    const site = await server(null);
    recovering(site, 1, 'User-agent: *\nAllow: /\n');
    site.route('/sm.xml', serveBody(urlset([`${site.origin}/a`])));
    await expectReadBesideSlowSitemap(site, `${site.origin}/sm.xml`);
  });

  it('shares the wait of its site: robots.txt is asked once per attempt', async () => {
    const site = await server(null);
    recovering(site, 2, `User-agent: *\nSitemap: ${site.origin}/listed.xml\n`);
    site.route('/listed.xml', serveBody(urlset([`${site.origin}/a`])));
    site.route('/given.xml', serveBody(urlset([`${site.origin}/b`])));
    const run = await seedInto(
      [`${site.origin}/`, `${site.origin}/given.xml`],
      { unreachableWaitMs: 10_000 },
      { retry: { initialDelayMs: 100, maxDelayMs: 200 } },
    );
    expect(paths(site).filter((path) => path === '/robots.txt')).toHaveLength(3);
    expect(run.urls).toEqual([`${site.origin}/a`, `${site.origin}/b`]);
    expect(run.result).toMatchObject({ sitemapsRead: 2, sitemapsFailed: 0, failures: [] });
    expect(run.result.warnings.map((warning) => warning.url).sort()).toEqual([
      `${site.origin}/given.xml`,
      `${site.origin}/robots.txt`,
    ]);
  });

  it('stops waiting when the signal aborts the run', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    const run = await seedAbortedWhileWaiting(`${site.origin}/sm.xml`);
    expect(paths(site)).toEqual(['/robots.txt']);
    expect(run.result).toMatchObject({ stoppedEarly: true, sitemapsRead: 0, sitemapsFailed: 1 });
  });
});

describe('a child of an index whose robots.txt is unreachable', () => {
  /** An index on a healthy origin that lists `child`, a sitemap of another origin. */
  async function indexListing(child: string): Promise<string> {
    const host = await server('User-agent: *\nAllow: /\n');
    host.route('/index.xml', serveBody(sitemapIndex([child])));
    return `${host.origin}/index.xml`;
  }

  it('waits like a given sitemap, and is read once robots.txt answers', async () => {
    const site = await server(null);
    recovering(site, 2, 'User-agent: *\nDisallow: /private/\n');
    site.route('/child.xml', serveBody(urlset([`${site.origin}/a`, `${site.origin}/private/b`])));
    const index = await indexListing(`${site.origin}/child.xml`);
    const run = await seedInto(
      [index],
      { unreachableWaitMs: 10_000, sameHostOnly: false },
      { retry: { initialDelayMs: 100, maxDelayMs: 200 } },
    );
    expect(paths(site)).toEqual(['/robots.txt', '/robots.txt', '/robots.txt', '/child.xml']);
    expect(run.urls).toEqual([`${site.origin}/a`]);
    expect(run.result).toMatchObject({ sitemapsRead: 2, sitemapsFailed: 0, failures: [] });
    expect(run.result.warnings.map((warning) => warning.url)).toEqual([`${site.origin}/child.xml`]);
  });

  it('is a failure at the end of the wait, and is never requested', async () => {
    const site = await server(null);
    site.route('/robots.txt', text('down', 503));
    site.route('/child.xml', serveBody(urlset([`${site.origin}/a`])));
    const index = await indexListing(`${site.origin}/child.xml`);
    const started = performance.now();
    const run = await seedInto(
      [index],
      { unreachableWaitMs: 1000, sameHostOnly: false },
      { retry: { initialDelayMs: 300, maxDelayMs: 300 } },
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(paths(site).every((path) => path === '/robots.txt')).toBe(true);
    expect(run.result).toMatchObject({ sitemapsRead: 1, sitemapsFailed: 1, urlsFound: 0 });
    expect(run.result.failures).toEqual([
      { ...refusedAsUnreachable(`${site.origin}/child.xml`), parent: index },
    ]);
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
