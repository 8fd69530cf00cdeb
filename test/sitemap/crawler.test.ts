import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, Configuration, createCheerioRouter, Dataset } from 'crawlee';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SitemapSeeder } from '../../src/sitemap/index.js';
import { RobotsStore } from '../../src/store/index.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { serveBody } from './support/sitemap-server.js';

let server: TestHttpServer;
let storageDir: string;
const previousStorageDir = process.env['CRAWLEE_STORAGE_DIR'];

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'crawlee-robots-sitemap-'));
  process.env['CRAWLEE_STORAGE_DIR'] = storageDir;
  server = await startHttpServer();
  const o = server.origin;
  server.route(
    '/robots.txt',
    text(`User-agent: *\nDisallow: /private/\n\nSitemap: ${o}/sitemap_index.xml\n`),
  );
  server.route(
    '/sitemap_index.xml',
    serveBody(
      `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${o}/pages.xml.gz</loc></sitemap><sitemap><loc>${o}/news.rss</loc></sitemap></sitemapindex>`,
    ),
  );
  server.route(
    '/pages.xml.gz',
    serveBody(
      `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[1, 2, 3]
        .map((n) => `<url><loc>${o}/page/${n}</loc><lastmod>2024-0${n}-01</lastmod></url>`)
        .join('')}<url><loc>${o}/private/p</loc></url></urlset>`,
      { gzipFile: true },
    ),
  );
  server.route(
    '/news.rss',
    serveBody(`<rss version="2.0"><channel><item><link>${o}/page/news</link></item></channel></rss>`),
  );
  for (const path of ['/page/1', '/page/2', '/page/3', '/page/news', '/private/p']) {
    server.route(
      path,
      text(`<html><head><title>${path}</title></head><body></body></html>`, 200, {
        'content-type': 'text/html',
      }),
    );
  }
});

afterAll(async () => {
  await server.close();
  if (previousStorageDir === undefined) delete process.env['CRAWLEE_STORAGE_DIR'];
  else process.env['CRAWLEE_STORAGE_DIR'] = previousStorageDir;
  await rm(storageDir, { recursive: true, force: true });
});

it('seeds a CheerioCrawler request queue through crawler.addRequests, robots.txt first', async () => {
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const { log } = captureLog();
  const store = new RobotsStore({ userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)', log });
  const seen: { url: string; title: string; userData: Record<string, unknown> }[] = [];
  const router = createCheerioRouter();
  router.addHandler('SITEMAP', async ({ request, $ }) => {
    seen.push({ url: request.url, title: $('title').text(), userData: { ...request.userData } });
  });
  const crawler = new CheerioCrawler({ requestHandler: router, maxConcurrency: 4, log }, config);
  const dropped = await Dataset.open('robots-dropped', { config });

  const result = await new SitemapSeeder({ store, log }).seed([`${server.origin}/`], {
    enqueue: (batch) => crawler.addRequests(batch),
    onDropped: (record) =>
      dropped.pushData({ ...record, check: { rule: record.check.rule, reason: record.check.reason } }),
    label: 'SITEMAP',
  });
  expect(result).toMatchObject({ sitemapsRead: 3, urlsFound: 5, kept: 4, droppedByRobots: 1, failures: [] });

  await crawler.run();
  const o = server.origin;
  expect(seen.map((page) => page.url).sort()).toEqual([
    `${o}/page/1`,
    `${o}/page/2`,
    `${o}/page/3`,
    `${o}/page/news`,
  ]);
  expect(seen.find((page) => page.url === `${o}/page/2`)).toMatchObject({
    title: '/page/2',
    userData: { sitemapUrl: `${o}/pages.xml.gz`, lastmod: '2024-02-01T00:00:00.000Z', label: 'SITEMAP' },
  });
  expect(server.hits('/private/p')).toBe(0);
  expect(server.hits('/robots.txt')).toBe(1);
  const records = (await dropped.getData()).items;
  expect(records).toMatchObject([
    {
      stage: 'sitemap',
      url: `${o}/private/p`,
      sitemapUrl: `${o}/pages.xml.gz`,
      check: { reason: 'matched', rule: { kind: 'disallow', pattern: '/private/', line: 2 } },
    },
  ]);
  await store.close();
});
