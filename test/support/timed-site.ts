/**
 * Sites in a process of their own, for tests that measure when requests reach a server: in the
 * crawler's process, the server would see a request only when the crawler's event loop lets it,
 * and could read two requests as closer than they came. Each site serves `robots` at /robots.txt
 * and a small page anywhere else, after `pageDelayMs` (or a redirect at once, for a path of
 * `redirects`), and records when each request came.
 *
 * Run by {@link startTimedSites}: `node --import tsx test/support/timed-site.ts`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface TimedSiteSpec {
  robots: string;
  pageDelayMs?: number;
  /** Paths answered with a 302 to the given location. */
  redirects?: Record<string, string>;
}

export interface TimedSite {
  origin: string;
  /** Each request for a path other than /robots.txt, with the wall-clock time it came. */
  hits(): Promise<{ path: string; at: number }[]>;
}

type Question = { type: 'start'; specs: TimedSiteSpec[] } | { type: 'hits'; site: number };
type Message = Question & { id: number };

/** Starts `specs` in a child process; `close` ends it. */
export async function startTimedSites(
  specs: TimedSiteSpec[],
): Promise<{ sites: TimedSite[]; close: () => Promise<void> }> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const waiting = new Map<number, (value: unknown) => void>();
  child.on('message', (message: { id: number; value: unknown }) => waiting.get(message.id)?.(message.value));
  const ask = <T>(message: Question): Promise<T> =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve as (value: unknown) => void);
      child.send({ ...message, id });
    });
  const ports = await ask<number[]>({ type: 'start', specs });
  return {
    sites: ports.map((port, site) => ({
      origin: `http://127.0.0.1:${port}`,
      hits: () => ask({ type: 'hits', site }),
    })),
    close: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const hits: { path: string; at: number }[][] = [];
  const servers: Server[] = [];
  process.on('message', async (message: Message) => {
    if (message.type === 'hits') {
      process.send!({ id: message.id, value: hits[message.site] });
      return;
    }
    const ports: number[] = [];
    for (const spec of message.specs) {
      const seen: { path: string; at: number }[] = [];
      hits.push(seen);
      const server = createServer((request, response) => {
        if (request.url === '/robots.txt') {
          response.writeHead(200, { 'content-type': 'text/plain' }).end(spec.robots);
          return;
        }
        seen.push({ path: request.url ?? '', at: Date.now() });
        const location = spec.redirects?.[request.url ?? ''];
        if (location !== undefined) {
          response.writeHead(302, { location }).end();
          return;
        }
        setTimeout(() => {
          response
            .writeHead(200, { 'content-type': 'text/html' })
            .end(`<html><title>${request.url}</title></html>`);
        }, spec.pageDelayMs ?? 0);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      ports.push((server.address() as AddressInfo).port);
    }
    process.send!({ id: message.id, value: ports });
  });
  process.on('disconnect', () => process.exit(0));
}
