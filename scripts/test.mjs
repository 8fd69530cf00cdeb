// Runs the test suite and ends with one line CI can read: `N passed, N failed`.
//
// With no arguments the suite runs in two lanes at once, each a vitest run of its own with one
// worker, so that a test that times a crawl sees at most one other file's load:
// - the heavy lane: the files that drive Chromium, and the guard's and Crawl-delay's files, whose
//   crawls of a hundred thousand URLs and Crawl-delay timings must not run beside a browser; each
//   file in a fresh module graph;
// - the shared lane: the rest, in one module graph (vitest's --no-isolate). Each of these files
//   starts its own servers, stores and crawlers, and importing Crawlee once instead of once per
//   file takes about two seconds off each of some sixty files.
// With arguments (file filters, vitest options) it is one plain vitest run.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { ensurePackages } from './debian-packages.mjs';

/** Path filters of the heavy lane (vitest reads a filter as part of a file's path). */
const HEAVY = [
  'test/crawlee/playwright.test.ts',
  'test/crawlee/playwright-navigation.test.ts',
  'test/crawlee/adaptive.test.ts',
  'test/crawlee/guard.test.ts',
  'test/crawlee/crawl-delay.test.ts',
  'test/cli/html-report.test.ts',
  'test/demo/demo.test.ts',
];

const vitest = 'node_modules/vitest/vitest.mjs';
mkdirSync('.tmp', { recursive: true });

const args = process.argv.slice(2);
// The whole suite drives Chromium and starts redis-server: without them, dozens of files would
// fail one by one, each with its own error, rather than once with the command that fixes it.
if (args.length === 0 && ensurePackages(['chromium', 'redis-server']).length > 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const lanes =
  args.length > 0
    ? [{ name: 'all', args }]
    : [
        { name: 'heavy', args: ['--maxWorkers=1', ...HEAVY] },
        {
          name: 'shared',
          args: ['--maxWorkers=1', '--no-isolate', ...HEAVY.flatMap((file) => ['--exclude', file])],
        },
      ];

const results = await Promise.all(lanes.map(runLane));
const passed = results.reduce((sum, r) => sum + r.passed, 0);
const failed = results.reduce((sum, r) => sum + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(results.every((r) => r.ok) && failed === 0 ? 0 : 1);

/** Runs one vitest process; its counts come from its JSON report. */
function runLane(lane) {
  const report = `.tmp/test-results-${lane.name}.json`;
  rmSync(report, { force: true });
  const child = spawn(
    process.execPath,
    [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...lane.args],
    { stdio: 'inherit' },
  );
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`The ${lane.name} lane did not start: ${error.message}`);
      resolve({ ok: false, passed: 0, failed: 1 });
    });
    child.on('close', (code) => resolve({ ok: code === 0, ...countsOf(report) }));
  });
}

function countsOf(report) {
  try {
    const results = JSON.parse(readFileSync(report, 'utf8'));
    let failed = results.numFailedTests + (results.numRuntimeErrorTestSuites ?? 0);
    // A file that fails to load holds no tests but is a failure all the same.
    for (const file of results.testResults ?? [])
      if (file.status === 'failed' && file.assertionResults.length === 0) failed++;
    return { passed: results.numPassedTests, failed };
  } catch {
    // No report: the run died before writing it.
    return { passed: 0, failed: 1 };
  }
}
