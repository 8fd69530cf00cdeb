import type { EventEmitter } from 'node:events';
import { Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { gotScraping } from 'got-scraping';
import http2Wrapper from 'http2-wrapper';
import { booleanOption, type OptionKeys, refuseUnknownOptions } from '../options.js';
import { urlOrNull } from '../robots/index.js';
import { type ContentDecoder, contentDecoding } from './content-encoding.js';

/**
 * Why a request got no usable answer from the site. RFC 9309 2.3.1.4 counts all of these as
 * "unreachable": the crawler must then assume a complete disallow.
 * - `proxy-error`: the proxy refused or failed the request (a 407, a refused `CONNECT`, an error
 *   its Proxy-Status field names): the site was never asked;
 * - `decoding-error`: the body is in a content coding that cannot be decoded, or its compressed
 *   data is corrupt or cut short: what the site sent cannot be read.
 */
export type RobotsNetworkFailure =
  | 'timeout'
  | 'dns-error'
  | 'connection-refused'
  | 'connection-reset'
  | 'tls-error'
  | 'proxy-error'
  | 'decoding-error'
  | 'network-error';

/** Every {@link RobotsNetworkFailure}, to check the kind a custom client names. */
export const NETWORK_FAILURES: ReadonlySet<string> = new Set<RobotsNetworkFailure>([
  'timeout',
  'dns-error',
  'connection-refused',
  'connection-reset',
  'tls-error',
  'proxy-error',
  'decoding-error',
  'network-error',
]);

/** One HTTP GET, as {@link RobotsHttpClient.request} receives it. */
export interface RobotsHttpRequest {
  url: URL;
  /** Request headers, names in lower case. Sent as given: no generated browser headers. */
  headers: Readonly<Record<string, string>>;
  /**
   * The body of a 2xx answer is read up to this many octets after content decoding; then the
   * request is destroyed and the rest is never downloaded.
   */
  maxBytes: number;
  /** Time allowed to open the connection (DNS, TCP and TLS; for HTTP/2, its session). */
  connectTimeoutMs: number;
  /** Time allowed for the whole request, body included. */
  timeoutMs: number;
  /** Proxy to send the request through, e.g. `http://user:pass@proxy:8000`. */
  proxyUrl?: string;
}

/** An HTTP answer. The body is read for 2xx answers only; it is empty for every other status. */
export interface RobotsHttpAnswer {
  ok: true;
  status: number;
  /** Response headers, names in lower case, repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  /** The decoded body, at most `maxBytes` octets. */
  body: Uint8Array;
  /**
   * True when the body was longer than `maxBytes` and was cut there: the file goes on past it. A
   * last line the cut leaves shorter than the line length cap may be half a rule, and is not read.
   */
  truncated: boolean;
}

/** No HTTP answer: the failure kind and the underlying error message. */
export interface RobotsHttpFailure {
  ok: false;
  failure: RobotsNetworkFailure;
  message: string;
}

export type RobotsHttpResult = RobotsHttpAnswer | RobotsHttpFailure;

/**
 * The one thing the robots.txt fetcher needs from an HTTP library: a single GET that does not
 * follow redirects (the fetcher follows them itself, to record and bound every hop), decodes
 * every content coding of the body (or fails with `decoding-error`), stops reading at `maxBytes`
 * and reports failures as values. The fetcher still bounds each request by its deadline, and
 * takes a rejection or a malformed result for a `network-error`.
 *
 * Implement it to route robots.txt requests through another client (for instance Crawlee's
 * `BaseHttpClient`); {@link GotScrapingRobotsClient} is the default.
 */
export interface RobotsHttpClient {
  /** Sends one request. Never rejects: a failure is a {@link RobotsHttpFailure}. */
  request(request: RobotsHttpRequest): Promise<RobotsHttpResult>;
}

/** Options of {@link GotScrapingRobotsClient}. */
export interface GotScrapingRobotsClientOptions {
  /**
   * Accept invalid TLS certificates, like Crawlee's HTTP crawlers do by default
   * (`ignoreSslErrors`), so robots.txt is read wherever pages are; that includes a certificate
   * for another host, read over HTTP/1.1 when HTTP/2 refuses it. A failed TLS handshake is still
   * a `tls-error`.
   * @default true
   */
  ignoreTlsErrors?: boolean;
  /**
   * Let got-scraping negotiate HTTP/2 over TLS (ALPN), as Crawlee's crawlers do.
   * @default true
   */
  http2?: boolean;
}

/**
 * The default {@link RobotsHttpClient}: got-scraping, the client of Crawlee's HTTP crawlers,
 * so the same proxy and TLS handling apply. Generated browser headers are off: a robots.txt
 * is requested with the crawler's own User-Agent (RFC 9309 2.2.1).
 *
 * @example
 * const client = new GotScrapingRobotsClient();
 * const answer = await client.request({
 *   url: new URL('https://example.com/robots.txt'),
 *   headers: { 'user-agent': 'ExampleBot/1.0' },
 *   maxBytes: 512_000,
 *   connectTimeoutMs: 10_000,
 *   timeoutMs: 30_000,
 * });
 */
export class GotScrapingRobotsClient implements RobotsHttpClient {
  readonly #ignoreTlsErrors: boolean;
  readonly #http2: boolean;

  constructor(options: GotScrapingRobotsClientOptions = {}) {
    const owner = 'GotScrapingRobotsClient';
    refuseUnknownOptions(owner, options, {
      ignoreTlsErrors: true,
      http2: true,
    } satisfies OptionKeys<GotScrapingRobotsClientOptions>);
    this.#ignoreTlsErrors = booleanOption(owner, 'ignoreTlsErrors', options.ignoreTlsErrors, true);
    this.#http2 = booleanOption(owner, 'http2', options.http2, true);
  }

  async request(request: RobotsHttpRequest): Promise<RobotsHttpResult> {
    const result = await this.#request(request);
    return request.proxyUrl === undefined ? result : proxyFailureOf(result, request.proxyUrl);
  }

  async #request(request: RobotsHttpRequest): Promise<RobotsHttpResult> {
    const started = performance.now();
    const result = await this.#send(request, this.#http2);
    if (result.ok || !this.#http2 || !this.#ignoreTlsErrors || !isHttp2OriginMismatch(result.message)) {
      return result;
    }
    // http2-wrapper drops a session whose certificate does not name the host, even when invalid
    // certificates are accepted; HTTP/1.1 keeps the promise of `ignoreTlsErrors`.
    const remainingMs = request.timeoutMs - (performance.now() - started);
    if (remainingMs <= 0) return { ok: false, failure: 'timeout', message: result.message };
    return this.#send(
      {
        ...request,
        timeoutMs: remainingMs,
        connectTimeoutMs: Math.min(request.connectTimeoutMs, remainingMs),
      },
      false,
    );
  }

  #send(request: RobotsHttpRequest, http2: boolean): Promise<RobotsHttpResult> {
    let opened: unknown;
    try {
      opened = openStream(request, this.#ignoreTlsErrors, http2);
    } catch (error) {
      return Promise.resolve(failureOf(error));
    }
    if (isStream(opened)) return readAnswer(opened, request);
    // got returns a promise-like instead of a stream when it rejects the options (a proxy URL it
    // cannot parse); it rejects later, and unobserved that rejection would end the process.
    const rejected = Promise.resolve(opened).then(
      (): RobotsHttpFailure => ({
        ok: false,
        failure: 'network-error',
        message: 'got-scraping returned no stream.',
      }),
      failureOf,
    );
    return answerWithin(rejected, request.timeoutMs + DEADLINE_SLACK_MS);
  }
}

/**
 * Through a proxy, every connection goes to the proxy, whose host is the only one looked up: a
 * refused connection or an unknown host is the proxy's failure, not the site's.
 */
export function proxyFailureOf(result: RobotsHttpResult, proxyUrl: string): RobotsHttpResult {
  if (result.ok || (result.failure !== 'connection-refused' && result.failure !== 'dns-error')) return result;
  return {
    ok: false,
    failure: 'proxy-error',
    message: `the proxy ${withoutPassword(proxyUrl)} cannot be reached: ${result.message}`,
  };
}

/** The proxy protocols got-scraping supports (it refuses socks and the rest). */
const PROXY_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:']);

/**
 * Parses a proxy URL. A malformed one is a mistake in the crawler's configuration, not a
 * failure of the site: it is reported at once rather than as an unreachable robots.txt.
 *
 * @throws TypeError naming the option and the value (its password hidden).
 * @example
 * parseProxyUrl('http://user:pass@proxy.example:8000'); // URL
 */
export function parseProxyUrl(proxyUrl: string): URL {
  const parsed = typeof proxyUrl === 'string' ? urlOrNull(proxyUrl) : null;
  if (
    parsed === null ||
    !PROXY_PROTOCOLS.has(parsed.protocol) ||
    parsed.hostname === '' ||
    !isPercentEncoded(parsed.username) ||
    !isPercentEncoded(parsed.password)
  ) {
    throw new TypeError(
      `proxyUrl must be an http:// or https:// URL such as "http://user:pass@proxy.example:8000" (user name and password percent-encoded), got ${JSON.stringify(withoutPassword(proxyUrl))}.`,
    );
  }
  return parsed;
}

/** got-scraping decodes the credentials of a proxy URL, and fails on a stray `%`. */
function isPercentEncoded(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** `value` with the password of a `user:password@` part hidden, for error messages. */
function withoutPassword(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/:[^:/@]*@/, ':***@') : value;
}

/** Slack on top of `timeoutMs` for our own deadlines, so the client's more precise error wins. */
export const DEADLINE_SLACK_MS = 250;

/**
 * The result of `pending`, or a `timeout` failure once `ms` have passed. A request that loses
 * the race is still observed: its late rejection cannot surface as an unhandled one.
 */
export function answerWithin(pending: PromiseLike<RobotsHttpResult>, ms: number): Promise<RobotsHttpResult> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve({ ok: false, failure: 'timeout', message: `No answer within ${Math.round(ms)} ms.` });
    }, ms);
    pending.then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve(failureOf(error));
      },
    );
  });
}

/** What {@link readAnswer} reads of got's response: Node's `IncomingMessage` or http2-wrapper's. */
interface NativeResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The request: `errored` once got destroyed it (its timeouts do). */
  req?: { errored?: Error | null; _request?: { rstCode?: unknown } };
}

/** Reads one answer from a got stream: the status, the headers and, for a 2xx, the decoded body. */
function readAnswer(stream: Readable, request: RobotsHttpRequest): Promise<RobotsHttpResult> {
  return new Promise<RobotsHttpResult>((resolve) => {
    const started = performance.now();
    let settled = false;
    let reading: BodyReading | undefined;
    const body = new CappedBody(request.maxBytes);
    let response: NativeResponse | undefined;
    let status = 0;
    let headers: Record<string, string> = {};

    // Our own deadline on top of got's timeouts: a stalled decoder or proxy cannot hold the
    // fetch past `timeoutMs`.
    const deadline = setTimeout(() => {
      finish({
        ok: false,
        failure: 'timeout',
        message: `No complete answer within ${request.timeoutMs} ms.`,
      });
    }, request.timeoutMs + DEADLINE_SLACK_MS);

    // got times the steps of an HTTP/1.1 connection; an HTTP/2 session (and a proxy tunnel) is
    // opened before got sees a socket, so the whole opening is bounded here too.
    const connecting = setTimeout(() => {
      finish({
        ok: false,
        failure: 'timeout',
        message: `No connection within ${request.connectTimeoutMs} ms.`,
      });
    }, request.connectTimeoutMs + DEADLINE_SLACK_MS);
    whenConnected(stream, () => clearTimeout(connecting));
    const resetBeforeEnd = watchGotHttp2BodyEnd(stream);

    function finish(result: RobotsHttpResult): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(connecting);
      // The answer first: closing the streams can fail, and must not keep the fetch waiting.
      resolve(result);
      destroyQuietly(stream);
      for (const decoder of reading?.decoders ?? []) destroyQuietly(decoder.stream);
    }

    const answer = (): RobotsHttpAnswer => ({
      ok: true,
      status,
      headers,
      body: body.bytes(),
      truncated: body.truncated,
    });

    /**
     * The body ended, but over HTTP/2 got ends it before it reports what cut it short (a reset
     * stream, its own timeout): the answer waits one turn of the event loop for that error, then
     * settles only if the body is whole.
     */
    function endOfBody(): void {
      const endedAt = performance.now();
      setImmediate(() => finish(cutShort(endedAt) ?? answer()));
    }

    /** Why a body that ended is not the whole file, or undefined when it is. */
    function cutShort(endedAt: number): RobotsHttpFailure | undefined {
      const encodedOctets = reading?.encodedOctets() ?? 0;
      // got gives up on a request (its timeouts, a reset HTTP/2 stream) by destroying it.
      const error = response?.req?.errored;
      if (error) return failureOf(error);
      // Past the deadline the body is whatever had come when the request was given up.
      if (endedAt - started >= request.timeoutMs) {
        return {
          ok: false,
          failure: 'timeout',
          message: `No complete answer within ${request.timeoutMs} ms.`,
        };
      }
      const resetCode = http2ResetCode(response);
      if (resetCode !== undefined && (resetCode !== 0 || resetBeforeEnd())) {
        return {
          ok: false,
          failure: 'connection-reset',
          message: http2ResetMessage(resetCode, encodedOctets),
        };
      }
      // RFC 9112 6.3, RFC 9113 8.1.1: a body shorter than its Content-Length is incomplete.
      const expected = declaredLength(status, headers);
      if (expected !== undefined && expected !== encodedOctets) {
        return {
          ok: false,
          failure: 'connection-reset',
          message: `The body ended after ${encodedOctets} of its ${expected} octets (Content-Length).`,
        };
      }
      return undefined;
    }

    function readBody(): void {
      reading = readBodyInto(stream, headers, body, {
        full: () => finish(answer()),
        ended: endOfBody,
        failed: finish,
      });
    }

    const onResponse = (native: NativeResponse) => {
      response = native;
      status = native.statusCode;
      headers = flattenHeaders(native.headers);
      // Only a 2xx body is ever used (RFC 9309 2.3.1.1); anything else ends the request here.
      if (status < 200 || status > 299) finish(answer());
      else readBody();
    };
    stream.on('response', onResponse);
    // Node hands a 101 to 'upgrade' listeners, never as a response: unheard, the request would
    // wait for its whole timeout. The socket is the server's new protocol, of no use here.
    stream.once('request', (nativeRequest: EventEmitter) => {
      nativeRequest.once('upgrade', (native: NativeResponse, socket: Socket) => {
        socket.destroy();
        onResponse(native);
      });
      ignoreOctetsAfterAnswer(nativeRequest);
    });
    stream.on('error', (error: unknown) => finish(failureOf(error)));
  });
}

/**
 * Octets a server sends after a complete answer (past its `Content-Length`, or after the last
 * chunk) make Node's parser fail on them: it closes the connection and the request emits the
 * parse error, though the answer was read whole, and got would drop its body. Browsers and curl
 * read the declared body and ignore the rest: so does this. Such an error is kept from got, and
 * the answer ends as over a connection closed after it. A parse error within the answer, or an
 * answer cut short, is still a failure.
 */
function ignoreOctetsAfterAnswer(nativeRequest: EventEmitter): void {
  const emit = nativeRequest.emit;
  nativeRequest.emit = function (this: EventEmitter, name: string | symbol, ...args: unknown[]): boolean {
    if (name === 'error' && isParseErrorAfterAnswer(this, args[0])) return true;
    return emit.call(this, name, ...args);
  };
}

/** Whether `error` is an HTTP/1.1 parse error (llhttp's `HPE_*`) met once the answer was complete. */
function isParseErrorAfterAnswer(nativeRequest: EventEmitter, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const response = (nativeRequest as { res?: { complete?: unknown } | null }).res;
  return typeof code === 'string' && code.startsWith('HPE_') && response?.complete === true;
}

/**
 * Calls `onConnected` once got's request has an open connection: TCP connected and, for TLS, the
 * handshake done. http2-wrapper gives a request its socket only once the session is up.
 */
function whenConnected(stream: Readable, onConnected: () => void): void {
  stream.once('request', (nativeRequest: EventEmitter) => {
    nativeRequest.once('socket', (socket: Socket) => {
      if (!socket.connecting) onConnected();
      else socket.once('encrypted' in socket ? 'secureConnect' : 'connect', onConnected);
    });
  });
}

/**
 * The RST_STREAM code of the HTTP/2 stream of an answer: 0 while it is open or after a clean end.
 * http2-wrapper keeps Node's stream as `_request`; undefined over HTTP/1.1.
 */
function http2ResetCode(response: NativeResponse | undefined): number | undefined {
  const code = response?.req?._request?.rstCode;
  return typeof code === 'number' ? code : undefined;
}

/** What a body cut short by a reset HTTP/2 stream is told as. */
export function http2ResetMessage(code: number, octets: number): string {
  const how = code === 0 ? 'code 0, NO_ERROR, before the end of its body' : `code ${code}`;
  return `The HTTP/2 stream was reset (${how}) after ${octets} octets of the body.`;
}

const notReset = (): boolean => false;

/**
 * Watches Node's HTTP/2 stream of an answer for a reset of code 0 (NO_ERROR) before the end of
 * its body. Node ends the body the same way for it as for the END_STREAM flag, and leaves the
 * code 0 on the stream after either; but RFC 9113 8.1 completes a response only with END_STREAM
 * (a server may reset with NO_ERROR after it, to stop the request). What tells them apart is the
 * first end of the readable side: END_STREAM ends it while the stream is open, a reset once the
 * stream is closed. Returns whether the body was cut so: false until it ended, and for a stream
 * that was closed already or is not Node's HTTP/2 stream (HTTP/1.1).
 */
export function watchHttp2BodyEnd(nodeStream: unknown): () => boolean {
  const stream = nodeStream as { push?: unknown; closed?: unknown } | null | undefined;
  if (
    typeof stream !== 'object' ||
    stream === null ||
    typeof stream.push !== 'function' ||
    stream.closed !== false
  ) {
    return notReset;
  }
  const push = stream.push as (this: unknown, chunk: unknown, encoding?: unknown) => boolean;
  let ended = false;
  let cut = false;
  stream.push = function (this: { closed?: unknown }, chunk: unknown, encoding?: unknown): boolean {
    if (chunk === null && !ended) {
      ended = true;
      cut = this.closed === true;
    }
    return push.call(this, chunk, encoding);
  };
  return () => cut;
}

/**
 * {@link watchHttp2BodyEnd} for the request of a got stream: http2-wrapper gives the request
 * Node's HTTP/2 stream just before its socket, before any frame of the answer came.
 */
export function watchGotHttp2BodyEnd(gotStream: EventEmitter): () => boolean {
  let resetBeforeEnd = notReset;
  gotStream.once('request', (request: EventEmitter) => {
    request.once('socket', () => {
      resetBeforeEnd = watchHttp2BodyEnd((request as { _request?: unknown })._request);
    });
  });
  return () => resetBeforeEnd();
}

/**
 * The length the answer declares for its body, when it declares one (RFC 9112 6.3): a 204 has no
 * body, and Transfer-Encoding overrides Content-Length.
 */
export function declaredLength(
  status: number,
  headers: Readonly<Record<string, string>>,
): number | undefined {
  const value = headers['content-length'];
  if (value === undefined || status === 204 || headers['transfer-encoding'] !== undefined) return undefined;
  return /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/** What {@link readBodyInto} reports. */
export interface BodyEvents {
  /** The body passed the cap: the rest is not needed. */
  full(): void;
  /** The body ended before the cap. */
  ended(): void;
  /** A coding that cannot be decoded, or corrupt coded data. */
  failed(failure: RobotsHttpFailure): void;
}

/** A body being read: its decoders (destroyed with the stream), and the coded octets read so far. */
export interface BodyReading {
  decoders: readonly ContentDecoder[];
  encodedOctets(): number;
}

/**
 * Reads the body of a 2xx answer from `stream` into `body`, decoded in the codings `headers`
 * name: the cap applies to decoded octets, so a gzip bomb stops at it and the rest is never read.
 */
export function readBodyInto(
  stream: Readable,
  headers: Readonly<Record<string, string>>,
  body: CappedBody,
  events: BodyEvents,
): BodyReading {
  const decoding = contentDecoding(headers['content-encoding'], headers['transfer-encoding']);
  if (!decoding.ok) {
    events.failed({ ok: false, failure: 'decoding-error', message: decoding.message });
    return { decoders: [], encodedOctets: () => 0 };
  }
  const { decoders } = decoding;
  let encodedOctets = 0;
  let ended = false;
  stream.on('data', (chunk: Buffer) => {
    encodedOctets += chunk.length;
  });
  // An empty body is empty in every coding; decoders would call it a truncated stream.
  const isEmpty = () => ended && encodedOctets === 0;
  stream.on('end', () => {
    ended = true;
    if (decoders.length === 0 || isEmpty()) events.ended();
  });
  let decoded: Readable = stream;
  for (const { coding, stream: decoder } of decoders) {
    decoder.on('error', (error: unknown) => {
      if (isEmpty()) return;
      events.failed({ ok: false, failure: 'decoding-error', message: `${coding}: ${messageOf(error)}` });
    });
    decoded = decoded.pipe(decoder);
  }
  decoded.on('data', (chunk: Buffer) => {
    if (body.add(chunk)) events.full();
  });
  if (decoders.length > 0) decoded.on('end', events.ended);
  return { decoders, encodedOctets: () => encodedOctets };
}

/** The decoded body, cut at `maxBytes`. */
export class CappedBody {
  readonly #maxBytes: number;
  readonly #chunks: Buffer[] = [];
  #received = 0;
  /** True when more than `maxBytes` octets came. */
  truncated = false;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Keeps what fits under the cap; true once the cap is passed and nothing more is needed. */
  add(chunk: Buffer): boolean {
    const room = this.#maxBytes - this.#received;
    if (chunk.length > room) {
      this.#chunks.push(chunk.subarray(0, room));
      this.#received += room;
      this.truncated = true;
      return true;
    }
    this.#chunks.push(chunk);
    this.#received += chunk.length;
    return false;
  }

  /** A copy of its own (not a slice of Node's shared 8 KiB pool): it may be cached for hours. */
  bytes(): Uint8Array {
    const bytes = new Uint8Array(this.#received);
    let offset = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes;
  }
}

/**
 * Agents that close each connection once its answer is read (an HTTP/2 session once its last
 * stream ends). robots.txt is asked for once a day per origin: Node's default agents keep every
 * connection open for reuse, so a crawl meeting a thousand new origins within a few seconds held a
 * thousand idle sockets, and ran out of file descriptors. Through a proxy, got-scraping uses
 * agents of its own.
 */
const CLOSING_AGENTS = {
  http: new HttpAgent({ keepAlive: false }),
  https: new HttpsAgent({ keepAlive: false }),
  http2: new http2Wrapper.Agent({ maxEmptySessions: 0 }),
};

/** The most octets of response headers read, as much as Chromium reads. */
const MAX_HEADER_OCTETS = 256 * 1024;

function openStream(request: RobotsHttpRequest, ignoreTlsErrors: boolean, http2: boolean): unknown {
  return gotScraping.stream(request.url, {
    ...(request.proxyUrl === undefined ? { agent: CLOSING_AGENTS } : {}),
    method: 'GET',
    headers: { ...request.headers },
    useHeaderGenerator: false,
    followRedirect: false,
    // Decoded by contentDecoding: got decodes one coding only and reads a cut gzip stream as a file.
    decompress: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    http2,
    https: { rejectUnauthorized: !ignoreTlsErrors },
    // Node's own limit, 16 KiB of headers, fails answers a browser reads (a long Set-Cookie or
    // Content-Security-Policy), and a site that answered would be "unreachable" for it.
    maxHeaderSize: MAX_HEADER_OCTETS,
    proxyUrl: request.proxyUrl,
    // Each step of opening an HTTP/1.1 connection, with got's own messages; readAnswer bounds the
    // whole opening.
    timeout: {
      lookup: request.connectTimeoutMs,
      connect: request.connectTimeoutMs,
      secureConnect: request.connectTimeoutMs,
      request: request.timeoutMs,
    },
  });
}

function isStream(value: unknown): value is Readable {
  const candidate = value as Partial<Readable> | null;
  return typeof candidate?.pipe === 'function' && typeof candidate.destroy === 'function';
}

export function destroyQuietly(stream: Readable): void {
  try {
    stream.destroy();
  } catch {
    // The answer is settled; a stream that cannot be closed changes nothing about it.
  }
}

export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA']);
/** ERR_HTTP2_*: the server reset the HTTP/2 stream, or closed the session, with an error code. */
const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
]);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ERR_HTTP2_STREAM_CANCEL']);

/** Maps a got/Node error to the failure kinds of {@link RobotsNetworkFailure}. */
export function classifyFailure(error: unknown): RobotsNetworkFailure {
  const code = codeOf(error);
  return (code === undefined ? undefined : failureOfCode(code)) ?? failureOfMessage(messageOf(error));
}

function failureOfCode(code: string): RobotsNetworkFailure | undefined {
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (DNS_CODES.has(code)) return 'dns-error';
  if (code === 'ECONNREFUSED') return 'connection-refused';
  if (RESET_CODES.has(code)) return 'connection-reset';
  if (
    code === 'EPROTO' ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('CERT_') ||
    code.startsWith('UNABLE_TO_') ||
    code.includes('SELF_SIGNED')
  ) {
    return 'tls-error';
  }
  // zlib: Z_DATA_ERROR (corrupt data), Z_BUF_ERROR (a stream cut short).
  if (code.startsWith('Z_')) return 'decoding-error';
  return undefined;
}

/** The proxy agents of got-scraping refuse a CONNECT answer other than 200 with this message. */
const PROXY_REFUSAL = /^(?:the )?proxy responded with \d{3}/i;

/** Errors without a code: a proxy's refusal, and http2-wrapper's check of the certificate's names. */
function failureOfMessage(message: string): RobotsNetworkFailure {
  if (PROXY_REFUSAL.test(message)) return 'proxy-error';
  if (isHttp2OriginMismatch(message)) return 'tls-error';
  return 'network-error';
}

/**
 * http2-wrapper's error for a TLS session whose certificate does not name the requested host
 * ("Requested origin https://a.example does not match server https://b.example").
 */
function isHttp2OriginMismatch(message: string): boolean {
  return /^Requested origin \S+ does not match server/.test(message);
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string' && code !== 'ERR_GOT_REQUEST_ERROR') return code;
  return cause === undefined ? undefined : codeOf(cause);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function failureOf(error: unknown): RobotsHttpFailure {
  return { ok: false, failure: classifyFailure(error), message: messageOf(error) };
}
