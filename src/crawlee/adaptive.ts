import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request } from 'crawlee';
import { withoutCredentials } from '../fetch/index.js';
import type { CrawlerInternals } from './crawler-internals.js';
import { sendPaced } from './navigation.js';

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
  /**
   * Whether a detection run may fetch the request's own URL, by its origin's robots.txt as it
   * reads now: the policy the request was let through with may have expired while the browser
   * handled it.
   */
  detectionMayFetch(request: Request): Promise<boolean>;
  /** The request leaves now: how long it must still wait for its origin's Crawl-delay. */
  leavesNow(url: string): number;
  /** A response of `url`'s origin came now: its next request follows it by the Crawl-delay. */
  answered(url: string): void;
  /** True when the guard stopped the run with `error` (a skip or a deferral of `request`). */
  stoppedByGuard(error: Error, request: Request): boolean;
}

/** An HTTP-only run of a request: one that handles it, or a detection run after the browser's. */
export interface PlainRun {
  readonly request: Request;
  /** A rendering-type detection run: the browser has handled the request already. */
  readonly detection: boolean;
  /**
   * Set when Crawlee is done with the run. A run that timed out is abandoned, not stopped: its
   * hooks and its fetch go on, after the request has gone to the browser or been counted.
   */
  ended: boolean;
}

/** Thrown in what is left of an HTTP-only run once it has ended: nothing more of it goes out. */
export class PlainRunEnded extends Error {
  constructor(url: string) {
    super(`The HTTP-only run of ${withoutCredentials(url)} has ended: its request is not sent.`);
    this.name = 'PlainRunEnded';
  }
}

/** Thrown to end a detection run whose fetch robots.txt no longer allows: no record, the request was handled. */
export class DetectionStopped extends Error {
  constructor(url: string) {
    super(`robots.txt does not allow ${url} now: the rendering-type detection fetch is not sent.`);
    this.name = 'DetectionStopped';
  }
}

/** The HTTP-only run the code running now belongs to, through every await of it. */
const plainRuns = new AsyncLocalStorage<PlainRun>();

/**
 * The HTTP-only run of `request` that the caller runs in, or undefined (a browser run, or no
 * AdaptivePlaywrightCrawler). A hook of a run that timed out still gets its run, ended.
 */
export function plainRunOf(request: Request): PlainRun | undefined {
  const run = plainRuns.getStore();
  return run?.request === request ? run : undefined;
}

/** True for an AdaptivePlaywrightCrawler (or a crawler built the same way). */
export function isAdaptive(crawler: CrawlerInternals): boolean {
  const adaptive = crawler as unknown as Partial<AdaptiveInternals>;
  return (
    typeof adaptive.runRequestHandlerWithPlainHTTP === 'function' &&
    typeof adaptive.shouldPropagateError === 'function'
  );
}

/** Contexts whose `sendRequest` is guarded already: one context serves every run of its request. */
const guardedContexts = new WeakSet<AdaptiveContext>();

/**
 * AdaptivePlaywrightCrawler fetches a page it predicts to be static with `sendRequest`, not with
 * the browser, and runs the navigation hooks with a context whose `page` throws. The guard's
 * browser hooks must leave such runs alone (see plainRunOf), or every one of them would fail and
 * go to the browser; its checks then go where the HTTP crawlers have them:
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
 *   from, a second argument; the HTTP-first run has one) gets the detection hooks, and its fetch
 *   is checked against robots.txt as it reads then;
 * - a run Crawlee's handler timeout abandoned sends nothing more: its hooks may still be waiting
 *   for a Crawl-delay slot when it ends, and Crawlee's own `sendRequest` follows every redirect.
 *
 * The context's `sendRequest` stays guarded for the request's other runs: a call made outside an
 * HTTP-only run (the browser run's handler) goes to Crawlee's as it is.
 */
export function guardPlainHttpRuns(crawler: CrawlerInternals, guard: PlainHttpGuard): void {
  const adaptive = crawler as unknown as AdaptiveInternals;
  const runPlain = adaptive.runRequestHandlerWithPlainHTTP;
  adaptive.runRequestHandlerWithPlainHTTP = async (context, ...rest) => {
    if (!guardedContexts.has(context)) {
      guardedContexts.add(context);
      context.sendRequest = guardedSend(context, context.sendRequest, guard);
    }
    const run: PlainRun = { request: context.request, detection: rest.length > 0, ended: false };
    try {
      return await plainRuns.run(run, () => runPlain.call(crawler, context, ...rest));
    } finally {
      run.ended = true;
    }
  };
  const propagate = adaptive.shouldPropagateError;
  adaptive.shouldPropagateError = (error, context) =>
    guard.stoppedByGuard(error, context.request) || propagate.call(crawler, error, context);
}

/** `send`, Crawlee's `sendRequest` of `context`, checked and paced when an HTTP-only run calls it. */
function guardedSend(
  context: AdaptiveContext,
  send: AdaptiveContext['sendRequest'],
  guard: PlainHttpGuard,
): AdaptiveContext['sendRequest'] {
  return async (overrides = {}) => {
    const { request } = context;
    const run = plainRunOf(request);
    if (run === undefined) return send(overrides);
    if (run.ended) throw new PlainRunEnded(request.url);
    if (run.detection && !(await guard.detectionMayFetch(request))) {
      throw new DetectionStopped(withoutCredentials(request.url));
    }
    const hooks = run.detection ? guard.detection : guard.run;
    // Crawlee's sendRequest sends the request's headers unless given others: kept, User-Agent added.
    const options: Record<string, unknown> = { headers: { ...request.headers }, ...overrides };
    hooks.pre({ request }, options);
    endsWithRun(options, run);
    const response = await sendPaced(
      guard,
      request.url,
      () => {
        if (run.ended) throw new PlainRunEnded(request.url);
        return send(options);
      },
      hooks.pacedAsSent !== true,
    );
    if (run.ended) throw new PlainRunEnded(request.url);
    await hooks.post?.({ request, response });
    return response;
  };
}

/** The options of one fetch, as the hooks of an HTTP crawler set them (got's hooks, or `followRedirect`). */
interface FetchOptionsLike {
  hooks?: { beforeRequest?: unknown[]; beforeRedirect?: unknown[] };
  followRedirect?: unknown;
}

/**
 * Makes the fetch of `run` stop where it stands once the run has ended: before it is sent (after
 * the guard's `beforeRequest` hook, which may have held it for its Crawl-delay) and before each
 * redirect hop, ahead of the guard's check of the hop, which would record a drop of a request the
 * browser now handles.
 */
function endsWithRun(options: FetchOptionsLike, run: PlainRun): void {
  const stopIfEnded = () => {
    if (run.ended) throw new PlainRunEnded(run.request.url);
  };
  const { hooks } = options;
  if (hooks !== undefined) {
    hooks.beforeRequest = [...(hooks.beforeRequest ?? []), stopIfEnded];
    hooks.beforeRedirect = [stopIfEnded, ...(hooks.beforeRedirect ?? [])];
  }
  const follow = options.followRedirect;
  if (typeof follow === 'function') {
    options.followRedirect = (...args: unknown[]) => !run.ended && follow(...args);
  }
}
