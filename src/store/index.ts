/**
 * The shared per-origin policy store: one robots.txt fetch per origin, lifetimes and the outage
 * state machine, change detection, and the memory, Crawlee KeyValueStore and Redis backends.
 */
export {
  NotHttpUrlError,
  originOf,
  type RobotsFetchHop,
  type RobotsFetchStatus,
  type RobotsFetchTimings,
  type RobotsHttpClient,
  type RobotsPolicyKind,
} from '../fetch/index.js';
export type { RobotsBackendScope, RobotsFetchLock, RobotsStoreBackend } from './backend.js';
export type {
  RobotsChange,
  RobotsChangeListener,
  RobotsCrawlDelayChange,
  RobotsRuleChange,
} from './changes.js';
export {
  type RobotsCheck,
  type RobotsCheckOptions,
  type RobotsCheckReason,
  unansweredCheck,
} from './check.js';
export { KeyValueStoreBackend, type KeyValueStoreBackendOptions } from './key-value-store-backend.js';
export { MemoryBackend, type MemoryBackendOptions } from './memory-backend.js';
export { outsideRequestHandlers } from './outside-handlers.js';
export type { GoodCopyRecord, OriginPolicy, PolicyRecord, StoredPolicy } from './policy.js';
export { RedisBackend, type RedisBackendOptions } from './redis-backend.js';
export {
  type RobotsBackendRetryOptions,
  type RobotsRetryOptions,
  RobotsStore,
  type RobotsStoreOptions,
  type RobotsStoreStats,
  STORE_DEFAULTS,
} from './store.js';
