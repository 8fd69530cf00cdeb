import { request as httpRequest } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { type BaseHttpClient, GotScrapingHttpClient, type StreamingHttpResponse } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { CrawleeRobotsClient, fetchRobotsTxt, type RobotsFetchOptions } from '../../src/fetch/index.js';
import { MAX_LINE_OCTETS } from '../../src/robots/index.js';
import { RobotsStore } from '../../src/store/index.js';
import {
  largeRobotsTxt,
  never,
  redirect,
  startHttpServer,
  type TestHttpServer,
  text,
} from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { freePort } from '../support/redis.js';

const USER_AGENT = 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)';
const RULES = 'User-agent: ExampleBot\nDisallow: /private\n';

const servers: TestHttpServer[] = [];
async function server(routes: Parameters<typeof startHttpServer>[0]): Promise<TestHttpServer> {
  const started = await startHttpServer(routes);
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

function through(client: BaseHttpClient, extra: Partial<RobotsFetchOptions> = {}): RobotsFetchOptions {
  return {
    userAgent: USER_AGENT,
    timeoutMs: 2000,
    connectTimeoutMs: 1000,
    client: new CrawleeRobotsClient(client),
    ...extra,
  };
}

/**
 * A BaseHttpClient of its own, on node:http: it hands the body on as it came, content coding
 * included, and honours neither `timeout` nor `signal`.
 */
class RawHttpClient implements BaseHttpClient {
  sendRequest(): never {
    throw new Error('not used by the robots.txt client');
  }
  stream(request: Parameters<BaseHttpClient['stream']>[0]): Promise<StreamingHttpResponse> {
    return new Promise((resolve, reject) => {
      const sent = httpRequest(
        String(request.url),
        { headers: request.headers as Record<string, string> },
        (response) =>
          resolve({
            stream: response,
            statusCode: response.statusCode ?? 0,
            headers: response.headers,
            url: String(request.url),
            redirectUrls: [],
            trailers: {},
            complete: false,
            request,
            downloadProgress: { percent: 0, transferred: 0 },
            uploadProgress: { percent: 0, transferred: 0 },
          }),
      );
      sent.on('error', reject);
      sent.end();
    });
  }
}

describe("CrawleeRobotsClient: robots.txt through a crawler's httpClient", () => {
  it("reads a file with Crawlee's got-scraping client, with the crawler's User-Agent and no generated headers", async () => {
    const site = await server({
      '/robots.txt': text(gzipSync(RULES), 200, { 'content-encoding': 'gzip' }),
    });
    const result = await fetchRobotsTxt(site.origin, through(new GotScrapingHttpClient()));
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: false });
    expect(result.robots?.isAllowed('/private/x', 'ExampleBot')).toBe(false);
    const [seen] = site.requests;
    expect(seen.headers['user-agent']).toBe(USER_AGENT);
    // useHeaderGenerator: false, or the site would see a browser's headers beside a crawler's name.
    expect(seen.headers['sec-ch-ua']).toBeUndefined();
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)(
    'reads a %s file sent with its Content-Length, as static files are, through got-scraping',
    async (coding, compress) => {
      const body = compress(RULES);
      const site = await server({
        '/robots.txt': text(body, 200, { 'content-encoding': coding, 'content-length': String(body.length) }),
      });
      const result = await fetchRobotsTxt(site.origin, through(new GotScrapingHttpClient()));
      expect(result).toMatchObject({ status: 200, kind: 'rules' });
      expect(result.robots?.isAllowed('/private/x', 'ExampleBot')).toBe(false);
    },
  );

  it('reads a gzip body cut short as unreachable through got-scraping, which would take it as whole', async () => {
    // Compressed text of many lines, the last `Disallow: /`: the connection closes at 80 %.
    const file = `${'User-agent: ExampleBot\nAllow: /a\n'.repeat(2000)}User-agent: *\nDisallow: /\n`;
    const body = gzipSync(file);
    // A body that runs until the connection closes (no Content-Length, no chunks): only its
    // coding can tell that it was cut.
    const head = 'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n';
    const site = await server({
      '/robots.txt': (_request, response) => {
        response.socket?.end(
          Buffer.concat([Buffer.from(head), body.subarray(0, Math.floor(body.length * 0.8))]),
        );
      },
    });
    const result = await fetchRobotsTxt(site.origin, through(new GotScrapingHttpClient()));
    expect(result).toMatchObject({ kind: 'disallow-all', status: 'decoding-error' });
  });

  it('fails at once on an error the stream met before it was handed on, not at the deadline', async () => {
    // A complete answer and more octets in one write: Node's parser fails on them while got
    // still reads the head, and got-scraping's stream errors before `stream()` resolves.
    const junk = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () =>
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${RULES.length}\r\n\r\n${RULES}JUNK`),
      );
    });
    await new Promise<void>((resolve) => junk.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = junk.address() as AddressInfo;
      const started = performance.now();
      const result = await fetchRobotsTxt(
        `http://127.0.0.1:${port}/`,
        through(new GotScrapingHttpClient(), { timeoutMs: 5000 }),
      );
      expect(result).toMatchObject({ kind: 'disallow-all', status: 'network-error' });
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      junk.close();
    }
  });

  it('leaves redirects to the fetcher, which records and bounds every hop', async () => {
    const site = await server({
      '/robots.txt': redirect('/moved.txt', 301),
      '/moved.txt': redirect('/final.txt', 308),
      '/final.txt': text(RULES),
    });
    const result = await fetchRobotsTxt(site.origin, through(new GotScrapingHttpClient()));
    expect(result).toMatchObject({ status: 200, kind: 'rules', finalUrl: `${site.origin}/final.txt` });
    expect(result.hops.map((hop) => hop.status)).toEqual([301, 308, 200]);
    expect(site.requests.map((seen) => seen.path)).toEqual(['/robots.txt', '/moved.txt', '/final.txt']);

    const loop = await server({ '/robots.txt': redirect('/robots.txt') });
    expect(await fetchRobotsTxt(loop.origin, through(new GotScrapingHttpClient()))).toMatchObject({
      status: 'redirect-loop',
      kind: 'allow-all',
    });
  });

  it.each([
    [404, 'allow-all'],
    [403, 'allow-all'],
    [429, 'disallow-all'],
    [503, 'disallow-all'],
  ] as const)('turns a %i into %s', async (status, kind) => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /\n', status) });
    expect(await fetchRobotsTxt(site.origin, through(new GotScrapingHttpClient()))).toMatchObject({
      status,
      kind,
    });
  });

  it('stops reading a 100 MB body at the cap and destroys the stream', async () => {
    const large = largeRobotsTxt(100 * 1024 * 1024);
    const site = await server({ '/robots.txt': large.handler });
    const result = await fetchRobotsTxt(site.origin, through(new GotScrapingHttpClient()));
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: true });
    expect(result.body?.byteLength).toBeLessThanOrEqual(512_000 + MAX_LINE_OCTETS + 1);
    expect(large.written()).toBeLessThan(16 * 1024 * 1024);
  });

  it('gives up at the deadline on a server that never answers, even through a client that ignores timeouts', async () => {
    const site = await server({ '/robots.txt': never() });
    for (const client of [new GotScrapingHttpClient(), new RawHttpClient()]) {
      const started = performance.now();
      const result = await fetchRobotsTxt(site.origin, through(client, { timeoutMs: 500 }));
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({ status: 'timeout', kind: 'disallow-all' });
      expect(elapsed).toBeGreaterThanOrEqual(450);
      expect(elapsed).toBeLessThan(1500);
    }
  });

  it('gives up at the deadline on a body that trickles, and closes the connection', async () => {
    let closed = false;
    const site = await server({
      '/robots.txt': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('#'), 100);
        response.on('close', () => {
          clearInterval(timer);
          closed = true;
        });
      },
    });
    const result = await fetchRobotsTxt(site.origin, through(new RawHttpClient(), { timeoutMs: 600 }));
    expect(result).toMatchObject({ status: 'timeout', kind: 'disallow-all' });
    await expect.poll(() => closed, { timeout: 2000 }).toBe(true);
  });

  it('reports a refused connection as one', async () => {
    const port = await freePort();
    const result = await fetchRobotsTxt(`http://127.0.0.1:${port}/`, through(new GotScrapingHttpClient()));
    expect(result).toMatchObject({ status: 'connection-refused', kind: 'disallow-all' });
  });

  it('decodes a content coding a client left as it came, and refuses one it cannot decode', async () => {
    const site = await server({
      '/robots.txt': text(gzipSync(RULES), 200, { 'content-encoding': 'gzip' }),
    });
    const decoded = await fetchRobotsTxt(site.origin, through(new RawHttpClient()));
    expect(decoded).toMatchObject({ status: 200, kind: 'rules' });
    expect(decoded.robots?.isAllowed('/private/x', 'ExampleBot')).toBe(false);

    site.route('/robots.txt', text('User-agent: *\nAllow: /\n', 200, { 'content-encoding': 'zstd-unknown' }));
    expect(await fetchRobotsTxt(site.origin, through(new RawHttpClient()))).toMatchObject({
      status: 'decoding-error',
      kind: 'disallow-all',
    });
  });

  it('reports a body shorter than its Content-Length as cut, not as the file', async () => {
    const site = await server({
      '/robots.txt': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
        response.write('User-agent: *\nAllow: /\n');
        setTimeout(() => response.socket?.destroy(), 50);
      },
    });
    const result = await fetchRobotsTxt(site.origin, through(new RawHttpClient()));
    expect(result.kind).toBe('disallow-all');
    expect(result.status).toMatch(/^connection-reset$/);
  });

  it("answers as the crawler's client answers pages: headers past Node's 16 KiB are a network-error, which the default client reads", async () => {
    const site = await server({
      '/robots.txt': (_request, response) => {
        response.writeHead(200, {
          'content-type': 'text/plain',
          'set-cookie': `session=${'x'.repeat(20_000)}`,
        });
        response.end(RULES);
      },
    });
    const throughCrawlee = await fetchRobotsTxt(site.origin, through(new GotScrapingHttpClient()));
    expect(throughCrawlee).toMatchObject({ status: 'network-error', kind: 'disallow-all' });
    const { client: _, ...defaults } = through(new GotScrapingHttpClient());
    expect(await fetchRobotsTxt(site.origin, defaults)).toMatchObject({ status: 200, kind: 'rules' });
  });

  it('serves a RobotsStore', async () => {
    const site = await server({ '/robots.txt': text(RULES) });
    const store = new RobotsStore({
      userAgent: USER_AGENT,
      log: captureLog().log,
      httpClient: new CrawleeRobotsClient(new GotScrapingHttpClient()),
    });
    try {
      expect((await store.check(`${site.origin}/private/x`)).allowed).toBe(false);
      expect((await store.check(`${site.origin}/public`)).allowed).toBe(true);
      expect(site.hits('/robots.txt')).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('refuses what is no BaseHttpClient when it is made', () => {
    expect(() => new CrawleeRobotsClient({ sendRequest: () => {} } as never)).toThrow(
      /^CrawleeRobotsClient option client must be a Crawlee BaseHttpClient .*, got an object without stream\(\)\.$/,
    );
    expect(() => new CrawleeRobotsClient(undefined as never)).toThrow(TypeError);
  });
});
