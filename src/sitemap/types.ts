import type { RobotsCheck } from '../store/index.js';

/**
 * One entry a sitemap file yields: a page (`url`, from a `urlset`, a text sitemap, an RSS
 * `item` or an Atom `entry`) or a child sitemap (`sitemap`, from a `sitemapindex`).
 */
export interface SitemapEntry {
  kind: 'url' | 'sitemap';
  /**
   * The location as written in the file (entities decoded, surrounding blanks removed); empty for
   * an entry that gave none (an empty `<url>`, an RSS item with a `<guid>` alone).
   */
  loc: string;
  /** `lastmod` (RSS: `pubDate`, Atom: `updated`) as written, if there was one. */
  lastmod?: string;
  /**
   * The absolute URL a relative `loc` is read against, when an `xml:base` of the file set one
   * (RFC 4287 1.2, XML Base); otherwise the file's own URL.
   */
  base?: string;
  /**
   * Set when the location is longer than `MAX_LOC_LENGTH` characters (no URL is): `loc` then
   * holds only its first `MAX_LOC_LENGTH` characters. The seeder counts such a URL as `invalid`.
   */
  tooLong?: true;
}

/** The format a sitemap file was recognised as, from its content (never from its name). */
export type SitemapFormat = 'urlset' | 'sitemapindex' | 'rss' | 'atom' | 'text' | 'unknown';

/**
 * What a request added by the seeder carries: Crawlee's `{ url, userData, label }` shape, ready
 * for `crawler.addRequests`.
 */
export interface SitemapRequest {
  url: string;
  /** The router label, when {@link SitemapSeedOptions.label} is set. */
  label?: string;
  userData: SitemapRequestUserData;
}

/** `userData` of a request that came from a sitemap. */
export interface SitemapRequestUserData {
  /** The sitemap file the URL was listed in (the URL that was requested, before redirects). */
  sitemapUrl: string;
  /** The entry's last modification, as an ISO 8601 string, when the sitemap gave a readable one. */
  lastmod?: string;
  /** Anything the caller put in {@link SitemapSeedOptions.userData}. */
  [key: string]: unknown;
}

/** A URL robots.txt does not let the crawler fetch, as {@link SitemapSeedOptions.onDropped} receives it. */
export interface SitemapDroppedUrl {
  /** Always `sitemap`: the URL was dropped before it reached the request queue. */
  stage: 'sitemap';
  url: string;
  sitemapUrl: string;
  lastmod?: string;
  /** The store's verdict: the decisive rule and its line, the group, the robots.txt status. */
  check: RobotsCheck;
}

/** Why a URL found in a sitemap was not enqueued, robots.txt aside. */
export type SitemapFilterReason =
  /** Not an absolute http(s) URL, or longer than `MAX_LOC_LENGTH` (reported cut to that length). */
  | 'invalid'
  /** On another host than its sitemap, and not vouched for by that host's robots.txt (sitemaps.org). */
  | 'cross-host'
  /** Matched none of the `include` patterns. */
  | 'include'
  /** Matched one of the `exclude` patterns. */
  | 'exclude'
  /** `lastmod` older than `modifiedSince` (or missing, with `keepUndated: false`). */
  | 'lastmod';

/** A URL that a filter dropped, as {@link SitemapSeedOptions.onFiltered} receives it. */
export interface SitemapFilteredUrl {
  url: string;
  sitemapUrl: string;
  reason: SitemapFilterReason;
}

/** A sitemap that could not be read, or a problem met while reading one. */
export interface SitemapProblem {
  /** The sitemap URL. */
  url: string;
  /** One sentence: what went wrong. */
  why: string;
  /** The index that listed it, when it was a child sitemap. */
  parent?: string;
  /**
   * Set on a failure when robots.txt does not let the crawler read the sitemap, or a redirect
   * hop of it: it was never requested, as a crawler would never learn its URLs either.
   */
  refusedByRobots?: true;
  /**
   * Set on a warning about a sitemap that was not read (a loop back to an index being read, a
   * child on another host, past a limit): the problem is in the index that lists it, `parent`.
   */
  skipped?: true;
  /**
   * What the file held, when it was read in part before it failed or the run stopped (a
   * `urlset`, a feed, ...); absent for one never read, or whose content was not recognised.
   */
  format?: SitemapFormat;
}

/** A sitemap file read, as {@link SitemapSeedOptions.onSitemapRead} receives it. */
export interface SitemapFileRead {
  url: string;
  /** The index that listed it; none for a sitemap given or declared in robots.txt. */
  parent?: string;
  format: SitemapFormat;
  /** The entries it held: URLs, or sitemaps for an index. */
  entries: number;
}

/**
 * Counters of a seeding run: the result of {@link SitemapSeeder.seed}. URLs are counted per
 * entry: a URL listed twice, in one sitemap or in two, counts twice (keeping every URL seen to
 * count it once would cost memory in proportion to the sitemaps).
 */
export interface SitemapSeedResult {
  /**
   * Sitemap files read to the end or up to a limit of their own (`maxUrlsPerFile`,
   * `maxBytesPerFile`); failed ones not included, nor files the run stopped in the middle of
   * (the signal, `maxUrls`, `maxTotalBytes`, a callback's throw): a warning names each of those.
   */
  sitemapsRead: number;
  /**
   * Sitemap files that could not be read (HTTP error, timeout, not a sitemap, robots.txt does
   * not allow it or a redirect target of it, ...), and sites whose robots.txt is unreachable.
   */
  sitemapsFailed: number;
  /**
   * Sitemaps not read: loops (an index listing an ancestor, or redirects that come back to a file
   * of the chain, which were requested), duplicates, past the depth or count limit, left unread by
   * a stop, older than `modifiedSince`, cross-host, common paths not tried because robots.txt is
   * unreachable.
   */
  sitemapsSkipped: number;
  /**
   * Of `sitemapsSkipped`, those a limit (`maxDepth`, `maxSitemaps`) or a stop left unread: what
   * they list is missing from the run, where a loop, a duplicate or an old file hides nothing.
   */
  sitemapsUnread: number;
  /** Page URL entries found in the sitemaps (before any filter). */
  urlsFound: number;
  /** URL entries handed to `enqueue` (Crawlee's queue keeps one request per URL). */
  kept: number;
  /** URL entries robots.txt does not allow, each handed to `onDropped` (the guard records a URL once). */
  droppedByRobots: number;
  /** URLs a filter dropped (sum of `filteredBy`). */
  filtered: number;
  filteredBy: Record<SitemapFilterReason, number>;
  /**
   * URL entries the run stopped (the signal, `maxUrls`) while they waited for the robots.txt of
   * their origin: neither kept nor dropped. `urlsFound` is `kept + droppedByRobots + filtered +
   * unchecked`.
   */
  unchecked: number;
  /**
   * Sitemaps that failed, with why (the first `maxReportedProblems`). A site whose robots.txt is
   * unreachable is one too, under its robots.txt URL.
   */
  failures: SitemapProblem[];
  /** Sitemaps read only in part, loops and skipped children, with why (the first `maxReportedProblems`). */
  warnings: SitemapProblem[];
  /** True when the run stopped early: a run limit was reached or the signal aborted it. */
  stoppedEarly: boolean;
  durationMs: number;
}
