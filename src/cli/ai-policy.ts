/**
 * The AI-crawler policy of a file in one paragraph: which AI crawlers are blocked, allowed or
 * partly blocked on the audited URLs, and which have no group of their own and follow `*`.
 */
import type { RobotsFetchResult } from '../fetch/index.js';
import type { GroupChoiceKind } from '../robots/index.js';
import { AI_AGENTS } from './agents.js';
import { statusText } from './source.js';
import { type CliVerdict, judge } from './verdicts.js';

export interface AiCrawlerPolicy {
  agent: string;
  /** `blocked` on every audited URL, `allowed` on every one, or `partial`. */
  status: 'blocked' | 'allowed' | 'partial';
  blockedUrls: number;
  /** How its group was chosen: its own, a fallback, `*`, or none. */
  how: GroupChoiceKind;
  /** The `user-agent` lines of the group used. */
  userAgentLines: readonly number[];
  /** First line of the group used (of its first part when merged); null without a group. */
  groupLine: number | null;
}

export interface AiPolicy {
  urls: number;
  crawlers: AiCrawlerPolicy[];
  summary: string;
}

export function aiPolicy(fetch: RobotsFetchResult, urls: readonly string[]): AiPolicy {
  const crawlers = AI_AGENTS.map((agent) => {
    const verdicts: CliVerdict[] = urls.map((url) => judge(fetch, url, agent));
    const blockedUrls = verdicts.filter((v) => !v.allowed).length;
    const group = verdicts[0]?.group;
    return {
      agent,
      status: blockedUrls === 0 ? 'allowed' : blockedUrls === urls.length ? 'blocked' : 'partial',
      blockedUrls,
      how: group?.how ?? 'none',
      userAgentLines: group?.userAgentLines ?? [],
      groupLine: group?.spans[0]?.startLine ?? null,
    } satisfies AiCrawlerPolicy;
  });
  return { urls: urls.length, crawlers, summary: summarize(fetch, crawlers, urls.length) };
}

function summarize(fetch: RobotsFetchResult, crawlers: readonly AiCrawlerPolicy[], urls: number): string {
  const n = crawlers.length;
  if (fetch.kind === 'disallow-all') {
    return `robots.txt is unreachable (${statusText(fetch.status)}), so every crawler, the ${n} AI crawlers included, must stay away from the whole site until it answers again (RFC 9309 2.3.1.4), all but /robots.txt itself (2.2.2).`;
  }
  if (fetch.kind === 'allow-all') {
    // A 4xx is unavailable by 2.3.1.3; redirects that reach no file (a loop, too many) by 2.3.1.2.
    const section = typeof fetch.status === 'number' ? '2.3.1.3' : '2.3.1.2';
    return `robots.txt is unavailable (${statusText(fetch.status)}): there are no rules, so all ${n} AI crawlers may fetch everything (RFC 9309 ${section}). A site that wants to keep AI crawlers out must serve a robots.txt.`;
  }
  const sentences: string[] = [];
  const urlWord = `${urls} audited URL${urls === 1 ? '' : 's'}`;
  // Crawlers that share a group and a count share a sentence: the * group treats all of its followers alike.
  for (const members of groupBy(crawlers, (c) => `${c.how} ${c.groupLine} ${c.blockedUrls}`).values()) {
    const c = members[0];
    const names = list(members.map((m) => m.agent));
    const one = members.length === 1;
    const every = urls === 1 ? `the ${urlWord}` : `all ${urlWord}`;
    const reach =
      c.blockedUrls === 0
        ? `allowed on ${every}`
        : c.blockedUrls === urls
          ? `blocked on ${every}`
          : `blocked on ${c.blockedUrls} of the ${urlWord}`;
    if (c.how === 'token') {
      sentences.push(
        `${names} ${one ? 'is' : 'are'} named in the group of line ${c.groupLine} and ${one ? 'is' : 'are'} ${reach}.`,
      );
    } else if (c.how === 'star') {
      sentences.push(
        `${names} ${one ? 'has no group of its own and follows' : 'have no group of their own and follow'} the * group (line ${c.groupLine}), so ${one ? 'it is' : 'they are'} ${reach}.`,
      );
    } else if (c.how === 'fallback') {
      sentences.push(
        `${names} ${one ? 'follows' : 'follow'} another crawler's group (line ${c.groupLine}) and ${one ? 'is' : 'are'} ${reach}.`,
      );
    } else {
      sentences.push(
        `${names} ${one ? 'is' : 'are'} not named and there is no * group, so nothing is disallowed for ${one ? 'it' : 'them'}.`,
      );
    }
  }
  const count = (status: AiCrawlerPolicy['status']) => crawlers.filter((c) => c.status === status).length;
  sentences.push(
    `In all: ${count('blocked')} of ${n} AI crawlers blocked everywhere, ${count('partial')} partly blocked, ${count('allowed')} allowed everywhere.`,
  );
  return sentences.join(' ');
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const members = groups.get(key);
    if (members === undefined) groups.set(key, [item]);
    else members.push(item);
  }
  return groups;
}

/** `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
