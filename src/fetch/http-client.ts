import type { IncomingHttpHeaders } from 'node:http';
import { gotScraping } from 'got-scraping';

/**
 * Why a request got no HTTP answer. RFC 9309 2.3.1.4 counts all of these as "unreachable":
 * the crawler must then assume a complete disallow.
 */
export type RobotsNetworkFailure =
  | 'timeout'
  | 'dns-error'
  | 'connection-refused'
  | 'connection-reset'
  | 'tls-error'
  | 'network-error';

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
  /** Time allowed to open the connection (TCP and TLS). */
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
  /** True when the body was longer than `maxBytes` and was cut there. */
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
 * gzip/deflate/br, stops reading at `maxBytes` and reports failures as values.
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
   * (`ignoreSslErrors`), so robots.txt is read wherever pages are. A failed TLS handshake is
   * still a `tls-error`.
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
    this.#ignoreTlsErrors = options.ignoreTlsErrors ?? true;
    this.#http2 = options.http2 ?? true;
  }

  request(request: RobotsHttpRequest): Promise<RobotsHttpResult> {
    return new Promise<RobotsHttpResult>((resolve) => {
      let settled = false;
      const chunks: Buffer[] = [];
      let received = 0;
      let truncated = false;
      let status = 0;
      let headers: Record<string, string> = {};

      let stream: ReturnType<typeof openStream>;
      try {
        stream = openStream(request, this.#ignoreTlsErrors, this.#http2);
      } catch (error) {
        resolve({ ok: false, failure: 'network-error', message: messageOf(error) });
        return;
      }

      // Our own deadline on top of got's timeouts: a stalled decoder or proxy cannot hold the
      // fetch past `timeoutMs` (plus a little slack so got's more precise error wins).
      const deadline = setTimeout(() => {
        finish({
          ok: false,
          failure: 'timeout',
          message: `No complete answer within ${request.timeoutMs} ms.`,
        });
      }, request.timeoutMs + 250);

      function finish(result: RobotsHttpResult): void {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        stream.destroy();
        resolve(result);
      }

      function answer(): RobotsHttpAnswer {
        // A body of its own (not a slice of Node's shared 8 KiB pool): it may be cached for hours.
        const body = new Uint8Array(received);
        let offset = 0;
        for (const chunk of chunks) {
          body.set(chunk, offset);
          offset += chunk.length;
        }
        return { ok: true, status, headers, body, truncated };
      }

      stream.on('response', (response: { statusCode: number; headers: IncomingHttpHeaders }) => {
        status = response.statusCode;
        headers = flattenHeaders(response.headers);
        // Only a 2xx body is ever used (RFC 9309 2.3.1.1); anything else ends the request here.
        if (status < 200 || status > 299) finish(answer());
      });
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = request.maxBytes - received;
        if (chunk.length >= room) {
          // The cap applies to decoded octets: a gzip bomb stops here, the rest is never read.
          chunks.push(chunk.subarray(0, room));
          received += room;
          truncated = chunk.length > room;
          if (truncated) finish(answer());
          return;
        }
        chunks.push(chunk);
        received += chunk.length;
      });
      stream.on('end', () => finish(answer()));
      stream.on('error', (error: unknown) => {
        finish({ ok: false, failure: classifyFailure(error), message: messageOf(error) });
      });
    });
  }
}

function openStream(request: RobotsHttpRequest, ignoreTlsErrors: boolean, http2: boolean) {
  return gotScraping.stream(request.url, {
    method: 'GET',
    headers: { ...request.headers },
    useHeaderGenerator: false,
    followRedirect: false,
    decompress: true,
    throwHttpErrors: false,
    retry: { limit: 0 },
    http2,
    https: { rejectUnauthorized: !ignoreTlsErrors },
    proxyUrl: request.proxyUrl,
    timeout: { connect: request.connectTimeoutMs, request: request.timeoutMs },
  });
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ERR_HTTP2_STREAM_CANCEL']);

/** Maps a got/Node error to the failure kinds of {@link RobotsNetworkFailure}. */
export function classifyFailure(error: unknown): RobotsNetworkFailure {
  const code = codeOf(error);
  if (code === undefined) return 'network-error';
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
  return 'network-error';
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
