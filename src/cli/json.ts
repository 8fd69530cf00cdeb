import type { RobotsSource } from './source.js';

/** The robots.txt part of the `--json` output of `explain` and `audit`. */
export function sourceJson(source: RobotsSource) {
  const { fetch } = source;
  return {
    source: source.kind,
    location: source.location,
    url: source.kind === 'http' ? fetch.robotsTxtUrl : null,
    status: fetch.status,
    simulatedStatus: source.simulatedStatus ?? null,
    policy: fetch.kind,
    why: fetch.why,
    hops:
      source.kind === 'http'
        ? fetch.hops.map(({ url, status, location }) => ({ url, status, location: location ?? null }))
        : [],
    truncated: fetch.truncated,
    lines: source.lines.length,
    sitemaps: fetch.robots?.sitemaps ?? [],
  };
}
