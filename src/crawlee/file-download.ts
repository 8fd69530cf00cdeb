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
  /** Runs the navigation (skipped here) and the request handler, the latter under its own timeout. */
  _runRequestHandler: (this: unknown, context: StreamContext) => Promise<unknown>;
  httpClient: { stream: StreamFunction };
}

/** The guard's own navigation hooks of an HTTP crawler, in the order the crawler runs them. */
export interface GuardHttpHooks {
  /**
   * The wait for the Crawl-delay as the request goes out, run where an HTTP crawler runs its
   * navigation hooks: before the request handler, outside its timeout.
   */
  beforeHandler: (context: StreamContext) => unknown;
  /** The hooks of the fetch itself (User-Agent, redirect hops): their waits are the fetch's. */
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
    typeof download._runRequestHandler === 'function' &&
    typeof download.httpClient?.stream === 'function'
  );
}

/** The crawling context whose request handler runs now, through every await of it. */
const handlerRuns = new AsyncLocalStorage<StreamContext>();

/**
 * Runs the guard's navigation hooks around the fetch of a streaming FileDownload: the wait for the
 * Crawl-delay before the request handler, which then runs with its context known, and the
 * crawler's `httpClient` (a proxy of it, for this crawler alone) hands the stream of that
 * request's URL through the guard's other hooks, before it is sent and once it has answered, as
 * an HTTP crawler's navigation would. A robots.txt stop thrown there fails the handler, and the
 * guard's error path makes it a skip or a deferral, as for any HTTP crawler. Other calls of the
 * client (a handler's own) go through as they are.
 */
export function guardStreamingDownloads(crawler: CrawlerInternals, hooks: GuardHttpHooks): void {
  const download = crawler as unknown as StreamingDownloadInternals;
  // FileDownload gives the handler the navigation's timeout: a wait for the slot inside it would
  // fail requests that an HTTP crawler's navigation, which waits before its timer, completes.
  const runRequestHandler = download._runRequestHandler;
  download._runRequestHandler = async function (this: unknown, context: StreamContext) {
    await hooks.beforeHandler(context);
    return runRequestHandler.call(this, context);
  };
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
  download.httpClient = withStream(client, stream);
}

/**
 * `client` with `stream` in place of its own, for one crawler: a proxy of an empty object of the
 * client's class (a frozen client's own properties cannot be answered for differently), whose
 * methods run on the client itself (its private fields with them), each bound once.
 */
function withStream<T extends object>(client: T, stream: StreamFunction): T {
  const bound = new Map<unknown, unknown>();
  return new Proxy(Object.create(Object.getPrototypeOf(client)) as T, {
    get(_shell, key) {
      if (key === 'stream') return stream;
      const value = Reflect.get(client, key, client);
      if (typeof value !== 'function' || key === 'constructor') return value;
      let method = bound.get(value);
      if (method === undefined) {
        method = value.bind(client);
        bound.set(value, method);
      }
      return method;
    },
  });
}
