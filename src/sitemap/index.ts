/**
 * Sitemap-seeded crawls: discovery from the `Sitemap:` lines of robots.txt, streaming parse of
 * every sitemap format, limits, filters, and a robots.txt check of each URL before it is enqueued.
 */
export {
  COMMON_SITEMAP_PATHS,
  listedSitemaps,
  unusableLinesText,
  unusableSitemapLines,
} from './discover.js';
export { compilePatterns, globToRegExp, parseLastmod } from './filter.js';
export {
  SITEMAP_DEFAULTS,
  type SitemapSeederOptions,
  type SitemapSeedInput,
  type SitemapSeedOptions,
  type SitemapUrlPattern,
} from './options.js';
export type { MiscasedElements } from './parse.js';
export { MAX_LOC_LENGTH, SitemapParser } from './parse.js';
export { SEED_OPTIONS, SitemapSeeder } from './seeder.js';
export type {
  SitemapDroppedUrl,
  SitemapEntry,
  SitemapFileRead,
  SitemapFilteredUrl,
  SitemapFilterReason,
  SitemapFormat,
  SitemapProblem,
  SitemapRequest,
  SitemapRequestUserData,
  SitemapSeedResult,
} from './types.js';
