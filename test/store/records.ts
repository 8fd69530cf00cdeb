import { clientOf, type RobotsBackendScope } from '../../src/store/backend.js';
import type { PolicyRecord } from '../../src/store/policy.js';

/**
 * A complete, valid record of a 404 (allow-all) answer for `origin`, fetched at `fetchedAt` and
 * fresh for an hour; `overrides` replace fields. For tests that write records the way a backend
 * would hold them.
 */
export function policyRecord(
  origin: string,
  fetchedAt: number,
  overrides: Partial<PolicyRecord> = {},
): PolicyRecord {
  const robotsTxtUrl = `${origin}/robots.txt`;
  const why = 'HTTP 404: robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.3).';
  return {
    version: 1,
    origin,
    robotsTxtUrl,
    finalUrl: robotsTxtUrl,
    kind: 'allow-all',
    status: 404,
    why,
    fetchedAt,
    expiresAt: fetchedAt + 3_600_000,
    hops: [{ url: robotsTxtUrl, status: 404, durationMs: 1.5 }],
    failures: 0,
    servedFromStaleCopy: false,
    good: { kind: 'allow-all', status: 404, fetchedAt, why, truncated: false },
    truncated: false,
    timings: { totalMs: 2, parseMs: 0 },
    ...overrides,
  };
}

/**
 * The scope a store of `userAgent` gives its backend, for tests that call a backend directly;
 * `ignored` lists what the backend reported as `origin: reason`.
 */
export function backendScope(userAgent = 'ExampleBot/1.0'): RobotsBackendScope & { reports: string[] } {
  const reports: string[] = [];
  return {
    client: clientOf(userAgent),
    maxRecordBytes: 2 ** 20,
    reports,
    ignored: (origin, reason) => {
      reports.push(`${origin}: ${reason}`);
    },
  };
}
