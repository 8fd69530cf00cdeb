import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  largeRobotsTxt,
  redirect,
  startHttpServer,
  type TestHttpServer,
  text,
} from '../support/http-server.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { cells, lineStarting, runInProcess, SHOP_ROBOTS, SHOP_ROBOTS_PATH } from './run-cli.js';

afterAll(removeTempDirs);

let shop: TestHttpServer;
let other: TestHttpServer;

beforeAll(async () => {
  shop = await startHttpServer({ '/robots.txt': text(SHOP_ROBOTS) });
  other = await startHttpServer();
});
afterAll(async () => {
  await shop.close();
  await other.close();
});

describe('explain: the verdict', () => {
  it('names the decisive line, the rule and the * group, and exits 1 when disallowed', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/search?q=shoes`, '--agent', 'ExampleBot']);
    expect(run.code).toBe(1);
    expect(run.lines[0]).toBe(`DISALLOWED  ${shop.origin}/search?q=shoes`);
    expect(lineStarting(run.lines, 'crawler')).toContain('ExampleBot (product token "examplebot")');
    expect(lineStarting(run.lines, 'decided')).toContain(
      'by line 4, Disallow: /search (the only matching rule, 7 octets)',
    );
    expect(lineStarting(run.lines, 'group')).toContain('no group of its own; the * group applies (line 2)');
    expect(run.stderr).toBe('');
  });

  it('exits 0 when allowed and tables every matching rule with its length', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/search/help`, '--agent', 'ExampleBot']);
    expect(run.code).toBe(0);
    expect(run.lines[0]).toMatch(/^ALLOWED {2}/);
    expect(lineStarting(run.lines, 'decided')).toContain(
      'by line 5, Allow: /search/help (the longest of 2 matching rules, 12 octets)',
    );
    const title = run.lines.indexOf('Matching rules (the longest pattern wins; on a tie, Allow wins)');
    expect(title).toBeGreaterThan(0);
    expect(cells(run.lines[title + 1])).toEqual(['line', 'rule', 'length']);
    expect(cells(run.lines[title + 3])).toEqual(['5', 'Allow: /search/help', '12', 'decisive']);
    expect(cells(run.lines[title + 4])).toEqual(['4', 'Disallow: /search', '7', 'loses']);
  });

  it('says that Allow won a tie of equal lengths, not that it was longer', async () => {
    const robots = join(tempDir('tie'), 'robots.txt');
    writeFileSync(robots, 'User-agent: *\nDisallow: /a\nAllow: /a\n');
    const run = await runInProcess(['explain', '/a/b', '--agent', 'A', '--file', robots]);
    expect(run.code).toBe(0);
    expect(lineStarting(run.lines, 'decided')).toBe(
      '  decided   by line 3, Allow: /a (tied with a Disallow as the longest of 2 matching rules, 2 octets; Allow wins a tie)',
    );
  });

  it('counts one octet in the singular', async () => {
    const run = await runInProcess(['explain', '/x', '--agent', 'ExampleBot', '--file', '-'], {
      stdin: 'User-agent: *\nAllow: /\n',
    });
    expect(run.code).toBe(0);
    expect(lineStarting(run.lines, 'decided')).toBe(
      '  decided   by line 2, Allow: / (the only matching rule, 1 octet)',
    );
  });

  it('notes a URL with an empty query whose form without the "?" is decided otherwise', async () => {
    const stdin = 'User-agent: *\nDisallow: /*.pdf$\n';
    const run = await runInProcess(['explain', '/report.pdf?', '--agent', 'ExampleBot', '--file', '-'], {
      stdin,
    });
    // Read as written, as Google's parser reads it; the exit code says so.
    expect(run.code).toBe(0);
    expect(lineStarting(run.lines, 'note')).toBe(
      '  note      Node\'s HTTP clients send it without its empty "?": /report.pdf is DISALLOWED by line 2; RobotsGuard fetches it only when both are allowed',
    );
    const json = JSON.parse(
      (
        await runInProcess(['explain', '/report.pdf?', '--agent', 'ExampleBot', '--file', '-', '--json'], {
          stdin,
        })
      ).stdout,
    );
    expect(json.withoutEmptyQuery).toEqual({
      path: '/report.pdf',
      allowed: false,
      reason: 'matched',
      line: 2,
    });
    // Both forms decided alike: no note.
    const same = await runInProcess(['explain', '/page?', '--agent', 'ExampleBot', '--file', '-', '--json'], {
      stdin,
    });
    expect(JSON.parse(same.stdout).withoutEmptyQuery).toBeNull();
    const plain = await runInProcess(['explain', '/page?', '--agent', 'ExampleBot', '--file', '-'], {
      stdin,
    });
    expect(plain.stdout).not.toContain('note ');
  });

  it('with --file, reads a path starting with // as a path, as an audit --urls list does', async () => {
    const run = await runInProcess(['explain', '//cart', '--agent', 'ExampleBot', '--file', '-'], {
      stdin: 'User-agent: *\nDisallow: //cart\n',
    });
    expect(run.code).toBe(1);
    expect(lineStarting(run.lines, 'decided')).toContain('by line 2, Disallow: //cart');
    expect(run.stderr).toBe('');
  });

  it('lists the file with a bar beside the applied group and the decisive line marked', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/search/help`, '--agent', 'ExampleBot']);
    const listing = run.lines.slice(
      run.lines.indexOf('The file (18 lines)') + 1,
      run.lines.indexOf('The file (18 lines)') + 19,
    );
    expect(listing[0]).toBe('   1    # Shop robots.txt for the CLI tests');
    expect(listing[1]).toBe('   2 |  User-agent: *');
    expect(listing[3]).toBe('   4 |~ Disallow: /search');
    expect(listing[4]).toBe('   5 |> Allow: /search/help  <- decisive');
    expect(listing[5]).toBe('   6 |  Disallow: /*?sessionid=');
    // Lines of other groups carry no bar.
    expect(listing[7]).toBe('   8    User-agent: Googlebot');
    expect(listing[17]).toBe('  18    Sitemap: https://shop.example/sitemap.xml');
    expect(run.lines).toContain('  | group applied   > decisive line   ~ another matching rule');
  });

  it('says when a crawler follows another group (Googlebot-Image -> Googlebot)', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/drafts/x`, '--agent', 'Googlebot-Image']);
    expect(run.code).toBe(1);
    expect(lineStarting(run.lines, 'group')).toContain(
      'no group of its own; Googlebot-Image follows the Googlebot group (line 8) (documented fallback)',
    );
    expect(run.lines).toContain('   9 |> Disallow: /drafts/  <- decisive');
  });

  it('says when the crawler has a group that names it, and reads a whole User-Agent header', async () => {
    const run = await runInProcess([
      'explain',
      `${shop.origin}/`,
      '--agent',
      'Mozilla/5.0 (compatible; GPTBot/1.2)',
    ]);
    expect(run.code).toBe(1);
    expect(lineStarting(run.lines, 'crawler')).toContain('(product token "gptbot")');
    expect(lineStarting(run.lines, 'group')).toContain(
      'the group that names it, User-agent: GPTBot (line 11), shared with 1 other user-agent',
    );
    expect(lineStarting(run.lines, 'decided')).toContain('by line 13, Disallow: /');
  });

  it('says when no group applies and nothing is disallowed', async () => {
    const server = await startHttpServer({ '/robots.txt': text('User-agent: Googlebot\nDisallow: /\n') });
    try {
      const run = await runInProcess(['explain', `${server.origin}/x`, '--agent', 'ExampleBot']);
      expect(run.code).toBe(0);
      expect(lineStarting(run.lines, 'decided')).toContain('no group applies to this crawler');
      expect(lineStarting(run.lines, 'group')).toContain('no group names it and there is no * group');
    } finally {
      await server.close();
    }
  });

  it('keeps /robots.txt allowed under Disallow: / (RFC 9309 2.2.2)', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/robots.txt`, '--agent', 'GPTBot']);
    expect(run.code).toBe(0);
    expect(lineStarting(run.lines, 'decided')).toContain('/robots.txt itself is always allowed');
  });
});

describe('explain: other crawlers', () => {
  it('tables the default crawlers with verdict, line and group', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/search`, '--agent', 'ExampleBot']);
    const title = run.lines.indexOf('Other crawlers, same URL');
    expect(cells(run.lines[title + 1])).toEqual(['crawler', 'verdict', 'line', 'group']);
    const end = run.lines.indexOf('', title);
    const rows = new Map(
      run.lines.slice(title + 3, end).map((line) => [cells(line)[0], cells(line).slice(1)]),
    );
    expect(rows.get('Googlebot')).toEqual(['allowed', '-', 'own group']);
    expect(rows.get('Googlebot-Image')).toEqual(['allowed', '-', 'follows Googlebot (fallback)']);
    expect(rows.get('Bingbot')).toEqual(['DISALLOWED', '4', '* group']);
    expect(rows.get('GPTBot')).toEqual(['DISALLOWED', '13', 'shared group']);
    expect(rows.get('CCBot')).toEqual(['DISALLOWED', '13', 'shared group']);
    // `Useragent:` is one of Google's accepted typos: ClaudeBot has its own group.
    expect(rows.get('ClaudeBot')).toEqual(['allowed', '-', 'own group']);
    expect(rows.get('meta-externalagent')).toEqual(['DISALLOWED', '4', '* group']);
    expect(rows.size).toBe(18);
  });

  it('compares only the crawlers given with --agents', async () => {
    const run = await runInProcess([
      'explain',
      `${shop.origin}/cart`,
      '--agent',
      'ExampleBot',
      '--agents',
      'Googlebot, CCBot,,Googlebot',
    ]);
    const title = run.lines.indexOf('Other crawlers, same URL');
    expect(cells(run.lines[title + 3])).toEqual(['Googlebot', 'allowed', '-', 'own group']);
    expect(cells(run.lines[title + 4])).toEqual(['CCBot', 'DISALLOWED', '13', 'shared group']);
    expect(run.lines[title + 5]).toBe('');
  });
});

describe('explain: --agents with whole User-Agent headers', () => {
  const GPTBOT_HEADER =
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)';

  it('keeps a header whole: only commas outside its parentheses separate crawlers', async () => {
    const argv = ['explain', `${shop.origin}/cart`, '--agent', 'ExampleBot', '--agents'];
    const run = await runInProcess([...argv, `Googlebot,${GPTBOT_HEADER}, CCBot`]);
    const title = run.lines.indexOf('Other crawlers, same URL');
    expect(run.lines.slice(title + 3, title + 7).map(cells)).toEqual([
      ['Googlebot', 'allowed', '-', 'own group'],
      ['GPTBot', 'DISALLOWED', '13', 'shared group'],
      ['CCBot', 'DISALLOWED', '13', 'shared group'],
      [''],
    ]);
    const json = await runInProcess([...argv, `${GPTBOT_HEADER},Googlebot`, '--json']);
    expect(JSON.parse(json.stdout).others.map((other: { agent: string }) => other.agent)).toEqual([
      GPTBOT_HEADER,
      'Googlebot',
    ]);
  });
});

describe('explain: the status of robots.txt', () => {
  const serve = startHttpServer;

  it.each([
    [404, 0, 'HTTP 404: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.3).'],
    [403, 0, 'HTTP 403: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.3).'],
    [401, 0, 'HTTP 401: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.3).'],
    [503, 1, 'HTTP 503: robots.txt is unreachable, everything is disallowed (RFC 9309 2.3.1.4).'],
    [500, 1, 'HTTP 500: robots.txt is unreachable, everything is disallowed (RFC 9309 2.3.1.4).'],
    [429, 1, 'HTTP 429: robots.txt is unreachable, everything is disallowed (RFC 9309 2.3.1.4).'],
  ])('HTTP %i: exit %i and says what it means', async (status, code, meaning) => {
    const server = await serve({ '/robots.txt': text('User-agent: *\nAllow: /\n', status) });
    try {
      const run = await runInProcess(['explain', `${server.origin}/page`, '--agent', 'ExampleBot']);
      expect(run.code).toBe(code);
      expect(lineStarting(run.lines, 'status')).toBe(`  status   HTTP ${status}`);
      expect(lineStarting(run.lines, 'meaning')).toBe(`  meaning  ${meaning}`);
      expect(lineStarting(run.lines, 'decided')).toContain('by the status of robots.txt');
      // No file was read: no listing, no lints.
      expect(run.stdout).not.toContain('The file (');
      expect(run.stdout).not.toContain('Lints');
    } finally {
      await server.close();
    }
  });

  it('HTTP 200 with an HTML page: no valid lines, everything allowed, a lint', async () => {
    const server = await serve({
      '/robots.txt': text('<!DOCTYPE html>\n<html><body>Not found</body></html>\n', 200, {
        'content-type': 'text/html',
      }),
    });
    try {
      const run = await runInProcess(['explain', `${server.origin}/page`, '--agent', 'ExampleBot']);
      expect(run.code).toBe(0);
      expect(lineStarting(run.lines, 'meaning')).toContain(
        'HTTP 200, but the body is an HTML page: no rules apply.',
      );
      expect(run.lines).toContain('  an HTML page, not a robots.txt: no line of it is read as a rule');
      expect(lineStarting(run.lines, 'line 1')).toContain('[looks-like-html]');
    } finally {
      await server.close();
    }
  });

  it('follows redirects across origins and applies the rules to the first origin', async () => {
    other.route('/robots.txt', text('User-agent: *\nDisallow: /moved\n'));
    const server = await serve({ '/robots.txt': redirect(`${other.origin}/robots.txt`, 301) });
    try {
      const run = await runInProcess(['explain', `${server.origin}/moved/page`, '--agent', 'ExampleBot']);
      expect(run.code).toBe(1);
      expect(lineStarting(run.lines, 'redirects followed')).toBe(
        `  redirects followed: ${server.origin}/robots.txt (301) -> ${other.origin}/robots.txt (200)`,
      );
      expect(lineStarting(run.lines, 'the rules apply to')).toContain(server.origin);
      expect(lineStarting(run.lines, 'decided')).toContain('by line 2, Disallow: /moved');
    } finally {
      await server.close();
    }
  });

  it('no answer at all: everything closed, and exit 2 (the check itself failed)', async () => {
    const server = await serve();
    const origin = server.origin;
    await server.close();
    const run = await runInProcess([
      'explain',
      `${origin}/page`,
      '--agent',
      'ExampleBot',
      '--timeout',
      '5000',
    ]);
    expect(run.code).toBe(2);
    expect(run.lines[0]).toMatch(/^DISALLOWED/);
    expect(lineStarting(run.lines, 'status')).toBe('  status   no usable answer (connection-refused)');
    expect(lineStarting(run.lines, 'meaning')).toContain(
      'robots.txt is unreachable, everything is disallowed',
    );
    // Why the exit code is 2, for a script that keeps only stderr; JSON carries it itself.
    expect(run.stderr).toBe(
      `crawlee-robots: ${origin}/robots.txt got no usable HTTP answer (connection-refused)\n`,
    );
    const json = await runInProcess(['explain', `${origin}/page`, '--agent', 'ExampleBot', '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
  });

  it('a body that cannot be decoded is no usable answer either, though the server said 200', async () => {
    const server = await serve({
      '/robots.txt': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        response.end('not gzip at all');
      },
    });
    try {
      const run = await runInProcess(['explain', `${server.origin}/page`, '--agent', 'ExampleBot']);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `crawlee-robots: ${server.origin}/robots.txt got no usable HTTP answer (decoding-error)\n`,
      );
    } finally {
      await server.close();
    }
  });

  it('a server that never answers times out: everything closed, exit 2', async () => {
    const server = await serve({ '/robots.txt': () => {} });
    try {
      const run = await runInProcess([
        'explain',
        `${server.origin}/page`,
        '--agent',
        'ExampleBot',
        '--timeout',
        '300',
      ]);
      expect(run.code).toBe(2);
      expect(lineStarting(run.lines, 'status')).toBe('  status   no usable answer (timeout)');
      expect(run.stderr).toBe(
        `crawlee-robots: ${server.origin}/robots.txt got no usable HTTP answer (timeout)\n`,
      );
    } finally {
      await server.close();
    }
  });

  it('sends the crawler token in its User-Agent header', async () => {
    const before = shop.requests.length;
    await runInProcess(['explain', `${shop.origin}/`, '--agent', 'ExampleBot']);
    expect(shop.requests[before].headers['user-agent']).toMatch(/^ExampleBot \(/);
    await runInProcess(['explain', `${shop.origin}/`, '--agent', 'ExampleBot', '--user-agent', 'Custom/1.0']);
    expect(shop.requests[before + 1].headers['user-agent']).toBe('Custom/1.0');
  });
});

describe('explain: local files', () => {
  it('reads --file and accepts a bare path', async () => {
    const run = await runInProcess(['explain', '/cart', '--agent', 'ExampleBot', '--file', SHOP_ROBOTS_PATH]);
    expect(run.code).toBe(1);
    expect(run.lines[0]).toBe('DISALLOWED  /cart');
    expect(lineStarting(run.lines, 'robots.txt')).toBe(`robots.txt  ${SHOP_ROBOTS_PATH}`);
    expect(lineStarting(run.lines, 'status')).toContain('a local file, read as if served with HTTP 200');
  });

  // procfs reports a size of 0 for files that hold text, as some FUSE file systems do.
  it.runIf(existsSync('/proc/self/status'))('reads a file whose size reads 0 to its end', async () => {
    const run = await runInProcess([
      'explain',
      '/x',
      '--agent',
      'A',
      '--file',
      '/proc/self/status',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const lints = (JSON.parse(run.stdout) as { lints: { code: string; line: number }[] }).lints;
    expect(lints).toContainEqual(expect.objectContaining({ code: 'unknown-directive', line: 1 }));
  });

  it('reads stdin with --file -', async () => {
    const run = await runInProcess(['explain', 'https://example.com/a', '--agent', 'x-bot', '--file', '-'], {
      stdin: 'User-agent: x-bot\nDisallow: /a\n',
    });
    expect(run.code).toBe(1);
    expect(lineStarting(run.lines, 'robots.txt')).toBe('robots.txt  standard input');
    expect(run.lines).toContain('  2 |> Disallow: /a  <- decisive');
  });

  it('a simulated 3xx is said to be simulated, and its meaning says why everything is allowed', async () => {
    const run = await runInProcess([
      'explain',
      '/cart',
      '--agent',
      'A',
      '--file',
      SHOP_ROBOTS_PATH,
      '--status',
      '301',
    ]);
    expect(run.code).toBe(0);
    expect(lineStarting(run.lines, 'status')).toBe('  status   HTTP 301, simulated with --status');
    expect(lineStarting(run.lines, 'meaning')).toContain('HTTP 301 without a Location');
  });

  it('--status 407 is refused: a proxy answers it, the site never does', async () => {
    const run = await runInProcess([
      'explain',
      '/cart',
      '--agent',
      'A',
      '--file',
      SHOP_ROBOTS_PATH,
      '--status',
      '407',
    ]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'crawlee-robots: --status 407 is a proxy asking the crawler to log in, not an answer of the site; simulate the site with e.g. --status 404 or --status 503\n',
    );
  });

  it('--status simulates the status the file is served with', async () => {
    const closed = await runInProcess([
      'explain',
      '/',
      '--agent',
      'Googlebot',
      '--file',
      SHOP_ROBOTS_PATH,
      '--status',
      '503',
    ]);
    expect(closed.code).toBe(1);
    expect(lineStarting(closed.lines, 'status')).toBe('  status   HTTP 503, simulated with --status');
    expect(lineStarting(closed.lines, 'meaning')).toContain('everything is disallowed (RFC 9309 2.3.1.4)');
    const open = await runInProcess([
      'explain',
      '/drafts/',
      '--agent',
      'Googlebot',
      '--file',
      SHOP_ROBOTS_PATH,
      '--status',
      '404',
    ]);
    expect(open.code).toBe(0);
    expect(lineStarting(open.lines, 'meaning')).toContain('everything is allowed (RFC 9309 2.3.1.3)');
  });

  it('numbers lines as the parser does: CR, LF and CRLF end a line, a BOM is skipped', async () => {
    const run = await runInProcess(['explain', '/b', '--agent', 'ExampleBot', '--file', '-'], {
      stdin: '\uFEFFUser-agent: *\r\nDisallow: /a\rDisallow: /b\n',
    });
    expect(run.lines).toContain('  1 |  User-agent: *');
    expect(run.lines).toContain('  3 |> Disallow: /b  <- decisive');
    expect(lineStarting(run.lines, 'decided')).toContain('by line 3');
  });

  it('lists long files around the lines that matter', async () => {
    const body = ['User-agent: *', ...Array.from({ length: 300 }, (_, i) => `Disallow: /dir${i}/`)].join(
      '\n',
    );
    const run = await runInProcess(['explain', '/dir250/x', '--agent', 'ExampleBot', '--file', '-'], {
      stdin: body,
    });
    expect(run.lines).toContain('  252 |> Disallow: /dir250/  <- decisive');
    expect(run.stdout).toMatch(/\.\.\. lines \d+-\d+ not shown/);
    expect(run.lines.filter((line) => /^ +\d+ [ |]/.test(line)).length).toBeLessThan(30);
  });
});

describe('explain: lints and the closing note', () => {
  it('lists the lints with their line numbers', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/`, '--agent', 'ExampleBot']);
    const typo = lineStarting(run.lines, /^ {2}line 15 /);
    expect(typo).toContain('[accepted-typo]');
    expect(lineStarting(run.lines, 'Lints (')).toMatch(/^Lints \(.*\d+ warning/);
  });

  it('closes with the reminder that robots.txt is not access control', async () => {
    const run = await runInProcess(['explain', `${shop.origin}/`, '--agent', 'ExampleBot']);
    expect(run.stdout).toContain('Note: robots.txt is a request to crawlers, not access control');
  });
});

describe('explain: colours', () => {
  const argv = () => ['explain', `${shop.origin}/search`, '--agent', 'ExampleBot'];
  const ESC = '\u001b[';

  it('colours a terminal', async () => {
    const run = await runInProcess(argv(), { tty: true });
    expect(run.lines[0]).toContain(`${ESC}31m`);
    expect(run.stdout).toContain(`${ESC}7mDisallow: /search${ESC}27m`);
  });

  it('is plain when piped, when NO_COLOR is set, or with --no-color', async () => {
    expect((await runInProcess(argv())).stdout).not.toContain(ESC);
    expect((await runInProcess(argv(), { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toContain(ESC);
    expect((await runInProcess([...argv(), '--no-color'], { tty: true })).stdout).not.toContain(ESC);
  });

  it('FORCE_COLOR=0 and FORCE_COLOR=false turn colours off, even on a terminal', async () => {
    for (const value of ['0', 'false']) {
      expect((await runInProcess(argv(), { tty: true, env: { FORCE_COLOR: value } })).stdout).not.toContain(
        ESC,
      );
    }
  });

  it('--color and FORCE_COLOR colour a pipe', async () => {
    expect((await runInProcess([...argv(), '--color'])).stdout).toContain(ESC);
    expect((await runInProcess(argv(), { env: { FORCE_COLOR: '1' } })).stdout).toContain(ESC);
  });
});

describe('explain --json', () => {
  it('prints the verdict, the robots.txt status, the other crawlers and the lints', async () => {
    const run = await runInProcess(
      ['explain', `${shop.origin}/search/help`, '--agent', 'ExampleBot', '--json', '--agents', 'GPTBot'],
      { tty: true },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('\u001b[');
    const json = JSON.parse(run.stdout);
    expect(Object.keys(json)).toEqual([
      'url',
      'agent',
      'productToken',
      'path',
      'allowed',
      'reason',
      'rule',
      'group',
      'candidates',
      'withoutEmptyQuery',
      'robotsTxt',
      'others',
      'lints',
      'exitCode',
    ]);
    expect(json).toMatchObject({
      url: `${shop.origin}/search/help`,
      agent: 'ExampleBot',
      productToken: 'examplebot',
      path: '/search/help',
      allowed: true,
      reason: 'matched',
      rule: { kind: 'allow', pattern: '/search/help', line: 5, length: 12 },
      group: { how: 'star', token: '*', userAgentLines: [2], spans: [{ startLine: 2, endLine: 6 }] },
      robotsTxt: {
        source: 'http',
        url: `${shop.origin}/robots.txt`,
        status: 200,
        simulatedStatus: null,
        policy: 'rules',
        hops: [{ url: `${shop.origin}/robots.txt`, status: 200, location: null }],
        truncated: false,
        lines: 18,
        sitemaps: ['https://shop.example/sitemap.xml'],
      },
      others: [
        {
          agent: 'GPTBot',
          productToken: 'gptbot',
          allowed: false,
          reason: 'matched',
          line: 13,
          group: { how: 'token', token: 'gptbot' },
        },
      ],
      exitCode: 0,
    });
    expect(json.candidates.map((rule: { line: number }) => rule.line)).toEqual([5, 4]);
    expect(json.lints).toContainEqual(
      expect.objectContaining({ code: 'accepted-typo', line: 15, severity: expect.any(String) }),
    );
  });

  it('reports a policy without a file as allow-all / disallow-all', async () => {
    const run = await runInProcess([
      'explain',
      '/x',
      '--agent',
      'A',
      '--file',
      SHOP_ROBOTS_PATH,
      '--status',
      '500',
      '--json',
    ]);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({
      allowed: false,
      reason: 'disallow-all',
      rule: null,
      candidates: [],
      lints: [],
    });
    expect(json.robotsTxt).toMatchObject({
      source: 'file',
      status: 500,
      simulatedStatus: 500,
      policy: 'disallow-all',
    });
  });
});

describe('explain of a robots.txt larger than crawlers read', () => {
  it('lists and counts the lines the parser read, not the octets fetched past the limit', async () => {
    const large = await startHttpServer({ '/robots.txt': largeRobotsTxt(2_000_000).handler });
    try {
      const json = await runInProcess(['explain', `${large.origin}/x`, '--agent', 'ExampleBot', '--json']);
      const report = JSON.parse(json.stdout);
      const ignoredFrom = report.lints.find((lint: { code: string }) => lint.code === 'file-too-large').line;
      expect(ignoredFrom).toBeGreaterThan(1000);
      expect(report.robotsTxt.lines).toBe(ignoredFrom - 1);
      const run = await runInProcess(['explain', `${large.origin}/x`, '--agent', 'ExampleBot']);
      expect(run.lines).toContain(`The file (the first ${ignoredFrom - 1} lines, the rest ignored)`);
    } finally {
      await large.close();
    }
  });

  it('says of one line longer than the limit that it was cut, and that it is longer than what was read', async () => {
    const large = await startHttpServer({ '/robots.txt': text(`# ${'a'.repeat(2_000_000)}`) });
    try {
      const run = await runInProcess(['explain', `${large.origin}/x`, '--agent', 'ExampleBot']);
      expect(run.lines).toContain('The file (its first line, the rest ignored)');
      expect(run.stdout).toMatch(
        /The line is longer than the \d+ bytes read of it \(the file was cut there\)/,
      );
      expect(run.stdout).toContain('everything from line 2 on is ignored. [file-too-large]');
    } finally {
      await large.close();
    }
  });
});

describe('explain of a robots.txt answered 304 Not Modified, which it never asks for', () => {
  it('says the status as it is, and why it is read as unavailable', async () => {
    const site = await startHttpServer({
      '/robots.txt': (_request, response) => void response.writeHead(304).end(),
    });
    try {
      const run = await runInProcess(['explain', `${site.origin}/page`, '--agent', 'ExampleBot']);
      expect(run.code).toBe(0);
      expect(lineStarting(run.lines, 'status')).toBe(
        '  status   HTTP 304 Not Modified, to a request that was not conditional (invalid-redirect)',
      );
      expect(lineStarting(run.lines, 'meaning')).toContain(
        'HTTP 304 Not Modified, though the request was not conditional',
      );
      const sitemaps = await runInProcess(['sitemaps', site.origin]);
      expect(sitemaps.stdout).toContain(
        `robots.txt  ${site.origin}/robots.txt: HTTP 304 Not Modified, to a request that was not conditional (invalid-redirect), 0 sitemaps declared`,
      );
    } finally {
      await site.close();
    }
  });
});

describe('explain of a robots.txt whose redirects loop', () => {
  it('says the redirects reach no robots.txt, read as unavailable: allowed, exit 0', async () => {
    const looping = await startHttpServer();
    looping.route('/robots.txt', redirect('/a.txt', 301));
    looping.route('/a.txt', redirect('/robots.txt', 302));
    try {
      const run = await runInProcess(['explain', `${looping.origin}/page`, '--agent', 'ExampleBot']);
      expect(run.code).toBe(0);
      expect(run.lines[0]).toMatch(/^ALLOWED/);
      expect(lineStarting(run.lines, 'status')).toBe(
        '  status   redirects that reach no robots.txt (redirect-loop)',
      );
      expect(lineStarting(run.lines, 'meaning')).toContain(
        'robots.txt is unavailable, everything is allowed',
      );
      expect(run.stderr).toBe('');
      const audit = await runInProcess(['audit', looping.origin]);
      expect(audit.code).toBe(0);
      expect(audit.stdout).toContain('robots.txt is unavailable (redirect-loop): there are no rules');
      expect(audit.stdout).toContain('(RFC 9309 2.3.1.2)');
      expect(audit.stdout).not.toContain('2.3.1.3');
    } finally {
      await looping.close();
    }
  });
});
