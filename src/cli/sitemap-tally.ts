/**
 * Reads a site's sitemaps with the {@link SitemapSeeder} and tallies what each sitemap held.
 * The seeder reports run totals only, so the tally per sitemap is built from what it hands
 * out: each kept request's `userData.sitemapUrl`, each dropped record's `sitemapUrl`, each
 * filtered URL's `sitemapUrl`, and the failures and warnings (with their `parent`).
 * `sitemaps` and `audit --from-sitemaps` both read sitemaps through here.
 */
import { Log, LogLevel } from 'crawlee';
import { withoutCredentials } from '../fetch/index.js';
import type { RobotsTxt } from '../robots/index.js';
import type {
  SitemapDroppedUrl,
  SitemapFormat,
  SitemapProblem,
  SitemapSeedResult,
} from '../sitemap/index.js';
import { listedSitemaps, SitemapSeeder, unusableLinesText, unusableSitemapLines } from '../sitemap/index.js';
import type { OriginPolicy, RobotsCheck, RobotsStore } from '../store/index.js';
import { statusText } from './source.js';

/** What one sitemap held, as far as the seeder's output tells. */
export interface SitemapTally {
  url: string;
  /** Listed by a `Sitemap:` line of the site's robots.txt; otherwise reached through an index. */
  declared: boolean;
  /** The index that listed it; null for a sitemap robots.txt declares (or one never read). */
  parent: string | null;
  /** What the file was, once read, in whole or in part; null for one never read, or not recognised. */
  format: SitemapFormat | null;
  /** Page URLs read from it: kept + blocked + filtered. */
  found: number;
  /** URLs robots.txt allows for the agent. */
  kept: number;
  /** URLs robots.txt blocks for the agent. */
  blocked: number;
  /** URLs a filter dropped (another host, not an http(s) URL). */
  filtered: number;
  /** Why it could not be read, or null. */
  failure: string | null;
  /** Read only in part, loops, children skipped (said on the index that lists them). */
  warnings: string[];
}

/** A rule of robots.txt and how many sitemap URLs it blocks. */
export interface BlockingRule {
  /** `disallow: /private/`, or the policy when no line decided (`disallow-all`: robots.txt unreachable). */
  rule: string;
  line: number | null;
  count: number;
  /** The robots.txt the rule is in: the site's, or another host's for URLs a sitemap lists there. */
  robotsTxtUrl: string;
}

export interface SitemapsRead {
  /** The robots.txt policy of the site, as the store resolved it. */
  policy: OriginPolicy;
  /** The `Sitemap:` URLs of robots.txt, resolved against it, in file order. */
  declared: string[];
  /** Declared sitemaps first (file order), then those reached through indexes (order met). */
  sitemaps: SitemapTally[];
  /** Rules that blocked sitemap URLs, most URLs first. */
  blockedBy: BlockingRule[];
  /** The seeder's result, with robots.txt left out of the sitemap failures. */
  result: SitemapSeedResult;
  /** The reading stopped at `maxTimeSeconds`, with sitemaps left unread. */
  stoppedAtMaxTime: boolean;
}

export interface ReadSitemapsOptions {
  store: RobotsStore;
  /** The product token robots.txt is matched for (`*` for the group every crawler reads). */
  agent: string;
  /** Time allowed for each sitemap file (the seeder's `timeoutMs`). */
  sitemapTimeoutMs?: number;
  /**
   * Most page URLs read: the run stops at the URL that reaches it, and reads still in flight are
   * cancelled, not waited for nor counted as failures.
   */
  maxUrls?: number;
  /** Stops the reading; what was read so far is reported. */
  signal?: AbortSignal;
  /** `--max-time`: seconds after which the reading stops (from the call); what was read is reported. */
  maxTimeSeconds?: number;
  /** Sitemap files read at the same time (the seeder's `concurrency`): 1 reads them in the order listed. */
  concurrency?: number;
  /** Kept URLs handed to `onKept` at a time (the seeder's `batchSize`): 1 keeps the order of reading. */
  batchSize?: number;
  /** Each kept URL, in the order read; the reading waits for a promise it returns. */
  onKept?: (url: string) => void | Promise<void>;
  /** Each URL robots.txt blocks, with the verdict. */
  onBlocked?: (url: string, check: RobotsCheck) => void;
}

/** The seeder and the store log through Crawlee's logger; the CLI reports everything itself. */
export const QUIET_LOG = new Log({ level: LogLevel.OFF });

/**
 * Closes the store of a sitemap reading without waiting for it: a run stopped at `--max-time`
 * may leave a robots.txt fetch under way (a redirect target that never answers), and close()
 * waits for it, up to `--timeout`. The command has no backend to save it to; the program exits
 * once its output is written (see main.ts).
 */
export function closeUnwaited(store: RobotsStore): void {
  store.close().catch(() => undefined);
}

/** Reads the sitemaps that the robots.txt of `site`'s origin declares. */
export async function readSitemaps(site: string, options: ReadSitemapsOptions): Promise<SitemapsRead> {
  const { store, agent } = options;
  const policy = await store.resolve(site);
  const declared = declaredSitemaps(policy);
  const tallies = new Map<string, SitemapTally>();
  const tally = (url: string): SitemapTally => {
    let entry = tallies.get(url);
    if (entry === undefined) {
      entry = {
        url,
        declared: declared.includes(url),
        parent: null,
        format: null,
        found: 0,
        kept: 0,
        blocked: 0,
        filtered: 0,
        failure: null,
        warnings: [],
      };
      tallies.set(url, entry);
    }
    return entry;
  };
  for (const url of declared) tally(url);
  const rules = new Map<string, BlockingRule>();
  // The seeder's own maxUrls stops at the URL past it, so a run of exactly N URLs would wait for
  // every sitemap still being downloaded: the run is aborted here at the Nth instead.
  const enough = new AbortController();
  const timeUp =
    options.maxTimeSeconds === undefined ? undefined : AbortSignal.timeout(options.maxTimeSeconds * 1000);
  const signals = [enough.signal, options.signal, timeUp].filter((signal) => signal !== undefined);
  const signal = signals.length === 1 ? enough.signal : AbortSignal.any(signals);
  let found = 0;
  const count = () => {
    found++;
    if (options.maxUrls !== undefined && found >= options.maxUrls) enough.abort();
  };

  const seeder = new SitemapSeeder({
    store,
    productToken: agent,
    log: QUIET_LOG,
    ...(options.sitemapTimeoutMs === undefined ? {} : { timeoutMs: options.sitemapTimeoutMs }),
  });
  const result = await seeder.seed([{ site: policy.origin }], {
    enqueue: async (batch) => {
      for (const request of batch) {
        const entry = tally(request.userData.sitemapUrl);
        entry.found++;
        entry.kept++;
        const taken = options.onKept?.(request.url);
        count();
        if (taken !== undefined) await taken;
      }
    },
    onDropped: (record: SitemapDroppedUrl) => {
      const entry = tally(record.sitemapUrl);
      entry.found++;
      entry.blocked++;
      const { check } = record;
      // No rule: an unreachable robots.txt (disallow-all) says why, or the row would read as a rule.
      const rule =
        check.rule !== null
          ? `${check.rule.kind}: ${check.rule.pattern}`
          : check.reason === 'disallow-all'
            ? `disallow-all: robots.txt unreachable (${statusText(check.status)})`
            : check.reason;
      const key = `${check.robotsTxtUrl} ${check.rule?.line ?? '-'} ${rule}`;
      const blocking = rules.get(key) ?? {
        rule,
        line: check.rule?.line ?? null,
        count: 0,
        robotsTxtUrl: check.robotsTxtUrl,
      };
      blocking.count++;
      rules.set(key, blocking);
      options.onBlocked?.(record.url, check);
      count();
    },
    onFiltered: (record) => {
      const entry = tally(record.sitemapUrl);
      entry.found++;
      entry.filtered++;
      count();
    },
    onSitemapRead: (sitemap) => {
      const entry = tally(sitemap.url);
      entry.format = sitemap.format;
      if (sitemap.parent !== undefined) entry.parent = sitemap.parent;
    },
    progressIntervalMs: 0,
    ...(options.maxUrls === undefined ? {} : { maxUrls: options.maxUrls }),
    signal,
    // Kept URLs are counted as they are handed out: in batches, the cap would be seen late.
    ...(options.batchSize !== undefined
      ? { batchSize: options.batchSize }
      : options.maxUrls !== undefined
        ? { batchSize: 1 }
        : {}),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  // The seeder reports a site whose robots.txt gave no file (5xx, 429, no answer) as a failure
  // under the robots.txt URL. robots.txt is no sitemap: the report says its state on its own.
  const isRobotsTxt = (failure: SitemapProblem) =>
    policy.robots === null && failure.url === policy.robotsTxtUrl && failure.parent === undefined;
  const robotsTxtFailures = result.failures.filter(isRobotsTxt).length;
  const failures = result.failures.filter((failure) => !isRobotsTxt(failure));
  for (const failure of failures) {
    const entry = tally(failure.url);
    entry.failure = failure.why;
    // A file that failed part way through (a parse error, a body cut short) says what it held.
    if (failure.format !== undefined) entry.format ??= failure.format;
    if (failure.parent !== undefined) entry.parent = failure.parent;
  }
  for (const warning of result.warnings) {
    // The seeder's note on robots.txt itself (Sitemap: lines no crawler can use) is no sitemap's:
    // the report names those lines in its head (see unusableSitemapLines).
    if (warning.url === policy.robotsTxtUrl && warning.parent === undefined) continue;
    // A child skipped that is a sitemap of the report already (a loop back to an index, a file
    // listed again): the problem is in the index that lists it, and the child keeps its own row.
    if (warning.skipped === true && warning.parent !== undefined && tallies.has(warning.url)) {
      tally(warning.parent).warnings.push(`Lists ${warning.url}: ${warning.why}`);
      continue;
    }
    const entry = tally(warning.url);
    entry.warnings.push(warning.why);
    // A file the run stopped in the middle of (--max-urls) says what it held.
    if (warning.format !== undefined) entry.format ??= warning.format;
    if (warning.parent !== undefined && entry.parent === null && !entry.declared)
      entry.parent = warning.parent;
  }
  return {
    policy,
    declared,
    sitemaps: [...tallies.values()],
    blockedBy: [...rules.values()].sort(
      (a, b) =>
        b.count - a.count ||
        Number(b.robotsTxtUrl === policy.robotsTxtUrl) - Number(a.robotsTxtUrl === policy.robotsTxtUrl) ||
        (a.line ?? 0) - (b.line ?? 0),
    ),
    result: { ...result, failures, sitemapsFailed: result.sitemapsFailed - robotsTxtFailures },
    // Stopped by the clock, not by a cap that may come at the same moment (maxUrls, the caller's).
    stoppedAtMaxTime:
      timeUp?.aborted === true &&
      result.stoppedEarly &&
      !enough.signal.aborted &&
      options.signal?.aborted !== true,
  };
}

/**
 * Why a file that lists no usable sitemap lists none, to follow "robots.txt": an HTML page, `Sitemap:`
 * lines no crawler can use, an empty file, or one cut at the size limit; null when it simply has no
 * `Sitemap:` line.
 */
export function noSitemapBecause(robots: RobotsTxt): string | null {
  if (robots.looksLikeHtml) return 'is an HTML page, not a robots.txt: no Sitemap: line is read from it';
  const unusable = unusableSitemapLines(robots);
  if (unusable.length > 0) return `declares no sitemap a crawler can use: its ${unusableLinesText(unusable)}`;
  if (robots.lints.some((lint) => lint.code === 'empty-file'))
    return 'holds no directive at all (it is empty, or only comments): it declares no sitemap';
  if (robots.lints.some((lint) => lint.code === 'file-too-large'))
    return 'declares no sitemap in the part crawlers read: the file is larger, and the rest is ignored';
  return null;
}

/**
 * The `Sitemap:` lines as the seeder reads them (see listedSitemaps), each once, without the
 * credentials the seeder skips a sitemap for: the name its warning gives.
 */
function declaredSitemaps(policy: OriginPolicy): string[] {
  return [...new Set(listedSitemaps(policy).map(withoutCredentials))];
}
