import { describe, expect, it } from 'vitest';
import { isPolicyRecord, needsBody, recordFields } from '../../src/store/policy.js';
import { policyRecord } from './records.js';

const ORIGIN = 'https://www.example.com';
const AT = Date.UTC(2026, 10, 30);

/** The record with `field` set to `value` (deleted when undefined), as a backend could hold it. */
function withField(field: string, value: unknown): unknown {
  const record: Record<string, unknown> = { ...policyRecord(ORIGIN, AT) };
  if (value === undefined) delete record[field];
  else record[field] = value;
  return record;
}

describe('isPolicyRecord', () => {
  it('accepts a complete record, with or without its optional fields', () => {
    const outage = policyRecord(ORIGIN, AT, {
      kind: 'disallow-all',
      status: 'timeout',
      failures: 3,
      unreachableSince: AT - 3_600_000,
      retryAt: AT + 60_000,
      cacheControl: 'max-age=60',
      hops: [
        { url: `${ORIGIN}/robots.txt`, status: 301, location: 'https://cdn.example/r.txt', durationMs: 2 },
      ],
    });
    expect(isPolicyRecord(outage)).toBe(true);
    expect(isPolicyRecord(withField('good', undefined))).toBe(true);
    // As a backend reads it back: through JSON.
    expect(isPolicyRecord(JSON.parse(JSON.stringify(outage)))).toBe(true);
  });

  it.each([
    'version',
    'origin',
    'robotsTxtUrl',
    'finalUrl',
    'kind',
    'status',
    'why',
    'fetchedAt',
    'expiresAt',
    'hops',
    'failures',
    'servedFromStaleCopy',
    'truncated',
    'timings',
  ])('ignores a record without %s', (field) => {
    expect(isPolicyRecord(withField(field, undefined))).toBe(false);
  });

  it.each([
    ['fetchedAt', '1795996800000'],
    ['expiresAt', Number.POSITIVE_INFINITY],
    ['why', null],
    ['finalUrl', 42],
    ['kind', 'allow-some'],
    ['status', null],
    ['failures', -1],
    ['failures', 1.5],
    ['failures', 2 ** 53],
    ['servedFromStaleCopy', 'false'],
    ['truncated', 0],
    ['timings', { totalMs: 2 }],
    ['timings', { totalMs: '2', parseMs: 0 }],
    ['hops', [null]],
    ['hops', [{ url: 1, status: 200, durationMs: 1 }]],
    ['hops', [{ url: `${ORIGIN}/robots.txt`, status: 200 }]],
    ['hops', [{ url: `${ORIGIN}/robots.txt`, status: 301, location: 5, durationMs: 1 }]],
    ['unreachableSince', 'yesterday'],
    ['retryAt', Number.NaN],
    ['cacheControl', ['max-age=60']],
    ['good', { kind: 'disallow-all', status: 503, fetchedAt: AT, why: 'down', truncated: false }],
    ['good', { kind: 'rules', status: 200, fetchedAt: AT, truncated: false }],
    ['good', null],
  ])('ignores a record whose %s is %j', (field, value) => {
    expect(isPolicyRecord(withField(field, value))).toBe(false);
  });

  it('ignores what is not a record', () => {
    for (const value of [null, undefined, 'record', 1, [], [policyRecord(ORIGIN, AT)]]) {
      expect(isPolicyRecord(value)).toBe(false);
    }
  });
});

describe('needsBody', () => {
  it('is true when the rules of the policy or of its good copy come from the body', () => {
    expect(needsBody(policyRecord(ORIGIN, AT))).toBe(false);
    expect(needsBody(policyRecord(ORIGIN, AT, { kind: 'rules', status: 200 }))).toBe(true);
    const outage = policyRecord(ORIGIN, AT, {
      kind: 'disallow-all',
      status: 503,
      failures: 1,
      good: { kind: 'rules', status: 200, fetchedAt: AT - 1, why: 'HTTP 200', truncated: false },
    });
    expect(needsBody(outage)).toBe(true);
  });
});

describe('recordFields', () => {
  it('copies every field of a record, optional ones included, and nothing else', () => {
    const full = policyRecord(ORIGIN, AT, {
      kind: 'disallow-all',
      status: 503,
      hops: [
        { url: `${ORIGIN}/robots.txt`, status: 301, location: '/r.txt', durationMs: 1 },
        { url: `${ORIGIN}/r.txt`, status: 503, durationMs: 2 },
      ],
      failures: 2,
      unreachableSince: AT - 1000,
      retryAt: AT + 1000,
      cacheControl: 'max-age=60',
    });
    expect(recordFields(full)).toEqual(full);
    const extra = JSON.parse(JSON.stringify(full));
    extra.note = 'another writer';
    extra.good.note = 'another writer';
    extra.hops[0].note = 'another writer';
    extra.timings.note = 'another writer';
    expect(recordFields(extra)).toEqual(full);
  });
});
