import { createServer as createNetServer, type Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fetchRobotsTxt, type RobotsFetchOptions } from '../../src/fetch/index.js';
import { MAX_LINE_OCTETS } from '../../src/robots/index.js';
import { startHttpServer, type TestRouteHandler } from '../support/http-server.js';

const USER_AGENT = 'ExampleBot/1.0';
const RULES = 'User-agent: *\nAllow: /public\nDisallow: /\n';
const options: RobotsFetchOptions = { userAgent: USER_AGENT, timeoutMs: 2000, connectTimeoutMs: 1000 };

/** Serves `body` as robots.txt with the given Content-Encoding, fetches it, closes the server. */
async function fetchEncoded(contentEncoding: string | undefined, body: Uint8Array) {
  return fetchFrom((_request, response) => {
    response.writeHead(200, {
      'content-type': 'text/plain',
      'content-length': String(body.length),
      ...(contentEncoding === undefined ? {} : { 'content-encoding': contentEncoding }),
    });
    response.end(body);
  });
}

async function fetchFrom(handler: TestRouteHandler) {
  const server = await startHttpServer({ '/robots.txt': handler });
  try {
    return await fetchRobotsTxt(`${server.origin}/page`, options);
  } finally {
    await server.close();
  }
}

/** A server that writes `answer` as the whole HTTP response, then closes the connection. */
async function fetchRawAnswer(answer: Buffer) {
  const server = createNetServer((socket: Socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    return await fetchRobotsTxt(`http://127.0.0.1:${port}/`, options);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const rules = Buffer.from(RULES);

/** A copy of `data` with the octet at `index` (negative: from the end) changed. */
function withByteFlipped(data: Buffer, index: number): Buffer {
  const copy = Buffer.from(data);
  copy[index < 0 ? copy.length + index : index] ^= 0x01;
  return copy;
}

describe('fetchRobotsTxt: content codings (RFC 9110 8.4)', () => {
  it.each([
    ['identity', 'identity', rules],
    ['GZIP (names are case-insensitive)', 'GZIP', gzipSync(rules)],
    ['x-gzip', 'x-gzip', gzipSync(rules)],
    ['deflate (zlib format)', 'deflate', deflateSync(rules)],
    ['deflate sent as a raw stream', 'deflate', deflateRawSync(rules)],
    ['br', 'br', brotliCompressSync(rules)],
    ['gzip, gzip (stacked)', 'gzip, gzip', gzipSync(gzipSync(rules))],
    ['deflate, gzip (undone in reverse order)', 'deflate, gzip', gzipSync(deflateSync(rules))],
    ['br, identity, gzip', 'br, identity, gzip', gzipSync(brotliCompressSync(rules))],
  ])('decodes %s', async (_name, contentEncoding, body) => {
    const result = await fetchEncoded(contentEncoding, body);
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(Buffer.from(result.body!).toString()).toBe(RULES);
    expect(result.robots?.isAllowed('/secret', USER_AGENT)).toBe(false);
  });

  it.each([
    ['zstd', gzipSync(rules)],
    ['x-foo', gzipSync(rules)],
    ['gzip, compress', gzipSync(rules)],
  ])(
    'refuses the coding %s, which it cannot decode: unreachable, disallow all',
    async (contentEncoding, body) => {
      const result = await fetchEncoded(contentEncoding, body);
      expect(result).toMatchObject({
        status: 'decoding-error',
        kind: 'disallow-all',
        robots: null,
        body: null,
      });
      const unknown = contentEncoding.split(', ').at(-1)!;
      expect(result.why).toContain(`Content-Encoding "${unknown}" cannot be decoded`);
      expect(result.why).toContain('2.3.1.4');
    },
  );

  it('refuses more stacked codings than any server uses', async () => {
    const body = [1, 2, 3, 4, 5].reduce<Buffer>((data) => gzipSync(data), rules);
    const result = await fetchEncoded('gzip, gzip, gzip, gzip, gzip', body);
    expect(result).toMatchObject({ status: 'decoding-error', kind: 'disallow-all' });
    expect(result.why).toContain('stacks 5 codings');
  });

  it('refuses corrupt gzip data', async () => {
    const corrupt = Buffer.concat([gzipSync(rules).subarray(0, 10), Buffer.from('not deflate data at all')]);
    const result = await fetchEncoded('gzip', corrupt);
    expect(result).toMatchObject({ status: 'decoding-error', kind: 'disallow-all' });
    expect(result.why).toContain('gzip:');
  });

  it.each([
    ['gzip', gzipSync(rules)],
    ['deflate', deflateSync(rules)],
    ['br', brotliCompressSync(rules)],
  ])(
    'refuses a %s stream that ends early inside a complete HTTP answer, never parsing half a file',
    async (contentEncoding, compressed) => {
      // Up to "Allow: /public": parsed, the cut file would allow everything.
      const part = compressed.subarray(0, compressed.length - 12);
      const head = `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: ${contentEncoding}\r\nContent-Length: ${part.length}\r\nConnection: close\r\n\r\n`;
      const result = await fetchRawAnswer(Buffer.concat([Buffer.from(head), part]));
      expect(result).toMatchObject({ status: 'decoding-error', kind: 'disallow-all', robots: null });
      expect(result.why).toContain(`${contentEncoding}: unexpected end of file`);
    },
  );

  it('decodes a gzip body of several members (RFC 1952 2.2)', async () => {
    const half = RULES.indexOf('Disallow');
    const body = Buffer.concat([gzipSync(rules.subarray(0, half)), gzipSync(rules.subarray(half))]);
    const result = await fetchEncoded('gzip', body);
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(Buffer.from(result.body!).toString()).toBe(RULES);
  });

  it.each([
    ['a newline', '\n'],
    ['CRLF', '\r\n'],
    ['an HTML fragment', '<!-- served by example -->\n'],
    ['zero padding', '\0\0\0\0'],
    // Octets that start as a member does, with no valid header after them.
    ['the first octet of a member', Buffer.from([0x1f])],
    ['the two magic octets of a member', Buffer.from([0x1f, 0x8b])],
    [
      'a member header with reserved flags',
      Buffer.concat([Buffer.from([0x1f, 0x8b, 8]), Buffer.alloc(20, 'A')]),
    ],
  ])('ignores %s after the last complete gzip member', async (_name, trailing) => {
    const result = await fetchEncoded('gzip', Buffer.concat([gzipSync(rules), Buffer.from(trailing)]));
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(Buffer.from(result.body!).toString()).toBe(RULES);
    expect(result.robots?.isAllowed('/secret', USER_AGENT)).toBe(false);
  });

  it.each([
    ['a second member cut short', Buffer.concat([gzipSync(rules), gzipSync(rules).subarray(0, 20)])],
    ['a member with a wrong CRC', withByteFlipped(gzipSync(rules), -8)],
    ['a member with a wrong length', withByteFlipped(gzipSync(rules), -1)],
    [
      'a second member with a wrong CRC',
      Buffer.concat([gzipSync(rules), withByteFlipped(gzipSync(rules), -8)]),
    ],
  ])('still refuses %s', async (_name, body) => {
    const result = await fetchEncoded('gzip', body);
    expect(result).toMatchObject({ status: 'decoding-error', kind: 'disallow-all', robots: null });
  });

  it.each([
    ['gzip, chunked', 'gzip, chunked', `${gzipSync(rules).length.toString(16)}\r\n`, '\r\n0\r\n\r\n'],
    ['gzip, the body ending with the connection', 'gzip', '', ''],
  ])(
    'decodes a transfer coding Node leaves in the body (Transfer-Encoding: %s)',
    async (_name, transferEncoding, before, after) => {
      const head = `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: ${transferEncoding}\r\nConnection: close\r\n\r\n${before}`;
      const result = await fetchRawAnswer(
        Buffer.concat([Buffer.from(head), gzipSync(rules), Buffer.from(after)]),
      );
      // Left encoded, the body would be a file without rules: everything allowed.
      expect(result).toMatchObject({ status: 200, kind: 'rules' });
      expect(Buffer.from(result.body!).toString()).toBe(RULES);
      expect(result.robots?.isAllowed('/secret', USER_AGENT)).toBe(false);
    },
  );

  it('refuses a transfer coding it cannot decode: unreachable, disallow all', async () => {
    const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: x-foo\r\nConnection: close\r\n\r\n';
    const result = await fetchRawAnswer(Buffer.concat([Buffer.from(head), rules]));
    expect(result).toMatchObject({ status: 'decoding-error', kind: 'disallow-all', robots: null });
    expect(result.why).toContain('Transfer-Encoding "x-foo" cannot be decoded');
  });

  it('reads an empty body as an empty file whatever its coding', async () => {
    const result = await fetchEncoded('gzip', Buffer.alloc(0));
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(result.body?.byteLength).toBe(0);
  });

  it('stops a stacked bomb (gzip, gzip) at the cap of the decoded size', async () => {
    // 1 GiB of zeros in 100 gzip members of 10 MiB, gzipped once more: a few KiB on the wire.
    const member = gzipSync(Buffer.alloc(10 * 1024 * 1024), { level: 9 });
    const body = gzipSync(Buffer.concat(Array.from({ length: 100 }, () => member)), { level: 9 });
    const started = performance.now();
    const result = await fetchEncoded('gzip, gzip', body);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: 200, kind: 'rules', truncated: true });
    expect(result.body?.byteLength).toBeLessThanOrEqual(512_000 + MAX_LINE_OCTETS + 1);
    expect(elapsed).toBeLessThan(3000);
  });
});
