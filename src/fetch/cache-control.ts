/**
 * The HTTP caching headers that bound how long a robots.txt is kept. RFC 9309 2.4: a crawler
 * "MAY use standard cache control as defined in RFC 9111" and "SHOULD NOT use the cached version
 * for more than 24 hours, unless the robots.txt file is unreachable". A crawler is a private
 * cache (one user agent, however many processes), so `max-age` counts and `s-maxage` does not.
 */
export interface CacheDirectives {
  /**
   * How long the answer may still be reused, in milliseconds: `max-age`, or else `Expires` less
   * `Date`, less the `Age` the answer already had (RFC 9111 4.2). 0 when it is stale or its
   * lifetime is invalid; absent when the server gives no lifetime.
   */
  maxAgeMs?: number;
  /**
   * `no-store` or `no-cache`: the answer must not be reused without asking again. Asking before
   * every page would fetch robots.txt as often as pages, so the store keeps such an answer for
   * its shortest lifetime (`minAgeMs`). A `no-cache` that names fields (`no-cache="Set-Cookie"`)
   * only keeps those fields from being reused, not the file (RFC 9111 5.2.2.4).
   */
  noReuse: boolean;
}

/** RFC 9111 1.2.2: a delta-seconds value too large to represent is read as 2^31. */
const MAX_DELTA_SECONDS = 2 ** 31;

/**
 * Reads `max-age`, `no-store` and `no-cache` from a `Cache-Control` value (RFC 9111 5.2). Of
 * duplicate `max-age` directives the first counts, and an invalid one (`max-age=1e3`, `-5`, no
 * value) makes the answer stale (RFC 9111 4.2.1).
 */
export function parseCacheControl(value: string | undefined): CacheDirectives {
  const directives: CacheDirectives = { noReuse: false };
  if (!value) return directives;
  for (const [name, argument] of directivesOf(value)) {
    if (name === 'no-store') directives.noReuse = true;
    // RFC 9111 5.2.2.4: the qualified form lets the response be reused without the listed fields.
    else if (name === 'no-cache' && !namesFields(argument)) directives.noReuse = true;
    else if (name === 'max-age' && directives.maxAgeMs === undefined) {
      directives.maxAgeMs = deltaSecondsMs(argument) ?? 0;
    }
  }
  return directives;
}

/**
 * The freshness of an answer received at `receivedAt` (RFC 9111 4.2): its lifetime is `max-age`,
 * or else `Expires` less `Date` (RFC 9111 5.3: `Expires` is ignored when `max-age` is there), and
 * what is left of it is that lifetime less the `Age` the answer had when it arrived. The apparent
 * age (`receivedAt` less `Date`) is left out: it rests on the server's clock, and a server clock
 * that is behind would make every copy of that origin stale.
 *
 * @param headers response headers, names in lower case
 * @example
 * freshnessOf({ 'cache-control': 'max-age=3600', age: '3500' }, Date.now()); // { maxAgeMs: 100000, noReuse: false }
 */
export function freshnessOf(headers: Readonly<Record<string, string>>, receivedAt: number): CacheDirectives {
  const directives = parseCacheControl(headers['cache-control']);
  const lifetimeMs = directives.maxAgeMs ?? expiresLifetimeMs(headers, receivedAt);
  if (lifetimeMs === undefined) return directives;
  return { ...directives, maxAgeMs: Math.max(0, lifetimeMs - ageMs(headers['age'])) };
}

/** RFC 9111 5.3: `Expires` less `Date` (or the time of receipt); an invalid date is in the past. */
function expiresLifetimeMs(
  headers: Readonly<Record<string, string>>,
  receivedAt: number,
): number | undefined {
  const expires = headers['expires'];
  if (expires === undefined) return undefined;
  const expiresAt = parseHttpDate(expires);
  if (expiresAt === undefined) return 0;
  const date = headers['date'] === undefined ? undefined : parseHttpDate(headers['date']);
  return Math.max(0, expiresAt - (date ?? receivedAt));
}

/** RFC 9111 5.1 and 4.2.3: `Age` in delta-seconds, the first of duplicates; 0 when absent or invalid. */
function ageMs(value: string | undefined): number {
  return deltaSecondsMs(value?.split(',', 1)[0].trim()) ?? 0;
}

/**
 * The directives of a `Cache-Control` value (RFC 9111 5.2): `name` or `name=argument`, separated
 * by commas; a quoted argument may contain commas (`no-cache="set-cookie, etag"`).
 */
function directivesOf(value: string): Array<[name: string, argument: string | undefined]> {
  const directives: Array<[string, string | undefined]> = [];
  for (const match of value.matchAll(/([^\s,=]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"?|[^,]*))?/g)) {
    directives.push([match[1].toLowerCase(), match[2]?.trim()]);
  }
  return directives;
}

/** True when a `no-cache` argument lists at least one field name (`"Set-Cookie, ETag"`). */
function namesFields(argument: string | undefined): boolean {
  return argument !== undefined && /[^\s,"]/.test(argument);
}

/** RFC 9111 1.2.2: delta-seconds is 1*DIGIT; the quoted form is tolerated, as caches do. */
function deltaSecondsMs(argument: string | undefined): number | undefined {
  const digits = argument?.replace(/^"(.*)"$/, '$1');
  if (digits === undefined || !/^\d+$/.test(digits)) return undefined;
  return Math.min(Number(digits), MAX_DELTA_SECONDS) * 1000;
}

/**
 * Reads `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP date. Returns the delay in
 * milliseconds from `now`, or undefined when absent or invalid.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  // Like delta-seconds of Cache-Control: a value too large to represent is read as 2^31.
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), MAX_DELTA_SECONDS) * 1000;
  const date = parseHttpDate(trimmed);
  return date === undefined ? undefined : Math.max(0, date - now);
}

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Parses an HTTP-date (RFC 9110 5.6.7) in any of its three forms, which recipients must all
 * accept; anything else (`0`, `-1`, an ISO date) is undefined, not whatever `Date.parse` makes
 * of it.
 *
 * @example
 * parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'); // 784111777000
 */
export function parseHttpDate(value: string): number | undefined {
  const trimmed = value.trim();
  let text: string | undefined;
  if (IMF_FIXDATE.test(trimmed) || RFC850_DATE.test(trimmed)) text = trimmed;
  // asctime carries no zone: HTTP dates are all in GMT.
  else if (ASCTIME_DATE.test(trimmed)) text = `${trimmed} GMT`;
  if (text === undefined) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}
