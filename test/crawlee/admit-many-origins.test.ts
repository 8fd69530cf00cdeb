import { BasicCrawler, LogLevel, log } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

/**
 * One add that brings more new origins than the store keeps in memory: each URL is decided by
 * the policy its origin's fetch gave, though the store has let that policy go by the time the
 * add ends. None enters the queue unchecked, and no robots.txt is fetched twice.
 */
describe('an add of more new origins than the store holds', () => {
  let servers: TestHttpServer[] = [];
  let store: RobotsStore | undefined;
  afterEach(async () => {
    await store?.close();
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  });

  it('drops every disallowed URL as it is added, with one robots.txt fetch per origin', async () => {
    servers = await Promise.all(
      Array.from({ length: 12 }, () =>
        startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /private/\n') }),
      ),
    );
    store = new RobotsStore({ userAgent: USER_AGENT, maxEntries: 3 });
    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new BasicCrawler(
      {
        requestHandler: async ({ request }) => {
          handled.push(request.url);
        },
      },
      config,
    );
    const guard = new RobotsGuard({ productToken: TOKEN, store, logSummary: false });
    guard.attach(crawler);
    // Two URLs per origin: the second is decided by the same fetch as the first.
    const urls = servers.flatMap((server) => [`${server.origin}/private/a`, `${server.origin}/private/b`]);
    await crawler.addRequests(urls, { waitForAllRequestsToBeAdded: true });

    const queue = await crawler.getRequestQueue();
    expect(await queue.getTotalCount()).toBe(0);
    const records = await datasetItems<RobotsDroppedRecord>(config);
    expect(records.map((record) => record.url).sort()).toEqual([...urls].sort());
    expect(new Set(records.map((record) => record.stage))).toEqual(new Set(['enqueue']));
    for (const server of servers) expect(server.hits('/robots.txt')).toBe(1);
    await crawler.run();
    expect(handled).toEqual([]);
    expect(guard.summary().totals.dropped).toBe(urls.length);
  });
});
