import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CheerioCrawler, LogLevel, log } from 'crawlee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotsGuard } from '../../src/crawlee/index.js';
import { RobotsStore } from '../../src/store/index.js';
import { freshConfiguration, page, TOKEN, USER_AGENT } from '../support/crawlee-site.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
log.setLevel(LogLevel.OFF);

let site: TestHttpServer;
beforeAll(async () => {
  site = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /private/\n') });
  site.route('/a', page('a'));
});
afterAll(() => site.close());

describe('RobotsGuard attached to crawler after crawler', () => {
  it.each([
    ['a store given', true],
    ['a store of its own', false],
  ])(
    'lets each crawler go once it is done with, with its storage (%s)',
    async (_, given) => {
      const store = given ? new RobotsStore({ userAgent: USER_AGENT }) : undefined;
      const guard = new RobotsGuard({
        productToken: TOKEN,
        userAgent: USER_AGENT,
        logSummary: false,
        ...(store === undefined ? {} : { store }),
      });
      // In a function of its own: a variable of this one would keep the last crawler alive.
      const crawlOnce = async (i: number): Promise<WeakRef<object>> => {
        const crawler = new CheerioCrawler({ requestHandler() {} }, freshConfiguration());
        guard.attach(crawler);
        await crawler.run([`${site.origin}/a`, `${site.origin}/private/${i}`]);
        return new WeakRef(crawler);
      };
      const gone: WeakRef<object>[] = [];
      for (let i = 0; i < 3; i++) gone.push(await crawlOnce(i));
      // A run's sockets and timers hold its crawler a few seconds after it ends, with or without a guard.
      const deadline = Date.now() + 20_000;
      while (gone.some((ref) => ref.deref() !== undefined) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        gc();
      }
      expect(gone.map((ref) => ref.deref() === undefined)).toEqual([true, true, true]);
      // What the guard counted stays.
      expect(guard.summary().totals).toMatchObject({ allowed: 3, dropped: 3 });
      await store?.close();
    },
    40_000,
  );

  it('keeps nothing of the requests it deferred once they are decided', async () => {
    const down = await startHttpServer({ '/robots.txt': text('down', 503) });
    const store = new RobotsStore({ userAgent: USER_AGENT, retry: { initialDelayMs: 200, maxDelayMs: 400 } });
    const guard = new RobotsGuard({
      productToken: TOKEN,
      userAgent: USER_AGENT,
      store,
      logSummary: false,
      unreachable: { giveUpAfterMs: 1500, minRecheckDelayMs: 1000, maxRecheckDelayMs: 1000 },
    });
    // Each job defers most of 1,500 URLs of 4 KB, then gives them up (each run waits anew).
    const padding = 'x'.repeat(4000);
    const job = async (j: number): Promise<number> => {
      const crawler = new CheerioCrawler({ maxConcurrency: 5, requestHandler() {} }, freshConfiguration());
      guard.attach(crawler);
      await crawler.run(Array.from({ length: 1500 }, (_, i) => `${down.origin}/${j}-${i}-${padding}`));
      await new Promise((resolve) => setTimeout(resolve, 200));
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    try {
      await job(0);
      const after1 = await job(1);
      const deferredBefore = guard.summary().totals.deferred;
      const after3 = await job(2).then(() => job(3));
      const { deferred, givenUp } = guard.summary().totals;
      expect(givenUp).toBe(6000);
      // Kept, the keys of the URLs deferred in the last two jobs would take more than 4 MB.
      expect(deferred - deferredBefore).toBeGreaterThan(1000);
      expect(after3 - after1).toBeLessThan(2 * 1024 * 1024);
    } finally {
      await store.close();
      await down.close();
    }
  }, 60_000);
});
