import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, MemoryStorage } from 'crawlee';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyValueStoreBackend, RobotsStore } from '../../src/store/index.js';
import { keyOf } from '../../src/store/key-value-store-backend.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';

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
function crawlerStore(clock: () => number) {
  const storageClient = new MemoryStorage({
    localDataDirectory: dir,
    persistStorage: true,
    writeMetadata: true,
  });
  const config = new Configuration({ storageClient, persistStorage: true });
  const store = new RobotsStore({
    userAgent: 'ExampleBot/1.0',
    backend: new KeyValueStoreBackend({ config }),
    clock,
    log: captureLog().log,
  });
  return { store, storageClient };
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

  it('stores the raw body and the record under a hashed key in the named store', async () => {
    const { store, storageClient } = crawlerStore(Date.now);
    await store.resolve(site.origin);
    const info = await storageClient.keyValueStores().list();
    expect(info.items.map((item) => item.name)).toContain('robots-policies');
    const kvs = info.items.find((item) => item.name === 'robots-policies')!;
    const value = (await storageClient.keyValueStore(kvs.id).getRecord(keyOf(site.origin)))?.value as {
      record: { origin: string; status: number };
      body: string;
    };
    expect(value.record).toMatchObject({ origin: site.origin, status: 200 });
    expect(Buffer.from(value.body, 'base64').toString()).toBe('User-agent: *\nDisallow: /private\n');
    expect(keyOf(site.origin)).toMatch(/^origin-[0-9a-f]{64}$/);
    await store.close();
  });
});
