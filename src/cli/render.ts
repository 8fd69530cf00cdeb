/**
 * Text blocks shared by `explain` and `audit`: the robots.txt status, the file listing with
 * its gutter, the lints and the closing note. Text from the site goes through `printable`.
 */
import {
  notModifiedUnasked,
  type RobotsFetchHop,
  type RobotsFetchStatus,
  type RobotsPolicyKind,
  withoutCredentials,
} from '../fetch/index.js';
import type { RobotsLint } from '../robots/index.js';
import type { RobotsSource } from './source.js';
import { clip, printable, type Style } from './style.js';
import { counted } from './table.js';

/** What the status of the robots.txt answer means, in the words of RFC 9309 2.3.1. */
export function statusBlock(source: RobotsSource, style: Style): string[] {
  const { fetch } = source;
  const lines: string[] = [];
  const where =
    source.kind === 'http'
      ? fetch.robotsTxtUrl
      : source.kind === 'stdin'
        ? 'standard input'
        : source.location;
  lines.push(style.bold(`robots.txt  ${printable(where)}`));
  // A simulated status is said first: a simulated 3xx has no Location and ends as an invalid
  // redirect, which the meaning line explains.
  const status =
    source.simulatedStatus !== undefined
      ? `HTTP ${source.simulatedStatus}, simulated with --status`
      : typeof fetch.status !== 'number'
        ? statusWithoutHttp(fetch.status, fetch.kind, fetch.hops)
        : source.kind === 'http'
          ? `HTTP ${fetch.status}`
          : 'a local file, read as if served with HTTP 200 (--status simulates another status)';
  const paint =
    fetch.kind === 'rules' ? (text: string) => text : fetch.kind === 'allow-all' ? style.yellow : style.red;
  lines.push(`  status   ${status}`);
  lines.push(`  meaning  ${paint(printable(fetch.why))}`);
  if (source.kind === 'http' && fetch.hops.length > 1) {
    // RFC 9309 2.3.1.2: redirects are followed; the rules still apply to the first origin.
    const chain = fetch.hops.map((hop) => `${hop.url} (${hop.status})`).join(' -> ');
    lines.push(`  redirects followed: ${printable(chain)}`);
    lines.push(`  the rules apply to ${fetch.origin}, the origin that was asked`);
  }
  if (fetch.robots !== null && fetch.robots.sitemaps.length > 0) {
    const sitemaps = fetch.robots.sitemaps;
    const shown = sitemaps.slice(0, 3).map(withoutCredentials).join(', ');
    lines.push(`  sitemaps ${sitemaps.length}: ${printable(shown)}${sitemaps.length > 3 ? ', ...' : ''}`);
  }
  return lines;
}

/** How a line of the listing is marked. */
export interface ListingMarks {
  /** Line spans of the group applied: a bar in the gutter. */
  spans: readonly { startLine: number; endLine: number }[];
  /** The decisive line: `>` and highlighted. */
  decisive?: number;
  /** Other matching rules: `~`. */
  matching?: ReadonlySet<number>;
}

/** Files up to this many lines are listed whole; longer ones around the lines that matter. */
const FULL_LISTING_LINES = 120;
/** Characters of a line shown; the rest is replaced by an ellipsis. */
const SHOWN_CHARS = 160;

/** The file with line numbers, a bar beside the group applied and the decisive line highlighted. */
export function listingBlock(source: RobotsSource, marks: ListingMarks, style: Style): string[] {
  const { lines } = source;
  if (lines.length === 0) return [];
  const out: string[] = [style.bold(`The file (${fileLinesLabel(source)})`)];
  if (source.fetch.robots?.lints.some((lint) => lint.code === 'looks-like-html')) {
    out.push('  an HTML page, not a robots.txt: no line of it is read as a rule');
    return out;
  }
  const inGroup = (n: number) => marks.spans.some((span) => n >= span.startLine && n <= span.endLine);
  const shown = shownLines(lines.length, marks);
  const width = String(lines.length).length;
  let previous = 0;
  for (const n of shown) {
    if (n > previous + 1)
      out.push(style.dim(`  ${' '.repeat(width)}    ... lines ${previous + 1}-${n - 1} not shown`));
    previous = n;
    const bar = inGroup(n) ? style.cyan('|') : ' ';
    const mark = n === marks.decisive ? '>' : marks.matching?.has(n) ? '~' : ' ';
    const line = lines[n - 1];
    // Cut before escaping: an escape is never cut in half.
    const text = printable(clip(line, SHOWN_CHARS));
    const number = style.dim(String(n).padStart(width));
    if (n === marks.decisive)
      out.push(`  ${number} ${bar}${style.bold(mark)} ${style.inverse(text)}  ${style.dim('<- decisive')}`);
    else out.push(`  ${number} ${bar}${mark} ${text}`.trimEnd());
  }
  if (previous < lines.length)
    out.push(style.dim(`  ${' '.repeat(width)}    ... lines ${previous + 1}-${lines.length} not shown`));
  const legend = ['| group applied'];
  if (marks.decisive !== undefined) legend.push('> decisive line');
  if (marks.matching !== undefined && marks.matching.size > 0) legend.push('~ another matching rule');
  if (marks.spans.length > 0 || marks.decisive !== undefined) out.push(style.dim(`  ${legend.join('   ')}`));
  return out;
}

/**
 * A fetch that ended without an HTTP status of robots.txt: redirects that led to no file (a loop,
 * too many, an invalid target), which RFC 9309 2.3.1.2 reads as an unavailable robots.txt, or no
 * usable answer at all (a timeout, a refused connection), an unreachable one.
 */
export function statusWithoutHttp(
  status: RobotsFetchStatus,
  kind: RobotsPolicyKind,
  hops: readonly RobotsFetchHop[],
): string {
  // No redirect: said as what it is.
  if (notModifiedUnasked({ status, hops })) {
    return `HTTP 304 Not Modified, to a request that was not conditional (${status})`;
  }
  return kind === 'allow-all'
    ? `redirects that reach no robots.txt (${status})`
    : `no usable answer (${status})`;
}

/** `12 lines`, or for a file cut at the size limit `the first 8001 lines, the rest ignored`. */
export function fileLinesLabel(source: RobotsSource): string {
  const count = source.lines.length;
  if (source.fetch.truncated) {
    return count === 1 ? 'its first line, the rest ignored' : `the first ${count} lines, the rest ignored`;
  }
  return counted(count, 'line');
}

/** Every line of a short file; of a long one the first lines and those near the marks. */
function shownLines(count: number, marks: ListingMarks): number[] {
  if (count <= FULL_LISTING_LINES) return Array.from({ length: count }, (_, i) => i + 1);
  const keep = new Set<number>();
  const near = (n: number, radius: number) => {
    for (let i = Math.max(1, n - radius); i <= Math.min(count, n + radius); i++) keep.add(i);
  };
  near(1, 2);
  for (const span of marks.spans.slice(0, 20)) {
    // A group's first lines say whom it is for; long groups are shown near their matches only.
    for (let i = span.startLine; i <= Math.min(span.endLine, span.startLine + 9); i++) keep.add(i);
  }
  if (marks.decisive !== undefined) near(marks.decisive, 2);
  for (const n of marks.matching ?? []) near(n, 1);
  return [...keep].sort((a, b) => a - b);
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** The lints, by line, each with its severity and a sentence for the site owner. */
export function lintBlock(lints: readonly RobotsLint[], style: Style): string[] {
  if (lints.length === 0) return [style.bold('Lints'), '  none: every line reads as intended'];
  const counts = (['error', 'warning', 'info'] as const)
    .map((severity) => [severity, lints.filter((lint) => lint.severity === severity).length] as const)
    .filter(([, n]) => n > 0)
    .map(([severity, n]) => `${n} ${severity}${n === 1 ? '' : 's'}`);
  const paint = { error: style.red, warning: style.yellow, info: style.dim };
  const width = String(Math.max(...lints.map((lint) => lint.line))).length;
  return [
    style.bold(`Lints (${counts.join(', ')})`),
    ...[...lints]
      .sort((a, b) => a.line - b.line || SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity])
      .map(
        (lint) =>
          `  line ${String(lint.line).padEnd(width)}  ${paint[lint.severity](lint.severity.padEnd(7))}  ${printable(lint.message)} [${lint.code}]`,
      ),
  ];
}

/** The closing note: what robots.txt is and is not. */
export function closingNote(style: Style): string[] {
  return [
    style.dim(
      'Note: robots.txt is a request to crawlers, not access control (RFC 9309 3): it hides nothing\n' +
        'and stops no one who ignores it. Protect private pages with authentication.',
    ),
  ];
}
