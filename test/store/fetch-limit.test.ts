import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBackend, RobotsStore, type RobotsStoreOptions } from '../../src/store/index.js';
import { ConcurrencyLimit } from '../../src/store/limit.js';
import { startHttpServer, type TestHttpServer } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

const USER_AGENT = 'ExampleBot/1.0';

describe('RobotsStore maxConcurrentFetches', () => {
  let servers: TestHttpServer[] = [];
  let stores: RobotsStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
    stores = [];
  });

  /**
   * `count` origins whose robots.txt answers after `delayMs`; `peak()` is the most answered at
   * once, `requested()` how many were asked for.
   */
  async function slowOrigins(count: number, delayMs = 100) {
    let running = 0;
    let peak = 0;
    let requested = 0;
    const robots = (_request: IncomingMessage, response: ServerResponse) => {
      running++;
      requested++;
      peak = Math.max(peak, running);
      setTimeout(() => {
        running--;
        response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
      }, delayMs);
    };
    servers = await Promise.all(
      Array.from({ length: count }, () => startHttpServer({ '/robots.txt': robots })),
    );
    return { origins: servers.map((server) => server.origin), peak: () => peak, requested: () => requested };
  }

  function store(options: Partial<RobotsStoreOptions> = {}): RobotsStore {
    const made = new RobotsStore({ userAgent: USER_AGENT, log: captureLog().log, ...options });
    stores.push(made);
    return made;
  }

  it('fetches at most that many robots.txt at a time, and every origin in turn', async () => {
    const { origins, peak } = await slowOrigins(12);
    const limited = store({ maxConcurrentFetches: 3 });
    const checks = await Promise.all(origins.map((origin) => limited.check(`${origin}/private/x`)));
    expect(peak()).toBe(3);
    for (const check of checks)
      expect(check).toMatchObject({ allowed: false, status: 200, policyKind: 'rules' });
    for (const server of servers) expect(server.hits('/robots.txt')).toBe(1);
  });

  it('lets 64 run at once by default', async () => {
    const { origins, peak } = await slowOrigins(12);
    const unlimited = store();
    await Promise.all(origins.map((origin) => unlimited.check(`${origin}/`)));
    expect(peak()).toBe(12);
  });

  it('sends none of the fetches still waiting for a turn when the store is closed', async () => {
    const { origins, requested } = await slowOrigins(5, 200);
    const limited = store({ maxConcurrentFetches: 1 });
    const checks = origins.map((origin) =>
      limited.check(`${origin}/x`).then(
        (check) => check.status,
        (error: Error) => error.message,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await limited.close();
    // The one running ends; the four waiting are not sent, and say why.
    expect(await Promise.all(checks)).toEqual([
      200,
      ...origins
        .slice(1)
        .map(
          (origin) =>
            `This RobotsStore was closed while a check waited for a turn to fetch ${origin}/robots.txt (maxConcurrentFetches were under way); it was not fetched.`,
        ),
    ]);
    expect(requested()).toBe(1);
  });

  it('takes the fleet-wide fetch lock of an origin only once its turn has come', async () => {
    // Two stores of a fleet share a backend. Taken while its fetch waited for a turn, the lock of
    // the last origin expired before A fetched it: B took it and fetched the file too.
    const { origins } = await slowOrigins(4, 300);
    const backend = new MemoryBackend();
    const a = store({ backend, maxConcurrentFetches: 1, lockTtlMs: 700, lockPollMs: 20 });
    const b = store({ backend, lockTtlMs: 700, lockPollMs: 20 });
    const fromA = Promise.all(origins.map((origin) => a.check(`${origin}/x`)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fromB = await b.check(`${origins[3]}/x`);
    expect(fromB).toMatchObject({ status: 200, allowed: true });
    await fromA;
    for (const server of servers) expect(server.hits('/robots.txt')).toBe(1);
  });

  it('takes a whole number from 1', () => {
    for (const value of [0, 1.5, 100_001]) {
      expect(() => store({ maxConcurrentFetches: value })).toThrow(
        `RobotsStore option maxConcurrentFetches must be a whole number from 1 to 100000, got ${value}.`,
      );
    }
  });
});

describe('ConcurrencyLimit', () => {
  it('runs a long queue in order of arrival, never more at a time than its limit, and goes on after a rejection', async () => {
    const limit = new ConcurrencyLimit(2);
    const order: number[] = [];
    let running = 0;
    let peak = 0;
    const runs = Array.from({ length: 3000 }, (_, i) =>
      limit
        .run(async () => {
          running++;
          peak = Math.max(peak, running);
          await Promise.resolve();
          order.push(i);
          running--;
          if (i % 500 === 0) throw new Error(`task ${i}`);
          return i;
        })
        .catch((error: Error) => error.message),
    );
    expect(limit.waiting).toBe(2998);
    const results = await Promise.all(runs);
    expect(peak).toBe(2);
    expect(order).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(results[500]).toBe('task 500');
    expect(results[2999]).toBe(2999);
    expect(limit.waiting).toBe(0);
  });
});

describe('ConcurrencyLimit.acquire', () => {
  it('ends a turn once, however often its end is called', async () => {
    const limit = new ConcurrencyLimit(1);
    const end = await limit.acquire();
    end();
    end();
    const first = await limit.acquire();
    let second = false;
    const waiting = limit.acquire().then(() => {
      second = true;
    });
    expect(limit.waiting).toBe(1);
    first();
    await waiting;
    expect(second).toBe(true);
  });
});
