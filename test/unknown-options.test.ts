import { describe, expect, it } from 'vitest';
import {
  fetchRobotsTxt,
  GotScrapingRobotsClient,
  KeyValueStoreBackend,
  MemoryBackend,
  RedisBackend,
  RobotsGuard,
  RobotsStore,
  SitemapSeeder,
} from '../src/index.js';
import { captureLog } from './support/log.js';

// Every option below is given as a caller without types gives it: from a configuration file.
type Anything = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: the point is options the types would refuse
const loose = (options: Anything): any => options;

const USER_AGENT = 'ExampleBot/1.0';
const store = () => new RobotsStore({ userAgent: USER_AGENT, log: captureLog().log });

describe('an option that is not read is refused, not ignored', () => {
  it('RobotsStore names the option a misspelt key most likely means, whatever its case', () => {
    expect(() => new RobotsStore(loose({ userAgent: USER_AGENT, maxEntry: 5 }))).toThrow(
      new TypeError('RobotsStore has no option "maxEntry": did you mean maxEntries?'),
    );
    expect(() => new RobotsStore(loose({ userAgent: USER_AGENT, FetchTimeoutMS: 5 }))).toThrow(
      'did you mean fetchTimeoutMs?',
    );
    // The nearest name, not the first near one: maxBytes is one edit from maxByte, maxBytesInMemory far.
    expect(() => new RobotsStore(loose({ userAgent: USER_AGENT, maxByte: 5 }))).toThrow(
      'did you mean maxBytes?',
    );
  });

  it('RobotsStore lists its options when no name is near, and checks its groups of settings', () => {
    const error = (() => {
      try {
        new RobotsStore(loose({ userAgent: USER_AGENT, cacheSize: 5 }));
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.message).toMatch(
      /^RobotsStore has no option "cacheSize": its options are userAgent, .*maxEntries, /,
    );
    expect(() => new RobotsStore(loose({ userAgent: USER_AGENT, retry: { initialDelay: 5 } }))).toThrow(
      'RobotsStore option retry has no option "initialDelay": did you mean initialDelayMs?',
    );
    expect(() => new RobotsStore(loose({ userAgent: USER_AGENT, backendRetry: { max: 5 } }))).toThrow(
      'RobotsStore option backendRetry has no option "max": its options are initialDelayMs, maxDelayMs.',
    );
  });

  it('lets through a key whose value is undefined, as an option not given', () => {
    expect(() => new RobotsStore(loose({ userAgent: USER_AGENT, maxEntry: undefined }))).not.toThrow();
    expect(
      () => new RobotsGuard(loose({ productToken: 'ExampleBot', enqueueWhenUnreachable: undefined })),
    ).not.toThrow();
  });

  it('RobotsGuard, with its crawlDelay and unreachable settings', () => {
    expect(() => new RobotsGuard(loose({ productToken: 'ExampleBot', enqueueWaitMS: 5 }))).toThrow(
      new TypeError('RobotsGuard has no option "enqueueWaitMS": did you mean enqueueWaitMs?'),
    );
    // Options of the store given to the guard: they belong to a RobotsStore of one's own.
    expect(() => new RobotsGuard(loose({ productToken: 'ExampleBot', fetchTimeoutMs: 5 }))).toThrow(
      /^RobotsGuard has no option "fetchTimeoutMs": its options are productToken, userAgent, store, /,
    );
    expect(
      () => new RobotsGuard(loose({ productToken: 'ExampleBot', crawlDelay: { maxSecond: 5 } })),
    ).toThrow('RobotsGuard option crawlDelay has no option "maxSecond": did you mean maxSeconds?');
    expect(
      () => new RobotsGuard(loose({ productToken: 'ExampleBot', unreachable: { giveUpAfter: 5 } })),
    ).toThrow('RobotsGuard option unreachable has no option "giveUpAfter": did you mean giveUpAfterMs?');
  });

  it('RobotsGuard.seedFromSitemaps(), before anything is fetched', async () => {
    const guard = new RobotsGuard({ productToken: 'ExampleBot', store: store(), logSummary: false });
    let added = 0;
    const crawler = loose({
      addRequests: async () => {
        added++;
      },
    });
    await expect(
      guard.seedFromSitemaps(crawler, ['http://127.0.0.1:9/'], loose({ maxUrl: 5 })),
    ).rejects.toThrow('RobotsGuard.seedFromSitemaps() has no option "maxUrl": did you mean maxUrls?');
    // The two the guard takes for itself are said to be so, not silently replaced.
    // A keep of the caller's would have been replaced (overMax 'skip') or its drops recorded as
    // robots.txt's (reason crawl-delay-over-max): refused too.
    for (const taken of ['onDropped', 'enqueue', 'keep']) {
      await expect(
        guard.seedFromSitemaps(crawler, ['http://127.0.0.1:9/'], loose({ [taken]: () => {} })),
      ).rejects.toThrow(
        `RobotsGuard.seedFromSitemaps() has no option ${taken}: it queues through crawler.addRequests()`,
      );
    }
    expect(added).toBe(0);
  });

  it('SitemapSeeder and seed()', async () => {
    expect(() => new SitemapSeeder(loose({ store: store(), timeout: 5 }))).toThrow(
      'SitemapSeeder has no option "timeout": did you mean timeoutMs?',
    );
    expect(() => new SitemapSeeder(loose({ store: store(), ignoreTlsErrors: 'false' }))).toThrow(
      new TypeError('SitemapSeeder option ignoreTlsErrors must be true or false, got "false".'),
    );
    const seeder = new SitemapSeeder({ store: store() });
    await expect(
      seeder.seed(
        ['http://127.0.0.1:9/'],
        loose({ enqueue: async () => {}, enqueueWhenRobotsUnrechable: true }),
      ),
    ).rejects.toThrow(
      'seed() has no option "enqueueWhenRobotsUnrechable": did you mean enqueueWhenRobotsUnreachable?',
    );
  });

  it('the backends, the HTTP client and fetchRobotsTxt', async () => {
    expect(() => new MemoryBackend(loose({ maxEntry: 5 }))).toThrow(
      'MemoryBackend has no option "maxEntry": did you mean maxEntries?',
    );
    expect(() => new KeyValueStoreBackend(loose({ name: 'policies' }))).toThrow(
      'KeyValueStoreBackend has no option "name": its options are storeName, config, clock.',
    );
    // Refused before any connection is tried.
    expect(() => new RedisBackend(loose({ prefix: 'robots:' }))).toThrow(
      /^RedisBackend has no option "prefix": its options are url, redis, keyPrefix, /,
    );
    expect(() => new GotScrapingRobotsClient(loose({ ignoreSslErrors: false }))).toThrow(
      'GotScrapingRobotsClient has no option "ignoreSslErrors": did you mean ignoreTlsErrors?',
    );
    expect(() => new GotScrapingRobotsClient(loose({ http2: 'no' }))).toThrow(
      'GotScrapingRobotsClient option http2 must be true or false, got "no".',
    );
    await expect(
      fetchRobotsTxt('http://127.0.0.1:9/', loose({ userAgent: USER_AGENT, timeout: 5 })),
    ).rejects.toThrow('fetchRobotsTxt has no option "timeout": did you mean timeoutMs?');
  });
});
