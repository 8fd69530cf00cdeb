/**
 * A clock for when requests reach a test server, kept in a process of its own. A server in the
 * crawler's process reads a request only when the crawler's event loop lets it: a busy moment
 * there makes a request look later than it came, and the gap before the next one shorter. Here
 * a child process (arrival-relay.mjs) relays each connection to the server and notes when each
 * request line came.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A request as it reached the relay: its path, and when, in milliseconds of the relay's clock. */
export interface Arrival {
  path: string;
  at: number;
}

export interface ArrivalClock {
  /** `http://127.0.0.1:<port>` of the relay: requests sent here reach the server. */
  origin: string;
  port: number;
  /** Every request that came through the relay so far, in the order they came. */
  arrivals(): Promise<Arrival[]>;
  close(): Promise<void>;
}

type Question = { type: 'start'; target: number } | { type: 'arrivals' };

/** Starts a relay to the server on 127.0.0.1:`targetPort`, in a child process. */
export async function startArrivalClock(targetPort: number): Promise<ArrivalClock> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./arrival-relay.mjs', import.meta.url)), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const waiting = new Map<number, (value: unknown) => void>();
  child.on('message', (message: { id: number; value: unknown }) => waiting.get(message.id)?.(message.value));
  const ask = <T>(question: Question): Promise<T> =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve as (value: unknown) => void);
      child.send({ ...question, id });
    });
  const port = await ask<number>({ type: 'start', target: targetPort });
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    arrivals: () => ask<Arrival[]>({ type: 'arrivals' }),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
