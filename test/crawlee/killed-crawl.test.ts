import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { page } from '../support/crawlee-site.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';

const PAGES = 30;
const LINKS = 30;
const disallowedLinks = (i: number) => Array.from({ length: LINKS }, (_, k) => `/no/${i}/${k}`);

/**
 * A crawl killed with SIGKILL, in a process of its own with its storage on disk: every page the
 * queue marked handled must have left a record of each link robots.txt disallowed, or a crawl
 * resumed from that storage would never see those links again, and their drop would be silent.
 */
describe('a crawl killed with SIGKILL', () => {
  let site: TestHttpServer | undefined;
  let storage: string | undefined;
  afterEach(async () => {
    await site?.close();
    if (storage !== undefined) rmSync(storage, { recursive: true, force: true });
  });

  it.each([3, 10])(
    'after %i pages: every page marked handled has the records of its disallowed links',
    async (after) => {
      site = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /no/\n') });
      for (let i = 0; i < PAGES; i++)
        site.route(`/d/${i}`, page(`/d/${i}`, [`/d/${i + 1}`, ...disallowedLinks(i)]));
      storage = mkdtempSync(join(tmpdir(), 'crawlee-robots-killed-'));

      const worker = fileURLToPath(new URL('../support/killed-crawl.ts', import.meta.url));
      const child = spawn(process.execPath, ['--import', 'tsx', worker, site.origin], {
        env: { ...process.env, CRAWLEE_STORAGE_DIR: storage, CRAWLEE_PURGE_ON_START: 'true' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      let handled = 0;
      for await (const line of createInterface({ input: child.stdout! })) {
        if (line.startsWith('handled ') && ++handled === after) {
          child.kill('SIGKILL');
          break;
        }
      }
      await exited;
      expect(handled).toBe(after);

      const queue = readRecords(join(storage, 'request_queues', 'default'));
      // Crawlee writes each file in place, so the kill may leave one cut short: at most one per
      // request in flight (maxConcurrency 2) and the one being marked handled.
      expect(queue.cut.length, `cut short: ${queue.cut.join(', ')}`).toBeLessThanOrEqual(3);
      const marked = queue.records
        .filter((entry) => entry.orderNo === null)
        .map((entry) => new URL(JSON.parse(String(entry.json)).url).pathname);
      const dataset = readRecords(join(storage, 'datasets', 'robots-dropped'));
      // A record cut short counts as missing: records are written before their page is marked.
      const recorded = new Set(dataset.records.map((entry) => new URL(String(entry.url)).pathname));
      // A page is marked handled once its handler has returned: the last one or two may not be yet.
      expect(marked.length).toBeGreaterThanOrEqual(after - 2);
      for (const path of marked) {
        const i = Number(path.split('/').pop());
        expect(
          disallowedLinks(i).filter((link) => !recorded.has(link)),
          `links of ${path}`,
        ).toEqual([]);
      }
      // robots.txt kept every disallowed link from the server.
      expect(site.requests.filter((request) => request.path.startsWith('/no/'))).toEqual([]);
    },
  );
});

/** The records of a storage folder (its numbered or keyed `.json` files, not `__metadata__.json`). */
function readRecords(dir: string): { records: Record<string, unknown>[]; cut: string[] } {
  const records: Record<string, unknown>[] = [];
  const cut: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json') || name.startsWith('__')) continue;
    try {
      records.push(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    } catch {
      cut.push(name);
    }
  }
  return { records, cut };
}
