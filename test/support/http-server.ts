import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Answers one request. May keep the response open (a server that never answers). */
export type TestRouteHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

/** A real HTTP server on 127.0.0.1 with one handler per path (path + query). */
export interface TestHttpServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** How many requests the path got. */
  hits(path: string): number;
  /** Adds or replaces the handler of a path. */
  route(path: string, handler: TestRouteHandler): void;
  /** Destroys every open connection, then stops listening. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 on a free port. Unknown paths get a 404.
 *
 * @example
 * const server = await startHttpServer({ '/robots.txt': text('User-agent: *\nDisallow: /') });
 */
export async function startHttpServer(
  routes: Record<string, TestRouteHandler> = {},
): Promise<TestHttpServer> {
  const handlers = new Map(Object.entries(routes));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  // Requests with URLs as long as a client sends (a redirect's Location of 200 KB) are read.
  const server: Server = createServer({ maxHeaderSize: 2 ** 20 }, (request, response) => {
    const path = request.url ?? '/';
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers });
    const handler = handlers.get(path);
    if (!handler) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    Promise.resolve(handler(request, response)).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    hits: (path) => requests.filter((request) => request.path === path).length,
    route: (path, handler) => {
      handlers.set(path, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A handler that answers with a status, a body and headers. */
export function text(
  body: string | Uint8Array,
  status = 200,
  headers: Record<string, string> = {},
): TestRouteHandler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(body);
  };
}

/** A handler that redirects to `location`. */
export function redirect(location: string, status = 301): TestRouteHandler {
  return (_request, response) => {
    response.writeHead(status, { location }).end();
  };
}

/** A handler that never answers (the socket stays open until the server closes). */
export function never(): TestRouteHandler {
  return () => {};
}

/**
 * A handler that sends a robots.txt of `total` octets (a `*` group, then rule lines), as fast as
 * the client reads it, and stops when the client hangs up; `written()` says how much it sent.
 */
export function largeRobotsTxt(total: number): { handler: TestRouteHandler; written: () => number } {
  let written = 0;
  const handler: TestRouteHandler = (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) });
    const chunk = Buffer.from(
      `${'Disallow: /a-long-path-that-fills-the-file'.padEnd(63, 'x')}\n`.repeat(1024),
    );
    const head = 'User-agent: *\n';
    response.write(head);
    written = head.length;
    const pump = () => {
      while (written < total && !response.destroyed) {
        const part = Math.min(chunk.length, total - written);
        written += part;
        if (!response.write(part === chunk.length ? chunk : chunk.subarray(0, part))) {
          return void response.once('drain', pump);
        }
      }
      response.end();
    };
    pump();
  };
  return { handler, written: () => written };
}
