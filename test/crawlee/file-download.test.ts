import type { ServerResponse } from 'node:http';
import { type BaseHttpClient, Configuration, FileDownload, LogLevel, log } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { type RobotsDroppedRecord, RobotsGuard } from '../../src/crawlee/index.js';
import {
  datasetItems,
  gapsOf,
  type TimedServer,
  TOKEN,
  timedServer,
  USER_AGENT,
  useTemporaryStorageDir,
} from '../support/crawlee-site.js';
import { GotInterfaceHttpClient } from '../support/http-clients.js';
import { redirect, startHttpServer, type TestRouteHandler, text } from '../support/http-server.js';

log.setLevel(LogLevel.OFF);

useTemporaryStorageDir();

const servers: TimedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const file = (_request: unknown, response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'application/octet-stream' }).end('DATA');
};

/** A site of files, one reached through a redirect into a disallowed path, crawled by FileDownload. */
async function download(handler: 'streamHandler' | 'requestHandler', httpClient?: BaseHttpClient) {
  const server = await timedServer(
    await startHttpServer({
      '/robots.txt': text(`User-agent: ${TOKEN}\nDisallow: /private\nCrawl-delay: 1\n`),
      '/dl': redirect('/private/file.bin', 301),
      '/private/file.bin': file,
      '/f1.bin': file,
      '/f2.bin': file,
      '/f3.bin': file,
    }),
  );
  servers.push(server);
  const handled: string[] = [];
  const failed: string[] = [];
  const skipped: string[] = [];
  const read = (url: string) => void handled.push(new URL(url).pathname);
  const crawler = new FileDownload({
    maxConcurrency: 3,
    maxRequestRetries: 0,
    httpClient,
    failedRequestHandler: ({ request }) => void failed.push(request.url),
    onSkippedRequest: ({ url }) => void skipped.push(new URL(url).pathname),
    ...(handler === 'streamHandler'
      ? {
          async streamHandler({ request, stream }) {
            for await (const _ of stream);
            read(request.url);
          },
        }
      : { requestHandler: ({ request }) => read(request.url) }),
  });
  new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false }).attach(crawler);
  await crawler.run(['/dl', '/f1.bin', '/f2.bin', '/f3.bin'].map((path) => `${server.origin}${path}`));
  // FileDownload takes no Configuration: its records are in the global one's storage, by origin.
  const records = (await datasetItems<RobotsDroppedRecord>(Configuration.getGlobalConfig())).filter(
    (record) => record.url.startsWith(server.origin),
  );
  return { server, handled, failed, skipped, records };
}

describe('FileDownload with RobotsGuard', () => {
  // A custom client, and one frozen (whose own properties a proxy of it could not answer for).
  const clients = {
    default: () => undefined,
    GotInterfaceHttpClient: () => new GotInterfaceHttpClient(),
    'a frozen client': () => {
      const inner = new GotInterfaceHttpClient();
      return Object.freeze({
        sendRequest: inner.sendRequest.bind(inner),
        stream: inner.stream.bind(inner),
      }) as BaseHttpClient;
    },
  };
  for (const [handler, client] of [
    ['streamHandler', 'default'],
    ['streamHandler', 'GotInterfaceHttpClient'],
    ['streamHandler', 'a frozen client'],
    ['requestHandler', 'default'],
  ] as const) {
    const name = `with a ${handler}${client === 'default' ? '' : ` and ${client} as httpClient`}`;
    it(`${name}: checks each redirect hop, sends the User-Agent and keeps the Crawl-delay`, async () => {
      const { server, handled, failed, skipped, records } = await download(handler, clients[client]());
      const files = server.requests.filter((request) => request.path !== '/robots.txt');
      // The redirect into /private was not followed: its request was skipped and recorded.
      expect(files.map((request) => request.path).sort()).toEqual(['/dl', '/f1.bin', '/f2.bin', '/f3.bin']);
      expect(handled.sort()).toEqual(['/f1.bin', '/f2.bin', '/f3.bin']);
      expect(failed).toEqual([]);
      expect(skipped).toEqual(['/dl']);
      expect(records.map((record) => [new URL(record.url).pathname, record.stage])).toEqual([
        ['/private/file.bin', 'redirect'],
      ]);
      expect(files.every((request) => request.headers['user-agent'] === USER_AGENT)).toBe(true);
      // Crawl-delay: 1, the redirect hop included.
      const arrivals = await server.arrivals(['/dl', '/private/file.bin', '/f1.bin', '/f2.bin', '/f3.bin']);
      expect(arrivals).toHaveLength(4);
      for (const gap of gapsOf(arrivals)) expect(gap).toBeGreaterThanOrEqual(990);
    });
  }

  it('with a streamHandler: waits for a Crawl-delay slot before the handler, outside its timeout', async () => {
    // Four files of a paced origin, fetched at once: each takes a slot, so the last one waits 3 s
    // for its own, longer than the 2 s the streamHandler is given.
    const routes: Record<string, TestRouteHandler> = {
      '/robots.txt': text(`User-agent: ${TOKEN}\nCrawl-delay: 1\n`),
    };
    for (const name of ['a', 'b', 'c', 'd']) routes[`/${name}.bin`] = file;
    const server = await timedServer(await startHttpServer(routes));
    servers.push(server);
    const handled: string[] = [];
    const failed: string[] = [];
    const crawler = new FileDownload({
      maxConcurrency: 4,
      maxRequestRetries: 0,
      // FileDownload gives the streamHandler this timeout; a file takes milliseconds.
      navigationTimeoutSecs: 2,
      failedRequestHandler: ({ request }) => void failed.push(new URL(request.url).pathname),
      async streamHandler({ request, stream }) {
        for await (const _ of stream);
        handled.push(new URL(request.url).pathname);
      },
    });
    new RobotsGuard({ productToken: TOKEN, userAgent: USER_AGENT, logSummary: false }).attach(crawler);
    const files = ['/a.bin', '/b.bin', '/c.bin', '/d.bin'];
    await crawler.run(files.map((path) => `${server.origin}${path}`));
    expect(failed).toEqual([]);
    expect(handled.sort()).toEqual(files);
    const arrivals = await server.arrivals(files);
    expect(arrivals).toHaveLength(4);
    // The margin is for a loaded machine, where the server notes some arrivals late; unpaced, the
    // files come milliseconds apart.
    for (const gap of gapsOf(arrivals)) expect(gap).toBeGreaterThanOrEqual(900);
  });
});
