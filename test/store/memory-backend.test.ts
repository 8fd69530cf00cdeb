import { describe, expect, it } from 'vitest';
import { MemoryBackend, RobotsStore } from '../../src/store/index.js';
import { captureLog } from '../support/log.js';
import { backendScope, policyRecord } from './records.js';

const KIB = 1024;
const SCOPE = backendScope('ExampleBot/1.0');

/** A stored rules policy for `origin` with a body of `bodyBytes` octets. */
function policyWithBody(origin: string, bodyBytes: number) {
  const record = policyRecord(origin, Date.UTC(2026, 0, 1), { kind: 'rules', status: 200 });
  return { record, body: new Uint8Array(bodyBytes).fill(0x41) };
}

describe('MemoryBackend', () => {
  it('keeps at most maxBytes of records, counting bodies, dropping the least recently used', async () => {
    const backend = new MemoryBackend({ maxBytes: 1024 * KIB });
    const origins = Array.from({ length: 30 }, (_, index) => `https://site-${index}.example`);
    // 30 bodies of 100 KiB: three times the bound.
    for (const origin of origins.slice(0, 5))
      await backend.save(origin, policyWithBody(origin, 100 * KIB), 60_000, SCOPE);
    // The first origin is read again: it is the most recently used from now on.
    expect(await backend.load(origins[0], SCOPE)).toBeDefined();
    for (const origin of origins.slice(5))
      await backend.save(origin, policyWithBody(origin, 100 * KIB), 60_000, SCOPE);

    const { entries, bytes } = backend.stats();
    expect(bytes).toBeLessThanOrEqual(1024 * KIB);
    expect(bytes).toBeGreaterThan(entries * 100 * KIB);
    expect(entries).toBeLessThanOrEqual(10);
    expect(await backend.load(origins[1], SCOPE)).toBeUndefined();
    expect(await backend.load(origins[29], SCOPE)).toBeDefined();
  });

  it('does not keep a record larger than maxBytes', async () => {
    const backend = new MemoryBackend({ maxBytes: 64 * KIB });
    const origin = 'https://big.example';
    await backend.save(origin, policyWithBody(origin, 100 * KIB), 60_000, SCOPE);
    expect(await backend.load(origin, SCOPE)).toBeUndefined();
    expect(backend.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it('bounds memory by 256 MiB by default', async () => {
    const backend = new MemoryBackend({ maxEntries: 10_000 });
    const body = new Uint8Array(500 * KIB);
    // 600 bodies of 500 KiB (293 MiB), each its own origin.
    for (let index = 0; index < 600; index++) {
      const origin = `https://site-${index}.example`;
      await backend.save(origin, { record: policyWithBody(origin, 0).record, body }, 60_000, SCOPE);
    }
    expect(backend.stats().bytes).toBeLessThanOrEqual(256 * 1024 * KIB);
    expect(backend.stats().entries).toBeLessThan(600);
  });

  it('replaces a record fetched by a clock far ahead, as the Redis backend does, rather than keep it until the clocks catch up', async () => {
    const now = Date.UTC(2026, 0, 1);
    const backend = new MemoryBackend({ clock: () => now });
    const origin = 'https://a.example';
    const saved = (fetchedAt: number) => ({ record: policyRecord(origin, fetchedAt), body: null });
    // Ten minutes ahead: past the tolerance (CLOCK_SKEW_TOLERANCE_MS), it fences nobody.
    await backend.save(origin, saved(now + 10 * 60_000), 60_000, SCOPE);
    await backend.save(origin, saved(now), 60_000, SCOPE);
    expect((await backend.load(origin, SCOPE))?.record.fetchedAt).toBe(now);
    // Thirty seconds ahead: within it, the newer record still wins over an older one.
    await backend.save(origin, saved(now + 30_000), 60_000, SCOPE);
    await backend.save(origin, saved(now - 1000), 60_000, SCOPE);
    expect((await backend.load(origin, SCOPE))?.record.fetchedAt).toBe(now + 30_000);
  });

  it('keeps the records and locks of each User-Agent apart', async () => {
    const backend = new MemoryBackend();
    const other = backendScope('OtherBot/2.0');
    const origin = 'https://a.example';
    await backend.save(origin, policyWithBody(origin, 10), 60_000, SCOPE);
    expect(await backend.load(origin, other)).toBeUndefined();
    expect(await backend.load(origin, backendScope('ExampleBot/1.0'))).toBeDefined();
    const held = await backend.lock(origin, 60_000, SCOPE);
    expect(held).toBeDefined();
    expect(await backend.lock(origin, 60_000, other)).toBeDefined();
    expect(await backend.lock(origin, 60_000, SCOPE)).toBeUndefined();
  });

  it('gives the Crawl-delay turn of an origin to one claim per spacing, per crawler and origin', async () => {
    let now = 1_000_000;
    const backend = new MemoryBackend({ clock: () => now });
    const origin = 'https://a.example';
    expect(await backend.claimTurn(origin, 'examplebot', 1000)).toBe(0);
    now += 400;
    expect(await backend.claimTurn(origin, 'examplebot', 1000)).toBe(600);
    expect(await backend.claimTurn(origin, 'otherbot', 1000)).toBe(0);
    expect(await backend.claimTurn('https://b.example', 'examplebot', 1000)).toBe(0);
    now += 600;
    expect(await backend.claimTurn(origin, 'examplebot', 1000)).toBe(0);
    // A turn claimed by a clock that was set back since holds no one for longer than its spacing.
    now -= 60_000;
    expect(await backend.claimTurn(origin, 'examplebot', 1000)).toBe(0);
  });

  it('frees each turn a spacing after it was claimed, among thousands, through the sweeps of old ones', async () => {
    let now = 0;
    const backend = new MemoryBackend({ clock: () => now });
    for (let i = 0; i < 5000; i++) await backend.claimTurn(`https://s${i}.example`, 'examplebot', 1000);
    now = 2000;
    expect(await backend.claimTurn('https://new.example', 'examplebot', 1000)).toBe(0);
    expect(await backend.claimTurn('https://s1.example', 'examplebot', 1000)).toBe(0);
    now = 2500;
    expect(await backend.claimTurn('https://s1.example', 'examplebot', 1000)).toBe(500);
  });
});

describe('RobotsStore.claimTurn', () => {
  const quiet = () => captureLog().log;

  it('shares the turns of stores on one MemoryBackend; a store without a backend has none', async () => {
    const backend = new MemoryBackend();
    const one = new RobotsStore({ userAgent: 'ExampleBot/1.0', backend, log: quiet() });
    const two = new RobotsStore({ userAgent: 'ExampleBot/2.0', backend, log: quiet() });
    const alone = new RobotsStore({ userAgent: 'ExampleBot/1.0', log: quiet() });
    try {
      expect([one.sharesTurns, alone.sharesTurns]).toEqual([true, false]);
      expect(await one.claimTurn('https://a.example/x', 'ExampleBot', 5000)).toBe(0);
      expect(await two.claimTurn(new URL('https://a.example/y?q'), 'examplebot', 5000)).toBeGreaterThan(4000);
      expect(await alone.claimTurn('https://a.example/x', 'ExampleBot', 5000)).toBeUndefined();
    } finally {
      await Promise.all([one.close(), two.close(), alone.close()]);
    }
  });

  it("takes a backend's answer that is no wait as no turn, and waits a spacing at most", async () => {
    const answers: unknown[] = [1e12, Number.NaN, -1, '5', undefined];
    const backend = new MemoryBackend();
    Object.assign(backend, { claimTurn: async () => answers.shift() });
    const { log, warnings } = captureLog();
    const store = new RobotsStore({ userAgent: 'ExampleBot/1.0', backend, log });
    try {
      const claims = [];
      for (let i = 0; i < 5; i++) claims.push(await store.claimTurn('https://a.example', 'ExampleBot', 2000));
      expect(claims).toEqual([2000, undefined, undefined, undefined, undefined]);
      // A backend that fails is an outage: no turn, one warning.
      Object.assign(backend, {
        claimTurn: async () => {
          throw new Error('boom');
        },
      });
      expect(await store.claimTurn('https://a.example', 'ExampleBot', 2000)).toBeUndefined();
      expect(warnings().join('\n')).toMatch(/backend failed \(turn: boom\)/);
    } finally {
      await store.close();
    }
  });

  it('refuses a URL, product token or spacing it cannot use', async () => {
    const store = new RobotsStore({
      userAgent: 'ExampleBot/1.0',
      backend: new MemoryBackend(),
      log: quiet(),
    });
    try {
      await expect(store.claimTurn('/relative', 'ExampleBot', 1000)).rejects.toThrow(TypeError);
      await expect(store.claimTurn('https://a.example', 'Example Bot', 1000)).rejects.toThrow(
        'RobotsStore.claimTurn takes a product token (letters, "-" and "_"), got "Example Bot".',
      );
      for (const spacing of [0, 1.5, -1, Number.NaN, 2 ** 31]) {
        await expect(store.claimTurn('https://a.example', 'ExampleBot', spacing)).rejects.toThrow(RangeError);
      }
    } finally {
      await store.close();
    }
  });
});
