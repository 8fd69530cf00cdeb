import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, Dataset } from 'crawlee';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { RobotsStore } from '../../src/store/index.js';
import { type Arrival, startArrivalClock } from './arrival-clock.js';
import {
  never,
  redirect,
  startHttpServer,
  type TestHttpServer,
  type TestRouteHandler,
  text,
} from './http-server.js';

/** The product token of the test crawler and the User-Agent that carries it. */
export const TOKEN = 'ExampleBot';
export const USER_AGENT = 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)';

/** An HTML page linking to `links`. */
export function page(title: string, links: string[] = [], extra = ''): TestRouteHandler {
  const body = `<!doctype html><html><head><title>${title}</title>${extra}</head><body>${links
    .map((href) => `<a href="${href}">${href}</a>`)
    .join('\n')}</body></html>`;
  return (_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  };
}

/** robots.txt answering `failures` times with 500, then with `body`. */
export function recoveringRobots(failures: number, body: string): TestRouteHandler {
  let served = 0;
  return (request, response) => {
    served++;
    if (served <= failures) return text('<html>down</html>', 500)(request, response);
    return text(body)(request, response);
  };
}

/** robots.txt of the main origin: a group for the product token and a `*` group that disallows everything. */
export const MAIN_ROBOTS = [
  'User-agent: *', // line 1
  'Disallow: /', // line 2
  '', // line 3
  'User-agent: ExampleBot', // line 4
  'Allow: /private/open', // line 5
  'Disallow: /private', // line 6
  '',
].join('\n');

/**
 * The local multi-origin site of the plugin tests: every origin is a server on its own loopback
 * port. `main` links to all the others.
 */
export interface TestSite {
  /** Groups for ExampleBot and for `*`, redirects into disallowed paths. */
  main: TestHttpServer;
  /** `Disallow: /secret` for everyone; a redirect target. */
  other: TestHttpServer;
  /** robots.txt 404: allow all. */
  notFound: TestHttpServer;
  /** robots.txt 403: allow all (RFC 9309 2.3.1.3). */
  forbidden: TestHttpServer;
  /** robots.txt 500 twice, then a file: deferred, then crawled. */
  flaky: TestHttpServer;
  /** robots.txt 429, always: deferred, then given up. */
  tooMany: TestHttpServer;
  /** robots.txt never answers: deferred, then given up. */
  silent: TestHttpServer;
  /** `Crawl-delay: 1` for ExampleBot, reached through a relay that notes when each request came. */
  paced: TimedServer;
  all: TestHttpServer[];
  close(): Promise<void>;
}

/** A server reached through a relay that notes when each request came: its origin is the relay's. */
export interface TimedServer extends TestHttpServer {
  /** Each request for one of `paths`, in the order they came, with when (milliseconds of the relay's clock). */
  arrivals(paths: string[]): Promise<Arrival[]>;
}

export async function startTestSite(): Promise<TestSite> {
  const [main, other, notFound, forbidden, flaky, tooMany, silent, pacedServer] = await Promise.all(
    Array.from({ length: 8 }, () => startHttpServer()),
  );
  const paced = await timedServer(pacedServer);
  main.route('/robots.txt', text(MAIN_ROBOTS));
  main.route(
    '/',
    page('home', [
      '/a',
      '/private/x',
      '/private/open',
      '/redirect-same',
      '/redirect-other',
      '/redirect-chain',
      `${other.origin}/public`,
      `${other.origin}/secret`,
      `${notFound.origin}/p`,
      `${forbidden.origin}/p`,
      `${flaky.origin}/d1`,
      `${flaky.origin}/d2`,
      `${tooMany.origin}/t1`,
      `${silent.origin}/s1`,
      `${paced.origin}/g1`,
      `${paced.origin}/g2`,
      `${paced.origin}/g3`,
    ]),
  );
  for (const path of ['/a', '/private/x', '/private/y', '/private/open', '/hop'])
    main.route(path, page(path));
  // A script moves the address bar to a disallowed path; nothing is fetched there.
  main.route('/pushes', page('pushes', [], `<script>history.pushState({}, '', '/private/pushed');</script>`));
  main.route('/redirect-same', redirect('/private/y', 301));
  main.route('/redirect-other', redirect(`${other.origin}/secret`, 302));
  main.route('/redirect-chain', redirect('/hop-1', 301));
  main.route('/hop-1', redirect(`${other.origin}/secret`, 307));

  other.route('/robots.txt', text('User-agent: *\nDisallow: /secret\n'));
  other.route('/public', page('public'));
  other.route('/secret', page('secret'));

  notFound.route('/p', page('p'));
  forbidden.route('/robots.txt', text('forbidden', 403));
  forbidden.route('/p', page('p'));

  flaky.route('/robots.txt', recoveringRobots(2, 'User-agent: *\nDisallow: /never\n'));
  flaky.route('/d1', page('d1'));
  flaky.route('/d2', page('d2'));

  tooMany.route('/robots.txt', text('slow down', 429));
  tooMany.route('/t1', page('t1'));

  silent.route('/robots.txt', never());
  silent.route('/s1', page('s1'));

  paced.route('/robots.txt', text('User-agent: ExampleBot\nCrawl-delay: 1\nDisallow: /nothing\n'));
  for (const path of ['/g1', '/g2', '/g3']) paced.route(path, page(path));

  const all = [main, other, notFound, forbidden, flaky, tooMany, silent, paced];
  return {
    main,
    other,
    notFound,
    forbidden,
    flaky,
    tooMany,
    silent,
    paced,
    all,
    close: async () => {
      await Promise.all(all.map((server) => server.close()));
    },
  };
}

/** `server` behind a relay that notes when each request came (see arrival-clock.ts); closing closes both. */
export async function timedServer(server: TestHttpServer): Promise<TimedServer> {
  const clock = await startArrivalClock(server.port);
  return {
    ...server,
    origin: clock.origin,
    port: clock.port,
    arrivals: async (paths) => {
      const wanted = new Set(paths);
      return (await clock.arrivals()).filter((arrival) => wanted.has(arrival.path));
    },
    close: async () => {
      await Promise.all([clock.close(), server.close()]);
    },
  };
}

/** Serves a page at each of `paths` on `server`. */
export function servePages(server: TestHttpServer, paths: string[]): void {
  for (const path of paths) server.route(path, page(path));
}

/** The time between each two successive `arrivals`, in milliseconds. */
export function gapsOf(arrivals: Arrival[]): number[] {
  return arrivals.slice(1).map((arrival, i) => arrival.at - arrivals[i].at);
}

/** Paths a server received, robots.txt left out, sorted (the browser's icon requests are in: none may go out). */
export function pagesHit(server: TestHttpServer): string[] {
  return server.requests
    .map((request) => request.path)
    .filter((path) => path !== '/robots.txt')
    .sort();
}

/**
 * What a crawl of the whole site from `main`'s home page (every link followed, the guard attached)
 * must have requested of each server: the allowed pages once, nothing disallowed, nothing of an
 * origin whose robots.txt stays unreachable. A page fetched twice (a retry, a deferral) fails
 * here, before the assertions that would say why, so the message carries the robots.txt fetches
 * of each server and what `context` says of the run.
 */
export function expectWholeSiteHit(site: TestSite, context: () => unknown = () => null): void {
  const { main, other, notFound, forbidden, flaky, tooMany, silent, paced } = site;
  const why = JSON.stringify({
    robotsTxtFetches: site.all.map((server) => server.hits('/robots.txt')),
    run: context(),
  });
  expect(pagesHit(main), why).toEqual([
    '/',
    '/a',
    '/hop-1',
    '/private/open',
    '/redirect-chain',
    '/redirect-other',
    '/redirect-same',
  ]);
  expect(pagesHit(other), why).toEqual(['/public']);
  expect(pagesHit(notFound), why).toEqual(['/p']);
  expect(pagesHit(forbidden), why).toEqual(['/p']);
  expect(pagesHit(flaky), why).toEqual(['/d1', '/d2']);
  expect(pagesHit(tooMany), why).toEqual([]);
  expect(pagesHit(silent), why).toEqual([]);
  expect(pagesHit(paced), why).toEqual(['/g1', '/g2', '/g3']);
}

/** A Crawlee configuration whose storages live in memory only: a fresh, isolated storage per test. */
export function freshConfiguration(): Configuration {
  return new Configuration({ persistStorage: false, purgeOnStart: true });
}

/** The records of a named Dataset of a configuration. */
export async function datasetItems<T>(config: Configuration, name = 'robots-dropped'): Promise<T[]> {
  const dataset = await Dataset.open(name, { config });
  return (await dataset.getData()).items as T[];
}

/**
 * Points Crawlee's default storage directory to a temporary one for the duration of the
 * calling test file, so nothing is written to the project's `./storage`.
 */
export function useTemporaryStorageDir(): void {
  let dir: string;
  let previous: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crawlee-robots-storage-'));
    previous = process.env['CRAWLEE_STORAGE_DIR'];
    process.env['CRAWLEE_STORAGE_DIR'] = dir;
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env['CRAWLEE_STORAGE_DIR'];
    else process.env['CRAWLEE_STORAGE_DIR'] = previous;
    await rm(dir, { recursive: true, force: true });
  });
}

/**
 * A fresh test site and store for every test of the calling file, closed after it. Read them
 * through the returned object (`env.site`, `env.store`) inside tests.
 */
export function useTestSite(): { readonly site: TestSite; readonly store: RobotsStore } {
  const env = {} as { site: TestSite; store: RobotsStore };
  beforeEach(async () => {
    env.site = await startTestSite();
    env.store = quickStore();
  });
  afterEach(async () => {
    await env.store.close();
    await env.site.close();
  });
  return env;
}

/**
 * A store for the test crawler with short fetch timeouts and backoff: nothing in these tests
 * waits on a real outage. A second for an answer from loopback: on a loaded 2-core machine a
 * robots.txt took over 400 ms now and then, was counted as an outage, and was fetched again.
 */
export function quickStore(): RobotsStore {
  return new RobotsStore({
    userAgent: USER_AGENT,
    fetchTimeoutMs: 1000,
    connectTimeoutMs: 400,
    retry: { initialDelayMs: 200, maxDelayMs: 400 },
  });
}
