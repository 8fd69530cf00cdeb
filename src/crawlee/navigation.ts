import type { Request } from 'crawlee';
import { withoutCredentials } from '../fetch/index.js';
import { waitFor } from './crawl-delay.js';
import { type CrawlerInternals, sendsThroughGotScraping } from './crawler-internals.js';
import { type CdpSessionLike, FrameTargetSession, watchFrameTargets } from './frame-targets.js';
import { RecentKeys } from './recent-keys.js';
import type { RobotsDropStage } from './record.js';
import { type NavigationBlock, type RobotsSkipError, robotsSkip } from './skip.js';

/** `allow`, or how to stop the navigation. */
export type HopVerdict = 'allow' | NavigationBlock;

/** What the navigation checks need from the guard. */
export interface HopChecker {
  /**
   * Checks a URL a request is about to reach (a redirect hop, a navigation). A stopped URL is
   * recorded; `deferrable` says whether the request itself can wait (for an unreachable
   * robots.txt, or for the Crawl-delay slot of the origin a redirect enters); `from` is the URL
   * that redirected to it.
   */
  checkHop(
    crawler: CrawlerInternals,
    request: Request,
    url: string,
    stage: RobotsDropStage,
    deferrable: boolean,
    from?: string,
  ): Promise<HopVerdict>;
  /**
   * {@link checkHop} from memory, for callers that must answer at once (a `followRedirect`
   * callback); undefined when the policy of the URL's origin is not in memory.
   */
  checkHopCached(
    crawler: CrawlerInternals,
    request: Request,
    url: string,
    stage: RobotsDropStage,
    deferrable: boolean,
    from?: string,
  ): HopVerdict | undefined;
  /** Remembers what to do with a request whose navigation was stopped (read in the error path). */
  block(request: Request, block: NavigationBlock): void;
  /** Warns once when the User-Agent the crawler really sends lacks the product token. */
  observeUserAgent(userAgent: unknown): void;
  /**
   * A request leaves now (a goto's page load as the browser lets it go, an HTTP request as got
   * sends it): how many milliseconds it must still wait to follow the last one of its origin by
   * the Crawl-delay.
   */
  leavesNow(url: string): number;
  /**
   * An HTTP request of `url` was written to its connection now (see CrawlDelayPacer.written).
   */
  written(url: string): void;
  /**
   * An HTTP request of `url` is about to be sent: resolves when it may go, a Crawl-delay after the
   * last request of its origin both left and was written (or after `capMs` and the delay at most),
   * with whether its origin is paced (only then does its write count, see written).
   */
  sendWhenDue(url: string, capMs: number): Promise<boolean>;
  /**
   * A page load of `url` in the browser waits for the last one of its origin to be answered (or
   * `capMs` and the Crawl-delay at most): resolves with the function that lets the next one go.
   */
  inLine(url: string, capMs: number): Promise<() => void>;
  /**
   * The browser has the response of a document of `url`: its request reached the server by now,
   * which may be well after it left the browser (a new connection). The next page load of the
   * origin waits its Crawl-delay from here at least.
   */
  answered(url: string): void;
  /** True once a User-Agent was observed (nothing more to learn from the next ones). */
  readonly userAgentObserved: boolean;
}

interface GotHooksLike {
  beforeRequest?: unknown[];
  beforeRedirect?: unknown[];
}

interface GotOptionsLike {
  headers?: Record<string, unknown>;
  hooks?: GotHooksLike;
  /** Part of Crawlee's BaseHttpClient interface: every client is asked to honour it. */
  followRedirect?: unknown;
}

/** A function got sends a request with (its `request` option). */
type RequestFunction = (url: URL, options: unknown, callback?: unknown) => unknown;

/** got's options as its `beforeRequest` hooks see them, for {@link reportWrite}. */
interface GotRequestOptionsLike {
  url: URL | string;
  request?: RequestFunction;
  getFallbackRequestFunction?: () => RequestFunction | undefined;
}

/** The function a wrapper of {@link reportWrite} wraps. */
const wrappedRequest = Symbol('wrappedRequest');

/**
 * Calls `report` with the URL of each request got sends with `options` (each redirect hop runs
 * the `beforeRequest` hooks again) once the request is written to its connection: its
 * ClientRequest's `finish`, which a request on a new connection emits once the connection is
 * open and the request written to it. A request that fails before is not reported. got-scraping's
 * own hook sets the request function before each hop (HTTP/2 for https, or got's own); it is
 * wrapped once, and got's fallback stands in for none.
 */
function reportWrite(options: GotRequestOptionsLike, report: (url: string) => void): void {
  const current = options.request as (RequestFunction & { [wrappedRequest]?: RequestFunction }) | undefined;
  const inner = current !== undefined && wrappedRequest in current ? current[wrappedRequest] : current;
  const watch = (request: unknown, url: URL): unknown => {
    if (
      request !== null &&
      typeof request === 'object' &&
      typeof (request as { once?: unknown }).once === 'function'
    ) {
      (request as { once(event: string, listener: () => void): void }).once('finish', () =>
        report(String(url)),
      );
    }
    return request;
  };
  const wrapper = Object.assign(
    (url: URL, requestOptions: unknown, callback?: unknown): unknown => {
      // got falls back to its own function when there is none, or it returns nothing.
      const request =
        inner?.(url, requestOptions, callback) ??
        options.getFallbackRequestFunction?.()?.(url, requestOptions, callback);
      return request instanceof Promise ? request.then((r) => watch(r, url)) : watch(request, url);
    },
    { [wrappedRequest]: inner },
  );
  options.request = wrapper;
}

/**
 * The preNavigationHook of HTTP crawlers (HttpCrawler, CheerioCrawler, JSDOMCrawler, ...) on
 * Crawlee's own got-scraping client (any other `httpClient`: {@link httpClientNavigationHooks}). got's
 * `beforeRedirect` hooks run for every hop before it is requested (DESIGN.md): a hop into a
 * disallowed path, on the same origin or another, is stopped there and never sent. The thrown
 * {@link RobotsSkipError} reaches Crawlee wrapped in got's RequestError; the guard's error path
 * turns it into a skip.
 */
export function httpNavigationHook(
  guard: HopChecker,
  crawler: CrawlerInternals,
  userAgent: string | undefined,
) {
  return (context: { request: Request }, gotOptions: GotOptionsLike): void => {
    if (userAgent !== undefined) gotOptions.headers = { ...gotOptions.headers, 'user-agent': userAgent };
    const hooks = gotOptions.hooks ?? {};
    gotOptions.hooks = hooks;
    // The header got-scraping generates is only known in got's own beforeRequest hooks.
    if (userAgent === undefined && !guard.userAgentObserved) {
      hooks.beforeRequest = [
        ...(hooks.beforeRequest ?? []),
        (options: { headers: Record<string, unknown> }) =>
          guard.observeUserAgent(options.headers['user-agent']),
      ];
    }
    hooks.beforeRequest = [
      ...(hooks.beforeRequest ?? []),
      // got sends the request after the last navigation hook: tens of milliseconds later for a
      // new connection, while a request of the same origin planned after it may already be going.
      // Paced from what really left or was answered, as a browser's page loads are, and from when
      // the request before it was written, if that was later (a new connection): the server has
      // it no sooner.
      pacedAsSent(guard, crawler.navigationTimeoutMillis ?? 60_000),
    ];
    hooks.beforeRedirect = [
      ...(hooks.beforeRedirect ?? []),
      async (options: { url: URL | string }, response?: { url?: string }) => {
        const hop = String(options.url);
        const from = typeof response?.url === 'string' ? response.url : context.request.url;
        // The redirect is an answer of its origin: the hop, and the origin's next request, follow it
        // by the delay. Paced from when the request before it was handed to got, a hop reusing the
        // connection came up to 15 ms short behind a request that waited for a new one.
        guard.answered(from);
        const verdict = await guard.checkHop(crawler, context.request, hop, 'redirect', true, from);
        if (verdict === 'allow') return;
        guard.block(context.request, verdict);
        throw robotsSkip(withoutCredentials(hop), 'redirect');
      },
    ];
  };
}

/** What a client hands a `followRedirect` function: got's response, or a fetch-like one. */
interface RedirectResponseLike {
  url?: unknown;
  headers?: unknown;
}

/** The response an HTTP crawler got from its client (a stream with the client's fields). */
interface ClientResponseLike {
  url?: unknown;
  redirectUrls?: unknown;
  destroy?: () => void;
}

/** What the hooks learnt of one navigation's redirects through a custom client. */
interface ClientRedirects {
  /** The hops `followRedirect` let the client follow (absolute URLs, without fragment). */
  readonly followed: Set<string>;
  /** The URL the next hop redirects from. */
  from: string;
  /**
   * The hop `followRedirect` stopped. `decided`: the guard recorded or deferred it; otherwise its
   * origin's robots.txt was not in memory, and it is decided after the response.
   */
  stopped?: { url: string; from: string; decided: boolean };
}

/** The options a handler may give `context.sendRequest` (got's, through Crawlee's BaseHttpClient). */
interface SendRequestOverrides {
  url?: unknown;
  headers?: Record<string, unknown>;
  hooks?: { beforeRequest?: unknown[] } & Record<string, unknown>;
  [option: string]: unknown;
}

/**
 * `context.sendRequest`, with which a handler fetches on its own (a BasicCrawler's only way to
 * fetch). What it fetches is not checked against robots.txt (README), but:
 *
 * - with `userAgent`, it sends that User-Agent instead of the one Crawlee makes up (a browser's,
 *   without the product token), unless the request's headers or the call's own name one;
 * - with `pacer` (a BasicCrawler's guard), a call that fetches the request's own URL is paced as it
 *   is sent, as an HTTP crawler's page request is. Its Crawl-delay slot was taken as the request
 *   left the queue, but the handler sends it when it gets there: after a slow step of its own, or
 *   tens of milliseconds later on a new connection. The origin's next request follows it by the
 *   delay from when it really left and was written, and from its response (see
 *   httpNavigationHook). On another client than got-scraping, from when it was handed over and
 *   answered.
 */
export function guardSendRequest(
  crawler: CrawlerInternals,
  userAgent: string | undefined,
  pacer: HopChecker | undefined,
): void {
  const run = crawler._runRequestHandler;
  if (typeof run !== 'function' || (userAgent === undefined && pacer === undefined)) return;
  const throughGot = sendsThroughGotScraping(crawler);
  crawler._runRequestHandler = function (this: unknown, context) {
    const send = context.sendRequest as ((options: SendRequestOverrides) => Promise<unknown>) | undefined;
    if (typeof send === 'function') {
      const { request } = context;
      context.sendRequest = (overrides: SendRequestOverrides = {}) => {
        let options = overrides;
        if (userAgent !== undefined) {
          const headers: Record<string, unknown> = { ...(overrides.headers ?? request.headers) };
          if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent'))
            headers['user-agent'] = userAgent;
          options = { ...options, headers };
        }
        const own = overrides.url === undefined || String(overrides.url) === request.url;
        if (pacer === undefined || !own) return send(options);
        // Through got, the request waits in got's hook as it is sent; another client, before.
        const sent = throughGot
          ? withSendPacing(options, pacer, crawler.requestHandlerTimeoutMillis ?? 60_000)
          : options;
        return sendPaced(pacer, request.url, () => send(sent), !throughGot);
      };
    }
    return run.call(this, context);
  };
}

/**
 * got's `beforeRequest` hook that holds each request (each redirect hop too) until its origin's
 * Crawl-delay turn (see HopChecker.sendWhenDue; a turn lasts `capMs` and the delay at most), and
 * reports when a paced one is written to its connection.
 */
function pacedAsSent(guard: HopChecker, capMs: number) {
  return async (options: GotRequestOptionsLike): Promise<void> => {
    const paced = await guard.sendWhenDue(String(options.url), capMs);
    if (paced) reportWrite(options, (written) => guard.written(written));
  };
}

/** `options` with the guard's got hook that paces each request as it is sent (see pacedAsSent). */
function withSendPacing(
  options: SendRequestOverrides,
  pacer: HopChecker,
  capMs: number,
): SendRequestOverrides {
  const hooks = options.hooks ?? {};
  return {
    ...options,
    hooks: { ...hooks, beforeRequest: [...(hooks.beforeRequest ?? []), pacedAsSent(pacer, capMs)] },
  };
}

/**
 * Sends a request of `url` with `send`, first waiting for its origin's Crawl-delay when `waitFirst`
 * (a client with no hook to wait in). Its response, and the final URL's after redirects, count for
 * the next request of each origin.
 */
export async function sendPaced(
  pacer: Pick<HopChecker, 'leavesNow' | 'answered'>,
  url: string,
  send: () => Promise<unknown>,
  waitFirst: boolean,
): Promise<unknown> {
  if (waitFirst) {
    const wait = pacer.leavesNow(url);
    if (wait > 0) await waitFor(wait);
  }
  const response = await send();
  pacer.answered(url);
  const finalUrl = (response as { url?: unknown } | undefined)?.url;
  if (typeof finalUrl === 'string' && finalUrl !== url) pacer.answered(finalUrl);
  return response;
}

/**
 * The hooks of HTTP crawlers whose `httpClient` is not Crawlee's own got-scraping client. Such a
 * client gets got's `hooks` as an option it does not know; what Crawlee's BaseHttpClient interface
 * does define is `followRedirect`, which may be a function asked before each hop is followed. So:
 *
 * - the preNavigationHook sets `followRedirect`: a hop whose origin's robots.txt is in memory is
 *   decided there, before it is requested; a hop into a disallowed path (or waiting for a
 *   Crawl-delay slot) is not followed; a hop into an origin not in memory is not followed either,
 *   and once that robots.txt is read the request is fetched again, the hop decided then;
 * - the postNavigationHook, first of all, turns a stopped hop into a skip (or a deferral) before
 *   any other hook or handler sees the response; and when the client followed redirects without
 *   asking `followRedirect` (node's fetch, for one, cannot ask), it warns once and checks the URLs
 *   the response was reached through (the client's `redirectUrls`, or the final URL): a response
 *   reached through a disallowed URL is dropped and recorded with stage `navigation`, as the
 *   router middleware does, since those hops were requested before anyone could check them.
 */
export function httpClientNavigationHooks(
  guard: HopChecker,
  crawler: CrawlerInternals,
  userAgent: string | undefined,
  clientName: string,
) {
  const redirects = new WeakMap<Request, ClientRedirects>();
  /**
   * Per request, a hop found allowed after the response that stopped at it: the request is fetched
   * again and the hop followed at once (it already took its origin's Crawl-delay slot).
   */
  const allowedHops = new Map<string, string>();
  let warned = false;

  const follow = (request: Request, state: ClientRedirects, response: RedirectResponseLike): boolean => {
    // got asks again for the response it stopped at (isResponseOk): one answer, one record.
    if (state.stopped !== undefined) return false;
    const from = typeof response?.url === 'string' ? response.url : state.from;
    // An answer of its origin: the origin's next request follows it by the delay.
    guard.answered(from);
    const hop = redirectTarget(response, from);
    // Unknown target: the client finds it on its own; the URLs it reached are checked after.
    if (hop === undefined) return true;
    if (state.from === hop && state.followed.has(hop)) return true; // asked again for the same hop
    const key = request.id ?? request.uniqueKey;
    let verdict: HopVerdict | undefined;
    if (allowedHops.get(key) === hop) {
      allowedHops.delete(key);
      verdict = 'allow';
    } else {
      try {
        verdict = guard.checkHopCached(crawler, request, hop, 'redirect', true, from);
      } catch {
        verdict = undefined; // decided after the response, where errors can surface
      }
    }
    if (verdict === 'allow') {
      state.followed.add(hop);
      state.from = hop;
      return true;
    }
    state.stopped = { url: hop, from, decided: verdict !== undefined };
    if (verdict !== undefined) guard.block(request, verdict);
    return false;
  };

  const pre = (context: { request: Request }, gotOptions: GotOptionsLike): void => {
    const { request } = context;
    if (userAgent !== undefined) gotOptions.headers = { ...gotOptions.headers, 'user-agent': userAgent };
    const state: ClientRedirects = { followed: new Set(), from: withoutFragment(request.url) };
    redirects.set(request, state);
    const own = gotOptions.followRedirect;
    if (own === false) return;
    // The user's own followRedirect (a hook before this one may have set it) is asked first.
    gotOptions.followRedirect = (response: RedirectResponseLike): boolean =>
      (typeof own !== 'function' || Boolean(own(response))) && follow(request, state, response);
  };

  const post = async (context: { request: Request; response?: unknown }): Promise<void> => {
    const { request } = context;
    const response = context.response as ClientResponseLike | undefined;
    const state = redirects.get(request);
    redirects.delete(request);
    const stopped = state?.stopped;
    if (stopped !== undefined) {
      if (!stopped.decided) {
        const verdict = await guard.checkHop(crawler, request, stopped.url, 'redirect', true, stopped.from);
        if (verdict === 'allow') allowedHops.set(request.id ?? request.uniqueKey, stopped.url);
        // Allowed: the client did not follow it, so the request is fetched again at once.
        guard.block(request, verdict === 'allow' ? { action: 'defer', until: 0 } : verdict);
      }
      response?.destroy?.();
      throw robotsSkip(withoutCredentials(stopped.url), 'redirect');
    }
    const unasked = reachedUrls(request, response).filter((url) => !state?.followed.has(url));
    if (unasked.length === 0) return;
    if (!warned) {
      warned = true;
      crawler.log.warning(
        `RobotsGuard: the crawler's httpClient (${clientName}) followed a redirect to ${withoutCredentials(unasked[unasked.length - 1])} without asking its followRedirect option, so its redirect hops cannot be checked against robots.txt before they are requested. A response reached through a disallowed URL is dropped before your handlers see it, and recorded with stage 'navigation'. Use a client that calls followRedirect, or Crawlee's default one.`,
      );
    }
    for (const url of unasked) {
      const verdict = await guard.checkHop(crawler, request, url, 'navigation', true);
      if (verdict === 'allow') continue;
      guard.block(request, verdict);
      response?.destroy?.();
      throw robotsSkip(withoutCredentials(url), 'navigation');
    }
  };

  return { pre, post };
}

/** The absolute URL a redirect response points to (its `Location`), without fragment. */
function redirectTarget(response: RedirectResponseLike | undefined, from: string): string | undefined {
  const headers = response?.headers as
    | { get?: (name: string) => string | null; location?: unknown }
    | undefined;
  const location = typeof headers?.get === 'function' ? headers.get('location') : headers?.location;
  if (typeof location !== 'string') return undefined;
  try {
    return withoutFragment(new URL(location, from).href);
  } catch {
    return undefined;
  }
}

/**
 * The URLs other than the request's own that a response was reached through: the client's
 * `redirectUrls` when it tells them (got does), else the final URL.
 */
function reachedUrls(request: Request, response: ClientResponseLike | undefined): string[] {
  const own = withoutFragment(request.url);
  const hops = Array.isArray(response?.redirectUrls) ? response.redirectUrls.map(String) : [];
  if (typeof response?.url === 'string') hops.push(response.url);
  const urls = new Set<string>();
  for (const hop of hops) {
    const url = withoutFragment(hop);
    if (url !== own) urls.add(url);
  }
  return [...urls];
}

/** The URL as `new URL()` writes it, without its fragment (never sent, so never a hop of its own). */
function withoutFragment(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

interface BrowserLike {
  newBrowserCDPSession(): Promise<CdpSessionLike>;
}

interface PageLike {
  context(): { newCDPSession(page: PageLike): Promise<CdpSessionLike>; browser(): BrowserLike | null };
  once(event: 'close', listener: () => void): unknown;
  on(event: 'requestfailed', listener: (request: PageRequestLike) => void): unknown;
  mainFrame(): unknown;
  goto(url: string, options?: unknown): Promise<unknown>;
}

/** A request of the page as Playwright reports it. */
interface PageRequestLike {
  url(): string;
  isNavigationRequest(): boolean;
  frame(): unknown;
  existingResponse?(): unknown;
}

interface RequestPausedEvent {
  requestId: string;
  /** The request's id in the Network domain: one request has the same in every session that pauses it. */
  networkId?: string;
  request: { url: string; method: string; headers: Record<string, string> };
  frameId: string;
  resourceType?: string;
  redirectedRequestId?: string;
  /** Set (with the headers) when the request is paused at the Response stage. */
  responseStatusCode?: number;
  responseStatusText?: string;
  responseErrorReason?: string;
  responseHeaders?: { name: string; value: string }[];
}

/** One `page.goto` of a crawled page: its first request and the redirects that continue it. */
interface GotoChain {
  /** The crawler's own navigation (the request's page load): a stopped hop may defer the request. */
  readonly own: boolean;
  /** The Fetch id of the chain's last request: a redirect continues the chain when it names it. */
  requestId?: string;
  /** The chain's last URL, where its next redirect comes from. */
  url?: string;
  /** The hop of the chain that was stopped (and recorded), and what the guard does with the request. */
  stopped?: { url: string; stage: RobotsDropStage; block: NavigationBlock };
}

interface PageState {
  readonly request: Request;
  /**
   * True from the last preNavigationHook until the first postNavigationHook: a goto then is the
   * crawler's own; one in the user's hooks, as in the handler, is the handler's.
   */
  crawlerNavigation: boolean;
  /** The `page.goto` running now, if any. */
  goto?: GotoChain;
  /** True once a navigation of the page that no `page.goto` made was stopped (and recorded). */
  navigationStopped?: boolean;
  /**
   * The navigations of the page that no `page.goto` made and the guard stopped: the URL each
   * started from (the one Playwright's error names, a redirect's included) and the URL stopped.
   */
  readonly stoppedUrls: Set<string>;
  /** The URL each navigation of the page that no `page.goto` made started from, by Fetch id. */
  readonly navigationStarts: Map<string, string>;
}

/** The isolated world the speculation-rules sweeper runs in, out of the page's sight. */
const SWEEPER_WORLD = 'crawlee-robots';

/**
 * Runs in every new document of a crawled page, before its own scripts: removes each
 * `<script type="speculationrules">` as it is inserted. Chromium sends the prefetches and
 * prerenders these rules ask for from the browser process, through no loader the page's CDP
 * session can intercept (measured with Chromium 156: `Fetch` never pauses them), so the rules
 * are taken away before they act. The parser runs microtasks before it prepares a script
 * element (HTML, "An end tag whose tag name is script"), so a parsed rule set is gone before it
 * is read; a script-inserted one is removed before its candidates reach the browser (measured:
 * appended, filled in later, from a fragment, from document.write).
 *
 * Rules inside a shadow root act too, and a document's observer sees nothing in one: each open
 * shadow root met is observed as the document is. A declarative one (`<template
 * shadowrootmode="open">`) is attached as the parser meets the template, before the rules in it
 * are prepared, so it is met on its host, or on the host's next change (measured with Chromium
 * 156). Each element is looked at once, so a large insertion costs one walk of it. Not met: a
 * root a page script attaches (`attachShadow`) after its host was looked at, a closed one (no
 * script of another world reaches it), and a declarative one attached after its host was looked
 * at: its template directly follows a script in the host, or the parser paused between the
 * host and the template. Where the guard chose the profile, Chromium's preloading is off as well
 * (`chromiumPreloadsNothing`), and these act no more than the rules swept.
 */
const SPECULATION_RULES_SWEEPER = `(() => {
  const isRuleSet = (node) =>
    node instanceof HTMLScriptElement &&
    (node.getAttribute('type') || '').trim().toLowerCase() === 'speculationrules';
  const seen = new WeakSet();
  const watched = new WeakSet();
  const look = (element) => {
    if (seen.has(element)) return;
    seen.add(element);
    if (isRuleSet(element)) element.remove();
    else if (element.shadowRoot) watch(element.shadowRoot);
  };
  const sweep = (node) => {
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
    if (node.nodeType === Node.ELEMENT_NODE) look(node);
    if (node.firstElementChild !== null) for (const element of node.querySelectorAll('*')) look(element);
  };
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      if (isRuleSet(record.target)) record.target.remove();
      else if (record.target.shadowRoot) watch(record.target.shadowRoot);
      for (const node of record.addedNodes) sweep(node);
    }
  });
  const watch = (root) => {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, { childList: true, subtree: true });
    sweep(root);
  };
  observer.observe(document, { childList: true, subtree: true });
})();`;

/**
 * The hooks of PlaywrightCrawler with Chromium. `page.route` sees only the first URL of each
 * navigation, never a redirect hop (DESIGN.md, measured with Chromium 156), so a CDP session with
 * `Fetch.enable` at the Request stage for `Document` resources is opened before the first `goto`:
 * every hop of every navigation (goto, redirects, script navigations, meta refresh, iframes)
 * pauses there before it leaves the browser, and a disallowed one is failed with
 * `Fetch.failRequest`, so its server gets nothing.
 *
 * `page.goto` is wrapped to tell its own requests from the page's: its first request and each
 * redirect that continues that chain (by Fetch request id) are the goto's; any other request of
 * the page (a script navigation, its redirects, an iframe) is a navigation of its own, recorded
 * with stage `navigation` when stopped. When a hop of the crawler's own goto is stopped, the
 * goto's error carries the verdict to the guard's error path (skip, or defer); when a hop of a
 * goto the handler (or a navigation hook of the user) makes is stopped, that goto throws a
 * {@link RobotsSkipError}: the handler may catch it, and if it does not, the request is skipped,
 * not retried. A stopped navigation the handler awaits otherwise (`frame.goto`, a click and
 * `waitForNavigation`) fails with Playwright's own error; `blockOf` has it skipped all the same.
 *
 * Speculative loads never leave the browser: Chromium's preloading is off where the guard chose
 * the profile (`chromiumPreloadsNothing`, which the guard sets up), speculation rules are removed
 * from the page's documents (see {@link SPECULATION_RULES_SWEEPER}), a `Speculation-Rules`
 * response header is dropped at the Response stage, `<link rel=prefetch>` requests
 * (`Sec-Purpose: prefetch`) are failed, and prerendering is turned off for the page. Pings
 * (`<a ping>`, `navigator.sendBeacon`) are failed too: POSTs a click of the crawler's would send
 * anywhere. Nor do the browser's own requests (resource type `Other`: the page's icon, fetched
 * after each page load, even one robots.txt disallows), while the page is open: one made as the
 * page closes can still go out, seen now and then when a handler returns at once. The crawler
 * gains nothing from them, and an allowed one would still bypass the origin's Crawl-delay; none
 * is recorded, since no URL of the crawl was left out (a page that then navigates there is
 * checked as any navigation).
 *
 * Popups (`window.open`, `target=_blank` links and forms) are pages of their own that the page's
 * session does not see; a {@link PopupBlocker} per browser stops their navigations and hands
 * their URLs to `run.enqueue`, so they are crawled, or dropped, as requests of their own. The run
 * is held (`run.hold`) from a popup's creation until its first navigation is decided: a handler
 * whose last act opens one (a click on a `target=_blank` link) would otherwise end the run first.
 */
export function browserNavigationHooks(
  guard: HopChecker,
  crawler: CrawlerInternals,
  userAgent: string | undefined,
  run: PopupRun,
) {
  const states = new WeakMap<object, PageState>();
  /** Errors of `page.goto` calls the guard stopped nothing of: they are never the guard's stop. */
  const gotoFailures = new WeakSet<Error>();
  const popupBlockers = new WeakMap<BrowserLike, Promise<PopupBlocker>>();
  let warned = false;
  let warnedPopups = false;

  const enqueuePopup = (url: string, method: string, openerUrl: string | undefined): void => {
    const opener = openerUrl === undefined ? '' : ` opened by ${withoutCredentials(openerUrl)}`;
    if (method !== 'GET' || !/^https?:/i.test(url)) {
      crawler.log.debug(
        `RobotsGuard: stopped a ${method} popup to ${withoutCredentials(url)}${opener}; only GET popups are enqueued.`,
      );
      return;
    }
    crawler.log.debug(`RobotsGuard: popup ${withoutCredentials(url)}${opener} is enqueued instead.`);
    run
      .enqueue(url)
      .catch((error: unknown) =>
        crawler.log.exception(
          error as Error,
          `RobotsGuard: enqueueing popup ${withoutCredentials(url)} failed`,
        ),
      );
  };

  /**
   * A frame of a popup is checked as an iframe of the crawled page whose popup it is (the root of
   * its opener chain): recorded with stage `navigation` against that page's request when stopped.
   */
  const checkPopupFrame = async (opener: TrackedPage, url: string): Promise<boolean> => {
    let verdict: HopVerdict;
    try {
      verdict = await guard.checkHop(crawler, opener.request, url, 'navigation', false);
    } catch (error) {
      crawler.log.exception(error as Error, `RobotsGuard: checking ${withoutCredentials(url)} failed`);
      return false;
    }
    if (verdict === 'allow') return true;
    const state = states.get(opener.page as object);
    if (state !== undefined) {
      state.navigationStopped = true;
      state.stoppedUrls.add(withoutFragment(url));
    }
    return false;
  };

  /** The popup blocker of the page's browser, opened once per browser, before its first goto. */
  const popupBlockerOf = async (page: PageLike): Promise<PopupBlocker | undefined> => {
    try {
      const browser = page.context().browser();
      if (browser === null) throw new Error('the page has no browser');
      let blocker = popupBlockers.get(browser);
      if (blocker === undefined) {
        blocker = PopupBlocker.open(browser, { onPopup: enqueuePopup, checkPopupFrame, hold: run.hold });
        popupBlockers.set(browser, blocker);
        blocker.catch(() => popupBlockers.delete(browser));
      }
      return await blocker;
    } catch (error) {
      if (!warnedPopups) {
        warnedPopups = true;
        crawler.log.warning(
          `RobotsGuard: no browser CDP session (${(error as Error).message}); popups opened by pages are not checked against robots.txt.`,
        );
      }
      return undefined;
    }
  };

  /**
   * Wraps the page's `goto` (once per page) so that each call starts a chain of its own, and its
   * failure through a stopped hop reaches the guard: the verdict is handed over only then, so it
   * never outlives the navigation it stopped.
   */
  const wrapGoto = (page: PageLike): void => {
    const goto = page.goto;
    if ((goto as { robotsGuarded?: true }).robotsGuarded) return;
    const guarded = async (url: string, options?: unknown): Promise<unknown> => {
      const state = states.get(page);
      if (state === undefined) return goto.call(page, url, options);
      const chain: GotoChain = { own: state.crawlerNavigation };
      state.goto = chain;
      try {
        return await goto.call(page, url, options);
      } catch (error) {
        const { stopped } = chain;
        if (stopped === undefined) {
          if (error instanceof Error) gotoFailures.add(error);
          throw error;
        }
        if (chain.own) {
          guard.block(state.request, stopped.block);
          throw error;
        }
        const skip = robotsSkip(withoutCredentials(stopped.url), stopped.stage);
        skip.cause = error;
        throw skip;
      } finally {
        if (state.goto === chain) state.goto = undefined;
      }
    };
    page.goto = Object.assign(guarded, { robotsGuarded: true as const });
  };

  const pre = async (context: { request: Request; page?: PageLike }): Promise<void> => {
    const { page, request } = context;
    let session: CdpSessionLike;
    try {
      if (page === undefined) throw new Error('no page in the crawling context');
      session = await page.context().newCDPSession(page);
    } catch (error) {
      if (!warned) {
        warned = true;
        crawler.log.warning(
          `RobotsGuard: no CDP session (${(error as Error).message}); redirect hops and page navigations are not checked. Use Chromium, and router.use(guard.middleware()) for the final URL.`,
        );
      }
      return;
    }
    const state: PageState = {
      request,
      crawlerNavigation: false,
      stoppedUrls: new Set(),
      navigationStarts: new Map(),
    };
    states.set(page as object, state);
    /**
     * The page loads of the page that left the browser and have no answer yet, by Fetch id: each
     * lets the next page load of its origin go once it is answered (see HopChecker.inLine).
     */
    const unanswered = new Map<string, { url: string; next: () => void }>();
    /**
     * The browser has heard back from a page load (a response, a redirect, an error), gave it up,
     * or never will: when `answered`, the guard is told of an answer; the next page load of the
     * origin may go. False when `requestId` is no paced page load waiting for its answer.
     */
    const answer = (requestId: string, answered: boolean): boolean => {
      const load = unanswered.get(requestId);
      if (load === undefined) return false;
      unanswered.delete(requestId);
      if (answered) guard.answered(load.url);
      load.next();
      return true;
    };
    page.once('close', () => {
      for (const load of unanswered.values()) load.next();
      unanswered.clear();
    });
    // A page load the browser cancels once it left (the page navigates again before it is answered,
    // `window.stop()`) pauses at no stage of Fetch: Playwright's `requestfailed` tells of it, from
    // the Network domain Playwright keeps on anyway (on this session, it would send every request's
    // events twice). It may have reached the server at any time until then, so it counts as
    // answered now. It has no Fetch id there: the oldest of the main frame's page loads of its URL
    // is the one.
    page.on('requestfailed', (failed) => {
      if (!failed.isNavigationRequest() || failed.frame() !== page.mainFrame()) return;
      // One with a response was answered at the Response stage; its body is what failed.
      if (failed.existingResponse?.()) return;
      const url = failed.url();
      for (const [requestId, load] of unanswered) {
        if (load.url === url) {
          answer(requestId, true);
          return;
        }
      }
    });
    wrapGoto(page);
    const { frameTree } = (await session.send('Page.getFrameTree')) as {
      frameTree: { frame: { id: string } };
    };
    const mainFrameId = frameTree.frame.id;
    const popupBlocker = await popupBlockerOf(page);
    popupBlocker?.trackPage(mainFrameId, { page, request });

    const onNavigation = async (target: CdpSessionLike, event: RequestPausedEvent): Promise<void> => {
      const hop = event.request;
      if (!guard.userAgentObserved)
        guard.observeUserAgent(hop.headers['User-Agent'] ?? hop.headers['user-agent']);
      const redirect = event.redirectedRequestId !== undefined;
      const chain = state.goto;
      // The goto's first request in the main frame, and each redirect of that chain, are the goto's;
      // anything else (a script navigation and its redirects, an iframe) is stopped on its own.
      const owned =
        chain !== undefined &&
        event.frameId === mainFrameId &&
        (redirect ? event.redirectedRequestId === chain.requestId : chain.requestId === undefined);
      const from = owned && redirect ? chain.url : undefined;
      if (owned) {
        chain.requestId = event.requestId;
        chain.url = hop.url;
      }
      // Where a navigation of the page's own began: Playwright's error names that URL, not the hop.
      let start = hop.url;
      if (!owned) {
        const before = redirect ? state.navigationStarts.get(event.redirectedRequestId!) : undefined;
        if (before !== undefined) {
          start = before;
          state.navigationStarts.delete(event.redirectedRequestId!);
        }
        state.navigationStarts.set(event.requestId, start);
      }
      const stage: RobotsDropStage = owned && redirect ? 'redirect' : 'navigation';
      let verdict: HopVerdict;
      try {
        verdict = await guard.checkHop(crawler, request, hop.url, stage, owned && chain.own, from);
      } catch (error) {
        // A navigation that cannot be checked (a closed store) does not leave the browser; its
        // goto fails as a navigation error, retried and reported by the crawler.
        crawler.log.exception(error as Error, `RobotsGuard: checking ${withoutCredentials(hop.url)} failed`);
        await target
          .send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
          .catch(ignoreClosed);
        return;
      }
      if (verdict === 'allow') {
        // The origin's Crawl-delay holds for every page load of the main frame: a goto's (the
        // crawler's or the handler's), a navigation the page starts, and each of their redirect
        // hops. The redirect ended the turn of the request it answers (see onPaused), so a hop
        // within the origin leaves a delay after it, as in HTTP crawlers; a hop of the crawler's
        // own goto into another origin took that origin's slot aside (see checkHop), and is spaced
        // here from a request that went out late before it. Each wait counts against the goto's
        // timeout. Frames load with their page, unpaced: held a whole delay each, a page of
        // several would outlast its navigation timeout.
        if (event.frameId !== mainFrameId) {
          // Told before it goes on, so the popup blocker, which pauses it next, knows it at once.
          popupBlocker?.letThrough(event.networkId);
          await target.send('Fetch.continueRequest', { requestId: event.requestId }).catch(ignoreClosed);
          return;
        }
        // One page load of an origin at a time, from one's answer to the next's leaving: the
        // browser sends some a little later than others (see CrawlDelayPacer.inLine).
        const next = await guard.inLine(hop.url, crawler.navigationTimeoutMillis ?? 60_000);
        const wait = guard.leavesNow(hop.url);
        if (wait > 0) await waitFor(wait);
        unanswered.set(event.requestId, { url: hop.url, next });
        // Not sent (the page closed, the navigation was cancelled while it waited): no answer to wait for.
        await target
          .send('Fetch.continueRequest', { requestId: event.requestId })
          .catch(() => answer(event.requestId, false));
        return;
      }
      // Told before the request fails, so the goto's error (or the handler's) finds it.
      if (owned) chain.stopped = { url: hop.url, stage, block: verdict };
      else {
        state.navigationStopped = true;
        state.stoppedUrls.add(withoutFragment(start));
        state.stoppedUrls.add(withoutFragment(hop.url));
      }
      // Blocked, Chromium's error page commits in the frame; aborted, the frame keeps the document
      // it has. The crawler's own goto is blocked, and so is a navigation of the page while a goto
      // loads it: aborted then, the document being loaded never fires its load event, and the
      // goto times out. Anything else is aborted: an error page would interrupt the page's next
      // goto (a handler that catches the RobotsSkipError could not go on), leave the handler a
      // page with nothing of the site on it, and throw away the state of scripts running there
      // (Crawlee's enqueueLinksByClickingElements crashed on it).
      const blocked = owned ? chain.own : state.goto !== undefined;
      const errorReason = blocked ? 'BlockedByClient' : 'Aborted';
      await target.send('Fetch.failRequest', { requestId: event.requestId, errorReason }).catch(ignoreClosed);
    };

    const onPaused = async (target: CdpSessionLike, event: RequestPausedEvent): Promise<void> => {
      if (event.responseStatusCode !== undefined || event.responseErrorReason !== undefined) {
        // A paced page load's answer is told to the guard as its turn ends; any other document's here.
        if (!answer(event.requestId, true) && event.responseStatusCode !== undefined) {
          guard.answered(event.request.url);
        }
        await continueWithoutSpeculationRules(target, event);
        return;
      }
      // A redirect is the answer of the request it continues.
      if (event.redirectedRequestId !== undefined) answer(event.redirectedRequestId, true);
      const own = isBrowserOwnRequest(event);
      // Hyperlink auditing (`<a ping>`, sent as a link is clicked) and `navigator.sendBeacon`.
      const ping = event.resourceType === 'Ping';
      if (own || ping || isSpeculative(event.request.headers)) {
        const what = own ? "the browser's own request" : ping ? 'a ping' : 'a speculative load';
        crawler.log.debug(`RobotsGuard: stopped ${what} of ${withoutCredentials(event.request.url)}.`);
        await target
          .send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
          .catch(ignoreClosed);
        return;
      }
      if (event.resourceType !== 'Document') {
        await target.send('Fetch.continueRequest', { requestId: event.requestId }).catch(ignoreClosed);
        return;
      }
      await onNavigation(target, event);
    };
    /** Watches the page, or an out-of-process iframe of it (see {@link watchFrameTargets}). */
    const watch = async (target: CdpSessionLike): Promise<void> => {
      if (userAgent !== undefined) await target.send('Emulation.setUserAgentOverride', { userAgent });
      // Init scripts of a session run only while its Page domain is enabled.
      await target.send('Page.enable');
      await target.send('Page.addScriptToEvaluateOnNewDocument', {
        source: SPECULATION_RULES_SWEEPER,
        worldName: SWEEPER_WORLD,
      });
      target.on('Fetch.requestPaused', (event: RequestPausedEvent) => {
        void onPaused(target, event);
      });
      await target.send('Fetch.enable', {
        patterns: [
          { resourceType: 'Document', requestStage: 'Request' },
          // For its Speculation-Rules header.
          { resourceType: 'Document', requestStage: 'Response' },
          // `<link rel=prefetch>`, which Chromium 156 pauses as a Fetch (its filter knows no Prefetch).
          { resourceType: 'Fetch', requestStage: 'Request' },
          // Requests of the browser's own, not of the page: the page's icon (`/favicon.ico`, or
          // its `<link rel=icon>`), fetched after each page load.
          { resourceType: 'Other', requestStage: 'Request' },
          // `<a ping>` and beacons: POSTs that a click of the crawler's would send anywhere.
          { resourceType: 'Ping', requestStage: 'Request' },
        ],
      });
      // A frame of another site inside this one is a target of its own, seen by no session above.
      await watchFrameTargets(target, (frame) => watch(frame).catch(ignoreClosed));
    };
    // A prerendered page is a target this session does not see (experimental command: best effort).
    await session.send('Page.setPrerenderingAllowed', { isAllowed: false }).catch(() => undefined);
    await watch(session);
  };

  /** The crawler's own goto comes next (the last preNavigationHook). */
  const navigate = (context: { page?: PageLike }): void => {
    const state = context.page === undefined ? undefined : states.get(context.page as object);
    if (state !== undefined) state.crawlerNavigation = true;
  };

  /** The crawler's own goto is over (the first postNavigationHook). */
  const post = (context: { page?: PageLike }): void => {
    const state = context.page === undefined ? undefined : states.get(context.page as object);
    if (state !== undefined) state.crawlerNavigation = false;
  };

  /**
   * A request with `skipNavigation` runs no navigation hooks, yet its handler may navigate the
   * page: such a page is watched from its creation, each of its gotos the handler's own.
   */
  const pageCreated = async (page: object, request: Request): Promise<void> => {
    if (!request.skipNavigation) return;
    await pre({ request, page: page as PageLike });
  };

  /**
   * What to do with a request whose processing failed. A navigation stopped outside a `page.goto`
   * (`frame.goto`, a click or a script awaited with `waitForNavigation`) fails in Playwright with
   * Chromium's `net::ERR_ABORTED`, not a {@link RobotsSkipError}: once the guard has stopped a
   * navigation of the page, the request is skipped as for a stopped goto, since a retry would
   * only be stopped, and recorded, again, unless the error names a URL whose navigation the guard
   * did not stop. Such a stop is never deferrable, so never a deferral.
   */
  const blockOf = (context: { page?: unknown }, error: Error): NavigationBlock | undefined => {
    const state = context.page === undefined ? undefined : states.get(context.page as object);
    if (!state?.navigationStopped || !/net::ERR_(ABORTED|BLOCKED_BY_CLIENT)\b/.test(error.message ?? ''))
      return undefined;
    // A page.goto the guard let through failed on its own (a 204, a download): a failure to retry,
    // whatever the guard stopped on the page before.
    if (isOrCausedBy(error, gotoFailures)) return undefined;
    // A navigation the guard let through that failed on its own (`frame.goto` of a 204): the error
    // names its URL, which is none the guard stopped.
    const failed = /net::ERR_(?:ABORTED|BLOCKED_BY_CLIENT) at (\S+)/.exec(error.message ?? '')?.[1];
    if (failed !== undefined && !state.stoppedUrls.has(withoutFragment(failed))) return undefined;
    return { action: 'skip' };
  };

  return { pre, navigate, post, pageCreated, blockOf };
}

/** True when `error`, or one of its causes, is in `errors`. */
function isOrCausedBy(error: unknown, errors: WeakSet<Error>): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (errors.has(current)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * True for a request of the browser's own (resource type `Other`): the page's icon (`/favicon.ico`,
 * or its `<link rel=icon>`), asked for as an image, or with a document's `Accept` when it is
 * fetched again as the page's scripts go on (Crawlee's clicks). The script of a worker the page
 * starts (`new Worker`, `SharedWorker`, a service worker) pauses as `Other` too, asked for as the
 * Fetch standard asks for a worker's script, with `Accept: *\/*` and nothing else: a subresource
 * of the page, let through as the others are (failed, the page's workers never start; measured
 * with Chromium 156).
 */
function isBrowserOwnRequest(event: RequestPausedEvent): boolean {
  if (event.resourceType !== 'Other') return false;
  for (const [name, value] of Object.entries(event.request.headers)) {
    if (name.toLowerCase() === 'accept') return value.trim() !== '*/*';
  }
  return true;
}

/** True for a request the browser makes on speculation: `Sec-Purpose: prefetch` (or the older `Purpose`). */
function isSpeculative(headers: Record<string, string>): boolean {
  for (const [name, value] of Object.entries(headers)) {
    const header = name.toLowerCase();
    if ((header === 'sec-purpose' || header === 'purpose') && /(^|[;,\s])prefetch($|[;,\s])/i.test(value))
      return true;
  }
  return false;
}

/**
 * Lets a document response through, without its `Speculation-Rules` header: the rules it names
 * would make the browser prefetch or prerender on its own (see {@link SPECULATION_RULES_SWEEPER}).
 */
async function continueWithoutSpeculationRules(
  session: CdpSessionLike,
  event: RequestPausedEvent,
): Promise<void> {
  const headers = event.responseHeaders ?? [];
  const kept = headers.filter((header) => header.name.toLowerCase() !== 'speculation-rules');
  if (kept.length === headers.length || event.responseStatusCode === undefined) {
    await session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(ignoreClosed);
    return;
  }
  await session
    .send('Fetch.continueResponse', {
      requestId: event.requestId,
      responseCode: event.responseStatusCode,
      ...(event.responseStatusText ? { responsePhrase: event.responseStatusText } : {}),
      responseHeaders: kept,
    })
    .catch(ignoreClosed);
}

/** The page (and its session) may close while a hop is paused: nothing is left to answer. */
function ignoreClosed(): void {}

/** A crawled page, as the popup blocker knows it: the page and the request it was opened for. */
interface TrackedPage {
  readonly page: PageLike;
  readonly request: Request;
}

/** What the crawl does for popups: adds a popup's URL as a request; keeps the run going meanwhile. */
export interface PopupRun {
  enqueue(url: string): Promise<unknown>;
  /** Keeps the run from finishing until `work` settles. */
  hold(work: Promise<unknown>): void;
}

/** What the popup blocker hands back to the crawler's hooks. */
interface PopupHandlers {
  /** A popup's navigation was stopped: its URL, to be enqueued. `openerUrl` is the crawled page's. */
  onPopup(url: string, method: string, openerUrl: string | undefined): void;
  /** A frame of a popup, to be checked as an iframe of `opener`, the crawled page: true lets it go. */
  checkPopupFrame(opener: TrackedPage, url: string): Promise<boolean>;
  /** Keeps the run from finishing until `work` settles. */
  hold(work: Promise<unknown>): void;
}

/** A target as `Target.getTargets` describes it. */
interface TargetInfoLike {
  targetId: string;
  type: string;
  openerId?: string;
  /** The page an out-of-process iframe's target is in. */
  parentId?: string;
}

interface FrameTreeLike {
  frame: { id: string };
  childFrames?: FrameTreeLike[];
}

/** Where a document request the page sessions did not let through comes from. */
type RequestPlace =
  /** The main frame of a popup. */
  | { kind: 'popup'; opener?: TrackedPage }
  /** Another frame of a popup of a crawled page, or of one whose crawled opener is gone (none). */
  | { kind: 'popup-frame'; opener?: TrackedPage }
  /** A frame of a crawled page, of a page the handler opened, or of a popup of the latter. */
  | { kind: 'other' };

/** How many document requests the page sessions let through are remembered, until the blocker sees them. */
const LET_THROUGH_LIMIT = 1000;

/** How long a popup's frame tree is waited for (a popup just opened may not answer at once). */
const FRAME_TREE_TIMEOUT_MS = 2000;

/**
 * How long the run is held for a new popup's first navigation. A popup opened empty
 * (`window.open('')`) makes none: at the end of a run it delays the end by this much.
 */
const POPUP_HOLD_MS = 2000;

/**
 * Stops the navigations of popups, the pages a crawled page opens (`window.open`, with or without
 * `noopener`, `target=_blank` links and forms). Such a page is a new target: the page's own CDP
 * session neither sees it nor auto-attaches to it, and `context.on('page')` comes after its first
 * request was sent (measured with Chromium 156, playwright 1.65). A browser-level session with
 * `Fetch.enable` for `Document` requests pauses every document request of the browser after the
 * page sessions let it through; one whose frame is the main frame of a target with an opener is a
 * popup's: it is failed before it is sent, the popup closed, and its URL handed to `onPopup`.
 *
 * A popup opened empty (`window.open('')`) sends no request and stays open; what its opener's
 * script loads into it (an iframe written into its document) is checked as an iframe of the
 * crawled page at the root of its opener chain. The page sessions tell the blocker each frame's
 * document they let through, by its `networkId` (the same in every session, where the Fetch id is
 * not): those, and the crawled pages' main frames, go on at once. Any other is held while its page
 * is looked for (`Target.getTargets`, then the frame trees of the popups).
 *
 * The same session fails the browser's own requests (`Other`: the page's icon), which a page's
 * session stops only while the page is open.
 */
class PopupBlocker {
  /** The crawler's own pages, by main frame id (their targets' ids). */
  readonly #pages = new Map<string, TrackedPage>();
  /** The document requests of frames the page sessions let through, by `networkId`. */
  readonly #letThrough = new RecentKeys(LET_THROUGH_LIMIT);
  /** Sessions attached to a popup for its frame tree, by session id. */
  readonly #attached = new Map<string, FrameTargetSession>();
  /**
   * The opener of each popup open now, as it was when the popup was made. Chromium forgets a
   * popup's opener once the opener closes: a popup still open after its crawled page (Crawlee
   * closes it after the handler) would look like a page of no one's, and go anywhere.
   */
  readonly #openers = new Map<string, string>();
  /** Popups whose first navigation is awaited, by target id: each releases its hold of the run. */
  readonly #awaited = new Map<string, () => void>();
  /** Popups whose first navigation is being decided now: they are released once it is. */
  readonly #deciding = new Set<string>();

  private constructor(
    private readonly session: CdpSessionLike,
    private readonly handlers: PopupHandlers,
  ) {}

  static async open(browser: BrowserLike, handlers: PopupHandlers): Promise<PopupBlocker> {
    const session = await browser.newBrowserCDPSession();
    const blocker = new PopupBlocker(session, handlers);
    session.on('Fetch.requestPaused', (event: RequestPausedEvent) => {
      void blocker.#onPaused(event);
    });
    session.on('Target.receivedMessageFromTarget', (event: { sessionId: string; message: string }) => {
      blocker.#attached.get(event.sessionId)?.receive(event.message);
    });
    session.on('Target.detachedFromTarget', (event: { sessionId: string }) => {
      blocker.#attached.get(event.sessionId)?.detach();
      blocker.#attached.delete(event.sessionId);
    });
    session.on('Target.targetCreated', (event: { targetInfo: TargetInfoLike }) => {
      const { targetId, type, openerId } = event.targetInfo;
      if (type === 'page' && openerId !== undefined) {
        blocker.#openers.set(targetId, openerId);
        blocker.#hold(targetId);
      }
    });
    session.on('Target.targetDestroyed', (event: { targetId: string }) => {
      blocker.#openers.delete(event.targetId);
      blocker.#release(event.targetId);
    });
    // Before Fetch: a popup is made before its first request is paused.
    await session.send('Target.setDiscoverTargets', { discover: true });
    await session.send('Fetch.enable', {
      patterns: [
        { resourceType: 'Document', requestStage: 'Request' },
        // The page's icon: a page's own session stops it while the page is open, but lets go what
        // it holds, and what comes after it, as the page closes (2 pages of 40 sent it, measured).
        { resourceType: 'Other', requestStage: 'Request' },
        // `<a ping>` and beacons, which a page's session fails while the page is open, sent as it
        // closes (a `pagehide` or `visibilitychange` listener).
        { resourceType: 'Ping', requestStage: 'Request' },
      ],
    });
    return blocker;
  }

  /** A page of the crawler, about to be navigated: its documents are not popups (a fast path). */
  trackPage(mainFrameId: string, page: TrackedPage): void {
    if (!this.#pages.has(mainFrameId)) page.page.once('close', () => this.#pages.delete(mainFrameId));
    this.#pages.set(mainFrameId, page);
  }

  /** A page session let a frame's document request go on: the blocker lets it go too, at once. */
  letThrough(networkId: string | undefined): void {
    if (networkId !== undefined) this.#letThrough.add(networkId);
  }

  /** Holds the run until the first navigation of the new popup `targetId` is decided. */
  #hold(targetId: string): void {
    if (this.#awaited.has(targetId)) return;
    let settle!: () => void;
    const decided = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const timer = setTimeout(() => this.#release(targetId), POPUP_HOLD_MS);
    timer.unref();
    this.#awaited.set(targetId, () => {
      clearTimeout(timer);
      settle();
    });
    this.handlers.hold(decided);
  }

  /**
   * Ends the hold of popup `targetId`, unless its navigation is being decided: that decision ends
   * it, after the enqueue has taken the run over.
   */
  #release(targetId: string): void {
    const settle = this.#awaited.get(targetId);
    if (settle === undefined || this.#deciding.has(targetId)) return;
    this.#awaited.delete(targetId);
    settle();
  }

  async #onPaused(event: RequestPausedEvent): Promise<void> {
    // A popup's first navigation: its hold of the run ends once it is decided, and its URL, if
    // stopped, is enqueued (which holds the run in turn).
    const popup =
      event.resourceType === 'Document' && this.#awaited.has(event.frameId) ? event.frameId : undefined;
    if (popup === undefined) return this.#decide(event);
    this.#deciding.add(popup);
    try {
      await this.#decide(event);
    } finally {
      this.#deciding.delete(popup);
      this.#release(popup);
    }
  }

  async #decide(event: RequestPausedEvent): Promise<void> {
    const { requestId } = event;
    if (event.resourceType === 'Ping') {
      await this.session
        .send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })
        .catch(ignoreClosed);
      return;
    }
    if (event.resourceType === 'Other') {
      // The page's icon is failed; a worker's script (also `Other`) is the page's, and goes on.
      await (isBrowserOwnRequest(event)
        ? this.session.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })
        : this.session.send('Fetch.continueRequest', { requestId })
      ).catch(ignoreClosed);
      return;
    }
    // `||` in this order: a known request is forgotten as it is seen.
    const known =
      (event.networkId !== undefined && this.#letThrough.delete(event.networkId)) ||
      this.#pages.has(event.frameId);
    let place: RequestPlace = { kind: 'other' };
    if (!known) {
      try {
        place = await this.#placeOf(event.frameId);
      } catch {
        // the browser is closing: nothing is left to answer
      }
    }
    const { url, method } = event.request;
    if (place.kind === 'other') {
      await this.session.send('Fetch.continueRequest', { requestId }).catch(ignoreClosed);
      return;
    }
    if (place.kind === 'popup-frame' && place.opener !== undefined) {
      const allowed = await this.handlers.checkPopupFrame(place.opener, url);
      await (allowed
        ? this.session.send('Fetch.continueRequest', { requestId })
        : this.session.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' })
      ).catch(ignoreClosed);
      return;
    }
    await this.session
      .send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })
      .catch(ignoreClosed);
    // The popup is closed; a frame of a popup whose crawled opener is gone leaves its popup open.
    if (place.kind === 'popup') {
      await this.session.send('Target.closeTarget', { targetId: event.frameId }).catch(ignoreClosed);
    }
    this.handlers.onPopup(url, method, place.opener?.request.url);
  }

  /** Where the frame `frameId` is: a popup's main frame, another frame of a popup, or elsewhere. */
  async #placeOf(frameId: string): Promise<RequestPlace> {
    const { targetInfos } = (await this.session.send('Target.getTargets')) as {
      targetInfos: TargetInfoLike[];
    };
    // A popup whose opener closed is still a popup, its opener chain broken.
    const targets = new Map(
      targetInfos.map((target) => {
        const opener = target.openerId === undefined ? this.#openers.get(target.targetId) : undefined;
        return [target.targetId, opener === undefined ? target : { ...target, openerId: opener }];
      }),
    );
    let holder = targets.get(frameId);
    if (holder?.type === 'page') {
      return holder.openerId === undefined
        ? { kind: 'other' }
        : { kind: 'popup', opener: this.#openerOf(holder, targets)?.opener };
    }
    if (holder === undefined) {
      // A frame in its parent's process is no target: it is in the frame tree of a popup (or of one
      // of its out-of-process iframes), or else in a page that is no popup.
      const candidates = [...targets.values()].filter(
        (target) => (target.type === 'page' || target.type === 'iframe') && isPopup(pageOf(target, targets)),
      );
      const holds = await Promise.all(
        candidates.map((target) => this.#frameTreeHolds(target.targetId, frameId)),
      );
      holder = candidates.find((_target, index) => holds[index]);
    }
    const page = holder === undefined ? undefined : pageOf(holder, targets);
    if (page === undefined || !isPopup(page)) return { kind: 'other' };
    const root = this.#openerOf(page, targets);
    // A popup of a page the handler opened itself is no crawled page's: its frames go on.
    if (root === undefined) return { kind: 'other' };
    return { kind: 'popup-frame', opener: root.opener };
  }

  /**
   * The crawled page at the root of `popup`'s opener chain (`opener` undefined when the chain
   * breaks: an opener closed); undefined when the chain ends at a page that is not the crawler's.
   */
  #openerOf(
    popup: TargetInfoLike,
    targets: Map<string, TargetInfoLike>,
  ): { opener?: TrackedPage } | undefined {
    let target: TargetInfoLike | undefined = popup;
    // Bounded, should ids ever loop.
    for (let depth = 0; depth < 100 && target !== undefined; depth++) {
      const tracked = this.#pages.get(target.targetId);
      if (tracked !== undefined) return { opener: tracked };
      // An opener may be an out-of-process iframe: its page comes next.
      const next: string | undefined = target.openerId ?? target.parentId;
      if (next === undefined) return undefined;
      target = targets.get(next);
    }
    return { opener: undefined };
  }

  /** True when the frame tree of `targetId` holds `frameId` (attached to it for the question). */
  async #frameTreeHolds(targetId: string, frameId: string): Promise<boolean> {
    let sessionId: string;
    try {
      ({ sessionId } = (await this.session.send('Target.attachToTarget', { targetId, flatten: false })) as {
        sessionId: string;
      });
    } catch {
      return false; // closed meanwhile
    }
    const target = new FrameTargetSession(this.session, sessionId);
    this.#attached.set(sessionId, target);
    const timeout = setTimeout(() => target.detach(), FRAME_TREE_TIMEOUT_MS);
    try {
      const { frameTree } = (await target.send('Page.getFrameTree')) as { frameTree: FrameTreeLike };
      return treeHolds(frameTree, frameId);
    } catch {
      return false;
    } finally {
      clearTimeout(timeout);
      this.#attached.delete(sessionId);
      target.detach();
      await this.session.send('Target.detachFromTarget', { sessionId }).catch(ignoreClosed);
    }
  }
}

/** The page target `target` is (itself), or is an out-of-process iframe of. */
function pageOf(target: TargetInfoLike, targets: Map<string, TargetInfoLike>): TargetInfoLike | undefined {
  let current: TargetInfoLike | undefined = target;
  for (let depth = 0; depth < 100 && current !== undefined; depth++) {
    if (current.type === 'page') return current;
    current = current.parentId === undefined ? undefined : targets.get(current.parentId);
  }
  return undefined;
}

function isPopup(page: TargetInfoLike | undefined): boolean {
  return page?.openerId !== undefined;
}

function treeHolds(tree: FrameTreeLike, frameId: string): boolean {
  return tree.frame.id === frameId || (tree.childFrames ?? []).some((child) => treeHolds(child, frameId));
}
