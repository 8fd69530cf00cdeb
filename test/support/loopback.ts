/** Test servers on 127.0.0.1 whose connections a test can count and cut. */
import type { Server as NetServer, Socket } from 'node:net';

/** A server listening on 127.0.0.1, whose connections the test can cut. */
export interface ListeningServer {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Destroys every open connection. */
  dropConnections(): void;
  /** Connections open now. */
  openConnections(): number;
  /** Destroys every open connection, then stops listening. */
  close(): Promise<void>;
}

/** Starts `server` on a free port of 127.0.0.1. */
export async function listen(server: NetServer): Promise<ListeningServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    dropConnections,
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}
