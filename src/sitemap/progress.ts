import type { SitemapSeedResult } from './types.js';

const count = (value: number): string => value.toLocaleString('en-US');

/** The progress line logged every `progressIntervalMs`. */
export function formatProgress(result: SitemapSeedResult, elapsedMs: number, waitingSites = 0): string {
  const rate = elapsedMs > 0 ? Math.round((result.urlsFound * 1000) / elapsedMs) : 0;
  return (
    `Sitemaps read ${count(result.sitemapsRead)} (${count(result.sitemapsFailed)} failed), ` +
    `URLs found ${count(result.urlsFound)}, kept ${count(result.kept)}, ` +
    `dropped by robots.txt ${count(result.droppedByRobots)}, filtered ${count(result.filtered)}, ` +
    `${count(rate)} URLs/s` +
    (waitingSites > 0 ? `, waiting for the robots.txt of ${count(waitingSites)} sites.` : '.')
  );
}

/** The summary logged at the end of a run. */
export function formatSummary(result: SitemapSeedResult): string {
  const filters = Object.entries(result.filteredBy)
    .filter(([, value]) => value > 0)
    .map(([reason, value]) => `${reason} ${count(value)}`)
    .join(', ');
  return (
    `Done in ${(result.durationMs / 1000).toFixed(1)} s${result.stoppedEarly ? ' (stopped early)' : ''}: ` +
    `${count(result.sitemapsRead)} sitemaps read, ${count(result.sitemapsFailed)} failed, ` +
    `${count(result.sitemapsSkipped)} skipped; ${count(result.urlsFound)} URLs found, ` +
    `${count(result.kept)} kept, ${count(result.droppedByRobots)} dropped by robots.txt, ` +
    `${count(result.filtered)} filtered${filters === '' ? '' : ` (${filters})`}` +
    (result.unchecked > 0
      ? `, ${count(result.unchecked)} unchecked (the run stopped before their robots.txt answered)`
      : '') +
    '; ' +
    `${result.warnings.length} warnings.`
  );
}
