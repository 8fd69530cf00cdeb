import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { runInProcess, SHOP_ROBOTS_PATH } from './run-cli.js';

afterAll(removeTempDirs);

const dir = tempDir('bad');

/** One line on stderr, no stack trace, nothing on stdout, exit 2. */
function expectUsageError(
  run: { code: number; stdout: string; stderr: string },
  message: string | RegExp,
): void {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr.startsWith('crawlee-robots: ')).toBe(true);
  if (typeof message === 'string') expect(run.stderr).toContain(message);
  else expect(run.stderr).toMatch(message);
}

describe('bad input: one clear line, exit 2', () => {
  it('an unknown option', async () => {
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--bogus']),
      "unknown option '--bogus'",
    );
  });

  it('a misspelt option, with a suggestion on the same line', async () => {
    const run = await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--agnets', 'B']);
    expectUsageError(run, /unknown option '--agnets'; did you mean --agents\?/);
  });

  it('an unknown command, and no command', async () => {
    expectUsageError(await runInProcess(['frobnicate']), "unknown command 'frobnicate'");
    expectUsageError(await runInProcess(['help', 'frobnicate']), "unknown command 'frobnicate'");
    expect(await runInProcess(['help', 'audit'])).toMatchObject({ code: 0, stderr: '' });
    const none = await runInProcess([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: crawlee-robots');
  });

  it('an option whose value is left out, which would take the next option as its value', async () => {
    const file = ['--file', SHOP_ROBOTS_PATH];
    const cases: [args: string[], option: string, next: string][] = [
      [['explain', 'https://shop.example/x', ...file, '--agent', '--json'], '--agent', '--json'],
      [['explain', 'https://shop.example/x', '--agent', 'A', '--file', '--no-color'], '--file', '--no-color'],
      [['audit', 'https://shop.example', ...file, '--agents', '--json'], '--agents', '--json'],
      [['audit', 'https://shop.example', ...file, '--html', '--json'], '--html', '--json'],
      [['audit', 'https://shop.example', ...file, '--fail-on', '--json'], '--fail-on', '--json'],
      [['sitemaps', 'https://shop.example', '--agent', '--json'], '--agent', '--json'],
    ];
    for (const [args, option, next] of cases) {
      expectUsageError(
        await runInProcess(args),
        `${option} needs a value, and the next argument is the option "${next}"`,
      );
    }
    expect(readdirSync('.')).not.toContain('--json');
  });

  it('an empty file name, which would name the working directory', async () => {
    for (const [option, args] of [
      ['--file', ['explain', '/x', '--agent', 'A', '--file', '']],
      ['--urls', ['audit', 'https://shop.example', '--file', SHOP_ROBOTS_PATH, '--urls', '']],
      ['--html', ['audit', 'https://shop.example', '--file', SHOP_ROBOTS_PATH, '--html', '']],
    ] as const) {
      expectUsageError(await runInProcess([...args]), `${option} needs a file name, and got an empty one`);
    }
  });

  it('a missing --agent', async () => {
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/']),
      "required option '-a, --agent <name>' not specified",
    );
  });

  it('a URL without scheme', async () => {
    expectUsageError(
      await runInProcess(['explain', 'example.com/private', '--agent', 'A']),
      'URL "example.com/private" has no scheme; write it as an absolute URL, e.g. https://example.com/private',
    );
    expectUsageError(await runInProcess(['audit', 'example.com']), 'site "example.com" has no scheme');
  });

  it('a host and port without scheme: no scheme, not the scheme "localhost:"', async () => {
    expectUsageError(
      await runInProcess(['explain', 'localhost:8080/cart', '--agent', 'A']),
      'URL "localhost:8080/cart" has no scheme; write it as an absolute URL, e.g. https://localhost:8080/cart',
    );
    expectUsageError(
      await runInProcess(['explain', 'example.com:443/cart', '--agent', 'A']),
      'e.g. https://example.com:443/cart',
    );
    expectUsageError(
      await runInProcess(['audit', 'localhost:3000']),
      'site "localhost:3000" has no scheme; write it as an absolute URL, e.g. https://localhost:3000',
    );
  });

  it('text that is neither a URL nor a path gets no made-up host', async () => {
    for (const value of ['./cart', '?q=1', 'cart']) {
      const run = await runInProcess(['explain', value, '--agent', 'A']);
      expectUsageError(
        run,
        `URL ${JSON.stringify(value)} is neither an absolute URL nor a path starting with /; write it as an absolute URL, e.g. https://example.com/page`,
      );
      expect(run.stderr).not.toContain(`https://${value}`);
    }
  });

  it('a URL argument with bytes that were not UTF-8 (U+FFFD once Node read it): refused, not checked as another URL', async () => {
    for (const [argv, what] of [
      [['explain', 'https://a.example/caf\uFFFD', '--agent', 'A', '--file', SHOP_ROBOTS_PATH], 'URL'],
      [['explain', '/caf\uFFFD', '--agent', 'A', '--file', SHOP_ROBOTS_PATH], 'URL'],
      [['audit', 'https://a\uFFFD.example/', '--file', SHOP_ROBOTS_PATH], 'site'],
    ] as const) {
      expectUsageError(
        await runInProcess([...argv]),
        `crawlee-robots: ${what} holds bytes that are not UTF-8 (shown as U+FFFD): write it in UTF-8, or percent-encode them (%E9)`,
      );
    }
  });

  it('credentials in a URL are never printed: robots.txt is fetched without them', async () => {
    const dir = tempDir('credentials');
    const list = join(dir, 'urls.txt');
    writeFileSync(list, 'https://user:secret@a.example/cart\n/about\n');
    const explain = [
      'explain',
      'https://user:secret@a.example/cart',
      '--agent',
      'A',
      '--file',
      SHOP_ROBOTS_PATH,
    ];
    const audit = ['audit', '--file', SHOP_ROBOTS_PATH, '--agents', 'A', '--json'];
    const runs = [
      await runInProcess(explain),
      await runInProcess([...explain, '--json']),
      await runInProcess([...audit, 'https://user:secret@a.example/']),
      await runInProcess([...audit, 'https://a.example/', '--urls', list]),
    ];
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.stdout).not.toContain('secret');
    }
    expect(runs[0].stdout).toContain('https://a.example/cart');
    expect(JSON.parse(runs[1].stdout).url).toBe('https://a.example/cart');
    expect(JSON.parse(runs[2].stdout).site).toBe('https://a.example/');
    expect(JSON.parse(runs[3].stdout).urls.map((row: { url: string }) => row.url)).toContain(
      'https://a.example/cart',
    );
  });

  it('a URL with a slash too many or too few after its scheme, which a parser would read as another host', async () => {
    for (const url of ['https:///cart', 'https:/cart', 'http:\\\\\\cart']) {
      expectUsageError(
        await runInProcess(['explain', url, '--agent', 'A', '--file', SHOP_ROBOTS_PATH]),
        `${JSON.stringify(url)} does not start with http:// or https:// and a host`,
      );
    }
  });

  it('credentials in a URL that is refused are not quoted in its message either', async () => {
    const urls = ['https://u:secret@other.example/x', 'http://u:secret@shop.example:99999/x'];
    const runs: [args: string[], message: RegExp][] = [
      [
        ['explain', 'http://user:secret@shop.example:99999/', '--agent', 'A'],
        /"http:\/\/shop\.example:99999\/"/,
      ],
      [['explain', 'ftp://user:secret@shop.example/cart', '--agent', 'A'], /"ftp:\/\/shop\.example\/cart"/],
      [['explain', '//user:secret@shop.example/x', '--agent', 'A'], /e\.g\. https:\/\/shop\.example\/x/],
      [['audit', 'https://u:secret@[::1'], /"https:\/\/\[::1"/],
      [['sitemaps', 'https://u:secret@shop.example:70000'], /"https:\/\/shop\.example:70000"/],
    ];
    for (const [index, url] of urls.entries()) {
      const list = join(dir, `credential-urls-${index}.txt`);
      writeFileSync(list, `${url}\n`);
      runs.push([
        ['audit', 'https://shop.example', '--file', SHOP_ROBOTS_PATH, '--urls', list],
        index === 0 ? /https:\/\/other\.example\/x is not on/ : /"http:\/\/shop\.example:99999\/x"/,
      ]);
    }
    for (const [args, message] of runs) {
      const run = await runInProcess(args);
      expectUsageError(run, message);
      expect(run.stderr, args.join(' ')).not.toContain('secret');
    }
  });

  it('an option that takes one value, given twice', async () => {
    const file = ['--file', SHOP_ROBOTS_PATH];
    for (const [argv, option] of [
      [['explain', '/x', '--agent', 'Googlebot', '--agent', 'ExampleBot', ...file], '--agent'],
      [['explain', '/x', '--agent', 'A', '--file', '/nonexistent', ...file], '--file'],
      [['explain', '/x', '--agent', 'A', ...file, '--status', '503', '--status', '200'], '--status'],
      [['audit', 'https://a.example/', ...file, '--html', 'a.html', '--html', 'b.html'], '--html'],
      [['audit', 'https://a.example/', ...file, '--urls', 'a.txt', '--urls', 'b.txt'], '--urls'],
      [['audit', 'https://a.example/', ...file, '--timeout', '5', '--timeout', '6'], '--timeout'],
      [['sitemaps', 'https://a.example/', '--max-urls', '5', '--max-urls', '6'], '--max-urls'],
      [['sitemaps', 'https://a.example/', '--user-agent', 'A/1', '--user-agent', 'B/1'], '--user-agent'],
    ] as const) {
      expectUsageError(
        await runInProcess([...argv]),
        `crawlee-robots: ${option} was given twice: give it once`,
      );
    }
  });

  it('--html -: refused, no file named - written', async () => {
    const cwd = tempDir('html');
    expectUsageError(
      await runInProcess(['audit', 'https://a.example/', '--file', SHOP_ROBOTS_PATH, '--html', '-'], { cwd }),
      '--html -: the HTML report goes to a file, as stdout holds the text or JSON report; give a file name such as --html report.html',
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('--html with a name of stdout: refused as --html - is', async () => {
    for (const [html, cwd] of [
      ['/dev/stdout', undefined],
      ['/dev/fd/1', undefined],
      ['/proc/self/fd/1', undefined],
      ['stdout', '/dev'],
      ['../dev/./stdout', '/tmp'],
    ] as const) {
      expectUsageError(
        await runInProcess(['audit', 'https://a.example/', '--file', SHOP_ROBOTS_PATH, '--html', html], {
          ...(cwd === undefined ? {} : { cwd }),
        }),
        `--html ${html} is standard output: the HTML report goes to a file, as stdout holds the text or JSON report; give a file name such as --html report.html`,
      );
    }
  });

  it('a URL that is not http(s)', async () => {
    expectUsageError(
      await runInProcess(['explain', 'ftp://a.example/x', '--agent', 'A']),
      'http and https URLs only',
    );
  });

  it('a bare path without --file: a path needs --file or a full URL', async () => {
    expectUsageError(
      await runInProcess(['explain', '/private', '--agent', 'A']),
      'URL "/private" is a path: give --file with a local robots.txt to check a path, or write the full URL, e.g. https://example.com/private',
    );
    expectUsageError(
      await runInProcess(['audit', '/private']),
      'site "/private" is a path: write it as a full URL, e.g. https://example.com',
    );
    expectUsageError(
      await runInProcess(['sitemaps', '/']),
      'site "/" is a path: write it as a full URL, e.g. https://example.com',
    );
  });

  it('a crawler name that is no product token', async () => {
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'Foo Bar']),
      '--agent: "Foo Bar" names no crawler',
    );
    expectUsageError(
      await runInProcess(['audit', 'https://a.example/', '--agents', 'Googlebot,1234']),
      '--agents: "1234" names no crawler',
    );
    for (const [agent, token] of [
      ['bøt', 'b'],
      ['bot.example', 'bot'],
      ['Bot1.example', 'bot'],
    ]) {
      expectUsageError(
        await runInProcess(['explain', 'https://a.example/', '--agent', agent]),
        `--agent: "${agent}" is no product token (letters, "-" and "_"), and would be read as "${token}"`,
      );
    }
    expectUsageError(
      await runInProcess(['sitemaps', 'https://a.example/', '--agent', 'Bot_2!']),
      '--agent: "Bot_2!" is no product token',
    );
  });

  it('a crawler name that a digit cuts (MJ12bot) is read as its own User-Agent header is', async () => {
    const file = join(tempDir('file'), 'robots.txt');
    writeFileSync(file, 'User-agent: *\nAllow: /\n\nUser-agent: MJ12bot\nDisallow: /\n');
    const run = await runInProcess(['explain', '/x', '--agent', 'MJ12bot', '--file', file, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1); // disallowed
    const verdict = JSON.parse(run.stdout);
    expect(verdict).toMatchObject({ allowed: false, group: { how: 'token', userAgentLines: [4] } });
  });

  describe('a --user-agent or crawler name that no HTTP header can carry: refused before any request', () => {
    let server: TestHttpServer;
    beforeAll(async () => {
      server = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /private\n') });
    });
    afterAll(async () => {
      await server.close();
    });

    it('--user-agent with a line break, a control or a non-Latin-1 character, or blank, in every command', async () => {
      const page = `${server.origin}/x`;
      expectUsageError(
        await runInProcess(['explain', page, '--agent', 'ExampleBot', '--user-agent', 'Bot\nX-Injected: 1']),
        '--user-agent: "Bot\\nX-Injected: 1" holds a line feed (U+000A) at position 4, which no User-Agent header can carry',
      );
      expectUsageError(
        await runInProcess(['sitemaps', server.origin, '--user-agent', 'Bot\r\nX: y']),
        '--user-agent: "Bot\\r\\nX: y" holds a carriage return (U+000D) at position 4',
      );
      expectUsageError(
        await runInProcess(['audit', server.origin, '--user-agent', 'Bot\u0000']),
        'holds a character (U+0000) at position 4',
      );
      expectUsageError(
        await runInProcess(['audit', server.origin, '--user-agent', 'Bot\u2192/1.0']),
        'holds a character (U+2192) at position 4',
      );
      expectUsageError(
        await runInProcess(['explain', page, '--agent', 'ExampleBot', '--user-agent', ' ']),
        '--user-agent: " " is blank',
      );
      expect(server.requests).toEqual([]);
    });

    it('--agent and --agents, which may be sent as the header', async () => {
      const page = `${server.origin}/x`;
      expectUsageError(
        await runInProcess(['explain', page, '--agent', 'Mozilla/5.0 (compatible; Bot/1.0)\r\nX: y']),
        'holds a carriage return (U+000D) at position 34, which no User-Agent header can carry',
      );
      expectUsageError(
        await runInProcess(['sitemaps', server.origin, '--agent', 'Mozilla/5.0 (compatible; Bot/1.0)\nX: y']),
        '--agent: "Mozilla/5.0 (compatible; Bot/1.0)\\nX: y" holds a line feed (U+000A)',
      );
      expectUsageError(
        await runInProcess(['audit', server.origin, '--agents', 'Bot\u2192,Googlebot']),
        '--agents: "Bot\u2192" holds a character (U+2192) at position 4',
      );
      expect(server.requests).toEqual([]);
    });

    it('a header with Latin-1 letters is sent as given', async () => {
      const agent = 'Mozilla/5.0 (compatible; ExampleBot/1.0; caf\u00e9)';
      const run = await runInProcess(['explain', `${server.origin}/private`, '--agent', agent]);
      expect(run.code).toBe(1);
      expect(server.requests.at(-1)?.headers['user-agent']).toBe(agent);
    });
  });

  it('a URL list that is not UTF-8: the file and the first bad line, nothing audited', async () => {
    const latin1 = join(dir, 'urls-latin1.txt');
    // Line 3 holds "/café" in Latin-1 (0xE9): decoded loosely it would become /caf%EF%BF%BD.
    writeFileSync(
      latin1,
      Buffer.concat([Buffer.from('# URLs\r\n/ok\r\n/caf'), Buffer.from([0xe9]), Buffer.from('\r\n/x\n')]),
    );
    const args = ['audit', 'https://shop.example', '--file', SHOP_ROBOTS_PATH, '--agents', 'ExampleBot'];
    expectUsageError(
      await runInProcess([...args, '--urls', latin1, '--json']),
      `${latin1} line 3: not UTF-8 text; save the list as UTF-8 or percent-encode its URLs`,
    );
    // A sequence cut short at the end of the input, on standard input.
    expectUsageError(
      await runInProcess([...args, '--urls', '-'], { stdin: Buffer.from([0x2f, 0x61, 0x0a, 0x2f, 0xc3]) }),
      'stdin line 2: not UTF-8 text',
    );
    // UTF-8 with a byte order mark and a non-ASCII path is fine.
    const bom = join(dir, 'urls-bom.txt');
    writeFileSync(bom, '\uFEFF/caf\u00e9\r\n/ok\r\n');
    const run = await runInProcess([...args, '--urls', bom, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).urls.map((row: { url: string }) => row.url)).toEqual([
      'https://shop.example/caf%C3%A9',
      'https://shop.example/ok',
    ]);
  });

  it('a URL list with a NUL octet is called a URL list, not a robots.txt', async () => {
    const list = join(dir, 'urls-nul.txt');
    writeFileSync(list, Buffer.from('/a\n/b\0\n'));
    expectUsageError(
      await runInProcess(['audit', 'https://shop.example', '--file', SHOP_ROBOTS_PATH, '--urls', list]),
      `${list} holds binary data (a NUL octet at offset 5), not a UTF-8 URL list`,
    );
  });

  it('a missing --urls file, said before robots.txt is fetched', async () => {
    const site = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /x\n') });
    try {
      expectUsageError(
        await runInProcess(['audit', site.origin, '--urls', join(dir, 'missing.txt')]),
        `cannot read ${join(dir, 'missing.txt')}: no such file`,
      );
      expect(site.hits('/robots.txt')).toBe(0);
    } finally {
      await site.close();
    }
  });

  it('a missing, unreadable or directory file', async () => {
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', join(dir, 'missing.txt')]),
      `cannot read ${join(dir, 'missing.txt')}: no such file`,
    );
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', dir]),
      'it is a directory',
    );
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked.txt');
      writeFileSync(locked, 'User-agent: *\n');
      chmodSync(locked, 0);
      expectUsageError(
        await runInProcess(['explain', '/', '--agent', 'A', '--file', locked]),
        'permission denied',
      );
    }
  });

  it('a binary file: an image, gzip data, UTF-16', async () => {
    const png = join(dir, 'robots.png');
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', png]),
      /holds binary data \(a NUL octet at offset 8\), not a UTF-8 robots.txt/,
    );
    const gz = join(dir, 'robots.txt.gz');
    writeFileSync(gz, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]));
    expectUsageError(await runInProcess(['explain', '/', '--agent', 'A', '--file', gz]), 'holds gzip data');
    const utf16 = join(dir, 'utf16.txt');
    writeFileSync(utf16, Buffer.from('\uFEFFUser-agent: *', 'utf16le'));
    expectUsageError(await runInProcess(['explain', '/', '--agent', 'A', '--file', utf16]), 'binary data');
  });

  it('a 500 MB stdin: refused after reading at most the parser cap', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'Disallow: /x\n');
    let served = 0;
    async function* huge() {
      while (served < 500 * 1024 * 1024) {
        served += chunk.length;
        yield chunk;
      }
    }
    const run = await runInProcess(['explain', '/', '--agent', 'A', '--file', '-'], { stdin: huge() });
    expectUsageError(
      run,
      'stdin is larger than 512000 octets (500 KiB, where RFC 9309 2.5 lets parsers stop)',
    );
    expect(served).toBeLessThan(512_000 + 2 * chunk.length);
  });

  it('a file over 500 KiB', async () => {
    const big = join(dir, 'big.txt');
    writeFileSync(big, 'Disallow: /x\n'.repeat(50_000));
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', big]),
      'is larger than 512000 octets',
    );
  });

  it('bad --status, --timeout, --fail-on values, and --status without --file', async () => {
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', SHOP_ROBOTS_PATH, '--status', '5O3']),
      '--status takes an HTTP status from 100 to 599',
    );
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--status', '503']),
      'use it together with --file',
    );
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--timeout', 'soon']),
      '--timeout takes milliseconds',
    );
    expectUsageError(
      await runInProcess(['audit', 'https://a.example/', '--fail-on', 'blocked']),
      '--fail-on "blocked" is not a rule',
    );
  });

  it('a --timeout past ten minutes, which Node timers cannot all hold, in every command', async () => {
    const local = ['--file', SHOP_ROBOTS_PATH];
    for (const argv of [
      ['explain', '/', '--agent', 'A', ...local],
      ['audit', 'https://shop.example', ...local],
      ['sitemaps', 'https://shop.example'],
    ]) {
      for (const timeout of ['600001', '2147483647', '99999999999']) {
        expectUsageError(
          await runInProcess([...argv, '--timeout', timeout]),
          `--timeout takes milliseconds, from 1 to 600000 (10 minutes), e.g. --timeout 10000; got "${timeout}"`,
        );
      }
    }
    const longest = await runInProcess(['explain', '/cart', '--agent', 'A', ...local, '--timeout', '600000']);
    expect(longest.code).toBe(1);
    expect(longest.stderr).toBe('');
  });

  it('both --file - and --urls - on stdin', async () => {
    expectUsageError(
      await runInProcess(['audit', 'https://a.example/', '--file', '-', '--urls', '-'], {
        stdin: 'User-agent: *\n',
      }),
      'cannot both read standard input',
    );
  });

  it('--version prints the version of the package, for CI logs', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const run = await runInProcess(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${version}\n`);
    expect(run.stderr).toBe('');
  });

  it('help is not an error', async () => {
    const run = await runInProcess(['explain', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: crawlee-robots explain [options] <url>');
    expect(run.stdout).toContain('--status <code>');
  });
});
