import type { Log } from 'crawlee';
import type { RobotsCheck, RobotsStore } from '../store/index.js';
import type { SitemapDroppedUrl, SitemapFileRead, SitemapFilteredUrl, SitemapRequest } from './types.js';

/** Defaults of {@link SitemapSeederOptions} and {@link SitemapSeedOptions}. */
export const SITEMAP_DEFAULTS = {
  /** sitemaps.org: "no more than 50,000 URLs" per file (and per index, sitemaps). */
  maxUrlsPerFile: 50_000,
  /** sitemaps.org: "no larger than 50MB (52,428,800 bytes)" uncompressed. */
  maxBytesPerFile: 52_428_800,
  maxUrls: 10_000_000,
  maxSitemaps: 10_000,
  maxTotalBytes: 10 * 1024 ** 3,
  maxDepth: 5,
  maxRedirects: 5,
  connectTimeoutMs: 10_000,
  timeoutMs: 120_000,
  batchSize: 1000,
  concurrency: 3,
  progressIntervalMs: 10_000,
  maxReportedProblems: 1000,
  unreachableWaitMs: 0,
} as const;

/** Options of {@link SitemapSeeder}: how sitemaps are fetched. Only `store` is required. */
export interface SitemapSeederOptions {
  /**
   * The policy store every URL is checked with (and whose robots.txt files list the sitemaps).
   * Share it with the crawler's guard so each robots.txt is fetched once.
   */
  store: RobotsStore;
  /**
   * The product token robots.txt rules are matched for.
   * @default the store's `productToken`
   */
  productToken?: string;
  /**
   * The User-Agent header sitemaps are fetched with.
   * @default the store's `userAgent`
   */
  userAgent?: string;
  /**
   * Fetch sitemaps through this proxy (got-scraping's `proxyUrl`), e.g. `http://user:pass@proxy:8000`.
   * @default none
   */
  proxyUrl?: string;
  /**
   * Time allowed to open a connection to a sitemap's server.
   * @default 10000
   */
  connectTimeoutMs?: number;
  /**
   * Time allowed for one sitemap file: waiting for its headers and for its body, redirects
   * included. Time the seeder spends waiting for `enqueue` or `onDropped` is not counted, so a
   * slow request queue never makes a sitemap time out.
   * @default 120000
   */
  timeoutMs?: number;
  /**
   * Redirects followed per sitemap file; a loop is detected earlier.
   * @default 5
   */
  maxRedirects?: number;
  /**
   * Accept invalid TLS certificates, as Crawlee's HTTP crawlers do by default.
   * @default true
   */
  ignoreTlsErrors?: boolean;
  /**
   * Crawlee logger; the seeder logs through `log.child({ prefix: 'RobotsSitemaps' })`.
   * @default Crawlee's `log`
   */
  log?: Log;
}

/** A URL pattern: a glob (`*` stays within a path segment, `**` crosses `/`, `?` is one character) or a RegExp. */
export type SitemapUrlPattern = string | RegExp;

/**
 * What {@link SitemapSeeder.seed} reads: a site root (`https://example.com/`, its robots.txt
 * `Sitemap:` lines are used) or a sitemap URL (any other path). The object forms say it
 * explicitly.
 */
export type SitemapSeedInput = string | URL | { site: string | URL } | { sitemap: string | URL };

/** Options of one {@link SitemapSeeder.seed} run. Only `enqueue` is required. */
export interface SitemapSeedOptions {
  /**
   * Receives the kept URLs in batches of at most `batchSize`, in the shape Crawlee's
   * `crawler.addRequests` takes. The seeder waits for the returned promise before it reads on:
   * this is the backpressure that keeps memory flat. With a crawler:
   * `enqueue: (batch) => crawler.addRequests(batch)`; Crawlee adds a batch of up to 1000
   * requests before its promise resolves.
   */
  enqueue: (batch: SitemapRequest[]) => Promise<unknown>;
  /**
   * Receives each URL robots.txt does not allow, with the verdict (the decisive rule and line,
   * the group). Awaited. A URL whose robots.txt is unreachable comes here too (verdict reason
   * `disallow-all`) unless `enqueueWhenRobotsUnreachable` is set.
   * @default none: the URLs are only counted
   */
  onDropped?: (record: SitemapDroppedUrl) => void | Promise<void>;
  /**
   * A further say on each URL robots.txt allows: false drops it as robots.txt would (counted in
   * `droppedByRobots`, handed to `onDropped` with its allowing verdict). RobotsGuard uses it for
   * an origin whose Crawl-delay is over its `crawlDelay.maxSeconds` with `overMax: 'skip'`, so
   * that what the seeder counts as kept is what the queue gets.
   * @default none: every allowed URL is kept
   */
  keep?: (check: RobotsCheck) => boolean;
  /**
   * Receives each URL a filter dropped (cross-host, include, exclude, lastmod, invalid). Not awaited.
   * @default none: the URLs are only counted
   */
  onFiltered?: (record: SitemapFilteredUrl) => void;
  /**
   * Receives each sitemap file read (counted in `sitemapsRead`), with its format and how many
   * entries it held, once it has been read. Not awaited.
   * @default none: the files are only counted
   */
  onSitemapRead?: (sitemap: SitemapFileRead) => void;
  /**
   * The router label put on every request.
   * @default none
   */
  label?: string;
  /**
   * Extra `userData` put on every request (next to `sitemapUrl` and `lastmod`).
   * @default none
   */
  userData?: Record<string, unknown>;
  /**
   * Keep only URLs matching at least one of these patterns (matched against the whole URL,
   * case-sensitively). An empty list keeps everything.
   * @default []
   */
  include?: readonly SitemapUrlPattern[];
  /**
   * Drop URLs matching any of these patterns.
   * @default []
   */
  exclude?: readonly SitemapUrlPattern[];
  /**
   * Keep only URLs whose `lastmod` is at or after this date. Index entries are filtered too:
   * a child sitemap whose `lastmod` is older is not requested at all (sitemaps.org: the
   * sitemap's `lastmod` is when the file last changed). A string is read as `lastmod` values
   * are: a date or date-time without a zone is UTC, whatever the machine's time zone.
   * @default none
   */
  modifiedSince?: Date | string | number;
  /**
   * With `modifiedSince`, keep URLs (and child sitemaps) that give no readable `lastmod`.
   * @default true
   */
  keepUndated?: boolean;
  /**
   * sitemaps.org: all URLs of a sitemap must be on the sitemap's own host, unless the sitemap
   * was submitted through the robots.txt of the URLs' host (cross-submission). URLs on other
   * hosts are dropped (`cross-host`), and so are children of an index on other hosts. `false`
   * keeps them.
   * @default true
   */
  sameHostOnly?: boolean;
  /**
   * When a site's robots.txt lists no sitemap, try `/sitemap.xml`, `/sitemap_index.xml` and
   * `/sitemap.txt`. A missing one is not a failure, nor is one that answers something other
   * than a sitemap (an app's HTML page for any path, a soft 404). None is tried while the site's robots.txt is
   * unreachable (a complete disallow, RFC 9309 2.3.1.4): they are counted as skipped.
   * @default false
   */
  tryCommonPaths?: boolean;
  /**
   * Check sitemap files themselves, and each redirect target before it is requested, against
   * the robots.txt of their origin. Sitemaps listed in their own origin's robots.txt, their
   * children and redirect targets on that origin, and redirect targets listed in their own
   * origin's robots.txt are always read: the site invited the crawler to them. A refused one is
   * a failure.
   * @default true
   */
  checkSitemapUrls?: boolean;
  /**
   * A site whose robots.txt is unreachable (5xx, 429, network failure) has unknown `Sitemap:`
   * lines. The run asks the store about it again at each attempt the store plans (its `retry`
   * backoff: with the store's defaults, a minute later, then two...) while it reads other
   * sitemaps, and reads the site as soon as robots.txt answers. This is how long after the run
   * began it goes on waiting once it has nothing else to read; a site still unreachable then is
   * a failure. A sitemap given, listed in robots.txt or named by an index whose own origin's
   * robots.txt is unreachable waits the same way, and is checked again once robots.txt answers.
   * The default never makes a run last longer.
   * @default 0
   */
  unreachableWaitMs?: number;
  /**
   * Hand URLs whose origin's robots.txt is unreachable (5xx, 429, network failure: a complete
   * disallow, RFC 9309 2.3.1.4) to `enqueue` instead of `onDropped`, for a request queue whose
   * guard defers and rechecks them.
   * @default false
   */
  enqueueWhenRobotsUnreachable?: boolean;
  /**
   * Requests per `enqueue` call. Keep it at 1000 or less for Crawlee: larger batches are added in
   * the background and the backpressure is lost.
   * @default 1000
   */
  batchSize?: number;
  /**
   * Sitemap files read at the same time: a whole number, 1 or more. The `max*` limits are whole
   * numbers too, or `Infinity` for no limit.
   * @default 3
   */
  concurrency?: number;
  /**
   * Most URLs (or child sitemaps) read from one file; the rest of the file is ignored with a warning.
   * @default 50000 (sitemaps.org)
   */
  maxUrlsPerFile?: number;
  /**
   * Most octets read from one file after decompression; the rest is not downloaded. Also the cap
   * against gzip bombs.
   * @default 52428800 (50 MiB, sitemaps.org)
   */
  maxBytesPerFile?: number;
  /**
   * Most page URLs found in a run; then the run stops.
   * @default 10000000
   */
  maxUrls?: number;
  /**
   * Most sitemap files requested in a run; further children are skipped.
   * @default 10000
   */
  maxSitemaps?: number;
  /**
   * Most octets read in a run after decompression; then the run stops.
   * @default 10737418240 (10 GiB)
   */
  maxTotalBytes?: number;
  /**
   * How deep indexes are followed: the given sitemaps are depth 0, their children depth 1.
   * sitemaps.org forbids indexes in indexes, but sites nest them.
   * @default 5
   */
  maxDepth?: number;
  /**
   * How often a progress line is logged, in ms; 0 turns it off (the final summary stays).
   * @default 10000
   */
  progressIntervalMs?: number;
  /**
   * Most entries kept in `failures` and in `warnings` each (the counts stay exact).
   * @default 1000
   */
  maxReportedProblems?: number;
  /**
   * Stops the run in any phase: the robots.txt fetches it waits for (discovery, the checks of
   * sitemaps and URLs) are no longer waited for, and the files being read are abandoned at once. A
   * call to `enqueue` or `onDropped` in progress is waited for; the result so far is returned.
   * @default none
   */
  signal?: AbortSignal;
}
