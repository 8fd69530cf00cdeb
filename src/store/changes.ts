import type { RobotsFetchStatus, RobotsPolicyKind } from '../fetch/index.js';
import type { RobotsTxt, RuleKind } from '../robots/index.js';
import type { GoodCopyRecord } from './policy.js';

/** A rule that was added to or removed from a robots.txt. */
export interface RobotsRuleChange {
  /**
   * Product tokens (lower case, `*` for the star group) that gained or lost the rule: a crawler
   * obeys the rules of every group naming its token, so moving a rule between groups of the same
   * tokens is no change.
   */
  userAgents: readonly string[];
  kind: RuleKind;
  pattern: string;
  /** Line number in the file the rule is in (the new file for added rules, the old one for removed). */
  line: number;
}

/**
 * Crawlers whose `crawl-delay` changed: an extension RFC 9309 does not define, by which crawlers
 * (this plugin among them) pace their requests to an origin.
 */
export interface RobotsCrawlDelayChange {
  /** Product tokens whose delay changed so (lower case, `*` for the star group). */
  userAgents: readonly string[];
  /** Seconds in the old file, or null when the group had none there. */
  previous: number | null;
  /** Seconds in the new file, or null when the group has none there. */
  current: number | null;
}

/** Emitted by {@link RobotsStore.onChange} when a refreshed policy differs from the one it replaces. */
export interface RobotsChange {
  origin: string;
  robotsTxtUrl: string;
  previous: { kind: RobotsPolicyKind; status: RobotsFetchStatus; fetchedAt: number };
  current: { kind: RobotsPolicyKind; status: RobotsFetchStatus; fetchedAt: number };
  /**
   * Rules in the new file and not in the old one. Empty unless both policies have a file: a
   * policy of kind `rules`, or an outage still holding the last good file.
   */
  addedRules: readonly RobotsRuleChange[];
  /** Rules in the old file and not in the new one. */
  removedRules: readonly RobotsRuleChange[];
  /** Product tokens whose crawl-delay is not the same in both files (compared as rules are). */
  changedCrawlDelays: readonly RobotsCrawlDelayChange[];
  addedSitemaps: readonly string[];
  removedSitemaps: readonly string[];
}

/**
 * Listener of {@link RobotsStore.onChange}. It may be async: a rejection is logged like a
 * thrown error.
 */
export type RobotsChangeListener = (change: RobotsChange) => void;

/** What change detection compares of a policy: its answer, and the file behind it. */
export interface ComparedPolicy {
  origin: string;
  robotsTxtUrl: string;
  kind: RobotsPolicyKind;
  status: RobotsFetchStatus;
  fetchedAt: number;
  /**
   * The status of the answer the verdicts follow: `status`, but for a 304 that kept the copy
   * held, the copy's own. The same file confirmed is no change, before the 304 or after it.
   */
  answerStatus: RobotsFetchStatus;
  /**
   * The parsed robots.txt: the one that decides, or during an outage the last good copy, which
   * still says what the site asks for. Null when the last answer had no file.
   */
  file: RobotsTxt | null;
}

/**
 * Compares two policies of an origin. Returns null when nothing a crawler acts on changed: the
 * same kind, the same status (of the answer followed, see answerStatus) and the same rules,
 * crawl-delays and sitemaps.
 */
export function diffPolicies(previous: ComparedPolicy, current: ComparedPolicy): RobotsChange | null {
  // Rules are compared between two files only: a switch to or from allow-all or disallow-all is
  // the change of kind itself, not a list of every rule of the file. An outage keeps its last
  // good file, so a file that changed while the site was down is still compared to the old one.
  const oldFile = previous.file;
  const newFile = current.file;
  const bothFiles = oldFile !== null && newFile !== null;
  const oldRules = bothFiles ? rulesByToken(oldFile) : new Map();
  const newRules = bothFiles ? rulesByToken(newFile) : new Map();
  const addedRules = ruleChanges(newRules, oldRules);
  const removedRules = ruleChanges(oldRules, newRules);
  const changedCrawlDelays = bothFiles ? crawlDelayChanges(oldFile, newFile) : [];
  const oldSitemaps = new Set(oldFile?.sitemaps ?? []);
  const newSitemaps = new Set(newFile?.sitemaps ?? []);
  const addedSitemaps = [...newSitemaps].filter((url) => !oldSitemaps.has(url));
  const removedSitemaps = [...oldSitemaps].filter((url) => !newSitemaps.has(url));
  const same =
    previous.kind === current.kind &&
    previous.answerStatus === current.answerStatus &&
    addedRules.length +
      removedRules.length +
      changedCrawlDelays.length +
      addedSitemaps.length +
      removedSitemaps.length ===
      0;
  if (same) return null;
  return {
    origin: current.origin,
    robotsTxtUrl: current.robotsTxtUrl,
    previous: { kind: previous.kind, status: previous.status, fetchedAt: previous.fetchedAt },
    current: { kind: current.kind, status: current.status, fetchedAt: current.fetchedAt },
    addedRules,
    removedRules,
    changedCrawlDelays,
    addedSitemaps,
    removedSitemaps,
  };
}

/**
 * The status of the answer a policy's verdicts follow (see ComparedPolicy.answerStatus): out of
 * an outage, that of its good copy, which is the answer itself unless a 304 kept an older one.
 */
export function answerStatus(
  status: RobotsFetchStatus,
  failures: number,
  good: GoodCopyRecord | undefined,
): RobotsFetchStatus {
  return failures === 0 && good !== undefined ? good.status : status;
}

/** A rule of a file as the diff keeps it: the first of its kind and pattern among a token's groups. */
interface TokenRule {
  kind: RuleKind;
  pattern: string;
  line: number;
}

/**
 * The pattern as it decides: a trailing `*` (or `*$`) matches what any path has after the rest,
 * so `/x*` is `/x`.
 */
function effectivePattern(normalized: string): string {
  let end = normalized.length;
  if (end > 1 && normalized.endsWith('*$')) end--;
  while (end > 0 && normalized.charCodeAt(end - 1) === 42 /* * */) end--;
  return normalized.slice(0, end);
}

/**
 * The rules of a file by product token (RFC 9309 2.2.1: a crawler obeys every group naming its
 * token, merged), each keyed by kind and pattern as it decides. A rule that matches nothing (an
 * empty `disallow`) and Google's derived `index.html` rules are left out.
 */
function rulesByToken(robots: RobotsTxt): Map<string, Map<string, TokenRule>> {
  const byToken = new Map<string, Map<string, TokenRule>>();
  for (const group of robots.groups) {
    for (const token of new Set(group.userAgents.map((agent) => agent.token))) {
      if (token === '') continue;
      let rules = byToken.get(token);
      if (rules === undefined) {
        rules = new Map();
        byToken.set(token, rules);
      }
      for (const rule of group.rules) {
        const pattern = effectivePattern(rule.normalizedPattern);
        if (rule.derived !== undefined || pattern === '') continue;
        const key = `${rule.kind}\n${pattern}`;
        if (!rules.has(key)) rules.set(key, { kind: rule.kind, pattern: rule.pattern, line: rule.line });
      }
    }
  }
  return byToken;
}

/**
 * The rules one file has for a token and the other has not (`from` minus `to`), as changes:
 * the tokens of one rule on one line are one change, listed in token order.
 */
function ruleChanges(
  from: Map<string, Map<string, TokenRule>>,
  to: Map<string, Map<string, TokenRule>>,
): RobotsRuleChange[] {
  const changes = new Map<string, { userAgents: string[]; kind: RuleKind; pattern: string; line: number }>();
  for (const [token, rules] of from) {
    const other = to.get(token);
    for (const [key, rule] of rules) {
      if (other?.has(key)) continue;
      const id = `${key}\n${rule.line}`;
      const change = changes.get(id);
      if (change === undefined) changes.set(id, { userAgents: [token], ...rule });
      else change.userAgents.push(token);
    }
  }
  return [...changes.values()].map((change) => ({ ...change, userAgents: change.userAgents.sort() }));
}

/**
 * The tokens whose crawl-delay differs between two files (the largest of the groups naming the
 * token, as the parser reads it), those with the same old and new delay together.
 */
function crawlDelayChanges(previous: RobotsTxt, current: RobotsTxt): RobotsCrawlDelayChange[] {
  const before = crawlDelaysOf(previous);
  const after = crawlDelaysOf(current);
  const changes = new Map<string, RobotsCrawlDelayChange & { userAgents: string[] }>();
  for (const token of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(token) ?? null;
    const now = after.get(token) ?? null;
    if (old === now) continue;
    const key = `${old} ${now}`;
    const change = changes.get(key);
    if (change === undefined) changes.set(key, { userAgents: [token], previous: old, current: now });
    else change.userAgents.push(token);
  }
  return [...changes.values()].map((change) => ({ ...change, userAgents: change.userAgents.sort() }));
}

/** The crawl-delay of each product token that has one: the largest of its groups (the most polite). */
function crawlDelaysOf(robots: RobotsTxt): Map<string, number> {
  const delays = new Map<string, number>();
  for (const group of robots.groups) {
    if (group.crawlDelay === undefined) continue;
    for (const agent of group.userAgents) {
      if (agent.token === '') continue;
      delays.set(agent.token, Math.max(group.crawlDelay, delays.get(agent.token) ?? 0));
    }
  }
  return delays;
}
