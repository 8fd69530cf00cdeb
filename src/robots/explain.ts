/**
 * Verdicts: the decision for one URL with everything that led to it, as plain data.
 */

import { FALLBACK_TOKENS, productTokenOf } from './agent.js';
import {
  AGENT_COUNT,
  AGENT_LINE,
  AGENT_MERGED,
  ALLOW,
  agentField,
  count,
  DERIVED,
  END_LINE,
  FIRST_AGENT,
  groupField,
  lookupToken,
  MEMBERS_FROM,
  MEMBERS_TO,
  mergedField,
  RAW_COUNT,
  type RobotsData,
  rawPattern,
  ruleFlags,
  ruleLength,
  ruleLine,
  rulePattern,
  START_LINE,
} from './compile.js';
import { allMatches, decide } from './decide.js';
import { filteredPathAfterOrigin, filteredPathOf } from './encoding.js';
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

/** The character filter of the path being checked (see chars.ts), written by pathOf. */
const pathMask = new Int32Array(2);

export function isAllowed(data: RobotsData, url: string | URL, userAgent: string): boolean {
  const path = filteredPathOf(url, pathMask);
  if (path === ROBOTS_TXT_PATH) return true;
  const merged = groupOf(data, productTokenOf(userAgent));
  if (merged < 0) return true;
  const id = decide(data, merged, path, pathMask);
  return id < 0 || (ruleFlags(data, id) & ALLOW) !== 0;
}

/**
 * The verdict for `url`. With `authorityEnd`, `url` is a string that starts with a normalised
 * origin of that length (see filteredPathAfterOrigin).
 */
export function explain(
  data: RobotsData,
  url: string | URL,
  userAgent: string,
  options: ExplainOptions | null = {},
  authorityEnd = -1,
): Verdict {
  const path =
    authorityEnd < 0
      ? filteredPathOf(url, pathMask)
      : filteredPathAfterOrigin(url as string, authorityEnd, pathMask);
  const productToken = productTokenOf(userAgent);
  const selection = selectGroup(data, productToken);
  const group = choiceOf(data, selection);

  let allowed = true;
  let reason: Verdict['reason'];
  let rule: MatchedRule | null = null;
  let candidates: readonly MatchedRule[] = NO_RULES;
  if (path === ROBOTS_TXT_PATH) reason = 'robots-txt-always-allowed';
  else if (selection.merged < 0) reason = 'no-group';
  else if (options?.candidates === false) {
    // The crawler's hot path: only the decisive rule.
    const id = decide(data, selection.merged, path, pathMask);
    if (id < 0) reason = 'no-match';
    else {
      rule = matchedRule(data, id);
      candidates = [rule];
    }
  } else {
    const ids = allMatches(data, selection.merged, path, pathMask);
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
    pattern: count(data, RAW_COUNT) === 0 ? normalizedPattern : rawPattern(data, id),
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

/** The merged group that applies to a crawler, or -1 (see selectGroup). */
export function groupOf(data: RobotsData, productToken: string): number {
  return selectGroup(data, productToken).merged;
}

/**
 * The group chosen for a crawler: a merged group (-1 for none), how it was chosen, and its
 * description, built the first time a verdict needs it (isAllowed never does: for a token
 * that names 13,000 groups it would list them all).
 */
interface GroupSelection {
  merged: number;
  how: GroupChoice['how'];
  token: string | null;
  /** Set for a fallback; present in every selection, so that all have one shape. */
  fallbackFrom: string | undefined;
  choice: GroupChoice | undefined;
}

/** A group selection kept for a file, known by its serial number: the file is not kept alive. */
interface KeptSelection {
  serial: number;
  token: string;
  selection: GroupSelection;
}

/**
 * The last selections, one slot per serial number modulo their count. A crawler asks about the
 * same files many times, and a crawl interleaves the URLs of many origins: a selection is
 * found again without building its description anew, and no file is kept alive for it.
 */
const kept: (KeptSelection | undefined)[] = new Array(64);

/**
 * RFC 9309 2.2.1: the crawler's own group if there is one, else (our documented
 * extension) the group of the crawler it follows, else `*`, else none.
 */
function selectGroup(data: RobotsData, productToken: string): GroupSelection {
  // The file asked about last, at the cost of one comparison; then the kept selections.
  if (data === lastData && productToken === lastToken) return lastSelection;
  const slot = data.serial % kept.length;
  const found = kept[slot];
  if (found !== undefined && found.serial === data.serial && found.token === productToken) {
    remember(data, productToken, found.selection);
    return found.selection;
  }
  let selection: GroupSelection;
  const own = lookupToken(data, productToken);
  // Own entries only: `constructor` is a product token, not a key of what every object inherits.
  const fallback = Object.hasOwn(FALLBACK_TOKENS, productToken) ? FALLBACK_TOKENS[productToken] : undefined;
  const followed = own < 0 && fallback !== undefined ? lookupToken(data, fallback) : -1;
  const star = own < 0 && followed < 0 ? lookupToken(data, '*') : -1;
  if (own >= 0) selection = selected(own, 'token', productToken);
  else if (followed >= 0) selection = selected(followed, 'fallback', fallback!, productToken);
  else if (star >= 0) selection = selected(star, 'star', '*');
  else selection = NO_SELECTION;
  kept[slot] = { serial: data.serial, token: productToken, selection };
  remember(data, productToken, selection);
  return selection;
}

/** A selection whose description is not built yet. */
function selected(
  merged: number,
  how: GroupChoice['how'],
  token: string,
  fallbackFrom?: string,
): GroupSelection {
  return { merged, how, token, fallbackFrom, choice: undefined };
}

/** The last selection: one file is kept alive for it. */
let lastData: RobotsData | null = null;
let lastToken = '';
const NO_SELECTION: GroupSelection = {
  merged: -1,
  how: 'none',
  token: null,
  fallbackFrom: undefined,
  choice: NO_GROUP,
};
let lastSelection: GroupSelection = NO_SELECTION;

function remember(data: RobotsData, token: string, selection: GroupSelection): void {
  lastData = data;
  lastToken = token;
  lastSelection = selection;
}

/** The description of a selected group, with its user-agent lines and the spans of its groups. */
function choiceOf(data: RobotsData, selection: GroupSelection): GroupChoice {
  if (selection.choice !== undefined) return selection.choice;
  const merged = selection.merged;
  const userAgentLines: number[] = [];
  const spans: { startLine: number; endLine: number }[] = [];
  for (let k = mergedField(data, merged, MEMBERS_FROM); k < mergedField(data, merged, MEMBERS_TO); k++) {
    const g = data.ints[k];
    const firstAgent = groupField(data, g, FIRST_AGENT);
    for (let a = firstAgent; a < firstAgent + groupField(data, g, AGENT_COUNT); a++) {
      if (agentField(data, a, AGENT_MERGED) === merged) userAgentLines.push(agentField(data, a, AGENT_LINE));
    }
    spans.push(
      Object.freeze({ startLine: groupField(data, g, START_LINE), endLine: groupField(data, g, END_LINE) }),
    );
  }
  const group: GroupChoice = {
    how: selection.how,
    token: selection.token,
    userAgentLines: Object.freeze(userAgentLines),
    spans: Object.freeze(spans),
  };
  if (selection.fallbackFrom !== undefined) group.fallbackFrom = selection.fallbackFrom;
  selection.choice = Object.freeze(group);
  return selection.choice;
}
