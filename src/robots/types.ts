/**
 * Public types of the RFC 9309 core. Everything here is plain data: a verdict or a lint
 * can be logged, stored in a Dataset or sent over the wire as JSON.
 */

/** Options of {@link RobotsTxt.parse}. */
export interface RobotsParseOptions {
  /**
   * How many octets of the file are read. RFC 9309 2.5 asks for at least 500 KiB; the
   * rest is ignored from the first line end past this limit.
   * @default 512000
   */
  maxBytes?: number;
  /**
   * A body that looks like an HTML page (a `<!DOCTYPE html>` or `<html>` start) yields no
   * rules, only the `looks-like-html` lint: it is a soft 404 page, not a robots.txt.
   * @default true
   */
  rejectHtml?: boolean;
}

/** `allow` or `disallow`, the two rule kinds of RFC 9309 2.2.2. */
export type RuleKind = 'allow' | 'disallow';

/** One `allow` or `disallow` line of a group, as written in the file. */
export interface RobotsRule {
  kind: RuleKind;
  /** The pattern as written (after the colon, comment and surrounding blanks removed). */
  pattern: string;
  /** The pattern after percent-encoding normalisation, as it is matched. */
  normalizedPattern: string;
  /** 1-based line number in the file. */
  line: number;
  /**
   * Set on rules the parser adds itself: `index-html` for the `/dir/$` allow rule that
   * Google derives from `Allow: /dir/index.html`.
   */
  derived?: 'index-html';
}

/** A `user-agent` line of a group. */
export interface RobotsUserAgentLine {
  /** The value as written, e.g. `Googlebot/2.1 (the search one)`. */
  value: string;
  /** The product token read from it (its leading `[A-Za-z_-]` run), or `*`. Lower case. */
  token: string;
  line: number;
}

/** One group exactly as it stands in the file (groups naming the same agent are not merged here). */
export interface RobotsGroup {
  userAgents: readonly RobotsUserAgentLine[];
  /** First and last line of the group (its first user-agent line to its last line before the next group). */
  startLine: number;
  endLine: number;
  rules: readonly RobotsRule[];
  /** The group's `crawl-delay` in seconds, if it has a valid one. */
  crawlDelay?: number;
}

/** How the group that applies to a crawler was chosen. */
export type GroupChoiceKind =
  /** The file has a group naming the crawler's own product token. */
  | 'token'
  /** No group of its own; a documented fallback (Googlebot-Image follows Googlebot, ...). */
  | 'fallback'
  /** No group of its own and no fallback group: the `*` group. */
  | 'star'
  /** No group applies: everything is allowed. */
  | 'none';

/** The group a verdict used. Merged groups (the same token named in several places) have several spans. */
export interface GroupChoice {
  how: GroupChoiceKind;
  /** The token of the group used (lower case; `*` for the star group), null when `how` is `none`. */
  token: string | null;
  /** For `fallback`: the crawler's own token that had no group (e.g. `googlebot-image`). */
  fallbackFrom?: string;
  /** Line numbers of the `user-agent` lines that name this group's token. */
  userAgentLines: readonly number[];
  /** The line ranges of every group merged into this one, in file order. */
  spans: readonly { startLine: number; endLine: number }[];
}

/** A rule that matched the path, with the length that ranks it. */
export interface MatchedRule {
  kind: RuleKind;
  pattern: string;
  normalizedPattern: string;
  line: number;
  /** Length in octets of the normalised pattern: RFC 9309 2.2.2, the longest match wins. */
  length: number;
  derived?: 'index-html';
}

/** Why a verdict came out the way it did. */
export type VerdictReason =
  /** A rule matched; `rule` is the decisive one. */
  | 'matched'
  /** A group applies but none of its rules matched: allowed. */
  | 'no-match'
  /** RFC 9309 2.2.2: `/robots.txt` is implicitly allowed. */
  | 'robots-txt-always-allowed'
  /** No group for the crawler and no `*` group: allowed. */
  | 'no-group';

/** The answer of {@link RobotsTxt.explain}. */
export interface Verdict {
  allowed: boolean;
  reason: VerdictReason;
  /** The product token the verdict was computed for, lower case (read from a full User-Agent if one was given). */
  productToken: string;
  /** The path and query that were matched, after normalisation. */
  path: string;
  /** The decisive rule, or null when none matched. */
  rule: MatchedRule | null;
  group: GroupChoice;
  /** Every rule of the group that matched, best first (the decisive one, when there is one, comes first). */
  candidates: readonly MatchedRule[];
}

/** Lint codes, each a finding a site owner can act on. */
export type LintCode =
  | 'rule-before-user-agent'
  | 'unknown-directive'
  | 'unsupported-directive'
  | 'accepted-typo'
  | 'missing-colon'
  | 'unparsable-line'
  | 'pattern-not-rooted'
  | 'absolute-url-pattern'
  | 'file-too-large'
  | 'line-too-long'
  | 'noindex-unsupported'
  | 'crawl-delay-extension'
  | 'invalid-crawl-delay'
  | 'looks-like-html'
  /** No directive at all: an empty file, or one of comments and blank lines, which allows everything. */
  | 'empty-file'
  | 'user-agent-joins-group'
  | 'empty-user-agent'
  /** A user-agent value with more words after its name (`Googlebot Images` names `googlebot`). */
  | 'user-agent-cut'
  /** A blank line inside a group, where some parsers end the group. */
  | 'blank-line-in-group'
  /** A pattern with a space or tab in it (`/a /b`), matched as `%20`. */
  | 'blank-in-pattern'
  | 'invalid-utf8'
  | 'duplicate-rule'
  | 'conflicting-rules'
  | 'groups-merge'
  /**
   * A crawler's group of Allow rules only, while `*` disallows: the group replaces `*` for that
   * crawler, so the Allow lines are no exceptions and the crawler may fetch everything.
   */
  | 'star-rules-replaced'
  | 'sitemap-not-absolute'
  /** A sitemap URL with a user name or password in it (`https://user:secret@host/`), which robots.txt publishes. */
  | 'sitemap-credentials'
  /** Listing stopped after 200 findings; this one says how many more there were. */
  | 'too-many-findings';

export type LintSeverity = 'error' | 'warning' | 'info';

/** A finding about the file: it never stops parsing (RFC 9309 2.2: use what parses). */
export interface RobotsLint {
  code: LintCode;
  severity: LintSeverity;
  /** 1-based line number the finding is about. */
  line: number;
  /** One sentence a site owner understands. */
  message: string;
}
