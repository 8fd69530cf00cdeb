import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/robots/index.js';
import { PolicyEntry } from '../../src/store/entry.js';
import type { PolicyRecord } from '../../src/store/policy.js';

const ORIGIN = 'https://www.example.com';
const ROBOTS_URL = `${ORIGIN}/robots.txt`;
const FETCHED = Date.UTC(2026, 10, 30, 4, 0, 0);
const HOUR = 3_600_000;

const plain: PolicyRecord = {
  version: 1,
  origin: ORIGIN,
  robotsTxtUrl: ROBOTS_URL,
  finalUrl: ROBOTS_URL,
  kind: 'rules',
  status: 200,
  why: 'HTTP 200: the rules of the file apply (RFC 9309 2.3.1.1).',
  fetchedAt: FETCHED,
  expiresAt: FETCHED + 24 * HOUR,
  hops: [{ url: ROBOTS_URL, status: 200, durationMs: 12.345 }],
  failures: 0,
  servedFromStaleCopy: false,
  truncated: false,
  timings: { totalMs: 13.5, parseMs: 0.125 },
  good: {
    kind: 'rules',
    status: 200,
    fetchedAt: FETCHED,
    why: 'HTTP 200: the rules of the file apply (RFC 9309 2.3.1.1).',
    truncated: false,
  },
};

const redirected: PolicyRecord = {
  ...plain,
  finalUrl: 'https://cdn.example.net/robots.txt',
  hops: [
    { url: ROBOTS_URL, status: 301, location: 'https://cdn.example.net/robots.txt', durationMs: 3.5 },
    { url: 'https://cdn.example.net/robots.txt', status: 200, durationMs: 4.25 },
  ],
  cacheControl: 'max-age=60',
  expiresAt: FETCHED + 60_000,
  truncated: true,
  good: { ...plain.good!, truncated: true },
};

const outage: PolicyRecord = {
  ...plain,
  kind: 'disallow-all',
  status: 503,
  why: 'HTTP 503: robots.txt is unreachable, everything is disallowed (RFC 9309 2.3.1.4). Next attempt at 2026-11-30T06:00:00.000Z.',
  fetchedAt: FETCHED + 2 * HOUR,
  expiresAt: FETCHED + 4 * HOUR,
  hops: [{ url: ROBOTS_URL, status: 503, durationMs: 1.5 }],
  failures: 3,
  unreachableSince: FETCHED + HOUR,
  retryAt: FETCHED + 4 * HOUR,
};

const stale: PolicyRecord = {
  ...outage,
  kind: 'rules',
  servedFromStaleCopy: true,
  failures: 40,
};

const neverAnswered: PolicyRecord = {
  ...outage,
  status: 'timeout',
  hops: [],
  failures: 1,
  good: undefined,
};
delete neverAnswered.good;

const FILE = RobotsTxt.parse('User-agent: *\nDisallow: /private/\n');

describe('PolicyEntry: the compact form the store keeps per origin', () => {
  it.each([
    ['one plain answer', plain, FILE],
    ['a redirect chain with Cache-Control and a cut file', redirected, FILE],
    ['an outage after a good answer', outage, null],
    ['an outage long enough to serve the good copy again', stale, FILE],
    ['an origin that never answered', neverAnswered, null],
  ])('gives back the record it was made from: %s', (_, record, robots) => {
    const entry = new PolicyEntry(ORIGIN, { record, body: null }, robots, FILE, false);
    expect(entry.stored().record).toEqual(record);
    expect(entry.kind).toBe(record.kind);
    expect(entry.failures).toBe(record.failures);
    expect(entry.servedFromStaleCopy).toBe(record.servedFromStaleCopy);
    expect(entry.expiresAt).toBe(record.expiresAt);
    expect(entry.isFreshAt(record.expiresAt - 1)).toBe(true);
    expect(entry.isFreshAt(record.expiresAt)).toBe(false);

    const policy = entry.policy();
    expect(policy).toMatchObject({
      origin: ORIGIN,
      robotsTxtUrl: ROBOTS_URL,
      finalUrl: record.finalUrl,
      kind: record.kind,
      status: record.status,
      why: record.why,
      fetchedAt: record.fetchedAt,
      hops: record.hops,
      timings: record.timings,
      truncated: record.truncated,
    });
    expect(policy.robots).toBe(robots);
    expect(policy.cacheControl).toBe(record.cacheControl);
    expect(policy.unreachableSince).toBe(record.unreachableSince);
    expect(policy.goodCopyFetchedAt).toBe(record.servedFromStaleCopy ? record.good?.fetchedAt : undefined);
  });

  it('knows the good copy and its parsed file during an outage, and none when there never was one', () => {
    const during = new PolicyEntry(ORIGIN, { record: outage, body: null }, null, FILE, false);
    expect(during.good).toEqual(outage.good);
    expect(during.goodRobots).toBe(FILE);
    // The age of a verdict is the age of the copy it comes from.
    const served = new PolicyEntry(ORIGIN, { record: stale, body: null }, FILE, FILE, false);
    expect(served.copyFetchedAt).toBe(FETCHED);
    expect(new PolicyEntry(ORIGIN, { record: plain, body: null }, FILE, FILE, false).copyFetchedAt).toBe(
      FETCHED,
    );
    const never = new PolicyEntry(ORIGIN, { record: neverAnswered, body: null }, null, null, false);
    expect(never.good).toBeUndefined();
    expect(never.goodRobots).toBeNull();
  });

  it('keeps the raw body only when asked to, and keys by the origin it is kept for', () => {
    const body = new TextEncoder().encode('User-agent: *\nDisallow: /private/\n');
    expect(new PolicyEntry(ORIGIN, { record: plain, body }, FILE, FILE, true).stored().body).toBe(body);
    const memoryOnly = new PolicyEntry(ORIGIN, { record: plain, body }, FILE, FILE, false);
    expect(memoryOnly.stored().body).toBeNull();
    expect(memoryOnly.bodyBytes).toBe(body.byteLength);
    // A record that names another origin does not move the entry there.
    const foreign = { ...plain, origin: 'https://other.example.org' };
    expect(new PolicyEntry(ORIGIN, { record: foreign, body: null }, FILE, FILE, false).origin).toBe(ORIGIN);
  });

  it('keeps times from any clock exactly, system clock or not', () => {
    for (const fetchedAt of [0, 0.1, 1.5, -HOUR, FETCHED, FETCHED + 0.1, 2 ** 45 + 0.25, 2 ** 52]) {
      const record = {
        ...plain,
        fetchedAt,
        expiresAt: fetchedAt + HOUR,
        good: { ...plain.good!, fetchedAt },
      };
      const entry = new PolicyEntry(ORIGIN, { record, body: null }, FILE, FILE, false);
      expect(entry.fetchedAt).toBe(fetchedAt);
      expect(entry.expiresAt).toBe(fetchedAt + HOUR);
    }
  });
});
