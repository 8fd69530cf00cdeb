/**
 * Runs one adversarial case for one library in a worker thread, so that the suite can stop
 * an operation that runs away (a backtracking matcher, a quadratic parser) instead of
 * hanging. Reports each measurement as soon as it has it: a stopped worker loses only the
 * operation it was in.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { RobotsTxt } from '../dist/robots/index.js';
import { timeNs } from './harness.js';
import { ADVERSARIAL_CASES, loadFixture, PRODUCT_TOKEN, ROBOTS_URL, robotsParser } from './robots-inputs.js';

export type LibraryName = 'crawlee-robots' | 'robots-parser';

export interface AdversarialTask {
  library: LibraryName;
  caseId: string;
  /** Most runs of one operation. */
  runs: number;
  /** After one run slower than this (ms), the operation is not repeated. */
  slowMs: number;
}

export type WorkerMessage =
  | { type: 'phase'; phase: string }
  | { type: 'parse'; times: number[] }
  | { type: 'check'; label: string; times: number[]; allowed: boolean | undefined }
  | { type: 'explain'; label: string; times: number[] }
  | { type: 'done' };

interface Checker {
  isAllowed(url: string, userAgent: string): boolean | undefined;
}

const task = workerData as AdversarialTask;
const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);

const parse: (body: string | Uint8Array, text: string) => Checker =
  task.library === 'crawlee-robots'
    ? (body) => RobotsTxt.parse(body)
    : (_body, text) => robotsParser(ROBOTS_URL, text);

/** A young-generation collection, when the process runs with --expose-gc. */
const minorGc = globalThis.gc as ((options: { type: 'minor' }) => void) | undefined;

/**
 * Times `op` up to `task.runs` times, once only when a run is slow. The runs start with an
 * empty young generation: they pay for collecting their own garbage, not the warm-up's (a
 * scavenge here takes up to 5 ms, hundreds of times an 8 KB check).
 */
function repeat(op: () => void): number[] {
  const times: number[] = [];
  minorGc?.({ type: 'minor' });
  while (times.length < task.runs) {
    const t = timeNs(op);
    times.push(t);
    if (t > task.slowMs * 1e6) break;
  }
  return times;
}

const spec = ADVERSARIAL_CASES.find((c) => c.id === task.caseId);
if (!spec) throw new Error(`unknown adversarial case ${task.caseId}`);
const input = spec.build();

const typical = loadFixture('typical');
const large = loadFixture('large');

/** After each parse of the large file, the warm-up asks it about this many of its URLs at most... */
const LARGE_CHECKS = 300;
/** ...or for this long (ms), whichever ends first: the baseline takes about a millisecond a check. */
const LARGE_CHECKS_MS = 20;

/**
 * Collects garbage, then warms the library up as a crawler's traffic does: the typical file
 * parsed and asked about (which ranks its group) many times, and the large file now and then
 * (its large groups ranked and indexed while parsing), each parse followed by checks of its
 * URLs. A worst case is about the input, not about a cold JIT or garbage left by an earlier
 * phase (an 8 KB check right after nine 500 KiB parses mostly measures their scavenges):
 * warmed on the typical file alone, the first large parse of the process ran the code of large
 * groups unoptimized and 3-5 times slower; with one check per large parse, the first checks
 * that read a group's wildcard index (case e) ran its code unoptimized and took 1.2-1.8 ms
 * each, then 0.3 ms. The warm-up follows the collection because a forced full GC also drops
 * compiled code, regexps included. The adversarial file's own lazy work is not warmed: it
 * counts in its first check.
 */
function settle(runs: number): void {
  globalThis.gc?.();
  let warm: Checker | undefined;
  for (let i = 0; i < runs; i++) {
    warm = parse(typical.text, typical.text);
    warm.isAllowed(typical.urls[i % typical.urls.length], PRODUCT_TOKEN);
  }
  for (const url of typical.urls) warm!.isAllowed(url, PRODUCT_TOKEN);
  for (let i = 0; i < Math.ceil(runs / 40); i++) {
    const robots = parse(large.text, large.text);
    const end = process.hrtime.bigint() + BigInt(LARGE_CHECKS_MS * 1e6);
    for (let k = 0; k < LARGE_CHECKS && process.hrtime.bigint() < end; k++) {
      robots.isAllowed(large.urls[(i * LARGE_CHECKS + k) % large.urls.length], PRODUCT_TOKEN);
    }
  }
}

post({ type: 'phase', phase: 'warm-up' });
settle(200);

post({ type: 'phase', phase: 'parse' });
let robots: Checker | undefined;
post({
  type: 'parse',
  times: repeat(() => {
    robots = parse(input.body, input.text);
  }),
});

post({ type: 'phase', phase: 'warm-up before checks' });
settle(20);
for (const probe of input.probes) {
  post({ type: 'phase', phase: `check ${probe.label}` });
  let allowed: boolean | undefined;
  const times = repeat(() => {
    allowed = robots!.isAllowed(probe.url, probe.userAgent);
  });
  post({ type: 'check', label: probe.label, times, allowed });
}
// The verdict with every matching rule listed, which robots-parser has no counterpart of.
if (task.library === 'crawlee-robots') {
  const core = robots as RobotsTxt;
  for (const probe of input.probes) {
    post({ type: 'phase', phase: `explain ${probe.label}` });
    const times = repeat(() => {
      core.explain(probe.url, probe.userAgent);
    });
    post({ type: 'explain', label: probe.label, times });
  }
}
post({ type: 'done' });
