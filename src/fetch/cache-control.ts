/**
 * The parts of an HTTP `Cache-Control` header that bound how long a robots.txt is kept.
 * RFC 9309 2.4: a crawler "MAY use standard cache control as defined in RFC 9111" and "SHOULD
 * NOT use the cached version for more than 24 hours, unless the robots.txt file is
 * unreachable". A crawler is a private cache, so `max-age` counts and `s-maxage` does not.
 */
export interface CacheDirectives {
  /** `max-age` in milliseconds, when present and valid. */
  maxAgeMs?: number;
  /** `no-store` or `no-cache`: the answer must not be reused without asking again. */
  noReuse: boolean;
}

/** Reads `max-age`, `no-store` and `no-cache` from a `Cache-Control` value (RFC 9111 5.2.2). */
export function parseCacheControl(value: string | undefined): CacheDirectives {
  const directives: CacheDirectives = { noReuse: false };
  if (!value) return directives;
  for (const part of value.split(',')) {
    const [rawName, rawArgument] = part.split('=', 2);
    const name = rawName.trim().toLowerCase();
    if (name === 'no-store' || name === 'no-cache') {
      directives.noReuse = true;
    } else if (name === 'max-age' && rawArgument !== undefined) {
      // RFC 9111 1.2.2: delta-seconds is 1*DIGIT; quoted forms are tolerated by caches.
      const digits = rawArgument.trim().replace(/^"(.*)"$/, '$1');
      if (/^\d+$/.test(digits)) directives.maxAgeMs = Number(digits) * 1000;
    }
  }
  return directives;
}

/**
 * Reads `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP date. Returns the delay in
 * milliseconds from `now`, or undefined when absent or invalid.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
