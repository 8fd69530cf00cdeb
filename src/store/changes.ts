import type { RobotsFetchStatus, RobotsPolicyKind } from '../fetch/index.js';
import type { RobotsGroup, RobotsTxt, RuleKind } from '../robots/index.js';

/** A rule that was added to or removed from a robots.txt. */
export interface RobotsRuleChange {
  /** Product tokens of the group the rule belongs to (lower case, `*` for the star group). */
  userAgents: readonly string[];
  kind: RuleKind;
  pattern: string;
  /** Line number in the file the rule is in (the new file for added rules, the old one for removed). */
  line: number;
}

/**
 * A group whose `crawl-delay` changed: an extension RFC 9309 does not define, by which crawlers
 * (this plugin among them) pace their requests to an origin.
 */
export interface RobotsCrawlDelayChange {
  /** Product tokens of the group (lower case, `*` for the star group). */
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
  /** Groups whose crawl-delay is not the same in both files (compared as rules are). */
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
   * The parsed robots.txt: the one that decides, or during an outage the last good copy, which
   * still says what the site asks for. Null when the last answer had no file.
   */
  file: RobotsTxt | null;
}

/**
 * Compares two policies of an origin. Returns null when nothing a crawler acts on changed: the
 * same kind, the same status and the same rules, crawl-delays and sitemaps.
 */
export function diffPolicies(previous: ComparedPolicy, current: ComparedPolicy): RobotsChange | null {
  // Rules are compared between two files only: a switch to or from allow-all or disallow-all is
  // the change of kind itself, not a list of every rule of the file. An outage keeps its last
  // good file, so a file that changed while the site was down is still compared to the old one.
  const oldFile = previous.file;
  const newFile = current.file;
  const bothFiles = oldFile !== null && newFile !== null;
  const oldRules = bothFiles ? rulesOf(oldFile) : new Map<string, RobotsRuleChange>();
  const newRules = bothFiles ? rulesOf(newFile) : new Map<string, RobotsRuleChange>();
  const addedRules = [...newRules].filter(([key]) => !oldRules.has(key)).map(([, rule]) => rule);
  const removedRules = [...oldRules].filter(([key]) => !newRules.has(key)).map(([, rule]) => rule);
  const changedCrawlDelays = bothFiles ? crawlDelayChanges(oldFile, newFile) : [];
  const oldSitemaps = new Set(oldFile?.sitemaps ?? []);
  const newSitemaps = new Set(newFile?.sitemaps ?? []);
  const addedSitemaps = [...newSitemaps].filter((url) => !oldSitemaps.has(url));
  const removedSitemaps = [...oldSitemaps].filter((url) => !newSitemaps.has(url));
  const same =
    previous.kind === current.kind &&
    previous.status === current.status &&
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

/** The product tokens of a group, as change events name it: unique, sorted. */
function tokensOf(group: RobotsGroup): string[] {
  return [...new Set(group.userAgents.map((agent) => agent.token))].sort();
}

/**
 * The rules of a file keyed by what makes them mean something: the group's tokens, the kind and
 * the normalised pattern. Moving a rule to another line is not a change.
 */
function rulesOf(robots: RobotsTxt): Map<string, RobotsRuleChange> {
  const rules = new Map<string, RobotsRuleChange>();
  for (const group of robots.groups) {
    const userAgents = tokensOf(group);
    for (const rule of group.rules) {
      if (rule.derived !== undefined) continue;
      const key = `${userAgents.join(' ')}\n${rule.kind}\n${rule.normalizedPattern}`;
      if (!rules.has(key))
        rules.set(key, { userAgents, kind: rule.kind, pattern: rule.pattern, line: rule.line });
    }
  }
  return rules;
}

/** The groups whose crawl-delay differs between two files, keyed by their tokens as rules are. */
function crawlDelayChanges(previous: RobotsTxt, current: RobotsTxt): RobotsCrawlDelayChange[] {
  const before = crawlDelaysOf(previous);
  const after = crawlDelaysOf(current);
  const changes: RobotsCrawlDelayChange[] = [];
  for (const [key, { userAgents }] of new Map([...before, ...after])) {
    const old = before.get(key)?.seconds ?? null;
    const now = after.get(key)?.seconds ?? null;
    if (old !== now) changes.push({ userAgents, previous: old, current: now });
  }
  return changes;
}

/**
 * The crawl-delay of each group that has one, by the group's tokens. Groups naming the same
 * tokens keep the largest, as the parser does within a group: the most polite wins.
 */
function crawlDelaysOf(robots: RobotsTxt): Map<string, { userAgents: string[]; seconds: number }> {
  const delays = new Map<string, { userAgents: string[]; seconds: number }>();
  for (const group of robots.groups) {
    if (group.crawlDelay === undefined) continue;
    const userAgents = tokensOf(group);
    const key = userAgents.join(' ');
    const seconds = Math.max(group.crawlDelay, delays.get(key)?.seconds ?? 0);
    delays.set(key, { userAgents, seconds });
  }
  return delays;
}
