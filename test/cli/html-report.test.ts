/**
 * The `--html` report rendered in headless Chromium (Debian's, no download): its text, that it
 * loads nothing from the network, and a screenshot kept for a look.
 */
import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_LAUNCH_OPTIONS } from '../support/chromium.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { runInProcess, SHOP_ROBOTS } from './run-cli.js';

afterAll(removeTempDirs);

const dir = tempDir('html');
let shop: TestHttpServer;
let browser: Browser;

beforeAll(async () => {
  // A hostile file: every text from the site must be escaped in the report.
  shop = await startHttpServer({
    '/robots.txt': text(
      `${SHOP_ROBOTS}\n# <script>document.title = 'pwned'</script>\nDisallow: /<img src=x>\n`,
    ),
  });
  browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
});

describe('audit --html', () => {
  it('writes a self-contained page that renders the audit in Chromium', async () => {
    const file = join(dir, 'report.html');
    const run = await runInProcess(
      ['audit', shop.origin, '--html', file, '--fail-on', 'blocked:Googlebot', '--urls', '-'],
      {
        stdin: '/\n/cart\n/drafts/q\n/private/x\n',
      },
    );
    expect(run.code).toBe(1);
    const html = readFileSync(file, 'utf8');
    // No external resource of any kind, no script; the file's `<script>` and `<img>` are escaped text.
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b|@import|url\(/i);
    expect(html).toContain('&#60;img src=x&#62;');

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`file://${file}`);
    expect(requests).toEqual([`file://${file}`]);
    expect(await page.title()).toBe(`robots.txt audit: ${shop.origin}`);

    const body = (await page.locator('body').textContent()) ?? '';
    expect(body).toContain('Fail-on: 1 of 1 rules tripped');
    expect(body).toContain(`${shop.origin}/drafts/q blocked for Googlebot (line 9)`);
    expect(body).toContain('HTTP 200');
    expect(body).toContain(
      'GPTBot and CCBot are named in the group of line 11 and are blocked on all 4 audited URLs.',
    );
    expect(body).toContain("# <script>document.title = 'pwned'</script>");
    expect(body).toContain('robots.txt is a request to crawlers, not access control');

    // The matrix: one row per crawler, one cell per URL, coloured by verdict.
    const googlebot = page.locator('table.matrix tr', {
      has: page.locator('th', { hasText: /^Googlebot$/ }),
    });
    expect(await googlebot.locator('td').allInnerTexts()).toEqual([
      'allow –',
      'allow –',
      'BLOCK 9',
      'allow –',
    ]);
    expect(await googlebot.locator('td.block').count()).toBe(1);
    expect(await page.locator('table.matrix tbody tr').count()).toBe(18);
    const blockColour = await page
      .locator('table.matrix td.block')
      .first()
      .evaluate((cell) => getComputedStyle(cell).backgroundColor);
    expect(blockColour).toBe('rgb(255, 235, 233)');

    // The AI table and the lints table.
    const ai = page.locator('table.ai tr', { has: page.locator('th', { hasText: /^ClaudeBot$/ }) });
    expect(await ai.locator('td').allInnerTexts()).toEqual(['partial', '1 of 4', 'named (line 15)']);
    const typo = page.locator('table.lints tr', { has: page.locator('td', { hasText: 'accepted-typo' }) });
    expect(await typo.locator('td').first().textContent()).toBe('15');

    const screenshot = join(dir, 'report.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(20_000);
    await page.close();
  });

  it('reports an unreachable robots.txt without a file listing', async () => {
    const server = await startHttpServer({ '/robots.txt': text('down', 503) });
    try {
      const file = join(dir, 'down.html');
      const run = await runInProcess(['audit', server.origin, '--html', file, '--fail-on', 'unreachable']);
      expect(run.code).toBe(1);
      const page = await browser.newPage();
      await page.goto(`file://${file}`);
      const body = (await page.locator('body').textContent()) ?? '';
      expect(body).toContain('HTTP 503');
      expect(body).toContain('robots.txt is unreachable (HTTP 503), so every crawler');
      expect(body).toContain('No file was read, so there is nothing to lint.');
      expect(await page.locator('pre').count()).toBe(0);
      await page.close();
    } finally {
      await server.close();
    }
  });

  it('no HTTP answer at all: the banner says exit 2, not passed', async () => {
    const server = await startHttpServer();
    const origin = server.origin;
    await server.close();
    const file = join(dir, 'refused.html');
    const run = await runInProcess([
      'audit',
      origin,
      '--html',
      file,
      '--fail-on',
      'lint:error',
      '--timeout',
      '3000',
    ]);
    expect(run.code).toBe(2);
    const page = await browser.newPage();
    await page.goto(`file://${file}`);
    expect(await page.locator('.banner.pass').count()).toBe(0);
    expect(await page.locator('.banner.fail').textContent()).toContain(
      'robots.txt got no HTTP answer (exit 2)',
    );
    await page.close();
  });

  it('a report that cannot be written: one line, exit 2, before robots.txt is fetched', async () => {
    const fetched = shop.hits('/robots.txt');
    const run = await runInProcess([
      'audit',
      shop.origin,
      '--html',
      join(dir, 'no', 'such', 'dir', 'r.html'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^crawlee-robots: cannot write .*r\.html: no such directory\n$/);
    expect(run.stdout).toBe('');
    expect(shop.hits('/robots.txt')).toBe(fetched);
    const onDirectory = await runInProcess(['audit', shop.origin, '--html', dir]);
    expect(onDirectory.code).toBe(2);
    expect(onDirectory.stderr).toMatch(/: it is a directory\n$/);
    expect(shop.hits('/robots.txt')).toBe(fetched);
  });

  it('a file that cannot be made in a directory that is there is not called a missing directory', async () => {
    // A link into a directory that is not there: its own directory is, and the write fails with ENOENT.
    const link = join(dir, 'dangling.html');
    symlinkSync(join(dir, 'gone', 'r.html'), link);
    const run = await runInProcess(['audit', shop.origin, '--html', link]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`crawlee-robots: cannot write ${link}: no file can be made there (ENOENT)\n`);
    expect(run.stdout).toContain('robots.txt');
  });

  it('a report whose writing fails at the end (a full disk): the text report is still printed, exit 2', async () => {
    const run = await runInProcess(['audit', shop.origin, '--html', '/dev/full']);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('robots.txt');
    expect(run.stderr).toBe('crawlee-robots: cannot write /dev/full: no space left on device\n');
    // The reports state the exit code the process ends with.
    const json = await runInProcess(['audit', shop.origin, '--json', '--html', '/dev/full']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      exitCode: 2,
      error: 'the HTML report could not be written',
    });
    const failOn = await runInProcess([
      'audit',
      shop.origin,
      '--fail-on',
      'lint:info',
      '--html',
      '/dev/full',
    ]);
    expect(failOn.code).toBe(2);
    expect(failOn.stdout).toMatch(/Fail-on: .*\(exit 2: the HTML report could not be written\)/);
  });

  it('refuses a report path that names its own input, by any name, and leaves the input as it was', async () => {
    const robots = join(dir, 'input-robots.txt');
    const list = join(dir, 'input-urls.txt');
    writeFileSync(robots, SHOP_ROBOTS);
    writeFileSync(list, '/\n/cart\n');
    symlinkSync(robots, join(dir, 'link-to-robots.txt'));
    const cases = [
      [['--file', robots, '--html', robots], `--html ${robots} is the --file file ${robots}`],
      [['--file', robots, '--html', join(dir, 'link-to-robots.txt')], '--file file'],
      [['--file', robots, '--urls', list, '--html', list], `--html ${list} is the --urls file ${list}`],
    ] as const;
    for (const [flags, said] of cases) {
      const run = await runInProcess(['audit', 'https://shop.example', ...flags]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(said);
      expect(run.stderr).toMatch(/: the report would overwrite it\n$/);
    }
    expect(readFileSync(robots, 'utf8')).toBe(SHOP_ROBOTS);
    expect(readFileSync(list, 'utf8')).toBe('/\n/cart\n');
  });
});
