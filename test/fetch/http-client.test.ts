import { readFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  classifyFailure,
  fetchRobotsTxt,
  GotScrapingRobotsClient,
  type RobotsHttpRequest,
} from '../../src/fetch/index.js';

const RULES = 'User-agent: *\nDisallow: /private\n';

/**
 * Self-signed certificates valid for a century: `loopback` names 127.0.0.1, `other-host` names
 * robots-fixture.invalid only. Made with `openssl req -x509 -newkey rsa:2048 -nodes -days 36500
 * -subj /CN=robots-fixture.invalid` (and `-addext subjectAltName=IP:127.0.0.1` for loopback).
 */
function certificate(name: 'loopback' | 'other-host') {
  return {
    key: readFileSync(new URL(`./fixtures/${name}.key.pem`, import.meta.url)),
    cert: readFileSync(new URL(`./fixtures/${name}.cert.pem`, import.meta.url)),
  };
}

function requestFor(url: string, extra: Partial<RobotsHttpRequest> = {}): RobotsHttpRequest {
  return {
    url: new URL(url),
    headers: { 'user-agent': 'ExampleBot/1.0' },
    maxBytes: 10_000,
    connectTimeoutMs: 1000,
    timeoutMs: 2000,
    ...extra,
  };
}

/** An HTTPS server offering HTTP/2 by ALPN and accepting HTTP/1.1, as most sites do. */
async function startHttp2Server(name: 'loopback' | 'other-host') {
  const sockets = new Set<Socket>();
  const server: Http2SecureServer = createSecureServer(
    { ...certificate(name), allowHTTP1: true },
    (request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`${RULES}# HTTP/${request.httpVersion}\n`);
    },
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    origin: `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('GotScrapingRobotsClient: HTTP/2 and certificates', () => {
  let loopback: Awaited<ReturnType<typeof startHttp2Server>>;
  let otherHost: Awaited<ReturnType<typeof startHttp2Server>>;

  beforeAll(async () => {
    loopback = await startHttp2Server('loopback');
    otherHost = await startHttp2Server('other-host');
  });
  afterAll(async () => {
    await loopback.close();
    await otherHost.close();
  });

  it('speaks HTTP/2 to a server whose certificate names the host', async () => {
    const answer = await new GotScrapingRobotsClient().request(requestFor(`${loopback.origin}/robots.txt`));
    expect(answer).toMatchObject({ ok: true, status: 200 });
    if (answer.ok) expect(Buffer.from(answer.body).toString()).toBe(`${RULES}# HTTP/2.0\n`);
  });

  it('reads a robots.txt whose certificate names another host when TLS errors are ignored', async () => {
    // http2-wrapper drops such a session even when told to accept invalid certificates.
    const answer = await new GotScrapingRobotsClient().request(requestFor(`${otherHost.origin}/robots.txt`));
    expect(answer).toMatchObject({ ok: true, status: 200 });
    if (answer.ok) expect(Buffer.from(answer.body).toString()).toBe(`${RULES}# HTTP/1.1\n`);
  });

  it('gives its rules through fetchRobotsTxt with the default client', async () => {
    const result = await fetchRobotsTxt(otherHost.origin, { userAgent: 'ExampleBot/1.0', timeoutMs: 2000 });
    expect(result).toMatchObject({ status: 200, kind: 'rules' });
    expect(result.robots?.isAllowed(`${otherHost.origin}/private/x`, 'ExampleBot')).toBe(false);
  });

  it.each([true, false])('is a tls-error when TLS errors are not ignored (http2: %s)', async (http2) => {
    const client = new GotScrapingRobotsClient({ ignoreTlsErrors: false, http2 });
    const answer = await client.request(requestFor(`${otherHost.origin}/robots.txt`));
    expect(answer).toMatchObject({ ok: false, failure: 'tls-error' });
  });
});

describe('GotScrapingRobotsClient: options got-scraping refuses', () => {
  it('turns a proxy URL got-scraping cannot parse into a failure, without an unhandled rejection', {
    timeout: 5000,
  }, async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      // got returns a promise-like instead of a stream here, and rejects it a tick later.
      const answer = await new GotScrapingRobotsClient().request(
        requestFor('http://127.0.0.1:9/robots.txt', { proxyUrl: 'not-a-url' }),
      );
      expect(answer).toMatchObject({ ok: false, failure: 'network-error' });
      if (!answer.ok) expect(answer.message).toContain('proxyUrl');
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled).toEqual([]);
  });
});

describe('classifyFailure', () => {
  it.each([
    ['Requested origin https://127.0.0.1:8443 does not match server undefined', 'tls-error'],
    ['Proxy responded with 407 Proxy Authentication Required: 0 bytes.', 'proxy-error'],
    ['The proxy responded with 403 Forbidden: ', 'proxy-error'],
    ['something else', 'network-error'],
  ])('classifies %j as %s', (message, failure) => {
    expect(classifyFailure(new Error(message))).toBe(failure);
  });

  it.each([
    ['Z_DATA_ERROR', 'decoding-error'],
    ['Z_BUF_ERROR', 'decoding-error'],
    ['ECONNREFUSED', 'connection-refused'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls-error'],
  ])('classifies the code %s as %s', (code, failure) => {
    expect(classifyFailure(Object.assign(new Error('failed'), { code }))).toBe(failure);
  });
});
