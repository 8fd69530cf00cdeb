import { BasicCrawler, CheerioCrawler, HttpCrawler, LogLevel, log, PlaywrightCrawler } from 'crawlee';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stricterCheck } from '../../src/crawlee/empty-query.js';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import { withoutEmptyQuery } from '../../src/robots/index.js';
import type { RobotsStore } from '../../src/store/index.js';
import { CHROMIUM_LAUNCH_OPTIONS } from '../support/chromium.js';
import {
  datasetItems,
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

describe('withoutEmptyQuery', () => {
  it.each([
    ['http://a.test/report.pdf?', 'http://a.test/report.pdf'],
    ['http://a.test/report.pdf?#top', 'http://a.test/report.pdf#top'],
    ['http://a.test/?', 'http://a.test/'],
    ['http://a.test/x?q', undefined],
    ['http://a.test/x?q?', undefined],
    ['http://a.test/x??', undefined],
    ['http://a.test/x', undefined],
    ['http://a.test/x#frag?', undefined],
    ['http://a.test/x#?', undefined],
  ])('%s', (url, expected) => {
    expect(withoutEmptyQuery(url)).toBe(expected);
  });

  it('takes the disallowing check of two forms, the written one when both agree', () => {
    const allow = { allowed: true, form: 'written' };
    const deny = { allowed: false, form: 'written' };
    expect(stricterCheck(allow, { allowed: false, form: 'sent' }).form).toBe('sent');
    expect(stricterCheck(deny, { allowed: true, form: 'sent' }).form).toBe('written');
    expect(stricterCheck(deny, { allowed: false, form: 'sent' }).form).toBe('written');
    expect(stricterCheck(allow, { allowed: true, form: 'sent' }).form).toBe('written');
  });
});

/**
 * `Disallow: /*.pdf$` stops `/report.pdf` but not `/report.pdf?`; `Disallow: /page?` stops `/page?`
 * but not `/page`. A URL written `/report.pdf?` goes out as `/report.pdf` through Node's HTTP stack
 * (and through the local proxy of Crawlee's browser pool), as written by a browser over https.
 */
const ROBOTS = 'User-agent: *\nDisallow: /*.pdf$\nDisallow: /page?\n';

let site: TestHttpServer;
let store: RobotsStore;

beforeEach(async () => {
  site = await startHttpServer({ '/robots.txt': text(ROBOTS), '/to-pdf': redirect('/report.pdf?', 302) });
  for (const path of ['/report.pdf', '/report.pdf?', '/page', '/page?', '/plain'])
    site.route(path, page(path));
  store = quickStore();
});

afterEach(async () => {
  await store.close();
  await site.close();
});

const pagesSent = () =>
  site.requests
    .map((request) => request.path)
    .filter((path) => path !== '/robots.txt' && path !== '/favicon.ico')
    .sort();

async function droppedOf(config: ReturnType<typeof freshConfiguration>) {
  const records = await datasetItems<RobotsDroppedRecord>(config);
  return records.map((r) => `${r.url.slice(site.origin.length)} ${r.stage} ${r.rule?.pattern}`).sort();
}

const URLS = ['/report.pdf?', '/page?', '/plain', '/to-pdf'];

function guardFor(options: { enqueueWaitMs?: number } = {}) {
  return new RobotsGuard({
    productToken: TOKEN,
    userAgent: USER_AGENT,
    store,
    logSummary: false,
    ...options,
  });
}

describe('a URL with an empty query is fetched only when robots.txt allows it with and without its "?"', () => {
  // Checked as they are added, or (robots.txt not waited for then) as they leave the queue.
  for (const [Kind, stage, enqueueWaitMs] of [
    [CheerioCrawler, 'enqueue', undefined],
    [HttpCrawler, 'enqueue', undefined],
    [CheerioCrawler, 'dequeue', 0],
    [HttpCrawler, 'dequeue', 0],
  ] as const) {
    it(`${Kind.name}, on ${stage} and at a redirect hop`, async () => {
      const config = freshConfiguration();
      const crawler = new Kind({ maxRequestRetries: 0, async requestHandler() {} }, config);
      guardFor({ enqueueWaitMs }).attach(crawler);
      await crawler.run(URLS.map((path) => site.origin + path));

      // `/report.pdf?` would have gone out as `/report.pdf`, as the redirect to it would have.
      expect(pagesSent()).toEqual(['/plain', '/to-pdf']);
      expect(await droppedOf(config)).toEqual([
        `/page? ${stage} /page?`,
        `/report.pdf? ${stage} /*.pdf$`,
        '/report.pdf? redirect /*.pdf$',
      ]);
    });
  }

  it('BasicCrawler, whose handler fetches with sendRequest', async () => {
    const config = freshConfiguration();
    const crawler = new BasicCrawler(
      {
        maxRequestRetries: 0,
        async requestHandler({ sendRequest }) {
          await sendRequest();
        },
      },
      config,
    );
    guardFor().attach(crawler);
    await crawler.run(['/report.pdf?', '/page?', '/plain'].map((path) => site.origin + path));

    expect(pagesSent()).toEqual(['/plain']);
    expect(await droppedOf(config)).toEqual(['/page? enqueue /page?', '/report.pdf? enqueue /*.pdf$']);
  });

  it('PlaywrightCrawler, whose browser sends http URLs through the local proxy of the browser pool', async () => {
    const config = freshConfiguration();
    const crawler = new PlaywrightCrawler(
      {
        launchContext: { launchOptions: CHROMIUM_LAUNCH_OPTIONS },
        maxRequestRetries: 0,
        navigationTimeoutSecs: 20,
        async requestHandler() {},
      },
      config,
    );
    guardFor().attach(crawler);
    await crawler.run(URLS.map((path) => site.origin + path));

    expect(pagesSent()).toEqual(['/plain', '/to-pdf']);
    expect(await droppedOf(config)).toEqual([
      '/page? enqueue /page?',
      '/report.pdf? enqueue /*.pdf$',
      '/report.pdf? redirect /*.pdf$',
    ]);
  }, 60_000);
});
