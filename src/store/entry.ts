import type { RobotsFetchHop, RobotsFetchStatus, RobotsPolicyKind } from '../fetch/index.js';
import type { RobotsTxt } from '../robots/index.js';
import { CLOCK_SKEW_TOLERANCE_MS } from './lifetime.js';
import type { HeldPolicy } from './memory.js';
import type { GoodCopyRecord, OriginPolicy, PolicyRecord, StoredPolicy } from './policy.js';

/**
 * Times are kept as offsets from this instant, and durations in whole microseconds: for a
 * process on the system clock both are small integers, which V8 keeps inside the object
 * instead of as a separate 16-byte number each.
 */
const EPOCH = Date.now();

/** The policy kinds, by their index in #state. */
const KINDS: readonly RobotsPolicyKind[] = ['rules', 'allow-all', 'disallow-all'];
const KIND_MASK = 3;
const TRUNCATED = 4;
const STALE = 8;
/** The times are kept as they are, not as offsets from EPOCH (a clock with fractions). */
const RAW_TIMES = 16;
/** #state holds the failure count from this bit on. */
const FAILURES_SHIFT = 5;

/** What most entries never need: kept in a second object only when one of them is set. */
interface Rarely {
  /** Set when the chain ended elsewhere than at robotsTxtUrl. */
  finalUrl?: string;
  /** Set unless the fetch was one request to robotsTxtUrl. */
  hops?: readonly RobotsFetchHop[];
  unreachableSince?: number;
  retryAt?: number;
  cacheControl?: string;
  /** Set during an outage: the last answer that was not one. */
  good?: GoodCopyRecord;
  /** Set during an outage: that answer parsed, when it had rules. */
  goodRobots?: RobotsTxt | null;
  /** The raw body of the good copy, kept when a backend needs it for its next save. */
  body?: Uint8Array | null;
}

/**
 * What the store keeps in memory for one origin. A crawl keeps policies for hundreds of
 * thousands of origins, and most of them are one plain answer: one object of small integers
 * and shared strings next to the parsed file. The `OriginPolicy` a caller sees and the
 * `PolicyRecord` a backend stores are rebuilt from it on demand, never on a check.
 */
export class PolicyEntry {
  readonly origin: string;
  readonly robotsTxtUrl: string;
  /** The file that decides, when the kind is `rules`. */
  readonly robots: RobotsTxt | null;
  readonly status: RobotsFetchStatus;
  readonly why: string;
  readonly bodyBytes: number;
  readonly #fetchedAt: number;
  readonly #expiresAt: number;
  /** The kind's index in KINDS, TRUNCATED, STALE, and the failure count from FAILURES_SHIFT. */
  readonly #state: number;
  readonly #totalUs: number;
  readonly #parseUs: number;
  /** The duration of the single request when the fetch was one request to robotsTxtUrl. */
  readonly #hopUs: number;
  readonly #rarely: Rarely | null;

  /**
   * @param origin the origin the entry is kept for (a record loaded from a backend names its
   *   own, which is not trusted to match).
   * @param robots the parsed file for a `rules` policy.
   * @param goodRobots the parsed good copy during an outage, if it was parsed.
   * @param keepBody keep the raw body (a backend saves it with the next state).
   */
  constructor(
    origin: string,
    stored: StoredPolicy,
    robots: RobotsTxt | null,
    goodRobots: RobotsTxt | null,
    keepBody: boolean,
  ) {
    const { record } = stored;
    this.origin = ownString(origin);
    this.robotsTxtUrl = ownString(record.robotsTxtUrl);
    this.robots = robots;
    this.status = record.status;
    this.why = record.why;
    this.bodyBytes = stored.body?.byteLength ?? 0;
    // An offset is exact for whole milliseconds; a clock with fractions keeps its own values.
    const raw = !Number.isInteger(record.fetchedAt) || !Number.isInteger(record.expiresAt);
    this.#fetchedAt = raw ? record.fetchedAt : small(record.fetchedAt - EPOCH);
    this.#expiresAt = raw ? record.expiresAt : small(record.expiresAt - EPOCH);
    this.#state =
      KINDS.indexOf(record.kind) +
      (record.truncated ? TRUNCATED : 0) +
      (record.servedFromStaleCopy ? STALE : 0) +
      (raw ? RAW_TIMES : 0) +
      record.failures * 2 ** FAILURES_SHIFT;
    this.#totalUs = Math.round(record.timings.totalMs * 1000);
    this.#parseUs = Math.round(record.timings.parseMs * 1000);

    const rarely: Rarely = {};
    const hop = record.hops.length === 1 ? record.hops[0] : undefined;
    const plainHop =
      hop !== undefined &&
      hop.url === record.robotsTxtUrl &&
      hop.status === record.status &&
      hop.location === undefined;
    this.#hopUs = plainHop ? Math.round(hop.durationMs * 1000) : -1;
    if (!plainHop) rarely.hops = record.hops;
    if (record.finalUrl !== record.robotsTxtUrl) rarely.finalUrl = record.finalUrl;
    if (record.unreachableSince !== undefined) rarely.unreachableSince = record.unreachableSince;
    if (record.retryAt !== undefined) rarely.retryAt = record.retryAt;
    if (record.cacheControl !== undefined) rarely.cacheControl = record.cacheControl;
    if (record.good !== undefined && !sameAnswer(record, record.good)) {
      rarely.good = record.good;
      rarely.goodRobots = goodRobots;
    }
    if (keepBody && stored.body !== null) rarely.body = stored.body;
    this.#rarely = Object.keys(rarely).length === 0 ? null : rarely;
  }

  get kind(): RobotsPolicyKind {
    return KINDS[this.#state & KIND_MASK];
  }

  /** Failed attempts in a row. */
  get failures(): number {
    return Math.floor(this.#state / 2 ** FAILURES_SHIFT);
  }

  get #truncated(): boolean {
    return (this.#state & TRUNCATED) !== 0;
  }

  get fetchedAt(): number {
    return this.#state & RAW_TIMES ? this.#fetchedAt : this.#fetchedAt + EPOCH;
  }

  get expiresAt(): number {
    return this.#state & RAW_TIMES ? this.#expiresAt : this.#expiresAt + EPOCH;
  }

  get servedFromStaleCopy(): boolean {
    return (this.#state & STALE) !== 0;
  }

  /** When the copy the verdicts come from was fetched: the good copy's time while it is served stale. */
  get copyFetchedAt(): number {
    const good = this.#rarely?.good;
    return this.servedFromStaleCopy && good !== undefined ? good.fetchedAt : this.fetchedAt;
  }

  /**
   * True while the policy holds at `now` (the store's clock). A clock that stepped back past the
   * fetch by more than clocks drift (CLOCK_SKEW_TOLERANCE_MS) leaves the copy's age unknown: it
   * would hold for the step and its lifetime (days, for a step of days), so it is fetched again.
   */
  isFreshAt(now: number): boolean {
    const offset = this.#state & RAW_TIMES ? 0 : EPOCH;
    return this.#expiresAt + offset > now && this.#fetchedAt + offset - now <= CLOCK_SKEW_TOLERANCE_MS;
  }

  /** The last answer that was not an outage, if any. */
  get good(): GoodCopyRecord | undefined {
    const rarely = this.#rarely;
    if (rarely?.good !== undefined) return rarely.good;
    if (this.kind === 'disallow-all') return undefined;
    return {
      kind: this.kind,
      status: this.status,
      fetchedAt: this.fetchedAt,
      why: this.why,
      truncated: this.#truncated,
    };
  }

  /** The good copy parsed: the current file, or during an outage the last good one if it was parsed. */
  get goodRobots(): RobotsTxt | null {
    const rarely = this.#rarely;
    return rarely?.good !== undefined ? (rarely.goodRobots ?? null) : this.robots;
  }

  /** What the entry holds, for the memory count (see memory.ts). */
  held(): HeldPolicy {
    const rarely = this.#rarely;
    return {
      origin: this.origin,
      robotsTxtUrl: this.robotsTxtUrl,
      why: this.why,
      finalUrl: rarely?.finalUrl,
      cacheControl: rarely?.cacheControl,
      hops: rarely?.hops ?? [],
      robots: this.robots,
      goodRobots: this.goodRobots,
      body: this.body,
    };
  }

  /** The raw body of the good copy when it is kept (with a backend), else null. */
  get body(): Uint8Array | null {
    return this.#rarely?.body ?? null;
  }

  get #hops(): readonly RobotsFetchHop[] {
    if (this.#hopUs < 0) return this.#rarely?.hops ?? [];
    // A plain hop's status is the policy's (see the constructor).
    const status = this.status as RobotsFetchHop['status'];
    return [{ url: this.robotsTxtUrl, status, durationMs: this.#hopUs / 1000 }];
  }

  /** What the policy and the stored record both say. */
  #fields() {
    const rarely = this.#rarely;
    return {
      origin: this.origin,
      robotsTxtUrl: this.robotsTxtUrl,
      finalUrl: rarely?.finalUrl ?? this.robotsTxtUrl,
      kind: this.kind,
      status: this.status,
      why: this.why,
      fetchedAt: this.fetchedAt,
      expiresAt: this.expiresAt,
      failures: this.failures,
      servedFromStaleCopy: this.servedFromStaleCopy,
      truncated: this.#truncated,
      timings: { totalMs: this.#totalUs / 1000, parseMs: this.#parseUs / 1000 },
      ...(rarely?.unreachableSince === undefined ? {} : { unreachableSince: rarely.unreachableSince }),
      ...(rarely?.retryAt === undefined ? {} : { retryAt: rarely.retryAt }),
      ...(rarely?.cacheControl === undefined ? {} : { cacheControl: rarely.cacheControl }),
    };
  }

  /** The policy as callers see it. */
  policy(): OriginPolicy {
    const good = this.#rarely?.good;
    return {
      ...this.#fields(),
      robots: this.robots,
      hops: this.#hops,
      bodyBytes: this.bodyBytes,
      ...(this.servedFromStaleCopy && good !== undefined ? { goodCopyFetchedAt: good.fetchedAt } : {}),
    };
  }

  /** The storable form: the base of the next state, and what a backend saves. */
  stored(): StoredPolicy {
    const good = this.good;
    const record: PolicyRecord = {
      version: 1,
      ...this.#fields(),
      hops: [...this.#hops],
      ...(good === undefined ? {} : { good }),
    };
    return { record, body: this.body };
  }
}

/** `value` as a small integer when it is one: arithmetic on large numbers gives a boxed result even when it fits. */
function small(value: number): number {
  const int = value | 0;
  return int === value ? int : value;
}

/**
 * A flat copy of `text`. An origin is cut from the first URL checked and a robots.txt URL is
 * a concatenation: kept as they are, each entry would also keep that URL, or a second string.
 */
function ownString(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** True when the good copy of `record` is the answer `record` itself describes. */
function sameAnswer(record: PolicyRecord, good: GoodCopyRecord): boolean {
  return (
    record.kind !== 'disallow-all' &&
    !record.servedFromStaleCopy &&
    good.kind === record.kind &&
    good.status === record.status &&
    good.fetchedAt === record.fetchedAt &&
    good.why === record.why &&
    good.truncated === record.truncated
  );
}
