import { describe, expect, it } from 'vitest';
import {
  freshnessOf,
  parseCacheControl,
  parseHttpDate,
  parseRetryAfter,
} from '../../src/fetch/cache-control.js';
import { fetchRobotsTxt } from '../../src/fetch/index.js';
import { startHttpServer } from '../support/http-server.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const httpDate = (time: number) => new Date(time).toUTCString();

describe('parseCacheControl (RFC 9111 5.2)', () => {
  it.each([
    ['max-age=60', { maxAgeMs: 60_000, noReuse: false }],
    ['public, MAX-AGE = 60', { maxAgeMs: 60_000, noReuse: false }],
    ['max-age="60"', { maxAgeMs: 60_000, noReuse: false }],
    ['no-store', { noReuse: true }],
    ['no-cache, max-age=60', { maxAgeMs: 60_000, noReuse: true }],
    ['private="x, max-age=5", max-age=60', { maxAgeMs: 60_000, noReuse: false }],
    // RFC 9111 5.2.2.4: a qualified no-cache keeps the listed fields from reuse, not the answer.
    ['no-cache="Set-Cookie", max-age=3600', { maxAgeMs: 3_600_000, noReuse: false }],
    ['no-cache="Set-Cookie, ETag"', { noReuse: false }],
    ['no-cache=Set-Cookie', { noReuse: false }],
    ['no-cache=""', { noReuse: true }],
    ['no-cache="Set-Cookie", no-store', { noReuse: true }],
    ['private="Set-Cookie", max-age=60', { maxAgeMs: 60_000, noReuse: false }],
    ['s-maxage=10', { noReuse: false }],
    ['', { noReuse: false }],
  ])('reads %j', (value, expected) => {
    expect(parseCacheControl(value)).toEqual(expected);
  });

  it('uses the first of duplicate max-age directives (4.2.1)', () => {
    expect(parseCacheControl('max-age=600, max-age=86400').maxAgeMs).toBe(600_000);
    // Two header lines arrive joined by a comma.
    expect(parseCacheControl('max-age=86400, public, max-age=600').maxAgeMs).toBe(86_400_000);
  });

  it.each(['max-age=1e3', 'max-age=-5', 'max-age=', 'max-age', 'max-age=60s', 'max-age=1.5'])(
    'reads the invalid %j as stale (4.2.1)',
    (value) => {
      expect(parseCacheControl(value).maxAgeMs).toBe(0);
    },
  );

  it('reads a delta-seconds too large to represent as 2^31 seconds (1.2.2)', () => {
    expect(parseCacheControl(`max-age=${'9'.repeat(400)}`).maxAgeMs).toBe(2 ** 31 * 1000);
  });
});

describe('freshnessOf (RFC 9111 4.2)', () => {
  it('subtracts the Age the answer already had', () => {
    expect(freshnessOf({ 'cache-control': 'max-age=3600', age: '3500' }, NOW).maxAgeMs).toBe(100_000);
    expect(freshnessOf({ 'cache-control': 'max-age=3600', age: '7200' }, NOW).maxAgeMs).toBe(0);
    expect(freshnessOf({ 'cache-control': 'max-age=3600', age: 'soon' }, NOW).maxAgeMs).toBe(3_600_000);
  });

  it('uses Expires less Date when there is no max-age (5.3)', () => {
    const headers = { date: httpDate(NOW - 60_000), expires: httpDate(NOW + 540_000) };
    expect(freshnessOf(headers, NOW).maxAgeMs).toBe(600_000);
    expect(freshnessOf({ ...headers, age: '100' }, NOW).maxAgeMs).toBe(500_000);
  });

  it('counts Expires from the time of receipt when there is no Date', () => {
    expect(freshnessOf({ expires: httpDate(NOW + 300_000) }, NOW).maxAgeMs).toBe(300_000);
  });

  it.each(['Thu, 01 Jan 1970 00:00:00 GMT', '0', '-1', '2030-01-01'])(
    'reads Expires %j as already expired',
    (expires) => {
      expect(freshnessOf({ expires }, NOW).maxAgeMs).toBe(0);
    },
  );

  it('ignores Expires when max-age is there (5.3)', () => {
    expect(freshnessOf({ 'cache-control': 'max-age=60', expires: '0' }, NOW).maxAgeMs).toBe(60_000);
  });

  it('gives no lifetime when the server gives none', () => {
    expect(freshnessOf({ age: '100' }, NOW)).toEqual({ noReuse: false });
  });
});

describe('parseHttpDate (RFC 9110 5.6.7)', () => {
  const time = Date.UTC(1994, 10, 6, 8, 49, 37);
  it.each(['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'])(
    'reads %j',
    (value) => {
      expect(parseHttpDate(value)).toBe(time);
    },
  );

  it.each(['0', '1994-11-06T08:49:37Z', 'Sun, 06 Nov 1994 08:49:37 +0100', 'tomorrow'])(
    'refuses %j',
    (value) => {
      expect(parseHttpDate(value)).toBeUndefined();
    },
  );

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(httpDate(NOW + 30_000), NOW)).toBe(30_000);
    expect(parseRetryAfter('in a while', NOW)).toBeUndefined();
    // Too large to represent: 2^31 seconds, as for max-age.
    expect(parseRetryAfter('99999999999999999999999', NOW)).toBe(2 ** 31 * 1000);
  });
});

describe('fetchRobotsTxt: freshness of the answer', () => {
  it.each<[Record<string, string | string[]>, number]>([
    [{ 'cache-control': 'max-age=3600', age: '3500' }, 100_000],
    [{ 'cache-control': 'no-cache="Set-Cookie", max-age=3600' }, 3_600_000],
    [{ 'cache-control': ['max-age=600', 'max-age=86400'] }, 600_000],
    [{ expires: 'Thu, 01 Jan 1970 00:00:00 GMT' }, 0],
    [{ 'cache-control': 'max-age=1e3' }, 0],
  ])('keeps %j for at most %i ms', async (headers, maxAgeMs) => {
    const server = await startHttpServer({
      '/robots.txt': (_request, response) => {
        for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
        response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /x\n');
      },
    });
    try {
      const result = await fetchRobotsTxt(server.origin, { userAgent: 'ExampleBot/1.0', timeoutMs: 2000 });
      expect(result).toMatchObject({ status: 200, kind: 'rules' });
      expect(result.cacheDirectives).toEqual({ maxAgeMs, noReuse: false });
    } finally {
      await server.close();
    }
  });
});
