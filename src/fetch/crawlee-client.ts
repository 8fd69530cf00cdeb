import type { Readable } from 'node:stream';
import type { BaseHttpClient, HttpRequest, StreamingHttpResponse } from 'crawlee';
import { objectOption } from '../options.js';
import type { ContentDecoder } from './content-encoding.js';
import {
  CappedBody,
  declaredLength,
  destroyQuietly,
  failureOf,
  flattenHeaders,
  http2ResetMessage,
  proxyFailureOf,
  type RobotsHttpClient,
  type RobotsHttpRequest,
  type RobotsHttpResult,
  readBodyInto,
  watchHttp2BodyEnd,
} from './http-client.js';

/**
 * A {@link RobotsHttpClient} that sends each robots.txt request through a Crawlee
 * `BaseHttpClient`: the `httpClient` your crawler sends its pages with. A site that answers that
 * client but not got-scraping's (a 403 for another TLS fingerprint reads as "allow all", a 503
 * as "disallow all") then gives robots.txt the answer it gives your pages.
 *
 * The client is asked for one GET that does not follow redirects (the fetcher follows and
 * checks them itself), with the crawler's User-Agent and no generated headers, and asked to leave
 * the body as it was sent (`decompress: false`, which got-scraping honours). Its body stream is
 * read up to `maxBytes` and then destroyed; a content coding the client left undecoded is
 * decoded here, and a compressed body cut short is an error. A client that decodes bodies itself
 * must drop Content-Length with Content-Encoding, and fail on a cut compressed body. The client
 * is expected to honour `timeout`; whether it does or not, the request is given up, and its
 * stream destroyed, once `timeoutMs` has passed.
 *
 * @example
 * import { GotScrapingHttpClient } from 'crawlee';
 * const store = new RobotsStore({
 *   userAgent: 'ExampleBot/1.0 (+https://example.com/bot)',
 *   httpClient: new CrawleeRobotsClient(new GotScrapingHttpClient()),
 * });
 */
export class CrawleeRobotsClient implements RobotsHttpClient {
  readonly #client: BaseHttpClient;

  /** @throws TypeError when `client` has no `stream()` method. */
  constructor(client: BaseHttpClient) {
    const expected =
      "a Crawlee BaseHttpClient (the crawler's httpClient, such as new GotScrapingHttpClient())";
    if (client === undefined)
      throw new TypeError(`CrawleeRobotsClient option client must be ${expected}, got undefined.`);
    this.#client = objectOption<BaseHttpClient>('CrawleeRobotsClient', 'client', client, expected, {
      methods: ['stream'],
    })!;
  }

  async request(request: RobotsHttpRequest): Promise<RobotsHttpResult> {
    const result = await readWithin(this.#client, request);
    return request.proxyUrl === undefined ? result : proxyFailureOf(result, request.proxyUrl);
  }
}

/** One answer through `client`, given up with its stream destroyed after `timeoutMs`. */
function readWithin(client: BaseHttpClient, request: RobotsHttpRequest): Promise<RobotsHttpResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const abort = new AbortController();
    let settled = false;
    let stream: Readable | undefined;
    let decoders: readonly ContentDecoder[] = [];

    const timedOut: RobotsHttpResult = {
      ok: false,
      failure: 'timeout',
      message: `No complete answer within ${request.timeoutMs} ms.`,
    };
    const deadline = setTimeout(() => finish(timedOut), request.timeoutMs);

    function finish(result: RobotsHttpResult): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
      abort.abort();
      if (stream !== undefined) destroyQuietly(stream);
      for (const decoder of decoders) destroyQuietly(decoder.stream);
    }

    function read(response: StreamingHttpResponse): void {
      stream = response.stream;
      if (settled) {
        destroyQuietly(stream);
        return;
      }
      const status = response.statusCode;
      const headers = flattenHeaders(response.headers);
      const body = new CappedBody(request.maxBytes);
      // Late: the stream comes with its answer, and a reset that came at once went unseen.
      const resetBeforeEnd = watchHttp2BodyEnd(http2StreamOf(stream));
      const answer = (): RobotsHttpResult => ({
        ok: true,
        status,
        headers,
        body: body.bytes(),
        truncated: body.truncated,
      });
      stream.on('error', (error: unknown) => finish(failureOf(error)));
      // An error the stream met before it was handed on went to the client's own listener
      // (got-scraping's fails before `stream()` resolves): no event will say it, the deadline would.
      if (stream.errored !== null) {
        finish(failureOf(stream.errored));
        return;
      }
      // Only a 2xx body is ever used (RFC 9309 2.3.1.1).
      if (status < 200 || status > 299) {
        finish(answer());
        return;
      }
      // A coding still named is one the client left as it came (got-scraping's, asked not to
      // decode); a client that decodes drops it.
      const reading = readBodyInto(stream, headers, body, {
        full: () => finish(answer()),
        // Over HTTP/2 got ends the body before it reports the reset stream that cut it short: the
        // answer waits one turn of the event loop for that error (see http-client.ts).
        ended: () => {
          const endedAt = performance.now();
          setImmediate(() => endOfBody(endedAt));
        },
        failed: finish,
      });
      decoders = reading.decoders;

      function endOfBody(endedAt: number): void {
        if (stream?.errored) {
          finish(failureOf(stream.errored));
          return;
        }
        const resetCode = http2ResetCode(stream);
        if (resetCode !== undefined && (resetCode !== 0 || resetBeforeEnd())) {
          finish({
            ok: false,
            failure: 'connection-reset',
            message: http2ResetMessage(resetCode, reading.encodedOctets()),
          });
          return;
        }
        // A body shorter than its Content-Length was cut (RFC 9112 6.3).
        const expected = declaredLength(status, headers);
        const received = reading.encodedOctets();
        if (expected !== undefined && expected !== received) {
          finish({
            ok: false,
            failure: 'connection-reset',
            message: `The body ended after ${received} of its ${expected} octets (Content-Length).`,
          });
        } else if (endedAt - started > request.timeoutMs) {
          finish(timedOut);
        } else {
          finish(answer());
        }
      }
    }

    const asked: HttpRequest & { decompress: boolean } = {
      url: request.url.href,
      method: 'GET',
      headers: { ...request.headers },
      proxyUrl: request.proxyUrl,
      followRedirect: false,
      throwHttpErrors: false,
      useHeaderGenerator: false,
      timeout: { request: request.timeoutMs },
      signal: abort.signal,
      // Passed on to got by Crawlee's got-scraping client: the body comes as it was sent, and is
      // decoded here. Decoded by got, a compressed body cut short reads as a whole file, and the
      // octets decoded no longer add up to its Content-Length.
      decompress: false,
    };
    let opened: Promise<StreamingHttpResponse>;
    try {
      opened = Promise.resolve(client.stream(asked));
    } catch (error) {
      finish(failureOf(error));
      return;
    }
    opened.then(read, (error: unknown) => finish(failureOf(error)));
  });
}

/**
 * The RST_STREAM code of the HTTP/2 stream under a body stream of got's (Crawlee's got-scraping
 * client): got keeps http2-wrapper's request as `_request`, which keeps Node's stream as its own
 * `_request`. A session torn down ends the body cleanly and says so only there (code 8, CANCEL).
 * Undefined for other clients and over HTTP/1.1; 0 after a clean end.
 */
function http2ResetCode(stream: Readable | undefined): number | undefined {
  const code = (http2StreamOf(stream) as { rstCode?: unknown } | undefined)?.rstCode;
  return typeof code === 'number' ? code : undefined;
}

/** Node's HTTP/2 stream under a body stream of got's (see http2ResetCode), or undefined. */
function http2StreamOf(stream: Readable | undefined): unknown {
  return (stream as { _request?: { _request?: unknown } } | undefined)?._request?._request;
}
