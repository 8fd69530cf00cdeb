/**
 * Sitemap seeding: 1,000,000 URLs (an index of 20 files x 50,000, generated on the fly by a local
 * server, 1 in 100 under a path robots.txt disallows) from sitemap to an in-memory sink:
 *
 * 1. crawlee-robots `SitemapSeeder` (robots.txt checked for every URL, batches of 1000);
 * 2. crawlee 3.18's `Sitemap.load` (collects every URL in an array, no robots.txt);
 * 3. crawlee 3.18's `SitemapRequestList` (streams into a request list, no robots.txt), drained.
 *
 * For each: URLs per second, peak RSS growth over the run, and how many disallowed URLs reached
 * the sink. The server names itself `localhost` so URLs carry a domain, as on the web.
 */
import { Configuration, Sitemap, SitemapRequestList } from 'crawlee';
import { SitemapSeeder } from '../dist/sitemap/index.js';
import { RobotsStore } from '../dist/store/index.js';
import { MILLION, privateCount, routeLargeSet } from '../test/sitemap/support/sitemap-server.js';
import { startHttpServer, text } from '../test/support/http-server.js';
import { captureLog } from '../test/support/log.js';
import {
  collectGarbage,
  fail,
  formatBytes,
  formatRate,
  judge,
  rateRatio,
  sizeRatio,
  Table,
} from './harness.js';

const OURS = 'crawlee-robots';
const TOTAL = MILLION.files * MILLION.urlsPerFile;
const DISALLOWED = privateCount(MILLION);

const TARGET = {
  speedup: 2,
  rssGrowthBytes: 100 * 1024 * 1024,
};

interface Measure {
  library: string;
  urls: number;
  seconds: number;
  peakRssGrowth: number;
  disallowedEnqueued: number;
  note?: string;
}

/** Runs `body` while sampling RSS every 10 ms; returns the peak growth over the RSS at the start. */
async function withPeakRss<T>(
  body: (sample: () => void) => Promise<T>,
): Promise<{ value: T; growth: number }> {
  collectGarbage();
  const start = process.memoryUsage.rss();
  let peak = start;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, 10);
  try {
    const value = await body(sample);
    sample();
    return { value, growth: peak - start };
  } finally {
    clearInterval(timer);
  }
}

async function measureOurs(indexUrl: string): Promise<Measure> {
  const { log } = captureLog();
  const store = new RobotsStore({ userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)', log });
  const seeder = new SitemapSeeder({ store, log });
  let urls = 0;
  let disallowedEnqueued = 0;
  const started = performance.now();
  const { growth } = await withPeakRss(async (sample) => {
    const result = await seeder.seed([indexUrl], {
      enqueue: async (batch) => {
        for (const request of batch) if (request.url.includes('/private/')) disallowedEnqueued++;
        sample();
      },
      progressIntervalMs: 0,
    });
    // Every URL read counts, the disallowed ones too: each went through parse, filters and check.
    urls = result.urlsFound;
    if (result.urlsFound !== TOTAL || result.droppedByRobots !== DISALLOWED) {
      fail(`SitemapSeeder found ${result.urlsFound} URLs and dropped ${result.droppedByRobots}`);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return { library: OURS, urls, seconds, peakRssGrowth: growth, disallowedEnqueued };
}

async function measureSitemapLoad(indexUrl: string): Promise<Measure> {
  const started = performance.now();
  const { value: sitemap, growth } = await withPeakRss(() => Sitemap.load(indexUrl));
  const seconds = (performance.now() - started) / 1000;
  const disallowedEnqueued = sitemap.urls.filter((url) => url.includes('/private/')).length;
  return {
    library: 'crawlee Sitemap.load',
    urls: sitemap.urls.length,
    seconds,
    peakRssGrowth: growth,
    disallowedEnqueued,
  };
}

async function measureRequestList(indexUrl: string, budgetMs: number): Promise<Measure> {
  let urls = 0;
  let disallowedEnqueued = 0;
  let note: string | undefined;
  const started = performance.now();
  const { growth } = await withPeakRss(async () => {
    const list = await SitemapRequestList.open({
      sitemapUrls: [indexUrl],
      persistenceOptions: { enable: false },
      config: new Configuration({ persistStorage: false }),
    });
    for (;;) {
      const request = await list.fetchNextRequest();
      if (request === null) {
        if (await list.isFinished()) break;
        continue;
      }
      urls++;
      if (request.url.includes('/private/')) disallowedEnqueued++;
      await list.markRequestHandled(request);
      if (performance.now() - started > budgetMs) {
        note = `stopped after ${(budgetMs / 1000).toFixed(0)} s`;
        list.teardown?.();
        break;
      }
    }
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    library: 'crawlee SitemapRequestList',
    urls,
    seconds,
    peakRssGrowth: growth,
    disallowedEnqueued,
    note,
  };
}

export async function run(): Promise<void> {
  const server = await startHttpServer();
  server.route('/robots.txt', text('User-agent: *\nDisallow: /private/\n'));
  const indexUrl = routeLargeSet(server, MILLION, `http://localhost:${server.port}`);
  try {
    // Ours first, so the baselines' retained heaps cannot hide our growth.
    const ours = await measureOurs(indexUrl);
    const load = await measureSitemapLoad(indexUrl);
    const list = await measureRequestList(indexUrl, 120_000);
    const table = new Table(
      `Sitemap to sink, ${TOTAL.toLocaleString('en-US')} URLs (${DISALLOWED.toLocaleString('en-US')} disallowed)`,
      ['library', 'metric', 'value', 'ratio (crawlee-robots vs crawlee Sitemap.load)', 'target', 'result'],
    );
    const rate = (m: Measure) => m.urls / m.seconds;
    for (const m of [ours, load, list]) {
      const isOurs = m === ours;
      table.cells([
        m.library,
        'URLs/s',
        `${formatRate(rate(m))} (${m.urls.toLocaleString('en-US')} URLs in ${m.seconds.toFixed(1)} s${m.note ? `, ${m.note}` : ''})`,
        isOurs
          ? rateRatio(rate(ours), rate(load))
          : m === list
            ? `ours ${rateRatio(rate(ours), rate(list))}`
            : '',
        isOurs ? `>= ${TARGET.speedup}x crawlee` : '',
        isOurs
          ? judge(
              rate(ours) >= TARGET.speedup * Math.max(rate(load), rate(list)),
              `sitemap URLs/s ${TARGET.speedup}x crawlee`,
            )
          : '',
      ]);
    }
    table.divider();
    for (const m of [ours, load, list]) {
      const isOurs = m === ours;
      table.cells([
        m.library,
        'peak RSS growth',
        formatBytes(m.peakRssGrowth),
        isOurs ? sizeRatio(ours.peakRssGrowth, load.peakRssGrowth) : '',
        isOurs ? '<= 100 MiB' : '',
        isOurs
          ? judge(ours.peakRssGrowth <= TARGET.rssGrowthBytes, 'sitemap peak RSS growth <= 100 MiB')
          : '',
      ]);
    }
    table.divider();
    for (const m of [ours, load, list]) {
      const isOurs = m === ours;
      table.cells([
        m.library,
        'disallowed URLs enqueued',
        m.disallowedEnqueued.toLocaleString('en-US'),
        '',
        isOurs ? '0' : '',
        isOurs ? judge(ours.disallowedEnqueued === 0, 'zero disallowed sitemap URLs enqueued') : '',
      ]);
    }
    table.print();
    if (ours.disallowedEnqueued > 0)
      fail(`SitemapSeeder enqueued ${ours.disallowedEnqueued} disallowed URLs`);
  } finally {
    await server.close();
  }
}

// Run on its own: node --expose-gc --import tsx bench/sitemap.bench.ts
if (import.meta.url === `file://${process.argv[1]}`) await run();
