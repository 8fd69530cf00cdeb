/**
 * `--fail-on` rules: conditions that make `audit` exit with 1, for CI.
 *
 *   blocked:<agent>    a listed URL is disallowed for the crawler (`blocked:*`: for any crawler of the matrix)
 *   allowed:<agent>    a listed URL is allowed for the crawler (e.g. `allowed:GPTBot` to keep AI crawlers out)
 *   lint:<severity>    a lint of that severity or worse (`error`, `warning`, `info`)
 *   lint:<code>        a lint with that code (e.g. `lint:accepted-typo`)
 *   unreachable        robots.txt is unreachable (5xx, 429, no answer): every crawler is shut out
 *
 * Rules are given with repeated `--fail-on` options or comma-separated in one (a comma inside
 * the parentheses of a User-Agent header does not separate rules).
 */
import type { LintCode, LintSeverity, RobotsLint } from '../robots/index.js';
import { checkAgent, splitAtCommas } from './agents.js';
import { CliInputError } from './io.js';
import { type CliVerdict, displayToken } from './verdicts.js';

export type FailOnRule =
  | { kind: 'blocked' | 'allowed'; agent: string; text: string }
  | { kind: 'lint'; severity: LintSeverity; text: string }
  | { kind: 'lint-code'; code: LintCode; text: string }
  | { kind: 'unreachable'; text: string };

/** How many of the URLs or lints that tripped a rule are named. */
const MAX_TRIP_DETAILS = 20;

/** A rule that tripped, with what tripped it. */
export interface FailOnTrip {
  rule: string;
  /** How many URLs (a blocked or allowed rule), lints or reasons (unreachable) tripped the rule. */
  count: number;
  /** What tripped it, one entry each: the first `MAX_TRIP_DETAILS` of `count`. */
  details: string[];
}

/** Every lint code; `satisfies` keeps this list in step with the core's `LintCode`. */
const LINT_CODES = {
  'rule-before-user-agent': true,
  'unknown-directive': true,
  'unsupported-directive': true,
  'accepted-typo': true,
  'missing-colon': true,
  'unparsable-line': true,
  'pattern-not-rooted': true,
  'absolute-url-pattern': true,
  'file-too-large': true,
  'line-too-long': true,
  'noindex-unsupported': true,
  'crawl-delay-extension': true,
  'invalid-crawl-delay': true,
  'looks-like-html': true,
  'empty-file': true,
  'user-agent-joins-group': true,
  'empty-user-agent': true,
  'user-agent-cut': true,
  'blank-line-in-group': true,
  'blank-in-pattern': true,
  'invalid-utf8': true,
  'duplicate-rule': true,
  'conflicting-rules': true,
  'groups-merge': true,
  'star-rules-replaced': true,
  'sitemap-not-absolute': true,
  'sitemap-credentials': true,
  'too-many-findings': true,
} as const satisfies Record<LintCode, true>;

const SEVERITY_RANK: Record<LintSeverity, number> = { error: 0, warning: 1, info: 2 };

const SYNTAX = 'blocked:<agent>, allowed:<agent>, lint:<error|warning|info|code> or unreachable';

export function parseFailOn(values: readonly string[]): FailOnRule[] {
  const rules: FailOnRule[] = [];
  for (const value of values) {
    const texts = splitAtCommas(value)
      .map((part) => part.trim())
      .filter((text) => text !== '');
    // An empty value is most often an unset CI variable: reading it as no rule would turn the gate off.
    if (texts.length === 0)
      throw new CliInputError(`--fail-on ${JSON.stringify(value)} names no rule; use ${SYNTAX}`);
    for (const text of texts) rules.push(parseRule(text));
  }
  // A rule given twice (`blocked:A` and `blocked:a`, the same crawler) trips once.
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = ruleKey(rule);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What a rule tests, whatever its spelling: product tokens match without regard to case. */
function ruleKey(rule: FailOnRule): string {
  switch (rule.kind) {
    case 'blocked':
    case 'allowed':
      return `${rule.kind}:${rule.agent.toLowerCase()}`;
    case 'lint':
      return `lint:${rule.severity}`;
    case 'lint-code':
      return `lint:${rule.code}`;
    default:
      return rule.kind;
  }
}

function parseRule(text: string): FailOnRule {
  if (text === 'unreachable') return { kind: 'unreachable', text };
  const colon = text.indexOf(':');
  const key = colon < 0 ? text : text.slice(0, colon);
  const value = colon < 0 ? '' : text.slice(colon + 1).trim();
  if ((key === 'blocked' || key === 'allowed') && value !== '') {
    checkAgent(value, `--fail-on ${text}`, true);
    return { kind: key, agent: value, text };
  }
  if (key === 'lint' && value !== '') {
    if (value === 'error' || value === 'warning' || value === 'info')
      return { kind: 'lint', severity: value, text };
    if (Object.hasOwn(LINT_CODES, value)) return { kind: 'lint-code', code: value as LintCode, text };
    throw new CliInputError(
      `--fail-on ${text}: unknown lint; use lint:error, lint:warning, lint:info or a lint code such as lint:accepted-typo`,
    );
  }
  throw new CliInputError(`--fail-on ${JSON.stringify(text)} is not a rule; use ${SYNTAX}`);
}

/** The crawlers the rules name: the audit adds them to its matrix. */
export function agentsNamedBy(rules: readonly FailOnRule[]): string[] {
  return rules.flatMap((rule) => ('agent' in rule && rule.agent !== '*' ? [rule.agent] : []));
}

export interface FailOnInput {
  /** Verdicts by URL, then by crawler. */
  matrix: readonly (readonly CliVerdict[])[];
  lints: readonly RobotsLint[];
  /** True when robots.txt is unreachable (RFC 9309 2.3.1.4: everything disallowed). */
  unreachable: boolean;
  /** Why, in one sentence. */
  why: string;
}

export function evaluateFailOn(
  rules: readonly FailOnRule[],
  input: FailOnInput,
  sameAgent: (a: string, b: string) => boolean,
): FailOnTrip[] {
  const trips: FailOnTrip[] = [];
  for (const rule of rules) {
    const details = detailsOf(rule, input, sameAgent);
    if (details.length > 0)
      trips.push({ rule: rule.text, count: details.length, details: details.slice(0, MAX_TRIP_DETAILS) });
  }
  return trips;
}

function detailsOf(
  rule: FailOnRule,
  input: FailOnInput,
  sameAgent: (a: string, b: string) => boolean,
): string[] {
  switch (rule.kind) {
    case 'unreachable':
      return input.unreachable ? [input.why] : [];
    case 'lint':
      return input.lints
        .filter((lint) => SEVERITY_RANK[lint.severity] <= SEVERITY_RANK[rule.severity])
        .map(lintDetail);
    case 'lint-code':
      return input.lints.filter((lint) => lint.code === rule.code).map(lintDetail);
    default: {
      const wantAllowed = rule.kind === 'allowed';
      const details: string[] = [];
      for (const row of input.matrix) {
        for (const verdict of row) {
          if (rule.agent !== '*' && !sameAgent(verdict.agent, rule.agent)) continue;
          if (verdict.allowed !== wantAllowed) continue;
          const by = verdict.rule === null ? verdict.reason : `line ${verdict.rule.line}`;
          // Named as its row of the matrix is: `Googlebot` for `Googlebot/2.1` or a whole header.
          details.push(
            `${verdict.url} ${wantAllowed ? 'allowed' : 'blocked'} for ${displayToken(verdict.agent)} (${by})`,
          );
        }
      }
      return details;
    }
  }
}

/** `300 URLs; the first 20:` when the details of a trip are cut, or undefined. */
export function cutNote(trip: FailOnTrip): string | undefined {
  if (trip.count <= trip.details.length) return undefined;
  const what = trip.rule.startsWith('lint:') ? 'lints' : 'URLs';
  return `${trip.count} ${what}; the first ${trip.details.length}:`;
}

function lintDetail(lint: RobotsLint): string {
  return `line ${lint.line}: ${lint.severity}: ${lint.message} [${lint.code}]`;
}
