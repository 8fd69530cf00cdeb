/**
 * The local site of the plugin bench, run in a child process of its own: the servers then
 * neither share the crawler's event loop nor count in its CPU time, and a crawl's pace
 * depends on the crawler, not on how its work interleaves with the servers'.
 *
 * Messages: the parent sends `{ type: 'start', origins }`, then `counts` and `close-idle`,
 * each answered with a message of the same type; `stop` ends the process.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SiteRequest =
  | { type: 'start'; origins: number }
  | { type: 'counts' }
  | { type: 'close-idle' }
  | { type: 'stop' };

export type SiteReply =
  | { type: 'start'; origins: string[] }
  | { type: 'counts'; robotsRequests: number[] }
  | { type: 'close-idle' };

const servers: Server[] = [];
const robotsRequests: number[] = [];

const body = (title: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><p>${title}</p></body></html>`;

async function startOrigin(index: number): Promise<string> {
  robotsRequests[index] = 0;
  const server = createServer((request, response) => {
    if (request.url === '/robots.txt') {
      robotsRequests[index]++;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body(request.url ?? '/'));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const reply = (message: SiteReply) => process.send!(message);

process.on('message', async (message: SiteRequest) => {
  switch (message.type) {
    case 'start':
      reply({
        type: 'start',
        origins: await Promise.all(Array.from({ length: message.origins }, (_, i) => startOrigin(i))),
      });
      return;
    case 'counts':
      reply({ type: 'counts', robotsRequests: [...robotsRequests] });
      return;
    case 'close-idle':
      for (const server of servers) server.closeIdleConnections();
      reply({ type: 'close-idle' });
      return;
    case 'stop':
      for (const server of servers) server.closeAllConnections();
      process.exit(0);
  }
});
