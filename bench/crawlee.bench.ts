/**
 * CheerioCrawler over a local multi-origin site, three ways in one run: without any robots.txt
 * check, with RobotsGuard, and with crawlee's own `respectRobotsTxtFile`, in rounds of the three
 * (order varied), the median and range over the rounds reported. Pages/s of the guard count only
 * the pages it let through (the disallowed ones are work it rightly did not do).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CheerioCrawler, Configuration, LogLevel, log } from 'crawlee';
import { RobotsGuard } from '../dist/crawlee/index.js';
import { RobotsStore } from '../dist/store/index.js';
import type { SiteReply, SiteRequest } from './crawlee-site.js';
import { judge, median, Table } from './harness.js';

const ORIGINS = 20;
const PAGES_PER_ORIGIN = 200;
/** One URL in ten is under /private, which robots.txt disallows. */
const PRIVATE_EVERY = 10;
const CONCURRENCY = 50;
const USER_AGENT = 'Mozilla/5.0 (compatible; BenchBot/1.0)';
const TARGET = { guardVersusNone: 0.95, guardVersusBuiltin: 1 };

/** The local site, served by a child process (see crawlee-site.ts). */
class Site {
  readonly #child: ChildProcess;
  origins: string[] = [];

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  static async start(origins: number): Promise<Site> {
    // The child inherits `--import tsx` from this process's options.
    const site = new Site(fork(fileURLToPath(new URL('./crawlee-site.ts', import.meta.url))));
    const reply = await site.#ask({ type: 'start', origins });
    if (reply.type === 'start') site.origins = reply.origins;
    return site;
  }

  /** robots.txt requests so far, by origin. */
  async robotsRequests(): Promise<number[]> {
    const reply = await this.#ask({ type: 'counts' });
    return reply.type === 'counts' ? reply.robotsRequests : [];
  }

  async closeIdleConnections(): Promise<void> {
    await this.#ask({ type: 'close-idle' });
  }

  stop(): void {
    this.#child.send({ type: 'stop' } satisfies SiteRequest);
  }

  #ask(message: SiteRequest): Promise<SiteReply> {
    return new Promise((resolve, reject) => {
      const onMessage = (reply: SiteReply) => {
        if (reply.type !== message.type) return;
        this.#child.off('message', onMessage);
        this.#child.off('exit', onExit);
        resolve(reply);
      };
      const onExit = (code: number | null) => reject(new Error(`the bench site exited (${code})`));
      this.#child.on('message', onMessage);
      this.#child.once('exit', onExit);
      this.#child.send(message);
    });
  }
}

function urlsOf(origins: readonly string[]): string[] {
  const urls: string[] = [];
  for (let i = 0; i < PAGES_PER_ORIGIN; i++) {
    for (const origin of origins) {
      urls.push(i % PRIVATE_EVERY === 0 ? `${origin}/private/${i}` : `${origin}/p/${i}`);
    }
  }
  return urls;
}

type Mode = 'none' | 'guard' | 'builtin';

const MODES: readonly Mode[] = ['none', 'guard', 'builtin'];
const WARM_UP_URLS = 400;
/**
 * Rounds of the three crawls: each crawl runs in each position at least four times. Single
 * rounds on this kind of machine differ by 20-50%; over 6-8 rounds the median ratio still moved
 * by 5-10 points from one run to the next, and the spread of a median shrinks only with the
 * square root of the rounds.
 */
const MIN_ROUNDS = 12;
const MAX_ROUNDS = 16;
/** No round starts that would end, at the pace of the slowest so far, after this many seconds of the suite. */
const BUDGET_SECONDS = 520;

interface CrawlResult {
  pages: number;
  seconds: number;
  /** CPU time of the crawler's process per page fetched, in ms (the site runs in another). */
  cpuMsPerPage: number;
  /** From `crawler.run()` to the first page handled, in ms. */
  firstPageMs: number;
  robotsRequests: number[];
}

/** Sets the bench's User-Agent on a request, as the guard does. */
function sendUserAgent(_context: unknown, gotOptions: { headers?: Record<string, unknown> }): void {
  gotOptions.headers = { ...gotOptions.headers, 'user-agent': USER_AGENT };
}

async function crawl(mode: Mode, urls: string[], site: Site): Promise<CrawlResult> {
  const before = await site.robotsRequests();
  let pages = 0;
  let firstPageAt = Number.NaN;
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: CONCURRENCY,
      minConcurrency: CONCURRENCY,
      maxRequestRetries: 0,
      ...(mode === 'builtin' ? { respectRobotsTxtFile: { userAgent: USER_AGENT } } : {}),
      // Every crawl sends the same User-Agent, as a crawler that names itself does; the guard
      // sets it on each request from its `userAgent` option, the others get it here.
      ...(mode === 'guard' ? {} : { preNavigationHooks: [sendUserAgent] }),
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
  await site.closeIdleConnections();
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
    robotsRequests: (await site.robotsRequests()).map((n, i) => n - before[i]),
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
  const site = await Site.start(ORIGINS);
  try {
    const urls = urlsOf(site.origins);
    // A first, shorter crawl of each kind warms up the JIT, sockets and lazy imports of every
    // code path measured; it is not reported.
    for (const mode of MODES) await crawl(mode, urls.slice(0, WARM_UP_URLS), site);
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
      for (const mode of orderOfRound(rounds)) results.get(mode)!.push(await crawl(mode, urls, site));
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
      '\nCPU ms/page is the CPU time of the crawler process per page fetched (the local site runs in a child process). Ratios compare the crawls of one round.',
    );
  } finally {
    log.setLevel(level);
    site.stop();
  }
}
