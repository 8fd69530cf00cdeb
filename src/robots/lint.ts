/**
 * The linter: a second handler of the same pass as the compiler, reporting what a site
 * owner should fix. Nothing it finds changes how the file is matched.
 */

import { isTokenChar, tokenOfUserAgentLine } from './agent.js';
import {
  AGENT_COUNT,
  AGENT_LINE,
  AGENT_MERGED,
  ALLOW,
  agentField,
  agentValue,
  CRAWL_DELAY_VALUE,
  count,
  DERIVED,
  detach,
  EMPTY,
  FIRST_AGENT,
  FIRST_RULE,
  GROUP_COUNT,
  groupField,
  isNormalHttpUrl,
  MAX_CRAWL_DELAY_MS,
  MEMBERS_FROM,
  MEMBERS_TO,
  MERGED_COUNT,
  mergedField,
  mergedToken,
  type RobotsData,
  RULE_COUNT,
  ruleFlags,
  ruleLine,
  rulePattern,
  SITEMAP_COUNT,
  sitemapLine,
  sitemapUrl,
  sitemapValue,
  writtenPatterns,
  zeroedInts,
} from './compile.js';
import {
  type Directive,
  type DirectiveKey,
  type FileSummary,
  keyTextOf,
  MAX_LINE_OCTETS,
  type RobotsLineHandler,
  valueTextOf,
} from './lines.js';
import { codePointName } from './show.js';
import type { LintCode, LintSeverity, RobotsLint } from './types.js';
import { hrefHasCredentials, withoutCredentials } from './url.js';

const CANONICAL: Record<string, string> = {
  'user-agent': 'User-agent',
  allow: 'Allow',
  disallow: 'Disallow',
  sitemap: 'Sitemap',
  'crawl-delay': 'Crawl-delay',
  noindex: 'Noindex',
};

/**
 * The directives Google's parser reads: only of these is "Google accepts the line" true. Google
 * ignores crawl-delay, noindex and the other keys however they are spelt.
 */
const GOOGLE_READS: ReadonlySet<DirectiveKey> = new Set(['user-agent', 'allow', 'disallow', 'sitemap']);

/** Shortens a value quoted in a message. */
function quote(value: string): string {
  // JSON escapes C0 controls; the characters a reader cannot see or that reorder the text
  // (DEL, C1 controls, a soft hyphen, zero-width and bidirectional marks, a BOM) are escaped too.
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value).replace(
    /[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The scheme and host of an absolute URL written as a pattern (`https://example.com`). */
const URL_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** The path of an absolute URL written as a pattern, `/` when it has none: what was likely meant. */
function pathOfUrl(value: string): string {
  const rest = value.replace(URL_ORIGIN, '');
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Why a pattern that starts with neither `/` nor `*` matches nothing, and what was likely meant:
 * the value after a second colon (`Disallow:: /x` means `/x`), else the value rooted, with any
 * `\` as `/` (`\docs\` is a Windows path: the URL's segments are separated by `/`).
 */
function notRootedMessage(value: string): string {
  const afterColon = value.startsWith(':') ? value.slice(1).trim() : undefined;
  const backslash = value.includes('\\');
  const written = (afterColon ?? value).replaceAll('\\', '/');
  const meant =
    written.startsWith('/') || (afterColon !== undefined && written.startsWith('*'))
      ? written
      : `/${written}`;
  const why =
    (afterColon === undefined ? '' : ' The line has a second colon.') +
    (backslash ? ' A URL separates its parts with "/", never a backslash.' : '');
  return `The pattern ${quote(value)} does not start with "/" or "*", so it matches no URL.${why} Did you mean ${quote(meant)}?`;
}

/** Whether a line of `key` belongs to the open group: a rule or crawl-delay, or a user-agent joining its list. */
function isGroupLine(key: DirectiveKey, sawRule: boolean): boolean {
  return key === 'allow' || key === 'disallow' || key === 'crawl-delay' || (key === 'user-agent' && !sawRule);
}

/** Messages without anything from the file in them. */
const FIXED = {
  crawlDelay:
    'Crawl-delay is not part of RFC 9309: Bing honours it; Googlebot ignores it, and Yandex has ignored it since 2018.',
  noindex:
    'Noindex in robots.txt has not been supported by Google since 2019; use a noindex meta tag or X-Robots-Tag header.',
  html: 'This is an HTML page, not a robots.txt: no rules are read from it. Serve a text/plain robots.txt, or a 404 if you have none.',
  invalidUtf8:
    'The file is not valid UTF-8 (RFC 9309 2.3 asks for UTF-8); invalid bytes were read as U+FFFD.',
  empty:
    'The file has no lines for crawlers (it is empty, or holds only comments and blank lines): every crawler may fetch every URL. Serve a 404 if that is what you mean, or add your rules.',
};
const FIXED_MESSAGES: ReadonlySet<string> = new Set(Object.values(FIXED));

/**
 * At most this many findings are listed per file: those of the pass first, then the repeated
 * rules in what is left. Findings about the whole file (ALWAYS_LISTED) come on top.
 */
const MAX_LINTS = 200;

/** Findings about the whole file, listed whatever the cap, and the note about the cap itself. */
const ALWAYS_LISTED: ReadonlySet<LintCode> = new Set([
  'looks-like-html',
  'file-too-large',
  'invalid-utf8',
  'too-many-findings',
]);

export class RobotsLinter implements RobotsLineHandler {
  readonly lints: RobotsLint[] = [];
  /** The lines of `sitemap` values that a URL parser must read, in file order (see sitemapLints). */
  readonly sitemapLines: number[] = [];
  /** Whether crawl-delay-extension was reported: once per file. */
  private toldCrawlDelay = false;
  private sawAgent = false;
  private sawRule = true;
  /** A line that was neither a rule nor a user-agent since the group's last user-agent line. */
  private interruptedAt = 0;
  private groupStart = 0;
  /** The first blank line inside the group since its last group line, 0 for none (see blankLine). */
  private blankAt = 0;
  private blankEmpty = false;
  /** Set once the group has its blank-line finding. */
  private blankReported = false;

  /** Findings past MAX_LINTS, counted but not listed. */
  private dropped = 0;
  /** Errors listed past MAX_LINTS (see add). */
  private errorsPastCap = 0;
  /** Set once a line reads as a directive, known or not. */
  private sawDirective = false;
  /** The length in octets, as read, of the last line over the length cap. */
  private lastLongOctets = 0;

  /** How many findings of the pass are not listed (see allLints). */
  get unlisted(): number {
    return this.dropped;
  }

  /**
   * Whether the next finding of `severity` is listed; one that is not is counted here, and its
   * message is never built (a file of 500 KiB may have a finding on each of 40,000 lines). An
   * error past the cap is listed still, up to MAX_LINTS more: a page of warnings must not hide
   * the one rule that matches nothing.
   */
  private listed(severity: LintSeverity): boolean {
    if (this.lints.length < MAX_LINTS || (severity === 'error' && this.errorsPastCap++ < MAX_LINTS))
      return true;
    this.dropped++;
    return false;
  }

  /** Lists a finding that {@link listed} let through. */
  private add(code: LintCode, severity: LintSeverity, line: number, message: string): void {
    this.lints.push({ code, severity, line, message });
  }

  directive(d: Directive): void {
    this.sawDirective = true;
    if (d.blankLine !== 0 && this.sawAgent && this.blankAt === 0 && !this.blankReported) {
      this.blankAt = d.blankLine;
      this.blankEmpty = d.blankLineEmpty;
    }
    if (this.blankAt > 0 && isGroupLine(d.key, this.sawRule)) this.blankLine(d);
    if (d.typo && this.listed('warning')) {
      this.add(
        'accepted-typo',
        'warning',
        d.line,
        `${quote(keyTextOf(d))} is a misspelling of "${CANONICAL[d.key]}". ${GOOGLE_READS.has(d.key) ? 'Google accepts it; other crawlers' : 'Crawlers'} may ignore the line.`,
      );
    }
    // A line split at a colon of its value: the missing-colon finding says how it is read,
    // and the findings about the value read would only mislead (`Did you mean "/b"?`). Two
    // words that name no directive (`Hello world`) miss no colon: unknown-directive says so.
    const split = d.missingColon && d.key !== 'unknown' && this.missingColon(d);
    switch (d.key) {
      case 'user-agent':
        this.userAgent(d);
        return;
      case 'allow':
      case 'disallow':
        this.rule(d, split);
        return;
      case 'crawl-delay':
        if (!this.sawAgent) this.beforeAgent(d);
        else this.crawlDelay(d);
        this.interrupt(d.line);
        return;
      case 'sitemap':
        if (!split) this.sitemap(d);
        this.interrupt(d.line);
        return;
      case 'noindex':
        if (this.listed('warning')) this.add('noindex-unsupported', 'warning', d.line, FIXED.noindex);
        this.interrupt(d.line);
        return;
      case 'unsupported':
        this.interrupt(d.line);
        if (!this.listed('info')) return;
        this.add(
          'unsupported-directive',
          'info',
          d.line,
          `${quote(keyTextOf(d))} is understood only by some crawlers; RFC 9309 crawlers ignore it.`,
        );
        return;
      default:
        this.interrupt(d.line);
        if (!this.listed('warning')) return;
        this.add(
          'unknown-directive',
          'warning',
          d.line,
          `${quote(keyTextOf(d))} is not a robots.txt directive; crawlers ignore this line.`,
        );
    }
  }

  /**
   * Reports the missing colon of `d`; true when the line has a colon after all, in its value,
   * and was split there (`Disallow /a:b` is read as `Disallow: b`, as Google reads it).
   */
  private missingColon(d: Directive): boolean {
    // The colon, if any, lies between the key and the value read.
    let colon = d.keyEnd;
    while (colon < d.valueStart && d.source.charCodeAt(colon) !== 58 /* : */) colon++;
    const split = colon < d.valueStart;
    if (!this.listed('warning')) return split;
    const key = keyTextOf(d);
    const google = GOOGLE_READS.has(d.key);
    if (!split) {
      this.add(
        'missing-colon',
        'warning',
        d.line,
        `The colon after "${key}" is missing. ${google ? `Google reads the line as ${quote(`${CANONICAL[d.key]}: ${valueTextOf(d)}`)}; other crawlers` : 'Crawlers'} may ignore it.`,
      );
      return false;
    }
    const meant = `${CANONICAL[d.key] ?? key}: ${d.source.slice(d.keyEnd, d.valueEnd).trim()}`;
    this.add(
      'missing-colon',
      'warning',
      d.line,
      `The colon after "${key}" is missing, so the line is split at the next colon instead: ${google ? 'Google reads it' : 'it is read'} as ${quote(`${key}: ${valueTextOf(d)}`)}, ${google ? 'other crawlers' : 'crawlers'} may ignore it. Write ${quote(meant)}.`,
    );
    return true;
  }

  private crawlDelay(d: Directive): void {
    const value = valueTextOf(d);
    if (!CRAWL_DELAY_VALUE.test(value)) {
      if (!this.listed('warning')) return;
      this.add(
        'invalid-crawl-delay',
        'warning',
        d.line,
        `Crawl-delay ${quote(value)} is not a number of seconds; it is ignored.`,
      );
    } else if (Math.round(Number(value) * 1000) > MAX_CRAWL_DELAY_MS) {
      // The same rounding as the table's, so the finding and crawlDelay() agree.
      if (!this.listed('warning')) return;
      this.add(
        'invalid-crawl-delay',
        'warning',
        d.line,
        `Crawl-delay ${quote(value)} is longer than any crawler waits between requests; ${MAX_CRAWL_DELAY_MS / 1000} seconds (almost 25 days) is used instead.`,
      );
    } else if (!this.toldCrawlDelay) {
      // Said once, of the first line: it is about the directive, not about one value.
      this.toldCrawlDelay = true;
      if (this.listed('info')) this.add('crawl-delay-extension', 'info', d.line, FIXED.crawlDelay);
    }
  }

  /**
   * A value written as `URL.href` writes it is an absolute URL, with no user name: nothing to
   * say. The others wait for `lints` (see sitemapLints), where a URL parser reads them.
   */
  private sitemap(d: Directive): void {
    if (!isNormalHttpUrl(valueTextOf(d))) this.sitemapLines.push(d.line);
  }

  private userAgent(d: Directive): void {
    // Read in place: a file may have tens of thousands of user-agent lines.
    const first = d.valueEnd > d.valueStart ? d.source.charCodeAt(d.valueStart) : -1;
    if (first === 42 /* * */) {
      // `*` alone (or `* anything`, Google's star group) is the star; `*bot` names nothing.
      if (d.valueEnd - d.valueStart > 1 && tokenOfUserAgentLine(valueTextOf(d)) === '') this.starPattern(d);
    } else if (!isTokenChar(first) && this.listed('warning')) {
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
      this.blankAt = 0;
      this.blankReported = false;
    } else if (this.interruptedAt > 0 && this.listed('warning')) {
      this.add(
        'user-agent-joins-group',
        'warning',
        d.line,
        `This user-agent joins the group that starts on line ${this.groupStart}, because only allow/disallow lines end a list of user-agents (line ${this.interruptedAt} does not): it and the user-agents above it, from that line on, are one group and all follow the same rules. Give the earlier group its rules first if it was meant to be separate.`,
      );
    }
    this.sawAgent = true;
    this.interruptedAt = 0;
  }

  /** A user-agent value that starts with `*` but is not the star: `*bot`, `*Googlebot`. */
  private starPattern(d: Directive): void {
    if (!this.listed('warning')) return;
    const value = valueTextOf(d);
    // A no-break space pasted from a web page, most likely: a blank to the eye, not to parsers.
    if (/^\*\s/.test(value)) {
      this.add(
        'empty-user-agent',
        'warning',
        d.line,
        `User-agent ${quote(value)} names no crawler, so its rules apply to none: the "*" is followed by ${codePointName(value.charCodeAt(1))}, a space that is not a blank to parsers. Put a plain space or a tab there.`,
      );
      return;
    }
    const name = /[A-Za-z_-]+/.exec(value);
    const instead = name === null ? '' : `, or the crawler's name (${quote(name[0])})`;
    this.add(
      'empty-user-agent',
      'warning',
      d.line,
      `User-agent ${quote(valueTextOf(d))} names no crawler, so its rules apply to none: "*" is not a wildcard inside a name. Write "*" alone for every crawler${instead}.`,
    );
  }

  private rule(d: Directive, split: boolean): void {
    if (!this.sawAgent) {
      this.beforeAgent(d);
      return;
    }
    this.sawRule = true;
    this.interruptedAt = 0;
    // Almost every pattern starts with `/`: only the others need a closer look.
    const first = d.source.charCodeAt(d.valueStart);
    if (first !== 47 /* / */ && first !== 42 /* * */ && d.valueEnd > d.valueStart && !split) {
      const value = valueTextOf(d);
      if (URL_ORIGIN.test(value)) {
        if (!this.listed('error')) return;
        this.add(
          'absolute-url-pattern',
          'error',
          d.line,
          `${CANONICAL[d.key]} takes a path, not a URL: ${quote(value)} matches nothing. If the URL is on this site, write its path, ${quote(pathOfUrl(value))}; a robots.txt governs only the host that serves it, so a URL of another host needs a line in that host's robots.txt.`,
        );
      } else {
        if (this.listed('warning'))
          this.add('pattern-not-rooted', 'warning', d.line, notRootedMessage(value));
      }
    }
  }

  private beforeAgent(d: Directive): void {
    if (!this.listed('warning')) return;
    this.add(
      'rule-before-user-agent',
      'warning',
      d.line,
      `${CANONICAL[d.key]} before any User-agent line belongs to no group and is ignored.`,
    );
  }

  /**
   * A blank line inside a group, found before `d`, a line of the same group. RFC 9309 and
   * Google read on; the 1994 convention ended a record at a blank line, and parsers that keep
   * it (Python's urllib.robotparser, at an empty line) drop the group's user-agents or ignore
   * its rules after the blank.
   */
  private blankLine(d: Directive): void {
    const blank = this.blankAt;
    this.blankAt = 0;
    this.blankReported = true;
    if (!this.listed('warning')) return;
    const consequence =
      d.key === 'user-agent'
        ? 'so give the user-agent lines above it no rules'
        : 'so ignore the lines after it';
    const python = this.blankEmpty ? " (Python's urllib.robotparser among them)" : '';
    this.add(
      'blank-line-in-group',
      'warning',
      blank,
      `Line ${blank} is blank, inside the group that starts on line ${this.groupStart}. RFC 9309 crawlers and Google read the group on past it, but some parsers end a group at a blank line, as the original 1994 convention did${python}, and ${consequence}. Remove the blank line, or write a "#" comment there.`,
    );
  }

  private interrupt(line: number): void {
    if (this.sawAgent && !this.sawRule && this.interruptedAt === 0) this.interruptedAt = line;
  }

  unparsable(line: number, text: string): void {
    // Between two user-agent lines it keeps them one group, as any line but a rule does.
    this.interrupt(line);
    if (!this.listed('warning')) return;
    this.add(
      'unparsable-line',
      'warning',
      line,
      `${quote(text)} is not a "key: value" line; crawlers ignore it.`,
    );
  }

  lineTooLong(line: number, octets: number): void {
    this.lastLongOctets = octets;
    if (this.listed('warning')) this.add('line-too-long', 'warning', line, lineTooLongMessage(octets, false));
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
    // A file cut at the size limit may have its directives past the cut: file-too-large says so.
    const whole = !summary.looksLikeHtml && summary.truncatedAtLine === undefined;
    if (whole && !this.sawDirective && this.lints.length === 0 && this.dropped === 0) {
      file.push({ code: 'empty-file', severity: 'info', line: 1, message: FIXED.empty });
    }
    if (summary.lastLineCut === true) {
      // The file was cut inside its last line, the last one measured when it is too long: it is
      // longer than what was read of it.
      const lint = this.lints.find((l) => l.code === 'line-too-long' && l.line === summary.lines);
      if (lint !== undefined) lint.message = lineTooLongMessage(this.lastLongOctets, true);
    }
    if (summary.invalidUtf8Line !== undefined) {
      file.push({
        code: 'invalid-utf8',
        severity: 'warning',
        line: summary.invalidUtf8Line,
        message: FIXED.invalidUtf8,
      });
    }
    // Most files have a finding or none, all with fixed messages: nothing to sort or copy.
    if (this.lints.length === 0 && file.length === 0) return;
    for (const lint of file) this.lints.push(lint);
    if (this.lints.length > 1) this.lints.sort((a, b) => a.line - b.line);
    if (this.dropped > 0) this.lints.push(notListed(this.lints, this.dropped));
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
 * Every finding of a file: those of the pass (`lineLints`, of which `unlisted` more were only
 * counted), and those found from the compiled file when the findings are first read, so parsing
 * does not pay for them: the sitemap values a URL parser reads (at `sitemapLines`, see
 * RobotsLinter.sitemapLines), the repeated or conflicting rules, and the rest. All share one
 * MAX_LINTS budget, in that order, and one note on what is not listed.
 */
export function allLints(
  lineLints: readonly RobotsLint[],
  unlisted: number,
  data: RobotsData,
  sitemapLines: readonly number[],
): readonly RobotsLint[] {
  let listed = 0;
  for (const lint of lineLints) if (!ALWAYS_LISTED.has(lint.code)) listed++;
  const sitemaps = sitemapLints(data, sitemapLines, Math.max(0, MAX_LINTS - listed));
  const room = Math.max(0, MAX_LINTS - listed - sitemaps.lints.length);
  const repeated = repeatedRuleLints(data, room);
  const merged = mergedGroupLints(data, room - repeated.lints.length);
  const written = writtenValueLints(data, room - repeated.lints.length - merged.lints.length);
  const replaced = starReplacedLints(
    data,
    room - repeated.lints.length - merged.lints.length - written.lints.length,
  );
  const found = sitemaps.lints.concat(repeated.lints, merged.lints, written.lints, replaced.lints);
  const foundUnlisted =
    sitemaps.unlisted + repeated.unlisted + merged.unlisted + written.unlisted + replaced.unlisted;
  if (found.length === 0 && foundUnlisted === 0) return lineLints;
  const lints = lineLints.filter((lint) => lint.code !== 'too-many-findings').concat(found);
  lints.sort((a, b) => a.line - b.line);
  const total = unlisted + foundUnlisted;
  if (total > 0) lints.push(notListed(lints, total));
  return lints;
}

/**
 * Rules that repeat or contradict another rule of the same group, or of an earlier group the
 * same crawler's group merges with (RFC 9309 2.2.1: for that crawler they are one group). Each
 * rule is told once; the first `room` listed, the rest counted.
 */
function repeatedRuleLints(data: RobotsData, room: number): { lints: RobotsLint[]; unlisted: number } {
  const lints: RobotsLint[] = [];
  let unlisted = 0;
  const told = new Set<number>();
  const report = (id: number, previous: number, crawler: string | undefined): void => {
    told.add(id);
    if (lints.length >= room) {
      unlisted++;
      return;
    }
    lints.push(repeatedRule(data, id, previous, crawler));
  };
  for (let g = 0; g < count(data, GROUP_COUNT); g++) {
    const seen = new Map<string, number>();
    const first = groupField(data, g, FIRST_RULE);
    for (let id = first; id < first + groupField(data, g, RULE_COUNT); id++) {
      if (ruleFlags(data, id) & (DERIVED | EMPTY)) continue;
      const pattern = rulePattern(data, id);
      const previous = seen.get(pattern);
      if (previous === undefined) seen.set(pattern, id);
      else report(id, previous, undefined);
    }
  }
  for (let m = 0; m < count(data, MERGED_COUNT); m++) {
    const from = mergedField(data, m, MEMBERS_FROM);
    const to = mergedField(data, m, MEMBERS_TO);
    if (to - from < 2) continue;
    // The first rule of each pattern in the member groups before this one.
    const seen = new Map<string, number>();
    for (let k = from; k < to; k++) {
      const g = data.ints[k];
      const first = groupField(data, g, FIRST_RULE);
      // This group's patterns, seen by the groups after it.
      const fresh = new Map<string, number>();
      for (let id = first; id < first + groupField(data, g, RULE_COUNT); id++) {
        if (ruleFlags(data, id) & (DERIVED | EMPTY)) continue;
        const pattern = rulePattern(data, id);
        const previous = seen.get(pattern);
        if (previous === undefined) {
          if (!fresh.has(pattern)) fresh.set(pattern, id);
        } else if (!told.has(id)) report(id, previous, mergedToken(data, m));
      }
      for (const [pattern, id] of fresh) seen.set(pattern, id);
    }
  }
  return { lints, unlisted };
}

/**
 * The finding for rule `id`, whose pattern rule `previous` names before it: in the same group,
 * or (`crawler`, a token) in an earlier group that one merges with.
 */
function repeatedRule(
  data: RobotsData,
  id: number,
  previous: number,
  crawler: string | undefined,
): RobotsLint {
  const line = ruleLine(data, id);
  const before = ruleLine(data, previous);
  const same = (ruleFlags(data, previous) & ALLOW) === (ruleFlags(data, id) & ALLOW);
  if (crawler === undefined) {
    return same
      ? { code: 'duplicate-rule', severity: 'info', line, message: `This rule repeats line ${before}.` }
      : {
          code: 'conflicting-rules',
          severity: 'warning',
          line,
          message: `Allow and Disallow name the same pattern here and on line ${before}; Allow wins (RFC 9309 2.2.2).`,
        };
  }
  const whom = crawler === '*' ? 'For every crawler ("*")' : `For ${quote(crawler)}`;
  return same
    ? {
        code: 'duplicate-rule',
        severity: 'info',
        line,
        message: `${whom}, this rule repeats line ${before}, in a group this one merges with (RFC 9309 2.2.1).`,
      }
    : {
        code: 'conflicting-rules',
        severity: 'warning',
        line,
        message: `${whom}, Allow and Disallow name the same pattern here and on line ${before}, in a group this one merges with (RFC 9309 2.2.1); Allow wins (RFC 9309 2.2.2).`,
      };
}

/**
 * Groups that name the same crawler, which RFC 9309 2.2.1 makes one group: a finding on the
 * user-agent line of each later group, pointing at the first. Site owners often write a second
 * group for a crawler without knowing that its rules are weighed against the first's. One pass
 * over the user-agent lines; the first `room` listed, the rest counted.
 */
function mergedGroupLints(data: RobotsData, room: number): { lints: RobotsLint[]; unlisted: number } {
  const lints: RobotsLint[] = [];
  let unlisted = 0;
  const merged = count(data, MERGED_COUNT);
  if (merged === 0) return { lints, unlisted };
  // By merged group: the first group naming it, that group's line naming it, and the last group
  // reported for it.
  const firstGroup = zeroedInts(merged).fill(-1);
  const firstLine = zeroedInts(merged);
  const reported = zeroedInts(merged).fill(-1);
  for (let g = 0; g < count(data, GROUP_COUNT); g++) {
    const from = groupField(data, g, FIRST_AGENT);
    for (let a = from; a < from + groupField(data, g, AGENT_COUNT); a++) {
      const m = agentField(data, a, AGENT_MERGED);
      if (m < 0) continue;
      if (firstGroup[m] < 0) {
        firstGroup[m] = g;
        firstLine[m] = agentField(data, a, AGENT_LINE);
        continue;
      }
      if (firstGroup[m] === g || reported[m] === g) continue;
      reported[m] = g;
      if (lints.length >= room) {
        unlisted++;
        continue;
      }
      const token = mergedToken(data, m);
      const whose =
        token === '*'
          ? 'is for every crawler ("*"): the two are'
          : `names ${quote(token)}: for that crawler the two are`;
      lints.push({
        code: 'groups-merge',
        severity: 'info',
        line: agentField(data, a, AGENT_LINE),
        message: `This group, like the one at line ${firstLine[m]}, ${whose} one group (RFC 9309 2.2.1), and the rules of each are weighed against the other's.`,
      });
    }
  }
  return { lints, unlisted };
}

/** Patterns that allow every URL when alone in a group: a group of them means "fetch everything". */
const ALLOWS_EVERYTHING: ReadonlySet<string> = new Set(['/', '*', '/*']);

/**
 * Crawlers whose group holds Allow rules and nothing else, in a file whose `*` group disallows:
 * the crawler's group replaces `*` for it (RFC 9309 2.2.1), so those Allow lines are no exceptions
 * to the `*` rules (as site owners often mean them: `User-agent: Googlebot` / `Allow: *.css`) and
 * the crawler may fetch everything. A group that allows everything on purpose (`Allow: /`) is fine.
 */
function starReplacedLints(data: RobotsData, room: number): { lints: RobotsLint[]; unlisted: number } {
  const lints: RobotsLint[] = [];
  let unlisted = 0;
  const merged = count(data, MERGED_COUNT);
  /** The lines of the rules of merged group m, with whether any disallows and any allows everything. */
  const rulesOf = (m: number) => {
    let allows = 0;
    let disallowLine = 0;
    let allowsEverything = false;
    for (let k = mergedField(data, m, MEMBERS_FROM); k < mergedField(data, m, MEMBERS_TO); k++) {
      const g = data.ints[k];
      const first = groupField(data, g, FIRST_RULE);
      for (let id = first; id < first + groupField(data, g, RULE_COUNT); id++) {
        const flags = ruleFlags(data, id);
        if (flags & DERIVED) continue;
        if (!(flags & ALLOW)) {
          // An empty Disallow allows everything too.
          if (flags & EMPTY) allowsEverything = true;
          else disallowLine ||= ruleLine(data, id);
        } else if (!(flags & EMPTY)) {
          allows++;
          if (ALLOWS_EVERYTHING.has(rulePattern(data, id))) allowsEverything = true;
        }
      }
    }
    return { allows, disallowLine, allowsEverything };
  };
  let star = -1;
  for (let m = 0; m < merged; m++) if (mergedToken(data, m) === '*') star = m;
  const starDisallows = star < 0 ? 0 : rulesOf(star).disallowLine;
  if (starDisallows === 0) return { lints, unlisted };
  for (let g = 0; g < count(data, GROUP_COUNT); g++) {
    const from = groupField(data, g, FIRST_AGENT);
    for (let a = from; a < from + groupField(data, g, AGENT_COUNT); a++) {
      const m = agentField(data, a, AGENT_MERGED);
      // Told once per crawler, at the first line naming it.
      if (m < 0 || m === star || data.ints[mergedField(data, m, MEMBERS_FROM)] !== g) continue;
      const own = rulesOf(m);
      if (own.allows === 0 || own.disallowLine !== 0 || own.allowsEverything) continue;
      if (lints.length >= room) {
        unlisted++;
        continue;
      }
      const token = mergedToken(data, m);
      lints.push({
        code: 'star-rules-replaced',
        severity: 'warning',
        line: agentField(data, a, AGENT_LINE),
        message: `The group for ${quote(token)} has only Allow rules. A crawler's own group replaces the "*" group for it (RFC 9309 2.2.1), so none of the "*" rules apply to ${quote(token)} (the first Disallow is on line ${starDisallows}) and it may fetch every URL. If the Allow lines are meant as exceptions to the "*" rules, repeat those rules in this group.`,
      });
    }
  }
  return { lints, unlisted };
}

/**
 * Values that read differently from how they look, found from the values as written: a
 * user-agent with more words after its name (`Googlebot Images` names `googlebot`), and a
 * pattern with a blank in it (`/a /b`, which matches only `/a%20/b`). The first `room` listed.
 */
function writtenValueLints(data: RobotsData, room: number): { lints: RobotsLint[]; unlisted: number } {
  const lints: RobotsLint[] = [];
  let unlisted = 0;
  const report = (lint: () => RobotsLint): void => {
    if (lints.length < room) lints.push(lint());
    else unlisted++;
  };
  for (let g = 0; g < count(data, GROUP_COUNT); g++) {
    const from = groupField(data, g, FIRST_AGENT);
    for (let a = from; a < from + groupField(data, g, AGENT_COUNT); a++) {
      const value = agentValue(data, a);
      const line = agentField(data, a, AGENT_LINE);
      if (tokenOfUserAgentLine(value) === '*') {
        // `* Googlebot` is the star group, as Google reads it: every crawler, not Googlebot.
        if (/[A-Za-z]/.test(value)) report(() => starCut(value, line));
        continue;
      }
      let end = 0;
      while (end < value.length && isTokenChar(value.charCodeAt(end))) end++;
      if (end === 0 || !namesMore(value.slice(end))) continue;
      report(() => userAgentCut(value, value.slice(0, end), line));
    }
  }
  for (const [id, pattern] of writtenPatterns(data)) {
    if (ruleFlags(data, id) & DERIVED || !/\s/.test(pattern)) continue;
    report(() => ({
      code: 'blank-in-pattern',
      severity: 'warning',
      line: ruleLine(data, id),
      message: `The pattern ${quote(pattern)} holds a blank, which no URL holds as it is: it matches only URLs with ${quote(rulePattern(data, id))}. Write one rule per line for two paths, and a space in a path as %20.`,
    }));
  }
  return { lints, unlisted };
}

/**
 * The findings about the sitemap values at `lines` (in file order, each the line of one of the
 * file's sitemap values): one that is not an absolute http(s) URL, and one written with a user
 * name or password.
 */
function sitemapLints(
  data: RobotsData,
  lines: readonly number[],
  room: number,
): { lints: RobotsLint[]; unlisted: number } {
  const lints: RobotsLint[] = [];
  let unlisted = 0;
  let next = 0;
  for (let s = 0; s < count(data, SITEMAP_COUNT) && next < lines.length; s++) {
    const line = sitemapLine(data, s);
    if (line !== lines[next]) continue;
    next++;
    const value = sitemapValue(data, s);
    const url = sitemapUrl(value);
    if (url !== undefined && !hrefHasCredentials(url)) continue;
    if (lints.length === room) {
      unlisted++;
      continue;
    }
    lints.push(url === undefined ? notAbsoluteSitemap(value, line) : sitemapWithCredentials(url, line));
  }
  return { lints, unlisted };
}

function sitemapWithCredentials(url: string, line: number): RobotsLint {
  return {
    code: 'sitemap-credentials',
    severity: 'warning',
    line,
    message: `Sitemap ${quote(withoutCredentials(url))} is written with a user name or password; robots.txt is public, so anyone can read them. crawlee-robots does not read a sitemap whose URL holds credentials: serve it without them.`,
  };
}

function notAbsoluteSitemap(value: string, line: number): RobotsLint {
  return {
    code: 'sitemap-not-absolute',
    severity: 'warning',
    line,
    message: /^https?:\/\/\S*\s/i.test(value)
      ? `Sitemap ${quote(value)} holds a blank, which a URL never does; crawlers cannot use it. Write a space in a URL as %20, and put a comment after "#".`
      : /^https?:\/\/[/\\]/i.test(value)
        ? `Sitemap ${quote(value)} names no host after "//"; crawlers cannot use it (URL parsers would read its first path segment as the host).`
        : `Sitemap ${quote(value)} is not an absolute http(s) URL; crawlers cannot use it.`,
  };
}

/**
 * Whether what follows a user-agent's name holds another word: a version (`Googlebot/2.1`) and a
 * URL (`(+http://www.google.com/bot.html)`, pasted with the header) name no other crawler.
 */
function namesMore(rest: string): boolean {
  return /[A-Za-z]/.test(rest.replace(/\+?https?:\/\/[^\s)]*|\/[^\s();]*/gi, ''));
}

function starCut(value: string, line: number): RobotsLint {
  const name = /[A-Za-z_-]+/.exec(value)![0];
  return {
    code: 'user-agent-cut',
    severity: 'warning',
    line,
    message: `User-agent ${quote(value)} is read as "*": what follows the star is ignored, so these rules are for every crawler. If they are meant for ${name} alone, write its name alone.`,
  };
}

function userAgentCut(value: string, name: string, line: number): RobotsLint {
  if (/^[0-9]/.test(value.slice(name.length))) {
    // `MJ12bot`: the crawler's own User-Agent reads as the same name, so the rules do reach it.
    // Nothing to fix for the crawler named, hence only an info.
    return {
      code: 'user-agent-cut',
      severity: 'info',
      line,
      message: `User-agent ${quote(value)} is read as ${quote(name)}: a crawler's name is made of letters, "-" and "_", and a digit ends it. The crawler's own User-Agent is read the same way, so these rules reach it, and every other crawler whose name is ${quote(name)} followed by anything but a letter, "-" or "_".`,
    };
  }
  const google =
    name.toLowerCase() === 'googlebot'
      ? ' ("Googlebot-Image" for Google\'s images, "Googlebot-News" for its news)'
      : '';
  return {
    code: 'user-agent-cut',
    severity: 'warning',
    line,
    message: `User-agent ${quote(value)} is read as ${quote(name)}: a crawler's name is made of letters, "-" and "_", and what follows it is ignored, so these rules are for ${name}. If they are meant for another crawler, write that crawler's name alone${google}.`,
  };
}

/** The finding that says how many findings past MAX_LINTS are not listed, on the last line of `listed`. */
function notListed(listed: readonly RobotsLint[], unlisted: number): RobotsLint {
  const last = listed.length === 0 ? 1 : listed[listed.length - 1].line;
  return {
    code: 'too-many-findings',
    severity: 'info',
    line: last,
    message: `${unlisted} more findings are not listed (at most ${MAX_LINTS} are, and errors past them).`,
  };
}

/** The finding about a line of `octets` octets, or of more (`atLeast`) when the file was cut inside it. */
function lineTooLongMessage(octets: number, atLeast: boolean): string {
  return atLeast
    ? `The line is longer than the ${octets} bytes read of it (the file was cut there); only its first ${MAX_LINE_OCTETS} bytes are read.`
    : `The line is ${octets} bytes long; only its first ${MAX_LINE_OCTETS} bytes are read.`;
}
