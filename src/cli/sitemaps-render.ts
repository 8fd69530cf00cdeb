/** The text output of `sitemaps`. */
import { productTokenOf } from '../robots/index.js';
import { SITEMAP_DEFAULTS, unusableLinesText } from '../sitemap/index.js';
import { sameOriginPath } from './audit-render.js';
import { closingNote, statusWithoutHttp } from './render.js';
import { noSitemapBecause } from './sitemap-tally.js';
import type { SitemapsReport } from './sitemaps.js';
import { printable, type Style } from './style.js';
import { type Cell, counted, renderTable } from './table.js';

export function renderSitemaps(report: SitemapsReport, style: Style): string {
  const blocks: string[][] = [
    headBlock(report, style),
    report.sitemaps.length === 0 ? [] : tableBlock(report, style),
    problemBlock('Failures', report, style),
    problemBlock('Warnings', report, style),
    blockedBlock(report, style),
    closingNote(style),
  ];
  return `${blocks
    .filter((block) => block.length > 0)
    .map((block) => block.join('\n'))
    .join('\n\n')}\n`;
}

/** The crawler, with the product token matched when the name is not that token (a whole header, `Bot2`). */
function agentName(agent: string): string {
  if (agent === '*') return 'any crawler (*)';
  const token = productTokenOf(agent);
  return printable(agent.toLowerCase() === token ? agent : `${agent} (product token "${token}")`);
}

function headBlock(report: SitemapsReport, style: Style): string[] {
  const { policy, result } = report;
  const status =
    typeof policy.status === 'number'
      ? `HTTP ${policy.status}`
      : statusWithoutHttp(policy.status, policy.kind, policy.hops);
  const lines = [
    style.bold(`Sitemaps of ${policy.origin} for ${agentName(report.agent)}`),
    `  robots.txt  ${policy.robotsTxtUrl}: ${status}, ${counted(report.declared.length, 'sitemap')} declared`,
  ];
  if (report.unreadable !== null) {
    lines.push(`  ${style.red(printable(report.unreadable))}`);
    if (policy.robots === null) return lines;
  }
  if (report.declared.length === 0) {
    // As none at all: a relative `Sitemap:` line is no error of the command, only of the file.
    const because = policy.robots === null ? null : noSitemapBecause(policy.robots);
    lines.push(`  ${style.yellow(`robots.txt ${because ?? 'declares no sitemap'}`)}`);
    return lines;
  }
  const unusable = report.unusableSitemapLines;
  if (unusable.length > 0) {
    const them = unusable.length === 1 ? 'it' : 'them';
    lines.push(
      `  ${style.yellow(`robots.txt ${unusableLinesText(unusable)}, so no crawler can use ${them}: not read`)}`,
    );
  }
  lines.push(
    `  ${counted(result.sitemapsRead, 'sitemap')} read, ${result.sitemapsFailed} failed, ${result.sitemapsSkipped} skipped`,
    `  ${counted(result.urlsFound, 'URL')}: ${result.kept} kept, ${result.droppedByRobots} blocked by robots.txt, ${result.filtered} filtered${
      result.unchecked > 0
        ? `, ${result.unchecked} unchecked (the run stopped before their robots.txt answered)`
        : ''
    }`,
  );
  if (result.stoppedEarly) {
    // The seeder's run limits stop a run too, with no option of their own.
    const limit =
      report.maxUrls !== null && result.urlsFound >= report.maxUrls
        ? `--max-urls ${report.maxUrls}`
        : report.stoppedAtMaxTime
          ? `--max-time ${report.maxTimeSeconds} s`
          : `a run's limit of ${SITEMAP_DEFAULTS.maxSitemaps} sitemaps or ${SITEMAP_DEFAULTS.maxTotalBytes / 1024 ** 3} GiB`;
    lines.push(`  ${style.yellow(`stopped early at ${limit}: not every sitemap was read to its end`)}`);
  }
  return lines;
}

function tableBlock(report: SitemapsReport, style: Style): string[] {
  const origin = report.policy.origin;
  const rows: Cell[][] = report.sitemaps.map((sitemap) => [
    sameOriginPath(sitemap.url, origin),
    sitemap.declared
      ? 'robots.txt'
      : sitemap.parent === null
        ? 'an index'
        : sameOriginPath(sitemap.parent, origin),
    String(sitemap.found),
    String(sitemap.kept),
    String(sitemap.blocked),
    String(sitemap.filtered),
    sitemap.failure !== null
      ? { text: 'FAILED', paint: (text) => style.bold(style.red(text)) }
      : sitemap.warnings.length > 0
        ? { text: 'warning', paint: style.yellow }
        : 'ok',
  ]);
  const { result } = report;
  rows.push([
    'total',
    '',
    String(result.urlsFound),
    String(result.kept),
    String(result.droppedByRobots),
    String(result.filtered),
    '',
  ]);
  return [
    style.bold('Sitemaps'),
    ...renderTable(['sitemap', 'listed by', 'URLs', 'kept', 'blocked', 'filtered', 'status'], rows),
  ];
}

function problemBlock(title: 'Failures' | 'Warnings', report: SitemapsReport, style: Style): string[] {
  const origin = report.policy.origin;
  const lines: string[] = [];
  for (const sitemap of report.sitemaps) {
    const whys =
      title === 'Failures' ? (sitemap.failure === null ? [] : [sitemap.failure]) : sitemap.warnings;
    const where = `${sameOriginPath(sitemap.url, origin)}${sitemap.parent === null ? '' : ` (listed by ${sameOriginPath(sitemap.parent, origin)})`}`;
    // Sitemap URLs and reasons quote what the site served.
    for (const why of whys) lines.push(`  ${printable(`${where}: ${why}`)}`);
  }
  return lines.length === 0 ? [] : [style.bold(title), ...lines];
}

function blockedBlock(report: SitemapsReport, style: Style): string[] {
  if (report.blockedBy.length === 0) return [];
  // URLs a sitemap lists on another host are judged by that host's robots.txt: its rules are
  // named with their file, or they would read as lines of the site's.
  const own = report.policy.robotsTxtUrl;
  const elsewhere = report.blockedBy.some((rule) => rule.robotsTxtUrl !== own);
  const rows = report.blockedBy.map((rule) => [
    String(rule.count),
    ...(elsewhere ? [rule.robotsTxtUrl === own ? 'this site' : rule.robotsTxtUrl] : []),
    rule.line === null ? '-' : String(rule.line),
    rule.rule,
  ]);
  return [
    style.bold(`Blocked for ${agentName(report.agent)}: sitemap URLs robots.txt does not allow`),
    ...renderTable(['URLs', ...(elsewhere ? ['robots.txt'] : []), 'line', 'rule'], rows),
  ];
}
