import type { RobotsFetchStatus, RobotsPolicyKind } from '../fetch/index.js';
import type { RuleKind } from '../robots/index.js';
import { detach } from '../robots/index.js';
import type { OriginPolicy, RobotsCheck } from '../store/index.js';
import type { RobotsDroppedRecord } from './record.js';

/** A rule and how many URLs it dropped. */
export interface RobotsRuleDrops {
  kind: RuleKind;
  pattern: string;
  line: number;
  drops: number;
}

/** What the guard did with the URLs of one origin. */
export interface RobotsOriginSummary {
  origin: string;
  /**
   * HTTP status of its robots.txt (or why there was none): the store's, or when the store has let
   * the origin's policy go (a full cache, an expired copy), the last one the guard decided by;
   * `unknown` only before any decision.
   */
  robotsStatus: RobotsFetchStatus | 'unknown';
  policyKind: RobotsPolicyKind | 'unknown';
  /** Age of the robots.txt copy in use at the end of the run (or the last one decided by), in milliseconds. */
  robotsAgeMs: number | null;
  /** Requests let through to the crawler (first attempts; retries are not counted again). */
  allowed: number;
  /** URLs dropped, each with a record (see RobotsRunSummary.unrecorded), given-up ones included. */
  dropped: number;
  /** Requests deferred at least once because robots.txt was unreachable. */
  deferred: number;
  /**
   * Requests given up because robots.txt stayed unreachable past the origin's wait (reason
   * `robots-unreachable`): those deferred, and those met once the wait was over, which are given
   * up on their first look without being deferred.
   */
  givenUp: number;
  /** Redirect hops and navigations of this origin that were stopped. */
  hopsStopped: number;
  /**
   * Redirect hops and navigations that crossed into this origin from another one and were let
   * through, of requests queued for another origin: once per crossing (a redirect within this
   * origin is none). An origin reached only that way is listed too, with the robots.txt that let
   * them in.
   */
  hopsFollowed: number;
  /** The `Crawl-delay` applied, in seconds, when there was one. */
  crawlDelaySeconds?: number;
  /** The rules that dropped the most URLs, most first (at most 5). */
  topRules: RobotsRuleDrops[];
}

/** The run summary of a guard: {@link RobotsGuard.summary}. */
export interface RobotsRunSummary {
  productToken: string;
  origins: RobotsOriginSummary[];
  totals: RobotsRunCounts;
  /**
   * Dropped URLs (counted in `dropped`) whose record could not be written, as the storage of the
   * Dataset failed (a full disk): each failure is logged as an error, with the URLs.
   */
  unrecorded: number;
}

/** The counts of an origin, which the totals add up. */
export type RobotsRunCounts = Pick<
  RobotsOriginSummary,
  'allowed' | 'dropped' | 'deferred' | 'givenUp' | 'hopsStopped' | 'hopsFollowed'
>;

/**
 * What the guard counts for an origin while the crawl runs: one object of fixed fields an origin,
 * kept for the guard's life (a broad crawl meets millions of origins).
 */
class OriginTally implements RobotsRunCounts {
  allowed = 0;
  dropped = 0;
  deferred = 0;
  givenUp = 0;
  hopsStopped = 0;
  hopsFollowed = 0;
  crawlDelaySeconds: number | undefined = undefined;
  /** The rules that dropped URLs, by line; made at the first such drop, which most origins never have. */
  rules: Map<string, RobotsRuleDrops> | null = null;
  /** The robots.txt of the last decision, for when the store no longer holds the origin's policy. */
  status: RobotsFetchStatus | 'unknown' = 'unknown';
  kind: RobotsPolicyKind | 'unknown' = 'unknown';
  /** When the copy decided by was fetched; NaN before any decision. */
  copyAt = Number.NaN;
}

function noCounts(): RobotsRunCounts {
  return { allowed: 0, dropped: 0, deferred: 0, givenUp: 0, hopsStopped: 0, hopsFollowed: 0 };
}

const TOP_RULES = 5;

/** Counters per origin, kept by the guard while it works. */
export class RunTally {
  readonly #origins = new Map<string, OriginTally>();

  #of(origin: string): OriginTally {
    let tally = this.#origins.get(origin);
    if (tally === undefined) {
      tally = new OriginTally();
      this.#origins.set(origin, tally);
    }
    return tally;
  }

  /** A request let through, by `check` at `now`. */
  allowed(check: RobotsCheck, now: number): void {
    this.#saw(check, now).allowed++;
  }

  /** A request let through and then stopped before it was sent: counted as it ends instead. */
  notAllowed(check: RobotsCheck, now: number): void {
    const tally = this.#saw(check, now);
    if (tally.allowed > 0) tally.allowed--;
  }

  /** A redirect hop or navigation into the origin of `check`, from another origin, let through by it at `now`. */
  hopFollowed(check: RobotsCheck, now: number): void {
    this.#saw(check, now).hopsFollowed++;
  }

  /** A request deferred, by `check` at `now`. */
  deferred(check: RobotsCheck, now: number): void {
    this.#saw(check, now).deferred++;
  }

  crawlDelay(origin: string, seconds: number): void {
    this.#of(origin).crawlDelaySeconds = seconds;
  }

  /** A URL dropped, by `check` at `now`. */
  dropped(record: RobotsDroppedRecord, check: RobotsCheck, now: number): void {
    const tally = this.#saw(check, now);
    tally.dropped++;
    if (record.reason === 'robots-unreachable') tally.givenUp++;
    if (record.stage === 'redirect' || record.stage === 'navigation') tally.hopsStopped++;
    if (record.rule !== null) {
      const key = `${record.rule.line}`;
      tally.rules ??= new Map();
      const known = tally.rules.get(key);
      if (known !== undefined) {
        known.drops++;
      } else {
        // A copy of the pattern of its own: a slice of the parsed file's text keeps the whole
        // text alive (up to 64 Ki characters) after the store has let the policy go.
        const [pattern] = detach([record.rule.pattern]);
        tally.rules.set(key, { kind: record.rule.kind, pattern, line: record.rule.line, drops: 1 });
      }
    }
  }

  /** The tally of the origin of `check`, which now says the robots.txt `check` was decided by. */
  #saw(check: RobotsCheck, now: number): OriginTally {
    const tally = this.#of(check.origin);
    tally.status = check.status;
    tally.kind = check.policyKind;
    tally.copyAt = now - check.ageMs;
    return tally;
  }

  /**
   * The summary, with each origin's robots.txt status taken from `policyOf` (memory only), else
   * from the last decision about the origin.
   */
  summary(
    productToken: string,
    policyOf: (origin: string) => OriginPolicy | undefined,
    now: number,
    unrecorded: number,
  ): RobotsRunSummary {
    const origins: RobotsOriginSummary[] = [];
    const totals = noCounts();
    for (const [origin, tally] of [...this.#origins].sort(([a], [b]) => a.localeCompare(b))) {
      const policy = policyOf(origin);
      origins.push({
        origin,
        robotsStatus: policy?.status ?? tally.status,
        policyKind: policy?.kind ?? tally.kind,
        robotsAgeMs:
          policy !== undefined
            ? now - (policy.goodCopyFetchedAt ?? policy.fetchedAt)
            : Number.isNaN(tally.copyAt)
              ? null
              : now - tally.copyAt,
        allowed: tally.allowed,
        dropped: tally.dropped,
        deferred: tally.deferred,
        givenUp: tally.givenUp,
        hopsStopped: tally.hopsStopped,
        hopsFollowed: tally.hopsFollowed,
        ...(tally.crawlDelaySeconds === undefined ? {} : { crawlDelaySeconds: tally.crawlDelaySeconds }),
        topRules: [...(tally.rules?.values() ?? [])]
          .sort((a, b) => b.drops - a.drops || a.line - b.line)
          .slice(0, TOP_RULES)
          .map((rule) => ({ ...rule })),
      });
      totals.allowed += tally.allowed;
      totals.dropped += tally.dropped;
      totals.deferred += tally.deferred;
      totals.givenUp += tally.givenUp;
      totals.hopsStopped += tally.hopsStopped;
      totals.hopsFollowed += tally.hopsFollowed;
    }
    return { productToken, origins, totals, unrecorded };
  }
}

/** Origins a logged summary lists at most: a broad crawl meets tens of thousands. */
export const LOGGED_ORIGINS = 20;

/** URLs of an origin the guard did not simply let through (given-up ones count in `dropped`). */
function notable(origin: RobotsOriginSummary): number {
  return origin.dropped + origin.deferred;
}

/**
 * The summary as one log block: a header line and one line per origin, for at most
 * LOGGED_ORIGINS origins; past that, those with the most URLs dropped or deferred, and a line
 * that counts the rest.
 */
export function formatSummary(summary: RobotsRunSummary): string {
  const { totals } = summary;
  const lines = [
    `robots.txt summary for ${summary.productToken}: ${totals.allowed} allowed, ${totals.dropped} dropped ` +
      `(${totals.hopsStopped} redirects/navigations), ${totals.deferred} deferred, ${totals.givenUp} given up, ` +
      (totals.hopsFollowed > 0
        ? `${totals.hopsFollowed} redirects/navigations followed across origins, `
        : '') +
      `${summary.origins.length} origins`,
  ];
  let listed = summary.origins;
  if (listed.length > LOGGED_ORIGINS) {
    // Stable: origins with as many keep their order, by name.
    listed = [...listed].sort((a, b) => notable(b) - notable(a)).slice(0, LOGGED_ORIGINS);
  }
  for (const origin of listed) {
    const age = origin.robotsAgeMs === null ? '' : `, age ${Math.round(origin.robotsAgeMs / 1000)} s`;
    const delay = origin.crawlDelaySeconds === undefined ? '' : `, crawl-delay ${origin.crawlDelaySeconds} s`;
    const rules = origin.topRules.map(
      (rule) => `${rule.kind}: ${rule.pattern} (line ${rule.line}) x${rule.drops}`,
    );
    lines.push(
      `  ${origin.origin} robots.txt ${origin.robotsStatus} (${origin.policyKind}${age}${delay}): ` +
        `${origin.allowed} allowed, ${origin.dropped} dropped, ${origin.deferred} deferred, ${origin.givenUp} given up` +
        (origin.hopsFollowed > 0 ? `, ${origin.hopsFollowed} followed in from other origins` : '') +
        (rules.length > 0 ? `; top rules: ${rules.join('; ')}` : ''),
    );
  }
  const rest = summary.origins.length - listed.length;
  if (rest > 0) {
    const restNotable =
      summary.origins.filter((o) => notable(o) > 0).length - listed.filter((o) => notable(o) > 0).length;
    lines.push(
      `  ... and ${rest} more origins, ${restNotable} of them with URLs dropped or deferred (guard.summary() lists every origin)`,
    );
  }
  if (summary.unrecorded > 0) {
    lines.push(
      `  ${summary.unrecorded} dropped URLs have no record: writing them to the Dataset failed (the errors logged name them)`,
    );
  }
  return lines.join('\n');
}
