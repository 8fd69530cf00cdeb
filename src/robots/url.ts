/**
 * `http://` or `https://` at the start of a text, in any case, followed by an authority: not by
 * another `/` or `\`. URL parsers skip those (`https:///sitemap.xml` is read as the host
 * `sitemap.xml`), which would make a path its writer meant into a host nobody named.
 */
export const HTTP_URL_START = /^https?:\/\/(?![/\\])/i;

/** The href of `url` without its fragment (an empty one included). */
export function hrefWithoutFragment(url: URL): string {
  const hash = url.href.indexOf('#');
  return hash < 0 ? url.href : url.href.slice(0, hash);
}

/**
 * `new URL(input, base)`, or null for what is no URL, without an exception to catch where the
 * runtime has `URL.parse` (Node 20.18 and later; a file may hold thousands of values to try).
 * Not `URL.canParse`: once optimized, Node 20's answers false for a host written in Latin-1
 * letters (`http://café.example/`), which the parser accepts (its fast call reads the string's
 * octets as UTF-8).
 */
export function urlOrNull(input: string, base?: string | URL): URL | null {
  if (typeof URL.parse === 'function') return URL.parse(input, base);
  try {
    return new URL(input, base);
  } catch {
    return null;
  }
}

/**
 * A `scheme://` (or a bare `//`) and the userinfo after it: everything up to the last `@` before
 * the authority ends, as a URL parser reads it (`\\` ends it too in http(s) URLs).
 */
const USERINFO = /^(\s*(?:[A-Za-z][A-Za-z0-9+.-]*:)?[/\\]{2})[^/\\?#]*@/;

/**
 * `text`, a URL or what was meant to be one (it may not parse), without the `user:pass@` of
 * its authority: what a message quotes of an input it refuses.
 */
export function withoutUserinfo(text: string): string {
  return text.replace(USERINFO, '$1');
}

/** The URL without its `user:pass@` part: credentials never reach a result, a Dataset or a log. */
export function withoutCredentials(url: string): string {
  if (!url.includes('@')) return url;
  const parsed = urlOrNull(url);
  if (parsed === null || (parsed.username === '' && parsed.password === '')) return url;
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * Whether an http(s) URL written as `URL.href` writes it names a user or a password: an `@`
 * before the `/` that ends its authority (`URL.href` leaves out an empty `@`).
 */
export function hrefHasCredentials(href: string): boolean {
  const authority = href.indexOf('//') + 2;
  const at = href.indexOf('@', authority);
  return at >= 0 && at < href.indexOf('/', authority);
}

/**
 * `url` without the `?` of an empty query (a fragment after it stays), or undefined when its
 * query is not empty or it has none.
 */
export function withoutEmptyQuery(url: string): string | undefined {
  const question = url.indexOf('?');
  if (question < 0) return undefined;
  // A `?` that ends the URL or comes right before its fragment; one in the fragment is no query.
  const hash = url.indexOf('#');
  if (question !== (hash < 0 ? url.length : hash) - 1) return undefined;
  return url.slice(0, question) + url.slice(question + 1);
}
