import { createHash } from 'node:crypto';
import { Configuration, KeyValueStore } from 'crawlee';
import {
  clockOption,
  instanceOption,
  type OptionKeys,
  refuseUnknownOptions,
  stringOption,
} from '../options.js';
import type { RobotsBackendScope, RobotsStoreBackend } from './backend.js';
import { CLOCK_SKEW_TOLERANCE_MS } from './lifetime.js';
import { outsideRequestHandlers } from './outside-handlers.js';
import { type PolicyRecord, recordFields, recordProblem, type StoredPolicy } from './policy.js';

const OWNER = 'KeyValueStoreBackend';

/** Options of {@link KeyValueStoreBackend}. */
export interface KeyValueStoreBackendOptions {
  /**
   * Name of the Crawlee key-value store, opened with `KeyValueStore.open(name)`.
   * @default 'robots-policies'
   */
  storeName?: string;
  /**
   * Crawlee configuration the store is opened with (its storage client and directory).
   * @default Crawlee's global configuration
   */
  config?: Configuration;
  /**
   * Wall clock in milliseconds for retention.
   * @default Date.now
   */
  clock?: () => number;
}

/** The JSON value stored per origin. */
interface KeyValueRecord {
  record: PolicyRecord;
  /** The robots.txt body, base64: the raw octets, invalid UTF-8 included. */
  body: string | null;
  /** Until when the record is kept (the backend's clock, ms); past it, it is deleted on load. */
  retainUntil: number;
}

/**
 * Keeps policies in a Crawlee `KeyValueStore`, so a crawl that resumes after a restart does not
 * fetch robots.txt files that are still fresh. One JSON value per origin and client (the
 * User-Agent it was fetched with, see {@link keyOf}): the record, the raw body and until when it
 * is kept. The file is parsed again on load, and a value past its time
 * (see `keepExpiredMs` of {@link RobotsStoreOptions}) is deleted instead. No fleet lock: use
 * {@link RedisBackend} to share policies between processes running at the same time.
 *
 * @example
 * const store = new RobotsStore({
 *   userAgent: 'ExampleBot/1.0',
 *   backend: new KeyValueStoreBackend({ storeName: 'robots-policies' }),
 * });
 */
export class KeyValueStoreBackend implements RobotsStoreBackend {
  readonly name = 'key-value-store';
  readonly #storeName: string;
  readonly #config: Configuration | undefined;
  readonly #clock: () => number;
  #store: Promise<KeyValueStore> | undefined;

  /** @throws TypeError when an option is of the wrong type; the message names it. */
  constructor(options: KeyValueStoreBackendOptions = {}) {
    refuseUnknownOptions(OWNER, options, {
      storeName: true,
      config: true,
      clock: true,
    } satisfies OptionKeys<KeyValueStoreBackendOptions>);
    this.#storeName = stringOption(OWNER, 'storeName', options.storeName, 'robots-policies', {
      nonEmpty: true,
    });
    // The name is a directory of the storage dir: a path in it (`../x`, `a/b`) or a name too long
    // for the file system would fail only on the first load or save, the store going on without it.
    if (!STORE_NAME.test(this.#storeName) || /^\.+$/.test(this.#storeName)) {
      throw new RangeError(
        `${OWNER} storeName must be 1 to 200 letters, digits, ".", "_" or "-", got ${JSON.stringify(this.#storeName.slice(0, 250))}.`,
      );
    }
    // KeyValueStore.open takes nothing else, and would refuse it only on the first load.
    this.#config = instanceOption(
      OWNER,
      'config',
      options.config,
      Configuration,
      'a Crawlee Configuration (new Configuration({ ... }) or Configuration.getGlobalConfig())',
    );
    this.#clock = clockOption(OWNER, options.clock);
  }

  /**
   * The stored policy, or undefined when there is none, when it is past its retention (it is
   * deleted), or when the value is not a usable record (that is told to `scope.ignored`, and
   * the next save replaces it).
   */
  load(origin: string, scope: RobotsBackendScope): Promise<StoredPolicy | undefined> {
    return outsideRequestHandlers(() => this.#load(origin, scope));
  }

  async #load(origin: string, scope: RobotsBackendScope): Promise<StoredPolicy | undefined> {
    const store = await this.#open();
    const key = keyOf(origin, scope.client);
    const stored = await readValue(store, key);
    if (stored === null) return undefined;
    if (stored === NOT_JSON) {
      scope.ignored(origin, 'its value is not valid JSON');
      return undefined;
    }
    if (typeof stored !== 'object' || Array.isArray(stored)) {
      scope.ignored(origin, 'the value is not a JSON object');
      return undefined;
    }
    // Each field is checked below, as a value written by something else may lack any.
    const value = stored as KeyValueRecord;
    // A key-value store keeps a value forever: its retention ends here, on load.
    const retained = typeof value.retainUntil === 'number';
    if (retained && !(value.retainUntil > this.#clock())) {
      await store.setValue(key, null);
      return undefined;
    }
    // Node decodes any text as base64, skipping what is not: a body written by something else
    // would become a few octets of junk, read as a file without rules.
    const badBody = typeof value.body === 'string' && !isBase64(value.body);
    const body =
      typeof value.body === 'string' && !badBody ? new Uint8Array(Buffer.from(value.body, 'base64')) : null;
    const problem = badBody
      ? 'its body is not base64'
      : (recordProblem(value.record, origin, body) ?? (retained ? undefined : 'it has no retention time'));
    if (problem === undefined) {
      // Of a usable record, the fields the store reads (see recordFields).
      const record = recordFields(value.record);
      // A value larger than any this store writes was not written by it (an edit by hand, another
      // program): it is not kept in memory, nor copied into every check that reads its fields.
      const octets = (body?.byteLength ?? 0) + Buffer.byteLength(JSON.stringify(record));
      if (octets <= scope.maxRecordBytes) return { record, body };
      scope.ignored(
        origin,
        `it holds ${octets} octets, more than a record of this store takes (${scope.maxRecordBytes})`,
      );
      return undefined;
    }
    scope.ignored(origin, problem);
    // Without a retention time it would stay forever: it is deleted now.
    if (!retained) await store.setValue(key, null);
    return undefined;
  }

  /**
   * Saves the policy, unless the value kept holds a newer record (by fetch time), as the other
   * backends do: a slow writer does not replace what a faster one fetched after it. A key-value
   * store has no compare-and-set, so two writers in the same instant may still both write; a
   * record fetched by a clock more than CLOCK_SKEW_TOLERANCE_MS ahead fences nobody.
   */
  save(origin: string, policy: StoredPolicy, retainMs: number, scope: RobotsBackendScope): Promise<void> {
    return outsideRequestHandlers(async () => {
      const store = await this.#open();
      const key = keyOf(origin, scope.client);
      const kept = await readValue(store, key);
      const keptAt =
        typeof kept === 'object' && kept !== null
          ? (kept as { record?: { fetchedAt?: unknown } }).record?.fetchedAt
          : undefined;
      if (
        typeof keptAt === 'number' &&
        keptAt > policy.record.fetchedAt &&
        keptAt <= this.#clock() + CLOCK_SKEW_TOLERANCE_MS
      ) {
        return;
      }
      const value: KeyValueRecord = {
        record: policy.record,
        body: policy.body === null ? null : Buffer.from(policy.body).toString('base64'),
        retainUntil: this.#clock() + retainMs,
      };
      await store.setValue(key, value);
    });
  }

  /**
   * Deletes the values past their retention, and those without a retention time, that lookups
   * would delete: a key-value store keeps a value until it is deleted, and the records of origins
   * that are never looked up again would stay for ever. Reads every policy value of the store
   * (other keys are left alone), a few at a time; run it between crawls, or at the start of one.
   * A crawl may run meanwhile: a value is read just before it is deleted, and a policy saved in
   * that instant and lost all the same is only fetched again.
   * @returns how many policy values were read and how many were deleted.
   */
  prune(): Promise<{ read: number; deleted: number }> {
    return outsideRequestHandlers(async () => {
      const store = await this.#open();
      const keys: string[] = [];
      await store.forEachKey((key) => {
        if (OWN_KEY.test(key)) keys.push(key);
      });
      let deleted = 0;
      let next = 0;
      const worker = async () => {
        while (next < keys.length) {
          const key = keys[next++];
          // One gone or cut short meanwhile (another process) is left to lookups, as any non-record.
          if (!this.#isDead(await readValue(store, key))) continue;
          await store.setValue(key, null);
          deleted++;
        }
      };
      await Promise.all(Array.from({ length: PRUNE_READERS }, worker));
      return { read: keys.length, deleted };
    });
  }

  /** Whether a lookup would delete `value`: past its retention, or without a retention time. */
  #isDead(value: unknown): boolean {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    const { retainUntil } = value as Partial<KeyValueRecord>;
    return typeof retainUntil !== 'number' || !(retainUntil > this.#clock());
  }

  async close(): Promise<void> {
    this.#store = undefined;
  }

  #open(): Promise<KeyValueStore> {
    this.#store ??= KeyValueStore.open(this.#storeName, this.#config ? { config: this.#config } : undefined);
    // A failed open is retried on the next call rather than remembered.
    this.#store.catch(() => {
      this.#store = undefined;
    });
    return this.#store;
  }
}

/** A key-value store name that is one plain directory name. */
const STORE_NAME = /^[A-Za-z0-9._-]{1,200}$/;
/** The start of every key this backend writes. */
const KEY_PREFIX = 'policy-';
/** Every key this backend writes (see keyOf): `prune` leaves any other alone, `policy-settings` too. */
const OWN_KEY = /^policy-[0-9a-f]{16}-[0-9a-f]{64}$/;
/** Values `prune` reads at a time. */
const PRUNE_READERS = 8;

/**
 * The key-value store key of an origin's record for a client (see RobotsBackendScope): key
 * names allow only `[a-zA-Z0-9!-_.'()]` and 256 characters, so the origin is hashed (SHA-256,
 * hex): `policy-<client>-<hash>`, 88 characters.
 */
export function keyOf(origin: string, client: string): string {
  return `${KEY_PREFIX}${client}-${createHash('sha256').update(origin).digest('hex')}`;
}

/** What {@link readValue} gives for a value that does not parse. */
const NOT_JSON = Symbol('not JSON');

/**
 * The value of `key`, null for none (a file removed by another process included), or NOT_JSON
 * for a value the store cannot parse: a file cut
 * short by a process killed while writing it, in a directory several crawlers share. The store
 * reports such a value as a SyntaxError; it is about that one value, not about the backend, which
 * would otherwise be taken for failing at every lookup of the origin, and never get the value
 * replaced.
 */
async function readValue(store: KeyValueStore, key: string): Promise<unknown> {
  try {
    return await store.getValue(key);
  } catch (error) {
    if (error instanceof SyntaxError) return NOT_JSON;
    // The storage lists its files when it opens: one another process removed since (its prune, a
    // retention that ended there) is no value, not a failing backend.
    if (error instanceof Error && VANISHED.test(error.message)) return null;
    throw error;
  }
}

/** What Crawlee's file storage says of a listed value whose file is gone. */
const VANISHED = /^Could not find file at /;

/**
 * Whether `text` is base64 as `Buffer.toString('base64')` writes it: padded, no blanks, no
 * other characters. A loop, not a regular expression: a repeated group of one ran out of stack
 * on the body of a 4.5 MB robots.txt.
 */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  let end = text.length;
  if (text.endsWith('==')) end -= 2;
  else if (text.endsWith('=')) end -= 1;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || BASE64_ALPHABET[c] === 0) return false;
  }
  return true;
}

const BASE64_ALPHABET = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  BASE64_ALPHABET[c.charCodeAt(0)] = 1;
