/**
 * The URLs an audit checks. Each source is a function of the site and its robots.txt; the
 * audit takes the first source that applies: `--urls` (a list), `--from-sitemaps` (the URLs
 * that robots.txt's `Sitemap:` lines lead to), or paths made up from the rules.
 */
import { isUtf8 } from 'node:buffer';
import {
  GotScrapingRobotsClient,
  type RobotsFetchResult,
  type RobotsHttpClient,
  type RobotsHttpResult,
} from '../fetch/index.js';
import type { RobotsTxt } from '../robots/index.js';
import { HTTP_URL_START, urlOrNull, withoutUserinfo } from '../robots/index.js';
import { CliInputError } from './io.js';

export interface UrlSourceContext {
  /** The origin audited, e.g. `https://example.com`. */
  origin: string;
  /** The parsed file, or null when robots.txt gave no file (4xx, 5xx, no answer). */
  robots: RobotsTxt | null;
  /** The whole fetch outcome (status and body), for sources that read robots.txt again. */
  fetch: RobotsFetchResult;
}

/** What `--from-sitemaps` read, besides the URLs: the report shows it, the exit code depends on it. */
export interface SitemapSample {
  /** Sitemap files read to their end. */
  read: number;
  /** Sitemap files that failed, wholly or after some URLs (exact, even past the listed ones). */
  failed: number;
  /**
   * The failures, with why; `refused` when robots.txt keeps crawlers from the sitemap itself:
   * a crawler never learns its URLs either, so the sample misses nothing by it.
   */
  failures: { url: string; why: string; refused: boolean }[];
  /** True when reading stopped because the sample had `--max-urls` URLs. */
  stoppedAtMax: boolean;
  /** `--max-time` in seconds when reading stopped at it, with sitemaps left unread; null otherwise. */
  stoppedAtMaxTime: number | null;
  /** Why the sample is not the first URLs the sitemaps list (exit code 2), or null. */
  incomplete: string | null;
}

/**
 * `--from-sitemaps` found no URL to audit: a usage error in text (one line on stderr), and with
 * `--json` a report of its own, with no URL, the sitemaps as read and this message as the reason
 * for exit code 2, so that a JSON reader gets a document either way.
 */
export class NoUrlToAudit extends CliInputError {
  readonly sitemaps: SitemapSample;
  constructor(sitemaps: SitemapSample, message: string) {
    super(message);
    this.sitemaps = { ...sitemaps, incomplete: message };
  }
}

const EMPTY_SAMPLE: SitemapSample = {
  read: 0,
  failed: 0,
  failures: [],
  stoppedAtMax: false,
  stoppedAtMaxTime: null,
  incomplete: null,
};

/** Why the reading of sitemaps stopped before their end, for the report: `; stopped at 50 URLs (--max-urls)`, or nothing. */
export function sitemapsStop(sitemaps: SitemapSample, urls: number): string {
  if (sitemaps.stoppedAtMax) return `; stopped at ${urls} URLs (--max-urls)`;
  if (sitemaps.stoppedAtMaxTime !== null) return `; stopped at --max-time ${sitemaps.stoppedAtMaxTime} s`;
  return '';
}

/** The URLs to audit, and with `--from-sitemaps` how the sitemaps were read. */
export interface UrlSample {
  urls: string[];
  sitemaps: SitemapSample | null;
}

/** Gives the absolute URLs to audit, all on `context.origin`. */
export type UrlSource = (context: UrlSourceContext) => Promise<UrlSample>;

/** How many paths are made up from the rules when no URLs are given. */
const MAX_SAMPLE_URLS = 15;

/**
 * The default: the home page, the URL given as the site if it has a path, and one example path
 * per rule of the file, so that every rule is exercised at least once. Each URL is the origin
 * followed by the path as text: resolving the path against the origin would read `//host/x`
 * as another host.
 */
export function urlsFromRules(site: string): UrlSource {
  return async ({ origin, robots }) => {
    const paths = new Set(['/']);
    const given = new URL(site);
    if (given.pathname !== '/' || given.search !== '') paths.add(given.pathname + given.search);
    collect: for (const group of robots?.groups ?? []) {
      for (const rule of group.rules) {
        if (paths.size > MAX_SAMPLE_URLS) break collect;
        if (rule.derived !== undefined) continue;
        const path = examplePathOf(rule.normalizedPattern);
        if (path !== undefined) paths.add(path);
      }
    }
    return { urls: [...paths].map((path) => origin + path), sitemaps: null };
  };
}

/** A `.` or `..` segment in the path part (before any `?`) of a path. */
const DOT_SEGMENT = /^[^?]*\/\.\.?(?:[/?]|$)/;

/**
 * A path the pattern matches, or undefined when no URL can carry one. The pattern is taken in
 * its normal form (`normalizedPattern`: blanks, controls and non-ASCII percent-encoded), so the
 * path can follow the origin as it is. A final `$` is dropped (RFC 9309 2.2.3: it anchors the
 * end); a `*` at the start or right after a `/` is made an `x` (`*.pdf` -> `/x.pdf`, `/*?a=`
 * -> `/x?a=`), any other `*` dropped. A pattern with a dot segment (`/a/../b`) gets no path:
 * URL parsers resolve those segments, so no request carries one.
 */
function examplePathOf(pattern: string): string | undefined {
  let path = pattern.endsWith('$') ? pattern.slice(0, -1) : pattern;
  if (path.startsWith('*')) path = `/${path}`;
  if (!path.startsWith('/')) return undefined;
  path = path.replace(/\/\*/g, '/x').replace(/\*/g, '');
  return DOT_SEGMENT.test(path) ? undefined : path;
}

/** A blank and a `#` after it, to the end of a line of a URL list. */
const TRAILING_COMMENT = /[\t ]+#.*$/;

/**
 * URLs listed one a line (`--urls file`): blank lines and `#` comments skipped; a path is
 * appended to the audited origin. Every URL must be on that origin: a robots.txt speaks for its
 * own origin only (RFC 9309 2.3). A list with more than `maxUrls` distinct URLs is refused
 * at the first URL past the limit, without reading the rest.
 */
export function listedUrls(text: string, name: string, maxUrls: number): UrlSource {
  return async ({ origin }) => {
    const urls = new Set<string>();
    const lines = text.split(/\r\n|\r|\n/);
    for (const [index, raw] of lines.entries()) {
      // A `#` after a blank starts a comment (no URL holds a raw blank); one that follows the URL
      // directly is its fragment, dropped below.
      const line = raw.replace(TRAILING_COMMENT, '').trim();
      if (line === '' || line.startsWith('#')) continue;
      const where = `${name} line ${index + 1}`;
      const shown = JSON.stringify(withoutUserinfo(line));
      const isPath = line.startsWith('/');
      // `https:/cart` and `https:///cart` are read by URL parsers as the host `cart` (see readUrl).
      if (!isPath && /^https?:/i.test(line) && !HTTP_URL_START.test(line)) {
        throw new CliInputError(
          `${where}: ${shown} does not start with http:// or https:// and a host; a URL parser would take what follows the slashes for the host`,
        );
      }
      // A path follows the origin as text: resolved against it, `//host/x` would name another host.
      const url = urlOrNull(isPath ? origin + line : line);
      // Another scheme is no page of the site: a robots.txt line (`User-agent: *`), a Windows
      // path, `mailto:`; said as such, not as another origin.
      if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        throw new CliInputError(
          `${where}: ${shown} is neither an absolute http(s) URL nor a path starting with /`,
        );
      }
      if (url.origin !== origin) {
        throw new CliInputError(
          `${where}: ${withoutUserinfo(url.href)} is not on ${origin}; audit one origin at a time`,
        );
      }
      url.hash = '';
      // Never used to fetch, and kept out of reports and CI logs.
      url.username = '';
      url.password = '';
      urls.add(url.href);
      if (urls.size > maxUrls) {
        throw new CliInputError(
          `too many URLs (${where} holds URL ${urls.size}); an audit checks at most ${maxUrls}`,
        );
      }
    }
    if (urls.size === 0) throw new CliInputError(`${name} lists no URL`);
    return { urls: [...urls], sitemaps: null };
  };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a URL list. It must be UTF-8: a replacement character would turn `/caf\xE9` into
 * another URL (`/caf%EF%BF%BD`) and the audit would check a page nobody listed. A leading byte
 * order mark is dropped.
 */
export function decodeUrlList(bytes: Uint8Array, name: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    // Find the line, numbered as `listedUrls` numbers them: CR, LF and CRLF end a line. No
    // octet of a UTF-8 multi-byte sequence is a CR or LF, so lines can be cut on octets.
    let line = 1;
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a && bytes[i] !== 0x0d) continue;
      if (!isUtf8(bytes.subarray(start, i))) {
        throw new CliInputError(
          `${name} line ${line}: not UTF-8 text; save the list as UTF-8 or percent-encode its URLs`,
        );
      }
      if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) i++;
      line++;
      start = i + 1;
    }
    throw new CliInputError(`${name} is not UTF-8 text; save the list as UTF-8`);
  }
}

/**
 * `--from-sitemaps`: the first `maxUrls` URLs of the sitemaps robots.txt declares, on the
 * audited origin, in the order the sitemaps list them: the declared sitemaps in file order,
 * then the children of each index in the order it lists them. URLs robots.txt blocks for
 * `agent` are kept too: the matrix shows them. The seeder's store is answered with the
 * robots.txt the audit already read (fetched or local), so the file is not fetched twice and
 * `--file` applies to the sitemaps as well; the robots.txt of any other origin (a sitemap
 * stored elsewhere, a redirect target) is fetched.
 */
export function urlsFromSitemaps(options: {
  maxUrls: number;
  agent: string;
  /** The User-Agent header the sitemaps are fetched with, as robots.txt was. */
  userAgent: string;
  timeoutMs: number;
  /** `--max-time`: seconds after which the reading stops; the URLs read by then are audited. */
  maxTimeSeconds?: number;
}): UrlSource {
  return async ({ origin, robots, fetch }) => {
    // Loaded here, not with the module: they load Crawlee, which an audit of listed URLs never needs.
    const { closeUnwaited, noSitemapBecause, QUIET_LOG, readSitemaps } = await import('./sitemap-tally.js');
    const { RobotsStore } = await import('../store/index.js');
    const sitemaps = robots?.sitemaps.length ?? 0;
    if (robots === null || sitemaps === 0) {
      throw new NoUrlToAudit(
        EMPTY_SAMPLE,
        robots === null
          ? `--from-sitemaps: robots.txt of ${origin} gave no file (${fetch.why}), so no Sitemap: lines to read`
          : `--from-sitemaps: robots.txt of ${origin} ${noSitemapBecause(robots) ?? 'has no Sitemap: line'}`,
      );
    }
    const store = new RobotsStore({
      userAgent: options.userAgent,
      productToken: options.agent,
      httpClient: answeredWith(fetch),
      fetchTimeoutMs: options.timeoutMs,
      log: QUIET_LOG,
    });
    const urls: string[] = [];
    // The cap counts URLs on the origin, kept or blocked: the seeder's maxUrls would count
    // filtered ones too, so the run is stopped here instead. Reads cut short by it are no failures.
    const enough = new AbortController();
    const collect = (url: string) => {
      if (urls.length >= options.maxUrls) return;
      const parsed = new URL(url);
      if (parsed.origin !== origin) return;
      parsed.hash = '';
      if (!urls.includes(parsed.href)) urls.push(parsed.href);
      if (urls.length >= options.maxUrls) enough.abort();
    };
    let sample: SitemapSample;
    try {
      const read = await readSitemaps(origin, {
        store,
        agent: options.agent,
        sitemapTimeoutMs: options.timeoutMs,
        signal: enough.signal,
        ...(options.maxTimeSeconds === undefined ? {} : { maxTimeSeconds: options.maxTimeSeconds }),
        // One file at a time, one URL a batch: the first URLs are those the sitemaps list
        // first, whichever server answers faster, so every run audits the same sample.
        concurrency: 1,
        batchSize: 1,
        onKept: collect,
        onBlocked: collect,
      });
      const { result } = read;
      const failures = result.failures.map(({ url, why, refusedByRobots }) => ({
        url,
        why,
        refused: refusedByRobots === true,
      }));
      const refused = failures.filter((failure) => failure.refused).length;
      const unread = result.sitemapsFailed - refused;
      // What was read, for the --json document of an audit left with no URL.
      const none: SitemapSample = {
        ...EMPTY_SAMPLE,
        read: result.sitemapsRead,
        failed: result.sitemapsFailed,
        failures,
        stoppedAtMaxTime: read.stoppedAtMaxTime ? options.maxTimeSeconds! : null,
      };
      if (urls.length === 0 && read.stoppedAtMaxTime) {
        throw new NoUrlToAudit(
          none,
          `--from-sitemaps: no URL to audit on ${origin}: none was read within --max-time ${options.maxTimeSeconds} s`,
        );
      }
      if (urls.length === 0) {
        const failure = result.failures[0];
        // The sitemaps as read: a sitemap that several Sitemap: lines name counts once.
        const n = read.declared.length;
        // None read (failed, or skipped with a warning, as a redirect loop is): not an empty list.
        const problem = failure ?? result.warnings[0];
        if (
          result.sitemapsRead === 0 &&
          refused > 0 &&
          refused === failures.length &&
          result.warnings.length === 0
        ) {
          // The audit reads the sitemaps as its first crawler, whose User-Agent it sends.
          const as =
            options.agent === '*'
              ? 'a crawler of the * group (--agents names none)'
              : `${options.agent} (the first of --agents)`;
          const refusal =
            n === 1 ? 'does not let it read the sitemap' : `lets it read none of the ${n} sitemaps`;
          throw new NoUrlToAudit(
            none,
            `--from-sitemaps: no URL to audit on ${origin}: the audit reads the sitemaps as ${as}, and robots.txt ${refusal} (${failure!.url}: ${failure!.why}); put first in --agents a crawler that may read them`,
          );
        }
        if (result.sitemapsRead === 0 && problem !== undefined) {
          const unread =
            n === 1
              ? 'the sitemap of robots.txt could not be read'
              : `none of the ${n} sitemaps of robots.txt could be read`;
          throw new NoUrlToAudit(
            none,
            `--from-sitemaps: no URL to audit on ${origin}: ${unread} (${problem.url}: ${problem.why})`,
          );
        }
        const what = n === 1 ? 'the sitemap of robots.txt lists' : `the ${n} sitemaps of robots.txt list`;
        // A failure, or else what was skipped or cut (an index nested past the depth limit).
        const warning = result.warnings[0];
        const why =
          failure !== undefined
            ? ` (${result.sitemapsFailed} failed; ${failure.url}: ${failure.why})`
            : warning !== undefined
              ? ` (${warning.url}: ${warning.why})`
              : '';
        throw new NoUrlToAudit(none, `--from-sitemaps: ${what} no URL on ${origin}${why}`);
      }
      const firstUnread = failures.find((failure) => !failure.refused);
      sample = {
        read: result.sitemapsRead,
        failed: result.sitemapsFailed,
        failures,
        stoppedAtMax: urls.length >= options.maxUrls,
        stoppedAtMaxTime: read.stoppedAtMaxTime ? options.maxTimeSeconds! : null,
        incomplete:
          unread === 0
            ? null
            : `--from-sitemaps: ${unread === 1 ? '1 sitemap' : `${unread} sitemaps`} could not be read${firstUnread === undefined ? '' : ` (${firstUnread.url}: ${firstUnread.why.replace(/\.$/, '')})`}, so the sample of ${urls.length === 1 ? '1 URL' : `${urls.length} URLs`} is incomplete`,
      };
    } finally {
      closeUnwaited(store);
    }
    return { urls, sitemaps: sample };
  };
}

/**
 * An HTTP client that answers the audited origin's robots.txt with the file already read, and
 * fetches any other: a 404 made up for another origin would let the sitemap seeder read files
 * that origin's robots.txt disallows.
 */
function answeredWith(fetch: RobotsFetchResult): RobotsHttpClient {
  const http = new GotScrapingRobotsClient();
  return {
    request: async (request): Promise<RobotsHttpResult> => {
      if (request.url.href !== fetch.robotsTxtUrl || typeof fetch.status !== 'number') {
        return http.request(request);
      }
      return {
        ok: true,
        status: fetch.status,
        headers: {},
        body: fetch.body ?? new Uint8Array(0),
        truncated: false,
      };
    },
  };
}
