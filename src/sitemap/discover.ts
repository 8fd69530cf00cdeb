import { originOf, parseHttpUrl } from '../fetch/index.js';
import { urlOrNull } from '../robots/url.js';
import type { OriginPolicy, RobotsStore } from '../store/index.js';
import type { SitemapSeedInput } from './options.js';

/** The usual places of a sitemap, tried when a site's robots.txt lists none (and the option asks for it). */
export const COMMON_SITEMAP_PATHS = ['/sitemap.xml', '/sitemap_index.xml', '/sitemap.txt'] as const;

/** A sitemap to read at the top of a run, and who pointed to it. */
export interface SitemapSource {
  url: string;
  /**
   * Origins whose robots.txt lists this sitemap. sitemaps.org "Sitemaps & Cross Submits": a
   * sitemap listed in a host's robots.txt may hold URLs of that host, wherever it is stored.
   */
  listedBy: Set<string>;
  /** Given by the user as a sitemap URL. */
  given: boolean;
  /** One of {@link COMMON_SITEMAP_PATHS}, only a guess: a 404 is not a failure. */
  guessed: boolean;
}

/** What discovery found: the sitemaps to read, and the sites whose robots.txt could not be read. */
export interface SitemapDiscovery {
  sources: SitemapSource[];
  /**
   * Policies of sites whose robots.txt is unreachable (5xx, 429, network failure): their
   * `Sitemap:` lines are unknown, and RFC 9309 2.3.1.4 disallows everything on them.
   */
  unreachable: OriginPolicy[];
}

/**
 * Reads the inputs of a run: sitemap URLs as given, and for each site root the `Sitemap:` lines
 * of its robots.txt (from the store, which fetches each robots.txt once and shares it with the
 * crawler), or the common paths when there are none and `tryCommonPaths` is set.
 *
 * @throws TypeError when an input is not an absolute http(s) URL.
 */
export async function discoverSitemaps(
  inputs: readonly SitemapSeedInput[],
  store: RobotsStore,
  tryCommonPaths: boolean,
): Promise<SitemapDiscovery> {
  const sources = new Map<string, SitemapSource>();
  const add = (url: string, changes: Partial<SitemapSource>, listedBy?: string): void => {
    let source = sources.get(url);
    if (source === undefined) {
      source = { url, listedBy: new Set(), given: false, guessed: false };
      sources.set(url, source);
    }
    if (listedBy !== undefined) source.listedBy.add(listedBy);
    if (changes.given) source.given = true;
    // A path also listed or given is no longer a guess.
    source.guessed = changes.guessed === true && source.listedBy.size === 0 && !source.given;
  };

  const sites: URL[] = [];
  for (const input of inputs) {
    const { url, kind } = readInput(input);
    if (kind === 'site') sites.push(url);
    else add(withoutHash(url), { given: true });
  }
  const policies = await Promise.all(sites.map((site) => store.resolve(site)));
  const unreachable: OriginPolicy[] = [];
  sites.forEach((site, index) => {
    const policy = policies[index];
    const origin = originOf(site);
    // An unreachable robots.txt lists nothing we can read: the site is reported, not silently empty.
    if (policy.kind === 'disallow-all' && !unreachable.includes(policy)) unreachable.push(policy);
    const listed = listedSitemaps(policy);
    for (const url of listed) add(url, {}, origin);
    if (listed.length === 0 && tryCommonPaths) {
      for (const path of COMMON_SITEMAP_PATHS) {
        const url = `${origin}${path}`;
        if (!sources.has(url)) add(url, { guessed: true });
      }
    }
  });
  return { sources: [...sources.values()], unreachable };
}

/** The sitemap URLs the `Sitemap:` lines of an origin's robots.txt list, absolute, without a fragment. */
export function listedSitemaps(policy: OriginPolicy): string[] {
  const urls: string[] = [];
  for (const line of policy.robots?.sitemaps ?? []) {
    // RFC 9309 2.2.4 leaves `sitemap` to sitemaps.org, which asks for a full URL; a relative
    // one is read against robots.txt, as crawlers commonly do.
    const url = urlOrNull(line, policy.robotsTxtUrl);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) continue;
    urls.push(withoutHash(url));
  }
  return urls;
}

function readInput(input: SitemapSeedInput): { url: URL; kind: 'site' | 'sitemap' } {
  if (typeof input === 'string' || input instanceof URL) {
    const url = parseHttpUrl(typeof input === 'string' ? input : input.href);
    // A bare origin (path `/`, no query) is a site; anything else is taken for a sitemap.
    return { url, kind: url.pathname === '/' && url.search === '' ? 'site' : 'sitemap' };
  }
  if (input !== null && typeof input === 'object') {
    if ('site' in input) return { url: parseHttpUrl(String(input.site)), kind: 'site' };
    if ('sitemap' in input) return { url: parseHttpUrl(String(input.sitemap)), kind: 'sitemap' };
  }
  throw new TypeError(
    `A sitemap input is a URL string, a URL, { site } or { sitemap }; got ${JSON.stringify(input)}.`,
  );
}

function withoutHash(url: URL): string {
  if (url.hash === '') return url.href;
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}
