/** The text output of `explain`. */
import type { RobotsTxt } from '../robots/index.js';
import type { ExplainReport } from './explain.js';
import { closingNote, lintBlock, listingBlock, statusBlock } from './render.js';
import { printable, type Style } from './style.js';
import { renderTable } from './table.js';
import {
  type CliVerdict,
  displayToken,
  groupPhrase,
  otherUserAgents,
  ruleText,
  userAgentValueAt,
} from './verdicts.js';

export function renderExplain(report: ExplainReport, style: Style): string {
  const { verdict, source } = report;
  const robots = source.fetch.robots;
  const blocks: string[][] = [
    headline(report, style),
    statusBlock(source, style),
    listingBlock(
      source,
      {
        spans: verdict.group.spans,
        ...(verdict.rule === null ? {} : { decisive: verdict.rule.line }),
        matching: new Set(verdict.candidates.slice(1).map((rule) => rule.line)),
      },
      style,
    ),
    candidatesBlock(verdict, style),
    othersBlock(report, style),
    robots === null ? [] : lintBlock(report.lints, style),
    closingNote(style),
  ];
  return `${blocks
    .filter((block) => block.length > 0)
    .map((block) => block.join('\n'))
    .join('\n\n')}\n`;
}

function headline(report: ExplainReport, style: Style): string[] {
  const { verdict } = report;
  const robots = report.source.fetch.robots;
  const word = verdict.allowed ? style.bold(style.green('ALLOWED')) : style.bold(style.red('DISALLOWED'));
  // The URL and the crawler come from the command line, the rule and the group from the file.
  const lines = [`${word}  ${printable(report.url)}`];
  lines.push(
    `  crawler   ${printable(displayToken(report.agent))} (product token "${printable(verdict.productToken)}")`,
  );
  lines.push(`  decided   ${printable(decision(verdict))}`);
  const bare = report.withoutEmptyQuery;
  if (bare !== null) {
    const verdictWord = bare.allowed ? 'allowed' : 'DISALLOWED';
    const by = bare.rule === null ? '' : ` by line ${bare.rule.line}`;
    lines.push(
      `  note      Node's HTTP clients send it without its empty "?": ${printable(bare.path)} is ${verdictWord}${by}; RobotsGuard fetches it only when both are allowed`,
    );
  }
  if (robots !== null) lines.push(`  group     ${printable(groupPhrase(verdict, robots))}`);
  return lines;
}

/** Which line decided, or what did when no line did. */
function decision(verdict: CliVerdict): string {
  switch (verdict.reason) {
    case 'matched': {
      const rule = verdict.rule!;
      // RFC 9309 2.2.2: the most specific (longest) match wins; Allow wins a tie.
      const octets = `${rule.length} octet${rule.length === 1 ? '' : 's'}`;
      const tied = verdict.candidates.some((c) => c.length === rule.length && c.kind !== rule.kind);
      const why =
        verdict.candidates.length === 1
          ? `the only matching rule, ${octets}`
          : tied
            ? `tied with a Disallow as the longest of ${verdict.candidates.length} matching rules, ${octets}; Allow wins a tie`
            : `the longest of ${verdict.candidates.length} matching rules, ${octets}`;
      const derived = rule.derived === 'index-html' ? '; derived from an Allow of .../index.html' : '';
      return `by line ${rule.line}, ${ruleText(rule)} (${why}${derived})`;
    }
    case 'no-match':
      return 'by no line: no rule of the group matches the path, so it is allowed';
    case 'no-group':
      return 'by no line: no group applies to this crawler, so nothing is disallowed';
    case 'robots-txt-always-allowed':
      return 'by RFC 9309 2.2.2: /robots.txt itself is always allowed';
    case 'allow-all':
      return 'by the status of robots.txt: unavailable, so everything is allowed (no line is read)';
    default:
      return 'by the status of robots.txt: unreachable, so everything is closed (no line is read)';
  }
}

/** When several rules match: each with its length, so the reader sees why one beat the other. */
function candidatesBlock(verdict: CliVerdict, style: Style): string[] {
  if (verdict.candidates.length < 2) return [];
  const rows = verdict.candidates.map((rule, i) => [
    String(rule.line),
    ruleText(rule),
    String(rule.length),
    i === 0 ? { text: 'decisive', paint: style.bold } : 'loses',
  ]);
  return [
    style.bold('Matching rules (the longest pattern wins; on a tie, Allow wins)'),
    ...renderTable(['line', 'rule', 'length', ''], rows),
  ];
}

function othersBlock(report: ExplainReport, style: Style): string[] {
  if (report.others.length === 0) return [];
  const robots = report.source.fetch.robots;
  const rows = report.others.map((other) => [
    displayToken(other.agent),
    other.allowed ? { text: 'allowed', paint: style.green } : { text: 'DISALLOWED', paint: style.red },
    other.rule === null ? '-' : String(other.rule.line),
    robots === null ? '-' : groupCell(other, robots),
  ]);
  return [
    style.bold('Other crawlers, same URL'),
    ...renderTable(['crawler', 'verdict', 'line', 'group'], rows),
  ];
}

/** Short form of how the group was chosen, for tables. */
function groupCell(verdict: CliVerdict, robots: RobotsTxt): string {
  const { group } = verdict;
  switch (group.how) {
    case 'token':
      return otherUserAgents(verdict, robots) === 0 ? 'own group' : 'shared group';
    case 'fallback':
      return `follows ${userAgentValueAt(robots, group.userAgentLines[0]) ?? group.token} (fallback)`;
    case 'star':
      return '* group';
    default:
      return 'none (no * group)';
  }
}
