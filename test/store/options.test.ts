import { Configuration } from 'crawlee';
import { describe, expect, it } from 'vitest';
import {
  KeyValueStoreBackend,
  MemoryBackend,
  RedisBackend,
  RobotsStore,
  type RobotsStoreOptions,
} from '../../src/store/index.js';
import { captureLog } from '../support/log.js';

const USER_AGENT = 'ExampleBot/1.0';

/** Options given as a caller without types might give them. */
type Loose<T> = { [K in keyof T]?: unknown };

function robotsStore(options: Loose<RobotsStoreOptions>): RobotsStore {
  return new RobotsStore({ userAgent: USER_AGENT, log: captureLog().log, ...options } as RobotsStoreOptions);
}

describe('RobotsStore options', () => {
  it('warns when the fetch lock of a shared backend may expire before the fetch it guards', () => {
    const short = captureLog();
    new RobotsStore({ userAgent: USER_AGENT, log: short.log, backend: new MemoryBackend(), lockTtlMs: 500 });
    expect(short.warnings()).toEqual([
      'lockTtlMs 500 is shorter than fetchTimeoutMs 30000: a robots.txt slower than the lock is fetched by other processes too, not once for all.',
    ]);
    // No lock without a backend that has one; and a lock that outlasts the fetch.
    const none = captureLog();
    new RobotsStore({ userAgent: USER_AGENT, log: none.log, lockTtlMs: 500 });
    new RobotsStore({
      userAgent: USER_AGENT,
      log: none.log,
      backend: new MemoryBackend(),
      lockTtlMs: 500,
      fetchTimeoutMs: 400,
    });
    expect(none.warnings()).toEqual([]);
  });

  it('refuses a timeout a Node timer cannot hold, which would fire after 1 ms', () => {
    // The fetcher arms its deadlines a little after the timeout: the bound leaves room for that.
    for (const name of ['fetchTimeoutMs', 'connectTimeoutMs']) {
      expect(() => robotsStore({ [name]: 3e9 })).toThrow(
        `RobotsStore option ${name} must be a number of milliseconds more than 0 and at most 2147483147, got 3000000000.`,
      );
      expect(() => robotsStore({ [name]: 2 ** 31 - 1 })).toThrow(RangeError);
      expect(() => robotsStore({ [name]: 2 ** 31 - 501 })).not.toThrow();
    }
  });

  it('bounds every duration to what a timer holds, and refuses non-numbers with a TypeError', () => {
    const timers = ['lockTtlMs', 'lockWaitMs', 'lockPollMs'] as const;
    for (const name of timers) {
      expect(() => robotsStore({ [name]: 2 ** 31 })).toThrow(
        new RegExp(`option ${name} must be .* 2147483647, got 2147483648`),
      );
    }
    // Lifetimes and backoffs are compared with the clock, never timers: a century at most
    // (maxAgeMs is then cut to 24 hours, and minAgeMs may not pass it: see below).
    const spans = ['maxAgeMs', 'minAgeMs', 'keepExpiredMs'] as const;
    const century = 100 * 365 * 86_400_000;
    for (const name of ['maxAgeMs', 'keepExpiredMs'] as const) {
      expect(() => robotsStore({ [name]: 30 * 86_400_000 })).not.toThrow();
    }
    for (const name of spans) {
      expect(() => robotsStore({ [name]: century + 1 })).toThrow(new RegExp(`option ${name} must be`));
    }
    expect(() => robotsStore({ retry: { maxDelayMs: 30 * 86_400_000 } })).not.toThrow();
    expect(() => robotsStore({ retry: { maxDelayMs: century + 1 } })).toThrow(/retry\.maxDelayMs/);
    for (const name of [...timers, ...spans]) {
      expect(() => robotsStore({ [name]: Number.NaN })).toThrow(RangeError);
      expect(() => robotsStore({ [name]: '1000' })).toThrow(TypeError);
      expect(() => robotsStore({ [name]: '1000' })).toThrow(`option ${name} must be`);
    }
    expect(() => robotsStore({ backendRetry: { initialDelayMs: 0 } })).toThrow(
      /backendRetry\.initialDelayMs/,
    );
    expect(() => robotsStore({ lockWaitMs: 0, minAgeMs: 0, keepExpiredMs: 0 })).not.toThrow();
  });

  it('refuses a first retry later than the longest wait between retries, which would be cut to it', () => {
    expect(() => robotsStore({ retry: { initialDelayMs: 10_000, maxDelayMs: 1000 } })).toThrow(
      new RangeError(
        'RobotsStore option retry.initialDelayMs must be at most retry.maxDelayMs (1000), got 10000.',
      ),
    );
    expect(() => robotsStore({ backendRetry: { initialDelayMs: 120_000 } })).toThrow(
      /backendRetry\.initialDelayMs must be at most backendRetry\.maxDelayMs \(60000\), got 120000/,
    );
    expect(() => robotsStore({ retry: { initialDelayMs: 1000, maxDelayMs: 1000 } })).not.toThrow();
    // A shorter longest wait alone lowers the default first one.
    expect(() => robotsStore({ retry: { maxDelayMs: 1000 } })).not.toThrow();
  });

  it('takes sizes and counts as whole numbers within what their users can hold', () => {
    expect(() => robotsStore({ maxBytes: 0.5 })).toThrow(
      'RobotsStore option maxBytes must be a whole number of bytes from 1 to 1073741824, got 0.5.',
    );
    expect(() => robotsStore({ maxBytes: 0 })).toThrow(RangeError);
    expect(() => robotsStore({ maxRedirects: 2.5 })).toThrow(
      /option maxRedirects must be a whole number from 0/,
    );
    expect(() => robotsStore({ maxRedirects: 0 })).not.toThrow();
    // lru-cache allocates its tables for maxEntries up front.
    expect(() => robotsStore({ maxEntries: 1.5 })).toThrow(
      /option maxEntries must be a whole number from 1 to 10000000/,
    );
    expect(() => robotsStore({ maxEntries: 1e10 })).toThrow(RangeError);
    expect(() => robotsStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => robotsStore({ maxBytesInMemory: 0.5 })).toThrow(
      /option maxBytesInMemory must be a whole number/,
    );
    expect(() => robotsStore({ clock: 5 })).toThrow('RobotsStore option clock must be a function, got 5.');
    // A clock that gives no time would make every check fetch robots.txt again.
    expect(() => robotsStore({ clock: () => Number.NaN })).toThrow(
      'RobotsStore option clock must return milliseconds as a finite number, got NaN.',
    );
    expect(() => robotsStore({ clock: () => '1700000000000' })).toThrow(
      'RobotsStore option clock must return milliseconds as a finite number, got "1700000000000".',
    );
  });

  it('refuses a minAgeMs over 24 hours or over maxAgeMs, which the store could not honour', () => {
    // RFC 9309 2.4: no copy is used for more than 24 hours.
    expect(() => robotsStore({ minAgeMs: 2 * 86_400_000 })).toThrow(
      'RobotsStore option minAgeMs must be a number of milliseconds from 0 to 86400000, got 172800000.',
    );
    expect(() => robotsStore({ minAgeMs: 2 * 86_400_000 })).toThrow(RangeError);
    expect(() => robotsStore({ maxAgeMs: 3_600_000, minAgeMs: 7_200_000 })).toThrow(
      'RobotsStore option minAgeMs must be at most maxAgeMs (3600000), got 7200000',
    );
    expect(() => robotsStore({ minAgeMs: 86_400_000 })).not.toThrow();
    // The default minAgeMs gives way to a shorter maxAgeMs.
    expect(() => robotsStore({ maxAgeMs: 1000 })).not.toThrow();
  });

  it('refuses a productToken that names no product token, which would match the * group alone, silently', () => {
    for (const productToken of ['', '   ', 'Example Bot', '/1.0', 5]) {
      expect(() => robotsStore({ productToken })).toThrow(TypeError);
      expect(() => robotsStore({ productToken })).toThrow(
        /^RobotsStore option productToken must name a product token \(RFC 9309 2\.2\.1: letters, "-" and "_", such as "ExampleBot", alone or in a User-Agent header\) or be "\*" for the \* group alone, got /,
      );
    }
    expect(robotsStore({ productToken: 'ExampleBot' }).productToken).toBe('examplebot');
    expect(robotsStore({ productToken: 'Mozilla/5.0 (compatible; ExampleBot/1.0)' }).productToken).toBe(
      'examplebot',
    );
    // Asked for on purpose, the * group alone is fine.
    expect(robotsStore({ productToken: '*' }).productToken).toBe('*');
  });

  it('refuses a User-Agent that names no product token when no productToken is given, saying how to fix it', () => {
    for (const userAgent of ['é-Bot/1.0', 'Example Bot', '*']) {
      expect(() => robotsStore({ userAgent })).toThrow(TypeError);
      expect(() => robotsStore({ userAgent })).toThrow(
        `RobotsStore option userAgent must name a product token (RFC 9309 2.2.1: letters, "-" and "_", such as "ExampleBot", alone or in a User-Agent header), got ${JSON.stringify(userAgent)}. Put the crawler's name in it ("ExampleBot/1.0 (+https://example.com/bot)"), or give the productToken option ({ productToken: "ExampleBot" }).`,
      );
    }
    expect(robotsStore({ userAgent: 'é-Bot/1.0', productToken: 'ExampleBot' }).productToken).toBe(
      'examplebot',
    );
  });

  it('refuses a client, backend, logger or group of settings of the wrong type when it is made', () => {
    const cases: [Loose<RobotsStoreOptions>, string][] = [
      [
        { httpClient: 5 },
        'RobotsStore option httpClient must be a RobotsHttpClient (an object with a request() method), got 5.',
      ],
      [
        { httpClient: {} },
        'option httpClient must be a RobotsHttpClient (an object with a request() method), got an object without request().',
      ],
      [
        { backend: {} },
        'RobotsStore option backend must be a RobotsStoreBackend (new MemoryBackend(), new KeyValueStoreBackend() or new RedisBackend()), got an object without load(), save() and close().',
      ],
      [{ backend: 5 }, 'RobotsStore option backend must be a RobotsStoreBackend'],
      [
        { backend: { name: 'x', load() {}, save() {}, close() {}, lock: true } },
        'option backend must be a RobotsStoreBackend (new MemoryBackend(), new KeyValueStoreBackend() or new RedisBackend()), got an object without lock().',
      ],
      [
        { retry: 5 },
        'RobotsStore option retry must be an object such as { initialDelayMs: 60000, maxDelayMs: 3600000 }, got 5.',
      ],
      [{ retry: null }, 'RobotsStore option retry must be an object'],
      [
        { backendRetry: 'fast' },
        'RobotsStore option backendRetry must be an object such as { initialDelayMs: 5000, maxDelayMs: 60000 }, got "fast".',
      ],
      [{ log: 5 }, "RobotsStore option log must be a Crawlee Log (`log` from 'crawlee'), got 5."],
    ];
    for (const [options, message] of cases) {
      expect(() => robotsStore(options), JSON.stringify(options)).toThrow(TypeError);
      expect(() => robotsStore(options), JSON.stringify(options)).toThrow(message);
    }
    expect(() => robotsStore({ backend: new MemoryBackend(), retry: {}, backendRetry: {} })).not.toThrow();
  });

  it('bounds unreachableGraceDays so that every retention time is a whole number Redis accepts', () => {
    expect(() => robotsStore({ unreachableGraceDays: 1e12 })).toThrow(
      'RobotsStore option unreachableGraceDays must be a number of days from 0 to 36500, got 1000000000000.',
    );
    expect(() => robotsStore({ unreachableGraceDays: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(() => robotsStore({ unreachableGraceDays: 36_500 })).not.toThrow();
    expect(() => robotsStore({ unreachableGraceDays: 0.5 })).not.toThrow();
  });
});

describe('backend options', () => {
  it('RedisBackend refuses a maxInFlight under 1, with which no command would ever start', () => {
    for (const maxInFlight of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new RedisBackend({ maxInFlight })).toThrow(
        `RedisBackend option maxInFlight must be a whole number from 1 to 9007199254740991, got ${maxInFlight}.`,
      );
    }
    expect(() => new RedisBackend({ maxInFlight: '8' as unknown as number })).toThrow(TypeError);
  });

  it('RedisBackend refuses timeouts a timer cannot hold, and options of the wrong type', () => {
    for (const name of ['commandTimeoutMs', 'connectTimeoutMs'] as const) {
      for (const value of [0, -5, Number.POSITIVE_INFINITY, 3e9]) {
        expect(() => new RedisBackend({ [name]: value })).toThrow(
          `RedisBackend option ${name} must be a number of milliseconds more than 0 and at most 2147483647, got ${value}.`,
        );
      }
    }
    expect(() => new RedisBackend({ keyPrefix: 5 as unknown as string })).toThrow(
      'RedisBackend option keyPrefix must be a string, got 5.',
    );
    expect(() => new RedisBackend({ url: '' })).toThrow(/option url must be a non-empty string/);
    expect(() => new RedisBackend({ redis: 'redis://x' as never })).toThrow(
      /option redis must be an ioredis client/,
    );
  });

  it('RedisBackend refuses a redis option that is no ioredis client, and a url that is no Redis URL, naming the option', async () => {
    expect(() => new RedisBackend({ redis: {} as never })).toThrow(
      'RedisBackend option redis must be an ioredis client (new Redis(...)), got an object without on() and defineCommand().',
    );
    expect(() => new RedisBackend({ url: 'not a url' })).toThrow(
      'RedisBackend option url must be a Redis URL such as "redis://127.0.0.1:6379/0" (rediss:// for TLS), got "not a url": Invalid URL.',
    );
    // ioredis would take the scheme for a host name, and connect to `http`.
    expect(() => new RedisBackend({ url: 'http://127.0.0.1:6379' })).toThrow(
      'RedisBackend option url must be a Redis URL such as "redis://127.0.0.1:6379/0" (rediss:// for TLS), got "http://127.0.0.1:6379": http:// is not Redis.',
    );
    // A password in the URL is not quoted.
    expect(() => new RedisBackend({ url: 'http://user:secret@127.0.0.1:6379' })).toThrow(
      'got "http://127.0.0.1:6379": http:// is not Redis.',
    );
    // ioredis would send SELECT NaN, and its error would reach no one: the process would crash.
    for (const url of [
      'redis://127.0.0.1:6379/abc',
      'redis://127.0.0.1:6379/-1',
      'redis://127.0.0.1:6379/1.5',
      'redis://127.0.0.1:6379?db=abc',
      'redis://127.0.0.1:6379/?db=1.5',
      '//127.0.0.1:6379/abc',
      '127.0.0.1:6379?db=x',
      '/tmp/redis.sock?db=x',
    ]) {
      expect(() => new RedisBackend({ url })).toThrow(
        `RedisBackend option url must be a Redis URL such as "redis://127.0.0.1:6379/0" (rediss:// for TLS), got ${JSON.stringify(url)}: the database (after the port, or ?db=) must be a whole number (0 to 15 on a default server).`,
      );
    }
    for (const url of [
      'redis://127.0.0.1:6379/3',
      'redis://127.0.0.1:6379?db=3',
      '/tmp/redis.sock?db=2',
      '127.0.0.1:6379',
    ]) {
      await new RedisBackend({ url, connectTimeoutMs: 100 }).close();
    }
    for (const options of [null, 'redis://127.0.0.1:6379', ['redis://127.0.0.1:6379']]) {
      expect(() => new RedisBackend(options as never)).toThrow(
        /^RedisBackend options must be an object, got (null|"redis:\/\/127\.0\.0\.1:6379"|an array)\.$/,
      );
    }
    for (const url of ['redis://127.0.0.1:1/0', 'rediss://127.0.0.1:1', '127.0.0.1:1']) {
      const backend = new RedisBackend({ url, connectTimeoutMs: 100 });
      await backend.close();
    }
  });

  it('KeyValueStoreBackend refuses a storeName or clock of the wrong type', () => {
    expect(() => new KeyValueStoreBackend({ storeName: '' })).toThrow(
      'KeyValueStoreBackend option storeName must be a non-empty string, got "".',
    );
    expect(() => new KeyValueStoreBackend({ clock: Date.now() as never })).toThrow(
      /option clock must be a function/,
    );
    expect(() => new KeyValueStoreBackend({ clock: () => Number.POSITIVE_INFINITY })).toThrow(
      'KeyValueStoreBackend option clock must return milliseconds as a finite number, got Infinity.',
    );
    expect(() => new MemoryBackend({ clock: () => Number.NaN })).toThrow(
      'MemoryBackend option clock must return milliseconds as a finite number, got NaN.',
    );
    expect(() => new KeyValueStoreBackend({ config: 'default' as never })).toThrow(/option config/);
    // Crawlee itself would refuse it only on the first load, which the store takes for a backend outage.
    expect(() => new KeyValueStoreBackend({ config: { storageClient: 'nope' } as never })).toThrow(
      'KeyValueStoreBackend option config must be a Crawlee Configuration (new Configuration({ ... }) or Configuration.getGlobalConfig()), got an object.',
    );
    expect(() => new KeyValueStoreBackend({ config: new Configuration() })).not.toThrow();
    expect(() => new KeyValueStoreBackend({ storeName: 'robots' })).not.toThrow();
  });

  it('KeyValueStoreBackend refuses a storeName that is not one plain directory name, when it is made', () => {
    // Crawlee refused these only on the first load or save: the store went on without its backend.
    for (const storeName of ['../escaped', 'a/b', 'a\\b', '..', 'x'.repeat(201), 'name with spaces']) {
      expect(() => new KeyValueStoreBackend({ storeName })).toThrow(RangeError);
    }
    expect(() => new KeyValueStoreBackend({ storeName: '../escaped' })).toThrow(
      'KeyValueStoreBackend storeName must be 1 to 200 letters, digits, ".", "_" or "-", got "../escaped".',
    );
    for (const storeName of ['robots-policies', 'crawl_2026.12', 'x'.repeat(200)]) {
      expect(() => new KeyValueStoreBackend({ storeName })).not.toThrow();
    }
  });

  it('MemoryBackend refuses a maxEntries or maxBytes that is not a whole number of 1 or more', () => {
    for (const maxEntries of [0, Number.NaN, 2.5, -1, 1e10]) {
      expect(() => new MemoryBackend({ maxEntries })).toThrow(
        `MemoryBackend option maxEntries must be a whole number from 1 to 10000000, got ${maxEntries}.`,
      );
    }
    for (const maxBytes of [0, Number.NaN, 0.5]) {
      expect(() => new MemoryBackend({ maxBytes })).toThrow(
        /MemoryBackend option maxBytes must be a whole number of bytes/,
      );
    }
    expect(() => new MemoryBackend({ maxEntries: 1, maxBytes: 1 })).not.toThrow();
  });
});
