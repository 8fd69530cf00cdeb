import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request } from 'crawlee';
import type { CrawlerInternals } from './crawler-internals.js';

/** The crawling context of an HTTP crawler, as the guard's navigation hooks read it. */
interface StreamContext {
  request: Request;
  response?: unknown;
}

/** An HTTP client's `stream`: Crawlee's BaseHttpClient. */
type StreamFunction = (request: Record<string, unknown>, handleRedirect?: unknown) => Promise<unknown>;

/** The members of Crawlee 3's FileDownload the guard reads when it is given a `streamHandler`. */
interface StreamingDownloadInternals {
  streamHandler: unknown;
  requestHandler: (this: unknown, context: StreamContext) => unknown;
  httpClient: { stream: StreamFunction };
}

/** The guard's own navigation hooks of an HTTP crawler, in the order the crawler runs them. */
export interface GuardHttpHooks {
  pre: ((context: StreamContext, options: Record<string, unknown>) => unknown)[];
  post: ((context: StreamContext) => unknown)[];
  /** A response of `url`'s origin came now: its next request follows it by the Crawl-delay. */
  answered(url: string): void;
}

/**
 * True for Crawlee's FileDownload given a `streamHandler`: it skips the navigation of every request
 * and fetches the request's URL in its request handler with `httpClient.stream`, so neither the
 * navigation hooks nor the User-Agent, Crawl-delay and redirect checks they carry would apply.
 */
export function isStreamingDownload(crawler: CrawlerInternals): boolean {
  const download = crawler as unknown as Partial<StreamingDownloadInternals>;
  return (
    typeof download.streamHandler === 'function' &&
    typeof download.requestHandler === 'function' &&
    typeof download.httpClient?.stream === 'function'
  );
}

/** The crawling context whose request handler runs now, through every await of it. */
const handlerRuns = new AsyncLocalStorage<StreamContext>();

/**
 * Runs the guard's navigation hooks around the fetch of a streaming FileDownload: the request
 * handler runs with its context known, and the crawler's `httpClient` (a proxy of it, for this
 * crawler alone) hands the stream of that request's URL through the guard's hooks, before it is
 * sent and once it has answered, as an HTTP crawler's navigation would. A robots.txt stop thrown
 * there fails the handler, and the guard's error path makes it a skip or a deferral, as for any
 * HTTP crawler. Other calls of the client (a handler's own) go through as they are.
 */
export function guardStreamingDownloads(crawler: CrawlerInternals, hooks: GuardHttpHooks): void {
  const download = crawler as unknown as StreamingDownloadInternals;
  const handler = download.requestHandler;
  download.requestHandler = function (this: unknown, context: StreamContext) {
    return handlerRuns.run(context, () => handler.call(this, context));
  };
  const client = download.httpClient;
  const stream: StreamFunction = async (request, handleRedirect) => {
    const context = handlerRuns.getStore();
    if (context === undefined || request.url !== context.request.url) {
      return client.stream(request, handleRedirect);
    }
    for (const hook of hooks.pre) await hook(context, request);
    const response = await client.stream(request, handleRedirect);
    hooks.answered(context.request.url);
    const finalUrl = (response as { url?: unknown } | undefined)?.url;
    if (typeof finalUrl === 'string' && finalUrl !== context.request.url) hooks.answered(finalUrl);
    try {
      for (const hook of hooks.post) await hook({ ...context, response });
    } catch (error) {
      // Stopped after the answer came (a redirect a custom client followed unasked): not read.
      (response as { stream?: { destroy?: () => void } } | undefined)?.stream?.destroy?.();
      throw error;
    }
    return response;
  };
  download.httpClient = new Proxy(client, {
    get(target, key) {
      if (key === 'stream') return stream;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
