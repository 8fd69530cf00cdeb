import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, KeyValueStore, MemoryStorage } from 'crawlee';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyValueStoreBackend, type RobotsChange, RobotsStore } from '../../src/store/index.js';
import { keyOf } from '../../src/store/key-value-store-backend.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { backendScope, policyRecord } from './records.js';

const DAY = 86_400_000;
const SCOPE = backendScope('ExampleBot/1.0');
/** What Crawlee accepts as a key-value store key (@apify/consts KEY_VALUE_STORE_KEY_REGEX). */
const KEY_VALUE_STORE_KEY = /^([a-zA-Z0-9!\-_.'()]{1,256})$/;

let dir: string;
let site: TestHttpServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crawlee-robots-kvs-'));
  site = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /private\n') });
});
afterEach(async () => {
  await site.close();
  await rm(dir, { recursive: true, force: true });
});

/** A crawler "process": its own Crawlee storage client on the same directory, as after a restart. */
function crawlerStore(clock: () => number, keepExpiredMs?: number, userAgent = 'ExampleBot/1.0') {
  const storageClient = new MemoryStorage({
    localDataDirectory: dir,
    persistStorage: true,
    writeMetadata: true,
  });
  const config = new Configuration({ storageClient, persistStorage: true });
  const backend = new KeyValueStoreBackend({ config, clock });
  const { log, warnings } = captureLog();
  const store = new RobotsStore({
    userAgent,
    backend,
    clock,
    log,
    ...(keepExpiredMs === undefined ? {} : { keepExpiredMs }),
  });
  return { store, storageClient, config, backend, warnings };
}

/** The file the backend keeps the record of `origin` in. */
function fileOf(origin: string): string {
  return join(dir, 'key_value_stores', 'robots-policies', `${keyOf(origin, SCOPE.client)}.json`);
}

/**
 * A crawler "process" whose storage opened after another one saved the policies of `origins`:
 * the storage lists the files as it opens, and what changes after is another process's doing.
 */
async function openedAfterSaving(now: number, origins: readonly string[]) {
  const first = crawlerStore(() => now);
  for (const origin of origins) await first.store.resolve(origin);
  await first.store.close();
  const second = crawlerStore(() => now);
  await KeyValueStore.open('robots-policies', { config: second.config });
  return second;
}

/** The raw value the backend keeps for `origin`, or undefined. */
async function rawValue(config: Configuration, origin: string): Promise<unknown> {
  const kvs = await KeyValueStore.open('robots-policies', { config });
  return (await kvs.getValue(keyOf(origin, SCOPE.client))) ?? undefined;
}

describe('KeyValueStoreBackend', () => {
  it('lets a crawl that resumes after a restart reuse fresh policies without refetching', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => now;
    const first = crawlerStore(clock);
    expect((await first.store.check(`${site.origin}/private/a`)).allowed).toBe(false);
    await first.store.close();

    const second = crawlerStore(clock);
    now += 3_600_000;
    const check = await second.store.check(`${site.origin}/private/a`);
    expect(check).toMatchObject({ allowed: false, reason: 'matched', policyKind: 'rules', ageMs: 3_600_000 });
    expect(check.rule?.line).toBe(2);
    expect(site.hits('/robots.txt')).toBe(1);
    expect(second.store.stats()).toMatchObject({ fetches: 0, backendHits: 1 });

    // An expired policy is fetched again.
    now += 24 * 3_600_000;
    await second.store.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(2);
    await second.store.close();
  });

  it('keeps the newer record when a slower writer saves an older one, as the other backends do', async () => {
    const now = Date.UTC(2026, 0, 1);
    const { backend, config } = crawlerStore(() => now);
    const origin = 'https://a.example';
    const saved = (fetchedAt: number) => ({ record: policyRecord(origin, fetchedAt), body: null });
    await backend.save(origin, saved(now), 60_000, SCOPE);
    await backend.save(origin, saved(now - 5000), 60_000, SCOPE);
    expect((await backend.load(origin, SCOPE))?.record.fetchedAt).toBe(now);
    // A record fetched by a clock far ahead (past CLOCK_SKEW_TOLERANCE_MS) fences nobody.
    await backend.save(origin, saved(now + 10 * 60_000), 60_000, SCOPE);
    await backend.save(origin, saved(now), 60_000, SCOPE);
    expect((await backend.load(origin, SCOPE))?.record.fetchedAt).toBe(now);
    // A value that is no record is replaced.
    const kvs = await KeyValueStore.open('robots-policies', { config });
    await kvs.setValue(keyOf(origin, SCOPE.client), { record: 'junk' });
    await backend.save(origin, saved(now - 1000), 60_000, SCOPE);
    expect((await backend.load(origin, SCOPE))?.record.fetchedAt).toBe(now - 1000);
  });

  it('stores the raw body and the record under a hashed key in the named store', async () => {
    const { store, storageClient } = crawlerStore(Date.now);
    await store.resolve(site.origin);
    const info = await storageClient.keyValueStores().list();
    expect(info.items.map((item) => item.name)).toContain('robots-policies');
    const kvs = info.items.find((item) => item.name === 'robots-policies')!;
    const value = (await storageClient.keyValueStore(kvs.id).getRecord(keyOf(site.origin, SCOPE.client)))
      ?.value as {
      record: { origin: string; status: number };
      body: string;
    };
    expect(value.record).toMatchObject({ origin: site.origin, status: 200 });
    expect(Buffer.from(value.body, 'base64').toString()).toBe('User-agent: *\nDisallow: /private\n');
    expect(keyOf(site.origin, SCOPE.client)).toMatch(/^policy-[0-9a-f]{16}-[0-9a-f]{64}$/);
    await store.close();
  });

  it('keeps an expired record keepExpiredMs, then deletes it', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { store, config, backend } = crawlerStore(() => now, 2 * DAY);
    await store.resolve(site.origin);
    await store.close();

    // Fresh for a day, then kept two more days as the previous state.
    now += 3 * DAY - 1;
    expect((await backend.load(site.origin, SCOPE))?.record.origin).toBe(site.origin);
    now += 1;
    expect(await backend.load(site.origin, SCOPE)).toBeUndefined();
    expect(await rawValue(config, site.origin)).toBeUndefined();
  });

  it('prunes the values past their retention or without one, and leaves every other key alone', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { config, backend } = crawlerStore(() => now);
    const kvs = await KeyValueStore.open('robots-policies', { config });
    const origins = ['https://a.example', 'https://b.example', 'https://c.example', 'https://d.example'];
    const policy = (origin: string) => ({ record: policyRecord(origin, now), body: null });
    await backend.save(origins[0], policy(origins[0]), DAY, SCOPE);
    await backend.save(origins[1], policy(origins[1]), 5 * DAY, SCOPE);
    // As earlier versions wrote them, without a retention time.
    await kvs.setValue(keyOf(origins[2], SCOPE.client), policy(origins[2]));
    // Not a record: a lookup ignores it and the next save replaces it.
    await kvs.setValue(keyOf(origins[3], SCOPE.client), 'not a record', { contentType: 'text/plain' });
    await kvs.setValue('someone-elses-key', { retainUntil: 0 });
    // The same start as the backend's keys, but not one of them.
    await kvs.setValue('policy-settings', { owner: 'me' });

    now += 2 * DAY;
    expect(await backend.prune()).toEqual({ read: 4, deleted: 2 });
    expect(await rawValue(config, origins[0])).toBeUndefined();
    expect(await rawValue(config, origins[1])).toMatchObject({ record: { origin: origins[1] } });
    expect(await rawValue(config, origins[2])).toBeUndefined();
    expect(await rawValue(config, origins[3])).toBe('not a record');
    expect(await kvs.getValue('someone-elses-key')).toEqual({ retainUntil: 0 });
    expect(await kvs.getValue('policy-settings')).toEqual({ owner: 'me' });
    expect(await backend.prune()).toEqual({ read: 2, deleted: 0 });
  });

  it('ignores a stored record that lacks fields, and fetches', async () => {
    const now = Date.UTC(2026, 0, 1);
    const { store, config } = crawlerStore(() => now);
    const kvs = await KeyValueStore.open('robots-policies', { config });
    // No `why`, fresh for ten years: it must neither block the origin nor be kept.
    const record: Record<string, unknown> = {
      ...policyRecord(site.origin, now, { expiresAt: now + 3650 * DAY }),
    };
    delete record['why'];
    await kvs.setValue(keyOf(site.origin, SCOPE.client), {
      record,
      body: null,
      retainUntil: now + 3650 * DAY,
    });

    expect(await store.check(`${site.origin}/private/a`)).toMatchObject({
      allowed: false,
      policyKind: 'rules',
      status: 200,
    });
    expect(site.hits('/robots.txt')).toBe(1);
    expect(store.stats()).toMatchObject({ fetches: 1, backendHits: 0 });
    expect(await rawValue(config, site.origin)).toMatchObject({
      record: { why: expect.any(String), status: 200 },
    });
    await store.close();
  });

  it('does not use a value without a retention time, as earlier versions wrote them', async () => {
    const now = Date.UTC(2026, 0, 1);
    const { store, config, backend } = crawlerStore(() => now);
    const kvs = await KeyValueStore.open('robots-policies', { config });
    await kvs.setValue(keyOf(site.origin, SCOPE.client), {
      record: policyRecord(site.origin, now),
      body: null,
    });
    expect(await backend.load(site.origin, SCOPE)).toBeUndefined();
    expect(await rawValue(config, site.origin)).toBeUndefined();
    await store.close();
  });

  it('reports a change when a resumed crawl finds the file changed since the record it kept', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => now;
    const first = crawlerStore(clock);
    await first.store.resolve(site.origin);
    await first.store.close();

    // Resumed two days later: the record has expired but is kept (keepExpiredMs, 7 days).
    now += 2 * DAY;
    site.route('/robots.txt', text('User-agent: *\nDisallow: /elsewhere\n'));
    const second = crawlerStore(clock);
    const changes: RobotsChange[] = [];
    second.store.onChange((change) => changes.push(change));
    expect((await second.store.check(`${site.origin}/elsewhere`)).allowed).toBe(false);
    expect(changes).toMatchObject([
      {
        previous: { kind: 'rules', status: 200, fetchedAt: now - 2 * DAY },
        addedRules: [{ pattern: '/elsewhere' }],
        removedRules: [{ pattern: '/private' }],
      },
    ]);
    await second.store.close();
  });

  it("keeps each User-Agent's record under its own key, valid for a key-value store", async () => {
    const now = Date.UTC(2026, 0, 1);
    const first = crawlerStore(() => now, undefined, 'ExampleBot/1.0');
    await first.store.resolve(site.origin);
    await first.store.close();

    const other = crawlerStore(() => now, undefined, 'OtherBot/2.0');
    await other.store.resolve(site.origin);
    expect(other.store.stats()).toMatchObject({ fetches: 1, backendHits: 0 });
    await other.store.close();
    const same = crawlerStore(() => now, undefined, 'ExampleBot/1.0');
    await same.store.resolve(site.origin);
    expect(same.store.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
    await same.store.close();
    expect(site.hits('/robots.txt')).toBe(2);

    const key = keyOf(`https://${'long-label.'.repeat(20)}example:65535`, SCOPE.client);
    expect(key).toMatch(KEY_VALUE_STORE_KEY);
    expect(keyOf(site.origin, SCOPE.client)).not.toBe(
      keyOf(site.origin, backendScope('OtherBot/2.0').client),
    );
  });

  it('warns once about a value that is not a usable record, and replaces it', async () => {
    const now = Date.UTC(2026, 0, 1);
    const { store, config, warnings } = crawlerStore(() => now);
    const kvs = await KeyValueStore.open('robots-policies', { config });
    const record = policyRecord(site.origin, now, { expiresAt: now + 3650 * DAY });
    await kvs.setValue(keyOf(site.origin, SCOPE.client), {
      record: { ...record, version: 2 },
      body: null,
      retainUntil: now + 3650 * DAY,
    });

    expect(await store.check(`${site.origin}/private/a`)).toMatchObject({ allowed: false, status: 200 });
    expect(warnings()).toEqual([
      `The key-value-store backend's record of ${site.origin} is ignored: it was written by another version (record version 2). robots.txt is fetched again and the record replaced.`,
    ]);
    expect(await rawValue(config, site.origin)).toMatchObject({ record: { version: 1 } });
    await store.close();
  });

  it('ignores a record whose body is not base64, rather than read the junk it decodes to as rules', async () => {
    const now = Date.UTC(2026, 0, 1);
    const first = crawlerStore(() => now);
    await first.store.resolve(site.origin);
    await first.store.close();
    const kvs = await KeyValueStore.open('robots-policies', { config: first.config });
    const saved = (await rawValue(first.config, site.origin)) as Record<string, unknown>;
    await kvs.setValue(keyOf(site.origin, SCOPE.client), { ...saved, body: '!!!notbase64@@' });
    const fetched = site.hits('/robots.txt');

    const { store, warnings } = crawlerStore(() => now);
    expect(await store.check(`${site.origin}/private/a`)).toMatchObject({ allowed: false, status: 200 });
    expect(warnings()).toEqual([
      `The key-value-store backend's record of ${site.origin} is ignored: its body is not base64. robots.txt is fetched again and the record replaced.`,
    ]);
    expect(site.hits('/robots.txt')).toBe(fetched + 1);
    await store.close();
  });

  it('reuses the record of a robots.txt of several megabytes that it saved itself', async () => {
    const now = Date.UTC(2026, 0, 1);
    const big = await startHttpServer({
      '/robots.txt': text(`User-agent: *\nDisallow: /private\n${'# a comment line\n'.repeat(300_000)}`),
    });
    try {
      const open = () => {
        const storageClient = new MemoryStorage({ localDataDirectory: dir, persistStorage: true });
        const config = new Configuration({ storageClient, persistStorage: true });
        const { log, warnings } = captureLog();
        const backend = new KeyValueStoreBackend({ config, clock: () => now });
        return {
          store: new RobotsStore({ userAgent: 'ExampleBot/1.0', backend, maxBytes: 8_000_000, log }),
          warnings,
        };
      };
      const first = open();
      await first.store.resolve(big.origin);
      await first.store.close();

      const second = open();
      expect(await second.store.check(`${big.origin}/private/a`)).toMatchObject({
        allowed: false,
        status: 200,
      });
      expect(second.warnings()).toEqual([]);
      expect(second.store.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
      expect(big.hits('/robots.txt')).toBe(1);
      await second.store.close();
    } finally {
      await big.close();
    }
  });

  it('ignores a value larger than any record of this store writes, and fetches', async () => {
    const now = Date.UTC(2026, 0, 1);
    const first = crawlerStore(() => now);
    await first.store.resolve(site.origin);
    await first.store.close();
    const kvs = await KeyValueStore.open('robots-policies', { config: first.config });
    const saved = (await rawValue(first.config, site.origin)) as { record: Record<string, unknown> };
    const why = 'x'.repeat(2_000_000);
    await kvs.setValue(keyOf(site.origin, SCOPE.client), { ...saved, record: { ...saved.record, why } });

    const { store, warnings } = crawlerStore(() => now);
    const check = await store.check(`${site.origin}/private/a`);
    expect(check).toMatchObject({ allowed: false, status: 200 });
    expect(check.why.length).toBeLessThan(200);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(
      new RegExp(
        `^The key-value-store backend's record of ${site.origin} is ignored: it holds 20\\d{5} octets, more than a record of this store takes \\(\\d+\\)\\. robots\\.txt is fetched again and the record replaced\\.$`,
      ),
    );
    expect(site.hits('/robots.txt')).toBe(2);
    await store.close();
  });

  it('reads only the fields of a record it knows: one nested too deep to measure fails neither the load nor the saves after it', async () => {
    const now = Date.UTC(2026, 0, 1);
    const first = crawlerStore(() => now);
    await first.store.resolve(site.origin);
    await first.store.close();
    const file = fileOf(site.origin);
    const nested = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const saved = JSON.stringify(JSON.parse(await readFile(file, 'utf8')));
    const stored = saved.replace('"record":{', `"record":{"extra":${nested},`);
    expect(stored).not.toBe(saved);
    expect(() => JSON.stringify(JSON.parse(stored))).toThrow(RangeError);
    await writeFile(file, stored);

    const other = await startHttpServer({ '/robots.txt': text('not found', 404) });
    const { store, config, warnings } = crawlerStore(() => now);
    try {
      expect(await store.check(`${site.origin}/private/a`)).toMatchObject({ allowed: false, status: 200 });
      await store.resolve(other.origin);
      expect(store.stats()).toMatchObject({ backendHits: 1, backendErrors: 0, fetches: 1 });
      expect(warnings()).toEqual([]);
      expect(site.hits('/robots.txt')).toBe(1);
      // The other origin was saved: the backend is still in use.
      expect(await rawValue(config, other.origin)).toMatchObject({ record: { status: 404 } });
    } finally {
      await store.close();
      await other.close();
    }
  });

  it('ignores a value cut short while the crawl runs, replaces it, and keeps using the backend for other origins', async () => {
    const now = Date.UTC(2026, 0, 1);
    const other = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /other\n') });
    try {
      // The value goes bad after the storage opened, as when a crawler sharing the directory is
      // killed in the middle of writing it.
      const second = await openedAfterSaving(now, [site.origin, other.origin]);
      const file = fileOf(site.origin);
      await writeFile(file, (await readFile(file, 'utf8')).slice(0, 20));
      const fetched = site.hits('/robots.txt');
      const fetchedOther = other.hits('/robots.txt');

      expect(await second.store.check(`${site.origin}/private/a`)).toMatchObject({
        allowed: false,
        status: 200,
      });
      expect(await second.store.check(`${other.origin}/other`)).toMatchObject({
        allowed: false,
        status: 200,
      });
      expect(second.warnings()).toEqual([
        `The key-value-store backend's record of ${site.origin} is ignored: its value is not valid JSON. robots.txt is fetched again and the record replaced.`,
      ]);
      expect(site.hits('/robots.txt')).toBe(fetched + 1);
      // The other origin's record still came from the backend.
      expect(other.hits('/robots.txt')).toBe(fetchedOther);
      expect(second.store.stats()).toMatchObject({ backendHits: 1, backendErrors: 0 });
      expect(await rawValue(second.config, site.origin)).toMatchObject({ record: { version: 1 } });
      await second.store.close();
    } finally {
      await other.close();
    }
  });

  it('takes a value another process removed after the storage opened as none, not as a failing backend', async () => {
    const now = Date.UTC(2026, 0, 1);
    const other = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /other\n') });
    try {
      const second = await openedAfterSaving(now, [site.origin, other.origin]);
      await rm(fileOf(site.origin));
      const fetched = site.hits('/robots.txt');
      expect(await second.store.check(`${site.origin}/private/a`)).toMatchObject({
        allowed: false,
        status: 200,
      });
      expect(site.hits('/robots.txt')).toBe(fetched + 1);
      expect(second.warnings()).toEqual([]);
      expect(second.store.stats()).toMatchObject({ backendErrors: 0 });
      expect(await rawValue(second.config, site.origin)).toMatchObject({ record: { origin: site.origin } });
      // The backend is still used for the next origin.
      const fetchedOther = other.hits('/robots.txt');
      expect(await second.store.check(`${other.origin}/other`)).toMatchObject({ allowed: false });
      expect(other.hits('/robots.txt')).toBe(fetchedOther);
      expect(second.store.stats()).toMatchObject({ backendHits: 1, backendErrors: 0 });
      await second.store.close();
    } finally {
      await other.close();
    }
  });

  it('prunes past values removed or cut short by another process between its listing and its reads', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { config, backend } = crawlerStore(() => now);
    const origins = ['https://a.example', 'https://b.example', 'https://c.example'];
    for (const origin of origins)
      await backend.save(origin, { record: policyRecord(origin, now), body: null }, DAY, SCOPE);
    now += 2 * DAY;
    const kvs = await KeyValueStore.open('robots-policies', { config });
    // Another process acts on two of the files after the listing: one removed, one cut short.
    const read = kvs.getValue.bind(kvs);
    kvs.getValue = (async (key: string) => {
      if (key === keyOf(origins[0], SCOPE.client)) await rm(fileOf(origins[0]));
      if (key === keyOf(origins[1], SCOPE.client)) await writeFile(fileOf(origins[1]), '{"record": {');
      return read(key);
    }) as typeof kvs.getValue;
    try {
      expect(await backend.prune()).toEqual({ read: 3, deleted: 1 });
    } finally {
      kvs.getValue = read;
    }
    expect(await rawValue(config, origins[2])).toBeUndefined();
  });
});
