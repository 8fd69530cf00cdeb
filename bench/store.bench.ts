/**
 * The policy store (`RobotsStore`) against what a crawler without it does: robots-parser 3.0.1
 * held in a map per origin (Crawlee's own `respectRobotsTxtFile` keeps one per origin the same
 * way):
 *
 * 1. `check()` on a cached origin with the typical file, the crawler's hot path (async, and the
 *    synchronous `checkCached()`), against robots-parser's `isAllowed`;
 * 2. heap per cached typical origin, measured, and the size the LRU accounts for it;
 * 3. dedupe: robots.txt requests made by 1,000 concurrent calls for 100 new origins (real local
 *    HTTP servers);
 * 4. Redis: checks per second of a cold process (empty memory) reading warm policies from a
 *    real redis-server, then of the same process once warm.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RobotsHttpClient } from '../dist/fetch/index.js';
import { RobotsTxt } from '../dist/robots/index.js';
import { RedisBackend, RobotsStore } from '../dist/store/index.js';
import { startHttpServer, type TestHttpServer } from '../test/support/http-server.js';
import { captureLog } from '../test/support/log.js';
import { startRedis } from '../test/support/redis.js';
import {
  collectGarbage,
  fail,
  formatBytes,
  formatRate,
  heapBytes,
  judge,
  median,
  sink,
  sizeRatio,
  speedup,
  Table,
} from './harness.js';
import {
  fullUserAgent,
  loadFixture,
  ORIGIN,
  PRODUCT_TOKEN,
  ROBOTS_URL,
  robotsParser,
} from './robots-inputs.js';

/** Stores measured for the heap per origin. */
const MEMORY_ROUNDS = 3;
const CORE = 'crawlee-robots';
const BASE = 'robots-parser';

const TARGET = {
  checksPerSecond: 1e6,
  bytesPerOrigin: 4096,
  dedupeRequests: 100,
};

/** Serves `body` for every origin from memory: the store's own cost, without sockets. */
function memoryClient(body: string): RobotsHttpClient {
  return {
    request: async (request) => ({
      ok: true,
      status: 200,
      headers: { 'content-type': 'text/plain' },
      // A distinct body per origin, as fetched bodies are.
      body: new Uint8Array(Buffer.from(`# ${request.url.host}\n${body}`)),
      truncated: false,
    }),
  };
}

function newStore(options: Partial<ConstructorParameters<typeof RobotsStore>[0]> = {}): RobotsStore {
  return new RobotsStore({
    userAgent: fullUserAgent(PRODUCT_TOKEN),
    log: captureLog().log,
    maxEntries: 1_000_000,
    maxBytesInMemory: 2 ** 40,
    ...options,
  });
}

/** The passes of one measurement, each timed once per round (see timedInRounds). */
interface Rounds<K extends string> {
  /** Operations per second: the median over the rounds. */
  rate(pass: K): number;
  /** How many times faster `a` ran than `b`: the median over the rounds of their ratio in each. */
  ratio(a: K, b: K): number;
  /** Nanoseconds per operation that `a` took more than `b`: the median over the rounds. */
  extraNs(a: K, b: K): number;
}

/**
 * Times passes of `ops` operations in rounds, each pass once per round, in an order that turns
 * by one from round to round: a slow spell of the machine then falls on every pass, and rates
 * and ratios taken from the same rounds agree with each other. Untimed passes come first, as
 * `throughput` does.
 */
async function timedInRounds<K extends string>(
  ops: number,
  passes: Record<K, () => unknown>,
  budgetMs = 5000,
  maxRounds = 25,
): Promise<Rounds<K>> {
  const names = Object.keys(passes) as K[];
  const times = {} as Record<K, number[]>;
  for (const name of names) {
    times[name] = [];
    for (let warm = 0; warm < 200; ) warm += (await timePass(passes[name])) / 1e6;
  }
  collectGarbage();
  let spent = 0;
  for (let round = 0; round < maxRounds && spent < budgetMs; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const ns = await timePass(passes[name]);
      times[name].push(ns);
      spent += ns / 1e6;
    }
  }
  return {
    rate: (pass) => ops / (median(times[pass]) / 1e9),
    ratio: (a, b) => median(times[a].map((ns, round) => times[b][round] / ns)),
    extraNs: (a, b) => median(times[a].map((ns, round) => (ns - times[b][round]) / ops)),
  };
}

/** Nanoseconds one pass took, awaited when it is async. */
async function timePass(pass: () => unknown): Promise<number> {
  const started = process.hrtime.bigint();
  await pass();
  return Number(process.hrtime.bigint() - started);
}

export async function run(): Promise<void> {
  const typical = loadFixture('typical');
  console.log(
    `\ntypical.txt: ${typical.bytes} B, ${typical.urls.length} URLs on ${ORIGIN}; product token ${PRODUCT_TOKEN}, Node ${process.version}`,
  );

  const speed = new Table('policy store: check() on a cached origin (typical.txt)');
  await checkRows(speed, typical.text, typical.urls);
  speed.print();

  const memory = new Table('policy store: heap per cached origin (typical.txt)');
  await memoryRows(memory, typical.text, typical.urls[0]);
  memory.print();

  const dedupe = new Table('policy store: one fetch per origin', [
    'run',
    'calls',
    'origins',
    'robots.txt requests',
    'time',
    'target',
    'result',
  ]);
  await dedupeRows(dedupe);
  dedupe.print();

  const shared = new Table('policy store: Redis backend', [
    'phase',
    'origins',
    'checks/s',
    'robots.txt fetches',
    'note',
  ]);
  await redisRows(shared, typical.text);
  shared.print();
}

// ---------------------------------------------------------------- 1. check speed

async function checkRows(table: Table, text: string, urls: string[]): Promise<void> {
  const store = newStore({ httpClient: memoryClient(text) });
  await store.resolve(ORIGIN);
  // The baseline: one parsed robots-parser object per origin, looked up per URL.
  const parsed = new Map([[ORIGIN, robotsParser(ROBOTS_URL, text)]]);
  const baseCheck = (url: string) => parsed.get(new URL(url).origin)!.isAllowed(url, PRODUCT_TOKEN);

  // The store must answer exactly what the core answers for the same file.
  const core = RobotsTxt.parse(text);
  const differing = urls.filter(
    (url) => store.checkCached(url)!.allowed !== core.isAllowed(url, PRODUCT_TOKEN),
  );
  if (differing.length > 0)
    fail(`store.check() differs from RobotsTxt.isAllowed on ${differing.length} URLs`);

  const userAgent = fullUserAgent(PRODUCT_TOKEN);
  const rounds = await timedInRounds(urls.length, {
    base: () => {
      for (const url of urls) sink.value = baseCheck(url);
    },
    check: async () => {
      for (const url of urls) sink.value = await store.check(url);
    },
    cached: () => {
      for (const url of urls) sink.value = store.checkCached(url);
    },
    candidates: async () => {
      for (const url of urls) sink.value = await store.check(url, undefined, { candidates: true });
    },
    core: () => {
      for (const url of urls) sink.value = core.explain(url, userAgent, { candidates: false });
    },
  });
  const asyncRate = rounds.rate('check');
  table.add({
    library: BASE,
    metric: 'isAllowed (map of parsed files by origin)',
    value: formatRate(rounds.rate('base')),
  });
  table.add({
    library: CORE,
    metric: "RobotsTxt.explain alone (the core's share of a check)",
    value: formatRate(rounds.rate('core')),
    ratio: speedup(rounds.ratio('core', 'base')),
  });
  table.add({
    library: CORE,
    metric: 'await store.check(url)',
    value: formatRate(asyncRate),
    ratio: speedup(rounds.ratio('check', 'base')),
    target: `>= ${formatRate(TARGET.checksPerSecond)}`,
    result: judge(asyncRate >= TARGET.checksPerSecond, 'store check() per second'),
  });
  table.add({
    library: CORE,
    metric: 'store.checkCached(url) (sync)',
    value: formatRate(rounds.rate('cached')),
    ratio: speedup(rounds.ratio('cached', 'base')),
  });
  table.add({
    library: CORE,
    metric: 'await store.check(url, token, { candidates: true })',
    value: formatRate(rounds.rate('candidates')),
    ratio: speedup(rounds.ratio('candidates', 'base')),
  });
  table.add({
    library: CORE,
    // The store reads the origin of a URL and hands the core the path alone: what the core
    // no longer reads is taken off what the store adds.
    metric: "the store's own cost per check (checkCached less explain), net of the authority it spares",
    value: `${rounds.extraNs('cached', 'core').toFixed(0)} ns`,
  });
  table.add({
    library: CORE,
    metric: 'the promise and its await, per check',
    value: `${rounds.extraNs('check', 'cached').toFixed(0)} ns`,
  });
  if (store.stats().fetches !== 1) fail(`check() on a cached origin fetched ${store.stats().fetches} times`);
  await store.close();
}

// ---------------------------------------------------------------- 2. memory

async function memoryRows(table: Table, text: string, url: string): Promise<void> {
  const count = 2000;
  const hosts = Array.from({ length: count }, (_, index) => `https://site${index}.example.com`);
  const path = new URL(url).pathname;

  // The code paths warmed first, by a store of as many origins that is then dropped: the first
  // store a process fills grows once-only things (optimized code, the runtime's tables) that
  // 50 checks do not reach, and the first round measured 4.2 KB an origin where the next ones
  // measured 3.8-4.0 KB.
  const warm = newStore({ httpClient: memoryClient(text) });
  for (let index = 0; index < count; index++) await warm.check(`https://warm${index}.example.net${path}`);
  await warm.close();
  // Three rounds, each with a store of its own: a single figure moves by a few percent with
  // the moment the collector runs.
  const perOrigin: number[] = [];
  let accounted = 0;
  let bodyBytes = 0;
  for (let round = 0; round < MEMORY_ROUNDS; round++) {
    const store = newStore({ httpClient: memoryClient(text) });
    // Warm the code paths so the measured round counts data only.
    for (let index = 0; index < 50; index++) await store.check(`https://warm${index}.example.org${path}`);
    collectGarbage();
    const before = heapBytes();
    for (const host of hosts) await store.check(`${host}${path}`);
    collectGarbage();
    perOrigin.push((heapBytes() - before) / count);
    const { bytesInMemory, entries } = store.stats();
    accounted = bytesInMemory / entries;
    bodyBytes = store.peek(hosts[0])!.bodyBytes;
    await store.close();
  }
  const coreBytes = median(perOrigin);

  const kept = new Map<string, ReturnType<typeof robotsParser>>();
  collectGarbage();
  const baseBefore = heapBytes();
  for (const host of hosts) {
    const body = `# ${new URL(host).host}\n${text}`;
    const robots = robotsParser(
      `${host}/robots.txt`,
      new TextDecoder().decode(new TextEncoder().encode(body)),
    );
    robots.isAllowed(`${host}${path}`, PRODUCT_TOKEN);
    kept.set(host, robots);
  }
  collectGarbage();
  const baseBytes = (heapBytes() - baseBefore) / count;
  sink.value = kept.size;

  table.add({ library: '', metric: 'robots.txt body', value: formatBytes(bodyBytes) });
  table.add({
    library: BASE,
    metric: `heap per origin (${count} origins, one check each)`,
    value: formatBytes(baseBytes),
  });
  table.add({
    library: CORE,
    metric: `heap per cached origin (${count} origins, one check each; median of ${MEMORY_ROUNDS} stores)`,
    value: `${formatBytes(coreBytes)} (${Math.round(Math.min(...perOrigin))}-${Math.round(Math.max(...perOrigin))} B)`,
    ratio: sizeRatio(coreBytes, baseBytes),
    target: `<= ${TARGET.bytesPerOrigin / 1024} KiB`,
    result: judge(coreBytes <= TARGET.bytesPerOrigin, 'heap per cached typical origin'),
  });
  table.add({
    library: CORE,
    metric: 'size the LRU accounts per entry (src/store/memory.ts)',
    value: `${formatBytes(accounted)} = ${(accounted / coreBytes).toFixed(2)}x measured`,
  });
  table.add({
    library: CORE,
    metric: 'memory reserved per maxEntries slot, with no origin cached',
    value: formatBytes(await reservedPerSlot()),
  });
}

/** What a store with a million more `maxEntries` takes before it caches anything, per slot. */
async function reservedPerSlot(): Promise<number> {
  const slots = 1_000_000;
  const sizes: number[] = [];
  for (const maxEntries of [10, 10 + slots]) {
    collectGarbage();
    const before = heapBytes();
    const store = newStore({ maxEntries });
    collectGarbage();
    sizes.push(heapBytes() - before);
    await store.close();
  }
  return (sizes[1] - sizes[0]) / slots;
}

// ---------------------------------------------------------------- 3. dedupe

async function dedupeRows(table: Table): Promise<void> {
  const servers: TestHttpServer[] = [];
  let requests = 0;
  const handler = (_request: IncomingMessage, response: ServerResponse) => {
    requests++;
    setTimeout(() => response.writeHead(200).end('User-agent: *\nDisallow: /private\n'), 20);
  };
  for (let index = 0; index < 100; index++) servers.push(await startHttpServer({ '/robots.txt': handler }));
  const store = newStore();
  try {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 1000 }, (_, index) => store.check(`${servers[index % 100].origin}/page/${index}`)),
    );
    const ms = performance.now() - started;
    table.cells([
      'concurrent check() calls, real local servers',
      '1000',
      '100',
      String(requests),
      `${ms.toFixed(0)} ms`,
      `= ${TARGET.dedupeRequests}`,
      judge(requests === TARGET.dedupeRequests, 'dedupe: one robots.txt request per origin'),
    ]);
    if (requests !== TARGET.dedupeRequests) fail(`dedupe: ${requests} robots.txt requests for 100 origins`);
  } finally {
    await store.close();
    await Promise.all(servers.map((server) => server.close()));
  }
}

// ---------------------------------------------------------------- 4. Redis

async function redisRows(table: Table, text: string): Promise<void> {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  try {
    redis = await startRedis();
  } catch (error) {
    table.cells([
      'skipped',
      '',
      '',
      '',
      `redis-server did not start: ${(error as Error).message.split('\n')[0]}`,
    ]);
    return;
  }
  const count = 2000;
  const origins = Array.from({ length: count }, (_, index) => `https://site${index}.example.com`);
  const keyPrefix = `bench-${process.pid}:`;
  try {
    const warm = newStore({
      httpClient: memoryClient(text),
      backend: new RedisBackend({ url: redis.url, keyPrefix }),
    });
    const started = performance.now();
    await Promise.all(origins.map((origin) => warm.resolve(origin)));
    const warmMs = performance.now() - started;
    table.cells([
      'first process: fetch and publish',
      String(count),
      formatRate(count / (warmMs / 1000)),
      String(warm.stats().fetches),
      'robots.txt served from memory; each policy saved to Redis',
    ]);
    await warm.close();

    // A cold process: empty memory, every policy read from Redis and parsed again.
    const cold = newStore({
      httpClient: memoryClient(text),
      backend: new RedisBackend({ url: redis.url, keyPrefix }),
    });
    await cold.resolve(origins[0]);
    const coldStarted = performance.now();
    await Promise.all(origins.map((origin) => cold.check(`${origin}/products/1`)));
    const coldMs = performance.now() - coldStarted;
    const stats = cold.stats();
    table.cells([
      'cold process: first check per origin',
      String(count),
      formatRate(count / (coldMs / 1000)),
      String(stats.fetches),
      `${stats.backendHits} policies read from Redis and parsed`,
    ]);
    const hot = await timedInRounds(count, {
      check: async () => {
        for (const origin of origins) sink.value = await cold.check(`${origin}/products/1`);
      },
    });
    const hotRate = hot.rate('check');
    table.cells([
      'same process, warm',
      String(count),
      formatRate(hotRate),
      String(cold.stats().fetches),
      'from memory',
    ]);
    if (stats.fetches !== 0) fail(`a cold process fetched ${stats.fetches} robots.txt files that Redis had`);
    await cold.close();
  } finally {
    await redis.stop();
  }
}
