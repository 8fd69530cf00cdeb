import type { SitemapUrlPattern } from './options.js';

/**
 * Turns a URL glob into an anchored RegExp: `**` is any sequence, `*` any sequence without `/`
 * (it stays inside one path segment), `?` one character other than `/`; everything else is
 * literal.
 *
 * @example
 * globToRegExp('https://example.com/blog/**').test('https://example.com/blog/2024/a'); // true
 * globToRegExp('https://example.com/*.html').test('https://example.com/a/b.html'); // false
 */
export function globToRegExp(glob: string): RegExp {
  let source = '^';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === '*') {
      if (glob[index + 1] === '*') {
        source += '.*';
        while (glob[index + 1] === '*') index++;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
    }
  }
  return new RegExp(`${source}$`);
}

/** Compiles patterns once; a global or sticky RegExp is copied without those flags (they make `test` stateful). */
export function compilePatterns(patterns: readonly SitemapUrlPattern[] | undefined): RegExp[] {
  if (patterns === undefined) return [];
  return patterns.map((pattern, index) => {
    if (pattern instanceof RegExp) {
      return pattern.global || pattern.sticky
        ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''))
        : pattern;
    }
    if (typeof pattern === 'string') return globToRegExp(pattern);
    throw new TypeError(`URL pattern ${index} must be a glob string or a RegExp, got ${typeof pattern}.`);
  });
}

/**
 * Reads a `lastmod` value: the W3C Datetime forms sitemaps.org prescribes (`2024`, `2024-05`,
 * `2024-05-17`, `2024-05-17T10:00:00+02:00`) and the RFC 822 dates of RSS `pubDate`.
 * Returns the time in ms, or undefined when it is unreadable.
 */
export function parseLastmod(value: string): number | undefined {
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/** Reads {@link SitemapSeedOptions.modifiedSince}. */
export function parseSince(value: Date | string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time =
    value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (Number.isNaN(time)) {
    throw new TypeError(
      `modifiedSince must be a Date, a time in ms or an ISO 8601 date, got ${String(value)}.`,
    );
  }
  return time;
}
