/**
 * Seeds from a sitemap index in a process of its own, whose heap is capped by the parent
 * (`--max-old-space-size`): if the seeder held the URLs it reads, this process would run
 * out of memory instead of printing its counts.
 */
import { SitemapSeeder } from '../../../src/sitemap/index.js';
import { RobotsStore } from '../../../src/store/index.js';
import { captureLog } from '../../support/log.js';

const [indexUrl] = process.argv.slice(2);
const { log } = captureLog();
const store = new RobotsStore({ userAgent: 'ExampleBot/1.0', log });
const seeder = new SitemapSeeder({ store, log });
let enqueued = 0;
let disallowedEnqueued = 0;
let dropped = 0;
let peak = 0;
const result = await seeder.seed([indexUrl], {
  enqueue: async (batch) => {
    enqueued += batch.length;
    for (const request of batch) if (request.url.includes('/private/')) disallowedEnqueued++;
    peak = Math.max(peak, process.memoryUsage.rss());
  },
  onDropped: () => {
    dropped++;
  },
  progressIntervalMs: 0,
});
await store.close();
const { warnings, failures, ...counts } = result;
console.log(
  JSON.stringify({
    counts,
    failures: failures.length,
    enqueued,
    disallowedEnqueued,
    dropped,
    peakRssMb: peak / 1024 / 1024,
  }),
);
