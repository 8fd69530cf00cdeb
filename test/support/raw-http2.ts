/**
 * An HTTP/2 server written frame by frame over TLS (for 127.0.0.1), for what Node's own server
 * never sends: a stream reset with NO_ERROR before the end of its body.
 */
import { readFileSync } from 'node:fs';
import { createServer, type TLSSocket } from 'node:tls';
import { type ListeningServer, listen } from './loopback.js';

/** What the server sends after HEADERS: DATA frames, `end` (END_STREAM on the DATA before it), or a RST_STREAM code. */
export type RawHttp2Part = string | number | 'end';

/** One HTTP/2 frame (RFC 9113 4.1). */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/**
 * Answers the first request of each connection with HEADERS (`:status 200`), then `body`, each
 * part written `gapMs` after the one before, and closes the connection after the last.
 */
export async function startRawHttp2Server(
  body: readonly RawHttp2Part[],
  gapMs: number,
): Promise<ListeningServer> {
  const fixtures = new URL('../fetch/fixtures/', import.meta.url);
  const server = createServer(
    {
      key: readFileSync(new URL('loopback.key.pem', fixtures)),
      cert: readFileSync(new URL('loopback.cert.pem', fixtures)),
      ALPNProtocols: ['h2'],
    },
    (socket: TLSSocket) => answer(socket, body, gapMs),
  );
  return listen(server);
}

function answer(socket: TLSSocket, body: readonly RawHttp2Part[], gapMs: number): void {
  socket.on('error', () => {});
  socket.write(frame(4, 0, 0, Buffer.alloc(0))); // SETTINGS
  let pending = Buffer.alloc(0);
  let preface = false;
  let answered = false;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    if (!preface) {
      if (pending.length < 24) return;
      pending = pending.subarray(24);
      preface = true;
    }
    while (pending.length >= 9 && pending.length >= 9 + pending.readUIntBE(0, 3)) {
      const [type, flags, id] = [pending[3], pending[4], pending.readUInt32BE(5) & 0x7fffffff];
      pending = pending.subarray(9 + pending.readUIntBE(0, 3));
      if (type === 4 && (flags & 1) === 0) socket.write(frame(4, 1, 0, Buffer.alloc(0))); // SETTINGS ACK
      if (type !== 1 || answered) continue;
      answered = true;
      socket.write(frame(1, 0x4, id, Buffer.from([0x88]))); // HEADERS, END_HEADERS, `:status 200` (HPACK index 8)
      body.forEach((part, i) => {
        setTimeout(
          () => {
            if (socket.destroyed) return;
            if (typeof part === 'number') {
              const code = Buffer.alloc(4);
              code.writeUInt32BE(part);
              socket.write(frame(3, 0, id, code)); // RST_STREAM
            } else if (part !== 'end') {
              socket.write(frame(0, body[i + 1] === 'end' ? 1 : 0, id, Buffer.from(part))); // DATA
            }
            if (i === body.length - 1) socket.end();
          },
          gapMs * (i + 1),
        );
      });
    }
  });
}
