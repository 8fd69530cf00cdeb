import { withoutCredentials } from '../fetch/index.js';
import type { RobotsSource } from './source.js';
import { unicodeEscape } from './style.js';

/**
 * What JSON.stringify writes as it is but a terminal would act on: DEL and C1 controls (U+009B
 * starts a sequence on some terminals), and the bidirectional marks and overrides, which make a
 * line read in another order than it is (C0 controls JSON escapes itself).
 */
const NOT_PRINTED_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `value` as indented JSON, one line feed after it, with NOT_PRINTED_RAW escaped, which leaves
 * every value exactly as it was.
 */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(NOT_PRINTED_RAW, unicodeEscape)}\n`;
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
    sitemaps: (fetch.robots?.sitemaps ?? []).map(withoutCredentials),
  };
}
