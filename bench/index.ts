/**
 * Runs the benchmark suites one after the other:
 *
 *   node --expose-gc --import tsx bench/index.ts [suite ...]
 *
 * With no argument every suite runs. Each suite module exports `run(): Promise<void>` and
 * prints its own tables. A missed target is reported and never fails the run; the exit
 * code is 1 only when a suite crashes or finds a broken invariant of the code under test.
 *
 * Two or more suites run each in a process of its own, as one suite alone does: in one process,
 * the heap and the compiled code the robots suite leaves behind slowed the store suite's
 * `check()` from 1.12 M/s to 714 k/s. A process loads only the modules of its suite: loaded
 * through tsx, crawlee's thousands of CommonJS modules, which the crawlee suite needs, made the
 * core parse the typical file about 10% slower in the same process (robots-parser not).
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { elapsedMs, outcome } from './harness.js';

/** Each suite's module, imported only by the process that runs it. */
const SUITES: { name: string; load: () => Promise<{ run: () => Promise<void> }> }[] = [
  { name: 'robots', load: () => import('./robots.bench.js') },
  { name: 'store', load: () => import('./store.bench.js') },
  { name: 'crawlee', load: () => import('./crawlee.bench.js') },
  { name: 'sitemap', load: () => import('./sitemap.bench.js') },
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
  const chosen = SUITES.filter((suite) => wanted.length === 0 || wanted.includes(suite.name));
  if (chosen.length > 1) {
    for (const suite of chosen) runInChild(suite.name);
    return;
  }
  for (const suite of chosen) {
    console.log(`\n# bench: ${suite.name}`);
    const { run } = await suite.load();
    const start = elapsedMs();
    await run();
    console.log(`\n(${suite.name}: ${((elapsedMs() - start) / 1000).toFixed(1)} s)`);
  }
}

/** Where a suite run as a child writes its outcome for the parent's summary. */
const OUTCOME_FILE = process.env.BENCH_OUTCOME_FILE;

/** Runs one suite in a process of its own, its output passed through, and adds its outcome to ours. */
function runInChild(name: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const file = join(dir, 'outcome.json');
  try {
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_OUTCOME_FILE: file },
    });
    let reported: { misses: string[]; failures: string[] } | undefined;
    try {
      reported = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      reported = undefined;
    }
    if (reported === undefined) {
      outcome.failures.push(
        `crash: suite ${name} ended with ${child.signal ?? `exit code ${child.status}`} and no outcome`,
      );
      return;
    }
    outcome.misses.push(...reported.misses);
    outcome.failures.push(...reported.failures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  outcome.failures.push(`crash: ${error instanceof Error ? error.message : String(error)}`);
  console.error(error);
}
if (OUTCOME_FILE !== undefined) {
  // A child of the run above: the parent prints the summary.
  writeFileSync(OUTCOME_FILE, JSON.stringify(outcome));
  if (outcome.failures.length > 0) process.exitCode = 1;
  process.exit();
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
