/**
 * A polite CheerioCrawler: crawls one site (same hostname) and obeys its robots.txt.
 *
 *   npx tsx examples/cheerio.ts https://example.com/
 *
 * Skipped URLs land in the Dataset `robots-dropped` (./storage/datasets/robots-dropped).
 */
import { CheerioCrawler } from 'crawlee';
import { RobotsGuard } from '../src/crawlee/index.js';

const start = process.argv[2];
if (start === undefined || !/^https?:\/\/[^/]/i.test(start) || !URL.canParse(start)) {
  console.error(
    `usage: npx tsx examples/cheerio.ts <start URL>${start === undefined ? '' : ` (an http(s) URL, got ${JSON.stringify(start)})`}`,
  );
  process.exit(2);
}

const guard = new RobotsGuard({
  productToken: 'ExampleBot',
  userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)',
});

const crawler = new CheerioCrawler({
  maxRequestsPerCrawl: 50,
  async requestHandler({ request, $, enqueueLinks, log }) {
    log.info(`${request.loadedUrl}: ${$('title').text().trim()}`);
    await enqueueLinks({ strategy: 'same-hostname' });
  },
});
guard.attach(crawler);

await crawler.run([start]);
console.log(JSON.stringify(guard.summary(), null, 2));
