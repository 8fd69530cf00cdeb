/**
 * The URLs an audit checks. Each source is a function of the site and its robots.txt; the
 * audit takes the first source that applies. A sitemap source (`--from-sitemaps`, the URLs
 * that robots.txt's `Sitemap:` lines lead to) plugs in here as one more `UrlSource` once
 * `src/sitemap` is available.
 */
import type { RobotsTxt } from '../robots/index.js';
import { CliInputError } from './io.js';

export interface UrlSourceContext {
  /** The origin audited, e.g. `https://example.com`. */
  origin: string;
  /** The parsed file, or null when robots.txt gave no file (4xx, 5xx, no answer). */
  robots: RobotsTxt | null;
}

/** Gives the absolute URLs to audit, all on `context.origin`. */
export type UrlSource = (context: UrlSourceContext) => Promise<string[]>;

/** How many paths are made up from the rules when no URLs are given. */
export const MAX_SAMPLE_URLS = 15;

/**
 * The default: the home page, the URL given as the site if it has a path, and one example path
 * per rule of the file, so that every rule is exercised at least once.
 */
export function urlsFromRules(site: string): UrlSource {
  return async ({ origin, robots }) => {
    const paths = ['/'];
    const given = new URL(site);
    if (given.pathname !== '/' || given.search !== '') paths.push(given.pathname + given.search);
    for (const group of robots?.groups ?? []) {
      for (const rule of group.rules) {
        if (rule.derived !== undefined) continue;
        const path = examplePathOf(rule.pattern);
        if (path !== undefined && !paths.includes(path)) paths.push(path);
      }
    }
    return paths.slice(0, MAX_SAMPLE_URLS + 1).map((path) => new URL(path, origin).href);
  };
}

/**
 * A path the pattern matches: a final `$` dropped (RFC 9309 2.2.3: it anchors the end), each
 * `*` right after a `/` made an `x` (`/*.pdf` -> `/x.pdf`), any other `*` dropped. Patterns not
 * starting with `/` match nothing and give no path.
 */
export function examplePathOf(pattern: string): string | undefined {
  if (!pattern.startsWith('/')) return undefined;
  let path = pattern.endsWith('$') ? pattern.slice(0, -1) : pattern;
  path = path.replace(/\/\*/g, '/x').replace(/\*/g, '');
  return path;
}

/**
 * URLs listed one a line (`--urls file`): blank lines and `#` comments skipped; a path is
 * resolved against the site. Every URL must be on the audited origin: a robots.txt speaks for
 * its own origin only (RFC 9309 2.3).
 */
export function listedUrls(text: string, name: string): UrlSource {
  return async ({ origin }) => {
    const urls: string[] = [];
    text.split(/\r\n|\r|\n/).forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const where = `${name} line ${index + 1}`;
      let url: URL;
      if (line.startsWith('/')) url = new URL(line, origin);
      else if (URL.canParse(line)) url = new URL(line);
      else
        throw new CliInputError(
          `${where}: ${JSON.stringify(line)} is neither an absolute URL nor a path starting with /`,
        );
      if (url.origin !== origin) {
        throw new CliInputError(`${where}: ${url.href} is not on ${origin}; audit one origin at a time`);
      }
      url.hash = '';
      if (!urls.includes(url.href)) urls.push(url.href);
    });
    if (urls.length === 0) throw new CliInputError(`${name} lists no URL`);
    return urls;
  };
}
