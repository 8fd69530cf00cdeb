/**
 * The demo: starts the local demo site (demo/site.ts), seeds a PlaywrightCrawler from the
 * sitemaps its robots.txt files list, crawls it with the RobotsGuard, and prints what was
 * kept, what was dropped by which rule, and what waited for an unreachable robots.txt.
 *
 *   npm start
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Configuration, Dataset, log, PlaywrightCrawler } from 'crawlee';
import { RobotsGuard, RobotsStore } from '../src/index.js';
import { startDemoSite } from './site.js';

const USER_AGENT = 'Mozilla/5.0 (compatible; DemoBot/1.0; +https://example.com/demobot)';
/** Debian's Chromium, or the one CHROMIUM_PATH names; without either, Playwright's own. */
const CHROMIUM = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';

log.setLevel(log.LEVELS.WARNING);
const site = await startDemoSite({ blogDownMs: 3000 });
try {
  // A fresh run: the crawl's own storages are purged by Crawlee, the named one here.
  await (await Dataset.open('robots-dropped')).drop();

  // Short retries, so the blog's 503 robots.txt is retried within the demo's minute.
  const store = new RobotsStore({
    userAgent: USER_AGENT,
    fetchTimeoutMs: 5000,
    retry: { initialDelayMs: 500, maxDelayMs: 1000 },
  });
  const guard = new RobotsGuard({
    productToken: 'DemoBot',
    userAgent: USER_AGENT,
    store,
    unreachable: { giveUpAfterMs: 30_000, maxRecheckDelayMs: 1000 },
    logSummary: false,
  });

  const crawler = new PlaywrightCrawler({
    maxConcurrency: 4,
    requestHandlerTimeoutSecs: 20,
    headless: true,
    launchContext: {
      launchOptions: {
        ...(existsSync(CHROMIUM) ? { executablePath: CHROMIUM } : {}),
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      },
    },
    async requestHandler({ request, page, enqueueLinks, pushData }) {
      // Lets the news page try its script navigation, which it starts once loaded.
      await page.waitForLoadState('networkidle');
      await pushData({ url: request.loadedUrl ?? request.url, title: await page.title() });
      await enqueueLinks({ strategy: 'all' }); // the demo's origins differ only by port
    },
  });
  guard.attach(crawler);

  const seeded = await guard.seedFromSitemaps(crawler, [site.shop, site.news, site.blog]);
  console.log(
    `Sitemaps: ${seeded.sitemapsRead} read, ${seeded.urlsFound} URLs found, ${seeded.kept} queued, ${seeded.droppedByRobots} disallowed by robots.txt, ${seeded.failures.length} failed${
      seeded.failures.length > 0 ? ` (${seeded.failures.map((f) => `${f.url}: ${f.why}`).join('; ')})` : ''
    }`,
  );
  // The shop's home page links to the blog, whose robots.txt is down until seconds later.
  await crawler.run([site.shop]);

  const summary = guard.summary();
  console.log(`\nRobotsGuard for ${summary.productToken}:`);
  for (const origin of summary.origins) {
    const name = origin.origin === site.shop ? 'shop' : origin.origin === site.blog ? 'blog' : 'news';
    console.log(
      `  ${name.padEnd(5)} ${origin.origin}  robots.txt ${String(origin.robotsStatus ?? '-').padEnd(4)} kept ${origin.allowed}, dropped ${origin.dropped}, deferred ${origin.deferred}, given up ${origin.givenUp}, redirect hops stopped ${origin.hopsStopped}`,
    );
    for (const rule of origin.topRules)
      console.log(`        ${rule.drops} dropped by line ${rule.line}: ${rule.kind} ${rule.pattern}`);
  }
  const { totals } = summary;
  console.log(
    `  total: kept ${totals.allowed}, dropped ${totals.dropped}, deferred ${totals.deferred}, given up ${totals.givenUp}, hops stopped ${totals.hopsStopped}`,
  );

  const storage =
    Configuration.getGlobalConfig().get('storageClientOptions')?.localDataDirectory ??
    process.env.CRAWLEE_STORAGE_DIR ??
    'storage';
  const pages = await (await Dataset.open()).getData();
  const dropped = await (await Dataset.open('robots-dropped')).getData();
  console.log(`\n${pages.total} pages crawled: ${join(String(storage), 'datasets', 'default')}`);
  console.log(
    `${dropped.total} dropped requests, one record each: ${join(String(storage), 'datasets', 'robots-dropped')}`,
  );
  if (process.env.DEMO_DEBUG)
    for (const [origin, paths] of site.requests) console.log(origin, paths.join(' '));
  await store.close();
} finally {
  await site.close();
}
