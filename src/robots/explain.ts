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

  const verdict = (
    allowed: boolean,
    reason: Verdict['reason'],
    rule: MatchedRule | null,
    candidates: MatchedRule[],
  ) => ({ allowed, reason, productToken, path, rule, group, candidates }) satisfies Verdict;

  if (path === ROBOTS_TXT_PATH) return verdict(true, 'robots-txt-always-allowed', null, []);
  if (selection.merged < 0) return verdict(true, 'no-group', null, []);
  const ids =
    options.candidates === false
      ? [decide(data, selection.merged, path)].filter((id) => id >= 0)
      : allMatches(data, selection.merged, path);
  if (ids.length === 0) return verdict(true, 'no-match', null, []);
  const candidates = ids.map((id) => matchedRule(data, id));
  const rule = candidates[0];
  return verdict(rule.kind === 'allow', 'matched', rule, candidates);
}

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

/**
 * The group a selection points at, described once per file and token and then shared by
 * every verdict (verdicts are read, never changed).
 */
function groupChoice(data: RobotsData, selection: GroupSelection): GroupChoice {
  const key = `${selection.how} ${selection.token} ${selection.fallbackFrom ?? ''}`;
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
