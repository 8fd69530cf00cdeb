import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/**
 * The README's first command, end to end: the demo site, a PlaywrightCrawler in Debian's
 * Chromium seeded from the sitemaps, and the guard.
 */
describe('npm start (the demo crawl)', () => {
  let storage: string;
  let output = '';
  let seconds = 0;

  beforeAll(async () => {
    storage = await mkdtemp(join(tmpdir(), 'crawlee-robots-demo-'));
    const started = Date.now();
    const result = await run(process.execPath, ['--import', 'tsx', 'demo/main.ts'], {
      env: { ...process.env, CRAWLEE_STORAGE_DIR: storage, DEMO_DEBUG: '1' },
      timeout: 90_000,
    });
    seconds = (Date.now() - started) / 1000;
    output = result.stdout;
  }, 120_000);

  afterAll(async () => {
    await rm(storage, { recursive: true, force: true });
  });

  const requested = (origin: 'shop' | 'blog' | 'news') => {
    const line = output.split('\n').find((l) => l.startsWith(`  ${origin}`))!;
    const url = line.split(/\s+/)[2];
    return output
      .split('\n')
      .find((l) => l.startsWith(`${url} `))!
      .split(' ')
      .slice(1);
  };

  it('finishes in under a minute', () => {
    expect(seconds).toBeLessThan(60);
  });

  it('seeds from the sitemaps, robots.txt first, and says why the blog sitemaps were not read', () => {
    expect(output).toMatch(
      /Sitemaps: 4 read, 11 URLs found, 7 queued, 4 disallowed by robots\.txt, 1 failed \(http:\/\/127\.0\.0\.1:\d+\/robots\.txt: The sitemaps it lists are unknown \(robots\.txt 503\)/,
    );
  });

  it('never requests what robots.txt disallows, redirect hops and script navigations included', () => {
    const shop = requested('shop');
    expect(shop).toEqual(
      expect.arrayContaining(['/', '/products/lamp', '/products/chair', '/account/help', '/old-offers']),
    );
    for (const path of ['/cart', '/account/orders', '/account/offers', '/products/desk?sessionid=42'])
      expect(shop).not.toContain(path);
    expect(requested('news')).not.toContain('/internal/stats');
    expect(requested('blog')).not.toContain('/drafts/next');
  });

  it('defers the blog while its robots.txt answers 503, then crawls it', () => {
    expect(output).toMatch(/blog .* deferred [1-9]\d*, given up 0/);
    expect(requested('blog')).toEqual(expect.arrayContaining(['/', '/posts/hello']));
    expect(requested('blog').filter((p) => p === '/robots.txt').length).toBeGreaterThan(1);
  });

  it('prints the drops by rule and where the datasets are', () => {
    expect(output).toMatch(/dropped by line 7: disallow \/account\//);
    expect(output).toMatch(/dropped by line 6: disallow \/cart/);
    expect(output).toMatch(/total: kept 9, dropped 7, deferred [1-9]\d*, given up 0, hops stopped 2/);
    expect(output).toMatch(/8 pages crawled: .*datasets\/default/);
    expect(output).toMatch(/7 dropped requests, one record each: .*datasets\/robots-dropped/);
  });
});
