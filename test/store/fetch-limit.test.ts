import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RobotsStore, type RobotsStoreOptions } from '../../src/store/index.js';
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

  /** `count` origins whose robots.txt answers after 100 ms; `peak()` is the most answered at once. */
  async function slowOrigins(count: number) {
    let running = 0;
    let peak = 0;
    const robots = (_request: IncomingMessage, response: ServerResponse) => {
      running++;
      peak = Math.max(peak, running);
      setTimeout(() => {
        running--;
        response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
      }, 100);
    };
    servers = await Promise.all(
      Array.from({ length: count }, () => startHttpServer({ '/robots.txt': robots })),
    );
    return { origins: servers.map((server) => server.origin), peak: () => peak };
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
