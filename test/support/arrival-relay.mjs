/**
 * The child process of arrival-clock.ts, in plain JavaScript so that it starts in tens of
 * milliseconds: it relays each connection to the test server and notes when each request line
 * came. Its messages: `{ type: 'start', target, id }` answers with the relay's port,
 * `{ type: 'arrivals', id }` with every arrival so far.
 */
import { createConnection, createServer } from 'node:net';

/** A request line at the start of a line of a chunk (HTTP/1.1 clients here do not pipeline). */
const REQUEST_LINE = /^[A-Z]+ (\S+) HTTP\/1\.[01]\r$/gm;

const arrivals = [];
process.on('message', (message) => {
  if (message.type === 'arrivals') {
    process.send({ id: message.id, value: arrivals });
    return;
  }
  const relay = createServer((client) => {
    const server = createConnection({ host: '127.0.0.1', port: message.target });
    client.on('data', (chunk) => {
      const at = performance.now();
      for (const match of chunk.toString('latin1').matchAll(REQUEST_LINE))
        arrivals.push({ path: match[1], at });
      server.write(chunk);
    });
    client.on('end', () => server.end());
    server.pipe(client);
    const end = () => {
      client.destroy();
      server.destroy();
    };
    for (const socket of [client, server]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  relay.listen(0, '127.0.0.1', () => {
    process.send({ id: message.id, value: relay.address().port });
  });
});
process.on('disconnect', () => process.exit(0));
