/**
 * A crawl to be killed: a CheerioCrawler with the guard over the site at argv[2], its storage
 * on disk at CRAWLEE_STORAGE_DIR, writing `handled <url>` on stdout as each page's handler
 * ends. Run by test/crawlee/killed-crawl.test.ts: `node --import tsx test/support/killed-crawl.ts <origin>`.
 */
import { CheerioCrawler, LogLevel, log } from 'crawlee';
import { RobotsGuard } from '../../src/crawlee/index.js';

log.setLevel(LogLevel.OFF);
const origin = process.argv[2];
const crawler = new CheerioCrawler({
  maxConcurrency: 2,
  async requestHandler({ request, enqueueLinks }) {
    await enqueueLinks({ strategy: 'same-origin' });
    process.stdout.write(`handled ${request.url}\n`);
  },
});
new RobotsGuard({
  productToken: 'ExampleBot',
  userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)',
  logSummary: false,
}).attach(crawler);
await crawler.run([`${origin}/d/0`]);
