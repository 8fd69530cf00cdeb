import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, Configuration, LogLevel, log, MemoryStorage } from 'crawlee';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RobotsGuard } from '../../src/crawlee/index.js';
import { formatSummary } from '../../src/crawlee/summary.js';
import { RobotsStore } from '../../src/store/index.js';
import { page, pagesHit, TOKEN, USER_AGENT } from '../support/crawlee-site.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

log.setLevel(LogLevel.OFF);

let dir: string;
let site: TestHttpServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crawlee-robots-unwritable-'));
  site = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /private/\n') });
  for (const path of ['/a', '/private/b', '/private/c']) site.route(path, page(path));
});
afterEach(async () => {
  await site.close();
  await rm(dir, { recursive: true, force: true });
});

describe('RobotsGuard when the Dataset of records cannot be written', () => {
  it('logs the URLs that have no record, and its summary counts them', async () => {
    // A file where the Dataset's directory goes: every write of it fails.
    await mkdir(join(dir, 'datasets'), { recursive: true });
    await writeFile(join(dir, 'datasets', 'robots-dropped'), 'not a directory');
    const storageClient = new MemoryStorage({ localDataDirectory: dir, persistStorage: true });
    const config = new Configuration({ storageClient, persistStorage: true });
    const handled: string[] = [];
    const crawler = new CheerioCrawler(
      {
        async requestHandler({ request }) {
          handled.push(new URL(request.url).pathname);
        },
      },
      config,
    );
    const store = new RobotsStore({ userAgent: USER_AGENT });
    const { log: guardLog, lines } = captureLog();
    const guard = new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, log: guardLog });
    guard.attach(crawler);
    const urls = ['/a', '/private/b', '/private/c'].map((path) => `${site.origin}${path}`);
    await crawler.run(urls).finally(() => store.close());

    expect(handled).toEqual(['/a']);
    expect(pagesHit(site)).toEqual(['/a']);
    const summary = guard.summary();
    expect(summary.totals).toMatchObject({ allowed: 1, dropped: 2 });
    expect(summary.unrecorded).toBe(2);
    const errors = lines.filter((line) => line.level === LogLevel.ERROR).map((line) => line.message);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      'Writing 2 records to Dataset robots-dropped failed; these dropped URLs have no record:',
    );
    for (const url of urls.slice(1)) expect(errors[0]).toContain(url);
    const logged = lines.filter((line) => line.level === LogLevel.INFO).map((line) => line.message);
    expect(logged.at(-1)).toBe(formatSummary(summary));
    expect(logged.at(-1)).toContain(
      '  2 dropped URLs have no record: writing them to the Dataset failed (the errors logged name them)',
    );
  });
});
