import { describe, expect, it } from 'vitest';
import type { RobotsOriginSummary, RobotsRunSummary } from '../../src/crawlee/index.js';
import { formatSummary, LOGGED_ORIGINS } from '../../src/crawlee/summary.js';

function origin(n: number, dropped: number, deferred = 0): RobotsOriginSummary {
  return {
    origin: `https://site${String(n).padStart(3, '0')}.example`,
    robotsStatus: 200,
    policyKind: 'rules',
    robotsAgeMs: 1000,
    allowed: 10,
    dropped,
    deferred,
    givenUp: 0,
    hopsStopped: 0,
    hopsFollowed: 0,
    topRules: dropped > 0 ? [{ kind: 'disallow', pattern: '/private/', line: 2, drops: dropped }] : [],
  };
}

function summaryOf(origins: RobotsOriginSummary[]): RobotsRunSummary {
  const total = (key: 'allowed' | 'dropped' | 'deferred') => origins.reduce((sum, o) => sum + o[key], 0);
  return {
    productToken: 'examplebot',
    origins,
    totals: {
      allowed: total('allowed'),
      dropped: total('dropped'),
      deferred: total('deferred'),
      givenUp: 0,
      hopsStopped: 0,
      hopsFollowed: 0,
    },
    unrecorded: 0,
  };
}

describe('formatSummary', () => {
  it('lists every origin of a small crawl, in order', () => {
    const origins = Array.from({ length: LOGGED_ORIGINS }, (_, i) => origin(i, i % 3));
    const lines = formatSummary(summaryOf(origins)).split('\n');
    expect(lines).toHaveLength(1 + LOGGED_ORIGINS);
    expect(lines[0]).toContain(`${LOGGED_ORIGINS} origins`);
    expect(lines.slice(1).map((line) => line.split(' ')[2])).toEqual(origins.map((o) => o.origin));
  });

  it('lists the origins with the most URLs dropped or deferred of a broad crawl, and counts the rest', () => {
    // 5,000 origins; five with drops or deferrals, one of them past the first twenty by name.
    const origins = Array.from({ length: 5000 }, (_, i) => origin(i, 0));
    origins[3] = origin(3, 2);
    origins[40] = origin(40, 0, 7);
    origins[41] = origin(41, 1);
    origins[4000] = origin(4000, 9);
    origins[4999] = origin(4999, 2);
    const lines = formatSummary(summaryOf(origins)).split('\n');

    expect(lines).toHaveLength(1 + LOGGED_ORIGINS + 1);
    expect(lines[0]).toContain('50000 allowed');
    expect(lines[0]).toContain('14 dropped');
    expect(lines[0]).toContain('5000 origins');
    const listed = lines.slice(1, -1).map((line) => line.split(' ')[2]);
    expect(listed.slice(0, 5)).toEqual([4000, 40, 3, 4999, 41].map((n) => origins[n].origin));
    // Then the first of the others, by name.
    expect(listed.slice(5)).toEqual(
      [0, 1, 2, ...Array.from({ length: 12 }, (_, i) => i + 4)].map((n) => origins[n].origin),
    );
    expect(lines[1]).toContain(
      '9 dropped, 0 deferred, 0 given up; top rules: disallow: /private/ (line 2) x9',
    );
    expect(lines.at(-1)).toBe(
      '  ... and 4980 more origins, 0 of them with URLs dropped or deferred (guard.summary() lists every origin)',
    );
  });

  it('counts the origins with drops it had no room for', () => {
    const origins = Array.from({ length: LOGGED_ORIGINS + 7 }, (_, i) => origin(i, 1));
    const lines = formatSummary(summaryOf(origins)).split('\n');
    expect(lines.at(-1)).toBe(
      '  ... and 7 more origins, 7 of them with URLs dropped or deferred (guard.summary() lists every origin)',
    );
  });
});
