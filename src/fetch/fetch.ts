import {
  clockOption,
  durationOption,
  MAX_TIMER_MS,
  numberOption,
  type OptionKeys,
  objectOption,
  refuseUnknownOptions,
  show,
} from '../options.js';
import { codePointName, MAX_LINE_OCTETS, parseCutBody, RobotsTxt, urlOrNull } from '../robots/index.js';
import { type CacheDirectives, freshnessOf, parseRetryAfter } from './cache-control.js';
import {
  answerWithin,
  DEADLINE_SLACK_MS,
  GotScrapingRobotsClient,
  NETWORK_FAILURES,
  parseProxyUrl,
  type RobotsHttpAnswer,
  type RobotsHttpClient,
  type RobotsHttpFailure,
  type RobotsHttpRequest,
  type RobotsHttpResult,
  type RobotsNetworkFailure,
} from './http-client.js';
import { originOf, robotsTxtUrlOf, withoutCredentials, withoutCredentialsAt } from './origin.js';

/**
 * What the `why` of an unreachable robots.txt says it means, in one place: the store rewords it
 * when an outage has lasted long enough for an earlier copy to be used instead.
 */
export const DISALLOWS_ALL = ', everything is disallowed';

/**
 * What an origin's robots.txt answer means for a crawler:
 * - `rules`: a file was read (2xx); its groups decide;
 * - `allow-all`: the file is "unavailable" (4xx, or a redirect chain that does not resolve):
 *   RFC 9309 2.3.1.3 lets the crawler access any resource;
 * - `disallow-all`: the file is "unreachable" (5xx, 429, network failure): RFC 9309 2.3.1.4
 *   requires the crawler to assume a complete disallow.
 */
export type RobotsPolicyKind = 'rules' | 'allow-all' | 'disallow-all';

/** A redirect chain that could not be followed to a file (RFC 9309 2.3.1.2). */
export type RobotsRedirectFailure = 'too-many-redirects' | 'redirect-loop' | 'invalid-redirect';

/**
 * The outcome of a fetch: the HTTP status of the last answer, or why there was none.
 */
export type RobotsFetchStatus = number | RobotsNetworkFailure | RobotsRedirectFailure;

/** One request of the chain. */
export interface RobotsFetchHop {
  /** The URL requested, its first {@link MAX_HOP_TEXT} characters and `…` when longer. */
  url: string;
  /** HTTP status, or the failure kind when the request got no answer. */
  status: number | RobotsNetworkFailure;
  /**
   * The `Location` header of a redirect, its raw UTF-8 octets read as UTF-8; cut as `url` is.
   */
  location?: string;
  /** Time from sending the request to the end of its answer. */
  durationMs: number;
}

/** Timings of a fetch, in milliseconds. */
export interface RobotsFetchTimings {
  /** Wall time of the whole fetch, every hop included. */
  totalMs: number;
  /** Time spent parsing the body. */
  parseMs: number;
}

/** The result of {@link fetchRobotsTxt}. Plain data apart from `robots`. */
export interface RobotsFetchResult {
  /** The origin the rules apply to: the first one of the chain (RFC 9309 2.3.1.2). */
  origin: string;
  /** `<origin>/robots.txt`, the URL requested first. */
  robotsTxtUrl: string;
  /** The URL of the last request of the chain. */
  finalUrl: string;
  /** Every request, in order. */
  hops: readonly RobotsFetchHop[];
  status: RobotsFetchStatus;
  kind: RobotsPolicyKind;
  /** One sentence: why this policy kind, with the RFC section. */
  why: string;
  /** The parsed file when `kind` is `rules`, otherwise null. */
  robots: RobotsTxt | null;
  /**
   * The decoded body of a 2xx answer: the whole file, or for a file over `maxBytes` its first
   * `maxBytes` octets plus enough to finish the line in progress (what the parser reads).
   */
  body: Uint8Array | null;
  /** True when the file is longer than `maxBytes`: the rest is ignored (RFC 9309 2.5). */
  truncated: boolean;
  /** The final answer's `Cache-Control` header. */
  cacheControl?: string;
  /**
   * How long the answer may be reused by HTTP caching (RFC 9111): `max-age`, else `Expires`,
   * less its `Age`; `no-store`/`no-cache`.
   */
  cacheDirectives: CacheDirectives;
  /** `Retry-After` of a 429 or 5xx answer, in milliseconds. */
  retryAfterMs?: number;
  /** The final answer's `Content-Type` header. */
  contentType?: string;
  /** When the fetch started, on the clock given in the options. */
  fetchedAt: number;
  timings: RobotsFetchTimings;
}

/** Options of {@link fetchRobotsTxt}. */
export interface RobotsFetchOptions {
  /** The crawler's User-Agent header; it should contain its product token (RFC 9309 2.2.1). */
  userAgent: string;
  /** Send the requests through this proxy: an `http://` or `https://` URL. */
  proxyUrl?: string;
  /**
   * The HTTP client.
   * @default a shared {@link GotScrapingRobotsClient}
   */
  client?: RobotsHttpClient;
  /**
   * Time allowed for the whole fetch, every redirect hop included; past it the origin is
   * unreachable (`timeout`).
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Time allowed to open each connection.
   * @default 10000
   */
  connectTimeoutMs?: number;
  /**
   * Octets of the decoded body that are read; the rest is not downloaded. RFC 9309 2.5 asks for
   * at least 500 KiB.
   * @default 512000
   */
  maxBytes?: number;
  /**
   * Redirects followed before the file counts as unavailable. RFC 9309 2.3.1.2 asks for at
   * least five.
   * @default 5
   */
  maxRedirects?: number;
  /**
   * Wall clock in milliseconds, for `fetchedAt`.
   * @default Date.now
   */
  clock?: () => number;
}

/** Defaults of {@link RobotsFetchOptions}. */
export const FETCH_DEFAULTS = {
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxBytes: 512_000,
  maxRedirects: 5,
} as const;

/**
 * The longest timeout: a Node timer holds at most MAX_TIMER_MS, and the fetcher arms its own
 * deadlines up to 2 x DEADLINE_SLACK_MS later than the timeout.
 */
export const MAX_FETCH_TIMEOUT_MS = MAX_TIMER_MS - 2 * DEADLINE_SLACK_MS;
/** Largest maxBytes: far past any robots.txt, and a body every platform can hold in one buffer. */
export const MAX_ROBOTS_BYTES = 2 ** 30;

const OWNER = 'fetchRobotsTxt';
const FETCH_OPTIONS: OptionKeys<RobotsFetchOptions> = {
  userAgent: true,
  proxyUrl: true,
  client: true,
  timeoutMs: true,
  connectTimeoutMs: true,
  maxBytes: true,
  maxRedirects: true,
  clock: true,
};

/** The options of a fetch, checked, with their defaults. */
interface FetchSettings {
  client: RobotsHttpClient;
  clock: () => number;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

/**
 * Checks the options of a fetch. A value that cannot work would not fail where it is given but in
 * every fetch, as an origin that looks unreachable (a timeout of Infinity or NaN fires at once) or
 * unbounded (a NaN cap or redirect limit stops nothing): it is refused before any request.
 */
function settingsOf(options: RobotsFetchOptions): FetchSettings {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `fetchRobotsTxt needs options with the crawler's User-Agent, such as { userAgent: "ExampleBot/1.0 (+https://example.com/bot)" }, got ${show(options)}.`,
    );
  }
  refuseUnknownOptions(OWNER, options, FETCH_OPTIONS);
  validateUserAgent(options.userAgent);
  if (options.proxyUrl !== undefined) parseProxyUrl(options.proxyUrl);
  const timer = { max: MAX_FETCH_TIMEOUT_MS };
  const { timeoutMs, connectTimeoutMs, maxBytes, maxRedirects } = options;
  return {
    // Without request(), a Crawlee BaseHttpClient given as it is would fail every fetch.
    client:
      objectOption<RobotsHttpClient>(
        OWNER,
        'client',
        options.client,
        'a RobotsHttpClient, an object with a request(request) method that answers one GET (a Crawlee BaseHttpClient needs a small adapter to it)',
        { methods: ['request'] },
      ) ?? defaultClient,
    clock: clockOption(OWNER, options.clock),
    timeoutMs: durationOption(OWNER, 'timeoutMs', timeoutMs, FETCH_DEFAULTS.timeoutMs, timer),
    connectTimeoutMs: durationOption(
      OWNER,
      'connectTimeoutMs',
      connectTimeoutMs,
      FETCH_DEFAULTS.connectTimeoutMs,
      timer,
    ),
    maxBytes: numberOption(OWNER, 'maxBytes', maxBytes, FETCH_DEFAULTS.maxBytes, {
      min: 1,
      max: MAX_ROBOTS_BYTES,
      integer: true,
      unit: 'bytes',
    }),
    maxRedirects: numberOption(OWNER, 'maxRedirects', maxRedirects, FETCH_DEFAULTS.maxRedirects, {
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      integer: true,
    }),
  };
}

/**
 * The 3xx statuses whose `Location` is followed. RFC 9110 15.4.1 lets a client follow the
 * `Location` of a 300 (the server's preferred choice) automatically. 304 answers conditional
 * requests only (none is sent), and 305 and 306 are deprecated or unused (RFC 9110 15.4.6, 15.4.7).
 */
const REDIRECT_STATUSES = new Set([300, 301, 302, 303, 307, 308]);

const defaultClient: RobotsHttpClient = new GotScrapingRobotsClient();

/**
 * Fetches the robots.txt of the origin of `url` and turns the answer into a policy kind, by the
 * status rules of RFC 9309 2.3.1. Never rejects for a network or server problem: every outcome
 * is a {@link RobotsFetchResult}.
 *
 * @throws TypeError when `url` is not an absolute http(s) URL, `proxyUrl` not an http(s) URL,
 *   `userAgent` not a value a header can hold, or `client` has no `request()`.
 * @throws RangeError when a timeout, `maxBytes` or `maxRedirects` is not a number it can work with
 *   (NaN, Infinity, 0 or less, a fraction where a whole number is needed).
 * @example
 * const result = await fetchRobotsTxt('https://example.com/some/page', { userAgent: 'ExampleBot/1.0' });
 * if (result.kind === 'rules') console.log(result.robots!.isAllowed('https://example.com/x', 'ExampleBot'));
 */
export async function fetchRobotsTxt(
  url: string | URL,
  options: RobotsFetchOptions,
): Promise<RobotsFetchResult> {
  const computed = originOf(url);
  // Reuse the caller's string when it is the origin already: one string less per cached policy.
  const origin = computed === url ? url : computed;
  const robotsTxtUrl = robotsTxtUrlOf(origin);
  const { client, clock, timeoutMs, connectTimeoutMs, maxBytes, maxRedirects } = settingsOf(options);

  const fetchedAt = clock();
  const started = performance.now();
  const hops: RobotsFetchHop[] = [];
  /** The URL of the last request, whole (a hop's is cut, see hopText), without credentials. */
  let lastUrl = robotsTxtUrl;
  const visited = new Set<string>();
  const headers = {
    'user-agent': options.userAgent,
    accept: 'text/plain, */*;q=0.5',
    'accept-encoding': 'gzip, deflate, br',
  };

  const result = (
    fields: Pick<RobotsFetchResult, 'status' | 'kind' | 'why'> & Partial<RobotsFetchResult>,
  ): RobotsFetchResult => ({
    origin,
    robotsTxtUrl,
    finalUrl: lastUrl,
    hops,
    robots: null,
    body: null,
    truncated: false,
    cacheDirectives: { noReuse: false },
    fetchedAt,
    timings: { totalMs: performance.now() - started, parseMs: 0 },
    ...fields,
  });

  let current = new URL(robotsTxtUrl);
  // The first hop's URL is robotsTxtUrl itself (same string, kept once in memory).
  let currentHref = robotsTxtUrl;
  for (;;) {
    visited.add(currentHref);
    const remainingMs = timeoutMs - (performance.now() - started);
    if (remainingMs <= 0) {
      return result({ status: 'timeout', kind: 'disallow-all', why: unreachableWhy('timeout') });
    }
    const hopStarted = performance.now();
    const request: RobotsHttpRequest = {
      url: current,
      headers,
      // The parser reads `maxBytes` and then the line in progress to its end, of which it keeps
      // MAX_LINE_OCTETS at most: reading that much more gives the same rules as the whole file.
      maxBytes: maxBytes + MAX_LINE_OCTETS + 1,
      connectTimeoutMs: Math.min(connectTimeoutMs, remainingMs),
      timeoutMs: remainingMs,
      proxyUrl: options.proxyUrl,
    };
    // The deadline is kept here too: a custom client that never answers cannot hold the fetch.
    const answer = siteAnswerOf(
      await answerWithin(requestSafely(client, request), remainingMs + 2 * DEADLINE_SLACK_MS),
      options.proxyUrl !== undefined,
    );
    const durationMs = performance.now() - hopStarted;

    lastUrl = withoutCredentials(currentHref);
    if (!answer.ok) {
      hops.push({ url: hopText(lastUrl), status: answer.failure, durationMs });
      // RFC 9309 2.3.1.4: a network error or timeout makes the file unreachable.
      return result({ status: answer.failure, kind: 'disallow-all', why: failureWhy(answer) });
    }

    const { status } = answer;
    const rawLocation = answer.headers['location'];
    const location = rawLocation === undefined ? undefined : headerText(rawLocation);
    // Credentials in a redirect's URL are used, and never shown: results reach logs and reports.
    const shownLocation = location === undefined ? undefined : withoutCredentialsAt(location, current);
    hops.push({
      url: hopText(lastUrl),
      status,
      durationMs,
      ...(shownLocation === undefined ? {} : { location: hopText(shownLocation) }),
    });

    if (status >= 300 && status <= 399) {
      // RFC 9309 2.3.1.2: follow at least five consecutive redirects, across hosts too.
      const next = REDIRECT_STATUSES.has(status) ? resolveLocation(location, current) : undefined;
      if (next === undefined) {
        return result({
          status: 'invalid-redirect',
          kind: 'allow-all',
          why: `${unfollowedRedirectCause(status, shownLocation)}: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.2).`,
        });
      }
      if (visited.has(next.href)) {
        return result({
          status: 'redirect-loop',
          kind: 'allow-all',
          why: `The redirects loop back to ${withoutCredentials(next.href)}: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.2).`,
        });
      }
      if (hops.length > maxRedirects) {
        return result({
          status: 'too-many-redirects',
          kind: 'allow-all',
          why: `More than ${maxRedirects} redirects: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.2).`,
        });
      }
      current = next;
      currentHref = next.href;
      continue;
    }
    return interpretFinalAnswer(answer, result, clock(), maxBytes);
  }
}

function interpretFinalAnswer(
  answer: RobotsHttpAnswer,
  result: (
    fields: Pick<RobotsFetchResult, 'status' | 'kind' | 'why'> & Partial<RobotsFetchResult>,
  ) => RobotsFetchResult,
  now: number,
  maxBytes: number,
): RobotsFetchResult {
  const { status } = answer;
  const cacheControl = answer.headers['cache-control'];
  const contentType = answer.headers['content-type'];
  const common = {
    cacheDirectives: freshnessOf(answer.headers, now),
    ...(cacheControl === undefined ? {} : { cacheControl }),
    ...(contentType === undefined ? {} : { contentType }),
  };

  if (status === 206 && !coversWholeFile(answer.headers['content-range'])) {
    // A part of the file, though none was asked for: its rules may be cut anywhere, as in a body
    // cut short, which is unreachable too.
    return result({
      status,
      kind: 'disallow-all',
      why: unreachableWhy(
        `HTTP 206, a part of the file (Content-Range: ${answer.headers['content-range'] ?? 'none'})`,
      ),
      ...common,
    });
  }
  if (status >= 200 && status <= 299) {
    // RFC 9309 2.3.1.1: a successful answer is parsed; RFC 9309 2.5: at least `maxBytes` of it.
    const { body } = answer;
    const parseStarted = performance.now();
    // A body cut in transfer is the start of a longer file, which the findings say.
    const robots = answer.truncated ? parseCutBody(body, maxBytes) : RobotsTxt.parse(body, { maxBytes });
    const parseMs = performance.now() - parseStarted;
    // The parser knows whether content was left out: octets past the cap may be only the end of
    // the last line, or a byte order mark it skips. Its findings are built for such files only.
    const truncated =
      answer.truncated ||
      (body.byteLength > maxBytes && robots.lints.some((lint) => lint.code === 'file-too-large'));
    const html = robots.looksLikeHtml;
    const why = shared(
      html
        ? `HTTP ${status}, but the body is an HTML page: no rules apply.`
        : `HTTP ${status}: the rules of the file apply (RFC 9309 2.3.1.1)${truncated ? `; the file is larger than ${maxBytes} octets, the rest is ignored (RFC 9309 2.5)` : ''}.`,
    );
    const fetched = result({
      status,
      kind: 'rules',
      why,
      robots,
      body,
      truncated,
      ...common,
    });
    return { ...fetched, timings: { ...fetched.timings, parseMs } };
  }
  if (status === 429 || (status >= 500 && status <= 599)) {
    // RFC 9309 2.3.1.4: a server error means unreachable. 429 is treated the same way (as
    // Google does): the server asks the crawler to slow down, not to go anywhere.
    const retryAfterMs = parseRetryAfter(answer.headers['retry-after'], now);
    return result({
      status,
      kind: 'disallow-all',
      why: unreachableWhy(`HTTP ${status}`),
      ...common,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status >= 400 && status <= 499) {
    // RFC 9309 2.3.1.3: 4xx (401 and 403 too) means unavailable: any resource may be accessed.
    return result({
      status,
      kind: 'allow-all',
      why: shared(`HTTP ${status}: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.3).`),
      ...common,
    });
  }
  // 1xx that reached us, or a status outside 100-599: nothing the RFC defines; be safe.
  return result({
    status,
    kind: 'disallow-all',
    why: `HTTP ${status} is not a status robots.txt rules know: treated as unreachable${DISALLOWS_ALL}.`,
    ...common,
  });
}

/** What a header value cannot hold (RFC 9110 5.5): control characters but tab, and anything past U+00FF. */
const NOT_IN_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/u;

/**
 * Checks the User-Agent robots.txt is fetched with. One that no request can carry (a line break, a
 * character past U+00FF) would fail every fetch, and every origin would look unreachable: it is a
 * mistake in the crawler's configuration, reported at once. So is a missing or blank one.
 *
 * @throws TypeError when it is not a string or blank, or naming the character no header holds.
 * @example
 * validateUserAgent('ExampleBot/1.0 (+https://example.com/bot)'); // passes
 */
export function validateUserAgent(userAgent: string): void {
  // Without one, got sends no User-Agent at all: the site would see a crawler without a name.
  if (typeof userAgent !== 'string' || userAgent.trim() === '') {
    throw new TypeError(
      `userAgent must be the crawler's User-Agent, such as "ExampleBot/1.0 (+https://example.com/bot)", got ${JSON.stringify(userAgent) ?? String(userAgent)}.`,
    );
  }
  const invalid = NOT_IN_HEADER_VALUE.exec(userAgent);
  if (invalid === null) return;
  throw new TypeError(
    `userAgent must be a value an HTTP header can hold (no line breaks or other control characters, nothing past U+00FF), got ${JSON.stringify(userAgent)} with ${codePointName(invalid[0].codePointAt(0)!)}.`,
  );
}

/**
 * The client's answer, or its failure: a request that throws, rejects or returns something else
 * than a {@link RobotsHttpResult} is a `network-error`, never an exception of the fetch.
 */
async function requestSafely(
  client: RobotsHttpClient,
  request: RobotsHttpRequest,
): Promise<RobotsHttpResult> {
  try {
    const answer = resultOf(await client.request(request), request.maxBytes);
    if (answer !== undefined) return answer;
    return { ok: false, failure: 'network-error', message: 'The HTTP client returned a malformed answer.' };
  } catch (error) {
    return {
      ok: false,
      failure: 'network-error',
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * A client's result as the fetcher reads it, or undefined when it is malformed. A custom client
 * may pass on its library's headers as they come (names in any case, repeated fields as lists,
 * numbers), name a failure of its own, or read past the cap: none of that may reject the fetch,
 * hide a `Location`, or keep megabytes with a cached policy.
 */
function resultOf(value: unknown, maxBytes: number): RobotsHttpResult | undefined {
  const answer = value as Record<string, unknown> | null | undefined;
  if (answer?.ok === false) {
    if (typeof answer.message !== 'string') return undefined;
    const failure = NETWORK_FAILURES.has(answer.failure as string)
      ? (answer.failure as RobotsNetworkFailure)
      : 'network-error';
    return { ok: false, failure, message: answer.message };
  }
  if (answer?.ok !== true || !Number.isInteger(answer.status) || !(answer.body instanceof Uint8Array)) {
    return undefined;
  }
  const headers = headersOf(answer.headers);
  if (headers === undefined) return undefined;
  const { body } = answer;
  const cut = body.byteLength > maxBytes;
  return {
    ok: true,
    status: answer.status as number,
    headers,
    // A copy of the part kept, not a view that would hold the client's whole buffer.
    body: cut ? new Uint8Array(body.subarray(0, maxBytes)) : body,
    truncated: cut || answer.truncated === true,
  };
}

/**
 * Header fields with names in lower case and the values of a repeated field joined with `, `
 * (RFC 9110 5.3), or undefined when a value is neither text, a number nor a list of them. The
 * `Headers` of fetch() hold their fields out of sight of `Object.entries`.
 */
function headersOf(fields: unknown): Record<string, string> | undefined {
  if (typeof fields !== 'object' || fields === null) return undefined;
  const headers: Record<string, string> = {};
  const entries = fields instanceof Headers ? [...fields] : Object.entries(fields);
  for (const [name, field] of entries) {
    if (field === undefined) continue;
    const values: unknown[] = Array.isArray(field) ? field : [field];
    if (!values.every((item) => typeof item === 'string' || typeof item === 'number')) return undefined;
    const key = name.toLowerCase();
    const value = values.join(', ');
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return headers;
}

/**
 * The most characters of a URL a hop keeps. The client may take a `Location` as long as its
 * headers (256 KiB for the default one): kept whole, six such hops would make a record larger
 * than a store loads from its backend, and a URL that long says no more to a reader.
 */
export const MAX_HOP_TEXT = 4096;

/** `text`, cut to MAX_HOP_TEXT characters with `…` when longer. */
function hopText(text: string): string {
  return text.length <= MAX_HOP_TEXT ? text : `${text.slice(0, MAX_HOP_TEXT)}…`;
}

/**
 * The answer as the site's, or a `proxy-error` for one the proxy gave in its place: a 407, which
 * comes from a proxy by definition (RFC 9110 15.5.8), and, through the crawler's proxy, an error
 * status whose Proxy-Status field (RFC 9209) gives the proxy nearest the crawler an `error`. A
 * proxy refusing a plain-http request answers it itself, and its 403 would otherwise read as the
 * site's robots.txt being forbidden, which allows everything.
 */
function siteAnswerOf(answer: RobotsHttpResult, viaProxy: boolean): RobotsHttpResult {
  if (!answer.ok) return answer;
  if (answer.status === 407) {
    return { ok: false, failure: 'proxy-error', message: 'HTTP 407 Proxy Authentication Required' };
  }
  if (!viaProxy || answer.status < 400) return answer;
  const error = nearestProxyError(answer.headers['proxy-status']);
  if (error === undefined) return answer;
  return { ok: false, failure: 'proxy-error', message: `HTTP ${answer.status}, Proxy-Status error=${error}` };
}

/**
 * The `error` parameter of the last member of a Proxy-Status field, or undefined. RFC 9209 2: a
 * member per intermediary, the last one nearest the client; a member is a token or a quoted
 * string followed by `;key=value` parameters. Commas and semicolons inside quoted strings are
 * text.
 */
function nearestProxyError(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const parts = splitOutsideQuotes(field, ',');
  const params = splitOutsideQuotes(parts[parts.length - 1], ';');
  for (let k = 1; k < params.length; k++) {
    const eq = params[k].indexOf('=');
    if (eq < 0 || params[k].slice(0, eq).trim() !== 'error') continue;
    const value = params[k].slice(eq + 1).trim();
    return value === '' ? undefined : value.slice(0, 100);
  }
  return undefined;
}

/** `text` cut at each `separator` outside a quoted string (with its backslash escapes). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Why a request without a usable answer makes robots.txt unreachable. */
function failureWhy({ failure, message }: RobotsHttpFailure): string {
  // The first line of the message says what failed; the rest is got-scraping's dump of the body.
  const detail = message.split('\n', 1)[0].trim().slice(0, 200);
  if (failure === 'proxy-error') {
    return `proxy-error (${detail}): the proxy refused the request or could not pass it on, so no answer came from the site; robots.txt is unreachable${DISALLOWS_ALL} (RFC 9309 2.3.1.4).`;
  }
  if (failure === 'decoding-error') {
    return `decoding-error (${detail}): the body cannot be read; robots.txt is unreachable${DISALLOWS_ALL} (RFC 9309 2.3.1.4).`;
  }
  // The other failures name their cause (timeout, dns-error, ...); this one needs what happened.
  if (failure === 'network-error' && detail !== '') return unreachableWhy(`network-error (${detail})`);
  return unreachableWhy(failure);
}

/** Whether the Content-Range of a 206 answer spans the whole file (`bytes 0-42/43`). */
function coversWholeFile(contentRange: string | undefined): boolean {
  const range = /^\s*bytes\s+0-(\d+)\/(\d+)\s*$/i.exec(contentRange ?? '');
  return range !== null && Number(range[1]) + 1 === Number(range[2]);
}

function unreachableWhy(cause: string): string {
  return shared(`${cause}: robots.txt is unreachable${DISALLOWS_ALL} (RFC 9309 2.3.1.4).`);
}

const sharedTexts = new Map<string, string>();

/**
 * One copy of each explanation: thousands of cached policies say "HTTP 200: the rules of the
 * file apply", and each copy would cost its own ~130 bytes.
 */
function shared(text: string): string {
  const known = sharedTexts.get(text);
  if (known !== undefined) return known;
  if (sharedTexts.size >= 1000) sharedTexts.clear();
  sharedTexts.set(text, text);
  return text;
}

/**
 * Whether a fetch ended on a 304 Not Modified, which the fetcher never asks for (it sends no
 * conditional request): read as an `invalid-redirect`, though it is no redirect, and though a
 * store that holds a copy uses that copy again.
 */
export function notModifiedUnasked(fetched: Pick<RobotsFetchResult, 'status' | 'hops'>): boolean {
  return fetched.status === 'invalid-redirect' && fetched.hops.at(-1)?.status === 304;
}

/** Why a 3xx answer leads nowhere, for the `why` of an `invalid-redirect`. */
function unfollowedRedirectCause(status: number, location: string | undefined): string {
  if (status === 304) return 'HTTP 304 Not Modified, though the request was not conditional';
  if (!REDIRECT_STATUSES.has(status)) return `HTTP ${status} is not a redirect that is followed`;
  if (location === undefined || location.trim() === '') return `HTTP ${status} without a Location`;
  return `HTTP ${status} with a Location that is not an http(s) URL (${JSON.stringify(location.slice(0, 200))})`;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as text. Node reads header octets as Latin-1, so a raw UTF-8 `Location`
 * (`/règles/robots.txt`) arrives as `/rÃ¨gles/robots.txt`; its octets are read as UTF-8 when
 * they are valid UTF-8, as browsers do. Any other value is kept as it is.
 */
function headerText(value: string): string {
  // Only 8-bit octets can be re-read; a value with wider characters was decoded already.
  if (!/[\x80-\xff]/.test(value) || /[^\x00-\xff]/.test(value)) return value;
  try {
    return strictUtf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

function resolveLocation(location: string | undefined, base: URL): URL | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  const next = urlOrNull(location, base);
  if (next === null) return undefined;
  if (next.protocol !== 'http:' && next.protocol !== 'https:') return undefined;
  next.hash = '';
  return next;
}
