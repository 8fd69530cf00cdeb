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
  it('refuses a timeout a Node timer cannot hold, which would fire after 1 ms', () => {
    // The fetcher arms its deadlines a little after the timeout: the bound leaves room for that.
    for (const name of ['fetchTimeoutMs', 'connectTimeoutMs']) {
      expect(() => robotsStore({ [name]: 3e9 })).toThrow(
        `RobotsStore option ${name} must be a number of milliseconds more than 0 and at most 2147482647, got 3000000000.`,
      );
      expect(() => robotsStore({ [name]: 2 ** 31 - 1 })).toThrow(RangeError);
      expect(() => robotsStore({ [name]: 2 ** 31 - 1001 })).not.toThrow();
    }
  });

  it('bounds every duration to what a timer holds, and refuses non-numbers with a TypeError', () => {
    const timers = ['lockTtlMs', 'lockWaitMs', 'lockPollMs'] as const;
    for (const name of timers) {
      expect(() => robotsStore({ [name]: 2 ** 31 })).toThrow(
        new RegExp(`option ${name} must be .* 2147483647, got 2147483648`),
      );
    }
    // Lifetimes and backoffs are compared with the clock, never timers: a century at most.
    const spans = ['maxAgeMs', 'minAgeMs', 'keepExpiredMs'] as const;
    const century = 100 * 365 * 86_400_000;
    for (const name of spans) {
      expect(() => robotsStore({ [name]: 30 * 86_400_000 })).not.toThrow();
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

  it('KeyValueStoreBackend refuses a storeName or clock of the wrong type', () => {
    expect(() => new KeyValueStoreBackend({ storeName: '' })).toThrow(
      'KeyValueStoreBackend option storeName must be a non-empty string, got "".',
    );
    expect(() => new KeyValueStoreBackend({ clock: Date.now() as never })).toThrow(
      /option clock must be a function/,
    );
    expect(() => new KeyValueStoreBackend({ config: 'default' as never })).toThrow(/option config/);
    expect(() => new KeyValueStoreBackend({ storeName: 'robots' })).not.toThrow();
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
