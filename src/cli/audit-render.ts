/** The text output of `audit`. */
import type { AuditReport } from './audit.js';
import { cutNote } from './fail-on.js';
import { closingNote, lintBlock, statusBlock } from './render.js';
import { printable, type Style } from './style.js';
import { type Cell, counted, renderTable } from './table.js';
import { sitemapsStop } from './urls.js';
import { type CliVerdict, displayToken } from './verdicts.js';

export function renderAudit(report: AuditReport, style: Style): string {
  const blocks: string[][] = [
    [
      style.bold(`Audit of ${report.origin}`),
      `  ${counted(report.urls.length, 'URL')} x ${counted(report.agents.length, 'crawler')}`,
    ],
    statusBlock(report.source, style),
    urlsBlock(report, style),
    sitemapsBlock(report, style),
    matrixBlock(report, style),
    [style.bold('AI crawlers'), ...wrap(report.ai.summary, 96).map((line) => `  ${line}`)],
    report.source.fetch.robots === null ? [] : lintBlock(report.lints, style),
    failOnBlock(report, style),
    closingNote(style),
  ];
  return `${blocks
    .filter((block) => block.length > 0)
    .map((block) => block.join('\n'))
    .join('\n\n')}\n`;
}

/** The URLs, numbered: the matrix names them by number to stay narrow. */
function urlsBlock(report: AuditReport, style: Style): string[] {
  const width = String(report.urls.length).length;
  return [
    style.bold(
      report.urlsFrom === 'rules'
        ? "URLs (the home page and a path for each of the file's first rules; --urls or --from-sitemaps audits yours)"
        : 'URLs',
    ),
    ...report.urls.map(
      (url, i) => `  ${String(i + 1).padStart(width)}  ${printable(sameOriginPath(url, report.origin))}`,
    ),
  ];
}

/** With --from-sitemaps: how many sitemaps were read, and each that failed. */
function sitemapsBlock(report: AuditReport, style: Style): string[] {
  const { sitemaps } = report;
  if (sitemaps === null) return [];
  const lines = [
    style.bold('Sitemaps'),
    `  ${sitemaps.read} read, ${sitemaps.failed} failed${sitemapsStop(sitemaps, report.urls.length)}`,
  ];
  for (const failure of sitemaps.failures) {
    const label = failure.refused ? style.yellow('refused') : style.bold(style.red('FAILED'));
    lines.push(
      `  ${label} ${printable(sameOriginPath(failure.url, report.origin))}: ${printable(failure.why)}`,
    );
  }
  if (sitemaps.failures.length < sitemaps.failed)
    lines.push(`  ... and ${sitemaps.failed - sitemaps.failures.length} more failed`);
  if (sitemaps.incomplete !== null) lines.push(`  ${style.red(printable(sitemaps.incomplete))}`);
  return lines;
}

/**
 * The verdicts, a row per crawler and a column per URL, in tables of at most MATRIX_COLUMNS URLs
 * one after the other: 1000 URLs in one table made lines 9,000 characters wide.
 */
function matrixBlock(report: AuditReport, style: Style): string[] {
  const lines = [style.bold('Verdicts (allow/BLOCK and the decisive line; - when no line decided)')];
  for (let from = 0; from < report.urls.length || from === 0; from += MATRIX_COLUMNS) {
    const to = Math.min(report.urls.length, from + MATRIX_COLUMNS);
    const rows = report.agents.map((agent, a) => {
      const cells: Cell[] = [displayToken(agent)];
      for (let u = from; u < to; u++) cells.push(verdictCell(report.matrix[u][a], style));
      return cells;
    });
    const numbers = Array.from({ length: to - from }, (_, i) => String(from + i + 1));
    if (from > 0) lines.push('');
    lines.push(...renderTable(['crawler', ...numbers], rows));
  }
  return lines;
}

/** URLs per table of verdicts: with the crawler's name, about 110 characters. */
const MATRIX_COLUMNS = 10;

function verdictCell(verdict: CliVerdict, style: Style): Cell {
  const line = verdict.rule === null ? '-' : String(verdict.rule.line);
  return verdict.allowed
    ? { text: `allow ${line}`, paint: style.green }
    : { text: `BLOCK ${line}`, paint: (text) => style.bold(style.red(text)) };
}

function failOnBlock(report: AuditReport, style: Style): string[] {
  const { rules, tripped } = report.failOn;
  if (rules.length === 0) return [];
  // No HTTP answer, or an incomplete sample, outranks the rules: the exit code is 2 whatever they say.
  const noAnswer = report.error === null ? '' : ` (exit 2: ${report.error})`;
  if (tripped.length === 0) {
    // Rules judged on no answer or on part of a sample neither trip nor pass.
    const outcome = report.error === null ? style.green('passed') : style.yellow('none tripped, none passed');
    return [style.bold(`Fail-on${noAnswer}`), `  ${outcome}: ${printable(rules.join(', '))}`];
  }
  const lines = [
    style.bold(
      `Fail-on: ${tripped.length} of ${rules.length} rules tripped${noAnswer || ` (exit ${report.exitCode})`}`,
    ),
  ];
  for (const trip of tripped) {
    // Rules name crawlers from the command line; details quote URLs and lints of the site.
    lines.push(`  ${style.red('tripped')} ${printable(trip.rule)}`);
    const cut = cutNote(trip);
    if (cut !== undefined) lines.push(`    ${cut}`);
    for (const detail of trip.details) lines.push(`    ${printable(detail)}`);
  }
  return lines;
}

export function sameOriginPath(url: string, origin: string): string {
  return url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

/** Breaks a paragraph into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
