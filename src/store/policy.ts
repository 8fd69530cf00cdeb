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

/** Checks the shape of a record read back from a backend; anything else is ignored, never trusted. */
export function isPolicyRecord(value: unknown): value is PolicyRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<PolicyRecord>;
  return (
    record.version === 1 &&
    typeof record.origin === 'string' &&
    typeof record.robotsTxtUrl === 'string' &&
    (record.kind === 'rules' || record.kind === 'allow-all' || record.kind === 'disallow-all') &&
    (typeof record.status === 'number' || typeof record.status === 'string') &&
    typeof record.fetchedAt === 'number' &&
    typeof record.expiresAt === 'number' &&
    typeof record.failures === 'number' &&
    Array.isArray(record.hops)
  );
}
