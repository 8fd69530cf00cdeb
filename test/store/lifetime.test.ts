import { describe, expect, it } from 'vitest';
import {
  CLOCK_SKEW_TOLERANCE_MS,
  type LifetimeSettings,
  onClock,
  retentionMs,
} from '../../src/store/lifetime.js';
import { policyRecord } from './records.js';

const ORIGIN = 'https://www.example.com';
const NOW = Date.UTC(2026, 10, 30);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SETTINGS: LifetimeSettings = {
  maxAgeMs: DAY,
  minAgeMs: 60_000,
  retryInitialDelayMs: 60_000,
  retryMaxDelayMs: HOUR,
  unreachableGraceMs: 30 * DAY,
};

describe('onClock: a record written on another clock, read on ours', () => {
  it('leaves a record from a clock that is not ahead as it is', () => {
    const record = policyRecord(ORIGIN, NOW - HOUR, { expiresAt: NOW + 23 * HOUR });
    expect(onClock({ record, body: null }, NOW, SETTINGS).record).toEqual(record);
  });

  it('takes a fetch slightly in the future as fetched now, never holding longer than maxAgeMs', () => {
    const ahead = CLOCK_SKEW_TOLERANCE_MS / 2;
    const record = policyRecord(ORIGIN, NOW + ahead, { expiresAt: NOW + ahead + DAY });
    const clamped = onClock({ record, body: null }, NOW, SETTINGS).record;
    expect(clamped).toMatchObject({ fetchedAt: NOW, expiresAt: NOW + DAY, good: { fetchedAt: NOW } });
  });

  it('expires at once a record fetched further ahead than the tolerance, keeping it as the previous state', () => {
    const ahead = 3 * DAY;
    const record = policyRecord(ORIGIN, NOW + ahead, {
      kind: 'disallow-all',
      status: 503,
      failures: 2,
      unreachableSince: NOW + ahead - HOUR,
      retryAt: NOW + ahead + HOUR,
      expiresAt: NOW + ahead + HOUR,
    });
    const clamped = onClock({ record, body: null }, NOW, SETTINGS).record;
    expect(clamped).toMatchObject({
      fetchedAt: NOW,
      expiresAt: NOW,
      retryAt: NOW,
      unreachableSince: NOW,
      failures: 2,
      good: { kind: 'allow-all', fetchedAt: NOW },
    });
  });

  it('holds a policy no longer after its fetch than this store allows', () => {
    // Written by a store with longer lifetimes than ours.
    const good = policyRecord(ORIGIN, NOW - HOUR, { expiresAt: NOW - HOUR + DAY });
    expect(
      onClock({ record: good, body: null }, NOW, { ...SETTINGS, maxAgeMs: 2 * HOUR }).record.expiresAt,
    ).toBe(NOW + HOUR);
    const outage = policyRecord(ORIGIN, NOW, {
      kind: 'disallow-all',
      failures: 4,
      expiresAt: NOW + 4 * HOUR,
    });
    expect(onClock({ record: outage, body: null }, NOW, SETTINGS).record.expiresAt).toBe(NOW + HOUR);
  });
});

describe('retentionMs: how long a backend keeps a record', () => {
  it('is a whole number of milliseconds, as Redis PEXPIRE takes it, even on a clock with fractions', () => {
    const record = policyRecord(ORIGIN, NOW + 0.25, { expiresAt: NOW + HOUR + 0.25 });
    const retained = retentionMs(record, NOW + 0.5, SETTINGS, 7 * DAY);
    expect(Number.isSafeInteger(retained)).toBe(true);
    expect(retained).toBe(HOUR + 7 * DAY);
  });

  it('keeps an outage record until its grace period is over, at least 1 ms', () => {
    const outage = policyRecord(ORIGIN, NOW, {
      kind: 'disallow-all',
      failures: 3,
      unreachableSince: NOW - DAY,
      expiresAt: NOW + HOUR,
    });
    expect(retentionMs(outage, NOW, SETTINGS, 0)).toBe(29 * DAY);
    expect(retentionMs(policyRecord(ORIGIN, NOW - 9 * DAY), NOW, SETTINGS, 0)).toBe(1);
  });
});
