import { parseHttpUrl } from '../fetch/index.js';
import { hrefWithoutFragment, type RobotsTxt, urlOrNull } from '../robots/index.js';
import type { OriginPolicy, RobotsStore } from '../store/index.js';
import { ABORTED, untilAborted } from './abort.js';
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
   * `Sitemap:` lines are unknown, and RFC 9309 2.3.1.4 disallows everything on them. They add
   * nothing to `sources` (see siteSources for when they answer again, or are given up).
   */
  unreachable: OriginPolicy[];
  /** What a run should be told of the robots.txt files read: `Sitemap:` lines no crawler can use. */
  warnings: { url: string; why: string }[];
  /** The robots.txt URLs of the sites a stop left unread: the sitemaps they list are unknown. */
  unread: string[];
}

/**
 * Reads the inputs of a run: sitemap URLs as given, and for each site root the `Sitemap:` lines
 * of its robots.txt (from the store, which fetches each robots.txt once and shares it with the
 * crawler), or the common paths when there are none and `tryCommonPaths` is set. Once `signal`
 * aborts it stops waiting for robots.txt files and returns the given sitemaps only.
 *
 * @throws TypeError when an input is not an absolute http(s) URL.
 */
export async function discoverSitemaps(
  inputs: readonly SitemapSeedInput[],
  store: RobotsStore,
  tryCommonPaths: boolean,
  signal: AbortSignal,
): Promise<SitemapDiscovery> {
  const sources = new Map<string, SitemapSource>();
  const sites: URL[] = [];
  for (const input of inputs) {
    const { url, kind } = readInput(input);
    if (kind === 'site') sites.push(url);
    else
      mergeSource(sources, {
        url: hrefWithoutFragment(url),
        listedBy: new Set(),
        given: true,
        guessed: false,
      });
  }
  const unreachable: OriginPolicy[] = [];
  const warnings: { url: string; why: string }[] = [];
  // A run stopped before it began asks no robots.txt.
  const policies = signal.aborted
    ? ABORTED
    : await untilAborted(Promise.all(sites.map((site) => store.resolve(site))), signal);
  if (policies === ABORTED) {
    const unread = [...new Set(sites.map((site) => `${site.origin}/robots.txt`))];
    return { sources: [...sources.values()], unreachable, warnings, unread };
  }
  for (const policy of policies) {
    if (policy.kind === 'disallow-all') {
      if (!unreachable.includes(policy)) unreachable.push(policy);
      continue;
    }
    for (const source of siteSources(policy, tryCommonPaths)) mergeSource(sources, source);
    const why = unusableSitemapWarning(policy);
    if (why !== undefined && !warnings.some((warning) => warning.url === policy.robotsTxtUrl)) {
      warnings.push({ url: policy.robotsTxtUrl, why });
    }
  }
  return { sources: [...sources.values()], unreachable, warnings, unread: [] };
}

/** What a run warns of a robots.txt whose `Sitemap:` lines include some no crawler can use; undefined for none. */
export function unusableSitemapWarning(policy: OriginPolicy): string | undefined {
  const unusable = unusableSitemapLines(policy.robots);
  if (unusable.length === 0) return undefined;
  const one = unusable.length === 1;
  return `Its ${unusableLinesText(unusable)}, which sitemaps.org asks for: no crawler can use ${one ? 'it' : 'them'}, and ${one ? 'it is' : 'they are'} not read.`;
}

/** `Sitemap: line 4 is not an absolute http(s) URL`, or the same of several lines (see unusableSitemapLines). */
export function unusableLinesText(unusable: readonly number[]): string {
  return unusable.length === 1
    ? `Sitemap: line ${unusable[0]} is not an absolute http(s) URL`
    : `Sitemap: lines ${unusable.join(', ')} are not absolute http(s) URLs`;
}

/**
 * The lines of the `Sitemap:` values that are not absolute http(s) URLs (`Sitemap: /sitemap.xml`),
 * which no crawler can use (sitemaps.org asks for a full URL), in file order. Read from the lints
 * (`sitemap-not-absolute`): a line past their cap of findings is not named.
 */
export function unusableSitemapLines(robots: RobotsTxt | null): number[] {
  return (robots?.lints ?? [])
    .filter((lint) => lint.code === 'sitemap-not-absolute')
    .map((lint) => lint.line);
}

/**
 * The sitemaps one site offers: those the `Sitemap:` lines of its robots.txt list, or the
 * common paths (guesses) when it lists none and `tryCommonPaths` is set. A site whose robots.txt
 * is unreachable lists nothing: its guesses are refused by the robots.txt check (and counted
 * as skipped), not requested.
 */
export function siteSources(policy: OriginPolicy, tryCommonPaths: boolean): SitemapSource[] {
  const listed = listedSitemaps(policy).map((url) => ({
    url,
    listedBy: new Set([policy.origin]),
    given: false,
    guessed: false,
  }));
  if (listed.length > 0 || !tryCommonPaths) return listed;
  return COMMON_SITEMAP_PATHS.map((path) => ({
    url: `${policy.origin}${path}`,
    listedBy: new Set<string>(),
    given: false,
    guessed: true,
  }));
}

/** Adds `source` to `sources`, merging it with an entry of the same URL: listed or given is no guess. */
function mergeSource(sources: Map<string, SitemapSource>, source: SitemapSource): void {
  const known = sources.get(source.url);
  if (known === undefined) {
    sources.set(source.url, { ...source, listedBy: new Set(source.listedBy) });
    return;
  }
  for (const origin of source.listedBy) known.listedBy.add(origin);
  known.given ||= source.given;
  known.guessed = known.guessed && source.guessed;
}

/**
 * The sitemap URLs the `Sitemap:` lines of an origin's robots.txt list, without a fragment: the
 * absolute http(s) ones, since a relative line (`Sitemap: /sitemap.xml`) is none a crawler can use.
 */
export function listedSitemaps(policy: OriginPolicy): string[] {
  const urls: string[] = [];
  for (const line of policy.robots?.sitemaps ?? []) {
    // RFC 9309 2.2.4 leaves `sitemap` to sitemaps.org, which asks for a full URL: the parsed
    // file lists absolute http(s) URLs only, and its `sitemap-not-absolute` lint names the rest.
    const url = urlOrNull(line);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) continue;
    urls.push(hrefWithoutFragment(url));
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
    const keys = Object.keys(input);
    if (keys.length === 1 && keys[0] === 'site') {
      const url = parseHttpUrl(String((input as { site: unknown }).site));
      // robots.txt belongs to an origin: a path or query would be dropped without a word.
      if (url.pathname !== '/' || url.search !== '') {
        throw new TypeError(
          `{ site } takes a site root such as ${url.origin}/, got ${url.href}: give a sitemap as { sitemap } or as the URL itself.`,
        );
      }
      return { url, kind: 'site' };
    }
    if (keys.length === 1 && keys[0] === 'sitemap')
      return { url: parseHttpUrl(String((input as { sitemap: unknown }).sitemap)), kind: 'sitemap' };
  }
  throw new TypeError(
    `A sitemap input is a URL string, a URL, { site } or { sitemap }; got ${JSON.stringify(input)}.`,
  );
}
