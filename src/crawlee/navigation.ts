import type { Request } from 'crawlee';
import type { CrawlerInternals } from './crawler-internals.js';
import { type RobotsDropStage, withoutCredentials } from './record.js';
import { type NavigationBlock, RobotsSkipError } from './skip.js';

/** `allow`, or how to stop the navigation. */
export type HopVerdict = 'allow' | NavigationBlock;

/** What the navigation checks need from the guard. */
export interface HopChecker {
  /**
   * Checks a URL a request is about to reach (a redirect hop, a navigation). A stopped URL is
   * recorded; `deferrable` says whether the request itself can wait for an unreachable robots.txt.
   */
  checkHop(
    crawler: CrawlerInternals,
    request: Request,
    url: string,
    stage: RobotsDropStage,
    deferrable: boolean,
  ): Promise<HopVerdict>;
  /** Remembers what to do with a request whose navigation was stopped (read in the error path). */
  block(request: Request, block: NavigationBlock): void;
  /** Warns once when the User-Agent the crawler really sends lacks the product token. */
  observeUserAgent(userAgent: unknown): void;
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
}

/**
 * The preNavigationHook of HTTP crawlers (HttpCrawler, CheerioCrawler, JSDOMCrawler, ...). got's
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
    hooks.beforeRedirect = [
      ...(hooks.beforeRedirect ?? []),
      async (options: { url: URL | string }) => {
        const hop = String(options.url);
        const verdict = await guard.checkHop(crawler, context.request, hop, 'redirect', true);
        if (verdict === 'allow') return;
        guard.block(context.request, verdict);
        throw new RobotsSkipError(withoutCredentials(hop), 'redirect');
      },
    ];
  };
}

interface CdpSessionLike {
  send(method: string, params?: object): Promise<unknown>;
  on(event: string, listener: (event: never) => void): unknown;
}

interface PageLike {
  context(): { newCDPSession(page: PageLike): Promise<CdpSessionLike> };
}

interface RequestPausedEvent {
  requestId: string;
  request: { url: string; headers: Record<string, string> };
  frameId: string;
  redirectedRequestId?: string;
}

interface NavigationState {
  /** True from the preNavigationHook until the postNavigationHook: hops belong to the goto. */
  inGoto: boolean;
  /** True until the goto's own first request was seen. */
  first: boolean;
}

/**
 * The hooks of PlaywrightCrawler with Chromium. `page.route` sees only the first URL of each
 * navigation, never a redirect hop (DESIGN.md, measured with Chromium 156), so a CDP session with
 * `Fetch.enable` at the Request stage for `Document` resources is opened before the first `goto`:
 * every hop of every navigation (goto, redirects, script navigations, meta refresh, iframes)
 * pauses there before it leaves the browser, and a disallowed one is failed with
 * `Fetch.failRequest`, so its server gets nothing. `goto` then throws `ERR_BLOCKED_BY_CLIENT`
 * naming the goto URL, not the hop: the hop is recorded here.
 */
export function browserNavigationHooks(
  guard: HopChecker,
  crawler: CrawlerInternals,
  userAgent: string | undefined,
) {
  const states = new WeakMap<object, NavigationState>();
  let warned = false;

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
    const state: NavigationState = { inGoto: true, first: true };
    states.set(page as object, state);
    if (userAgent !== undefined) await session.send('Emulation.setUserAgentOverride', { userAgent });
    const { frameTree } = (await session.send('Page.getFrameTree')) as {
      frameTree: { frame: { id: string } };
    };
    const mainFrameId = frameTree.frame.id;

    const onPaused = async (event: RequestPausedEvent): Promise<void> => {
      const hop = event.request;
      if (!guard.userAgentObserved)
        guard.observeUserAgent(hop.headers['User-Agent'] ?? hop.headers['user-agent']);
      const redirect = event.redirectedRequestId !== undefined;
      const mainFrame = event.frameId === mainFrameId;
      // The goto's first request and its redirect hops decide the request; anything else (a
      // script navigation, an iframe, a navigation after load) is stopped on its own.
      const ownsRequest = state.inGoto && mainFrame && (state.first || redirect);
      if (state.inGoto && mainFrame && !redirect) state.first = false;
      let verdict: HopVerdict = 'allow';
      try {
        verdict = await guard.checkHop(
          crawler,
          request,
          hop.url,
          redirect ? 'redirect' : 'navigation',
          ownsRequest,
        );
      } catch (error) {
        crawler.log.exception(error as Error, `RobotsGuard: checking ${withoutCredentials(hop.url)} failed`);
      }
      if (verdict === 'allow') {
        await session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(ignoreClosed);
        return;
      }
      if (ownsRequest) guard.block(request, verdict);
      await session
        .send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
        .catch(ignoreClosed);
    };
    session.on('Fetch.requestPaused', (event: RequestPausedEvent) => {
      void onPaused(event);
    });
    await session.send('Fetch.enable', { patterns: [{ resourceType: 'Document', requestStage: 'Request' }] });
  };

  const post = (context: { page?: PageLike }): void => {
    const state = context.page === undefined ? undefined : states.get(context.page as object);
    if (state !== undefined) state.inGoto = false;
  };

  return { pre, post };
}

/** The page (and its session) may close while a hop is paused: nothing is left to answer. */
function ignoreClosed(): void {}
