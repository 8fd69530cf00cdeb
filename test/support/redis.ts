import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A redis-server started for a test. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Shuts the server down (SIGTERM) and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would; the directory stays until `stop()`. */
  kill(): Promise<void>;
}

const REDIS_SERVER = process.env['REDIS_SERVER'] || '/usr/bin/redis-server';

/**
 * Starts Debian's redis-server on a free port of 127.0.0.1, without persistence, in a temporary
 * directory, and waits until it accepts commands. `program` is the redis-server to run.
 */
export async function startRedis(program = REDIS_SERVER): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'crawlee-robots-redis-'));
  const port = await freePort();
  const child = spawn(
    program,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  // A program that cannot be started (not installed) says so with an error event, and no exit.
  let startError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      startError = startFailure(program, error);
      resolve();
    });
  });
  try {
    await waitForPong(
      port,
      child,
      () => output,
      () => startError,
    );
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: () => kill('SIGKILL'),
    stop: async () => {
      await kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The error of a redis-server that could not be started at all. */
function startFailure(program: string, error: Error): Error {
  return new Error(
    `${program} could not be started (${error.message}): install Debian's redis-server, or set REDIS_SERVER to a redis-server of your own`,
  );
}

async function waitForPong(
  port: number,
  child: ChildProcess,
  output: () => string,
  startError: () => Error | undefined,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const error = startError();
    if (error !== undefined) throw error;
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output()}`);
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server did not answer PING on port ${port} within 10 s: ${output()}`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
