import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { TestHttpServer } from './http-server.js';

/** An HTTP proxy on 127.0.0.1 that sends every request to one test server, whatever its host. */
export interface TestProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a proxy that forwards every request (absolute-form, or a `CONNECT` tunnel) to `site`,
 * whatever host it names: a test crawls host names such as `http://shop.example/` with no DNS
 * and no traffic beyond 127.0.0.1. Crawlee's `sameDomainDelaySecs` ignores IP addresses.
 */
export async function startForwardingProxy(site: TestHttpServer): Promise<TestProxy> {
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((request, response) => {
    const target = new URL(request.url ?? '/', 'http://unknown');
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: site.port,
        path: target.pathname + target.search,
        method: request.method,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  proxy.on('connect', (_request, socket: Socket, head: Buffer) => {
    const upstream = connect(site.port, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  proxy.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
