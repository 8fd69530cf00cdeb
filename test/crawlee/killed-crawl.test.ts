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

      const queue = join(storage, 'request_queues', 'default');
      const marked = readdirSync(queue)
        .filter((name) => name.endsWith('.json'))
        .map((name) => JSON.parse(readFileSync(join(queue, name), 'utf8')))
        .filter((entry) => entry.orderNo === null)
        .map((entry) => new URL(JSON.parse(entry.json).url).pathname);
      const dataset = join(storage, 'datasets', 'robots-dropped');
      const recorded = new Set(
        readdirSync(dataset)
          .filter((name) => /^\d+\.json$/.test(name))
          .map((name) => new URL(JSON.parse(readFileSync(join(dataset, name), 'utf8')).url).pathname),
      );
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
