import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from 'crawlee';
import type { CrawlerInternals } from './crawler-internals.js';

/** A crawling context of AdaptivePlaywrightCrawler before it has a page. */
interface AdaptiveContext {
  request: Request;
  /** Crawlee's `sendRequest`, bound to the request: the HTTP-only run fetches the page with it. */
  sendRequest(overrides?: Record<string, unknown>): Promise<unknown>;
}

/** The members of Crawlee 3.18's AdaptivePlaywrightCrawler the guard wraps (`@crawlee/playwright`). */
interface AdaptiveInternals {
  /** Runs the handler on the page fetched over plain HTTP; resolves `{ ok: false, error }` on failure. */
  runRequestHandlerWithPlainHTTP(context: AdaptiveContext, ...rest: unknown[]): Promise<unknown>;
  /** False: a failed HTTP-only run is logged as an error and the request goes to the browser. */
  shouldPropagateError(error: Error, context: AdaptiveContext): boolean | Promise<boolean>;
}

/** The navigation hooks of an HTTP crawler, as navigation.ts makes them. */
export interface PlainHttpHooks {
  /** Sets the User-Agent and the redirect checks on the request's options. */
  pre(context: { request: Request }, options: Record<string, unknown>): void;
  /** Checks what the response was reached through (custom HTTP clients only). */
  post?(context: { request: Request; response?: unknown }): Promise<void>;
  /**
   * True when `pre` paces the request for its origin's Crawl-delay as the client sends it (got's
   * `beforeRequest` hooks); otherwise the run paces it before it hands it to the client.
   */
  pacedAsSent?: boolean;
}

/** What the guard checks HTTP-only runs with (see guardPlainHttpRuns). */
export interface PlainHttpGuard {
  /** The hooks of a run that fetches the request's page instead of the browser. */
  run: PlainHttpHooks;
  /**
   * The hooks of a rendering-type detection run: the HTTP fetch Crawlee makes after a browser run
   * has handled the request, to compare the two. Nothing it meets is a drop or a deferral of the
   * request (see RobotsGuard's detection checks).
   */
  detection: PlainHttpHooks;
  /** The request leaves now: how long it must still wait for its origin's Crawl-delay. */
  leavesNow(url: string): number;
  /** A response of `url`'s origin came now: its next request follows it by the Crawl-delay. */
  answered(url: string): void;
  /** True when the guard stopped the run with `error` (a skip or a deferral of `request`). */
  stoppedByGuard(error: Error, request: Request): boolean;
}

/** True for an AdaptivePlaywrightCrawler (or a crawler built the same way). */
export function isAdaptive(crawler: CrawlerInternals): boolean {
  const adaptive = crawler as unknown as Partial<AdaptiveInternals>;
  return (
    typeof adaptive.runRequestHandlerWithPlainHTTP === 'function' &&
    typeof adaptive.shouldPropagateError === 'function'
  );
}

/**
 * AdaptivePlaywrightCrawler fetches a page it predicts to be static with `sendRequest`, not with
 * the browser, and runs the navigation hooks with a context whose `page` throws. The guard's
 * browser hooks must leave such runs alone, or every one of them would fail and go to the
 * browser; its checks then go where the HTTP crawlers have them:
 *
 * - the request of the HTTP-only run is sent with the hooks of an HTTP crawler on the crawler's
 *   `httpClient` (User-Agent, each redirect hop checked before it is followed), and paced again,
 *   once, as it is sent (by got's `beforeRequest` hook, or before another client gets it): its
 *   wait was reckoned in a navigation hook, and a browser page load of the same origin planned
 *   before it may have left the browser after that. Its response counts for the next request of
 *   the origin, as an HTTP crawler's does;
 * - a run stopped by the guard is not taken for a page that needs a browser: its error goes to
 *   the crawler's error path (where the guard skips or defers the request) instead of the
 *   browser, which would only be stopped, and recorded, again;
 * - a rendering-type detection run (Crawlee calls it with the state the browser run started
 *   from, a second argument; the HTTP-first run has one) gets the detection hooks.
 *
 * Returns the requests whose HTTP-only run is going on, for the browser hooks to leave alone.
 */
export function guardPlainHttpRuns(crawler: CrawlerInternals, guard: PlainHttpGuard): WeakSet<Request> {
  const adaptive = crawler as unknown as AdaptiveInternals;
  const running = new WeakSet<Request>();
  const runPlain = adaptive.runRequestHandlerWithPlainHTTP;
  adaptive.runRequestHandlerWithPlainHTTP = async (context, ...rest) => {
    const { request } = context;
    const hooks = rest.length > 0 ? guard.detection : guard.run;
    const send = context.sendRequest;
    context.sendRequest = async (overrides = {}) => {
      // Crawlee's sendRequest sends the request's headers unless given others: kept, User-Agent added.
      const options: Record<string, unknown> = { headers: { ...request.headers }, ...overrides };
      hooks.pre({ request }, options);
      if (hooks.pacedAsSent !== true) {
        const wait = guard.leavesNow(request.url);
        if (wait > 0) await sleep(wait);
      }
      const response = await send(options);
      guard.answered(request.url);
      // After redirects, the answer came from the last URL's origin.
      const finalUrl = (response as { url?: unknown } | undefined)?.url;
      if (typeof finalUrl === 'string' && finalUrl !== request.url) guard.answered(finalUrl);
      await hooks.post?.({ request, response });
      return response;
    };
    running.add(request);
    try {
      return await runPlain.call(crawler, context, ...rest);
    } finally {
      running.delete(request);
      context.sendRequest = send;
    }
  };
  const propagate = adaptive.shouldPropagateError;
  adaptive.shouldPropagateError = (error, context) =>
    guard.stoppedByGuard(error, context.request) || propagate.call(crawler, error, context);
  return running;
}
