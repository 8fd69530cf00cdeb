/**
 * The `--html` report of `audit`: one self-contained page (inline CSS, no script, no external
 * resource), readable offline and safe to attach to a CI run. Every text from the site is escaped.
 */
import type { AuditReport } from './audit.js';
import { sameOriginPath } from './audit-render.js';
import { cutNote } from './fail-on.js';
import { fileLinesLabel } from './render.js';
import { clip, printable } from './style.js';
import { counted } from './table.js';
import { sitemapsStop } from './urls.js';
import { displayToken } from './verdicts.js';

/** Lines of the file shown in the report. */
const LISTED_LINES = 400;

export function renderAuditHtml(report: AuditReport): string {
  const { fetch } = report.source;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>robots.txt audit: ${esc(report.origin)}</title>
<style>
  body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2327; background: #fff; margin: 2rem auto; max-width: 72rem; padding: 0 1.5rem; }
  h1 { font-size: 1.6rem; margin-bottom: .2rem; }
  h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; padding-bottom: .2rem; }
  .meta { color: #57606a; margin-top: 0; }
  table { border-collapse: collapse; margin: .6rem 0; }
  th, td { border: 1px solid #d0d7de; padding: .25rem .55rem; text-align: left; vertical-align: top; }
  th { background: #f6f8fa; }
  td.allow { background: #dafbe1; color: #116329; }
  td.block { background: #ffebe9; color: #a40e26; font-weight: 600; }
  td.partial { background: #fff8c5; color: #7d4e00; }
  .scroll { overflow-x: auto; }
  .policy-rules { color: #116329; } .policy-allow-all { color: #9a6700; } .policy-disallow-all { color: #a40e26; }
  .banner { padding: .6rem .9rem; border-radius: 6px; margin: 1rem 0; }
  .banner.fail { background: #ffebe9; border: 1px solid #ff8182; }
  .banner.pass { background: #dafbe1; border: 1px solid #4ac26b; }
  .sev-error { color: #a40e26; font-weight: 600; } .sev-warning { color: #9a6700; } .sev-info { color: #57606a; }
  pre { background: #f6f8fa; padding: .8rem; overflow-x: auto; font-size: 13px; line-height: 1.35; }
  pre .n { color: #8c959f; user-select: none; }
  pre .lint { background: #fff8c5; }
  code { font-size: 13px; }
  .note { color: #57606a; margin-top: 2rem; }
</style>
</head>
<body>
<h1>robots.txt audit: ${esc(report.origin)}</h1>
<p class="meta">${counted(report.urls.length, 'URL')} × ${counted(report.agents.length, 'crawler')} · generated ${esc(report.generatedAt)} by crawlee-robots</p>
${failOnBanner(report)}
<h2>robots.txt</h2>
<p>${report.source.kind === 'http' ? `<a href="${esc(fetch.robotsTxtUrl)}">${esc(fetch.robotsTxtUrl)}</a>` : `<code>${esc(report.source.location === '-' ? 'standard input' : report.source.location)}</code> (a local file${report.source.simulatedStatus === undefined ? '' : ', status simulated'})`}: <strong class="policy-${fetch.kind}">${esc(fetch.why)}</strong></p>
${fetch.hops.length > 1 && report.source.kind === 'http' ? `<p>Redirects followed: ${fetch.hops.map((hop) => `<code>${esc(hop.url)}</code> (${esc(String(hop.status))})`).join(' → ')}</p>` : ''}
<h2>AI crawlers</h2>
<p>${esc(report.ai.summary)}</p>
${aiTable(report)}
<h2>Verdicts</h2>
<p>Each cell: the verdict and the decisive line of robots.txt (– when no line decided).</p>
<ol class="urls">${report.urls.map((url) => `<li><code>${esc(sameOriginPath(url, report.origin))}</code></li>`).join('')}</ol>
${sitemapsSection(report)}<div class="scroll"><table class="matrix">
<thead><tr><th>crawler</th>${report.urls.map((url, i) => `<th title="${esc(url)}">${i + 1}</th>`).join('')}</tr></thead>
<tbody>
${report.agents
  .map(
    (agent, a) =>
      `<tr><th>${esc(displayToken(agent))}</th>${report.matrix
        .map((row) => {
          const v = row[a];
          const line = v.rule === null ? '–' : String(v.rule.line);
          return `<td class="${v.allowed ? 'allow' : 'block'}">${v.allowed ? 'allow' : 'BLOCK'} ${line}</td>`;
        })
        .join('')}</tr>`,
  )
  .join('\n')}
</tbody></table></div>
<h2>Lints</h2>
${lintTable(report)}
${listing(report)}
<p class="note">robots.txt is a request to crawlers, not access control (RFC 9309, section 3): it hides nothing and stops no one who ignores it. Protect private pages with authentication.</p>
</body>
</html>
`;
}

function failOnBanner(report: AuditReport): string {
  const { rules, tripped } = report.failOn;
  if (rules.length === 0) return '';
  // No HTTP answer, or an incomplete sample, outranks the rules: the exit code is 2 whatever they say.
  if (report.error !== null) {
    return `<div class="banner fail"><strong>Fail-on: ${esc(report.error)} (exit 2)</strong>, so no rule passed: ${rules.map((rule) => `<code>${esc(rule)}</code>`).join(', ')}</div>`;
  }
  if (tripped.length === 0) {
    return `<div class="banner pass"><strong>Fail-on passed:</strong> ${rules.map((rule) => `<code>${esc(rule)}</code>`).join(', ')}</div>`;
  }
  const items = tripped
    .map((trip) => {
      const cut = cutNote(trip);
      return `<li><code>${esc(trip.rule)}</code>${cut === undefined ? '' : ` ${esc(cut)}`}<ul>${trip.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul></li>`;
    })
    .join('');
  return `<div class="banner fail"><strong>Fail-on: ${tripped.length} of ${rules.length} rules tripped</strong><ul>${items}</ul></div>`;
}

/** With --from-sitemaps: the sitemaps read, each that failed, and whether the sample is whole. */
function sitemapsSection(report: AuditReport): string {
  const { sitemaps } = report;
  if (sitemaps === null) return '';
  const items = sitemaps.failures
    .map(
      (failure) =>
        `<li><strong>${failure.refused ? 'refused' : 'FAILED'}</strong> <code>${esc(failure.url)}</code>: ${esc(failure.why)}</li>`,
    )
    .join('');
  const more =
    sitemaps.failures.length < sitemaps.failed
      ? `<li>… and ${sitemaps.failed - sitemaps.failures.length} more failed</li>`
      : '';
  return `<p>Sitemaps: ${sitemaps.read} read, ${sitemaps.failed} failed${sitemapsStop(sitemaps, report.urls.length)}.</p>
${items === '' ? '' : `<ul class="sitemap-failures">${items}${more}</ul>\n`}${sitemaps.incomplete === null ? '' : `<div class="banner fail"><strong>Incomplete sample (exit 2):</strong> ${esc(sitemaps.incomplete)}</div>\n`}`;
}

function aiTable(report: AuditReport): string {
  const how = { token: 'named', fallback: 'fallback group', star: '* group', none: 'no group' } as const;
  const rows = report.ai.crawlers
    .map(
      (c) =>
        `<tr><th>${esc(c.agent)}</th><td class="${{ allowed: 'allow', blocked: 'block', partial: 'partial' }[c.status]}">${c.status}</td><td>${c.blockedUrls} of ${report.ai.urls}</td><td>${how[c.how]}${c.userAgentLines.length > 0 ? ` (line ${c.userAgentLines.join(', ')})` : ''}</td></tr>`,
    )
    .join('\n');
  return `<table class="ai"><thead><tr><th>crawler</th><th>policy</th><th>URLs blocked</th><th>group</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

function lintTable(report: AuditReport): string {
  if (report.source.fetch.robots === null) return '<p>No file was read, so there is nothing to lint.</p>';
  if (report.lints.length === 0) return '<p>None: every line reads as intended.</p>';
  const rows = report.lints
    .map(
      (lint) =>
        `<tr><td>${lint.line}</td><td class="sev-${lint.severity}">${lint.severity}</td><td>${esc(lint.message)}</td><td><code>${lint.code}</code></td></tr>`,
    )
    .join('\n');
  return `<table class="lints"><thead><tr><th>line</th><th>severity</th><th>finding</th><th>code</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

function listing(report: AuditReport): string {
  const { lines } = report.source;
  if (lines.length === 0 || report.source.fetch.robots === null) return '';
  const lintLines = new Set(report.lints.map((lint) => lint.line));
  const width = String(Math.min(lines.length, LISTED_LINES)).length;
  const shown = lines
    .slice(0, LISTED_LINES)
    .map((text, i) => {
      const body = `<span class="n">${String(i + 1).padStart(width)}</span>  ${esc(clip(text, 300))}`;
      return lintLines.has(i + 1) ? `<span class="lint">${body}</span>` : body;
    })
    .join('\n');
  const more = lines.length > LISTED_LINES ? `\n… ${lines.length - LISTED_LINES} more lines` : '';
  return `<h2>The file (${esc(fileLinesLabel(report.source))})</h2>\n<pre>${shown}${more}</pre>`;
}

/**
 * Escapes text for HTML content and attribute values. Control characters are shown as escapes,
 * as in the text output: a browser would show nothing for them, and HTML allows few of them.
 * Noncharacters (U+FFFF, U+FDD0, ...) are no valid HTML either, even as references.
 */
function esc(text: string): string {
  return printable(text)
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
    .replace(NONCHARACTER, (c) => {
      const code = c.codePointAt(0)!;
      return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16)}`;
    });
}

const NONCHARACTER = /\p{Noncharacter_Code_Point}/gu;
