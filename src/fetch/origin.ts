/**
 * The origin of a URL, the unit every robots.txt decision is made for. RFC 9309 2.3: the
 * file is at `/robots.txt` of the scheme and authority, and its rules apply to that
 * origin only; RFC 6454 4: an origin is scheme + host + port.
 */

import { withoutCredentials, withoutUserinfo } from '../robots/index.js';

/** Defined with the core, which lints sitemap URLs with it; the other folders take it from here. */
export { withoutCredentials };

const HTTP_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:']);

/**
 * A URL that robots.txt does not govern: not an absolute http(s) URL with a host (`mailto:`,
 * `data:`, `about:blank`, a relative or malformed URL). What the store and `originOf` throw for
 * such a URL, and nothing else: a caller can let the URL go its own way on this error and still
 * stop on any other. A TypeError, as a wrong argument is.
 */
export class NotHttpUrlError extends TypeError {
  override readonly name = 'NotHttpUrlError';
}

/**
 * Returns the origin of an http(s) URL: the scheme, the lower-case host (an IDN in
 * punycode) and the port, the scheme's default port left out, so `https://A.com:443/x`
 * and `https://a.com/y` both give `https://a.com`. The WHATWG URL parser does the
 * lower-casing, the IDNA mapping and the default-port folding.
 *
 * @throws NotHttpUrlError when the URL is not absolute or not http(s).
 * @example
 * originOf('https://Bücher.example:443/a?b'); // 'https://xn--bcher-kva.example'
 */
export function originOf(url: string | URL): string {
  if (typeof url === 'string') {
    const simple = simpleOriginOf(url);
    if (simple !== undefined) return simple;
  }
  const parsed = parseHttpUrl(url);
  // `URL.origin` is exactly scheme://host[:port], with the default port omitted.
  return parsed.origin;
}

/**
 * The origin of a URL of the common shape of a crawl, without the full parser: `http(s)://`,
 * a host of lower-case letters, digits, dots and hyphens whose last label starts with a letter
 * (a domain, never an IPv4 number), an optional non-default port without leading zeros, then
 * the end, `/`, `?` or `#`. The WHATWG parser would change nothing in such an origin, so it is
 * the URL's prefix. Anything else (upper case, IDN, IP addresses, user info, a default port,
 * backslashes, blanks) returns undefined and takes the full parser.
 */
function simpleOriginOf(url: string): string | undefined {
  let index: number;
  if (url.startsWith('https://')) index = 8;
  else if (url.startsWith('http://')) index = 7;
  else return undefined;
  const hostStart = index;
  let labelStart = index;
  for (; index < url.length; index++) {
    const code = url.charCodeAt(index);
    if (index === labelStart && code === 120 /* x */ && url.startsWith('xn--', index)) {
      // IDNA: `xn--` labels are validated by the full parser.
      return undefined;
    }
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 45 /* - */) continue;
    if (code === 46 /* . */) {
      if (index === labelStart) return undefined;
      labelStart = index + 1;
      continue;
    }
    break;
  }
  const first = url.charCodeAt(labelStart);
  // The last label must be there and start with a letter, unless the host is an IPv4
  // address already in canonical form (127.0.0.1, as local servers are).
  if (labelStart >= index || first < 97 || first > 122) {
    if (!isCanonicalIPv4(url, hostStart, index)) return undefined;
  }
  if (url.charCodeAt(index) === 58 /* : */) {
    const portStart = index + 1;
    let port = 0;
    for (index = portStart; index < url.length && index - portStart < 6; index++) {
      const code = url.charCodeAt(index);
      if (code < 48 || code > 57) break;
      port = port * 10 + (code - 48);
    }
    const digits = index - portStart;
    const defaultPort = hostStart === 8 /* https:// */ ? 443 : 80;
    if (
      digits === 0 ||
      digits > 5 ||
      url.charCodeAt(portStart) === 48 ||
      port > 65535 ||
      port === defaultPort
    ) {
      return undefined;
    }
  }
  if (index < url.length) {
    const next = url.charCodeAt(index);
    if (next !== 47 /* / */ && next !== 63 /* ? */ && next !== 35 /* # */) return undefined;
    return url.slice(0, index);
  }
  return url;
}

/**
 * Whether `url[from, to)` is four decimal numbers of 0-255 without leading zeros, joined by
 * dots: the one form of an IPv4 address that the WHATWG parser keeps as it is.
 */
function isCanonicalIPv4(url: string, from: number, to: number): boolean {
  let parts = 0;
  let i = from;
  while (i < to) {
    const start = i;
    let value = 0;
    while (i < to && url.charCodeAt(i) >= 48 && url.charCodeAt(i) <= 57) {
      value = value * 10 + (url.charCodeAt(i) - 48);
      i++;
    }
    const digits = i - start;
    if (digits === 0 || digits > 3 || value > 255 || (digits > 1 && url.charCodeAt(start) === 48))
      return false;
    parts++;
    if (i === to) break;
    if (url.charCodeAt(i) !== 46 /* . */) return false;
    i++;
    if (i === to) return false;
  }
  return parts === 4;
}

/** The URL of an origin's robots.txt (RFC 9309 2.3: "/robots.txt" at the top level). */
export function robotsTxtUrlOf(origin: string): string {
  return `${origin}/robots.txt`;
}

/**
 * Parses an absolute http(s) URL.
 *
 * @throws NotHttpUrlError with a message that says what was wrong and what is accepted;
 *   TypeError when `url` is neither a string nor a URL.
 */
export function parseHttpUrl(url: string | URL): URL {
  let parsed: URL;
  if (url instanceof URL) {
    parsed = url;
  } else if (typeof url === 'string') {
    try {
      parsed = new URL(url);
    } catch {
      throw new NotHttpUrlError(
        `Expected an absolute http(s) URL, got ${JSON.stringify(withoutUserinfo(url))}.`,
      );
    }
  } else {
    throw new TypeError(`Expected a URL string or URL object, got ${typeof url}.`);
  }
  if (!HTTP_SCHEMES.has(parsed.protocol)) {
    throw new NotHttpUrlError(
      `robots.txt applies to http and https URLs only (RFC 9309 2.3), got ${parsed.protocol} in ${JSON.stringify(withoutUserinfo(parsed.href))}.`,
    );
  }
  if (parsed.hostname === '') {
    throw new NotHttpUrlError(
      `Expected a URL with a host, got ${JSON.stringify(withoutUserinfo(parsed.href))}.`,
    );
  }
  return parsed;
}

/**
 * A location as a result or a record shows it: as written, unless the URL it reads as (against
 * `base`) names credentials; then that URL, without them. One that reads as no URL is shown
 * without what its text names as credentials.
 */
export function withoutCredentialsAt(location: string, base: string | URL | undefined): string {
  if (!location.includes('@')) return location;
  try {
    const target = new URL(location, base);
    return target.username === '' && target.password === '' ? location : withoutCredentials(target.href);
  } catch {
    // No URL (a port out of range): its text, without what reads as credentials.
    return withoutUserinfo(location);
  }
}

/** Whether two URLs (or origins) are of one origin; one that is no http(s) URL is of none. */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return originOf(a) === originOf(b);
  } catch {
    return false;
  }
}
