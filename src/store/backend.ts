import { createHash } from 'node:crypto';
import { FETCH_DEFAULTS } from '../fetch/index.js';
import type { StoredPolicy } from './policy.js';

/** A held fetch lock; see {@link RobotsStoreBackend.lock}. */
export interface RobotsFetchLock {
  /** Releases the lock if it is still ours; a lock that expired meanwhile is left alone. */
  release(): Promise<void>;
}

/**
 * Whose copy of an origin's robots.txt a backend call is about, and where the backend reports a
 * record it ignores. A server may answer each crawler differently (rules to one, a 503 to
 * another), so a backend keeps records and fetch locks per origin and per client: a store is
 * only ever served what was fetched with its own User-Agent.
 */
export interface RobotsBackendScope {
  /**
   * The client the file is fetched as: a short stable hash of the store's User-Agent
   * (`[0-9a-f]{16}`, see {@link clientOf}), safe in any key.
   */
  readonly client: string;
  /**
   * The most octets a record of this store takes, its body and its JSON together: a stored value
   * larger than that was not written by such a store, and a backend may ignore it unread (see
   * `ignored`) rather than load it whole.
   */
  readonly maxRecordBytes: number;
  /**
   * Tells the store that the record stored for `origin` was ignored (malformed, of another
   * type, or written by another version), and why; the backend then answers as if there were
   * none. With `what` `lock`: the key of the origin's fetch lock held no lock and was taken over.
   * The store logs it.
   */
  ignored(origin: string, reason: string, what?: 'record' | 'lock'): void;
}

/**
 * Where a {@link RobotsStore} keeps policies beyond its own in-memory LRU, to share them with
 * other stores, processes or machines, or to keep them across restarts.
 *
 * A backend may throw or reject: the store then carries on with its local cache, logs one
 * warning per outage and leaves the backend alone for a cool-down (its `backendRetry` option),
 * after which one call tries it again. Every call should be bounded in time. A record the
 * backend cannot use is not a failure: it is reported through `scope.ignored` and treated as
 * missing, and the next save replaces it.
 */
export interface RobotsStoreBackend {
  /** A short name for logs, e.g. `redis`. */
  readonly name: string;
  /** The stored policy of an origin for the scope's client, fresh or expired, or undefined. */
  load(origin: string, scope: RobotsBackendScope): Promise<StoredPolicy | undefined>;
  /**
   * Stores the policy of an origin for the scope's client for `retainMs` (a whole number of
   * milliseconds, at least 1). A backend shared by several writers should keep the newer record
   * (by `record.fetchedAt`) when two writes race.
   */
  save(origin: string, policy: StoredPolicy, retainMs: number, scope: RobotsBackendScope): Promise<void>;
  /**
   * Takes the lock that lets one fetcher in the fleet fetch an origin's robots.txt for the
   * scope's client. Resolves to undefined when another holder has it. The lock must expire on
   * its own after `ttlMs`, so a crashed holder cannot block anyone for longer. Backends without
   * sharing leave it out.
   */
  lock?(origin: string, ttlMs: number, scope: RobotsBackendScope): Promise<RobotsFetchLock | undefined>;
  /**
   * The `record.fetchedAt` of the policy stored for an origin and the scope's client, or undefined
   * when there is none. Optional: a store waiting for another fetcher's result asks it on each
   * poll, and loads the record (body and all) only once it has changed.
   */
  fetchedAt?(origin: string, scope: RobotsBackendScope): Promise<number | undefined>;
  /**
   * Claims the Crawl-delay turn of an origin for a crawler (its product token, in lower case), for
   * every store that uses the backend: resolves to 0 when the origin's last turn was claimed
   * `spacingMs` ago or more (a whole number of milliseconds, at least 1), and the turn is then the
   * caller's; else to how many milliseconds remain until it may claim again, and nothing is
   * taken. Turns are per product token, not per User-Agent: a site tells crawlers apart by their
   * token, so two versions of one crawler are one crawler to it. Backends without sharing leave
   * it out; each process then paces its own requests only.
   */
  claimTurn?(origin: string, crawler: string, spacingMs: number): Promise<number>;
  /**
   * Tells the backend that one more store uses it; each such store calls `close` once, when it is
   * closed. A backend given to several stores keeps its connections until the last one is closed.
   */
  attach?(): void;
  /** Releases connections the backend opened itself. */
  close(): Promise<void>;
}

/**
 * The client id of a User-Agent, as backends key records by it: the first 16 hex digits of its
 * SHA-256. The whole header counts: `ExampleBot/1.0` and `ExampleBot/1.1` are two clients, as a
 * server may tell them apart. A store whose `maxBytes` or `maxRedirects` is not the default is a
 * client of its own too: an answer read with a lower limit (rules cut short, a redirect chain
 * given up and read as allow-all) would be wrong for a store with a higher one.
 */
export function clientOf(userAgent: string, limits: FetchLimits = DEFAULT_LIMITS): string {
  const hash = createHash('sha256').update(userAgent);
  if (limits.maxBytes !== DEFAULT_LIMITS.maxBytes || limits.maxRedirects !== DEFAULT_LIMITS.maxRedirects) {
    hash.update(`\nmaxBytes=${limits.maxBytes}\nmaxRedirects=${limits.maxRedirects}`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The store options that change what an answer says, beyond the User-Agent (see clientOf). */
export interface FetchLimits {
  maxBytes: number;
  maxRedirects: number;
}

const DEFAULT_LIMITS: FetchLimits = {
  maxBytes: FETCH_DEFAULTS.maxBytes,
  maxRedirects: FETCH_DEFAULTS.maxRedirects,
};
