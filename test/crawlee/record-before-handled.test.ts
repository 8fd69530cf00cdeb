import { CheerioCrawler, Dataset, LogLevel, log, RequestQueue } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import type { RobotsStore } from '../../src/store/index.js';
import {
  freshConfiguration,
  page,
  quickStore,
  TOKEN,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

/**
 * A record is written before the request it is about, or the page that led to it, is marked
 * handled in the queue. The other way round, a crawl killed between the two (SIGKILL, a
 * container's SIGTERM) would resume past the page, and the drop would go unrecorded for good.
 * Records are written slowly here (the Dataset's writes are delayed), and the queue is read at
 * each mark: every drop the request led to must be on record by then.
 */
describe('CheerioCrawler: drop records and the queue', () => {
  let site: TestHttpServer | undefined;
  let store: RobotsStore | undefined;
  afterEach(async () => {
    await store?.close();
    await site?.close();
  });

  it('writes the records of a page, of a request skipped at dequeue, and of a stopped hop before marking them handled', async () => {
    const links = (i: number) => [`/p${i + 1}`, ...Array.from({ length: 5 }, (_, k) => `/no/${i}/${k}`)];
    site = await startHttpServer({
      '/robots.txt': text('User-agent: *\nDisallow: /no/\n'),
      '/r': redirect('/no/target', 302),
    });
    for (let i = 0; i < 3; i++) site.route(`/p${i}`, page(`/p${i}`, links(i)));
    site.route('/p3', page('/p3'));
    store = quickStore();
    const config = freshConfiguration();

    const dataset = await Dataset.open('robots-dropped', { config });
    const push = dataset.pushData.bind(dataset);
    dataset.pushData = async (data) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return push(data);
    };
    const queue = await RequestQueue.open(null, { config });
    // Queued before the guard saw it: dropped when it leaves the queue.
    await queue.addRequest({ url: `${site.origin}/no/queued` });
    const onRecordAtMark = new Map<string, string[]>();
    const mark = queue.markRequestHandled.bind(queue);
    queue.markRequestHandled = async (request) => {
      const records = (await dataset.getData()).items as RobotsDroppedRecord[];
      onRecordAtMark.set(
        request.url.slice(site!.origin.length),
        records.map((r) => r.url.slice(site!.origin.length)),
      );
      return mark(request);
    };

    const crawler = new CheerioCrawler(
      {
        requestQueue: queue,
        maxConcurrency: 1,
        maxRequestRetries: 0,
        async requestHandler({ enqueueLinks }) {
          await enqueueLinks({ strategy: 'same-origin' });
        },
      },
      config,
    );
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, store, logSummary: false }).attach(crawler);
    await crawler.run([`${site.origin}/p0`, `${site.origin}/r`]);

    for (let i = 0; i < 3; i++) {
      expect(onRecordAtMark.get(`/p${i}`)).toEqual(expect.arrayContaining(links(i).slice(1)));
    }
    expect(onRecordAtMark.get('/no/queued')).toContain('/no/queued');
    expect(onRecordAtMark.get('/r')).toContain('/no/target');
  });
});
