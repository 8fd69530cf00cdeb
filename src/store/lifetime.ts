import { DISALLOWS_ALL, notModifiedUnasked, type RobotsFetchResult } from '../fetch/index.js';
import type { PolicyRecord, StoredPolicy } from './policy.js';

/** The lifetime settings the outage state machine needs, all in milliseconds. */
export interface LifetimeSettings {
  /** Longest a good answer is kept (RFC 9309 2.4: 24 hours). */
  maxAgeMs: number;
  /** Shortest a good answer is kept, whatever `Cache-Control` says. */
  minAgeMs: number;
  /** First retry delay of an unreachable robots.txt. */
  retryInitialDelayMs: number;
  /** Longest retry delay. */
  retryMaxDelayMs: number;
  /** How long an outage lasts before the last good copy is used. */
  unreachableGraceMs: number;
}

const DAY_MS = 86_400_000;

/**
 * The next state of an origin after a fetch: the outage state machine.
 *
 * - An answer (2xx, 4xx, unresolvable redirects) ends any outage. It is kept for
 *   `Cache-Control: max-age` if that is shorter than `maxAgeMs` (RFC 9309 2.4), but at least
 *   `minAgeMs`.
 * - No answer (5xx, 429, network failure) starts or continues an outage: complete disallow
 *   (RFC 9309 2.3.1.4), retried after a delay that doubles with each failure, from
 *   `retryInitialDelayMs` up to `retryMaxDelayMs`, never sooner than `Retry-After` asks.
 *   Once the outage is older than `unreachableGraceMs` and an earlier answer exists, that
 *   answer is used again (RFC 9309 2.3.1.4: "continue to use a cached copy").
 */
export function nextState(
  previous: StoredPolicy | undefined,
  fetched: RobotsFetchResult,
  now: number,
  settings: LifetimeSettings,
): StoredPolicy {
  const base = {
    version: 1 as const,
    origin: fetched.origin,
    robotsTxtUrl: fetched.robotsTxtUrl,
    finalUrl: fetched.finalUrl,
    status: fetched.status,
    fetchedAt: fetched.fetchedAt,
    hops: [...fetched.hops],
    timings: fetched.timings,
    ...(fetched.cacheControl === undefined ? {} : { cacheControl: fetched.cacheControl }),
  };

  const kept = previous?.record.good;
  if (kept !== undefined && notModifiedUnasked(fetched)) {
    // A 304 to a request that was not conditional (a cache in the way that misbehaves) says the
    // file has not changed: the copy held is used again, not a file "unavailable" that would allow
    // everything. Without a copy, it is what it says below.
    const record: PolicyRecord = {
      ...base,
      kind: kept.kind,
      why: `HTTP 304 Not Modified, though the request was not conditional: the copy fetched at ${new Date(kept.fetchedAt).toISOString()} is used again, as unchanged.`,
      expiresAt: now + goodLifetimeMs(fetched, settings),
      failures: 0,
      servedFromStaleCopy: false,
      good: kept,
      truncated: kept.truncated,
    };
    return { record, body: kept.kind === 'rules' ? (previous?.body ?? null) : null };
  }

  if (fetched.kind !== 'disallow-all') {
    const record: PolicyRecord = {
      ...base,
      kind: fetched.kind,
      why: fetched.why,
      expiresAt: now + goodLifetimeMs(fetched, settings),
      failures: 0,
      servedFromStaleCopy: false,
      good: {
        kind: fetched.kind,
        status: fetched.status,
        fetchedAt: fetched.fetchedAt,
        why: fetched.why,
        truncated: fetched.truncated,
      },
      truncated: fetched.truncated,
    };
    return { record, body: fetched.kind === 'rules' ? fetched.body : null };
  }

  const before = previous?.record;
  const failures = (before?.failures ?? 0) + 1;
  const unreachableSince =
    before && before.failures > 0 ? (before.unreachableSince ?? now) : fetched.fetchedAt;
  const retryAt = now + retryDelayMs(failures, fetched.retryAfterMs, settings);
  const good = before?.good;
  const stale = good !== undefined && now - unreachableSince >= settings.unreachableGraceMs;
  const why = outageWhy(fetched.why, stale, now, unreachableSince, good?.fetchedAt, retryAt);
  const record: PolicyRecord = {
    ...base,
    kind: stale ? good.kind : 'disallow-all',
    why,
    expiresAt: retryAt,
    failures,
    unreachableSince,
    retryAt,
    servedFromStaleCopy: stale,
    truncated: stale ? good.truncated : false,
    ...(good === undefined ? {} : { good }),
  };
  return { record, body: good === undefined ? null : (previous?.body ?? null) };
}

/** The `why` of an outage record: what failed, then what is served and until when. */
function outageWhy(
  failed: string,
  stale: boolean,
  now: number,
  unreachableSince: number,
  goodFetchedAt: number | undefined,
  retryAt: number,
): string {
  if (!stale)
    return `${failed.replace(WOULD_DISALLOW_ALL, DISALLOWS_ALL)}${NEXT_ATTEMPT}${new Date(retryAt).toISOString()}.`;
  const days = Math.floor((now - unreachableSince) / DAY_MS);
  // What failed no longer disallows everything: the copy decides.
  return `${failed.replace(DISALLOWS_ALL, WOULD_DISALLOW_ALL)}${UNREACHABLE_FOR}${days} days: the copy fetched at ${new Date(goodFetchedAt ?? now).toISOString()} is used again (RFC 9309 2.3.1.4).`;
}
/** DISALLOWS_ALL as a record served from its last good copy words it (see withOurGrace, which goes back). */
const WOULD_DISALLOW_ALL = ', which alone would disallow everything';
/** Where outageWhy's two endings start: what comes before them is what failed. */
const NEXT_ATTEMPT = ' Next attempt at ';
const UNREACHABLE_FOR = ' Unreachable for ';

/**
 * An outage record another store wrote, with this store's `unreachableGraceMs`: whether the last
 * good copy is used is this store's choice (a store told to wait a year for a site to come back
 * does not use the copy a store told to wait 30 days wrote). The record as it is when it needs no
 * change, or when the good copy it would serve is not in it.
 */
function withOurGrace(stored: StoredPolicy, now: number, settings: LifetimeSettings): StoredPolicy {
  const { record } = stored;
  const { good, unreachableSince, retryAt } = record;
  if (record.failures === 0 || good === undefined || unreachableSince === undefined) return stored;
  const stale = now - unreachableSince >= settings.unreachableGraceMs;
  if (stale === record.servedFromStaleCopy) return stored;
  if (stale && good.kind === 'rules' && stored.body === null) return stored;
  const ending = record.why.indexOf(record.servedFromStaleCopy ? UNREACHABLE_FOR : NEXT_ATTEMPT);
  const failed = ending < 0 ? record.why : record.why.slice(0, ending);
  return {
    record: {
      ...record,
      kind: stale ? good.kind : 'disallow-all',
      servedFromStaleCopy: stale,
      truncated: stale ? good.truncated : false,
      why: outageWhy(failed, stale, now, unreachableSince, good.fetchedAt, retryAt ?? record.expiresAt),
    },
    body: stored.body,
  };
}

/** How long a good answer is kept: RFC 9309 2.4 and RFC 9111 `max-age`, within [minAgeMs, maxAgeMs]. */
function goodLifetimeMs(fetched: RobotsFetchResult, settings: LifetimeSettings): number {
  const { maxAgeMs, noReuse } = fetched.cacheDirectives;
  const asked = noReuse ? 0 : (maxAgeMs ?? settings.maxAgeMs);
  return Math.max(settings.minAgeMs, Math.min(settings.maxAgeMs, asked));
}

/** Exponential backoff: initial * 2^(failures - 1), capped; `Retry-After` lengthens it up to the cap. */
function retryDelayMs(
  failures: number,
  retryAfterMs: number | undefined,
  settings: LifetimeSettings,
): number {
  const exponential = settings.retryInitialDelayMs * 2 ** Math.min(failures - 1, 40);
  const delay = Math.min(settings.retryMaxDelayMs, exponential);
  return retryAfterMs === undefined
    ? delay
    : Math.max(delay, Math.min(retryAfterMs, settings.retryMaxDelayMs));
}

/**
 * How long a backend keeps a record: past its expiry it still serves as the previous state
 * (the outage clock, the good copy, the base of change detection) for `keepExpiredMs`, and an
 * outage record at least until its grace period is over. A whole number of milliseconds, 1 or
 * more, as Redis's PEXPIRE takes it (the store's options bound it well inside 2^53).
 */
export function retentionMs(
  record: PolicyRecord,
  now: number,
  settings: LifetimeSettings,
  keepExpiredMs: number,
): number {
  let until = record.expiresAt;
  if (record.failures > 0 && record.unreachableSince !== undefined) {
    until = Math.max(until, record.unreachableSince + settings.unreachableGraceMs);
  }
  return Math.max(1, Math.ceil(until + keepExpiredMs - now));
}

/**
 * How far ahead of this process's clock another writer's clock may be before the times of its
 * records are not believed: the drift of machines kept in time by NTP, with room to spare.
 */
export const CLOCK_SKEW_TOLERANCE_MS = 60_000;

/**
 * A record another process wrote, read on this process's clock. A writer whose clock is ahead
 * writes times in our future: negative ages, and a copy used past `maxAgeMs` (RFC 9309 2.4). So
 * no time is taken later than `now`, and no policy holds longer after its fetch than this
 * store's settings allow. A record fetched more than CLOCK_SKEW_TOLERANCE_MS ahead has an age
 * nobody can tell (anchored to `now` on every load, it would never expire): it is expired at
 * once, and serves only as the previous state (the good copy, the outage clock).
 */
export function onClock(stored: StoredPolicy, now: number, settings: LifetimeSettings): StoredPolicy {
  const { record } = stored;
  const fetchedAt = Math.min(record.fetchedAt, now);
  const longest = record.failures > 0 ? settings.retryMaxDelayMs : settings.maxAgeMs;
  const expiresAt =
    record.fetchedAt - now > CLOCK_SKEW_TOLERANCE_MS ? now : Math.min(record.expiresAt, fetchedAt + longest);
  const clamped: PolicyRecord = { ...record, fetchedAt, expiresAt };
  if (record.unreachableSince !== undefined)
    clamped.unreachableSince = Math.min(record.unreachableSince, now);
  if (record.retryAt !== undefined) clamped.retryAt = Math.min(record.retryAt, expiresAt);
  if (record.good !== undefined)
    clamped.good = { ...record.good, fetchedAt: Math.min(record.good.fetchedAt, now) };
  return withOurGrace({ record: clamped, body: stored.body }, now, settings);
}
