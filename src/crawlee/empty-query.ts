/**
 * A URL whose query is empty (`/report.pdf?`) may reach the site as either of two requests.
 * Node's HTTP stack, which Crawlee's HTTP crawlers and `sendRequest` use (got, through
 * `http.request`), writes the request target as `pathname + search`, and WHATWG leaves `search`
 * empty for an empty query: `/report.pdf` goes out. So does a browser crawler's request of an
 * http URL, through the local proxy Crawlee's browser pool puts in front of Chromium; over https,
 * or through a proxy of the user's, the browser's `?` may reach the site. robots.txt is read for
 * the request that is sent (RFC 9309 2.2.2): `Disallow: /*.pdf$` stops `/report.pdf` and not
 * `/report.pdf?`, `Disallow: /page?` the other way round. The guard fetches such a URL only when
 * both forms are allowed (the two forms: withoutEmptyQuery in src/robots/url.ts).
 */

/** Of the checks of the two forms of one URL, the one whose verdict holds for both: a disallow, if any. */
export function stricterCheck<T extends { allowed: boolean }>(written: T, bare: T): T {
  return written.allowed && !bare.allowed ? bare : written;
}
