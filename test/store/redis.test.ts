import { spawn } from 'node:child_process';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { LogLevel } from 'crawlee';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_OCTETS } from '../../src/robots/index.js';
import { clientOf } from '../../src/store/backend.js';
import { RedisBackend, RobotsStore, type RobotsStoreOptions } from '../../src/store/index.js';
import { never, redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { backendScope, policyRecord } from './records.js';

const USER_AGENT = 'ExampleBot/1.0';
const SCOPE = backendScope(USER_AGENT);
const DAY = 86_400_000;
const WORKER = fileURLToPath(new URL('../support/fleet-worker.ts', import.meta.url));

let redis: TestRedis;
let client: Redis;
let prefixCounter = 0;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

/** A fresh key prefix per test: tests share one redis-server but never each other's keys. */
function prefix(): string {
  return `test-${process.pid}-${++prefixCounter}:`;
}

/** The key of an origin's policy for a User-Agent: `<prefix>policy:<client>:<origin>`. */
function policyKey(keyPrefix: string, origin: string, userAgent = USER_AGENT): string {
  return `${keyPrefix}policy:${clientOf(userAgent)}:${origin}`;
}

/** The key of an origin's fetch lock for a User-Agent. */
function lockKey(keyPrefix: string, origin: string, userAgent = USER_AGENT): string {
  return `${keyPrefix}lock:${clientOf(userAgent)}:${origin}`;
}

function store(keyPrefix: string, options: Partial<RobotsStoreOptions> = {}, url = redis.url) {
  return new RobotsStore({
    userAgent: USER_AGENT,
    backend: new RedisBackend({ url, keyPrefix, commandTimeoutMs: 300, connectTimeoutMs: 500 }),
    fetchTimeoutMs: 2000,
    log: captureLog().log,
    ...options,
  });
}

/** Two stores on the same prefix, each on its own given client: one writes origins, the other reads them. */
function writerAndReader(keyPrefix: string, first: Redis, second: Redis) {
  const { log, warnings } = captureLog();
  const writer = store(keyPrefix, { backend: new RedisBackend({ redis: first, keyPrefix }), log });
  const reader = store(keyPrefix, { backend: new RedisBackend({ redis: second, keyPrefix }), log });
  return { writer, reader, warnings };
}

async function sites(count: number, delayMs = 0): Promise<TestHttpServer[]> {
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      startHttpServer({
        '/robots.txt': (_request, response) => {
          setTimeout(
            () => response.writeHead(200).end(`User-agent: *\nDisallow: /private-${index}\n`),
            delayMs,
          );
        },
      }),
    ),
  );
}

/** A second store of the User-Agent finds the policy of every origin of `servers` in Redis, fetching none. */
async function expectShared(keyPrefix: string, servers: TestHttpServer[]): Promise<void> {
  const second = store(keyPrefix);
  try {
    await Promise.all(servers.map((site) => second.resolve(site.origin)));
    expect(second.stats()).toMatchObject({ fetches: 0, backendHits: servers.length });
  } finally {
    await second.close();
  }
}

/** A manual clock: the backend's cool-down is tested by moving it, never by sleeping. */
function manualClock(start = Date.now()) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/**
 * A redis-server of the test's own that it can freeze (SIGSTOP: connections stay open, nothing
 * answers, as with a stalled or overloaded Redis) and resume; `stop()` resumes it first.
 */
async function freezableRedis() {
  const own = await startRedis();
  const admin = new Redis(own.url);
  const pid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
  admin.disconnect();
  expect(pid).toBeGreaterThan(0);
  let frozen = false;
  const resume = () => {
    if (frozen) process.kill(pid, 'SIGCONT');
    frozen = false;
  };
  return {
    url: own.url,
    freeze: () => {
      process.kill(pid, 'SIGSTOP');
      frozen = true;
    },
    resume,
    stop: async () => {
      resume();
      await own.stop();
    },
  };
}

/**
 * A TCP relay to the Redis server on `port` that, once, forwards a command holding `marker`,
 * drops what Redis answers to it and closes the client's connection 20 ms later: a reply lost
 * with its connection.
 */
async function cuttingRelay(port: number, marker: string) {
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    let muted = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      if (cuts === 0 && chunk.includes(marker)) {
        cuts++;
        muted = true;
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 20);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!muted) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cuts: () => cuts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Counts the calls a store makes to its backend, by wrapping the backend instance's methods. */
function countCalls(backend: RedisBackend) {
  const calls = { load: 0, lock: 0, save: 0, release: 0 };
  /** The releases sent, with whether each has settled. */
  const releases: { settled: boolean }[] = [];
  const load = backend.load.bind(backend);
  const save = backend.save.bind(backend);
  const lock = backend.lock.bind(backend);
  backend.load = (origin, scope) => {
    calls.load++;
    return load(origin, scope);
  };
  backend.save = (origin, policy, retainMs, scope) => {
    calls.save++;
    return save(origin, policy, retainMs, scope);
  };
  backend.lock = async (origin, ttlMs, scope) => {
    calls.lock++;
    const held = await lock(origin, ttlMs, scope);
    if (held === undefined) return undefined;
    return {
      release: () => {
        calls.release++;
        const release = { settled: false };
        releases.push(release);
        const done = () => {
          release.settled = true;
        };
        const pending = held.release();
        pending.then(done, done);
        return pending;
      },
    };
  };
  return {
    releases,
    /** The counts since the last call, then zeroed. */
    taken() {
      const counted = { ...calls };
      calls.load = calls.lock = calls.save = calls.release = 0;
      return counted;
    },
  };
}

async function eventually(condition: () => Promise<boolean>, withinMs = 3000): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`not true within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function runWorker(
  env: Record<string, string>,
): Promise<{ stats: { fetches: number; backendHits: number }; kinds: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`worker exited with ${code}: ${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
    });
  });
}

describe('RedisBackend', () => {
  it('shares policies: a second store reads them from Redis without fetching, re-parsed', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const first = store(keyPrefix);
    const second = store(keyPrefix);
    try {
      await first.resolve(site.origin);
      const check = await second.check(`${site.origin}/private-0/x`);
      expect(check).toMatchObject({ allowed: false, reason: 'matched', policyKind: 'rules', status: 200 });
      expect(site.hits('/robots.txt')).toBe(1);
      expect(second.stats()).toMatchObject({ fetches: 0, backendHits: 1 });

      const key = policyKey(keyPrefix, site.origin);
      const ttl = await client.pttl(key);
      // Kept for the policy's lifetime (24 h) plus the default 7 days it serves as a previous state.
      expect(ttl).toBeGreaterThan(7 * 86_400_000);
      expect(ttl).toBeLessThanOrEqual(8 * 86_400_000);
      expect(await client.hget(key, 'body')).toBe('User-agent: *\nDisallow: /private-0\n');
      expect(await client.exists(lockKey(keyPrefix, site.origin))).toBe(0);
    } finally {
      await Promise.all([first.close(), second.close(), site.close()]);
    }
  });

  it('two separate Node processes sharing one Redis fetch each origin once', async () => {
    const keyPrefix = prefix();
    const servers = await sites(20, 150);
    const origins = servers.map((site) => site.origin);
    try {
      const env = {
        REDIS_URL: redis.url,
        KEY_PREFIX: keyPrefix,
        ORIGINS: JSON.stringify(origins),
        START_AT: String(Date.now() + 2500),
      };
      const [a, b] = await Promise.all([runWorker(env), runWorker(env)]);
      expect(servers.map((site) => site.hits('/robots.txt'))).toEqual(servers.map(() => 1));
      expect(a.stats.fetches + b.stats.fetches).toBe(20);
      expect(a.stats.backendHits + b.stats.backendHits).toBe(20);
      expect([...a.kinds, ...b.kinds].every((kind) => kind === 'rules')).toBe(true);
    } finally {
      await Promise.all(servers.map((site) => site.close()));
    }
  });

  it('never lets a crashed holder block an origin: the lock expires', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    // A holder that took the lock and died: nobody will release it, it expires in 300 ms.
    await client.set(lockKey(keyPrefix, site.origin), 'crashed-holder', 'PX', 300);
    const robots = store(keyPrefix, { lockWaitMs: 10_000, lockPollMs: 25 });
    try {
      const started = performance.now();
      const policy = await robots.resolve(site.origin);
      const elapsed = performance.now() - started;
      expect(policy.kind).toBe('rules');
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(2000);
      expect(robots.stats()).toMatchObject({ fetches: 1, lockWaits: 1 });
    } finally {
      await Promise.all([robots.close(), site.close()]);
    }
  });

  it('fetches once across waiting stores when the holder crashed with a lock that outlives their old wait', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const options = { fetchTimeoutMs: 500, lockTtlMs: 3000, lockPollMs: 25 };
    // A store that took the lock with its TTL and died; the wait is counted from then.
    const started = performance.now();
    await client.set(lockKey(keyPrefix, site.origin), 'crashed-holder', 'PX', options.lockTtlMs);
    const waiting = Array.from({ length: 4 }, () => store(keyPrefix, options));
    try {
      const checks = await Promise.all(waiting.map((robots) => robots.check(`${site.origin}/private-0`)));
      const elapsed = performance.now() - started;
      expect(checks.map((check) => check.allowed)).toEqual([false, false, false, false]);
      // The first waiter to take the expired lock fetched; the others waited for its result.
      expect(site.hits('/robots.txt')).toBe(1);
      expect(waiting.map((robots) => robots.stats().lockWaits)).toEqual([1, 1, 1, 1]);
      expect(waiting.reduce((sum, robots) => sum + robots.stats().backendHits, 0)).toBe(3);
      expect(elapsed).toBeGreaterThanOrEqual(2900);
      expect(elapsed).toBeLessThan(5000);
    } finally {
      await Promise.all([...waiting.map((robots) => robots.close()), site.close()]);
    }
  }, 15_000);

  it("takes a crashed holder's expired lock only with a fetch turn, so the fleet never waits on a lock held idle", async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const silent = await startHttpServer({ '/robots.txt': never() });
    const key = lockKey(keyPrefix, site.origin);
    await client.set(key, 'crashed-holder', 'PX', 60_000);
    // One fetch at a time: while the silent origin's fetch runs, the waiter has no turn to fetch with.
    const waiter = store(keyPrefix, { maxConcurrentFetches: 1, fetchTimeoutMs: 3000, lockPollMs: 25 });
    const other = store(keyPrefix, { lockPollMs: 25 });
    try {
      const waited = waiter.check(`${site.origin}/private-0`);
      await eventually(async () => waiter.stats().lockWaits === 1);
      const stalled = waiter.check(`${silent.origin}/page`);
      await eventually(async () => silent.hits('/robots.txt') === 1);
      // The crashed holder's lock expires; the waiter's turn is 3 s away.
      await client.pexpire(key, 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      expect((await other.check(`${site.origin}/private-0`)).allowed).toBe(false);
      // Taken before its turn, the waiter's lock made the other store wait for that turn too.
      expect(performance.now() - started).toBeLessThan(1000);
      expect((await waited).allowed).toBe(false);
      expect((await stalled).allowed).toBe(false);
      // The waiter found the other store's result once it had its turn, and did not fetch again.
      expect(site.hits('/robots.txt')).toBe(1);
      expect(waiter.stats()).toMatchObject({ fetches: 1, lockWaits: 1 });
    } finally {
      await Promise.all([waiter.close(), other.close(), site.close(), silent.close()]);
    }
  }, 15_000);

  /**
   * An origin whose fetch lock a peer holds, the peer's backend, and an origin whose robots.txt
   * never answers: a fetch of it keeps a fetch turn for the whole fetch timeout.
   */
  async function lockedByPeer() {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const silent = await startHttpServer({ '/robots.txt': never() });
    const peer = new RedisBackend({ url: redis.url, keyPrefix });
    peer.attach();
    await client.set(lockKey(keyPrefix, site.origin), 'peer', 'PX', 60_000);
    return { keyPrefix, site, silent, peer };
  }

  it("adopts a peer's result as soon as it is saved, though every fetch turn of the waiter is taken", async () => {
    const { keyPrefix, site, silent, peer } = await lockedByPeer();
    const waiter = store(keyPrefix, { maxConcurrentFetches: 1, fetchTimeoutMs: 3000, lockPollMs: 25 });
    try {
      const waited = waiter.resolve(site.origin);
      await eventually(async () => waiter.stats().lockWaits === 1);
      const stalled = waiter.check(`${silent.origin}/page`);
      await eventually(async () => silent.hits('/robots.txt') === 1);
      const fresh = policyRecord(site.origin, Date.now());
      await peer.save(site.origin, { record: fresh, body: null }, 60_000, SCOPE);
      await client.del(lockKey(keyPrefix, site.origin));
      const started = performance.now();
      expect((await waited).fetchedAt).toBe(fresh.fetchedAt);
      // Not after the silent origin's fetch gave the turn back, 3 s on.
      expect(performance.now() - started).toBeLessThan(1000);
      expect((await stalled).allowed).toBe(false);
      expect(site.hits('/robots.txt')).toBe(0);
    } finally {
      await Promise.all([waiter.close(), peer.close(), site.close(), silent.close()]);
    }
  }, 15_000);

  it("adopts a peer's result saved between a look at the record and a try of the lock, with every fetch turn taken", async () => {
    const { keyPrefix, site, silent, peer } = await lockedByPeer();
    const fresh = policyRecord(site.origin, Date.now());
    // Once armed, the peer saves its result and lets go of the lock right after the waiter's next
    // look at the record's fetch time: the waiter then finds the lock free, the record unchanged.
    const backend = new RedisBackend({
      url: redis.url,
      keyPrefix,
      commandTimeoutMs: 300,
      connectTimeoutMs: 500,
    });
    const fetchedAt = backend.fetchedAt.bind(backend);
    let armed = false;
    let peerDone = false;
    backend.fetchedAt = async (origin, scope) => {
      const stamp = await fetchedAt(origin, scope);
      if (armed && !peerDone && origin === site.origin) {
        peerDone = true;
        await peer.save(site.origin, { record: fresh, body: null }, 60_000, SCOPE);
        await client.del(lockKey(keyPrefix, site.origin));
      }
      return stamp;
    };
    const waiter = new RobotsStore({
      userAgent: USER_AGENT,
      backend,
      fetchTimeoutMs: 3000,
      maxConcurrentFetches: 1,
      lockPollMs: 25,
      log: captureLog().log,
    });
    try {
      const waited = waiter.resolve(site.origin);
      await eventually(async () => waiter.stats().lockWaits === 1);
      const stalled = waiter.check(`${silent.origin}/page`);
      await eventually(async () => silent.hits('/robots.txt') === 1);
      armed = true;
      const started = performance.now();
      expect((await waited).fetchedAt).toBe(fresh.fetchedAt);
      expect(peerDone).toBe(true);
      // Not after the silent origin's fetch gave the turn back, 3 s on.
      expect(performance.now() - started).toBeLessThan(1000);
      // The lock it took to find the holder gone was given back.
      expect(await client.exists(lockKey(keyPrefix, site.origin))).toBe(0);
      expect((await stalled).allowed).toBe(false);
      expect(site.hits('/robots.txt')).toBe(0);
    } finally {
      await Promise.all([waiter.close(), peer.close(), site.close(), silent.close()]);
    }
  }, 15_000);

  it.each([
    ['a hash', (key: string) => client.hset(key, 'x', 'y')],
    ['a string without expiry', (key: string) => client.set(key, 'left-by-hand')],
  ])(
    'takes a lock key that holds %s as no lock: replaced, one fetch, one warning',
    async (description, plant) => {
      const keyPrefix = prefix();
      const [site] = await sites(1);
      await plant(lockKey(keyPrefix, site.origin));
      const logs = Array.from({ length: 3 }, () => captureLog());
      const fleet = logs.map(({ log }) => store(keyPrefix, { lockPollMs: 25, log }));
      try {
        const checks = await Promise.all(fleet.map((robots) => robots.check(`${site.origin}/private-0`)));
        expect(checks.map((check) => check.allowed)).toEqual([false, false, false]);
        expect(site.hits('/robots.txt')).toBe(1);
        const warnings = logs.flatMap(({ warnings }) => warnings());
        expect(warnings).toEqual([
          `The redis backend's fetch lock of ${site.origin} was no lock: its fetch lock key held ${description}, not a lock. It was taken over, and robots.txt is fetched here.`,
        ]);
        // The lock taken in its place was released.
        expect(await client.exists(lockKey(keyPrefix, site.origin))).toBe(0);
      } finally {
        await Promise.all([...fleet.map((robots) => robots.close()), site.close()]);
      }
    },
  );

  it('stops waiting for a holder that takes too long and fetches itself, with a warning', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    await client.set(lockKey(keyPrefix, site.origin), 'slow-holder', 'PX', 10_000);
    const { log, warnings } = captureLog();
    const robots = store(keyPrefix, { lockWaitMs: 200, lockPollMs: 25, log });
    try {
      const started = performance.now();
      expect((await robots.resolve(site.origin)).kind).toBe('rules');
      expect(performance.now() - started).toBeLessThan(1500);
      expect(site.hits('/robots.txt')).toBe(1);
      expect(warnings().some((message) => message.includes('Waited 200 ms'))).toBe(true);
      // The slow holder's lock is not ours: it is left alone.
      expect(await client.get(lockKey(keyPrefix, site.origin))).toBe('slow-holder');
    } finally {
      await Promise.all([robots.close(), site.close()]);
    }
  });

  it("polls the fetch time of another fetcher's record while it waits, and loads the record once it changed", async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const peer = new RedisBackend({ url: redis.url, keyPrefix });
    peer.attach();
    const now = Date.now();
    // An expired record of the origin, and a peer fetching it again.
    const expired = policyRecord(site.origin, now - 2 * DAY, { expiresAt: now - DAY });
    await peer.save(site.origin, { record: expired, body: null }, 60_000, SCOPE);
    await client.set(lockKey(keyPrefix, site.origin), 'peer', 'PX', 10_000);
    const backend = new RedisBackend({ url: redis.url, keyPrefix, commandTimeoutMs: 300 });
    const calls = countCalls(backend);
    let polls = 0;
    const fetchedAt = backend.fetchedAt.bind(backend);
    backend.fetchedAt = (origin, scope) => {
      polls++;
      return fetchedAt(origin, scope);
    };
    const robots = store(keyPrefix, { backend, lockPollMs: 20, lockWaitMs: 5000 });
    try {
      const resolved = robots.resolve(site.origin);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const fresh = policyRecord(site.origin, Date.now());
      await peer.save(site.origin, { record: fresh, body: null }, 60_000, SCOPE);
      await client.del(lockKey(keyPrefix, site.origin));
      expect((await resolved).fetchedAt).toBe(fresh.fetchedAt);
      expect(site.hits('/robots.txt')).toBe(0);
      expect(polls).toBeGreaterThan(5);
      // The expired record before waiting, the peer's once it was there: never one per poll.
      expect(calls.taken().load).toBe(2);
    } finally {
      await Promise.all([robots.close(), peer.close(), site.close()]);
    }
  });

  it('polls a record it cannot use by its fetch time too: loaded once while a peer fetches, not once per poll', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const peer = new RedisBackend({ url: redis.url, keyPrefix });
    peer.attach();
    // A record of another version, with a fetch time, and a peer fetching the origin.
    const at = String(Date.now() - 3_600_000);
    await client.hset(
      policyKey(keyPrefix, site.origin),
      'at',
      at,
      'meta',
      '{"version":0}',
      'body',
      '',
      'hasBody',
      '0',
    );
    await client.set(lockKey(keyPrefix, site.origin), 'peer', 'PX', 10_000);
    const backend = new RedisBackend({ url: redis.url, keyPrefix, commandTimeoutMs: 300 });
    const calls = countCalls(backend);
    const robots = store(keyPrefix, { backend, lockPollMs: 20, lockWaitMs: 5000 });
    try {
      const resolved = robots.resolve(site.origin);
      await new Promise((resolve) => setTimeout(resolve, 400));
      // Before waiting, and on the first poll (the stamp of a record it could not read was not
      // known yet): then no more while the stamp stays.
      expect(calls.taken().load).toBe(2);
      const fresh = policyRecord(site.origin, Date.now());
      await peer.save(site.origin, { record: fresh, body: null }, 60_000, SCOPE);
      await client.del(lockKey(keyPrefix, site.origin));
      expect((await resolved).fetchedAt).toBe(fresh.fetchedAt);
      expect(site.hits('/robots.txt')).toBe(0);
      // The peer's record, once its stamp changed.
      expect(calls.taken().load).toBe(1);
    } finally {
      await Promise.all([robots.close(), peer.close(), site.close()]);
    }
  });

  it('stops a wait for another process when the store is closed: close() does not wait for it, the check rejects', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    await client.set(lockKey(keyPrefix, site.origin), 'other-process', 'PX', 60_000);
    const { log, lines } = captureLog();
    const robots = store(keyPrefix, { lockWaitMs: 30_000, lockPollMs: 20, log });
    try {
      // Its outcome taken at once: the rejection comes while close() runs.
      const outcome = robots.check(`${site.origin}/page`).then(
        () => undefined,
        (error: Error) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      await robots.close();
      expect(performance.now() - started).toBeLessThan(1000);
      expect((await outcome)?.message).toMatch(/closed while a check waited for another process to fetch/);
      expect(site.hits('/robots.txt')).toBe(0);
      // Not taken for a bug: nothing logged as an error.
      expect(lines.filter((line) => line.level <= LogLevel.WARNING)).toEqual([]);
    } finally {
      await robots.close();
      await site.close();
    }
  });

  it('releases only its own lock (compare-and-delete)', async () => {
    const keyPrefix = prefix();
    const backend = new RedisBackend({ url: redis.url, keyPrefix });
    try {
      const lock = await backend.lock('https://a.example', 100, SCOPE);
      expect(lock).toBeDefined();
      expect(await backend.lock('https://a.example', 10_000, SCOPE)).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 150));
      const next = await backend.lock('https://a.example', 10_000, SCOPE);
      expect(next).toBeDefined();
      // The first holder wakes up late: its release must not free the new holder's lock.
      await lock!.release();
      expect(await client.get(lockKey(keyPrefix, 'https://a.example'))).not.toBeNull();
      await next!.release();
      expect(await client.get(lockKey(keyPrefix, 'https://a.example'))).toBeNull();
    } finally {
      await backend.close();
    }
  });

  it('keeps the newer record when a slow writer saves an older one (fencing by fetch time)', async () => {
    const keyPrefix = prefix();
    const backend = new RedisBackend({ url: redis.url, keyPrefix });
    const record = (fetchedAt: number, why: string) => ({
      version: 1 as const,
      origin: 'https://a.example',
      robotsTxtUrl: 'https://a.example/robots.txt',
      finalUrl: 'https://a.example/robots.txt',
      kind: 'allow-all' as const,
      status: 404,
      why,
      fetchedAt,
      expiresAt: fetchedAt + 1000,
      hops: [],
      failures: 0,
      servedFromStaleCopy: false,
      truncated: false,
      timings: { totalMs: 1, parseMs: 0 },
    });
    try {
      await backend.save('https://a.example', { record: record(2000, 'newer'), body: null }, 60_000, SCOPE);
      await backend.save('https://a.example', { record: record(1000, 'older'), body: null }, 60_000, SCOPE);
      expect((await backend.load('https://a.example', SCOPE))?.record.why).toBe('newer');
    } finally {
      await backend.close();
    }
  });

  it('carries on with the local cache and one warning when Redis dies mid-run', async () => {
    const own = await startRedis();
    const servers = await sites(6);
    const slow = await sites(2, 300);
    const { log, warnings } = captureLog();
    const robots = new RobotsStore({
      userAgent: USER_AGENT,
      backend: new RedisBackend({
        url: own.url,
        keyPrefix: prefix(),
        commandTimeoutMs: 300,
        connectTimeoutMs: 300,
      }),
      fetchTimeoutMs: 2000,
      log,
    });
    try {
      for (const site of servers.slice(0, 3)) await robots.resolve(site.origin);
      expect(robots.stats().backendErrors).toBe(0);

      // Killed while fetches are in flight: they finish, their saves fail, nothing hangs.
      const inFlight = Promise.all(slow.map((site) => robots.resolve(site.origin)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await own.kill();
      expect((await inFlight).map((policy) => policy.kind)).toEqual(['rules', 'rules']);

      const started = performance.now();
      // Origins already in memory: answered at once.
      for (const site of servers.slice(0, 3)) {
        expect((await robots.check(`${site.origin}/x`)).allowed).toBe(true);
      }
      // New origins: fetched here, the backend skipped.
      const fresh = await Promise.all(
        servers.slice(3).map((site) => robots.check(`${site.origin}/private-5`)),
      );
      const elapsed = performance.now() - started;
      expect(fresh.map((check) => check.policyKind)).toEqual(['rules', 'rules', 'rules']);
      expect(fresh[2].allowed).toBe(false);
      expect(elapsed).toBeLessThan(2000);
      expect(servers.map((site) => site.hits('/robots.txt'))).toEqual([1, 1, 1, 1, 1, 1]);
      expect(robots.stats().backendErrors).toBeGreaterThan(0);
      const redisWarnings = warnings().filter((message) => message.includes('redis backend failed'));
      expect(redisWarnings).toHaveLength(1);
    } finally {
      await robots.close();
      await own.stop();
      await Promise.all([...servers, ...slow].map((site) => site.close()));
    }
  });

  it('shares no answer between stores that read with other limits (maxBytes, maxRedirects)', async () => {
    const keyPrefix = prefix();
    // A file whose last rule lies past 4 KiB, and a robots.txt one redirect away from its file.
    const long = `User-agent: *\n${'Disallow: /filler-rule-of-some-length\n'.repeat(200)}Disallow: /private\n`;
    const [large, moved] = await Promise.all([
      startHttpServer({ '/robots.txt': text(long) }),
      startHttpServer({
        '/robots.txt': redirect('/real-robots.txt'),
        '/real-robots.txt': text('User-agent: *\nDisallow: /\n'),
      }),
    ]);
    const limited = store(keyPrefix, { maxBytes: 4096, maxRedirects: 0 });
    const usual = store(keyPrefix);
    try {
      // The limited store reads the first 4 KiB, and takes the redirect for too many (allow-all).
      expect((await limited.check(`${large.origin}/private/a`)).allowed).toBe(true);
      expect((await limited.check(`${moved.origin}/a`)).allowed).toBe(true);
      // A store with the default limits reads its own answers, and is not told to allow.
      expect((await usual.check(`${large.origin}/private/a`)).allowed).toBe(false);
      expect((await usual.check(`${moved.origin}/a`)).allowed).toBe(false);
      expect(usual.stats()).toMatchObject({ fetches: 2, backendHits: 0 });
      // Stores with the same limits still share.
      const alike = store(keyPrefix, { maxBytes: 4096, maxRedirects: 0 });
      expect((await alike.check(`${large.origin}/private/a`)).allowed).toBe(true);
      expect(alike.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
      await alike.close();
    } finally {
      await Promise.all([limited.close(), usual.close(), large.close(), moved.close()]);
    }
  });

  it('uses no other database when Redis refuses the one of its url: the crawl goes on locally, with a warning', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const { log, warnings } = captureLog();
    // A default server has databases 0 to 15; ioredis would go on in database 0.
    const robots = store(keyPrefix, { log }, `${redis.url}/99`);
    try {
      expect((await robots.check(`${site.origin}/private-0`)).allowed).toBe(false);
      expect(await client.keys(`${keyPrefix}*`)).toEqual([]);
      expect(robots.stats()).toMatchObject({ fetches: 1, backendHits: 0 });
      expect(warnings().join('\n')).toContain(
        'Redis refused database 99 (ERR DB index is out of range): nothing is read from it or written to it.',
      );
    } finally {
      await Promise.all([robots.close(), site.close()]);
    }
  });

  it('says that Redis refused its password, not only that the connection closed', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const user = `tester-${process.pid}`;
    await client.call('ACL', 'SETUSER', user, 'on', '>secret', '~*', '+@all');
    const { log, warnings } = captureLog();
    const url = `redis://${user}:wrong@127.0.0.1:${redis.port}`;
    const robots = store(keyPrefix, { log }, url);
    try {
      expect((await robots.check(`${site.origin}/private-0`)).allowed).toBe(false);
      expect(robots.stats()).toMatchObject({ fetches: 1, backendHits: 0 });
      const told = warnings().join('\n');
      expect(told).toContain('WRONGPASS');
      expect(told).toContain('Give the user and password the server expects in the url');
      expect(told).not.toContain('Connection is closed');
    } finally {
      await Promise.all([robots.close(), site.close()]);
      await client.call('ACL', 'DELUSER', user);
    }
  });

  it('starts with Redis down: resolves locally without hanging', async () => {
    const own = await startRedis();
    await own.kill();
    const [site] = await sites(1);
    const robots = store(prefix(), {}, own.url);
    try {
      const started = performance.now();
      const policy = await robots.resolve(site.origin);
      expect(policy.kind).toBe('rules');
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await robots.close();
      await own.stop();
      await site.close();
    }
  });

  it('ignores a stored record that lacks fields or has the wrong types, and fetches', async () => {
    const keyPrefix = prefix();
    const broken: Record<string, (record: Record<string, unknown>) => void> = {
      'no timings, no why': (record) => {
        delete record['timings'];
        delete record['why'];
      },
      'a hop without its URL': (record) => {
        record['hops'] = [{ status: 404, durationMs: 1 }];
      },
      'a fetch time as a string': (record) => {
        record['fetchedAt'] = String(record['fetchedAt']);
      },
      'a good copy with rules and no body': (record) => {
        record['good'] = {
          kind: 'rules',
          status: 200,
          fetchedAt: record['fetchedAt'],
          why: 'HTTP 200',
          truncated: false,
        };
      },
    };
    const servers = await sites(Object.keys(broken).length);
    const { log, lines, warnings } = captureLog();
    const robots = store(keyPrefix, { log });
    try {
      for (const [index, damage] of Object.values(broken).entries()) {
        const origin = servers[index].origin;
        const record = policyRecord(origin, Date.now(), {
          expiresAt: Date.now() + 365 * DAY,
        }) as unknown as Record<string, unknown>;
        damage(record);
        await client.hset(
          policyKey(keyPrefix, origin),
          'at',
          String(Date.now()),
          'meta',
          JSON.stringify(record),
          'body',
          '',
          'hasBody',
          '0',
        );
      }
      const checks = await Promise.all(
        servers.map((site, index) => robots.check(`${site.origin}/private-${index}/x`)),
      );
      expect(checks.map((check) => [check.policyKind, check.status, check.allowed])).toEqual(
        servers.map(() => ['rules', 200, false]),
      );
      expect(servers.map((site) => site.hits('/robots.txt'))).toEqual(servers.map(() => 1));
      expect(robots.stats()).toMatchObject({ fetches: servers.length, backendHits: 0 });
      expect(lines.filter((line) => line.level === LogLevel.ERROR)).toEqual([]);
      // Each ignored with a warning that says why.
      expect(
        warnings()
          .map((message) => /is ignored: (.*)\. robots\.txt/.exec(message)?.[1])
          .sort(),
      ).toEqual([
        'it has rules but no robots.txt body',
        'its record lacks fields or has fields of the wrong type',
        'its record lacks fields or has fields of the wrong type',
        'its record lacks fields or has fields of the wrong type',
      ]);
      // The answers fetched replaced the broken records.
      const second = store(keyPrefix);
      await Promise.all(servers.map((site) => second.resolve(site.origin)));
      expect(second.stats()).toMatchObject({ fetches: 0, backendHits: servers.length });
      await second.close();
    } finally {
      await robots.close();
      await Promise.all(servers.map((site) => site.close()));
    }
  });

  it('takes a key of another shape as no record, with one warning, and replaces it on save', async () => {
    const keyPrefix = prefix();
    const foreign: Record<string, (key: string) => Promise<unknown>> = {
      // HGETALL would answer WRONGTYPE, as if Redis failed.
      'the key holds a string, not a hash': (key) => client.set(key, '{"origin":"x"}'),
      // The save script compared a fetch time that is not a number.
      'it was written by another version (record version 0)': (key) =>
        client.hset(key, 'at', 'garbage', 'meta', '{"version":0}', 'body', '', 'hasBody', '0'),
      'the hash has no "meta" field': (key) => client.hset(key, 'at', String(Date.now() + 3_600_000)),
    };
    const servers = await sites(Object.keys(foreign).length);
    for (const [index, write] of Object.values(foreign).entries()) {
      await write(policyKey(keyPrefix, servers[index].origin));
    }
    const { log, warnings } = captureLog();
    const robots = store(keyPrefix, { log });
    try {
      const checks = await Promise.all(
        servers.map((site, index) => robots.check(`${site.origin}/private-${index}/x`)),
      );
      expect(checks.map((check) => [check.policyKind, check.allowed])).toEqual(
        servers.map(() => ['rules', false]),
      );
      // Not a backend failure: the breaker stayed closed and every policy was saved.
      expect(robots.stats()).toMatchObject({ fetches: 3, backendErrors: 0, backendSkipped: 0 });
      // One warning per origin, though each was loaded twice (before and after taking the lock).
      expect(warnings().sort()).toEqual(
        Object.keys(foreign)
          .map(
            (reason, index) =>
              `The redis backend's record of ${servers[index].origin} is ignored: ${reason}. robots.txt is fetched again and the record replaced.`,
          )
          .sort(),
      );
      for (const site of servers) {
        const key = policyKey(keyPrefix, site.origin);
        expect(await client.type(key)).toBe('hash');
        expect(await client.pttl(key)).toBeGreaterThan(0);
      }
      await expectShared(keyPrefix, servers);
    } finally {
      await robots.close();
      await Promise.all(servers.map((site) => site.close()));
    }
  });

  it('carries no field it does not know from a stored record into the next: one nested too deep fails no save', async () => {
    const keyPrefix = prefix();
    const site = await startHttpServer({ '/robots.txt': text('down', 503) });
    const fetchedAt = Date.now() - 2 * DAY;
    // An expired record whose good copy holds a field of another writer, nested too deep to write out.
    const meta = JSON.stringify(
      policyRecord(site.origin, fetchedAt, { expiresAt: fetchedAt + 1000 }),
    ).replace('"good":{', `"good":{"extra":${'['.repeat(20_000)}${']'.repeat(20_000)},`);
    expect(meta).toContain('"extra"');
    expect(() => JSON.stringify(JSON.parse(meta))).toThrow(RangeError);
    await client.hset(
      policyKey(keyPrefix, site.origin),
      'at',
      String(fetchedAt),
      'meta',
      meta,
      'body',
      '',
      'hasBody',
      '0',
    );
    const { log, warnings } = captureLog();
    const robots = store(keyPrefix, { log });
    try {
      // The outage keeps the good copy of the stored record, and its record is saved.
      expect((await robots.resolve(site.origin)).kind).toBe('disallow-all');
      expect(robots.stats()).toMatchObject({ fetches: 1, backendErrors: 0 });
      expect(warnings()).toEqual([]);
      const saved = JSON.parse((await client.hget(policyKey(keyPrefix, site.origin), 'meta')) ?? 'null');
      expect(saved).toMatchObject({ status: 503, failures: 1, good: { status: 404, fetchedAt } });
      expect(saved.good).not.toHaveProperty('extra');
    } finally {
      await robots.close();
      await site.close();
    }
  });

  it('reads no value larger than a record: ignored unread with one warning, replaced, and Redis still shared', async () => {
    const keyPrefix = prefix();
    const servers = await sites(3);
    const [bloated] = servers;
    // 64 MiB in the body field: loaded whole, it would time out the load and stop the store using Redis.
    const key = policyKey(keyPrefix, bloated.origin);
    await client.hset(
      key,
      'at',
      'garbage',
      'meta',
      'garbage',
      'body',
      Buffer.alloc(64 * 2 ** 20, 120),
      'hasBody',
      '1',
    );
    const { log, warnings } = captureLog();
    const robots = store(keyPrefix, { log });
    try {
      const checks = await Promise.all(
        servers.map((site, index) => robots.check(`${site.origin}/private-${index}`)),
      );
      expect(checks.map((check) => check.allowed)).toEqual([false, false, false]);
      expect(robots.stats()).toMatchObject({ fetches: 3, backendErrors: 0, backendSkipped: 0 });
      // The default maxBytes and the rest of a line, 1 MiB of JSON and 32 KiB for each of 6 hops.
      const limit = 512_000 + MAX_LINE_OCTETS + 1 + 2 ** 20 + 6 * 32 * 1024;
      expect(warnings()).toEqual([
        `The redis backend's record of ${bloated.origin} is ignored: it holds ${64 * 2 ** 20 + 32} octets, more than a record of this store takes (${limit}). robots.txt is fetched again and the record replaced.`,
      ]);
      // Replaced by the store's own answer, which the others read.
      expect(await client.hstrlen(key, 'body')).toBeLessThan(1000);
      await expectShared(keyPrefix, servers);
    } finally {
      await robots.close();
      await Promise.all(servers.map((site) => site.close()));
    }
  });

  it('shares the record of a redirect chain whose Locations are as long as the client takes', async () => {
    const keyPrefix = prefix();
    const site = await startHttpServer();
    const long = 'a'.repeat(200_000);
    site.route('/robots.txt', redirect(`/r1/${long}`, 301));
    for (let hop = 1; hop < 5; hop++) site.route(`/r${hop}/${long}`, redirect(`/r${hop + 1}/${long}`, 301));
    site.route(`/r5/${long}`, text('User-agent: *\nDisallow: /private\n'));
    const { log, warnings } = captureLog();
    const first = store(keyPrefix);
    const second = store(keyPrefix, { log });
    try {
      expect(await first.check(`${site.origin}/private`)).toMatchObject({ allowed: false, status: 200 });
      expect(site.requests).toHaveLength(6);
      expect(await second.check(`${site.origin}/private`)).toMatchObject({ allowed: false, status: 200 });
      expect(second.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
      expect(site.requests).toHaveLength(6);
      expect(warnings()).toEqual([]);
    } finally {
      await Promise.all([first.close(), second.close(), site.close()]);
    }
  });

  it('lets the process exit at once after close(), also when Redis never answered', async () => {
    const script = `
      import { createServer } from 'node:http';
      import { RedisBackend, RobotsStore } from './src/store/index.js';
      const site = createServer((_q, r) => r.end('User-agent: *\\nDisallow: /x\\n')).listen(0, '127.0.0.1');
      await new Promise((ok) => site.once('listening', ok));
      // A port nothing listens on: a server opened and closed.
      const gone = createServer().listen(0, '127.0.0.1');
      await new Promise((ok) => gone.once('listening', ok));
      const port = gone.address().port;
      await new Promise((ok) => gone.close(ok));
      const store = new RobotsStore({
        userAgent: 'ExampleBot/1.0',
        backend: new RedisBackend({ url: 'redis://127.0.0.1:' + port, connectTimeoutMs: 200 }),
        log: { debug() {}, info() {}, warning() {}, error() {}, exception() {}, child() { return this; } },
      });
      const check = await store.check('http://127.0.0.1:' + site.address().port + '/x');
      await store.close();
      await new Promise((ok) => site.close(ok));
      process.stdout.write('closed ' + check.allowed + '\\n');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let closedAt = 0;
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('closed')) closedAt ||= performance.now();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(output).toBe('closed false\n');
    // ioredis's own wait for a socket that never opened was 2 s.
    expect(performance.now() - closedAt).toBeLessThan(1000);
  });

  it('never leaves a policy key without expiry: a bad TTL is refused before anything is written', async () => {
    const keyPrefix = prefix();
    const own = new Redis(redis.url);
    await own.ping();
    // Given its own client, the backend defines its scripts on it: the script can be called as is.
    const backend = new RedisBackend({ redis: own, keyPrefix });
    const origin = 'https://a.example';
    const key = policyKey(keyPrefix, origin);
    const policy = { record: policyRecord(origin, Date.now()), body: null };
    try {
      await backend.save(origin, policy, 60_000, SCOPE);
      for (const retainMs of [Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, -5]) {
        await expect(backend.save(origin, policy, retainMs, SCOPE)).rejects.toThrow(RangeError);
      }
      const script = own as unknown as {
        crawleeRobotsSaveIfNewer(key: string, ...args: string[]): Promise<number>;
      };
      for (const ttl of ['abc', '0', '1.5', '']) {
        await client.del(key);
        await expect(
          script.crawleeRobotsSaveIfNewer(key, String(Date.now()), '{}', '', ttl, '0', '60000'),
        ).rejects.toThrow(/TTL must be a whole number/);
        expect(await client.exists(key)).toBe(0);
      }
      // A fractional retention is rounded up to whole milliseconds.
      await backend.save(origin, policy, 1500.5, SCOPE);
      expect(await client.pttl(key)).toBeGreaterThan(1400);
      expect(await client.pttl(key)).toBeLessThanOrEqual(1501);
    } finally {
      await backend.close();
      own.disconnect();
    }
  });

  it("keeps each User-Agent's answer and lock apart, and shares between stores of the same one", async () => {
    const keyPrefix = prefix();
    const site = await startHttpServer({
      '/robots.txt': (request, response) => {
        if (String(request.headers['user-agent']).includes('BadBot')) response.writeHead(503).end('no');
        else response.writeHead(200).end('User-agent: *\nDisallow: /private\n');
      },
    });
    const bad = store(keyPrefix, { userAgent: 'BadBot/1.0' });
    const good = store(keyPrefix, { userAgent: 'GoodBot/2.0' });
    const sameAsGood = store(keyPrefix, { userAgent: 'GoodBot/2.0' });
    try {
      // All at once: the lock of one User-Agent does not hold up the other.
      const [badCheck, goodCheck] = await Promise.all([
        bad.check(`${site.origin}/x`),
        good.check(`${site.origin}/x`),
      ]);
      expect(badCheck).toMatchObject({ allowed: false, status: 503 });
      expect(goodCheck).toMatchObject({ allowed: true, status: 200 });
      expect(good.stats().lockWaits + bad.stats().lockWaits).toBe(0);
      expect(await sameAsGood.check(`${site.origin}/private`)).toMatchObject({ allowed: false, status: 200 });
      expect(sameAsGood.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
      expect(site.requests.map((request) => request.headers['user-agent']).sort()).toEqual([
        'BadBot/1.0',
        'GoodBot/2.0',
      ]);
      expect(await client.exists(policyKey(keyPrefix, site.origin, 'BadBot/1.0'))).toBe(1);
      expect(await client.exists(policyKey(keyPrefix, site.origin, 'GoodBot/2.0'))).toBe(1);
    } finally {
      await Promise.all([bad.close(), good.close(), sameAsGood.close(), site.close()]);
    }
  });

  it('opens no connection until a store uses it: a store refusing its options leaves nothing open', async () => {
    const own = await startRedis();
    const admin = new Redis(own.url);
    const clients = async () => Number(/connected_clients:(\d+)/.exec(await admin.info('clients'))?.[1]);
    const backend = new RedisBackend({ url: own.url, keyPrefix: prefix() });
    try {
      // Refused before it attaches: the backend is never used, and nothing of it keeps the process alive.
      expect(() => new RobotsStore({ userAgent: USER_AGENT, backend, maxEntries: 0 })).toThrow(/maxEntries/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await clients()).toBe(1);
      const robots = new RobotsStore({ userAgent: USER_AGENT, backend, log: captureLog().log });
      await robots.close();
      expect(await clients()).toBe(1);
    } finally {
      await backend.close();
      admin.disconnect();
      await own.stop();
    }
  });

  it('waits for a given client that is still connecting instead of running the first checks without Redis', async () => {
    const keyPrefix = prefix();
    const servers = await sites(5);
    // As such a client is usually made: not waited for, and no offline queue (see RedisBackendOptions.redis).
    const given = () => new Redis(redis.url, { enableOfflineQueue: false, commandTimeout: 1000 });
    const [first, second] = [given(), given()];
    const { writer, reader, warnings } = writerAndReader(keyPrefix, first, second);
    try {
      await Promise.all(servers.map((site) => writer.resolve(site.origin)));
      await Promise.all(servers.map((site) => reader.resolve(site.origin)));
      expect(warnings()).toEqual([]);
      expect(reader.stats()).toMatchObject({ fetches: 0, backendHits: 5 });
      expect(servers.map((site) => site.hits('/robots.txt'))).toEqual([1, 1, 1, 1, 1]);
    } finally {
      await Promise.all([writer.close(), reader.close(), ...servers.map((site) => site.close())]);
      first.disconnect();
      second.disconnect();
    }
  });

  it('connects a given client made with lazyConnect, as ioredis would on its first command', async () => {
    const keyPrefix = prefix();
    const servers = await sites(3);
    const given = () => new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false });
    const [first, second] = [given(), given()];
    expect(first.status).toBe('wait');
    const { writer, reader, warnings } = writerAndReader(keyPrefix, first, second);
    try {
      await Promise.all(servers.map((site) => writer.resolve(site.origin)));
      await Promise.all(servers.map((site) => reader.resolve(site.origin)));
      expect(warnings()).toEqual([]);
      expect(writer.stats()).toMatchObject({ fetches: 3, backendErrors: 0 });
      expect(reader.stats()).toMatchObject({ fetches: 0, backendHits: 3, backendErrors: 0 });
      expect(servers.map((site) => site.hits('/robots.txt'))).toEqual([1, 1, 1]);
    } finally {
      await Promise.all([writer.close(), reader.close(), ...servers.map((site) => site.close())]);
      first.disconnect();
      second.disconnect();
    }
  });

  it('keeps its connection for the other stores it serves when one of them is closed', async () => {
    const keyPrefix = prefix();
    const [first, second] = await sites(2);
    const backend = new RedisBackend({ url: redis.url, keyPrefix, commandTimeoutMs: 300 });
    const options = { backend, fetchTimeoutMs: 2000, log: captureLog().log };
    const shop = new RobotsStore({ ...options, userAgent: 'ShopBot/1.0' });
    const news = new RobotsStore({ ...options, userAgent: 'NewsBot/1.0' });
    try {
      await shop.resolve(first.origin);
      await shop.close();
      await news.resolve(second.origin);
      expect(news.stats()).toMatchObject({ backendErrors: 0, backendSkipped: 0 });
      expect(await client.exists(policyKey(keyPrefix, second.origin, 'NewsBot/1.0'))).toBe(1);
      await news.close();
      // The last store closed the connection the backend opened.
      await expect(backend.load(second.origin, backendScope('NewsBot/1.0'))).rejects.toThrow();
    } finally {
      await Promise.all([shop.close(), news.close(), first.close(), second.close()]);
    }
  });

  it('refuses a store made on a RedisBackend whose stores were all closed, rather than running without Redis', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const backend = new RedisBackend({ url: redis.url, keyPrefix, commandTimeoutMs: 300 });
    const options = { userAgent: USER_AGENT, backend, fetchTimeoutMs: 2000, log: captureLog().log };
    const first = new RobotsStore(options);
    try {
      await first.resolve(site.origin);
      await first.close();
      const closed =
        'This RedisBackend is closed (the stores using it were closed, and its Redis connection with them); create a new one.';
      expect(() => new RobotsStore(options)).toThrow(closed);
      await expect(backend.load(site.origin, SCOPE)).rejects.toThrow(closed);
      // A new backend on the same Redis shares what the first one saved.
      const second = new RobotsStore({
        ...options,
        backend: new RedisBackend({ url: redis.url, keyPrefix }),
      });
      await second.resolve(site.origin);
      // The first store's counts say whether its save reached Redis (a miss seen once under load).
      expect(second.stats(), JSON.stringify(first.stats())).toMatchObject({
        fetches: 0,
        backendHits: 1,
        backendErrors: 0,
      });
      await second.close();
    } finally {
      await Promise.all([first.close(), site.close()]);
    }
  });

  it('does not trust the times of a writer whose clock is days ahead', async () => {
    const keyPrefix = prefix();
    let body = 'User-agent: *\nDisallow: /old\n';
    const site = await startHttpServer({
      '/robots.txt': (_request, response) => {
        response.writeHead(200).end(body);
      },
    });
    const now = Date.now();
    const ahead = store(keyPrefix, { clock: () => now + 3 * DAY });
    const { log, warnings } = captureLog();
    const reader = store(keyPrefix, { clock: () => now, log });
    const third = store(keyPrefix, { clock: () => now });
    try {
      await ahead.resolve(site.origin);
      body = 'User-agent: *\nDisallow: /new\n';

      // The record's age cannot be known: fetched again, never a negative age.
      const check = await reader.check(`${site.origin}/old`);
      expect(check).toMatchObject({ allowed: true, ageMs: 0, status: 200 });
      expect(site.hits('/robots.txt')).toBe(2);
      expect(warnings()).toEqual([expect.stringContaining('fetched 259200 s ahead of this process')]);
      // Its answer replaced the one from the future: the fleet shares it again.
      expect(await third.check(`${site.origin}/new`)).toMatchObject({ allowed: false, ageMs: 0 });
      expect(third.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
    } finally {
      await Promise.all([ahead.close(), reader.close(), third.close(), site.close()]);
    }
  });

  it('takes a record from a clock slightly ahead as fetched now, held no longer than maxAgeMs', async () => {
    const keyPrefix = prefix();
    const [site] = await sites(1);
    const now = Date.now();
    const ahead = store(keyPrefix, { clock: () => now + 30_000 });
    const reader = store(keyPrefix, { clock: () => now });
    try {
      await ahead.resolve(site.origin);
      const check = await reader.check(`${site.origin}/private-0`);
      expect(check).toMatchObject({ allowed: false, ageMs: 0 });
      expect((await reader.resolve(site.origin)).expiresAt).toBe(now + DAY);
      expect(reader.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
    } finally {
      await Promise.all([ahead.close(), reader.close(), site.close()]);
    }
  });
});

describe('RedisBackend Crawl-delay turns', () => {
  const ORIGIN = 'https://paced.example';

  it('gives the turn to one claim per spacing, across backends, on the Redis server clock', async () => {
    const keyPrefix = prefix();
    const first = new RedisBackend({ url: redis.url, keyPrefix });
    const second = new RedisBackend({ url: redis.url, keyPrefix });
    first.attach();
    second.attach();
    try {
      expect(await first.claimTurn(ORIGIN, 'examplebot', 1000)).toBe(0);
      // The other process is told how long is left, and takes nothing.
      const left = await second.claimTurn(ORIGIN, 'examplebot', 1000);
      expect(left).toBeGreaterThan(800);
      expect(left).toBeLessThanOrEqual(1000);
      expect(await first.claimTurn(ORIGIN, 'examplebot', 1000)).toBeGreaterThan(800);
      // Another crawler, or another origin, has turns of its own.
      expect(await second.claimTurn(ORIGIN, 'otherbot', 1000)).toBe(0);
      expect(await second.claimTurn('https://other.example', 'examplebot', 1000)).toBe(0);
      // The key holds when the turn was taken, and expires a spacing after it.
      const key = `${keyPrefix}turn:examplebot:${ORIGIN}`;
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await second.claimTurn(ORIGIN, 'examplebot', 1000)).toBe(0);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('takes what it cannot have written at a turn key as no turn, and replaces it', async () => {
    const keyPrefix = prefix();
    const backend = new RedisBackend({ url: redis.url, keyPrefix });
    backend.attach();
    const key = (origin: string) => `${keyPrefix}turn:examplebot:${origin}`;
    const [seconds] = await client.time();
    const serverNow = Number(seconds) * 1000;
    try {
      // A hash; a time far ahead of the server's clock; a time with no expiry; not a number.
      await client.hset(key('https://a.example'), 'at', '1');
      await client.set(key('https://b.example'), String(serverNow + 86_400_000), 'PX', 86_400_000);
      await client.set(key('https://c.example'), String(serverNow));
      await client.set(key('https://e.example'), 'soon', 'PX', 500);
      for (const name of ['a', 'b', 'c', 'e']) {
        expect(await backend.claimTurn(`https://${name}.example`, 'examplebot', 1000), name).toBe(0);
        const next = await backend.claimTurn(`https://${name}.example`, 'examplebot', 1000);
        expect(next, name).toBeGreaterThan(0);
      }
      expect(await client.type(key('https://a.example'))).toBe('string');
      // A turn that expires later than a spacing (claimed by a process that read a longer delay)
      // holds the caller for the caller's own spacing at most. Taken now, to the millisecond:
      // the claims above may take longer than a spacing on a loaded machine.
      const [turnSeconds, turnMicros] = await client.time();
      const turnAt = Number(turnSeconds) * 1000 + Math.floor(Number(turnMicros) / 1000);
      await client.set(key('https://d.example'), String(turnAt), 'PX', 86_400_000);
      const wait = await backend.claimTurn('https://d.example', 'examplebot', 1000);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(1000);
    } finally {
      await backend.close();
    }
  });

  it('refuses a spacing that is no whole number of ms, 1 or more, before anything is written', async () => {
    const keyPrefix = prefix();
    const backend = new RedisBackend({ url: redis.url, keyPrefix });
    backend.attach();
    try {
      for (const spacing of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(backend.claimTurn(ORIGIN, 'examplebot', spacing)).rejects.toThrow(RangeError);
      }
      expect(await client.keys(`${keyPrefix}*`)).toEqual([]);
    } finally {
      await backend.close();
    }
  });

  it('RobotsStore.claimTurn shares turns through Redis, per product token whatever its case, and none while Redis is down', async () => {
    const keyPrefix = prefix();
    const one = store(keyPrefix);
    const two = store(keyPrefix, { userAgent: 'ExampleBot/2.0' });
    expect(one.sharesTurns).toBe(true);
    try {
      expect(await one.claimTurn(`${ORIGIN}/a/page`, 'ExampleBot', 2000)).toBe(0);
      // Another version of the crawler is the same crawler to the site.
      expect(await two.claimTurn(`${ORIGIN}/b`, 'examplebot', 2000)).toBeGreaterThan(1500);
    } finally {
      await one.close();
      await two.close();
    }
    const dead = await startRedis();
    const { log, warnings } = captureLog();
    const orphan = new RobotsStore({
      userAgent: USER_AGENT,
      backend: new RedisBackend({ url: dead.url, keyPrefix, commandTimeoutMs: 300, connectTimeoutMs: 300 }),
      log,
    });
    await dead.kill();
    try {
      expect(await orphan.claimTurn(ORIGIN, 'ExampleBot', 1000)).toBeUndefined();
      expect(warnings().join('\n')).toMatch(/backend failed \(turn: /);
    } finally {
      await orphan.close();
      await dead.stop();
    }
  });
});

describe('RobotsStore with a frozen Redis (circuit breaker)', () => {
  const NONE = { load: 0, lock: 0, save: 0, release: 0 };

  it('stops calling Redis after a failure, probes once after the cool-down, and shares again once it answers', async () => {
    const own = await freezableRedis();
    const servers = await sites(9);
    const keyPrefix = prefix();
    const clock = manualClock();
    const { log, lines, warnings } = captureLog();
    const backend = new RedisBackend({
      url: own.url,
      keyPrefix,
      commandTimeoutMs: 200,
      connectTimeoutMs: 500,
    });
    const calls = countCalls(backend);
    const robots = store(keyPrefix, { backend, clock: clock.now, log });
    const reader = store(keyPrefix, { clock: clock.now }, own.url);
    const fetched = (index: number) => servers[index].hits('/robots.txt');
    try {
      await robots.resolve(servers[0].origin);
      expect(calls.taken()).toEqual({ load: 2, lock: 1, save: 1, release: 1 });

      own.freeze();
      // The first new origin waits for one timeout (the load), then is fetched without Redis.
      expect((await robots.resolve(servers[1].origin)).kind).toBe('rules');
      expect(calls.taken()).toEqual({ ...NONE, load: 1 });
      expect(warnings()).toEqual([expect.stringContaining('redis backend failed (load: Command timed out)')]);
      expect(warnings()[0]).toContain('tried again in 5 s');

      // Within the cool-down (5 s on the store's clock), new origins do not call Redis at all.
      clock.advance(4999);
      for (const index of [2, 3]) expect((await robots.resolve(servers[index].origin)).kind).toBe('rules');
      expect(calls.taken()).toEqual(NONE);
      expect([1, 2, 3].map(fetched)).toEqual([1, 1, 1]);
      // 1 save + 2 x (load, save) skipped; the one timeout is the only error.
      expect(robots.stats()).toMatchObject({ fetches: 4, backendErrors: 1, backendSkipped: 5 });

      // After it, one call probes Redis; it fails, and the cool-down doubles to 10 s.
      clock.advance(1);
      await robots.resolve(servers[4].origin);
      expect(calls.taken()).toEqual({ ...NONE, load: 1 });
      clock.advance(9999);
      await robots.resolve(servers[5].origin);
      expect(calls.taken()).toEqual(NONE);
      expect(warnings()).toHaveLength(1);

      // Redis answers again: the next probe succeeds, and the store uses Redis again.
      own.resume();
      clock.advance(1);
      await robots.resolve(servers[6].origin);
      expect(calls.taken()).toEqual({ load: 2, lock: 1, save: 1, release: 1 });
      expect(lines.map((line) => line.message)).toContain(
        'The redis backend answers again; policies are shared again.',
      );
      await robots.resolve(servers[7].origin);
      expect(calls.taken()).toEqual({ load: 2, lock: 1, save: 1, release: 1 });

      // Sharing resumed: another store reads the policies saved after the outage, not the others.
      for (const index of [6, 7, 3]) await reader.resolve(servers[index].origin);
      expect(reader.stats()).toMatchObject({ fetches: 1, backendHits: 2 });
      expect([6, 7, 3].map(fetched)).toEqual([1, 1, 2]);
      expect(robots.stats()).toMatchObject({ fetches: 8, backendErrors: 2 });
    } finally {
      own.resume();
      await Promise.all([robots.close(), reader.close()]);
      await own.stop();
      await Promise.all(servers.map((site) => site.close()));
    }
  }, 15_000);

  it('warns once about a Redis that answers reads and refuses writes (READONLY), trying it less and less often', async () => {
    const readOnly = await startRedis();
    const admin = new Redis(readOnly.url);
    // A replica of a master that is not there: reads are answered, writes get READONLY.
    await admin.call('REPLICAOF', '127.0.0.1', '1');
    const servers = await sites(40);
    const clock = manualClock();
    const { log, lines, warnings } = captureLog();
    const robots = store(prefix(), { clock: clock.now, log }, readOnly.url);
    try {
      // Two minutes of crawling, a new origin every 3 s: each one loads (a read) and locks (a write).
      for (const site of servers) {
        expect((await robots.resolve(site.origin)).kind).toBe('rules');
        clock.advance(3000);
      }
      expect(warnings()).toEqual([expect.stringContaining('READONLY')]);
      const answers = lines.filter((line) => line.message.includes('answers again'));
      expect(answers.filter((line) => line.level === LogLevel.INFO)).toHaveLength(1);
      // Tried after 5, 10, 20, 40 and 60 s: six failed writes at most, not one every 5 s (24).
      expect(robots.stats().backendErrors).toBeGreaterThanOrEqual(4);
      expect(robots.stats().backendErrors).toBeLessThanOrEqual(6);
      expect(robots.stats().fetches).toBe(40);
    } finally {
      await robots.close();
      admin.disconnect();
      await readOnly.stop();
      await Promise.all(servers.map((site) => site.close()));
    }
  }, 30_000);

  it('a burst of new origins stops waiting for a frozen Redis after the first timeout', async () => {
    const own = await freezableRedis();
    const servers = await sites(12);
    const keyPrefix = prefix();
    const { log, warnings } = captureLog();
    // Two commands at a time: without the breaker, 12 loads take 6 timeouts in turn, then 12 locks 6 more.
    const backend = new RedisBackend({
      url: own.url,
      keyPrefix,
      commandTimeoutMs: 300,
      connectTimeoutMs: 500,
      maxInFlight: 2,
    });
    const calls = countCalls(backend);
    const robots = store(keyPrefix, { backend, log });
    try {
      await robots.resolve(servers[0].origin);
      calls.taken();
      own.freeze();
      const started = performance.now();
      const policies = await Promise.all(servers.slice(1).map((site) => robots.resolve(site.origin)));
      const elapsed = performance.now() - started;
      expect(policies.every((policy) => policy.kind === 'rules')).toBe(true);
      // Every load was asked before the first one timed out; nothing after it.
      expect(calls.taken()).toEqual({ load: 11, lock: 0, save: 0, release: 0 });
      expect(elapsed).toBeLessThan(1200);
      expect(warnings()).toHaveLength(1);
      const { backendErrors, backendSkipped } = robots.stats();
      // Each load failed or was given up on, each save skipped.
      expect(backendErrors + backendSkipped).toBe(22);
    } finally {
      own.resume();
      await robots.close();
      await own.stop();
      await Promise.all(servers.map((site) => site.close()));
    }
  }, 15_000);

  it('bounds the commands of a given client by commandTimeoutMs, though the client has no timeout of its own', async () => {
    const own = await freezableRedis();
    const servers = await sites(2);
    const keyPrefix = prefix();
    const { log, warnings } = captureLog();
    // ioredis's defaults: no commandTimeout, and an offline queue.
    const client = new Redis(own.url);
    const robots = new RobotsStore({
      userAgent: USER_AGENT,
      backend: new RedisBackend({ redis: client, keyPrefix, commandTimeoutMs: 300 }),
      fetchTimeoutMs: 2000,
      log,
    });
    /** `work`, or 'hung' after 5 s: the test fails rather than waits. */
    const within = <T>(work: Promise<T>) =>
      Promise.race([work, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5000).unref())]);
    try {
      await robots.resolve(servers[0].origin);
      own.freeze();
      const started = performance.now();
      const policy = await within(robots.resolve(servers[1].origin));
      expect(policy).toMatchObject({ kind: 'rules' });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(warnings()).toEqual([expect.stringContaining('redis backend failed (load: Command timed out)')]);
      expect(await within(robots.close())).toBeUndefined();
    } finally {
      own.resume();
      await robots.close();
      client.disconnect();
      await own.stop();
      await Promise.all(servers.map((site) => site.close()));
    }
  }, 15_000);

  it('RedisBackend fails the commands queued behind one that timed out, instead of sending them in turn', async () => {
    const own = await freezableRedis();
    const backend = new RedisBackend({
      url: own.url,
      keyPrefix: prefix(),
      commandTimeoutMs: 200,
      connectTimeoutMs: 500,
      maxInFlight: 1,
    });
    try {
      expect(await backend.load('https://a.example', SCOPE)).toBeUndefined();
      own.freeze();
      const outcomes: string[] = [];
      const loads = ['a', 'b', 'c', 'd'].map((name) =>
        backend.load(`https://${name}.example`, SCOPE).then(
          () => outcomes.push(`${name} answered`),
          (error: Error) => outcomes.push(`${name} ${error.message}`),
        ),
      );
      await loads[0];
      // Settled with the first: a store's next try of Redis is not queued behind them.
      await new Promise((resolve) => setImmediate(resolve));
      expect(outcomes).toEqual(['a', 'b', 'c', 'd'].map((name) => `${name} Command timed out`));
    } finally {
      own.resume();
      await backend.close();
      await own.stop();
    }
  }, 15_000);

  it('gives back a lock whose command timed out but ran once Redis caught up, so the fleet does not wait for it', async () => {
    const own = await freezableRedis();
    const [site] = await sites(1);
    const keyPrefix = prefix();
    const backend = new RedisBackend({
      url: own.url,
      keyPrefix,
      commandTimeoutMs: 200,
      connectTimeoutMs: 500,
    });
    const takeLock = backend.lock.bind(backend);
    // Redis stalls just as the lock is asked for, and answers after the command timed out.
    backend.lock = (origin, ttlMs, scope) => {
      own.freeze();
      setTimeout(own.resume, 400);
      return takeLock(origin, ttlMs, scope);
    };
    // The lock outlives the test: only a release can remove it.
    const robots = store(keyPrefix, { backend, lockTtlMs: 60_000 });
    const peer = store(keyPrefix, { lockTtlMs: 60_000 }, own.url);
    const admin = new Redis(own.url);
    try {
      expect((await robots.resolve(site.origin)).kind).toBe('rules');
      expect(robots.stats().backendErrors).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await admin.exists(lockKey(keyPrefix, site.origin))).toBe(0);
      // Another process is not held up by a lock nobody fetches under.
      expect((await peer.resolve(site.origin)).kind).toBe('rules');
      expect(peer.stats().lockWaits).toBe(0);
    } finally {
      own.resume();
      admin.disconnect();
      await Promise.all([robots.close(), peer.close()]);
      await own.stop();
      await site.close();
    }
  }, 15_000);

  it('holds the lock it took when its reply was lost and ioredis sent the command again', async () => {
    // The connection drops after Redis took the lock and before its answer came back: ioredis
    // sends the command again on a new connection, which finds the lock taken, by this store.
    const relay = await cuttingRelay(redis.port, 'lock:');
    const [site] = await sites(1);
    const keyPrefix = prefix();
    const robots = store(keyPrefix, { lockTtlMs: 60_000 }, relay.url);
    const peer = store(keyPrefix, { lockTtlMs: 60_000 });
    try {
      const started = Date.now();
      const [own, other] = await Promise.all([
        robots.resolve(site.origin),
        new Promise((resolve) => setTimeout(resolve, 50)).then(() => peer.resolve(site.origin)),
      ]);
      expect(relay.cuts()).toBe(1);
      expect([own.kind, other.kind]).toEqual(['rules', 'rules']);
      // The store fetched under the lock it holds; the peer waited for it, not for the lock's TTL.
      expect(robots.stats()).toMatchObject({ fetches: 1, lockWaits: 0 });
      expect(site.hits('/robots.txt')).toBe(1);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await client.exists(lockKey(keyPrefix, site.origin))).toBe(0);
    } finally {
      await Promise.all([robots.close(), peer.close()]);
      await relay.close();
      await site.close();
    }
  }, 15_000);

  it('still releases a lock it held when Redis froze, without making the crawl wait for it', async () => {
    const own = await freezableRedis();
    const [slow] = await sites(1, 600);
    const [other] = await sites(1);
    const keyPrefix = prefix();
    const backend = new RedisBackend({
      url: own.url,
      keyPrefix,
      commandTimeoutMs: 200,
      connectTimeoutMs: 500,
    });
    const calls = countCalls(backend);
    // The lock outlives the test: only a release can remove it.
    const robots = store(keyPrefix, { backend, lockTtlMs: 60_000 });
    const admin = new Redis(own.url);
    const slowLock = lockKey(keyPrefix, slow.origin);
    try {
      const holding = robots.resolve(slow.origin);
      await eventually(async () => (await admin.exists(slowLock)) === 1);
      own.freeze();
      // Another origin's load times out: the breaker opens while the lock is held.
      await robots.resolve(other.origin);
      expect((await holding).kind).toBe('rules');
      // The release was sent, and nobody waited for the frozen Redis to answer it.
      expect(calls.releases).toEqual([{ settled: false }]);
      expect(calls.taken()).toEqual({ load: 3, lock: 1, save: 0, release: 1 });

      own.resume();
      await eventually(async () => (await admin.exists(slowLock)) === 0);
    } finally {
      own.resume();
      admin.disconnect();
      await robots.close();
      await own.stop();
      await Promise.all([slow.close(), other.close()]);
    }
  }, 15_000);
});
