/**
 * One crawler process of the fleet tests: resolves every origin given in ORIGINS (JSON array)
 * through a RobotsStore backed by the Redis at REDIS_URL, all at once, and prints what happened
 * as one JSON line. Run with `node --import tsx test/support/fleet-worker.ts`.
 */
import { RedisBackend, RobotsStore } from '../../src/store/index.js';
import { captureLog } from './log.js';

const origins = JSON.parse(process.env['ORIGINS'] ?? '[]') as string[];
const { log, warnings } = captureLog();
const store = new RobotsStore({
  userAgent: 'ExampleBot/1.0',
  backend: new RedisBackend({ url: process.env['REDIS_URL'], keyPrefix: process.env['KEY_PREFIX'] }),
  fetchTimeoutMs: 5000,
  log,
});
// Both processes start resolving at the same wall-clock instant, to make them race.
const startAt = Number(process.env['START_AT'] ?? 0);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
const policies = await Promise.all(origins.map((origin) => store.resolve(origin)));
const stats = store.stats();
await store.close();
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, stats, kinds: policies.map((policy) => policy.kind), warnings: warnings() })}\n`,
);
