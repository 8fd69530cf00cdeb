import type { Configuration, Log, ProxyConfiguration, Request, SkippedRequestCallback } from 'crawlee';

/**
 * The members of a Crawlee 3.18 crawler the guard reads or wraps (verified in
 * `@crawlee/basic/internals/basic-crawler.js`, `@crawlee/http`, `@crawlee/browser`). Several are
 * protected in Crawlee's types; they are reached through this one view so an upgrade of Crawlee
 * has one place to look at.
 */
export interface CrawlerInternals {
  /** The choke point: set in the constructor or lazily by `getRequestQueue()` / `run()`. */
  requestManager?: unknown;
  /** Passed to `enqueueLinks` directly, so it is wrapped too (often the same object). */
  requestQueue?: unknown;
  readonly config: Configuration;
  readonly log: Log;
  readonly stats: { requestsInProgress?: Map<string, unknown> };
  /** A single crawler option: the guard calls it for its own skips and never replaces it. */
  onSkippedRequest?: SkippedRequestCallback;
  /** HttpCrawler and BrowserCrawler: read at every navigation, so hooks pushed later count. */
  preNavigationHooks?: unknown[];
  postNavigationHooks?: unknown[];
  /** BrowserCrawler only. */
  browserPool?: unknown;
  proxyConfiguration?: ProxyConfiguration;
  /** Where Crawlee decides between retry and failure: the guard turns its own errors into skips here. */
  _requestFunctionErrorHandler(error: Error, context: { request: Request }, source: object): Promise<void>;
  run(...args: unknown[]): Promise<unknown>;
}

/**
 * Replaces a data property of the crawler by an accessor that wraps every value assigned to it,
 * including later assignments by Crawlee itself (`getRequestQueue()`, a second `run()`).
 */
export function interceptProperty(
  crawler: CrawlerInternals,
  name: 'requestManager' | 'requestQueue',
  wrap: (value: unknown) => unknown,
  unwrap: (value: unknown) => unknown,
): void {
  // Crawlee reads these properties several times per request: wrapped once per assignment.
  let wrapped = wrap(unwrap(crawler[name]));
  Object.defineProperty(crawler, name, {
    configurable: true,
    enumerable: true,
    get: () => wrapped,
    set: (value: unknown) => {
      wrapped = wrap(unwrap(value));
    },
  });
}

/**
 * Forgets the statistics job Crawlee started for a request, so the request that the guard skipped
 * counts neither as finished nor as failed (Crawlee's own robots.txt skip never starts a job).
 */
export function forgetStatisticsJob(crawler: CrawlerInternals, request: Request): void {
  crawler.stats.requestsInProgress?.delete(request.id ?? request.uniqueKey);
}

/** The kind of crawler, by what it has. */
export function crawlerKindOf(crawler: CrawlerInternals): 'browser' | 'http' | 'basic' {
  if (crawler.browserPool !== undefined && Array.isArray(crawler.preNavigationHooks)) return 'browser';
  if (Array.isArray(crawler.preNavigationHooks)) return 'http';
  return 'basic';
}
