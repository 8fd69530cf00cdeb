/**
 * The linter: a second handler of the same pass as the compiler, reporting what a site
 * owner should fix. Nothing it finds changes how the file is matched.
 */

import { isTokenChar } from './agent.js';
import {
  ALLOW,
  count,
  DERIVED,
  detach,
  EMPTY,
  FIRST_RULE,
  GROUP_COUNT,
  groupField,
  isAbsoluteHttpUrl,
  type RobotsData,
  RULE_COUNT,
  ruleFlags,
  ruleLine,
  rulePattern,
} from './compile.js';
import {
  type Directive,
  type FileSummary,
  keyTextOf,
  MAX_LINE_OCTETS,
  type RobotsLineHandler,
  valueTextOf,
} from './lines.js';
import type { LintCode, LintSeverity, RobotsLint } from './types.js';

const CANONICAL: Record<string, string> = {
  'user-agent': 'User-agent',
  allow: 'Allow',
  disallow: 'Disallow',
  sitemap: 'Sitemap',
  'crawl-delay': 'Crawl-delay',
};

/** Shortens a value quoted in a message. */
function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}

/** Messages without anything from the file in them. */
const FIXED = {
  crawlDelay: 'Crawl-delay is not part of RFC 9309: Bing and Yandex honour it, Googlebot ignores it.',
  noindex:
    'Noindex in robots.txt has not been supported by Google since 2019; use a noindex meta tag or X-Robots-Tag header.',
  html: 'This is an HTML page, not a robots.txt: no rules are read from it. Serve a text/plain robots.txt, or a 404 if you have none.',
  invalidUtf8:
    'The file is not valid UTF-8 (RFC 9309 2.3 asks for UTF-8); invalid bytes were read as U+FFFD.',
};
const FIXED_MESSAGES: ReadonlySet<string> = new Set(Object.values(FIXED));

/** At most this many findings are listed per file. */
export const MAX_LINTS = 200;

export class RobotsLinter implements RobotsLineHandler {
  readonly lints: RobotsLint[] = [];
  private sawAgent = false;
  private sawRule = true;
  /** A line that was neither a rule nor a user-agent since the group's last user-agent line. */
  private interruptedAt = 0;
  private groupStart = 0;

  /** Findings past MAX_LINTS, counted but not listed. */
  private dropped = 0;

  private add(code: LintCode, severity: LintSeverity, line: number, message: string): void {
    // A file of garbage would otherwise carry one finding per line.
    if (this.lints.length >= MAX_LINTS) this.dropped++;
    else this.lints.push({ code, severity, line, message });
  }

  /** True once the list is full: a finding is then only counted, its message never built. */
  private skipped(): boolean {
    if (this.lints.length < MAX_LINTS) return false;
    this.dropped++;
    return true;
  }

  directive(d: Directive): void {
    if (d.typo) {
      this.add(
        'accepted-typo',
        'warning',
        d.line,
        `"${keyTextOf(d)}" is a misspelling of "${CANONICAL[d.key]}". Google accepts it; other crawlers may ignore the line.`,
      );
    }
    if (d.missingColon) {
      this.add(
        'missing-colon',
        'warning',
        d.line,
        `The colon after "${keyTextOf(d)}" is missing. Google accepts the line; other crawlers may ignore it.`,
      );
    }
    switch (d.key) {
      case 'user-agent':
        this.userAgent(d);
        return;
      case 'allow':
      case 'disallow':
        this.rule(d);
        return;
      case 'crawl-delay':
        if (!this.sawAgent) this.beforeAgent(d);
        else if (!/^\d+(?:\.\d+)?$/.test(valueTextOf(d))) {
          this.add(
            'invalid-crawl-delay',
            'warning',
            d.line,
            `Crawl-delay ${quote(valueTextOf(d))} is not a number of seconds; it is ignored.`,
          );
        } else {
          this.add('crawl-delay-extension', 'info', d.line, FIXED.crawlDelay);
        }
        this.interrupt(d.line);
        return;
      case 'sitemap':
        if (!isAbsoluteHttpUrl(valueTextOf(d))) {
          this.add(
            'sitemap-not-absolute',
            'warning',
            d.line,
            `Sitemap ${quote(valueTextOf(d))} is not an absolute http(s) URL; crawlers cannot use it.`,
          );
        }
        this.interrupt(d.line);
        return;
      case 'noindex':
        this.add('noindex-unsupported', 'warning', d.line, FIXED.noindex);
        this.interrupt(d.line);
        return;
      case 'unsupported':
        this.add(
          'unsupported-directive',
          'info',
          d.line,
          `"${keyTextOf(d)}" is understood only by some crawlers; RFC 9309 crawlers ignore it.`,
        );
        this.interrupt(d.line);
        return;
      default:
        this.interrupt(d.line);
        if (this.skipped()) return;
        this.add(
          'unknown-directive',
          'warning',
          d.line,
          `"${keyTextOf(d)}" is not a robots.txt directive; crawlers ignore this line.`,
        );
    }
  }

  private userAgent(d: Directive): void {
    // Read in place: a file may have tens of thousands of user-agent lines.
    const first = d.valueEnd > d.valueStart ? d.source.charCodeAt(d.valueStart) : -1;
    if (first !== 42 /* * */ && !isTokenChar(first)) {
      this.add(
        'empty-user-agent',
        'warning',
        d.line,
        `User-agent ${quote(valueTextOf(d))} names no crawler: a name is made of letters, "-" and "_".`,
      );
    }
    if (this.sawRule) {
      this.sawRule = false;
      this.groupStart = d.line;
    } else if (this.interruptedAt > 0) {
      this.add(
        'user-agent-joins-group',
        'warning',
        d.line,
        `This user-agent joins the group that starts on line ${this.groupStart}, because only allow/disallow lines end a list of user-agents (line ${this.interruptedAt} does not). Give the earlier group its rules first if it was meant to be separate.`,
      );
    }
    this.sawAgent = true;
    this.interruptedAt = 0;
  }

  private rule(d: Directive): void {
    if (!this.sawAgent) {
      this.beforeAgent(d);
      return;
    }
    this.sawRule = true;
    this.interruptedAt = 0;
    // Almost every pattern starts with `/`: only the others need a closer look.
    const first = d.source.charCodeAt(d.valueStart);
    if (first !== 47 /* / */ && first !== 42 /* * */ && d.valueEnd > d.valueStart) {
      const value = valueTextOf(d);
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
        this.add(
          'absolute-url-pattern',
          'error',
          d.line,
          `${CANONICAL[d.key]} takes a path, not a URL: ${quote(value)} matches nothing. Write the path, starting with "/".`,
        );
      } else {
        this.add(
          'pattern-not-rooted',
          'warning',
          d.line,
          `The pattern ${quote(value)} does not start with "/" or "*", so it matches no URL. Did you mean "/${value}"?`,
        );
      }
    }
  }

  private beforeAgent(d: Directive): void {
    this.add(
      'rule-before-user-agent',
      'warning',
      d.line,
      `${CANONICAL[d.key]} before any User-agent line belongs to no group and is ignored.`,
    );
  }

  private interrupt(line: number): void {
    if (this.sawAgent && !this.sawRule && this.interruptedAt === 0) this.interruptedAt = line;
  }

  unparsable(line: number, text: string): void {
    if (this.skipped()) return;
    this.add(
      'unparsable-line',
      'warning',
      line,
      `${quote(text)} is not a "key: value" line; crawlers ignore it.`,
    );
  }

  lineTooLong(line: number, octets: number): void {
    this.add(
      'line-too-long',
      'warning',
      line,
      `The line is ${octets} bytes long; only its first ${MAX_LINE_OCTETS} bytes are read.`,
    );
  }

  end(summary: FileSummary): void {
    // Findings about the whole file are always listed, whatever the cap.
    const file: RobotsLint[] = [];
    if (summary.looksLikeHtml) {
      file.push({
        code: 'looks-like-html',
        severity: 'error',
        line: 1,
        message: FIXED.html,
      });
    }
    if (summary.truncatedAtLine !== undefined) {
      file.push({
        code: 'file-too-large',
        severity: 'warning',
        line: summary.truncatedAtLine,
        message: `The file is larger than the size crawlers read; everything from line ${summary.truncatedAtLine} on is ignored.`,
      });
    }
    if (summary.invalidUtf8Line !== undefined) {
      file.push({
        code: 'invalid-utf8',
        severity: 'warning',
        line: summary.invalidUtf8Line,
        message: FIXED.invalidUtf8,
      });
    }
    if (this.dropped > 0) file.push(notListed(this.lints, this.dropped, 'findings'));
    this.lints.push(...file);
    this.lints.sort((a, b) => a.line - b.line);
    // A built message may hold pieces of the source (V8 keeps the whole text alive for a
    // slice of it): copy those out. The fixed ones are shared by every file.
    const built = this.lints.filter((lint) => !FIXED_MESSAGES.has(lint.message));
    const copies = detach(built.map((lint) => lint.message));
    built.forEach((lint, i) => {
      lint.message = copies[i];
    });
  }
}

/**
 * Rules that repeat or contradict another rule of the same group, found from the compiled
 * file when the lints are first read, so parsing does not pay for it.
 */
export function repeatedRuleLints(data: RobotsData): RobotsLint[] {
  const lints: RobotsLint[] = [];
  let dropped = 0;
  for (let g = 0; g < count(data, GROUP_COUNT); g++) {
    const seen = new Map<string, number>();
    const first = groupField(data, g, FIRST_RULE);
    for (let id = first; id < first + groupField(data, g, RULE_COUNT); id++) {
      const flags = ruleFlags(data, id);
      if (flags & (DERIVED | EMPTY)) continue;
      const pattern = rulePattern(data, id);
      const previous = seen.get(pattern);
      if (previous === undefined) {
        seen.set(pattern, id);
        continue;
      }
      if (lints.length >= MAX_LINTS) {
        dropped++;
        continue;
      }
      const line = ruleLine(data, id);
      const before = ruleLine(data, previous);
      if ((ruleFlags(data, previous) & ALLOW) === (flags & ALLOW)) {
        lints.push({
          code: 'duplicate-rule',
          severity: 'info',
          line,
          message: `This rule repeats line ${before}.`,
        });
      } else {
        lints.push({
          code: 'conflicting-rules',
          severity: 'warning',
          line,
          message: `Allow and Disallow name the same pattern here and on line ${before}; Allow wins (RFC 9309 2.2.2).`,
        });
      }
    }
  }
  if (dropped > 0) lints.push(notListed(lints, dropped, 'repeated or conflicting rules'));
  return lints;
}

/** The finding that says how many `what` past MAX_LINTS, after the last of `listed`, are not listed. */
function notListed(listed: readonly RobotsLint[], dropped: number, what: string): RobotsLint {
  const last = listed[listed.length - 1].line;
  return {
    code: 'too-many-findings',
    severity: 'info',
    line: last,
    message: `${dropped} more ${what} after line ${last} are not listed.`,
  };
}
