import type { StoredPolicy } from './policy.js';

/** A held fetch lock; see {@link RobotsStoreBackend.lock}. */
export interface RobotsFetchLock {
  /** Releases the lock if it is still ours; a lock that expired meanwhile is left alone. */
  release(): Promise<void>;
}

/**
 * Where a {@link RobotsStore} keeps policies beyond its own in-memory LRU, to share them with
 * other stores, processes or machines, or to keep them across restarts.
 *
 * A backend may throw or reject: the store then carries on with its local cache, logs one
 * warning per outage and leaves the backend alone for a cool-down (its `backendRetry` option),
 * after which one call tries it again. Every call should be bounded in time.
 */
export interface RobotsStoreBackend {
  /** A short name for logs, e.g. `redis`. */
  readonly name: string;
  /** The stored policy of an origin, fresh or expired, or undefined. */
  load(origin: string): Promise<StoredPolicy | undefined>;
  /**
   * Stores the policy of an origin for `retainMs`. A backend shared by several writers should
   * keep the newer record (by `record.fetchedAt`) when two writes race.
   */
  save(origin: string, policy: StoredPolicy, retainMs: number): Promise<void>;
  /**
   * Takes the lock that lets one fetcher in the fleet fetch an origin's robots.txt. Resolves to
   * undefined when another holder has it. The lock must expire on its own after `ttlMs`, so a
   * crashed holder cannot block anyone for longer. Backends without sharing leave it out.
   */
  lock?(origin: string, ttlMs: number): Promise<RobotsFetchLock | undefined>;
  /** Releases connections the backend opened itself. */
  close(): Promise<void>;
}
