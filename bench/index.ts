/**
 * Runs the benchmark suites one after the other:
 *
 *   node --expose-gc --import tsx bench/index.ts [suite ...]
 *
 * With no argument every suite runs. Each suite module exports `run(): Promise<void>` and
 * prints its own tables. A missed target is reported and never fails the run; the exit
 * code is 1 only when a suite crashes or finds a broken invariant of the code under test.
 */

import { run as crawlee } from './crawlee.bench.js';
import { elapsedMs, outcome } from './harness.js';
import { run as robots } from './robots.bench.js';
import { run as sitemap } from './sitemap.bench.js';
import { run as store } from './store.bench.js';

const SUITES: { name: string; run: () => Promise<void> }[] = [
  { name: 'robots', run: robots },
  { name: 'store', run: store },
  { name: 'crawlee', run: crawlee },
  { name: 'sitemap', run: sitemap },
];

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
  if (unknown.length > 0) {
    throw new Error(`unknown suite ${unknown.join(', ')}; suites: ${SUITES.map((s) => s.name).join(', ')}`);
  }
  if (typeof globalThis.gc !== 'function') {
    throw new Error(
      'global.gc is missing: run the benchmark as `node --expose-gc --import tsx bench/index.ts`',
    );
  }
  for (const suite of SUITES) {
    if (wanted.length > 0 && !wanted.includes(suite.name)) continue;
    console.log(`\n# bench: ${suite.name}`);
    const start = elapsedMs();
    await suite.run();
    console.log(`\n(${suite.name}: ${((elapsedMs() - start) / 1000).toFixed(1)} s)`);
  }
}

try {
  await main();
} catch (error) {
  outcome.failures.push(`crash: ${error instanceof Error ? error.message : String(error)}`);
  console.error(error);
}
console.log(`\n# summary (${(elapsedMs() / 1000).toFixed(1)} s)\n`);
console.log(
  outcome.misses.length === 0
    ? 'All targets met.'
    : `${outcome.misses.length} target(s) missed: ${outcome.misses.join('; ')}.`,
);
if (outcome.failures.length > 0) {
  console.log(`${outcome.failures.length} failure(s):\n- ${outcome.failures.join('\n- ')}`);
  process.exitCode = 1;
}
