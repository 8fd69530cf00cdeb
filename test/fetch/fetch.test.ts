import { createServer as createNetServer, connect as netConnect, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchRobotsTxt,
  GotScrapingRobotsClient,
  MAX_HOP_TEXT,
  type RobotsFetchOptions,
  type RobotsHttpClient,
} from '../../src/fetch/index.js';
import { MAX_LINE_OCTETS, RobotsTxt } from '../../src/robots/index.js';
import {
  largeRobotsTxt,
  never,
  redirect,
  startHttpServer,
  type TestHttpServer,
  text,
} from '../support/http-server.js';
import { freePort } from '../support/redis.js';

const USER_AGENT = 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)';
const RULES = 'User-agent: examplebot\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n';
const options: RobotsFetchOptions = { userAgent: USER_AGENT, timeoutMs: 2000, connectTimeoutMs: 1000 };

/** Starts a server whose robots.txt is answered by `handler`, fetches it, closes the server. */
async function fetchFrom(
  handler: Parameters<TestHttpServer['route']>[1],
  extra: Partial<RobotsFetchOptions> = {},
) {
  const server = await startHttpServer({ '/robots.txt': handler });
  try {
    const result = await fetchRobotsTxt(`${server.origin}/some/page`, { ...options, ...extra });
    return { result, server };
  } finally {
    await server.close();
  }
}

describe('fetchRobotsTxt: status rules (RFC 9309 2.3.1)', () => {
  it('parses a 2xx answer, fetched with the crawler User-Agent and no browser headers', async () => {
    const { result, server } = await fetchFrom(text(RULES));
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: false });
    expect(result.origin).toBe(server.origin);
    expect(result.robotsTxtUrl).toBe(`${server.origin}/robots.txt`);
    expect(result.robots?.isAllowed(`${server.origin}/private/x`, USER_AGENT)).toBe(false);
    expect(result.robots?.isAllowed(`${server.origin}/public`, USER_AGENT)).toBe(true);
    const headers = server.requests[0].headers;
    expect(headers['user-agent']).toBe(USER_AGENT);
    expect(headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(headers['sec-ch-ua']).toBeUndefined();
    expect(result.hops).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 410, 451])('treats %i as unavailable: allow all (2.3.1.3)', async (status) => {
    const { result } = await fetchFrom(text('User-agent: *\nDisallow: /\n', status));
    expect(result).toMatchObject({ status, kind: 'allow-all', robots: null });
    expect(result.why).toContain('2.3.1.3');
  });

  it.each([500, 502, 503, 504, 429])('treats %i as unreachable: disallow all (2.3.1.4)', async (status) => {
    const { result } = await fetchFrom(text('<html>error</html>', status, { 'retry-after': '120' }));
    expect(result).toMatchObject({ status, kind: 'disallow-all', robots: null, retryAfterMs: 120_000 });
    expect(result.why).toContain('2.3.1.4');
  });

  it('treats a 206 that holds a part of the file as unreachable, and one that holds all of it as the file', async () => {
    const whole = 'User-agent: *\nAllow: /\nDisallow: /private/\n';
    const part = whole.slice(0, 23);
    for (const range of [`bytes 0-22/${whole.length}`, 'bytes 0-22/*', undefined]) {
      const { result } = await fetchFrom(
        text(part, 206, range === undefined ? {} : { 'content-range': range }),
      );
      expect(result).toMatchObject({ status: 206, kind: 'disallow-all', robots: null });
      expect(result.why).toBe(
        `HTTP 206, a part of the file (Content-Range: ${range ?? 'none'}): robots.txt is unreachable, everything is disallowed (RFC 9309 2.3.1.4).`,
      );
    }
    const { result } = await fetchFrom(
      text(whole, 206, { 'content-range': `bytes 0-${whole.length - 1}/${whole.length}` }),
    );
    expect(result).toMatchObject({ status: 206, kind: 'rules' });
    expect(result.robots?.isAllowed('/private/page', 'ExampleBot')).toBe(false);
  });

  it('reads an answer with 20 KB of headers, as a browser does, and gives up on 300 KB', async () => {
    const big = { 'content-security-policy': `default-src 'self' ${'https://cdn.example.com '.repeat(800)}` };
    const rules = await fetchFrom(text('User-agent: *\nDisallow: /private/\n', 200, big));
    expect(rules.result).toMatchObject({ status: 200, kind: 'rules' });
    expect(rules.result.robots?.isAllowed('/private/x', 'ExampleBot')).toBe(false);
    const missing = await fetchFrom(text('no such page', 404, big));
    expect(missing.result).toMatchObject({ status: 404, kind: 'allow-all' });
    const huge = { 'content-security-policy': 'x'.repeat(300 * 1024) };
    const refused = await fetchFrom(text('User-agent: *\nDisallow: /\n', 200, huge));
    expect(refused.result).toMatchObject({ status: 'network-error', kind: 'disallow-all' });
  });

  it('yields no rules and a lint for an HTML page served with 200', async () => {
    const html = '<!DOCTYPE html>\n<html><head><title>Home</title></head><body>Disallow: /</body></html>';
    const { result } = await fetchFrom(text(html, 200, { 'content-type': 'text/html' }));
    expect(result.kind).toBe('rules');
    expect(result.contentType).toBe('text/html');
    expect(result.robots?.groups).toHaveLength(0);
    expect(result.robots?.lints.map((lint) => lint.code)).toContain('looks-like-html');
    expect(result.robots?.isAllowed('/anything', 'ExampleBot')).toBe(true);
  });

  it('reads Cache-Control: max-age=60', async () => {
    const { result } = await fetchFrom(text(RULES, 200, { 'cache-control': 'public, max-age=60' }));
    expect(result.cacheControl).toBe('public, max-age=60');
    expect(result.cacheDirectives).toEqual({ maxAgeMs: 60_000, noReuse: false });
  });
});

describe('fetchRobotsTxt: redirects (RFC 9309 2.3.1.2)', () => {
  let server: TestHttpServer;
  let other: TestHttpServer;

  beforeAll(async () => {
    server = await startHttpServer();
    other = await startHttpServer({ '/moved/robots.txt': text('User-agent: *\nDisallow: /from-other\n') });
    for (let hop = 1; hop <= 6; hop++)
      server.route(`/r${hop}`, text(`User-agent: *\nDisallow: /after-${hop}\n`));
  });
  afterAll(async () => {
    await server.close();
    await other.close();
  });

  /** A chain of `count` redirects starting at /robots.txt and ending on `/r<count>`. */
  function chain(count: number): void {
    server.route('/robots.txt', redirect(count === 1 ? `/r${count}` : '/c1', 302));
    for (let step = 1; step < count; step++) {
      server.route(`/c${step}`, redirect(step === count - 1 ? `/r${count}` : `/c${step + 1}`, 307));
    }
  }

  it.each([1, 5])('follows a chain of %i redirects; the rules apply to the first origin', async (count) => {
    chain(count);
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 200, kind: 'rules', origin: server.origin });
    expect(result.hops).toHaveLength(count + 1);
    expect(result.finalUrl).toBe(`${server.origin}/r${count}`);
    expect(result.robots?.isAllowed(`${server.origin}/after-${count}`, 'ExampleBot')).toBe(false);
  });

  it('keeps the first 4,096 characters of each URL and Location of a hop, however long the one followed', async () => {
    const long = `/long/${'a'.repeat(200_000)}`;
    server.route('/robots.txt', redirect(long, 301));
    server.route(long, text('User-agent: *\nDisallow: /after-long\n'));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(result.robots?.isAllowed(`${server.origin}/after-long`, 'ExampleBot')).toBe(false);
    expect(result.hops.map((hop) => [hop.url.length, hop.location?.length])).toEqual([
      [`${server.origin}/robots.txt`.length, MAX_HOP_TEXT + 1],
      [MAX_HOP_TEXT + 1, undefined],
    ]);
    expect(result.hops[0].location).toBe(`${long.slice(0, MAX_HOP_TEXT)}…`);
    expect(result.hops[1].url).toBe(`${`${server.origin}${long}`.slice(0, MAX_HOP_TEXT)}…`);
  });

  it('gives up after 6 redirects: unavailable, allow all', async () => {
    chain(6);
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 'too-many-redirects', kind: 'allow-all' });
    expect(result.hops).toHaveLength(6);
    expect(server.hits('/r6')).toBe(0);
  });

  it('detects a loop: unavailable, allow all', async () => {
    server.route('/robots.txt', redirect('/loop-a'));
    server.route('/loop-a', redirect('/loop-b'));
    server.route('/loop-b', redirect('/robots.txt'));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 'redirect-loop', kind: 'allow-all' });
    expect(result.hops.map((hop) => new URL(hop.url).pathname)).toEqual([
      '/robots.txt',
      '/loop-a',
      '/loop-b',
    ]);
  });

  it('keeps credentials of a redirect target out of the result, which logs and reports print', async () => {
    const withCredentials = `http://user:secret@127.0.0.1:${other.port}/moved/robots.txt`;
    server.route('/robots.txt', redirect(withCredentials, 302));
    const result = await fetchRobotsTxt(`${server.origin}/x`, options);
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(JSON.stringify(result)).not.toContain('secret');
    expect(result.finalUrl).toBe(`${other.origin}/moved/robots.txt`);
    expect(result.hops[0].location).toBe(`${other.origin}/moved/robots.txt`);
    // A loop is said without them too.
    server.route('/robots.txt', redirect(`http://user:secret@127.0.0.1:${server.port}/robots.txt`, 302));
    const loop = await fetchRobotsTxt(`${server.origin}/x`, options);
    expect(JSON.stringify(loop)).not.toContain('secret');
  });

  it('keeps credentials of a Location it cannot follow out of the result, hop and why alike', async () => {
    for (const location of [
      'ftp://joe:secret@127.0.0.2/robots.txt',
      // No URL: the port is out of range.
      `http://joe:secret@127.0.0.1:99999/robots.txt`,
    ]) {
      server.route('/robots.txt', redirect(location, 302));
      const result = await fetchRobotsTxt(server.origin, options);
      expect(result).toMatchObject({ status: 'invalid-redirect', kind: 'allow-all' });
      expect(JSON.stringify(result)).not.toContain('secret');
      expect(result.why).toContain('127.0.0.');
    }
  });

  it('gives the whole URL of the last request as finalUrl, though a hop cuts a long one', async () => {
    const long = `/${'x'.repeat(6000)}/robots.txt`;
    server.route('/robots.txt', redirect(long, 302));
    server.route(long, text('User-agent: *\nDisallow: /private\n'));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(result.finalUrl).toBe(server.origin + long);
    expect(result.hops[1].url.length).toBeLessThan(long.length);
  });

  it('follows a redirect to another origin and applies its file to the first origin', async () => {
    server.route('/robots.txt', redirect(`${other.origin}/moved/robots.txt`, 301));
    const result = await fetchRobotsTxt(`${server.origin}/x`, options);
    expect(result).toMatchObject({ status: 200, kind: 'rules', origin: server.origin });
    expect(result.finalUrl).toBe(`${other.origin}/moved/robots.txt`);
    expect(result.hops.map((hop) => hop.status)).toEqual([301, 200]);
    expect(result.hops[0].location).toBe(`${other.origin}/moved/robots.txt`);
    expect(other.requests.at(-1)?.headers['user-agent']).toBe(USER_AGENT);
  });

  it('treats a redirect without Location as unavailable', async () => {
    server.route('/robots.txt', text('', 302));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 'invalid-redirect', kind: 'allow-all' });
  });

  it('treats a redirect to a non-http scheme as unavailable', async () => {
    server.route('/robots.txt', redirect('ftp://example.com/robots.txt'));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 'invalid-redirect', kind: 'allow-all' });
    expect(result.why).toContain('HTTP 301 with a Location that is not an http(s) URL');
  });

  it('follows the Location of a 300 Multiple Choices (RFC 9110 15.4.1)', async () => {
    server.route('/robots.txt', redirect('/r1', 300));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 200, kind: 'rules', finalUrl: `${server.origin}/r1` });
    expect(result.hops.map((hop) => hop.status)).toEqual([300, 200]);
  });

  it.each([
    [300, 'HTTP 300 without a Location'],
    [302, 'HTTP 302 without a Location'],
    [304, 'HTTP 304 Not Modified, though the request was not conditional'],
  ])('treats a %i without Location as unavailable, and says why', async (status, why) => {
    server.route('/robots.txt', text('', status));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 'invalid-redirect', kind: 'allow-all' });
    expect(result.why).toBe(`${why}: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.2).`);
  });

  it.each([305, 306])('does not follow the Location of a %i', async (status) => {
    server.route('/robots.txt', redirect('/r1', status));
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 'invalid-redirect', kind: 'allow-all' });
    expect(result.why).toContain(`HTTP ${status} is not a redirect that is followed`);
    expect(result.hops).toHaveLength(1);
  });

  it.each([
    ['UTF-8', 'utf8'],
    ['Latin-1', 'latin1'],
  ] as const)('follows a Location sent as raw %s octets', async (_name, encoding) => {
    server.route('/r%C3%A8gles/robots.txt', text('User-agent: *\nDisallow: /r\u00e8gles\n'));
    server.route('/robots.txt', (_request, response) => {
      // Node sends header strings as Latin-1: these are the octets of the path in `encoding`.
      const location = Buffer.from('/r\u00e8gles/robots.txt', encoding).toString('latin1');
      response.writeHead(301, { location }).end();
    });
    const result = await fetchRobotsTxt(server.origin, options);
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(result.hops[0].location).toBe('/r\u00e8gles/robots.txt');
    expect(result.finalUrl).toBe(`${server.origin}/r%C3%A8gles/robots.txt`);
  });
});

describe('fetchRobotsTxt: unreachable servers (RFC 9309 2.3.1.4)', () => {
  it('times out on a server that never answers', async () => {
    const started = performance.now();
    const { result } = await fetchFrom(never(), { timeoutMs: 500 });
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: 'timeout', kind: 'disallow-all' });
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1500);
  });

  it('times out on a server that trickles a byte a second, at the overall deadline', async () => {
    const started = performance.now();
    const { result } = await fetchFrom(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const body = 'User-agent: *\nDisallow: /\n';
        let index = 0;
        const timer = setInterval(() => {
          if (index < body.length) response.write(body[index++]);
          else response.end();
        }, 1000);
        response.on('close', () => clearInterval(timer));
      },
      { timeoutMs: 1500 },
    );
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: 'timeout', kind: 'disallow-all' });
    expect(elapsed).toBeLessThan(2500);
  });

  it('reports a refused connection', async () => {
    const port = await freePort();
    const result = await fetchRobotsTxt(`http://127.0.0.1:${port}/`, options);
    expect(result).toMatchObject({ status: 'connection-refused', kind: 'disallow-all' });
    expect(result.hops).toEqual([expect.objectContaining({ status: 'connection-refused' })]);
  });

  it('reports a connection reset by the server', async () => {
    const { result } = await fetchFrom((request) => {
      request.socket.resetAndDestroy();
    });
    expect(result).toMatchObject({ status: 'connection-reset', kind: 'disallow-all' });
  });

  it('reports a TLS failure (https to a plain-text server)', async () => {
    const server = await startHttpServer({ '/robots.txt': text(RULES) });
    try {
      const result = await fetchRobotsTxt(`https://127.0.0.1:${server.port}/`, options);
      expect(result).toMatchObject({ status: 'tls-error', kind: 'disallow-all' });
    } finally {
      await server.close();
    }
  });

  it('reports a DNS failure', async () => {
    const result = await fetchRobotsTxt('http://no-such-host.invalid/', options);
    expect(result).toMatchObject({ status: 'dns-error', kind: 'disallow-all' });
  });
});

describe('fetchRobotsTxt: size cap and content encodings', () => {
  it('stops reading a 100 MB body at the cap without downloading the rest', async () => {
    const large = largeRobotsTxt(100 * 1024 * 1024);
    const started = performance.now();
    const { result } = await fetchFrom(large.handler);
    const written = large.written();
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: true });
    // The cap, plus at most one line (MAX_LINE_OCTETS) so the parser can finish the line in progress.
    expect(result.body?.byteLength).toBeLessThanOrEqual(512_000 + MAX_LINE_OCTETS + 1);
    expect(result.robots?.lints.map((lint) => lint.code)).toContain('file-too-large');
    // Loopback socket buffers absorb a few MB at most; the other ~95 MB are never sent.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(elapsed).toBeLessThan(3000);
    console.info(
      `100 MB body: ${result.body?.byteLength} octets kept, ${(written / 1048576).toFixed(1)} MiB written by the server, ${elapsed.toFixed(0)} ms`,
    );
  });

  it('applies the cap to the decoded size of a gzip bomb', async () => {
    // 1 GiB of zeros: 100 gzip members of 10 MiB each (RFC 1952 allows concatenated members).
    const member = gzipSync(Buffer.alloc(10 * 1024 * 1024), { level: 9 });
    const members = 100;
    let sent = 0;
    const started = performance.now();
    const { result } = await fetchFrom((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      const pump = () => {
        while (sent < members && !response.destroyed) {
          sent++;
          if (!response.write(member)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: true });
    expect(result.body?.byteLength).toBeLessThanOrEqual(512_000 + MAX_LINE_OCTETS + 1);
    expect(elapsed).toBeLessThan(3000);
    console.info(
      `gzip bomb (1 GiB decoded, ${((member.length * members) / 1024).toFixed(0)} KiB compressed): stopped at the cap after ${elapsed.toFixed(0)} ms; ${sent} of ${members} members written by the server`,
    );
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('decodes %s', async (encoding, compress) => {
    const { result } = await fetchFrom(
      text(compress(Buffer.from(RULES)), 200, { 'content-encoding': encoding }),
    );
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(Buffer.from(result.body!).toString()).toBe(RULES);
  });

  it('reads the line in progress at the cap to its end, never half a rule', async () => {
    const body = 'User-agent: *\nDisallow: /a\nAllow: /abcdefghij\nAllow: /\n';
    const cap = body.indexOf('Allow: /abc') + 9;
    const { result } = await fetchFrom(text(body), { maxBytes: cap });
    expect(result.truncated).toBe(true);
    expect(result.robots?.lints.map((lint) => lint.code)).toContain('file-too-large');
    // Half the rule ("Allow: /a") would have allowed /abc: the whole rule is read.
    expect(result.robots?.isAllowed('/abc', 'ExampleBot')).toBe(false);
    expect(result.robots?.isAllowed('/abcdefghij/x', 'ExampleBot')).toBe(true);
    // The line after the cap ("Allow: /") is not read: no rule matches /b.
    expect(result.robots?.explain('/b', 'ExampleBot').rule).toBeNull();
  });

  it.each([
    ['the line end of its last line', `${'#'.repeat(1000)}\n`],
    ['a byte order mark', `\ufeff${'#'.repeat(1000)}`],
  ])('does not call a file cut when only %s is past the cap', async (_what, body) => {
    const { result } = await fetchFrom(text(body), { maxBytes: 1000 });
    expect(result.body?.byteLength).toBeGreaterThan(1000);
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: false });
    expect(result.why).toBe('HTTP 200: the rules of the file apply (RFC 9309 2.3.1.1).');
    expect(result.robots?.lints.map((lint) => lint.code)).not.toContain('file-too-large');
  });

  it('says that a line the transfer was cut in is longer than what was read of it, and that the file was cut', async () => {
    // One line of 2 MB and no line end: the fetch reads the cap and a line's worth after it.
    const body = `User-agent: *\nDisallow: /${'a'.repeat(2_000_000)}`;
    const { result } = await fetchFrom(text(body), { maxBytes: 1000 });
    expect(result.truncated).toBe(true);
    const read = result.body!.byteLength;
    expect(read).toBe(1000 + MAX_LINE_OCTETS + 1);
    expect(result.robots?.lints.map((lint) => [lint.code, lint.line, lint.message])).toEqual([
      [
        'line-too-long',
        2,
        `The line is longer than the ${read - 14} bytes read of it (the file was cut there); only its first ${MAX_LINE_OCTETS} bytes are read.`,
      ],
      [
        'file-too-large',
        3,
        'The file is larger than the size crawlers read; everything from line 3 on is ignored.',
      ],
    ]);
    expect(result.robots?.isAllowed(`/${'a'.repeat(20_000)}`, 'ExampleBot')).toBe(false);
    // The same bytes parsed as a whole file: a line of exactly that length, and nothing cut.
    const whole = RobotsTxt.parse(result.body!, { maxBytes: 1000 });
    expect(whole.lints.map((lint) => [lint.code, lint.message])).toEqual([
      [
        'line-too-long',
        `The line is ${read - 14} bytes long; only its first ${MAX_LINE_OCTETS} bytes are read.`,
      ],
    ]);
  });

  it('does not call a file invalid UTF-8 whose transfer was cut inside a character', async () => {
    // 25 octets, then characters of 2: the read of 1000 + MAX_LINE_OCTETS + 1 (even) ends inside one.
    const { result } = await fetchFrom(text(`User-agent: *\nDisallow: /${'é'.repeat(20_000)}`), {
      maxBytes: 1000,
    });
    expect(result.body!.byteLength).toBe(1000 + MAX_LINE_OCTETS + 1);
    expect(result.robots?.lints.map((lint) => lint.code)).toEqual(['line-too-long', 'file-too-large']);
    // A character cut by the file itself (an invalid last octet) is still reported.
    const { result: broken } = await fetchFrom(
      text(Buffer.from([...Buffer.from('User-agent: *\nDisallow: /a'), 0xc3])),
    );
    expect(broken.robots?.lints.map((lint) => lint.code)).toEqual(['invalid-utf8']);
  });

  it('does not download much more than the cap of a long body', async () => {
    const line = 'Disallow: /x\n';
    const { result } = await fetchFrom(text(line.repeat(10_000)), { maxBytes: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.body?.byteLength).toBeLessThanOrEqual(1000 + MAX_LINE_OCTETS + 1);
  });
});

describe('fetchRobotsTxt: proxy', () => {
  it('sends the request through proxyUrl', async () => {
    const target = await startHttpServer({ '/robots.txt': text(RULES) });
    const seen: string[] = [];
    // A minimal forward proxy: plain requests in absolute form, and CONNECT tunnels.
    const proxyServer = createNetServer((client) => {
      client.once('data', (head) => {
        const firstLine = head.toString().split('\r\n')[0];
        seen.push(firstLine);
        const [method, where] = firstLine.split(' ');
        const address = method === 'CONNECT' ? where : new URL(where).host;
        const [host, port] = address.split(':');
        const upstream = netConnect(Number(port), host, () => {
          if (method === 'CONNECT') client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          else {
            const target = new URL(where);
            upstream.write(head.toString('latin1').replace(where, target.pathname + target.search), 'latin1');
          }
          client.pipe(upstream).pipe(client);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
    });
    await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
    const address = proxyServer.address();
    const proxyPort = typeof address === 'object' && address ? address.port : 0;
    try {
      const result = await fetchRobotsTxt(target.origin, {
        ...options,
        proxyUrl: `http://127.0.0.1:${proxyPort}`,
      });
      expect(result).toMatchObject({ status: 200, kind: 'rules' });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain(`127.0.0.1:${target.port}`);
      expect(target.requests[0].headers['user-agent']).toBe(USER_AGENT);
    } finally {
      proxyServer.close();
      await target.close();
    }
  });
});

/** A forward proxy that answers every request itself with `statusLine`: the site is never contacted. */
async function startRefusingProxy(statusLine: string) {
  const seen: string[] = [];
  const server = createNetServer((client) => {
    client.on('error', () => {});
    client.once('data', (head) => {
      seen.push(head.toString().split('\r\n')[0]);
      client.end(`HTTP/1.1 ${statusLine}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('fetchRobotsTxt: a proxy that refuses', () => {
  let target: TestHttpServer;
  beforeAll(async () => {
    target = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /\n') });
  });
  afterAll(async () => {
    await target.close();
  });

  it('takes a 407 for the proxy refusing, never for the site: unreachable, disallow all', async () => {
    const proxy = await startRefusingProxy(
      '407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"',
    );
    try {
      const result = await fetchRobotsTxt(target.origin, { ...options, proxyUrl: proxy.url });
      expect(result).toMatchObject({ status: 'proxy-error', kind: 'disallow-all', robots: null });
      expect(result.hops).toEqual([expect.objectContaining({ status: 'proxy-error' })]);
      expect(result.why).toContain('407');
      expect(result.why).toContain('the proxy refused the request');
      expect(result.why).toContain('2.3.1.4');
      expect(proxy.seen[0]).toContain(`http://127.0.0.1:${target.port}/robots.txt`);
      expect(target.hits('/robots.txt')).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it.each([
    ['ExampleProxy; error=http_request_denied', 'proxy-error'],
    ['SiteCDN, "Example Proxy; v2"; received-status=403; error=destination_ip_prohibited', 'proxy-error'],
    // The error is the site's own intermediary's, farther from the crawler: the answer is the site's.
    ['SiteCDN; error=http_request_denied, ExampleProxy', 403],
    ['ExampleProxy; details="error=made up"', 403],
  ])('reads a 403 through the proxy with Proxy-Status: %s as %s', async (proxyStatus, status) => {
    const proxy = await startRefusingProxy(`403 Forbidden\r\nProxy-Status: ${proxyStatus}`);
    try {
      const result = await fetchRobotsTxt(target.origin, { ...options, proxyUrl: proxy.url });
      expect(result).toMatchObject({ status, kind: status === 403 ? 'allow-all' : 'disallow-all' });
      if (status !== 403) expect(result.why).toMatch(/^proxy-error \(HTTP 403, Proxy-Status error=/);
      expect(target.hits('/robots.txt')).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("reads a site answer with Proxy-Status as the site's when no proxy is in use: its intermediaries are the site's", async () => {
    const site = await startHttpServer();
    site.route('/robots.txt', (_request, response) => {
      response.writeHead(403, { 'proxy-status': 'SiteCDN; error=http_request_denied' }).end();
    });
    try {
      expect(await fetchRobotsTxt(site.origin, options)).toMatchObject({ status: 403, kind: 'allow-all' });
    } finally {
      await site.close();
    }
  });

  it.each([
    ['407 Proxy Authentication Required', true],
    ['403 Forbidden', true],
    ['502 Bad Gateway', false],
  ])('reports a CONNECT refused with %s as a proxy failure (http2: %s)', async (statusLine, http2) => {
    const proxy = await startRefusingProxy(statusLine);
    try {
      const result = await fetchRobotsTxt(`https://127.0.0.1:${target.port}/`, {
        ...options,
        proxyUrl: proxy.url,
        client: new GotScrapingRobotsClient({ http2 }),
      });
      expect(result).toMatchObject({ status: 'proxy-error', kind: 'disallow-all' });
      expect(result.why).toContain(statusLine.slice(0, 3));
      expect(proxy.seen[0]).toBe(`CONNECT 127.0.0.1:${target.port} HTTP/1.1`);
    } finally {
      await proxy.close();
    }
  });

  it.each([true, false])(
    'takes a proxy that refuses connections for a proxy failure, never the site refusing (http2: %s)',
    async (http2) => {
      const port = await freePort();
      for (const site of [target.origin, `https://127.0.0.1:${target.port}`]) {
        const result = await fetchRobotsTxt(site, {
          ...options,
          proxyUrl: `http://user:secret@127.0.0.1:${port}`,
          client: new GotScrapingRobotsClient({ http2 }),
        });
        expect(result).toMatchObject({ status: 'proxy-error', kind: 'disallow-all' });
        expect(result.why).toContain(`the proxy http://user:***@127.0.0.1:${port} cannot be reached`);
        expect(result.why).not.toContain('secret');
      }
      expect(target.hits('/robots.txt')).toBe(0);
    },
  );

  it.each([
    ['not-a-url', '"not-a-url"'],
    ['', '""'],
    ['socks5://127.0.0.1:1080', '"socks5://127.0.0.1:1080"'],
    ['http://user:pa%ss@127.0.0.1:8000', '"http://user:***@127.0.0.1:8000"'],
  ])('rejects the malformed proxyUrl %j with a TypeError naming it', async (proxyUrl, shown) => {
    const attempt = fetchRobotsTxt(target.origin, { ...options, proxyUrl });
    await expect(attempt).rejects.toThrow(TypeError);
    await expect(attempt).rejects.toThrow(`proxyUrl must be an http:// or https:// URL`);
    await expect(attempt).rejects.toThrow(`got ${shown}.`);
    expect(target.hits('/robots.txt')).toBe(0);
  });
});

describe('fetchRobotsTxt: an answer that is not HTTP', () => {
  it('is unreachable, and the explanation says what was wrong with it', async () => {
    const server = createNetServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('SPDY/9 banana\r\n\r\n'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const result = await fetchRobotsTxt(`http://127.0.0.1:${port}/`, options);
      expect(result).toMatchObject({ status: 'network-error', kind: 'disallow-all' });
      expect(result.why).toMatch(/^network-error \(Parse Error: .+\): robots\.txt is unreachable/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

/**
 * Fetches robots.txt from a raw TCP server that answers the first request with `octets` (then
 * closes the connection when `close` is set), and closes the server.
 */
async function fetchFromRawServer(octets: string | Buffer, close = false) {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => (close ? socket.end(octets) : socket.write(octets)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    return await fetchRobotsTxt(`http://127.0.0.1:${port}/`, options);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('fetchRobotsTxt: octets after a complete answer', () => {
  const length = Buffer.byteLength(RULES);
  const gzipped = gzipSync(RULES);

  it.each<[string, string | Buffer]>([
    ['past its Content-Length', `HTTP/1.1 200 OK\r\nContent-Length: ${length}\r\n\r\n${RULES}GARBAGE`],
    [
      'after its last chunk',
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${length.toString(16)}\r\n${RULES}\r\n0\r\n\r\nGARBAGE`,
    ],
    [
      'past the Content-Length of a gzip body',
      Buffer.concat([
        Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gzipped.length}\r\n\r\n`),
        gzipped,
        Buffer.from('GARBAGE'),
      ]),
    ],
  ])('are ignored %s: the declared body is the file', async (_where, octets) => {
    const result = await fetchFromRawServer(octets);
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: false });
    expect(Buffer.from(result.body!).toString()).toBe(RULES);
    expect(result.robots?.isAllowed('http://127.0.0.1/private/x', USER_AGENT)).toBe(false);
    expect(result.robots?.isAllowed('http://127.0.0.1/public', USER_AGENT)).toBe(true);
  });

  it('are ignored after an answer of 20 octets that the server follows with 25', async () => {
    const result = await fetchFromRawServer(
      `HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n${RULES.slice(0, 25)}`,
    );
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(Buffer.from(result.body!).toString()).toBe(RULES.slice(0, 20));
  });

  it('leave a body shorter than its Content-Length cut short: unreachable, disallow all', async () => {
    const result = await fetchFromRawServer(
      `HTTP/1.1 200 OK\r\nContent-Length: ${length + 10}\r\n\r\n${RULES}`,
      true,
    );
    expect(result).toMatchObject({ status: 'connection-reset', kind: 'disallow-all', robots: null });
  });

  it('leave a malformed answer malformed: unreachable, disallow all', async () => {
    const result = await fetchFromRawServer(
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${RULES}\r\n0\r\n\r\n`,
    );
    expect(result).toMatchObject({ status: 'network-error', kind: 'disallow-all', robots: null });
    expect(result.why).toMatch(/^network-error \(Parse Error: .+\): robots\.txt is unreachable/);
  });
});

describe('fetchRobotsTxt: answers that break HTTP/1.1 syntax', () => {
  const length = Buffer.byteLength(RULES);
  // The default client parses as Crawlee's HTTP crawlers do (got-scraping turns on Node's lenient
  // parser): an answer they read is a robots.txt read the same way, one they refuse is unreachable.
  it.each([
    ['a bare CR ends the status line', `HTTP/1.1 200 OK\rX: y\r\nContent-Length: ${length}\r\n\r\n${RULES}`],
    [
      'a NUL in a header value',
      `HTTP/1.1 200 OK\r\nX: a\u0000b\r\nContent-Length: ${length}\r\n\r\n${RULES}`,
    ],
  ])('reads an answer the lenient parser takes: %s', async (_how, answer) => {
    const result = await fetchFromRawServer(answer, true);
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(Buffer.from(result.body!).toString()).toBe(RULES);
  });

  it.each([
    ['no status line', `Content-Length: ${length}\r\n\r\n${RULES}`],
    [
      'a header line without a colon',
      `HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: ${length}\r\n\r\n${RULES}`,
    ],
    [
      'a bare CR inside a header value',
      `HTTP/1.1 200 OK\r\nX: a\rb\r\nContent-Length: ${length}\r\n\r\n${RULES}`,
    ],
    [
      'two Content-Length headers that differ',
      `HTTP/1.1 200 OK\r\nContent-Length: ${length}\r\nContent-Length: 3\r\n\r\n${RULES}`,
    ],
  ])('takes an answer even the lenient parser refuses for unreachable: %s', async (_how, answer) => {
    const result = await fetchFromRawServer(answer, true);
    expect(result).toMatchObject({ status: 'network-error', kind: 'disallow-all', robots: null });
  });
});

describe('fetchRobotsTxt: a User-Agent no request can carry', () => {
  it('is refused at once, never sent as a network error of every origin', async () => {
    const server = await startHttpServer({ '/robots.txt': text(RULES) });
    try {
      await expect(
        fetchRobotsTxt(server.origin, { ...options, userAgent: `${USER_AGENT}\n` }),
      ).rejects.toThrow(/^userAgent must be a value an HTTP header can hold .* with U\+000A\.$/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('fetchRobotsTxt: custom HTTP clients', () => {
  /** The rejections no handler took while `run` ran and `settleMs` after it. */
  async function unhandledRejectionsOf(run: () => Promise<void>, settleMs: number): Promise<unknown[]> {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      await run();
      await new Promise((resolve) => setTimeout(resolve, settleMs));
    } finally {
      process.off('unhandledRejection', record);
    }
    return unhandled;
  }

  it('gives up on a client that never answers at the deadline', { timeout: 5000 }, async () => {
    const silent: RobotsHttpClient = { request: () => new Promise(() => {}) };
    const started = performance.now();
    const result = await fetchRobotsTxt('http://silent.example/', {
      ...options,
      client: silent,
      timeoutMs: 300,
    });
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: 'timeout', kind: 'disallow-all' });
    expect(result.hops).toEqual([expect.objectContaining({ status: 'timeout' })]);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
  });

  it('observes the late rejection of a client that lost the race', { timeout: 5000 }, async () => {
    const late: RobotsHttpClient = {
      request: () => new Promise((_resolve, reject) => setTimeout(() => reject(new Error('too late')), 1000)),
    };
    let status: unknown;
    const unhandled = await unhandledRejectionsOf(async () => {
      ({ status } = await fetchRobotsTxt('http://late.example/', {
        ...options,
        client: late,
        timeoutMs: 200,
      }));
    }, 1000);
    expect(status).toBe('timeout');
    expect(unhandled).toEqual([]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('boom');
      },
    ],
    ['rejects', () => Promise.reject(new Error('boom'))],
    ['returns an answer without headers', () => Promise.resolve({ ok: true, status: 200 })],
    ['returns nothing', () => Promise.resolve(undefined)],
  ])('turns a client that %s into a network-error', async (_how, request) => {
    const client = { request } as unknown as RobotsHttpClient;
    const result = await fetchRobotsTxt('http://broken-client.example/', { ...options, client });
    expect(result).toMatchObject({ status: 'network-error', kind: 'disallow-all' });
  });

  /** A client that answers each URL of `answers` with what it holds, as a library would pass it on. */
  function clientAnswering(answers: Record<string, unknown>): RobotsHttpClient {
    return { request: async ({ url }) => answers[url.href] as never };
  }

  it('reads the headers of a client that passes them on as its library gives them', async () => {
    // Node's and got's headers: names as sent, repeated fields as lists, numbers where they fit.
    const client = clientAnswering({
      'http://headers.example/robots.txt': {
        ok: true,
        status: 301,
        headers: { Location: ['/moved.txt'] },
        body: new Uint8Array(),
        truncated: false,
      },
      'http://headers.example/moved.txt': {
        ok: true,
        status: 200,
        headers: { 'Cache-Control': ['max-age=60', 'max-age=5'], 'content-type': 'text/plain' },
        body: Buffer.from(RULES),
        truncated: false,
      },
      'http://busy.example/robots.txt': {
        ok: true,
        status: 429,
        headers: { 'retry-after': 120 },
        body: new Uint8Array(),
        truncated: false,
      },
    });
    const moved = await fetchRobotsTxt('http://headers.example/', { ...options, client });
    expect(moved).toMatchObject({ status: 200, kind: 'rules', finalUrl: 'http://headers.example/moved.txt' });
    expect(moved.hops[0].location).toBe('/moved.txt');
    expect(moved.cacheDirectives).toEqual({ maxAgeMs: 60_000, noReuse: false });
    const busy = await fetchRobotsTxt('http://busy.example/', { ...options, client });
    expect(busy).toMatchObject({ status: 429, kind: 'disallow-all', retryAfterMs: 120_000 });
  });

  it('reads the Headers of a client built on fetch(), which list no fields of their own', async () => {
    const client = clientAnswering({
      'http://fetch-client.example/robots.txt': {
        ok: true,
        status: 301,
        headers: new Headers({ location: '/moved.txt' }),
        body: new Uint8Array(),
        truncated: false,
      },
      'http://fetch-client.example/moved.txt': {
        ok: true,
        status: 200,
        headers: new Headers({ 'cache-control': 'max-age=60' }),
        body: Buffer.from(RULES),
        truncated: false,
      },
    });
    const result = await fetchRobotsTxt('http://fetch-client.example/', { ...options, client });
    // Read as an object, the redirect had no Location: robots.txt unavailable, everything allowed.
    expect(result).toMatchObject({
      status: 200,
      kind: 'rules',
      finalUrl: 'http://fetch-client.example/moved.txt',
    });
    expect(result.cacheDirectives).toEqual({ maxAgeMs: 60_000, noReuse: false });
  });

  it('keeps no more of the body of a client that ignores maxBytes than of any other', async () => {
    const body = Buffer.from(`User-agent: *\n${'Disallow: /x\n'.repeat(100_000)}`);
    const client = clientAnswering({
      'http://whole-body.example/robots.txt': { ok: true, status: 200, headers: {}, body, truncated: false },
    });
    const result = await fetchRobotsTxt('http://whole-body.example/', { ...options, client, maxBytes: 1000 });
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: true });
    expect(result.body?.byteLength).toBe(1000 + MAX_LINE_OCTETS + 1);
    // A copy of its own: the client's 1.3 MB buffer is not held with the policy.
    expect(result.body?.buffer.byteLength).toBe(1000 + MAX_LINE_OCTETS + 1);
  });

  it('does not read half a rule from a client that cut the body short', async () => {
    // The file goes on `Allow: /abcdef`: read as cut, `Allow: /ab` would allow /ab.
    const body = Buffer.from('User-agent: *\nDisallow: /\nAllow: /ab');
    const client = clientAnswering({
      'http://short-read.example/robots.txt': { ok: true, status: 200, headers: {}, body, truncated: true },
    });
    const result = await fetchRobotsTxt('http://short-read.example/', { ...options, client });
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: true });
    expect(result.robots?.isAllowed('/ab', 'ExampleBot')).toBe(false);
    expect(result.robots?.lints.map((lint) => [lint.code, lint.line])).toEqual([['file-too-large', 3]]);
    // Cut at a line end, every line is whole and read.
    const whole = clientAnswering({
      'http://short-read.example/robots.txt': {
        ok: true,
        status: 200,
        headers: {},
        body: Buffer.from('User-agent: *\nDisallow: /\nAllow: /ab\n'),
        truncated: true,
      },
    });
    const read = await fetchRobotsTxt('http://short-read.example/', { ...options, client: whole });
    expect(read.robots?.isAllowed('/ab', 'ExampleBot')).toBe(true);
    expect(read.robots?.lints.map((lint) => [lint.code, lint.line])).toEqual([['file-too-large', 4]]);
  });

  it('takes a failure kind it does not know for a network-error, and says what the client said', async () => {
    const client = clientAnswering({
      'http://odd-failure.example/robots.txt': { ok: false, failure: 'ECONNABORTED', message: 'aborted' },
    });
    const result = await fetchRobotsTxt('http://odd-failure.example/', { ...options, client });
    expect(result).toMatchObject({ status: 'network-error', kind: 'disallow-all' });
    expect(result.why).toContain('aborted');
  });
});

describe('fetchRobotsTxt: options it cannot work with', () => {
  let server: TestHttpServer;
  beforeAll(async () => {
    server = await startHttpServer({ '/robots.txt': text(RULES) });
  });
  afterAll(async () => {
    await server.close();
  });

  it.each<[string, Partial<Record<keyof RobotsFetchOptions, unknown>>, ErrorConstructor, string]>([
    // Node fires a timer of Infinity or NaN ms at once: every origin would time out.
    [
      'timeoutMs: Infinity',
      { timeoutMs: Number.POSITIVE_INFINITY },
      RangeError,
      'fetchRobotsTxt option timeoutMs must be a number of milliseconds more than 0',
    ],
    [
      'timeoutMs: NaN',
      { timeoutMs: Number.NaN },
      RangeError,
      'fetchRobotsTxt option timeoutMs must be a number of milliseconds more than 0',
    ],
    [
      'timeoutMs: 0',
      { timeoutMs: 0 },
      RangeError,
      'fetchRobotsTxt option timeoutMs must be a number of milliseconds more than 0',
    ],
    [
      "timeoutMs: '5000'",
      { timeoutMs: '5000' },
      TypeError,
      'fetchRobotsTxt option timeoutMs must be a number of milliseconds more than 0',
    ],
    [
      'connectTimeoutMs: -5',
      { connectTimeoutMs: -5 },
      RangeError,
      'fetchRobotsTxt option connectTimeoutMs must be a number of milliseconds more than 0',
    ],
    // A NaN cap cuts nothing, and was refused by the parser only after the download.
    [
      'maxBytes: NaN',
      { maxBytes: Number.NaN },
      RangeError,
      'fetchRobotsTxt option maxBytes must be a whole number of bytes from 1',
    ],
    [
      'maxBytes: 10.5',
      { maxBytes: 10.5 },
      RangeError,
      'fetchRobotsTxt option maxBytes must be a whole number of bytes from 1',
    ],
    // A NaN limit stops no chain of redirects.
    [
      'maxRedirects: NaN',
      { maxRedirects: Number.NaN },
      RangeError,
      'fetchRobotsTxt option maxRedirects must be a whole number from 0',
    ],
    [
      'maxRedirects: -1',
      { maxRedirects: -1 },
      RangeError,
      'fetchRobotsTxt option maxRedirects must be a whole number from 0',
    ],
    [
      'client: a Crawlee BaseHttpClient',
      { client: { sendRequest: () => {} } },
      TypeError,
      'fetchRobotsTxt option client must be a RobotsHttpClient',
    ],
    ['clock: 5', { clock: 5 }, TypeError, 'fetchRobotsTxt option clock must be a function'],
    [
      'clock: () => NaN',
      { clock: () => Number.NaN },
      TypeError,
      'fetchRobotsTxt option clock must return milliseconds',
    ],
    // got sends no User-Agent at all for these: the site would see a crawler without a name.
    [
      'userAgent: undefined',
      { userAgent: undefined },
      TypeError,
      "userAgent must be the crawler's User-Agent",
    ],
    ["userAgent: ' '", { userAgent: ' ' }, TypeError, "userAgent must be the crawler's User-Agent"],
  ])('refuses %s before any request', async (_name, extra, errorType, message) => {
    const before = server.requests.length;
    const attempt = fetchRobotsTxt(server.origin, { ...options, ...extra } as RobotsFetchOptions);
    await expect(attempt).rejects.toThrow(errorType);
    await expect(attempt).rejects.toThrow(message);
    expect(server.requests.length).toBe(before);
  });

  it('refuses options that are not an object, showing a string as one', async () => {
    const attempt = fetchRobotsTxt(server.origin, 'ExampleBot/1.0' as unknown as RobotsFetchOptions);
    await expect(attempt).rejects.toThrow(TypeError);
    await expect(attempt).rejects.toThrow(/got "ExampleBot\/1\.0"\.$/);
  });

  it('takes the longest timeout a timer holds, and no redirect at all', async () => {
    const result = await fetchRobotsTxt(server.origin, {
      ...options,
      timeoutMs: 2 ** 31 - 1 - 500,
      connectTimeoutMs: 2 ** 31 - 1 - 500,
      maxRedirects: 0,
    });
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
  });
});
