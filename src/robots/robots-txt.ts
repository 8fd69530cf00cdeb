import { productTokenOf, tokenOfUserAgentLine } from './agent.js';
import {
  AGENT_COUNT,
  AGENT_LINE,
  agentField,
  agentValue,
  CRAWL_DELAY_MS,
  count,
  END_LINE,
  FIRST_AGENT,
  FIRST_RULE,
  GROUP_COUNT,
  groupField,
  isHtmlPage,
  MEMBERS_FROM,
  MEMBERS_TO,
  mergedField,
  ownInts,
  RobotsCompiler,
  type RobotsData,
  RULE_COUNT,
  SITEMAP_COUNT,
  START_LINE,
  sitemapsOf,
} from './compile.js';
import { prepareGroup, prepareLargeGroups } from './decide.js';
import { type ExplainOptions, explain, groupOf, isAllowed, matchedRule } from './explain.js';
import {
  DEFAULT_MAX_BYTES,
  type Directive,
  type FileSummary,
  type RobotsLineHandler,
  type TokenizeOptions,
  tokenize,
} from './lines.js';
import { allLints, RobotsLinter } from './lint.js';
import { show } from './show.js';
import { retainedBytes } from './size.js';
import type { RobotsGroup, RobotsLint, RobotsParseOptions, RobotsRule, Verdict } from './types.js';

/** The tables of a parsed file, for explainAfterOrigin; set by the class. */
let dataOf: (robots: RobotsTxt) => RobotsData;
/** A parse with options already checked, for parse and parseCutBody; set by the class. */
let build: (body: string | Uint8Array, options: TokenizeOptions) => RobotsTxt;

/**
 * A parsed robots.txt (RFC 9309). Parse once, then ask about any number of URLs: the
 * object is immutable and can be shared between crawlers.
 *
 * ```ts
 * import { RobotsTxt } from 'crawlee-robots';
 *
 * const robots = RobotsTxt.parse('User-agent: *\nDisallow: /private/\nAllow: /private/press/\n');
 * robots.isAllowed('https://example.com/private/press/kit.pdf', 'ExampleBot'); // true
 * robots.explain('/private/x', 'Mozilla/5.0 (compatible; ExampleBot/1.0)').rule; // { kind: 'disallow', line: 2, ... }
 * ```
 */
export class RobotsTxt {
  readonly #data: RobotsData;

  static {
    dataOf = (robots) => robots.#data;
    build = (body, options) => {
      const compiler = new RobotsCompiler();
      const linter = new RobotsLinter();
      tokenize(body, options, new Both(compiler, linter));
      const data = compiler.finish();
      prepareLargeGroups(data);
      // A copy holds exactly its findings: the list grown by push has room for more.
      return new RobotsTxt(
        data,
        linter.lints.length === 0 ? NO_LINTS : linter.lints.slice(),
        linter.unlisted,
        linter.sitemapLines.length === 0 ? NO_LINES : linter.sitemapLines.slice(),
      );
    };
  }
  /** Findings of the parse; `lints` adds the ones found from the compiled rules. */
  readonly #lineLints: readonly RobotsLint[];
  /** How many findings of the parse were past the cap: counted, not listed. */
  readonly #unlisted: number;
  /** The lines of the sitemap values that `lints` reads (see RobotsLinter.sitemapLines). */
  readonly #sitemapLines: readonly number[];
  #lints: readonly RobotsLint[] | undefined;
  #sitemaps: readonly string[] | undefined;

  private constructor(
    data: RobotsData,
    lints: readonly RobotsLint[],
    unlisted: number,
    sitemapLines: readonly number[],
  ) {
    this.#data = data;
    this.#lineLints = lints;
    this.#unlisted = unlisted;
    this.#sitemapLines = sitemapLines;
  }

  /** Findings about the file, by line (at most 200, and a note of how many more); parsing never fails because of them. */
  get lints(): readonly RobotsLint[] {
    this.#lints ??= allLints(this.#lineLints, this.#unlisted, this.#data, this.#sitemapLines);
    return this.#lints;
  }

  /**
   * Parses a robots.txt body. Never throws on content: lines that do not parse are
   * skipped and reported in `lints`. Bytes are read as UTF-8 (invalid sequences become
   * U+FFFD); a leading byte order mark is skipped.
   */
  static parse(body: string | Uint8Array, options: RobotsParseOptions = {}): RobotsTxt {
    if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError(
        `RobotsTxt.parse() takes a string or a Uint8Array, got ${body === null ? 'null' : typeof body}.`,
      );
    }
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(
        `RobotsTxt.parse() options must be an object, got ${options === null ? 'null' : typeof options}.`,
      );
    }
    refuseUnknownOptions('RobotsTxt.parse()', options, PARSE_OPTIONS);
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) {
      const message = `maxBytes must be a positive integer, got ${show(maxBytes)}.`;
      throw typeof maxBytes === 'number' ? new RangeError(message) : new TypeError(message);
    }
    const rejectHtml = options.rejectHtml ?? true;
    if (typeof rejectHtml !== 'boolean') {
      throw new TypeError(`rejectHtml must be true or false, got ${show(rejectHtml)}.`);
    }
    return build(body, { maxBytes, rejectHtml });
  }

  /**
   * Whether `userAgent` may fetch `url`. `url` is an absolute URL, a `URL` or a path
   * starting with `/`; `userAgent` is a product token (`ExampleBot`) or a whole
   * User-Agent header, from which the product token is read.
   */
  isAllowed(url: string | URL, userAgent: string): boolean {
    return isAllowed(this.#data, url, userAgent);
  }

  /** The verdict for `url` with the rule, the group and every matching rule behind it. */
  explain(url: string | URL, userAgent: string, options?: ExplainOptions): Verdict {
    // null is taken as no options, as it always has been.
    if (options !== undefined && options !== null) checkExplainOptions(options);
    return explain(this.#data, url, userAgent, options);
  }

  /**
   * The `crawl-delay` in seconds of the group that applies to `userAgent` (the largest,
   * if its merged groups give several), or undefined. An extension: RFC 9309 does not
   * define it.
   */
  crawlDelay(userAgent: string): number | undefined {
    const data = this.#data;
    const merged = groupOf(data, productTokenOf(userAgent));
    if (merged < 0) return undefined;
    let delay = -1;
    for (let k = mergedField(data, merged, MEMBERS_FROM); k < mergedField(data, merged, MEMBERS_TO); k++) {
      delay = Math.max(delay, groupField(data, data.ints[k], CRAWL_DELAY_MS));
    }
    return delay < 0 ? undefined : delay / 1000;
  }

  /**
   * Builds now what the first check for `userAgent` would build: the ranked table of its group,
   * and an index when the group has many wildcard rules. For a first check as fast as the
   * next, or before reading `retainedBytes`. Call it on a file kept long: a small file's
   * tables share a block of memory with the files parsed around it until a check ranks one of
   * its groups, and `prepare` gives them memory of their own in any case.
   */
  prepare(userAgent: string): void {
    const merged = groupOf(this.#data, productTokenOf(userAgent));
    if (merged >= 0) prepareGroup(this.#data, merged, true);
    ownInts(this.#data);
  }

  /**
   * The memory this parsed file keeps, in bytes: its tables, strings and findings, counted
   * from the structures, for caches bounded by bytes (a file of many user-agent lines or
   * wildcard rules keeps several times its text). A check for a group not asked about
   * before adds that group's table: `prepare` the crawlers first. Until a ranked table or
   * `prepare` gives them memory of their own, a small file's tables are its part of a block
   * shared with the files parsed around it, and counted as that part.
   */
  get retainedBytes(): number {
    let bytes = retainedBytes(this.#data);
    // The findings held now: reading `lints` would build (and keep) the ones found from the rules.
    for (const lint of this.#lints ?? this.#lineLints) bytes += LINT_BYTES + 2 * lint.message.length;
    if (this.#sitemapLines !== NO_LINES) bytes += ARRAY_BYTES + 8 * this.#sitemapLines.length;
    // The sitemap URLs once read: each a string of its own, or a slice of the file's values.
    if (this.#sitemaps !== undefined && this.#sitemaps !== NO_SITEMAPS) {
      bytes += ARRAY_BYTES;
      for (const url of this.#sitemaps) bytes += URL_BYTES + 2 * url.length;
    }
    return bytes;
  }

  /**
   * Whether the body was an HTML page (a soft 404 served as robots.txt): no rules were read
   * from it, and `lints` says so. Always false when parsed with `rejectHtml: false`.
   */
  get looksLikeHtml(): boolean {
    return isHtmlPage(this.#data);
  }

  /**
   * The sitemap URLs of the whole file, in file order, each once: the absolute http(s) URLs
   * (those `new URL` reads, with a host and no blank), normalised as `URL.href` writes them
   * (`HTTPS://Example.com:443/s.xml` is `https://example.com/s.xml`), so that two spellings
   * of one URL are listed once. A URL with a user or password is listed as written (the
   * `sitemap-credentials` lint reports it). Read from the lines as written when first asked for
   * (a URL parser takes microseconds for a host outside ASCII), then kept.
   */
  get sitemaps(): readonly string[] {
    if (this.#sitemaps === undefined) {
      const urls = count(this.#data, SITEMAP_COUNT) === 0 ? [] : sitemapsOf(this.#data);
      this.#sitemaps = urls.length === 0 ? NO_SITEMAPS : Object.freeze(urls);
    }
    return this.#sitemaps;
  }

  /** The groups exactly as written (not merged), with their rules in file order. */
  get groups(): readonly RobotsGroup[] {
    const data = this.#data;
    const groups: RobotsGroup[] = [];
    for (let g = 0; g < count(data, GROUP_COUNT); g++) {
      const firstAgent = groupField(data, g, FIRST_AGENT);
      const firstRule = groupField(data, g, FIRST_RULE);
      const userAgents = [];
      for (let a = firstAgent; a < firstAgent + groupField(data, g, AGENT_COUNT); a++) {
        const value = agentValue(data, a);
        userAgents.push({ value, token: tokenOfUserAgentLine(value), line: agentField(data, a, AGENT_LINE) });
      }
      const rules: RobotsRule[] = [];
      for (let r = firstRule; r < firstRule + groupField(data, g, RULE_COUNT); r++) {
        const { kind, pattern, normalizedPattern, line, derived } = matchedRule(data, r);
        rules.push(
          derived
            ? { kind, pattern, normalizedPattern, line, derived }
            : { kind, pattern, normalizedPattern, line },
        );
      }
      const group: RobotsGroup = {
        userAgents,
        startLine: groupField(data, g, START_LINE),
        endLine: groupField(data, g, END_LINE),
        rules,
      };
      const delay = groupField(data, g, CRAWL_DELAY_MS);
      if (delay >= 0) group.crawlDelay = delay / 1000;
      groups.push(group);
    }
    return groups;
  }
}

/**
 * {@link RobotsTxt.explain} for the policy store (not exported from the package), whose options
 * are its own and need no check. With `authorityEnd` of 0 or more, `url` is a string that starts
 * with a normalised origin (`https://example.com`) that many characters long, followed by its end
 * or by `/`, `?` or `#`: the store has compared that prefix already, and the authority is not
 * read again. With -1, `url` is read whole, as `explain` reads it.
 */
export function explainAfterOrigin(
  robots: RobotsTxt,
  url: string | URL,
  authorityEnd: number,
  userAgent: string,
  options: ExplainOptions,
): Verdict {
  return explain(dataOf(robots), url, userAgent, options, authorityEnd);
}

/**
 * {@link RobotsTxt.parse} for the fetcher (not exported from the package): `body` is the start of
 * a longer file, whose transfer was cut after `maxBytes` octets and the line in progress up to the
 * line length cap. The findings say the file was cut, and a line cut short is said to be longer
 * than what was read of it. A last line cut before the cap (by a client that reads less) may be
 * half a rule and is not read.
 */
export function parseCutBody(body: Uint8Array, maxBytes: number): RobotsTxt {
  return build(body, { maxBytes, rejectHtml: true, cut: true });
}

const PARSE_OPTIONS: readonly string[] = ['maxBytes', 'rejectHtml'];
const EXPLAIN_OPTIONS: readonly string[] = ['candidates'];

/**
 * Refuses a key `owner` does not read: a misspelt option (`maxByte`) would otherwise be ignored
 * and its default used without a word. A key set to `undefined` is let through, as an unset option.
 */
function refuseUnknownOptions(owner: string, options: object, known: readonly string[]): void {
  for (const key in options) {
    if (!known.includes(key) && (options as Record<string, unknown>)[key] !== undefined) {
      throw new TypeError(`${owner} has no option ${show(key)}: its options are ${known.join(', ')}.`);
    }
  }
}

function checkExplainOptions(options: ExplainOptions): void {
  if (typeof options !== 'object') {
    throw new TypeError(`explain() options must be an object, got ${show(options)}.`);
  }
  refuseUnknownOptions('explain()', options, EXPLAIN_OPTIONS);
  if (options.candidates !== undefined && typeof options.candidates !== 'boolean') {
    throw new TypeError(`candidates must be true or false, got ${show(options.candidates)}.`);
  }
}

const NO_LINTS: readonly RobotsLint[] = Object.freeze([]);
/** A finding without its message: the object, its slot in the list. */
const LINT_BYTES = 128;
const NO_SITEMAPS: readonly string[] = Object.freeze([]);
const NO_LINES: readonly number[] = Object.freeze([]);
/** Bytes of an array's object and header, and of a string's, besides their elements. */
const ARRAY_BYTES = 32;
const URL_BYTES = 24;

/** Feeds one pass to two handlers. */
class Both implements RobotsLineHandler {
  constructor(
    private readonly a: RobotsLineHandler,
    private readonly b: RobotsLineHandler,
  ) {}
  directive(d: Directive): void {
    this.a.directive(d);
    this.b.directive(d);
  }
  unparsable(line: number, text: string): void {
    this.a.unparsable(line, text);
    this.b.unparsable(line, text);
  }
  lineTooLong(line: number, octets: number): void {
    this.a.lineTooLong(line, octets);
    this.b.lineTooLong(line, octets);
  }
  end(summary: FileSummary): void {
    this.a.end(summary);
    this.b.end(summary);
  }
}
