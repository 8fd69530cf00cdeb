import { isProductToken, productTokenOf } from '../robots/index.js';
import { headerProblem } from './args.js';
import { CliInputError } from './io.js';

/**
 * AI crawlers whose policy the audit summarises: training crawlers, AI search indexers and
 * the fetchers that act for a user of a chat assistant.
 */
export const AI_AGENTS: readonly string[] = [
  'GPTBot',
  'ChatGPT-User',
  'OAI-SearchBot',
  'ClaudeBot',
  'Claude-User',
  'PerplexityBot',
  'CCBot',
  'Google-Extended',
  'Applebot-Extended',
  'Bytespider',
  'Amazonbot',
  'meta-externalagent',
];

/**
 * The crawlers `explain` compares and `audit` lists when `--agents` is not given: the big
 * search engines (with Googlebot-Image and Applebot, which fall back to Googlebot's group)
 * and the AI crawlers.
 */
export const DEFAULT_AGENTS: readonly string[] = [
  'Googlebot',
  'Googlebot-Image',
  'Bingbot',
  'Applebot',
  'YandexBot',
  'DuckDuckBot',
  ...AI_AGENTS,
];

/**
 * Reads `--agents a,b,c`: trimmed, empty entries dropped, repeats (by product token)
 * removed. Each entry must yield a product token (RFC 9309 2.2.1: `A-Z a-z _ -`).
 */
export function parseAgentList(value: string): string[] {
  const agents: string[] = [];
  for (const entry of splitAtCommas(value)) {
    const agent = entry.trim();
    if (agent === '') continue;
    checkAgent(agent, '--agents');
    if (!agents.some((known) => sameAgent(known, agent))) agents.push(agent);
  }
  if (agents.length === 0)
    throw new CliInputError('--agents needs at least one crawler name, e.g. --agents Googlebot,GPTBot');
  return agents;
}

/** `--agents` given more than once: the lists joined, a crawler named twice kept once. */
export function joinAgents(previous: readonly string[], more: readonly string[]): string[] {
  const agents = [...previous];
  for (const agent of more) if (!agents.some((known) => sameAgent(known, agent))) agents.push(agent);
  return agents;
}

/** Checks that a crawler name yields a product token; a header such as `Mozilla/5.0 (compatible; ExampleBot/1.0)` is fine too. */
export function checkAgent(agent: string, option: string, allowStar = false): void {
  if (allowStar && agent === '*') return;
  // The name may be sent as the User-Agent header (a whole header, or the token in the default one).
  const problem = headerProblem(agent);
  if (problem !== undefined) {
    throw new CliInputError(
      `${option}: ${JSON.stringify(agent)} holds ${problem}, which no User-Agent header can carry`,
    );
  }
  // RFC 9309 2.2.1: a product token is made of `A-Z a-z _ -`; `Foo Bar` is neither a token nor a header.
  const token = productTokenOf(agent);
  if (!isProductToken(token)) {
    throw new CliInputError(
      `${option}: ${JSON.stringify(agent)} names no crawler; use a product token such as ExampleBot (letters, "-" and "_").`,
    );
  }
  // One word that is no token (`bøt`, `bot.example`) would be read by its leading letters (`b`,
  // `bot`): a crawler other than the one named, judged without a word. A name that a digit cuts
  // (`MJ12bot`) is taken: the crawler's own User-Agent header is read the same way, to `MJ`.
  if (!HEADER_SHAPED.test(agent) && !isProductToken(agent) && !CUT_AT_DIGIT.test(agent)) {
    throw new CliInputError(
      `${option}: ${JSON.stringify(agent)} is no product token (letters, "-" and "_"), and would be read as ${JSON.stringify(token)}; give the crawler's token, or a whole User-Agent header`,
    );
  }
}

/** A crawler's name that a digit cuts, as `MJ12bot` or `Crawl4AI`: read as its own header is. */
const CUT_AT_DIGIT = /^[A-Za-z_-]+[0-9][A-Za-z0-9_-]*$/;

/** What makes a crawler name a User-Agent header rather than one word: a version, a comment, a blank. */
const HEADER_SHAPED = /[/(;\s]/;

/**
 * Splits a comma-separated option value at the commas outside parentheses: a whole User-Agent
 * header such as `Mozilla/5.0 (KHTML, like Gecko; compatible; GPTBot/1.0)` stays one entry,
 * since its comments (RFC 9110 5.6.5) may hold commas.
 */
export function splitAtCommas(value: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      entries.push(value.slice(start, i));
      start = i + 1;
    }
  }
  entries.push(value.slice(start));
  return entries;
}

export function sameAgent(a: string, b: string): boolean {
  return productTokenOf(a) === productTokenOf(b);
}
