import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { droppedRecord } from '../../src/crawlee/record.js';
import { RunTally } from '../../src/crawlee/summary.js';
import { RobotsTxt } from '../../src/index.js';
import type { RobotsCheck } from '../../src/store/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A file of about 400 KiB whose decisive rule for `/private/...` is a long pattern. */
function largeFile(n: number): string {
  const rules = Array.from({ length: 6000 }, (_, i) => `Disallow: /section-${n}-${i}/some/long/path/`);
  return `User-agent: *\n${rules.join('\n')}\nDisallow: /private/origin-${n}/with/a/long/pattern/\n`;
}

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

it("keeps no parsed file alive through the patterns of a run's summary", () => {
  const tally = new RunTally();
  const origins = 40;
  let before = 0;
  // The first round warms up what any parse allocates once (code, shared tables).
  for (let n = -1; n < origins; n++) {
    if (n === 0) before = heapAfterGc();
    const origin = `http://site-${n}.test`;
    const url = `${origin}/private/origin-${n}/with/a/long/pattern/page`;
    const verdict = RobotsTxt.parse(largeFile(n)).explain(url, 'ExampleBot');
    expect(verdict.allowed).toBe(false);
    const check = {
      ...verdict,
      url,
      origin,
      robotsTxtUrl: `${origin}/robots.txt`,
      policyKind: 'rules',
      status: 200,
      why: 'HTTP 200',
      ageMs: 0,
      fetchedAt: 0,
      servedFromStaleCopy: false,
    } as unknown as RobotsCheck;
    const record = droppedRecord(check, {
      url,
      requestUrl: url,
      stage: 'enqueue',
      reason: 'disallowed',
      time: 0,
    });
    tally.dropped(record, check, 0);
    // The parsed file, and the store that would hold it, are let go here.
  }
  const kept = heapAfterGc() - before;
  // Each file's patterns are held in chunks of up to 64 Ki characters: a pattern sliced from one
  // kept it alive, 64 KiB an origin (2.5 MiB for these). The summary itself is a few hundred bytes an origin.
  expect(kept).toBeLessThan(origins * 16 * 1024);
  const { origins: summaries } = tally.summary('examplebot', () => undefined, 0, 0);
  expect(summaries).toHaveLength(origins + 1);
  expect(summaries[1].topRules[0]).toMatchObject({
    kind: 'disallow',
    pattern: '/private/origin-0/with/a/long/pattern/',
  });
});

it("keeps a few hundred bytes for each origin it counts, for the guard's life", () => {
  const origins = 20_000;
  const names = Array.from({ length: origins }, (_, i) => `https://site-${i}.example.com`);
  const checks = names.map(
    (origin, i) => ({ origin, status: 200, policyKind: 'rules', ageMs: 1000 + i }) as unknown as RobotsCheck,
  );
  const before = heapAfterGc();
  const tally = new RunTally();
  // A time with a fraction: `copyAt` is then no small integer.
  for (const check of checks) for (let k = 0; k < 3; k++) tally.allowed(check, 1_700_000_000_000.5);
  const perOrigin = (heapAfterGc() - before) / origins;
  // About 650 bytes when each origin had a Map of its rules from the start.
  expect(perOrigin).toBeLessThan(400);
  expect(tally.summary('examplebot', () => undefined, 0, 0).totals.allowed).toBe(3 * origins);
});
