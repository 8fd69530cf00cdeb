import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { MILLION, privateCount, routeLargeSet } from './support/sitemap-server.js';

let server: TestHttpServer;
let indexUrl: string;

beforeAll(async () => {
  server = await startHttpServer();
  server.route('/robots.txt', text('User-agent: *\nDisallow: /private/\n'));
  indexUrl = routeLargeSet(server, MILLION);
});
afterAll(() => server.close());

const run = promisify(execFile);

/** The seeding process's heap limit: far below what a million URLs held in memory take. */
const HEAP_LIMIT_MB = 96;

it('streams 1,000,000 URLs (20 files x 50,000 behind an index) in a process capped at 96 MB of heap', async () => {
  const child = join(dirname(fileURLToPath(import.meta.url)), 'support', 'million-child.ts');
  const { stdout } = await run(
    process.execPath,
    [`--max-old-space-size=${HEAP_LIMIT_MB}`, '--import', 'tsx', child, indexUrl],
    { timeout: 55_000, maxBuffer: 1024 * 1024 },
  );
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
  console.log(`1M URLs with a ${HEAP_LIMIT_MB} MB heap: peak RSS ${report.peakRssMb.toFixed(1)} MB`);
  expect(report.counts).toMatchObject({
    sitemapsRead: 21,
    sitemapsFailed: 0,
    urlsFound: 1_000_000,
    kept: 1_000_000 - privateCount(MILLION),
    droppedByRobots: privateCount(MILLION),
    filtered: 0,
  });
  expect(report.enqueued).toBe(1_000_000 - privateCount(MILLION));
  expect(report.dropped).toBe(privateCount(MILLION));
  expect(report.disallowedEnqueued).toBe(0);
}, 60_000);
