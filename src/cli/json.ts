import type { RobotsSource } from './source.js';
import { unicodeEscape } from './style.js';

/**
 * `value` as indented JSON, one line feed after it. JSON.stringify escapes C0 controls but
 * writes DEL and C1 controls (U+009B starts a sequence on some terminals) as they are; they are
 * escaped too, which leaves every value exactly as it was.
 */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(/[\u007f-\u009f]/g, unicodeEscape)}\n`;
}

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
