/**
 * The small shared harness of the benchmark suites: timing with `process.hrtime.bigint`,
 * medians, formatting, result tables with ratios and targets, and the run's outcome
 * (targets missed never fail the run; a broken invariant does).
 */

/** When the benchmark process started measuring; suites use it to stay inside the time budget. */
export const benchStart = process.hrtime.bigint();

/** Milliseconds since {@link benchStart}. */
export function elapsedMs(): number {
  return Number(process.hrtime.bigint() - benchStart) / 1e6;
}

/** Nanoseconds one call of `fn` takes. */
export function timeNs(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0);
}

/** Where measured calls put their results, so that none can be optimised away. */
export const sink: { value: unknown } = { value: undefined };

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function max(xs: readonly number[]): number {
  return xs.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
}

export interface MedianTimeOptions {
  /** Time spent calling `fn` before measuring, in ms. @default 300 */
  warmupMs?: number;
  /** Target duration of one sample (a batch of calls), in ms. @default 2 */
  sampleMs?: number;
  /** Time spent measuring, in ms (at least `minSamples` samples are taken). @default 1000 */
  budgetMs?: number;
  /** @default 7 */
  minSamples?: number;
}

/**
 * The median duration of one call of `fn`, in ns. Calls run in batches sized to last about
 * `sampleMs` each, so the timer's own cost and resolution do not show; the median over the
 * batches ignores the odd batch a GC pause landed in. `fn` gets a running call counter so it
 * can rotate through distinct inputs.
 */
export function medianTimeNs(fn: (i: number) => void, options: MedianTimeOptions = {}): number {
  const { warmupMs = 300, sampleMs = 2, budgetMs = 1000, minSamples = 7 } = options;
  globalThis.gc?.();
  let i = 0;
  const warmEnd = process.hrtime.bigint() + BigInt(Math.round(warmupMs * 1e6));
  let one = timeNs(() => fn(i++));
  while (process.hrtime.bigint() < warmEnd)
    one = Math.min(
      one,
      timeNs(() => fn(i++)),
    );
  const batch = Math.max(1, Math.floor((sampleMs * 1e6) / Math.max(one, 1)));
  const samples: number[] = [];
  const end = process.hrtime.bigint() + BigInt(Math.round(budgetMs * 1e6));
  while (samples.length < minSamples || (process.hrtime.bigint() < end && samples.length < 1000)) {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < batch; k++) fn(i++);
    samples.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  return median(samples);
}

/** Medians of two operations timed in alternation, and the median of their per-pair ratio. */
export interface Paired {
  /** Median ns per call (or per pass) of the first operation. */
  a: number;
  b: number;
  /** Median over the pairs of b / a: how many times longer b took than a. */
  ratio: number;
  pairs: number;
}

/**
 * Times two operations in alternation, batch against batch (a b, b a, a b, ...), each batch
 * lasting about `sampleMs`: a slow spell of the machine falls on both alike, and the ratio of
 * each pair compares them under the same load. Timed one after the other, the same two
 * operations gave ratios up to two times apart between runs on a busy 2-core machine.
 */
export function pairedTimeNs(
  a: (i: number) => void,
  b: (i: number) => void,
  options: MedianTimeOptions = {},
): Paired {
  const { warmupMs = 300, sampleMs = 2, budgetMs = 2000, minSamples = 7 } = options;
  globalThis.gc?.();
  const counter = { a: 0, b: 0 };
  const warm = (fn: (i: number) => void, key: 'a' | 'b'): number => {
    const end = process.hrtime.bigint() + BigInt(Math.round(warmupMs * 1e6));
    let one = Number.POSITIVE_INFINITY;
    do
      one = Math.min(
        one,
        timeNs(() => fn(counter[key]++)),
      );
    while (process.hrtime.bigint() < end);
    return Math.max(1, Math.floor((sampleMs * 1e6) / Math.max(one, 1)));
  };
  const batchA = warm(a, 'a');
  const batchB = warm(b, 'b');
  const batch = (fn: (i: number) => void, key: 'a' | 'b', size: number): number => {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < size; k++) fn(counter[key]++);
    return Number(process.hrtime.bigint() - t0) / size;
  };
  const as: number[] = [];
  const bs: number[] = [];
  const end = process.hrtime.bigint() + BigInt(Math.round(budgetMs * 1e6));
  while (as.length < minSamples || (process.hrtime.bigint() < end && as.length < 1000)) {
    timeInTurn(
      as,
      bs,
      () => batch(a, 'a', batchA),
      () => batch(b, 'b', batchB),
    );
  }
  return { a: median(as), b: median(bs), ratio: median(bs.map((t, i) => t / as[i])), pairs: as.length };
}

/**
 * Times one pair, a then b when the pairs so far are even, b then a when odd: neither operation
 * always runs first, in what the other left behind (its garbage, a warm cache, a clock boost).
 */
function timeInTurn(as: number[], bs: number[], timeA: () => number, timeB: () => number): void {
  if (as.length % 2 === 0) {
    as.push(timeA());
    bs.push(timeB());
  } else {
    bs.push(timeB());
    as.push(timeA());
  }
}

/** Options of {@link pairedBlocksNs}. */
export interface BlockTimeOptions {
  /** Untimed calls of each operation for this long first, in ms. @default 300 */
  warmupMs?: number;
  /** How long a block of calls of one operation lasts, in ms. @default 100 */
  blockMs?: number;
  /** Blocks of each operation, in alternation (a b, b a, ...). @default 9 */
  rounds?: number;
}

/**
 * The mean time of one call of each of two operations, in ns, over blocks of calls that last
 * `blockMs` each, the two in alternation. A block's time holds the garbage collections its calls
 * set off, which a median of short batches leaves out whenever they land in fewer than half of
 * them: the cost, for a crawler parsing file after file, of an operation that leaves much garbage
 * behind. A collection falls in the block of the operation whose garbage caused it, but for
 * the little left over at each change of block. `ratio` is the median over the rounds of b / a.
 */
export function pairedBlocksNs(
  a: (i: number) => void,
  b: (i: number) => void,
  options: BlockTimeOptions = {},
): Paired {
  const { warmupMs = 300, blockMs = 100, rounds = 9 } = options;
  const counter = { a: 0, b: 0 };
  const block = (fn: (i: number) => void, key: 'a' | 'b', ms: number): number => {
    const t0 = process.hrtime.bigint();
    const end = t0 + BigInt(Math.round(ms * 1e6));
    let calls = 0;
    let now: bigint;
    do {
      fn(counter[key]++);
      calls++;
      now = process.hrtime.bigint();
    } while (now < end);
    return Number(now - t0) / calls;
  };
  block(a, 'a', warmupMs);
  block(b, 'b', warmupMs);
  globalThis.gc?.();
  const as: number[] = [];
  const bs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    timeInTurn(
      as,
      bs,
      () => block(a, 'a', blockMs),
      () => block(b, 'b', blockMs),
    );
  }
  return { a: median(as), b: median(bs), ratio: median(bs.map((t, i) => t / as[i])), pairs: as.length };
}

/**
 * Operations per second of two passes timed in alternation (see pairedTimeNs), after untimed
 * passes for `warmupMs`; `ratio` is the median over the pairs of rate a / rate b. With a
 * `budgetMs` of 0 each pass runs once (for a library that needs seconds per pass).
 */
export function pairedThroughput(
  ops: number,
  passA: () => void,
  passB: () => void,
  options: ThroughputOptions = {},
): { a: number; b: number; ratio: number } {
  const { budgetMs = 2000, maxPasses = 15, warmupMs = 200 } = options;
  for (let warm = 0; warm < warmupMs; ) warm += timeNs(passA) / 1e6;
  for (let warm = 0; warm < warmupMs; ) warm += timeNs(passB) / 1e6;
  globalThis.gc?.();
  const as: number[] = [];
  const bs: number[] = [];
  let spent = 0;
  do {
    timeInTurn(
      as,
      bs,
      () => timeNs(passA),
      () => timeNs(passB),
    );
    spent += (as[as.length - 1] + bs[bs.length - 1]) / 1e6;
  } while (budgetMs > 0 && spent < budgetMs && as.length < maxPasses);
  const rate = (ns: number) => ops / (ns / 1e9);
  return { a: rate(median(as)), b: rate(median(bs)), ratio: median(bs.map((t, i) => t / as[i])) };
}

export interface ThroughputOptions {
  /** Time spent measuring, in ms; at least one pass always runs. @default 1000 */
  budgetMs?: number;
  /** @default 15 */
  maxPasses?: number;
  /** Untimed passes run until this much time has gone, so the JIT has compiled what it measures. @default 200 */
  warmupMs?: number;
}

/**
 * Operations per second of `pass`, which performs `ops` operations: the median over as many
 * passes as fit in the budget (one pass at least, which for a slow library may be all there is),
 * after untimed passes for `warmupMs`.
 */
export function throughput(ops: number, pass: () => void, options: ThroughputOptions = {}): number {
  const { budgetMs = 1000, maxPasses = 15, warmupMs = 200 } = options;
  for (let warm = 0; warm < warmupMs; ) warm += timeNs(pass) / 1e6;
  globalThis.gc?.();
  const times: number[] = [];
  let spent = 0;
  do {
    const t = timeNs(pass);
    times.push(t);
    spent += t / 1e6;
  } while (spent < budgetMs && times.length < maxPasses);
  return ops / (median(times) / 1e9);
}

/** Full garbage collections until the heap settles; needs `node --expose-gc`. */
export function collectGarbage(): void {
  const gc = globalThis.gc;
  if (typeof gc !== 'function') {
    throw new Error(
      'global.gc is missing: run the benchmark as `node --expose-gc --import tsx bench/index.ts`',
    );
  }
  for (let i = 0; i < 3; i++) gc();
}

/** heapUsed + arrayBuffers: what a parsed file costs the process, JS objects and byte buffers alike. */
export function heapBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

// ---------------------------------------------------------------- formatting

function sig(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

export function formatTime(ns: number): string {
  if (!Number.isFinite(ns)) return 'n/a';
  if (ns < 1e3) return `${sig(ns)} ns`;
  if (ns < 1e6) return `${sig(ns / 1e3)} µs`;
  if (ns < 1e9) return `${sig(ns / 1e6)} ms`;
  return `${sig(ns / 1e9)} s`;
}

export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return 'n/a';
  if (perSecond >= 1e6) return `${sig(perSecond / 1e6)} M/s`;
  if (perSecond >= 1e3) return `${sig(perSecond / 1e3)} k/s`;
  return `${sig(perSecond)} /s`;
}

export function formatBytes(bytes: number): string {
  const b = Math.round(bytes);
  return `${b.toLocaleString('en-US')} B (${sig(b / 1024)} KiB)`;
}

function times(x: number): string {
  return x >= 10 ? `${x.toFixed(0)}x` : `${x.toFixed(1)}x`;
}

/** Ratio of two durations (lower is better): `12x faster` or `1.5x slower`. */
export function speedRatio(oursNs: number, baselineNs: number): string {
  if (!(oursNs > 0 && baselineNs > 0)) return 'n/a';
  return oursNs <= baselineNs
    ? `${times(baselineNs / oursNs)} faster`
    : `${times(oursNs / baselineNs)} slower`;
}

/** Ratio of two rates (higher is better). */
/** A speed-up factor (how many times faster ours is): `3.2x faster` or `1.2x slower`. */
export function speedup(factor: number): string {
  return speedRatio(1, factor);
}

export function rateRatio(ours: number, baseline: number): string {
  return speedRatio(1 / ours, 1 / baseline);
}

/** Ratio of two sizes (lower is better): `3.2x less` or `1.2x more`. */
export function sizeRatio(ours: number, baseline: number): string {
  if (!(ours > 0 && baseline > 0)) return 'n/a';
  return ours <= baseline ? `${times(baseline / ours)} less` : `${times(ours / baseline)} more`;
}

// ---------------------------------------------------------------- tables and outcome

export interface Row {
  library: string;
  metric: string;
  value: string;
  ratio?: string;
  target?: string;
  result?: string;
}

const RESULT_COLUMNS: { key: keyof Row; title: string }[] = [
  { key: 'library', title: 'library' },
  { key: 'metric', title: 'metric' },
  { key: 'value', title: 'value' },
  { key: 'ratio', title: 'ratio (crawlee-robots vs robots-parser)' },
  { key: 'target', title: 'target' },
  { key: 'result', title: 'result' },
];

/**
 * A table printed as Markdown. By default its columns are those of a {@link Row}: one row
 * per library and metric, with the ratio and the target on the row of crawlee-robots.
 */
export class Table {
  private readonly rows: (string[] | null)[] = [];

  constructor(
    readonly title: string,
    readonly headers: readonly string[] = RESULT_COLUMNS.map((c) => c.title),
  ) {}

  add(row: Row): void {
    this.cells(RESULT_COLUMNS.map((c) => row[c.key] ?? ''));
  }

  cells(cells: readonly string[]): void {
    this.rows.push([...cells]);
  }

  /** An empty row between metrics. */
  divider(): void {
    if (this.rows.length > 0 && this.rows[this.rows.length - 1] !== null) this.rows.push(null);
  }

  print(): void {
    const rows = this.rows.filter((r, i) => r !== null || i < this.rows.length - 1);
    const width = this.headers.map((h, k) => Math.max(h.length, ...rows.map((r) => (r ? r[k].length : 0))));
    const line = (cells: readonly string[]) =>
      `| ${width.map((w, k) => (cells[k] ?? '').padEnd(w)).join(' | ')} |`;
    console.log(`\n## ${this.title}\n`);
    console.log(line(this.headers));
    console.log(`|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    for (const r of rows) console.log(line(r ?? []));
  }
}

/** What the run found: missed targets (reported, never fatal) and broken invariants (exit code 1). */
export const outcome = {
  misses: [] as string[],
  failures: [] as string[],
};

/** `PASS` or `MISS` for a target; a miss is remembered for the summary. */
export function judge(pass: boolean, what: string): string {
  if (!pass) outcome.misses.push(what);
  return pass ? 'PASS' : 'MISS';
}

/** Records a broken invariant of the code under test: the run ends with exit code 1. */
export function fail(what: string): void {
  outcome.failures.push(what);
  console.log(`FAILURE: ${what}`);
}

/** A seeded PRNG (mulberry32), so that generated inputs are the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
