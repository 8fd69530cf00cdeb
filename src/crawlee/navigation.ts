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
      async (options: { url: URL | string }, response?: { url?: string }) => {
        const hop = String(options.url);
        const from = typeof response?.url === 'string' ? response.url : context.request.url;
        const verdict = await guard.checkHop(crawler, context.request, hop, 'redirect', true, from);
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

interface BrowserLike {
  newBrowserCDPSession(): Promise<CdpSessionLike>;
}

interface PageLike {
  context(): { newCDPSession(page: PageLike): Promise<CdpSessionLike>; browser(): BrowserLike | null };
  once(event: 'close', listener: () => void): unknown;
}

interface RequestPausedEvent {
  requestId: string;
  request: { url: string; method: string; headers: Record<string, string> };
  frameId: string;
  redirectedRequestId?: string;
}

interface NavigationState {
  /** True from the preNavigationHook until the postNavigationHook: hops belong to the goto. */
  inGoto: boolean;
  /** True until the goto's own first request was seen. */
  first: boolean;
  /** The last URL of the goto's own chain (its first request, then each redirect hop). */
  lastUrl: string | undefined;
}

/**
 * The hooks of PlaywrightCrawler with Chromium. `page.route` sees only the first URL of each
 * navigation, never a redirect hop (DESIGN.md, measured with Chromium 156), so a CDP session with
 * `Fetch.enable` at the Request stage for `Document` resources is opened before the first `goto`:
 * every hop of every navigation (goto, redirects, script navigations, meta refresh, iframes)
 * pauses there before it leaves the browser, and a disallowed one is failed with
 * `Fetch.failRequest`, so its server gets nothing. `goto` then throws `ERR_BLOCKED_BY_CLIENT`
 * naming the goto URL, not the hop: the hop is recorded here.
 *
 * Popups (`window.open`, `target=_blank` links and forms) are pages of their own that the page's
 * session does not see; a {@link PopupBlocker} per browser stops their navigations and hands
 * their URLs to `enqueue`, so they are crawled, or dropped, as requests of their own.
 */
export function browserNavigationHooks(
  guard: HopChecker,
  crawler: CrawlerInternals,
  userAgent: string | undefined,
  enqueue: (url: string) => Promise<unknown>,
) {
  const states = new WeakMap<object, NavigationState>();
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
    enqueue(url).catch((error: unknown) =>
      crawler.log.exception(
        error as Error,
        `RobotsGuard: enqueueing popup ${withoutCredentials(url)} failed`,
      ),
    );
  };

  /** The popup blocker of the page's browser, opened once per browser, before its first goto. */
  const popupBlockerOf = async (page: PageLike): Promise<PopupBlocker | undefined> => {
    try {
      const browser = page.context().browser();
      if (browser === null) throw new Error('the page has no browser');
      let blocker = popupBlockers.get(browser);
      if (blocker === undefined) {
        blocker = PopupBlocker.open(browser, enqueuePopup);
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
    const state: NavigationState = { inGoto: true, first: true, lastUrl: undefined };
    states.set(page as object, state);
    if (userAgent !== undefined) await session.send('Emulation.setUserAgentOverride', { userAgent });
    const { frameTree } = (await session.send('Page.getFrameTree')) as {
      frameTree: { frame: { id: string } };
    };
    const mainFrameId = frameTree.frame.id;
    const popupBlocker = await popupBlockerOf(page);
    popupBlocker?.trackPage(page, mainFrameId, request.url);

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
      const from = ownsRequest && redirect ? state.lastUrl : undefined;
      if (ownsRequest) state.lastUrl = hop.url;
      let verdict: HopVerdict = 'allow';
      try {
        verdict = await guard.checkHop(
          crawler,
          request,
          hop.url,
          redirect ? 'redirect' : 'navigation',
          ownsRequest,
          from,
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

/**
 * Stops the navigations of popups, the pages a crawled page opens (`window.open`, with or without
 * `noopener`, `target=_blank` links and forms). Such a page is a new target: the page's own CDP
 * session neither sees it nor auto-attaches to it, and `context.on('page')` comes after its first
 * request was sent (measured with Chromium 156, playwright 1.65). A browser-level session with
 * `Fetch.enable` for `Document` requests pauses every document request of the browser after the
 * page sessions let it through; one whose frame is the main frame of a target with an opener is a
 * popup's: it is failed before it is sent, the popup closed, and its URL handed to `onPopup`.
 */
class PopupBlocker {
  /** Main frames (their ids are their targets' ids) of the crawler's own pages, and their request URLs. */
  readonly #pages = new Map<string, string>();

  private constructor(
    private readonly session: CdpSessionLike,
    private readonly onPopup: (url: string, method: string, openerUrl: string | undefined) => void,
  ) {}

  static async open(
    browser: BrowserLike,
    onPopup: (url: string, method: string, openerUrl: string | undefined) => void,
  ): Promise<PopupBlocker> {
    const session = await browser.newBrowserCDPSession();
    const blocker = new PopupBlocker(session, onPopup);
    session.on('Fetch.requestPaused', (event: RequestPausedEvent) => {
      void blocker.#onPaused(event);
    });
    await session.send('Fetch.enable', { patterns: [{ resourceType: 'Document', requestStage: 'Request' }] });
    return blocker;
  }

  /** A page of the crawler, about to be navigated: its documents are not popups (a fast path). */
  trackPage(page: PageLike, mainFrameId: string, requestUrl: string): void {
    if (!this.#pages.has(mainFrameId)) page.once('close', () => this.#pages.delete(mainFrameId));
    this.#pages.set(mainFrameId, requestUrl);
  }

  async #onPaused(event: RequestPausedEvent): Promise<void> {
    let openerId: string | undefined;
    if (!this.#pages.has(event.frameId)) {
      try {
        const { targetInfo } = (await this.session.send('Target.getTargetInfo', {
          targetId: event.frameId,
        })) as { targetInfo: { type: string; openerId?: string } };
        if (targetInfo.type === 'page') openerId = targetInfo.openerId;
      } catch {
        // not a target: a frame inside a page, whose page session decides
      }
    }
    if (openerId === undefined) {
      await this.session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(ignoreClosed);
      return;
    }
    await this.session
      .send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
      .catch(ignoreClosed);
    await this.session.send('Target.closeTarget', { targetId: event.frameId }).catch(ignoreClosed);
    this.onPopup(event.request.url, event.request.method, this.#pages.get(openerId));
  }
}
