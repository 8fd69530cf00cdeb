import { CheerioCrawler, LogLevel, log } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard, type RobotsGuardOptions } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import {
  datasetItems,
  freshConfiguration,
  page,
  quickStore,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

/**
 * A source whose URLs Crawlee downloads from a list (`requestsFromUrl`): the list is a fetch from
 * the site like any page, so robots.txt decides it; the URLs it lists are decided as they leave
 * the queue.
 */
describe('CheerioCrawler: a source of requestsFromUrl', () => {
  let site: TestHttpServer | undefined;
  let store: RobotsStore | undefined;
  afterEach(async () => {
    await store?.close();
    await site?.close();
  });

  async function crawl(
    source: string,
    guardOptions: Partial<RobotsGuardOptions> = {},
    makeStore: () => RobotsStore = quickStore,
  ) {
    const config = freshConfiguration();
    const handled: string[] = [];
    const crawler = new CheerioCrawler(
      {
        requestHandler: async ({ request }) => {
          handled.push(new URL(request.url).pathname);
        },
      },
      config,
    );
    store = makeStore();
    new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      logSummary: false,
      ...guardOptions,
    }).attach(crawler);
    // Crawlee's own pattern wants a host with a top-level domain: one for loopback.
    await crawler.run([
      { requestsFromUrl: `${site?.origin}${source}`, regex: /http:\/\/127\.0\.0\.1:\d+\/\S+/g },
    ]);
    return { handled, records: await datasetItems<RobotsDroppedRecord>(config) };
  }

  it('does not download a list robots.txt disallows, and records it', async () => {
    site = await startHttpServer({
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/private/list.txt': text('/ok\n'),
    });
    const { handled, records } = await crawl('/private/list.txt');
    expect(site.hits('/private/list.txt')).toBe(0);
    expect(handled).toEqual([]);
    expect(records).toMatchObject([
      { url: `${site.origin}/private/list.txt`, stage: 'enqueue', reason: 'disallowed' },
    ]);
  });

  // Crawlee downloads the list during the add: it cannot wait in the queue for its robots.txt.
  it('does not download a list whose robots.txt is unreachable, and records it as given up', async () => {
    site = await startHttpServer({
      '/robots.txt': text('down', 503),
      '/list.txt': text('/ok\n'),
    });
    const { handled, records } = await crawl('/list.txt');
    expect(site.hits('/list.txt')).toBe(0);
    expect(handled).toEqual([]);
    expect(records).toMatchObject([
      { url: `${site.origin}/list.txt`, stage: 'enqueue', reason: 'robots-unreachable' },
    ]);
  });

  it('waits for a robots.txt slower than enqueueWaitMs before it lets a list be downloaded', async () => {
    site = await startHttpServer({
      '/robots.txt': (request, response) => {
        setTimeout(() => text('User-agent: *\nDisallow: /\n')(request, response), 300);
      },
      '/list.txt': text('/ok\n'),
    });
    // A store that waits for it as long as it takes: quickStore's short timeout would make it, on a
    // loaded machine, an unreachable robots.txt.
    const { records } = await crawl(
      '/list.txt',
      { enqueueWaitMs: 50 },
      () => new RobotsStore({ userAgent: USER_AGENT }),
    );
    expect(site.hits('/list.txt')).toBe(0);
    expect(records).toMatchObject([
      { url: `${site.origin}/list.txt`, stage: 'enqueue', reason: 'disallowed' },
    ]);
  });

  it('downloads an allowed list, and decides the URLs it lists', async () => {
    site = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /private\n') });
    site.route('/lists/urls.txt', text(`${site.origin}/ok\n${site.origin}/private/x\n`));
    site.route('/ok', page('/ok'));
    site.route('/private/x', page('/private/x'));
    const { handled, records } = await crawl('/lists/urls.txt');
    expect(site.hits('/lists/urls.txt')).toBe(1);
    expect(handled).toEqual(['/ok']);
    expect(site.hits('/private/x')).toBe(0);
    expect(records).toMatchObject([
      { url: `${site.origin}/private/x`, stage: 'dequeue', reason: 'disallowed' },
    ]);
  });
});
