import type { RobotsFetchStatus, RobotsPolicyKind } from '../fetch/index.js';
import type { RobotsTxt, RuleKind } from '../robots/index.js';
import type { OriginPolicy } from './policy.js';

/** A rule that was added to or removed from a robots.txt. */
export interface RobotsRuleChange {
  /** Product tokens of the group the rule belongs to (lower case, `*` for the star group). */
  userAgents: readonly string[];
  kind: RuleKind;
  pattern: string;
  /** Line number in the file the rule is in (the new file for added rules, the old one for removed). */
  line: number;
}

/** Emitted by {@link RobotsStore.onChange} when a refreshed policy differs from the one it replaces. */
export interface RobotsChange {
  origin: string;
  robotsTxtUrl: string;
  previous: { kind: RobotsPolicyKind; status: RobotsFetchStatus; fetchedAt: number };
  current: { kind: RobotsPolicyKind; status: RobotsFetchStatus; fetchedAt: number };
  /** Rules in the new file and not in the old one (both policies of kind `rules`, else empty). */
  addedRules: readonly RobotsRuleChange[];
  /** Rules in the old file and not in the new one. */
  removedRules: readonly RobotsRuleChange[];
  addedSitemaps: readonly string[];
  removedSitemaps: readonly string[];
}

/** Listener of {@link RobotsStore.onChange}. */
export type RobotsChangeListener = (change: RobotsChange) => void;

/**
 * Compares two policies of an origin. Returns null when nothing a crawler acts on changed: the
 * same kind, the same status and the same rules and sitemaps.
 */
export function diffPolicies(previous: OriginPolicy, current: OriginPolicy): RobotsChange | null {
  // Rules are compared between two files only: a switch to or from allow-all or disallow-all is
  // the change of kind itself, not a list of every rule of the file.
  const bothFiles = previous.robots !== null && current.robots !== null;
  const oldRules = bothFiles ? rulesOf(previous.robots) : new Map<string, RobotsRuleChange>();
  const newRules = bothFiles ? rulesOf(current.robots) : new Map<string, RobotsRuleChange>();
  const addedRules = [...newRules].filter(([key]) => !oldRules.has(key)).map(([, rule]) => rule);
  const removedRules = [...oldRules].filter(([key]) => !newRules.has(key)).map(([, rule]) => rule);
  const oldSitemaps = new Set(previous.robots?.sitemaps ?? []);
  const newSitemaps = new Set(current.robots?.sitemaps ?? []);
  const addedSitemaps = [...newSitemaps].filter((url) => !oldSitemaps.has(url));
  const removedSitemaps = [...oldSitemaps].filter((url) => !newSitemaps.has(url));
  const same =
    previous.kind === current.kind &&
    previous.status === current.status &&
    addedRules.length + removedRules.length + addedSitemaps.length + removedSitemaps.length === 0;
  if (same) return null;
  return {
    origin: current.origin,
    robotsTxtUrl: current.robotsTxtUrl,
    previous: { kind: previous.kind, status: previous.status, fetchedAt: previous.fetchedAt },
    current: { kind: current.kind, status: current.status, fetchedAt: current.fetchedAt },
    addedRules,
    removedRules,
    addedSitemaps,
    removedSitemaps,
  };
}

/**
 * The rules of a file keyed by what makes them mean something: the group's tokens, the kind and
 * the normalised pattern. Moving a rule to another line is not a change.
 */
function rulesOf(robots: RobotsTxt | null): Map<string, RobotsRuleChange> {
  const rules = new Map<string, RobotsRuleChange>();
  if (robots === null) return rules;
  for (const group of robots.groups) {
    const userAgents = [...new Set(group.userAgents.map((agent) => agent.token))].sort();
    for (const rule of group.rules) {
      if (rule.derived !== undefined) continue;
      const key = `${userAgents.join(' ')}\n${rule.kind}\n${rule.normalizedPattern}`;
      if (!rules.has(key))
        rules.set(key, { userAgents, kind: rule.kind, pattern: rule.pattern, line: rule.line });
    }
  }
  return rules;
}
