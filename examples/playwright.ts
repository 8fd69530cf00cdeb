/**
 * A polite PlaywrightCrawler (Chromium): robots.txt is checked for every URL, every redirect hop
 * and every navigation the page starts, before the browser sends it.
 *
 *   npx tsx examples/playwright.ts https://example.com/
 *
 * Set CHROMIUM_PATH to use a system Chromium (e.g. /usr/bin/chromium).
 */
import { createPlaywrightRouter, PlaywrightCrawler } from 'crawlee';
import { RobotsGuard } from '../src/crawlee/index.js';

const start = process.argv[2];
if (start === undefined || !/^https?:\/\/[^/]/i.test(start) || !URL.canParse(start)) {
  console.error(
    `usage: npx tsx examples/playwright.ts <start URL>${start === undefined ? '' : ` (an http(s) URL, got ${JSON.stringify(start)})`}`,
  );
  process.exit(2);
}

const guard = new RobotsGuard({
  productToken: 'ExampleBot',
  userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)',
});

const router = createPlaywrightRouter();
// Keeps the handlers away from a page whose final URL is disallowed.
router.use(guard.middleware());
router.addDefaultHandler(async ({ request, page, enqueueLinks, log }) => {
  log.info(`${request.loadedUrl}: ${await page.title()}`);
  await enqueueLinks({ strategy: 'same-hostname' });
});

const crawler = new PlaywrightCrawler({
  maxRequestsPerCrawl: 20,
  launchContext: {
    launchOptions: { headless: true, executablePath: process.env['CHROMIUM_PATH'] },
  },
  requestHandler: router,
});
guard.attach(crawler);

await crawler.run([start]);
console.log(JSON.stringify(guard.summary(), null, 2));
