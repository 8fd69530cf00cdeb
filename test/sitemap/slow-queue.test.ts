import { afterAll, expect, it } from 'vitest';
import { SitemapSeeder } from '../../src/sitemap/index.js';
import { RobotsStore } from '../../src/store/index.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

const servers: TestHttpServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

// Slow by nature: the wait must outlast the HTTP client's default total timeout (60 s).
it('reads a sitemap to its end however long the queue keeps the download waiting', async () => {
  const site = await startHttpServer();
  servers.push(site);
  const o = site.origin;
  const count = 40_000;
  site.route('/robots.txt', text(`User-agent: *\nAllow: /\nSitemap: ${o}/urls.txt\n`));
  // Written only as fast as the client reads, as a large file over a real link arrives.
  site.route('/urls.txt', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    let i = 0;
    const pump = () => {
      while (i < count)
        if (!response.write(`${o}/section/page-${i++}\n`)) return void response.once('drain', pump);
      response.end();
    };
    pump();
  });
  const { log } = captureLog();
  const store = new RobotsStore({ userAgent: 'ExampleBot/1.0', log });
  const seeder = new SitemapSeeder({ store, log, timeoutMs: 5000 });
  let batches = 0;
  try {
    const result = await seeder.seed([`${o}/`], {
      batchSize: 1000,
      progressIntervalMs: 0,
      // A queue that takes 65 s for its first batch (a remote queue under load, say).
      enqueue: async () => {
        if (batches++ === 0) await new Promise((resolve) => setTimeout(resolve, 65_000));
      },
    });
    expect(result.failures).toEqual([]);
    expect(result).toMatchObject({ urlsFound: count, kept: count });
  } finally {
    await store.close();
  }
}, 120_000);
