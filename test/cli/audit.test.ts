import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/robots/index.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { cells, lineStarting, runInProcess, SHOP_ROBOTS } from './run-cli.js';

afterAll(removeTempDirs);

let shop: TestHttpServer;
const dir = tempDir('audit');

beforeAll(async () => {
  shop = await startHttpServer({ '/robots.txt': text(SHOP_ROBOTS) });
});
afterAll(async () => {
  await shop.close();
});

/** The matrix rows by crawler: the cells after the crawler's name. */
function matrix(lines: readonly string[]): Map<string, string[]> {
  const title = lines.findIndex((line) => line.startsWith('Verdicts ('));
  const end = lines.indexOf('', title);
  return new Map(lines.slice(title + 3, end).map((line) => [cells(line)[0], cells(line).slice(1)]));
}

describe('audit: the matrix', () => {
  it('checks / and one path per rule for every default crawler', async () => {
    const run = await runInProcess(['audit', shop.origin]);
    expect(run.code).toBe(0);
    expect(run.lines[0]).toBe(`Audit of ${shop.origin}`);
    // Made up from the rules, and said so: a share of them blocked is no share of the site.
    const urlsAt = run.lines.indexOf(
      "URLs (the home page and a path for each of the file's first rules; --urls or --from-sitemaps audits yours)",
    );
    expect(run.lines.slice(urlsAt + 1, urlsAt + 9)).toEqual([
      '  1  /',
      '  2  /cart',
      '  3  /search',
      '  4  /search/help',
      '  5  /x?sessionid=',
      '  6  /drafts/',
      '  7  /private/',
      '',
    ]);
    const rows = matrix(run.lines);
    expect(rows.size).toBe(18);
    expect(rows.get('Googlebot')).toEqual([
      'allow -',
      'allow -',
      'allow -',
      'allow -',
      'allow -',
      'BLOCK 9',
      'allow -',
    ]);
    expect(rows.get('Bingbot')).toEqual([
      'allow -',
      'BLOCK 3',
      'BLOCK 4',
      'allow 5',
      'BLOCK 6',
      'allow -',
      'allow -',
    ]);
    expect(rows.get('GPTBot')).toEqual(Array(7).fill('BLOCK 13'));
    expect(rows.get('ClaudeBot')).toEqual([
      'allow -',
      'allow -',
      'allow -',
      'allow -',
      'allow -',
      'allow -',
      'BLOCK 16',
    ]);
  });

  it('checks the URLs of --urls, paths resolved against the site', async () => {
    const file = join(dir, 'urls.txt');
    writeFileSync(file, `# pages to watch\n/cart\n\n${shop.origin}/search/help\n/cart\n`);
    const run = await runInProcess(['audit', shop.origin, '--urls', file, '--agents', 'Googlebot,GPTBot']);
    expect(run.code).toBe(0);
    const urlsAt = run.lines.indexOf('URLs');
    expect(run.lines.slice(urlsAt + 1, urlsAt + 4)).toEqual(['  1  /cart', '  2  /search/help', '']);
    const rows = matrix(run.lines);
    expect([...rows.keys()]).toEqual(['Googlebot', 'GPTBot']);
    expect(rows.get('GPTBot')).toEqual(['BLOCK 13', 'BLOCK 13']);
  });

  it('reads --urls from stdin', async () => {
    const run = await runInProcess(['audit', shop.origin, '--urls', '-', '--agents', 'Bingbot'], {
      stdin: '/search\n',
    });
    expect(matrix(run.lines).get('Bingbot')).toEqual(['BLOCK 4']);
  });

  it('refuses a URL of another origin: a robots.txt speaks for its own origin only', async () => {
    const run = await runInProcess(['audit', shop.origin, '--urls', '-'], {
      stdin: '/a\nhttps://other.example/b\n',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `crawlee-robots: stdin line 2: https://other.example/b is not on ${shop.origin}; audit one origin at a time\n`,
    );
  });

  it('says which line of --urls is no URL of the site, quoted as written', async () => {
    for (const [line, why] of [
      ['User-agent: *', 'is neither an absolute http(s) URL nor a path starting with /'],
      ['C:\\urls\\page', 'is neither an absolute http(s) URL nor a path starting with /'],
      ['mailto:webmaster@shop.example', 'is neither an absolute http(s) URL nor a path starting with /'],
      ['cart', 'is neither an absolute http(s) URL nor a path starting with /'],
      [
        'https:/shop.example/cart',
        'does not start with http:// or https:// and a host; a URL parser would take what follows the slashes for the host',
      ],
    ]) {
      const run = await runInProcess(['audit', shop.origin, '--urls', '-'], { stdin: `/a\n${line}\n` });
      expect(run.code, line).toBe(2);
      expect(run.stderr, line).toBe(`crawlee-robots: stdin line 2: ${JSON.stringify(line)} ${why}\n`);
    }
  });

  it('audits a local file with --file and --status', async () => {
    const run = await runInProcess(
      ['audit', 'https://shop.example', '--file', '-', '--status', '503', '--agents', 'Googlebot'],
      {
        stdin: SHOP_ROBOTS,
      },
    );
    expect(run.code).toBe(0);
    expect(matrix(run.lines).get('Googlebot')).toEqual(['BLOCK -']);
    expect(run.stdout).toContain(
      'robots.txt is unreachable (HTTP 503), so every crawler, the 12 AI crawlers included',
    );
  });

  it('fails --fail-on lint:info on an empty file on stdin (a fetch that failed quietly upstream)', async () => {
    const argv = ['audit', 'https://shop.example', '--file', '-', '--agents', 'GPTBot'];
    const run = await runInProcess([...argv, '--fail-on', 'lint:info'], { stdin: '' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('tripped lint:info');
    expect(run.stdout).toContain('[empty-file]');
    expect((await runInProcess([...argv, '--fail-on', 'lint:empty-file'], { stdin: '\n' })).code).toBe(1);
    expect((await runInProcess([...argv, '--fail-on', 'lint:empty-file'], { stdin: SHOP_ROBOTS })).code).toBe(
      0,
    );
  });

  it('says /robots.txt stays allowed when robots.txt is unreachable, as the verdicts on it do', async () => {
    const list = join(tempDir('ai'), 'urls.txt');
    writeFileSync(list, '/robots.txt\n');
    const run = await runInProcess(
      ['audit', 'https://shop.example', '--file', '-', '--status', '503', '--urls', list, '--json'],
      { stdin: SHOP_ROBOTS },
    );
    const { ai } = JSON.parse(run.stdout);
    expect(ai.summary).toMatch(
      /must stay away from the whole site .*, all but \/robots\.txt itself \(2\.2\.2\)\.$/,
    );
    expect(new Set(ai.crawlers.map((crawler: { status: string }) => crawler.status))).toEqual(
      new Set(['allowed']),
    );
  });
});

describe('audit: the example URLs made up from the rules', () => {
  // Patterns, by the line they stand on, that an example path gets wrong most easily.
  const TRICKY = ['//', '//evil.example/x', '*.pdf', '/a/../b', '/%2F', '/*?x=', '/$', '/a$', '/*', '*'];
  const file = `User-agent: *\n${TRICKY.map((pattern) => `Disallow: ${pattern}`).join('\n')}\n`;
  const lineOf = (pattern: string) => TRICKY.indexOf(pattern) + 2;

  it('gives every rule a URL on the audited origin that the rule itself matches', async () => {
    const run = await runInProcess(
      ['audit', 'https://shop.example', '--file', '-', '--agents', 'Googlebot', '--json'],
      { stdin: file },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).urlsFrom).toBe('rules');
    const urls: string[] = JSON.parse(run.stdout).urls.map((row: { url: string }) => row.url);
    // `/$` is the home page; `/*` and `*` share `/x`; `/a/../b` matches no URL a parser lets through.
    expect(urls.map((url) => url.slice('https://shop.example'.length))).toEqual([
      '/',
      '//',
      '//evil.example/x',
      '/x.pdf',
      '/%2F',
      '/x?x=',
      '/a',
      '/x',
    ]);
    for (const url of urls) expect(new URL(url).origin).toBe('https://shop.example');
    const robots = RobotsTxt.parse(file);
    const matchedLines = (url: string) =>
      robots.explain(url, 'Googlebot').candidates.map((rule) => rule.line);
    const sampleOf: Record<string, string> = {
      '//': '//',
      '//evil.example/x': '//evil.example/x',
      '*.pdf': '/x.pdf',
      '/%2F': '/%2F',
      '/*?x=': '/x?x=',
      '/$': '/',
      '/a$': '/a',
      '/*': '/x',
      '*': '/x',
    };
    for (const [pattern, path] of Object.entries(sampleOf)) {
      expect(urls).toContain(`https://shop.example${path}`);
      expect(matchedLines(`https://shop.example${path}`), pattern).toContain(lineOf(pattern));
    }
    for (const url of urls) expect(matchedLines(url)).not.toContain(lineOf('/a/../b'));
  });

  it('lets blocked:<agent> trip on a rule that starts with //', async () => {
    const run = await runInProcess(
      [
        'audit',
        'https://shop.example',
        '--file',
        '-',
        '--agents',
        'Googlebot',
        '--fail-on',
        'blocked:Googlebot',
      ],
      { stdin: 'User-agent: *\nDisallow: //evil.example/x\n' },
    );
    expect(run.code).toBe(1);
    expect(run.lines).toContain('    https://shop.example//evil.example/x blocked for Googlebot (line 2)');
  });
});

describe('audit: --urls lists', () => {
  it('reads a path that starts with // as a path on the audited origin', async () => {
    const run = await runInProcess(['audit', shop.origin, '--urls', '-', '--agents', 'Googlebot', '--json'], {
      stdin: '//\n//evil.example/x\n',
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout).urlsFrom).toBe('list');
    expect(JSON.parse(run.stdout).urls.map((row: { url: string }) => row.url)).toEqual([
      `${shop.origin}//`,
      `${shop.origin}//evil.example/x`,
    ]);
  });

  it('skips a # comment after a blank at the end of a line; a # right after the URL is its fragment', async () => {
    const run = await runInProcess(['audit', shop.origin, '--urls', '-', '--agents', 'Googlebot', '--json'], {
      stdin: '/a # the first page\n/b\t# the second\n/c#top\n  # a whole line\n',
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout).urls.map((row: { url: string }) => row.url)).toEqual([
      `${shop.origin}/a`,
      `${shop.origin}/b`,
      `${shop.origin}/c`,
    ]);
  });

  it('lays the verdicts of many URLs out in tables of ten columns, none wider than a terminal', async () => {
    const paths = Array.from({ length: 25 }, (_, i) => `/p${i + 1}`);
    const run = await runInProcess(
      ['audit', shop.origin, '--urls', '-', '--agents', 'Googlebot,meta-externalagent'],
      {
        stdin: paths.join('\n'),
      },
    );
    const from = run.lines.indexOf('Verdicts (allow/BLOCK and the decisive line; - when no line decided)');
    const verdicts = run.lines.slice(from + 1, run.lines.indexOf('AI crawlers', from));
    const headers = verdicts.filter((line) => line.startsWith('  crawler '));
    expect(headers.map((line) => cells(line).slice(1))).toEqual([
      paths.slice(0, 10).map((_, i) => String(i + 1)),
      paths.slice(10, 20).map((_, i) => String(i + 11)),
      paths.slice(20).map((_, i) => String(i + 21)),
    ]);
    const rows = verdicts.filter((line) => line.startsWith('  meta-externalagent '));
    expect(rows.map((line) => cells(line).length - 1)).toEqual([10, 10, 5]);
    expect(Math.max(...verdicts.map((line) => line.length))).toBeLessThanOrEqual(120);
  });

  it('refuses a list of more than 1000 distinct URLs at the first one past the limit', async () => {
    const repeated = Array.from({ length: 1000 }, (_, i) => `/p${i}\n/p${i}`).join('\n');
    const run = await runInProcess(['audit', shop.origin, '--urls', '-', '--agents', 'Googlebot'], {
      // The line after URL 1001 would be refused on its own: it is never read.
      stdin: `${repeated}\n/one-too-many\nhttps://other.example/\n`,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'crawlee-robots: too many URLs (stdin line 2001 holds URL 1001); an audit checks at most 1000\n',
    );
    const enough = await runInProcess(
      ['audit', shop.origin, '--urls', '-', '--agents', 'Googlebot', '--json'],
      {
        stdin: repeated,
      },
    );
    expect(enough.code).toBe(0);
    expect(JSON.parse(enough.stdout).urls).toHaveLength(1000);
  });

  it('refuses a list over 4 MiB with a message that names the limit', async () => {
    const big = `${'/p\n'.repeat(1_500_000)}`;
    const run = await runInProcess(['audit', shop.origin, '--urls', '-', '--agents', 'Googlebot'], {
      stdin: big,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'crawlee-robots: stdin is larger than 4194304 octets (4 MiB, the most a --urls list may hold); list each URL once (e.g. with sort -u): an audit checks at most 1000\n',
    );
  });
});

describe('audit: the AI-crawler summary', () => {
  it('says which AI crawlers are blocked, partly blocked, and which follow *', async () => {
    const run = await runInProcess(['audit', shop.origin]);
    const at = run.lines.indexOf('AI crawlers');
    const paragraph = run.lines
      .slice(at + 1, run.lines.indexOf('', at))
      .map((line) => line.trim())
      .join(' ');
    expect(paragraph).toContain(
      'GPTBot and CCBot are named in the group of line 11 and are blocked on all 7 audited URLs.',
    );
    expect(paragraph).toContain(
      'ClaudeBot is named in the group of line 15 and is blocked on 1 of the 7 audited URLs.',
    );
    expect(paragraph).toContain(
      'ChatGPT-User, OAI-SearchBot, Claude-User, PerplexityBot, Google-Extended, Applebot-Extended, Bytespider, Amazonbot and meta-externalagent have no group of their own and follow the * group (line 2), so they are blocked on 3 of the 7 audited URLs.',
    );
    expect(paragraph).toContain(
      'In all: 2 of 12 AI crawlers blocked everywhere, 10 partly blocked, 0 allowed everywhere.',
    );
  });

  it('says when robots.txt is unavailable: no rules, every AI crawler allowed', async () => {
    const server = await startHttpServer();
    try {
      const run = await runInProcess(['audit', server.origin]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        'robots.txt is unavailable (HTTP 404): there are no rules, so all 12 AI crawlers may',
      );
    } finally {
      await server.close();
    }
  });
});

describe('audit: --fail-on', () => {
  it('blocked:<agent> trips when a listed URL is blocked for that crawler', async () => {
    const run = await runInProcess(['audit', shop.origin, '--fail-on', 'blocked:Googlebot']);
    expect(run.code).toBe(1);
    expect(run.lines).toContain('Fail-on: 1 of 1 rules tripped (exit 1)');
    expect(run.lines).toContain('  tripped blocked:Googlebot');
    expect(run.lines).toContain(`    ${shop.origin}/drafts/ blocked for Googlebot (line 9)`);
  });

  it('names the crawler in what tripped as its row of the matrix does, however it was given', async () => {
    const header = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    for (const agent of ['Googlebot/2.1', header]) {
      const run = await runInProcess([
        'audit',
        shop.origin,
        '--agents',
        agent,
        '--fail-on',
        'blocked:Googlebot',
      ]);
      expect(run.code).toBe(1);
      expect(run.lines).toContain(`    ${shop.origin}/drafts/ blocked for Googlebot (line 9)`);
    }
  });

  it('names the first 20 URLs that tripped a rule and says how many there are in all', async () => {
    const list = Array.from({ length: 30 }, (_, i) => `/cart/${i}`).join('\n');
    const html = join(dir, 'cut.html');
    const argv = ['audit', shop.origin, '--agents', 'Bingbot', '--fail-on', 'blocked:Bingbot', '--urls', '-'];
    const run = await runInProcess([...argv, '--html', html], { stdin: list });
    expect(run.code).toBe(1);
    const at = run.lines.indexOf('  tripped blocked:Bingbot');
    expect(run.lines[at + 1]).toBe('    30 URLs; the first 20:');
    expect(run.lines.slice(at + 2).filter((line) => line.includes(' blocked for Bingbot'))).toHaveLength(20);
    expect(readFileSync(html, 'utf8')).toContain('<code>blocked:Bingbot</code> 30 URLs; the first 20:');
    const json = JSON.parse((await runInProcess([...argv, '--json'], { stdin: list })).stdout);
    expect(json.failOn.tripped[0]).toMatchObject({ rule: 'blocked:Bingbot', count: 30 });
    expect(json.failOn.tripped[0].details).toHaveLength(20);
  });

  it('joins the lists of a repeated --agents, as it joins repeated --fail-on rules', async () => {
    const run = await runInProcess([
      'audit',
      shop.origin,
      '--agents',
      'Googlebot',
      '--agents',
      'GPTBot,googlebot',
      '--json',
    ]);
    expect(JSON.parse(run.stdout).agents).toEqual(['Googlebot', 'GPTBot']);
  });

  it('passes when nothing trips, and adds the crawlers it names to the matrix', async () => {
    const run = await runInProcess(
      [
        'audit',
        shop.origin,
        '--agents',
        'Bingbot',
        '--fail-on',
        'blocked:Googlebot-News',
        '--fail-on',
        'allowed:CCBot,unreachable',
        '--urls',
        '-',
      ],
      { stdin: '/search/help\n' },
    );
    expect(run.code).toBe(0);
    expect([...matrix(run.lines).keys()]).toEqual(['Bingbot', 'Googlebot-News', 'CCBot']);
    expect(lineStarting(run.lines, 'passed')).toBe(
      '  passed: blocked:Googlebot-News, allowed:CCBot, unreachable',
    );
  });

  it('lint:<severity> and lint:<code> trip on the lints of the file', async () => {
    const bySeverity = await runInProcess(['audit', shop.origin, '--fail-on', 'lint:warning']);
    expect(bySeverity.code).toBe(1);
    expect(bySeverity.stdout).toMatch(/ {4}line 15: warning: .*\[accepted-typo\]/);
    expect((await runInProcess(['audit', shop.origin, '--fail-on', 'lint:accepted-typo'])).code).toBe(1);
    expect((await runInProcess(['audit', shop.origin, '--fail-on', 'lint:error'])).code).toBe(0);
  });

  it('unreachable trips on a 5xx robots.txt', async () => {
    const server = await startHttpServer({ '/robots.txt': text('oops', 502) });
    try {
      const run = await runInProcess(['audit', server.origin, '--fail-on', 'unreachable']);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('HTTP 502: robots.txt is unreachable, everything is disallowed');
      expect(lineStarting(run.lines, 'Fail-on')).toBe('Fail-on: 1 of 1 rules tripped (exit 1)');
    } finally {
      await server.close();
    }
  });

  it('blocked:* trips for any crawler of the matrix', async () => {
    const run = await runInProcess(
      ['audit', shop.origin, '--agents', 'Googlebot', '--fail-on', 'blocked:*', '--urls', '-'],
      {
        stdin: '/\n',
      },
    );
    expect(run.code).toBe(0);
    const blocked = await runInProcess(
      ['audit', shop.origin, '--agents', 'Bingbot', '--fail-on', 'blocked:*', '--urls', '-'],
      {
        stdin: '/cart\n',
      },
    );
    expect(blocked.code).toBe(1);
  });

  it('exits 2 when robots.txt got no answer at all', async () => {
    const server = await startHttpServer();
    const origin = server.origin;
    await server.close();
    const run = await runInProcess(['audit', origin, '--timeout', '3000']);
    expect(run.code).toBe(2);
    expect(lineStarting(run.lines, 'status')).toBe('  status   no usable answer (connection-refused)');
    expect(run.stderr).toBe(
      `crawlee-robots: ${origin}/robots.txt got no usable HTTP answer (connection-refused)\n`,
    );
  });

  it('no answer at all: the fail-on heading says exit 2, as the process exits', async () => {
    const server = await startHttpServer();
    const origin = server.origin;
    await server.close();
    const args = ['audit', origin, '--agents', 'Bingbot', '--timeout', '3000'];
    const tripped = await runInProcess([...args, '--fail-on', 'unreachable']);
    expect(tripped.code).toBe(2);
    expect(lineStarting(tripped.lines, 'Fail-on')).toBe(
      'Fail-on: 1 of 1 rules tripped (exit 2: robots.txt got no HTTP answer)',
    );
    const passed = await runInProcess([...args, '--fail-on', 'lint:error']);
    expect(passed.code).toBe(2);
    expect(lineStarting(passed.lines, 'Fail-on')).toBe('Fail-on (exit 2: robots.txt got no HTTP answer)');
    expect(lineStarting(passed.lines, 'none tripped')).toBe('  none tripped, none passed: lint:error');
    expect(passed.lines.some((line) => line.trimStart().startsWith('passed'))).toBe(false);
    const json = await runInProcess([...args, '--fail-on', 'unreachable', '--json']);
    expect(JSON.parse(json.stdout).exitCode).toBe(2);
  });
});

describe('audit --json', () => {
  it('has the matrix, the AI policy, the lints and the fail-on outcome', async () => {
    const run = await runInProcess(
      [
        'audit',
        shop.origin,
        '--json',
        '--agents',
        'Googlebot,GPTBot',
        '--fail-on',
        'blocked:Googlebot',
        '--urls',
        '-',
      ],
      { stdin: '/drafts/a\n/\n' },
    );
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout);
    expect(Object.keys(json)).toEqual([
      'site',
      'origin',
      'robotsTxt',
      'agents',
      'urlsFrom',
      'urls',
      'fromSitemaps',
      'ai',
      'lints',
      'failOn',
      'exitCode',
      'error',
      'generatedAt',
    ]);
    expect(json.error).toBeNull();
    expect(json.origin).toBe(shop.origin);
    expect(json.agents).toEqual(['Googlebot', 'GPTBot']);
    expect(json.urls).toEqual([
      {
        url: `${shop.origin}/drafts/a`,
        path: '/drafts/a',
        verdicts: [
          {
            agent: 'Googlebot',
            allowed: false,
            reason: 'matched',
            line: 9,
            rule: { kind: 'disallow', pattern: '/drafts/' },
            group: { how: 'token', token: 'googlebot' },
          },
          {
            agent: 'GPTBot',
            allowed: false,
            reason: 'matched',
            line: 13,
            rule: { kind: 'disallow', pattern: '/' },
            group: { how: 'token', token: 'gptbot' },
          },
        ],
      },
      expect.objectContaining({ url: `${shop.origin}/`, path: '/' }),
    ]);
    expect(json.fromSitemaps).toBeNull();
    expect(json.ai.urls).toBe(2);
    expect(json.ai.crawlers).toHaveLength(12);
    expect(json.ai.crawlers[0]).toEqual({
      agent: 'GPTBot',
      status: 'blocked',
      blockedUrls: 2,
      how: 'token',
      userAgentLines: [11],
      groupLine: 11,
    });
    expect(typeof json.ai.summary).toBe('string');
    expect(json.failOn).toEqual({
      rules: ['blocked:Googlebot'],
      tripped: [
        {
          rule: 'blocked:Googlebot',
          count: 1,
          details: [`${shop.origin}/drafts/a blocked for Googlebot (line 9)`],
        },
      ],
    });
    expect(json.robotsTxt).toMatchObject({ source: 'http', status: 200, policy: 'rules' });
    expect(Number.isNaN(Date.parse(json.generatedAt))).toBe(false);
  });
});

describe('audit --from-sitemaps: Sitemap: lines no crawler can use', () => {
  it('names them when they are all robots.txt has, and exits 2 as with none', async () => {
    const run = await runInProcess(['audit', 'https://shop.example', '--file', '-', '--from-sitemaps'], {
      stdin: 'User-agent: *\nSitemap: /sitemap.xml\nSitemap: sitemap.xml\n',
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'crawlee-robots: --from-sitemaps: robots.txt of https://shop.example declares no sitemap a crawler can use: its Sitemap: lines 2, 3 are not absolute http(s) URLs\n',
    );
  });
});
