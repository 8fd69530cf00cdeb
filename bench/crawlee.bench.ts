/**
 * CheerioCrawler over a local multi-origin site, three ways in one run: without any robots.txt
 * check, with RobotsGuard, and with crawlee's own `respectRobotsTxtFile`, in rounds of the three
 * (order varied), the median and range over the rounds reported. Pages/s of the guard count only
 * the pages it let through (the disallowed ones are work it rightly did not do).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheerioCrawler, Configuration, LogLevel, log } from 'crawlee';
import { RobotsGuard } from '../dist/crawlee/index.js';
import { RobotsStore } from '../dist/store/index.js';
import { judge, median, Table } from './harness.js';

const ORIGINS = 20;
const PAGES_PER_ORIGIN = 100;
/** One URL in ten is under /private, which robots.txt disallows. */
const PRIVATE_EVERY = 10;
const CONCURRENCY = 50;
const USER_AGENT = 'Mozilla/5.0 (compatible; BenchBot/1.0)';
const TARGET = { guardVersusNone: 0.95, guardVersusBuiltin: 1 };

interface Origin {
  origin: string;
  robotsRequests: number;
  server: Server;
}

async function startOrigin(): Promise<Origin> {
  const state = { robotsRequests: 0 };
  const body = (title: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><p>${title}</p></body></html>`;
  const server = createServer((request, response) => {
    if (request.url === '/robots.txt') {
      state.robotsRequests++;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body(request.url ?? '/'));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    get robotsRequests() {
      return state.robotsRequests;
    },
  };
}

function urlsOf(origins: Origin[]): string[] {
  const urls: string[] = [];
  for (let i = 0; i < PAGES_PER_ORIGIN; i++) {
    for (const { origin } of origins) {
      urls.push(i % PRIVATE_EVERY === 0 ? `${origin}/private/${i}` : `${origin}/p/${i}`);
    }
  }
  return urls;
}

type Mode = 'none' | 'guard' | 'builtin';

const MODES: readonly Mode[] = ['none', 'guard', 'builtin'];
const WARM_UP_URLS = 400;
/**
 * Rounds of the three crawls: at least enough for each crawl to run in each position twice
 * (single rounds on this kind of machine differ by 20% and more).
 */
const MIN_ROUNDS = 6;
const MAX_ROUNDS = 8;
/** No round starts that would end, at the pace of the slowest so far, after this many seconds of the suite. */
const BUDGET_SECONDS = 170;

interface CrawlResult {
  pages: number;
  seconds: number;
  /** Process CPU time (crawler and local servers alike) per page fetched, in ms. */
  cpuMsPerPage: number;
  /** From `crawler.run()` to the first page handled, in ms. */
  firstPageMs: number;
  robotsRequests: number[];
}

async function crawl(mode: Mode, urls: string[], origins: Origin[]): Promise<CrawlResult> {
  const before = origins.map((o) => o.robotsRequests);
  let pages = 0;
  let firstPageAt = Number.NaN;
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: CONCURRENCY,
      minConcurrency: CONCURRENCY,
      maxRequestRetries: 0,
      ...(mode === 'builtin' ? { respectRobotsTxtFile: { userAgent: USER_AGENT } } : {}),
      requestHandler({ $ }) {
        if ($('title').text() === '') return;
        if (pages++ === 0) firstPageAt = performance.now();
      },
    },
    new Configuration({ persistStorage: false }),
  );
  let store: RobotsStore | undefined;
  if (mode === 'guard') {
    store = new RobotsStore({ userAgent: USER_AGENT });
    new RobotsGuard({ productToken: 'BenchBot', userAgent: USER_AGENT, store, logSummary: false }).attach(
      crawler,
    );
  }
  // Each crawl starts from the same state: no keep-alive connection of the previous one, no garbage.
  for (const o of origins) o.server.closeIdleConnections();
  await new Promise((resolve) => setTimeout(resolve, 100));
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await crawler.run(urls);
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  await store?.close();
  return {
    pages,
    seconds,
    cpuMsPerPage: (user + system) / 1000 / pages,
    firstPageMs: firstPageAt - started,
    robotsRequests: origins.map((o, i) => o.robotsRequests - before[i]),
  };
}

const rate = (r: CrawlResult) => r.pages / r.seconds;

/** The crawls of round `round`: rotated by one each round, reversed in odd rounds. */
function orderOfRound(round: number): Mode[] {
  const order = MODES.map((_, k) => MODES[(round + k) % MODES.length]);
  return round % 2 === 1 ? order.reverse() : order;
}

/** Pages fetched per crawl: one number when every round fetched the same. */
function pagesOf(rs: readonly CrawlResult[]): string {
  const pages = rs.map((r) => r.pages);
  return new Set(pages).size === 1 ? String(pages[0]) : spread(pages, 0);
}

/** `median (min-max)` of a list. */
function spread(xs: readonly number[], digits: number): string {
  const low = Math.min(...xs).toFixed(digits);
  const high = Math.max(...xs).toFixed(digits);
  return `${median(xs).toFixed(digits)} (${low}-${high})`;
}

export async function run(): Promise<void> {
  const level = log.getLevel();
  log.setLevel(LogLevel.OFF);
  const suiteStart = performance.now();
  const origins = await Promise.all(Array.from({ length: ORIGINS }, () => startOrigin()));
  try {
    const urls = urlsOf(origins);
    // A first, shorter crawl of each kind warms up the JIT, sockets and lazy imports of every
    // code path measured; it is not reported.
    for (const mode of MODES) await crawl(mode, urls.slice(0, WARM_UP_URLS), origins);
    // Rounds of the three crawls. A crawl can leave work to the next one and load from elsewhere
    // comes and goes, so the order changes each round (rotated, and reversed every other round,
    // so that no crawl always follows the same one), each ratio is taken between crawls of the
    // same round, and the median over the rounds is reported, with the range.
    const results = new Map<Mode, CrawlResult[]>(MODES.map((mode) => [mode, []]));
    let rounds = 0;
    let longestRound = 0;
    while (rounds < MAX_ROUNDS) {
      const elapsed = (performance.now() - suiteStart) / 1000;
      if (rounds >= MIN_ROUNDS && elapsed + longestRound > BUDGET_SECONDS) break;
      const roundStart = performance.now();
      for (const mode of orderOfRound(rounds)) results.get(mode)!.push(await crawl(mode, urls, origins));
      longestRound = Math.max(longestRound, (performance.now() - roundStart) / 1000);
      rounds++;
    }
    const none = results.get('none')!;
    const guard = results.get('guard')!;
    const builtin = results.get('builtin')!;
    const versusNone = guard.map((g, i) => rate(g) / rate(none[i]));
    const versusBuiltin = guard.map((g, i) => rate(g) / rate(builtin[i]));

    const table = new Table(
      `Crawlee plugin: CheerioCrawler, ${urls.length} URLs of ${ORIGINS} origins (1 in ${PRIVATE_EVERY} disallowed), concurrency ${CONCURRENCY}, ${rounds} rounds in varied order, median (min-max)`,
      [
        'crawl',
        'pages fetched',
        'pages/s',
        'CPU ms/page',
        'first page, ms',
        'guard pages/s vs this, per round',
        'robots.txt requests per origin',
        'target',
        'result',
      ],
    );
    const robots = (rs: CrawlResult[]) => {
      const counts = rs.flatMap((r) => r.robotsRequests);
      return counts.every((n) => n === 0) ? '-' : `min ${Math.min(...counts)}, max ${Math.max(...counts)}`;
    };
    const row = (name: string, rs: CrawlResult[], ratio: string, target: string, result: string) =>
      table.cells([
        name,
        pagesOf(rs),
        spread(rs.map(rate), 0),
        spread(
          rs.map((r) => r.cpuMsPerPage),
          2,
        ),
        spread(
          rs.map((r) => r.firstPageMs),
          0,
        ),
        ratio,
        robots(rs),
        target,
        result,
      ]);
    const percent = (xs: number[]) =>
      `${(median(xs) * 100).toFixed(1)}% (${(Math.min(...xs) * 100).toFixed(1)}-${(Math.max(...xs) * 100).toFixed(1)}%)`;
    row(
      'no robots.txt check',
      none,
      percent(versusNone),
      `guard >= ${TARGET.guardVersusNone * 100}%`,
      judge(median(versusNone) >= TARGET.guardVersusNone, 'crawlee: guard pages/s vs no robots check'),
    );
    row(
      'RobotsGuard (allowed pages only)',
      guard,
      '',
      'robots.txt once per origin',
      judge(
        guard.every((r) => r.robotsRequests.every((n) => n === 1)),
        'crawlee: guard fetches each robots.txt once',
      ),
    );
    row(
      'crawlee respectRobotsTxtFile',
      builtin,
      percent(versusBuiltin),
      'guard no slower',
      judge(median(versusBuiltin) >= TARGET.guardVersusBuiltin, 'crawlee: guard pages/s vs built-in check'),
    );
    table.print();
    console.log(
      '\nCPU ms/page is the process CPU time (crawler and the local servers) per page fetched. Ratios compare the crawls of one round.',
    );
  } finally {
    log.setLevel(level);
    await Promise.all(
      origins.map(
        (o) =>
          new Promise<void>((resolve) => {
            o.server.closeAllConnections();
            o.server.close(() => resolve());
          }),
      ),
    );
  }
}
