import type { RobotsFetchStatus } from '../fetch/index.js';
import { withoutCredentials } from '../fetch/index.js';
import type { GroupChoiceKind, RuleKind } from '../robots/index.js';
import type { RobotsCheck } from '../store/index.js';

/**
 * Where the guard stopped a URL: `enqueue` (it never entered the queue), `dequeue` (taken out of
 * the queue, then skipped), `redirect` (a redirect hop of a page request), `navigation` (a
 * navigation the browser or the page started, or a final URL caught by the router middleware).
 */
export type RobotsDropStage = 'enqueue' | 'dequeue' | 'redirect' | 'navigation' | 'sitemap';

/**
 * Why: `disallowed` (a rule of robots.txt), `robots-unreachable` (robots.txt stayed unreachable
 * past `unreachable.giveUpAfterMs`, or was unreachable or still silent for a navigation that cannot
 * wait, such as an iframe; crawl it again later), `crawl-delay-over-max` (the origin asks
 * for a longer delay than `crawlDelay.maxSeconds` and `overMax` is `skip`).
 */
export type RobotsDropReason = 'disallowed' | 'robots-unreachable' | 'crawl-delay-over-max';

/** One record of the `robots-dropped` Dataset: a URL the guard did not let the crawler fetch. */
export interface RobotsDroppedRecord {
  /** The URL that was not fetched, without `user:pass@`. */
  url: string;
  /** The URL of the Crawlee request it belongs to (differs from `url` for redirect hops and navigations). */
  requestUrl: string;
  origin: string;
  productToken: string;
  stage: RobotsDropStage;
  reason: RobotsDropReason;
  /** The decisive rule, null when no rule decided (an unreachable robots.txt, a crawl delay). */
  rule: { kind: RuleKind; pattern: string; line: number } | null;
  /** The group the verdict used and how it was chosen (RFC 9309 2.2.1). */
  group: { token: string | null; how: GroupChoiceKind; fallbackFrom?: string; userAgentLines: number[] };
  robotsTxtUrl: string;
  /** HTTP status of robots.txt, or why there was none (`timeout`, `connection-error`, ...). */
  robotsStatus: RobotsFetchStatus;
  /** One sentence: why the origin's policy is what it is. */
  robotsWhy: string;
  /** The `Crawl-delay` asked for, for reason `crawl-delay-over-max`. */
  crawlDelaySeconds?: number;
  /** ISO 8601 time of the decision. */
  time: string;
}

/** Builds the record of one dropped URL from the check that dropped it. */
export function droppedRecord(
  check: RobotsCheck,
  details: {
    url: string;
    requestUrl: string;
    stage: RobotsDropStage;
    reason: RobotsDropReason;
    time: number;
    crawlDelaySeconds?: number;
  },
): RobotsDroppedRecord {
  const { group, rule } = check;
  return {
    url: withoutCredentials(details.url),
    requestUrl: withoutCredentials(details.requestUrl),
    origin: check.origin,
    productToken: check.productToken,
    stage: details.stage,
    reason: details.reason,
    rule: rule === null ? null : { kind: rule.kind, pattern: rule.pattern, line: rule.line },
    group: {
      token: group.token,
      how: group.how,
      ...(group.fallbackFrom === undefined ? {} : { fallbackFrom: group.fallbackFrom }),
      userAgentLines: [...group.userAgentLines],
    },
    robotsTxtUrl: check.robotsTxtUrl,
    robotsStatus: check.status,
    robotsWhy: check.why,
    ...(details.crawlDelaySeconds === undefined ? {} : { crawlDelaySeconds: details.crawlDelaySeconds }),
    time: new Date(details.time).toISOString(),
  };
}
