/**
 * Verdicts as the CLI reports them: the core's verdict when a file decides, or the policy
 * of the origin when there is no file to read (the same reasons as `RobotsStore.check`).
 */
import type { RobotsFetchResult } from '../fetch/index.js';
import { type GroupChoice, type MatchedRule, productTokenOf, RobotsTxt } from '../robots/index.js';
import type { RobotsCheckReason } from '../store/index.js';

export interface CliVerdict {
  /** The crawler as the user named it. */
  agent: string;
  productToken: string;
  url: string;
  /** The normalised path and query that were matched. */
  path: string;
  allowed: boolean;
  /**
   * `matched`, `no-match`, `no-group`, `robots-txt-always-allowed` (the file decided), or
   * `allow-all` / `disallow-all` (no file: unavailable or unreachable).
   */
  reason: RobotsCheckReason;
  /** The decisive rule, or null. */
  rule: MatchedRule | null;
  /** The group used, and how it was chosen. */
  group: GroupChoice;
  /** Every matching rule, best first. */
  candidates: readonly MatchedRule[];
}

/** A file with no lines: reads tokens and paths the core's way when there is no file. */
const NO_FILE = RobotsTxt.parse('');

export function judge(fetch: RobotsFetchResult, url: string, agent: string): CliVerdict {
  if (fetch.robots !== null) {
    const v = fetch.robots.explain(url, agent);
    return { agent, url, ...v };
  }
  const v = NO_FILE.explain(url, agent);
  // RFC 9309 2.2.2: /robots.txt itself stays allowed even when the origin is unreachable.
  const alwaysAllowed = v.reason === 'robots-txt-always-allowed';
  return {
    agent,
    url,
    productToken: v.productToken,
    path: v.path,
    // RFC 9309 2.3.1.3: unavailable (4xx) = allow all; 2.3.1.4: unreachable = disallow all.
    allowed: alwaysAllowed || fetch.kind === 'allow-all',
    reason: alwaysAllowed ? v.reason : fetch.kind === 'allow-all' ? 'allow-all' : 'disallow-all',
    rule: null,
    group: v.group,
    candidates: [],
  };
}

/** `Disallow: /search` as it would be written in the file. */
export function ruleText(rule: Pick<MatchedRule, 'kind' | 'pattern'>): string {
  return `${rule.kind === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern}`;
}

/** The product token as the user wrote it when possible (`GPTBot`, not `gptbot`). */
export function displayToken(agent: string): string {
  const token = productTokenOf(agent);
  const at = agent.toLowerCase().indexOf(token);
  return at >= 0 ? agent.slice(at, at + token.length) : token;
}

/** How the group was chosen, in one phrase. */
export function groupPhrase(verdict: CliVerdict, robots: RobotsTxt | null): string {
  const { group } = verdict;
  const where = group.userAgentLines.length > 0 ? ` (${plural(group.userAgentLines, 'line')})` : '';
  const spans = group.spans.length > 1 ? `, ${group.spans.length} groups merged` : '';
  const written = (token: string) => userAgentValueAt(robots, group.userAgentLines[0]) ?? token;
  switch (group.how) {
    case 'token': {
      // A group is the crawler's own only when it names no one else (a user-agent that joined a
      // group across a crawl-delay line shares every rule of it).
      const others = otherUserAgents(verdict, robots);
      const shared = others === 0 ? '' : `, shared with ${others} other user-agent${others === 1 ? '' : 's'}`;
      return `${others === 0 ? 'its own group' : 'the group that names it'}, User-agent: ${written(group.token!)}${where}${spans}${shared}`;
    }
    case 'fallback':
      return `no group of its own; ${displayToken(verdict.agent)} follows the ${written(group.token!)} group${where}${spans} (documented fallback)`;
    case 'star':
      return `no group of its own; the * group applies${where}${spans}`;
    default:
      return 'no group names it and there is no * group: nothing is disallowed';
  }
}

/** How many user-agent lines of the groups a verdict used name a crawler other than its own. */
export function otherUserAgents(verdict: CliVerdict, robots: RobotsTxt | null): number {
  if (robots === null) return 0;
  let byStart = groupsByStart.get(robots);
  if (byStart === undefined) {
    byStart = new Map(robots.groups.map((written) => [written.startLine, written]));
    groupsByStart.set(robots, byStart);
  }
  let others = 0;
  for (const span of verdict.group.spans) {
    for (const ua of byStart.get(span.startLine)?.userAgents ?? []) {
      if (ua.token !== '' && ua.token !== verdict.group.token) others++;
    }
  }
  return others;
}

const groupsByStart = new WeakMap<RobotsTxt, Map<number, RobotsTxt['groups'][number]>>();

const agentValues = new WeakMap<RobotsTxt, Map<number, string>>();

/** The value of the `user-agent` line at `line`, as written (`Googlebot`, not `googlebot`). */
export function userAgentValueAt(robots: RobotsTxt | null, line: number | undefined): string | undefined {
  if (robots === null || line === undefined) return undefined;
  let values = agentValues.get(robots);
  if (values === undefined) {
    values = new Map();
    for (const group of robots.groups) for (const ua of group.userAgents) values.set(ua.line, ua.value);
    agentValues.set(robots, values);
  }
  return values.get(line);
}

/** `line 4`, `lines 4, 9`. */
function plural(lines: readonly number[], word: string): string {
  return `${word}${lines.length > 1 ? 's' : ''} ${lines.join(', ')}`;
}
