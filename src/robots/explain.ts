/**
 * Verdicts: the decision for one URL with everything that led to it, as plain data.
 */

import { type GroupSelection, productTokenOf, selectGroup, tokenOfUserAgentLine } from './agent.js';
import {
  AGENT_COUNT,
  ALLOW,
  DERIVED,
  END_LINE,
  FIRST_AGENT,
  groupField,
  type RobotsData,
  ruleFlags,
  ruleLength,
  ruleLine,
  rulePattern,
  START_LINE,
} from './compile.js';
import { allMatches, decide } from './decide.js';
import { pathOf } from './encoding.js';
import type { GroupChoice, MatchedRule, Verdict } from './types.js';

/** RFC 9309 2.2.2: the robots.txt URI itself is always allowed. */
const ROBOTS_TXT_PATH = '/robots.txt';

/** Options of {@link RobotsTxt.explain}. */
export interface ExplainOptions {
  /**
   * List every matching rule in `candidates`. Turning it off makes a verdict as cheap as
   * `isAllowed` (candidates then hold only the decisive rule).
   * @default true
   */
  candidates?: boolean;
}

export function isAllowed(data: RobotsData, url: string | URL, userAgent: string): boolean {
  const path = pathOf(url);
  if (path === ROBOTS_TXT_PATH) return true;
  const selection = selectGroup(data.tokens, productTokenOf(userAgent));
  if (selection.merged < 0) return true;
  const id = decide(data, selection.merged, path);
  return id < 0 || (ruleFlags(data, id) & ALLOW) !== 0;
}

export function explain(
  data: RobotsData,
  url: string | URL,
  userAgent: string,
  options: ExplainOptions = {},
): Verdict {
  const path = pathOf(url);
  const productToken = productTokenOf(userAgent);
  const selection = selectGroup(data.tokens, productToken);
  const group = groupChoice(data, selection);

  let allowed = true;
  let reason: Verdict['reason'];
  let rule: MatchedRule | null = null;
  let candidates: readonly MatchedRule[] = NO_RULES;
  if (path === ROBOTS_TXT_PATH) reason = 'robots-txt-always-allowed';
  else if (selection.merged < 0) reason = 'no-group';
  else if (options.candidates === false) {
    // The crawler's hot path: only the decisive rule.
    const id = decide(data, selection.merged, path);
    if (id < 0) reason = 'no-match';
    else {
      rule = matchedRule(data, id);
      candidates = [rule];
    }
  } else {
    const ids = allMatches(data, selection.merged, path);
    if (ids.length === 0) reason = 'no-match';
    else {
      candidates = ids.map((id) => matchedRule(data, id));
      rule = candidates[0];
    }
  }
  if (rule !== null) {
    reason = 'matched';
    allowed = rule.kind === 'allow';
  }
  return { allowed, reason: reason!, productToken, path, rule, group, candidates };
}

const NO_RULES: readonly MatchedRule[] = Object.freeze([]);

export function matchedRule(data: RobotsData, id: number): MatchedRule {
  const normalizedPattern = rulePattern(data, id);
  const flags = ruleFlags(data, id);
  const rule: MatchedRule = {
    kind: flags & ALLOW ? 'allow' : 'disallow',
    pattern: data.rawPatterns?.get(id) ?? normalizedPattern,
    normalizedPattern,
    line: ruleLine(data, id),
    length: ruleLength(data, id),
  };
  if (flags & DERIVED) rule.derived = 'index-html';
  return rule;
}

const NO_GROUP: GroupChoice = Object.freeze({
  how: 'none',
  token: null,
  userAgentLines: Object.freeze([]),
  spans: Object.freeze([]),
});

/**
 * The group a selection points at, described once per file and token and then shared by
 * every verdict (verdicts are read, never changed).
 */
function groupChoice(data: RobotsData, selection: GroupSelection): GroupChoice {
  if (selection.token === null) return NO_GROUP;
  // A token either has a group of its own in this file or falls back: one key per answer.
  const key = selection.fallbackFrom ?? selection.token;
  data.choices ??= new Map();
  let choice = data.choices.get(key) as GroupChoice | undefined;
  if (choice === undefined) {
    choice = { how: selection.how, token: selection.token, userAgentLines: [], spans: [] };
    if (selection.fallbackFrom !== undefined) choice.fallbackFrom = selection.fallbackFrom;
    if (selection.token !== null) describeGroup(data, selection.token, choice);
    Object.freeze(choice.spans);
    Object.freeze(choice.userAgentLines);
    data.choices.set(key, Object.freeze(choice));
  }
  return choice;
}

/** Fills in the user-agent lines naming `token` and the spans of the groups they head. */
function describeGroup(data: RobotsData, token: string, group: GroupChoice): void {
  const lines: number[] = [];
  const spans: { startLine: number; endLine: number }[] = [];
  for (let g = 0; g < data.groupCount; g++) {
    const firstAgent = groupField(data, g, FIRST_AGENT);
    let named = false;
    for (let a = firstAgent; a < firstAgent + groupField(data, g, AGENT_COUNT); a++) {
      if (tokenOfUserAgentLine(data.agentValues[a]) === token) {
        lines.push(data.ints[data.agentsAt + a]);
        named = true;
      }
    }
    if (named)
      spans.push({ startLine: groupField(data, g, START_LINE), endLine: groupField(data, g, END_LINE) });
  }
  group.userAgentLines = lines;
  group.spans = spans;
}
