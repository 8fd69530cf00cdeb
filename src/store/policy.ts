import type {
  RobotsFetchHop,
  RobotsFetchStatus,
  RobotsFetchTimings,
  RobotsPolicyKind,
} from '../fetch/index.js';
import type { RobotsTxt } from '../robots/index.js';

/**
 * What the store knows about one origin: the policy a crawler applies to its URLs, how it was
 * obtained and until when it holds.
 */
export interface OriginPolicy {
  /** scheme://host[:port], see {@link originOf}. */
  readonly origin: string;
  /** `<origin>/robots.txt`. */
  readonly robotsTxtUrl: string;
  /** The URL of the last request of the redirect chain. */
  readonly finalUrl: string;
  /**
   * `rules`: the file decides; `allow-all`: the file is unavailable (4xx, unresolvable
   * redirects); `disallow-all`: the file is unreachable (5xx, 429, network failure).
   */
  readonly kind: RobotsPolicyKind;
  /** HTTP status of the last attempt, or why it had none (`timeout`, `dns-error`, `redirect-loop`, ...). */
  readonly status: RobotsFetchStatus;
  /** One sentence: why this kind. */
  readonly why: string;
  /** The parsed file when `kind` is `rules`, otherwise null. */
  readonly robots: RobotsTxt | null;
  /** When the last attempt started (the store's clock, ms). */
  readonly fetchedAt: number;
  /** Until when this policy is used without asking the server again. */
  readonly expiresAt: number;
  /** The requests of the last attempt, redirects included. */
  readonly hops: readonly RobotsFetchHop[];
  /** Set while robots.txt is unreachable: when the outage began. */
  readonly unreachableSince?: number;
  /** Set while robots.txt is unreachable: when it is tried again. */
  readonly retryAt?: number;
  /** Failed attempts in a row (0 when the last attempt got an answer). */
  readonly failures: number;
  /**
   * True when robots.txt has been unreachable longer than `unreachableGraceDays` and the last
   * good copy is used instead of a complete disallow (RFC 9309 2.3.1.4).
   */
  readonly servedFromStaleCopy: boolean;
  /** When the copy in use was fetched, if a stale copy is served. */
  readonly goodCopyFetchedAt?: number;
  /** Size of the kept robots.txt body in octets (0 when there is none). */
  readonly bodyBytes: number;
  /** True when the file was longer than the size cap and was cut. */
  readonly truncated: boolean;
  /** The `Cache-Control` header of the answer. */
  readonly cacheControl?: string;
  readonly timings: RobotsFetchTimings;
}

/** The last answer that was not an outage: the copy RFC 9309 2.3.1.4 lets a crawler fall back to. */
export interface GoodCopyRecord {
  kind: 'rules' | 'allow-all';
  status: RobotsFetchStatus;
  fetchedAt: number;
  why: string;
  truncated: boolean;
}

/**
 * The JSON form of a policy, as backends store it next to the raw body. The parsed file is
 * not stored: it is parsed again from the body on load.
 */
export interface PolicyRecord {
  version: 1;
  origin: string;
  robotsTxtUrl: string;
  finalUrl: string;
  kind: RobotsPolicyKind;
  status: RobotsFetchStatus;
  why: string;
  fetchedAt: number;
  expiresAt: number;
  hops: RobotsFetchHop[];
  failures: number;
  unreachableSince?: number;
  retryAt?: number;
  servedFromStaleCopy: boolean;
  /** The answer the body belongs to, absent when the origin never answered. */
  good?: GoodCopyRecord;
  truncated: boolean;
  cacheControl?: string;
  timings: RobotsFetchTimings;
}

/** A record and the raw robots.txt body of its good copy (null when it has none). */
export interface StoredPolicy {
  record: PolicyRecord;
  body: Uint8Array | null;
}

/**
 * Checks a record read back from a backend, field by field: everything the store reads of it
 * (see PolicyEntry and entrySize) must be there with the right type, and every number finite.
 * A record written by another version, or corrupted, is ignored and the file fetched again,
 * never trusted.
 */
export function isPolicyRecord(value: unknown): value is PolicyRecord {
  if (!isObject(value)) return false;
  const record = value as Partial<Record<keyof PolicyRecord, unknown>>;
  return (
    record.version === 1 &&
    typeof record.origin === 'string' &&
    typeof record.robotsTxtUrl === 'string' &&
    typeof record.finalUrl === 'string' &&
    (record.kind === 'rules' || record.kind === 'allow-all' || record.kind === 'disallow-all') &&
    isStatus(record.status) &&
    typeof record.why === 'string' &&
    isTime(record.fetchedAt) &&
    isTime(record.expiresAt) &&
    Array.isArray(record.hops) &&
    record.hops.every(isHop) &&
    // The count shares a number with flags in PolicyEntry: a whole number well inside 2^53.
    Number.isSafeInteger(record.failures) &&
    (record.failures as number) >= 0 &&
    (record.failures as number) < 2 ** 32 &&
    optional(record.unreachableSince, isTime) &&
    optional(record.retryAt, isTime) &&
    typeof record.servedFromStaleCopy === 'boolean' &&
    optional(record.good, isGoodCopy) &&
    typeof record.truncated === 'boolean' &&
    optional(record.cacheControl, (text) => typeof text === 'string') &&
    isObject(record.timings) &&
    isTime(record.timings['totalMs']) &&
    isTime(record.timings['parseMs'])
  );
}

/**
 * Why a record read back from a backend for `origin` cannot be used, or undefined when it can:
 * the reason a backend gives the store (see RobotsBackendScope.ignored) for the warning.
 */
export function recordProblem(value: unknown, origin: string, body: Uint8Array | null): string | undefined {
  if (!isObject(value)) return 'its record is not a JSON object';
  if (value['version'] !== undefined && value['version'] !== 1) {
    return `it was written by another version (record version ${JSON.stringify(value['version'])})`;
  }
  if (!isPolicyRecord(value)) return 'its record lacks fields or has fields of the wrong type';
  // Keys are hashes or prefixes of the origin: the record says which origin it is really about.
  if (value.origin !== origin) return `it is the record of another origin (${JSON.stringify(value.origin)})`;
  if (needsBody(value) && body === null) return 'it has rules but no robots.txt body';
  return undefined;
}

/**
 * The fields the store reads of a record that passed isPolicyRecord, copied: what a backend hands
 * on, so that nothing else a stored value held (a field of another version, a value nested too
 * deep for `JSON.stringify`) is measured, kept in memory or carried into the records saved after
 * it.
 */
export function recordFields(record: PolicyRecord): PolicyRecord {
  const { good, timings } = record;
  return {
    version: 1,
    origin: record.origin,
    robotsTxtUrl: record.robotsTxtUrl,
    finalUrl: record.finalUrl,
    kind: record.kind,
    status: record.status,
    why: record.why,
    fetchedAt: record.fetchedAt,
    expiresAt: record.expiresAt,
    hops: record.hops.map((hop) => ({
      url: hop.url,
      status: hop.status,
      ...(hop.location === undefined ? {} : { location: hop.location }),
      durationMs: hop.durationMs,
    })),
    failures: record.failures,
    ...(record.unreachableSince === undefined ? {} : { unreachableSince: record.unreachableSince }),
    ...(record.retryAt === undefined ? {} : { retryAt: record.retryAt }),
    servedFromStaleCopy: record.servedFromStaleCopy,
    ...(good === undefined
      ? {}
      : {
          good: {
            kind: good.kind,
            status: good.status,
            fetchedAt: good.fetchedAt,
            why: good.why,
            truncated: good.truncated,
          },
        }),
    truncated: record.truncated,
    ...(record.cacheControl === undefined ? {} : { cacheControl: record.cacheControl }),
    timings: { totalMs: timings.totalMs, parseMs: timings.parseMs },
  };
}

/**
 * True when the record cannot be used without the robots.txt body: its rules, or the rules of
 * the good copy an outage falls back to, are parsed from it.
 */
export function needsBody(record: PolicyRecord): boolean {
  return record.kind === 'rules' || record.good?.kind === 'rules';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A time or a duration in milliseconds. */
function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isStatus(value: unknown): boolean {
  return isTime(value) || typeof value === 'string';
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function isHop(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value['url'] === 'string' &&
    isStatus(value['status']) &&
    optional(value['location'], (location) => typeof location === 'string') &&
    isTime(value['durationMs'])
  );
}

function isGoodCopy(value: unknown): boolean {
  return (
    isObject(value) &&
    (value['kind'] === 'rules' || value['kind'] === 'allow-all') &&
    isStatus(value['status']) &&
    isTime(value['fetchedAt']) &&
    typeof value['why'] === 'string' &&
    typeof value['truncated'] === 'boolean'
  );
}
