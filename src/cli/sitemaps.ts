/**
 * `crawlee-robots sitemaps <site>`: the sitemaps a site's robots.txt declares and what they
 * hold (URLs per sitemap, failures, URLs robots.txt blocks for the agent), as text, `--json`,
 * or one kept URL a line (`--urls`) for piping.
 */
import { type SitemapProblem, unusableSitemapLines } from '../sitemap/index.js';
import { RobotsStore } from '../store/index.js';
import { userAgentHeader } from './args.js';
import { EXIT } from './io.js';
import { jsonText } from './json.js';
import { SeenUrls } from './seen-urls.js';
import { closeUnwaited, QUIET_LOG, readSitemaps, type SitemapsRead } from './sitemap-tally.js';
import { renderSitemaps } from './sitemaps-render.js';
import { statusText } from './source.js';
import { printable, type Style } from './style.js';

export interface SitemapsOptions {
  /** The site: the sitemaps of its origin's robots.txt are read. */
  site: string;
  /** The product token robots.txt is matched for; `*` when none is given. */
  agent: string;
  userAgent?: string;
  timeoutMs: number;
  maxUrls?: number;
  /** `--max-time`: seconds after which the reading stops and what was read is reported. */
  maxTimeSeconds?: number;
  json: boolean;
  /** `--urls`: print the kept URLs only, one a line, as they are read. */
  urlsOnly: boolean;
  /** `--strict`: a sitemap that could not be read makes the exit code 2. */
  strict?: boolean;
}

/** Everything `sitemaps` reports, before it is rendered. */
export interface SitemapsReport extends SitemapsRead {
  site: string;
  agent: string;
  /** `--max-urls`, or null. */
  maxUrls: number | null;
  /** `--max-time` in seconds, or null. */
  maxTimeSeconds: number | null;
  /** Lines of `Sitemap:` values that are not absolute http(s) URLs, which no crawler can use. */
  unusableSitemapLines: number[];
  /** Why the exit code is 2, or null. */
  unreadable: string | null;
  exitCode: number;
}

/**
 * Runs the command; `write` receives stdout text (with `--urls`, batch by batch) and
 * `writeError` the reason of an exit code 2.
 */
export async function runSitemaps(
  options: SitemapsOptions,
  style: Style,
  write: (text: string) => void | Promise<void>,
  writeError: (text: string) => void,
): Promise<number> {
  const store = new RobotsStore({
    userAgent: userAgentHeader(options.agent, options.userAgent),
    productToken: options.agent,
    fetchTimeoutMs: options.timeoutMs,
    log: QUIET_LOG,
  });
  let read: SitemapsRead;
  try {
    let pending: string[] = [];
    // A crawler requests each URL once, without its fragment: so is each printed.
    const printed = new SeenUrls();
    read = await readSitemaps(options.site, {
      store,
      agent: options.agent,
      sitemapTimeoutMs: options.timeoutMs,
      ...(options.maxUrls === undefined ? {} : { maxUrls: options.maxUrls }),
      ...(options.maxTimeSeconds === undefined ? {} : { maxTimeSeconds: options.maxTimeSeconds }),
      ...(options.urlsOnly
        ? {
            onKept: (url: string) => {
              // The seeder hands on a location as the sitemap wrote it; a crawler requests it as
              // the URL parser writes it (`/a b` is `/a%20b`, a line feed inside is dropped).
              const parsed = new URL(url);
              parsed.hash = '';
              if (!printed.add(parsed.href)) return;
              pending.push(parsed.href);
              if (pending.length >= 1000) {
                const text = `${pending.join('\n')}\n`;
                pending = [];
                // The reading waits while stdout holds lines back.
                return write(text);
              }
            },
          }
        : {}),
    });
    if (pending.length > 0) await write(`${pending.join('\n')}\n`);
  } finally {
    closeUnwaited(store);
  }
  const report = sitemapsReport(read, options);
  // The reasons quote what servers sent: a terminal must not act on control characters in them.
  if (report.unreadable !== null && !options.json)
    writeError(`crawlee-robots: ${printable(report.unreadable)}\n`);
  if (options.urlsOnly) {
    // The table and the JSON list the failures; a list of URLs can only say so on stderr.
    const failed = failedSitemaps(read);
    if (report.unreadable === null && failed !== null) {
      writeError(
        `crawlee-robots: ${printable(failed)}, so the list may be incomplete; --strict makes that exit code 2\n`,
      );
    }
    if (report.unreadable === null && read.stoppedAtMaxTime) {
      writeError(
        `crawlee-robots: ${stoppedAtTime(options.maxTimeSeconds!)}, so the list may be incomplete; --strict makes that exit code 2\n`,
      );
    }
    const unread = unreadAtLimit(read, options);
    if (report.unreadable === null && unread !== null) {
      writeError(
        `crawlee-robots: ${printable(unread)}, so the list may be incomplete; --strict makes that exit code 2\n`,
      );
    }
    return report.exitCode;
  }
  write(options.json ? jsonText(sitemapsJson(report)) : renderSitemaps(report, style));
  return report.exitCode;
}

/** What a stop at `--max-time` left undone. */
function stoppedAtTime(seconds: number): string {
  return `stopped at --max-time ${seconds} s before every sitemap was read`;
}

export function sitemapsReport(
  read: SitemapsRead,
  options: Pick<SitemapsOptions, 'site' | 'agent' | 'maxUrls' | 'maxTimeSeconds' | 'strict'>,
): SitemapsReport {
  const { policy, result, stoppedAtMaxTime } = read;
  const failed =
    options.strict !== true
      ? null
      : (failedSitemaps(read) ??
        (stoppedAtMaxTime ? stoppedAtTime(options.maxTimeSeconds!) : unreadAtLimit(read, options)));
  // RFC 9309 2.3.1.4: 5xx, 429 or no answer: the file (and its Sitemap: lines) could not be read.
  const unreadable =
    policy.kind === 'disallow-all' && policy.robots === null
      ? `robots.txt could not be read (${statusText(policy.status)}), so neither can its Sitemap: lines`
      : // Not only failures: a declared sitemap in a redirect loop is skipped, and unread too.
        // A stop at --max-urls leaves files unread on purpose: the list is as long as asked.
        read.declared.length > 0 && result.sitemapsRead === 0 && !result.stoppedEarly
        ? unreadSitemaps(read.declared.length, result.urlsFound, result.failures[0] ?? result.warnings[0])
        : // Nothing at all within the time: an empty list is no answer.
          stoppedAtMaxTime && result.urlsFound === 0
          ? `no sitemap URL was read within --max-time ${options.maxTimeSeconds} s`
          : failed === null
            ? null
            : `${failed}, so the list is incomplete`;
  return {
    ...read,
    site: options.site,
    agent: options.agent,
    maxUrls: options.maxUrls ?? null,
    maxTimeSeconds: options.maxTimeSeconds ?? null,
    unusableSitemapLines: unusableSitemapLines(policy.robots),
    unreadable,
    exitCode: unreadable === null ? EXIT.allowed : EXIT.error,
  };
}

/** How many sitemaps failed, of how many, and the first with why; null when none did. */
function failedSitemaps({ result }: SitemapsRead): string | null {
  const failed = result.sitemapsFailed;
  if (failed === 0) return null;
  const first = result.failures[0];
  const example = first === undefined ? '' : ` (${first.url}: ${first.why})`;
  const of = result.sitemapsRead + failed;
  return `${failed} of ${of} sitemap${of === 1 ? '' : 's'} could not be read${example}`;
}

/**
 * How many sitemaps a limit of the run (`maxDepth`, `maxSitemaps`) or a stop left unread, and
 * the first warning that says so; null when none was, or when --max-urls stopped the run: the
 * list is then as long as asked.
 */
function unreadAtLimit(
  { result, stoppedAtMaxTime }: SitemapsRead,
  options: Pick<SitemapsOptions, 'maxUrls'>,
): string | null {
  const unread = result.sitemapsUnread;
  const enough = options.maxUrls !== undefined && result.urlsFound >= options.maxUrls;
  if (unread === 0 || enough || stoppedAtMaxTime) return null;
  const first = result.warnings.find((warning) => warning.skipped === true);
  const example = first === undefined ? '' : ` (${first.url}: ${first.why})`;
  return `${unread} sitemap${unread === 1 ? ' was' : 's were'} left unread at a limit of the run${example}`;
}

/** Why no declared sitemap was read, saying so when some URLs were read before each failed. */
function unreadSitemaps(declared: number, urlsRead: number, first: SitemapProblem | undefined): string {
  const urls = urlsRead === 1 ? '1 URL was' : `${urlsRead} URLs were`;
  if (declared === 1) {
    const why = first === undefined ? '' : ` (${first.url}: ${first.why})`;
    return urlsRead === 0
      ? `the declared sitemap could not be read${why}`
      : `the declared sitemap failed after ${urls} read${why}, so the list is incomplete`;
  }
  return urlsRead === 0
    ? `none of the ${declared} declared sitemaps could be read`
    : `none of the ${declared} declared sitemaps could be read to its end (${urls} read before they failed), so the list is incomplete`;
}

/** The `--json` output of `sitemaps`. */
function sitemapsJson(report: SitemapsReport) {
  const { policy, result } = report;
  return {
    site: report.site,
    origin: policy.origin,
    agent: report.agent,
    robotsTxt: { url: policy.robotsTxtUrl, status: policy.status, policy: policy.kind, why: policy.why },
    declared: report.declared,
    unusableSitemapLines: report.unusableSitemapLines,
    sitemaps: report.sitemaps.map((sitemap) => ({
      url: sitemap.url,
      declared: sitemap.declared,
      parent: sitemap.parent,
      format: sitemap.format,
      urls: sitemap.found,
      kept: sitemap.kept,
      blocked: sitemap.blocked,
      filtered: sitemap.filtered,
      failure: sitemap.failure,
      warnings: sitemap.warnings,
    })),
    totals: {
      sitemapsRead: result.sitemapsRead,
      sitemapsFailed: result.sitemapsFailed,
      sitemapsSkipped: result.sitemapsSkipped,
      sitemapsUnread: result.sitemapsUnread,
      urls: result.urlsFound,
      kept: result.kept,
      blocked: result.droppedByRobots,
      filtered: result.filtered,
      filteredBy: result.filteredBy,
      unchecked: result.unchecked,
      stoppedEarly: result.stoppedEarly,
      stoppedAtMaxTime: report.stoppedAtMaxTime,
    },
    blockedBy: report.blockedBy,
    unreadable: report.unreadable,
    exitCode: report.exitCode,
  };
}
