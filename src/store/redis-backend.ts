import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions, ReplyError } from 'ioredis';
import {
  durationOption,
  numberOption,
  type OptionKeys,
  objectOption,
  refuseUnknownOptions,
  stringOption,
} from '../options.js';
import { withoutUserinfo } from '../robots/index.js';
import type { RobotsBackendScope, RobotsFetchLock, RobotsStoreBackend } from './backend.js';
import { CLOCK_SKEW_TOLERANCE_MS } from './lifetime.js';
import { ConcurrencyLimit } from './limit.js';
import { type PolicyRecord, recordFields, recordProblem, type StoredPolicy } from './policy.js';

/** The states of an ioredis client on its way to its first connection. */
const FIRST_CONNECTION = new Set(['connecting', 'connect']);

/** The client with the backend's scripts, as `defineCommand` adds them. */
type ScriptedRedis = Redis & {
  crawleeRobotsLoadBuffer(key: string, maxOctets: number): Promise<Buffer | Buffer[] | null>;
  crawleeRobotsFetchedAt(key: string): Promise<string | null>;
  crawleeRobotsSaveIfNewer(key: string, ...args: (string | Buffer)[]): Promise<number>;
  crawleeRobotsReleaseIfOwner(key: string, token: string): Promise<number>;
  crawleeRobotsTakeLock(key: string, token: string, ttlMs: number): Promise<number | string>;
  crawleeRobotsClaimTurn(key: string, spacingMs: string): Promise<number>;
};

const OWNER = 'RedisBackend';
const REDIS_OPTIONS: OptionKeys<RedisBackendOptions> = {
  url: true,
  redis: true,
  keyPrefix: true,
  commandTimeoutMs: true,
  connectTimeoutMs: true,
  maxInFlight: true,
};

/** Options of {@link RedisBackend}. */
export interface RedisBackendOptions {
  /**
   * Redis URL, e.g. `redis://127.0.0.1:6379/0`. Ignored when `redis` is given.
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * An ioredis client to use instead of opening one. The backend does not close it, and bounds
   * each of its commands by `commandTimeoutMs` all the same; give it `enableOfflineQueue: false`
   * too, so nothing piles up in its queue while Redis is down. One
   * still connecting is waited for (up to `connectTimeoutMs`) by the first commands; one made
   * with `lazyConnect` is connected when a store first uses it (and left open by `close()`).
   */
  redis?: Redis;
  /**
   * Prefix of every key the backend writes.
   * @default 'crawlee-robots:'
   */
  keyPrefix?: string;
  /**
   * Longest a Redis command may take before the store gives up on it and uses its local cache.
   * @default 1000
   */
  commandTimeoutMs?: number;
  /**
   * Longest the first connection may take.
   * @default 2000
   */
  connectTimeoutMs?: number;
  /**
   * Most commands sent and not yet answered (a whole number, 1 or more); the others wait their
   * turn (that wait does not count against `commandTimeoutMs`).
   * @default 64
   */
  maxInFlight?: number;
}

/**
 * A client of the url option, checked here rather than failing in every command: ioredis reads
 * anything without a `redis://` or `rediss://` scheme as a host (`http://x` would connect to a
 * host named `http`), and throws a bare "Invalid URL" for what it cannot read.
 *
 * @throws TypeError naming the option.
 */
function clientOfUrl(url: string, options: RedisOptions): Redis {
  const refused = (why: string) =>
    new TypeError(
      `${OWNER} option url must be a Redis URL such as "redis://127.0.0.1:6379/0" (rediss:// for TLS), got ${JSON.stringify(withoutUserinfo(url))}: ${why}.`,
    );
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme !== undefined && !/^rediss?$/i.test(scheme)) throw refused(`${scheme}:// is not Redis`);
  // ioredis reads the database with parseInt: `abc` as NaN, which it would send as SELECT NaN with
  // nothing to catch its error, and `1.5` as 1.
  const database = databaseOf(url);
  if (database !== undefined && !/^\d+$/.test(database)) {
    throw refused(
      'the database (after the port, or ?db=) must be a whole number (0 to 15 on a default server)',
    );
  }
  try {
    // With lazyConnect this only reads the URL.
    return new Redis(url, options);
  } catch (error) {
    throw refused((error as Error)?.message ?? String(error));
  }
}

/**
 * The database a Redis URL names, as ioredis reads it: the path of a `redis://`, `rediss://` or
 * `//` URL, else its `db` parameter (a unix socket's path is no database); undefined for none.
 */
function databaseOf(url: string): string | undefined {
  const relative = url.startsWith('//');
  if (url.startsWith('/') && !relative) {
    const query = url.indexOf('?');
    return query === -1 ? undefined : (new URLSearchParams(url.slice(query + 1)).get('db') ?? undefined);
  }
  const named = /^rediss?:\/\//i.test(url);
  let parsed: URL;
  try {
    parsed = new URL(named ? url : relative ? `redis:${url}` : `redis://${url}`);
  } catch {
    return undefined; // ioredis refuses it
  }
  if ((named || relative) && parsed.pathname.length > 1) return parsed.pathname.slice(1);
  return parsed.searchParams.get('db') ?? undefined;
}

/** A record takes four fields of its hash (at, meta, body, hasBody); a later version may add some. */
const MAX_RECORD_FIELDS = 16;

/**
 * Reads a policy key whatever it holds: the hash's fields, or the name of the key's type when
 * it is not a hash (a key another program wrote), which HGETALL would answer with an error. A
 * hash of more fields than a record has, or of more octets than the store's records take, is
 * not read: `fields <n>` or `octets <n>` (a value of hundreds of megabytes would time out the
 * load, and Redis with it for the other origins).
 * KEYS[1] policy key; ARGV[1] the most octets a record takes.
 */
const LOAD = `
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'hash' then return kind end
local fields = redis.call('HLEN', KEYS[1])
if fields > ${MAX_RECORD_FIELDS} then return 'fields ' .. fields end
local octets = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  octets = octets + string.len(field) + redis.call('HSTRLEN', KEYS[1], field)
end
if octets > tonumber(ARGV[1]) then return 'octets ' .. octets end
return redis.call('HGETALL', KEYS[1])
`;

/**
 * The fetch time of a policy key: its `at` field, or nil when the key is not a hash.
 * KEYS[1] policy key.
 */
const FETCHED_AT = `
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return false end
return redis.call('HGET', KEYS[1], 'at')
`;

/**
 * Saves a record unless a newer one (by fetch time) is there already: a writer whose lock
 * expired while it fetched cannot overwrite the answer of the fetcher that came after it. A
 * fetch time further ahead of Redis's own clock than the tolerance comes from a writer whose
 * clock is ahead: it fences nobody, or that writer's copy would stay until the others' clocks
 * caught up with it. A key that is not such a record (another type, no record, a fetch time
 * that is not a number) fences nobody either: it is replaced.
 *
 * The TTL is checked before anything is written, and the key is deleted before it is written
 * again, so a script that fails midway leaves the old key, or none, never one without expiry.
 * KEYS[1] policy key; ARGV: fetchedAt, meta JSON, body, TTL in ms, has-body flag, tolerance in ms.
 */
const SAVE_IF_NEWER = `
local ttl = tonumber(ARGV[4])
if not ttl or ttl < 1 or ttl ~= math.floor(ttl) then
  return redis.error_reply('ERR crawlee-robots: the TTL must be a whole number of ms, 1 or more')
end
if redis.call('TYPE', KEYS[1])['ok'] == 'hash' and redis.call('HEXISTS', KEYS[1], 'meta') == 1 then
  local at = tonumber(redis.call('HGET', KEYS[1], 'at'))
  if at and at > tonumber(ARGV[1]) then
    local time = redis.call('TIME')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    if at <= now + tonumber(ARGV[6]) then return 0 end
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'at', ARGV[1], 'meta', ARGV[2], 'body', ARGV[3], 'hasBody', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/**
 * Takes the fetch lock (`SET NX PX` with the token) unless a lock is held. A key that is no lock
 * of ours (another type, or a string without expiry, which no holder ever sets) would look held
 * forever: it is replaced, and the script says so, for the store's one warning. A lock that
 * already holds the token was taken by this very call: its reply was lost with its connection,
 * and ioredis sent the command again on the next one. It is taken, not held by someone else, or
 * the store would wait the lock's whole TTL for itself, and the fleet with it.
 * KEYS[1] lock key; ARGV: token, TTL in ms. Returns 1 when taken, 0 when held, or the foreign
 * key's description with the lock taken.
 */
const TAKE_LOCK = `
local kind = redis.call('TYPE', KEYS[1])['ok']
local foreign = false
if kind ~= 'none' and (kind ~= 'string' or redis.call('PTTL', KEYS[1]) < 0) then
  redis.call('DEL', KEYS[1])
  foreign = kind == 'string' and 'a string without expiry' or ('a ' .. kind)
elseif kind == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
  if foreign then return foreign end
  return 1
end
return 0
`;

/**
 * Claims the Crawl-delay turn of an origin, on the server's clock, so that the clocks of the
 * fleet's machines do not matter: the key holds when the last turn was claimed, and expires a
 * spacing after it, when it no longer delays anyone. The caller's spacing counts: processes that
 * read different delays (robots.txt changed between their reads) each keep their own. What this
 * script cannot have written (another type, a string that is no number, a time ahead of the
 * server's clock, no expiry) counts as no turn claimed, and is replaced; a wait is never longer
 * than a spacing.
 * KEYS[1] turn key; ARGV[1] spacing in ms. Returns 0 when claimed, else the milliseconds left.
 */
const CLAIM_TURN = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local spacing = tonumber(ARGV[1])
if redis.call('TYPE', KEYS[1])['ok'] == 'string' then
  local ttl = redis.call('PTTL', KEYS[1])
  local last = tonumber(redis.call('GET', KEYS[1]))
  if last and last <= now and ttl > 0 and now < last + spacing then
    return last + spacing - now
  end
end
redis.call('SET', KEYS[1], string.format('%d', now), 'PX', spacing)
return 0
`;

/**
 * Deletes the lock only if it still holds our token (compare-and-delete); a key of another type
 * (not ours either) is left alone rather than failing the script.
 */
const RELEASE_IF_OWNER = `
if redis.call('TYPE', KEYS[1])['ok'] == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/**
 * Shares policies between crawlers in many processes or on many machines through Redis: the
 * record and raw body of each origin in a hash with a TTL, and a fetch lock per origin
 * (`SET NX PX` with a random token, released by compare-and-delete) so the whole fleet fetches
 * each robots.txt once. Both are kept per client (a hash of the User-Agent, see
 * RobotsBackendScope): `<keyPrefix>policy:<client>:<origin>` and `<keyPrefix>lock:<client>:<origin>`.
 * Every command is bounded by `commandTimeoutMs` and nothing is queued while Redis is
 * unreachable: the store then carries on with its local cache and one warning.
 *
 * @example
 * const store = new RobotsStore({
 *   userAgent: 'ExampleBot/1.0',
 *   backend: new RedisBackend({ url: 'redis://redis.internal:6379' }),
 * });
 */
export class RedisBackend implements RobotsStoreBackend {
  readonly name = 'redis';
  readonly #redis: Redis;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #connectTimeoutMs: number;
  /** Timed here for a given client, whose own `commandTimeout` may be none (ioredis's default). */
  readonly #commandTimeoutMs: number;
  readonly #commands: ConcurrencyLimit;
  #connecting: Promise<void> | undefined;
  #lastError: Error | undefined;
  /** Stores using the backend (see attach): the last one to be closed closes the connection. */
  #stores = 0;
  /** The connection the backend opened was closed, for good (see close). */
  #closed = false;
  /** The backend's own connection was opened (on first use). */
  #opened = false;
  /**
   * Redis refused the database of the connection (SELECT failed): ioredis would go on in database
   * 0, another program's perhaps, so no command is sent.
   */
  #badDatabase: Error | undefined;

  /**
   * @throws TypeError or RangeError when an option is of the wrong type or out of range; the
   *   message names it and says what is accepted.
   */
  constructor(options: RedisBackendOptions = {}) {
    refuseUnknownOptions(OWNER, options, REDIS_OPTIONS);
    this.#prefix = stringOption(OWNER, 'keyPrefix', options.keyPrefix, 'crawlee-robots:');
    // ioredis times both with timers.
    const commandTimeoutMs = durationOption(OWNER, 'commandTimeoutMs', options.commandTimeoutMs, 1000);
    this.#commandTimeoutMs = commandTimeoutMs;
    this.#connectTimeoutMs = durationOption(OWNER, 'connectTimeoutMs', options.connectTimeoutMs, 2000);
    // With none allowed, no command would ever start.
    this.#commands = new ConcurrencyLimit(
      numberOption(OWNER, 'maxInFlight', options.maxInFlight, 64, {
        min: 1,
        max: Number.MAX_SAFE_INTEGER,
        integer: true,
      }),
    );
    const url = stringOption(OWNER, 'url', options.url, 'redis://127.0.0.1:6379', { nonEmpty: true });
    const given = objectOption<Redis>(OWNER, 'redis', options.redis, 'an ioredis client (new Redis(...))', {
      methods: ['on', 'defineCommand'],
    });
    if (given !== undefined) {
      this.#redis = given;
      this.#owned = false;
    } else {
      const redisOptions: RedisOptions = {
        lazyConnect: true,
        // Fail fast instead of queueing: a dead Redis must not hold up the crawl.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: commandTimeoutMs,
        connectTimeout: this.#connectTimeoutMs,
        // Keep reconnecting in the background, at most every 2 s.
        retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
        // close() of a connection that never opened waits this long for a socket event that
        // never comes (ioredis's default, 2 s, kept a closed store's process alive that long).
        disconnectTimeout: 50,
      };
      // Connected on first use (see #connect): a backend whose store refused its options is
      // never used, and a connection opened here would keep the process alive.
      this.#redis = clientOfUrl(url, redisOptions);
      this.#owned = true;
    }
    // ioredis reports connection errors as events; without a listener they would crash the process.
    this.#redis.on('error', (error: Error) => {
      this.#lastError = error;
      if (error instanceof ReplyError && /\bDB index\b/i.test(error.message)) {
        this.#badDatabase = new Error(
          `Redis refused database ${this.#redis.options.db} (${error.message}): nothing is read from it or written to it. Use a database number the server has (0 to 15 by default).`,
        );
      }
    });
    if (!this.#owned && FIRST_CONNECTION.has(this.#redis.status)) {
      // A client still connecting (`new Redis(url)` just made): the first commands wait for it, as
      // they wait for a connection of the backend's own, rather than failing the crawl's first burst.
      this.#connecting = new Promise<void>((resolve) => {
        // Connected, or the attempt failed ('close'): later commands do not wait for retries.
        const events = ['ready', 'close', 'end'];
        const settle = () => {
          for (const event of events) this.#redis.off(event, settle);
          this.#connecting = undefined;
          resolve();
        };
        for (const event of events) this.#redis.on(event, settle);
      });
    }
    // Scripts are sent once and then called by their SHA1 (EVALSHA, ioredis falls back to EVAL).
    this.#redis.defineCommand('crawleeRobotsLoad', { numberOfKeys: 1, lua: LOAD });
    this.#redis.defineCommand('crawleeRobotsFetchedAt', { numberOfKeys: 1, lua: FETCHED_AT });
    this.#redis.defineCommand('crawleeRobotsSaveIfNewer', { numberOfKeys: 1, lua: SAVE_IF_NEWER });
    this.#redis.defineCommand('crawleeRobotsReleaseIfOwner', { numberOfKeys: 1, lua: RELEASE_IF_OWNER });
    this.#redis.defineCommand('crawleeRobotsTakeLock', { numberOfKeys: 1, lua: TAKE_LOCK });
    this.#redis.defineCommand('crawleeRobotsClaimTurn', { numberOfKeys: 1, lua: CLAIM_TURN });
  }

  /**
   * The stored policy, or undefined when there is none or when the key holds no usable record
   * (another type, bad JSON, missing fields, another version): that is told to
   * `scope.ignored`, and the next save replaces the key.
   */
  async load(origin: string, scope: RobotsBackendScope): Promise<StoredPolicy | undefined> {
    await this.#ready();
    const reply = await this.#limited(() =>
      (this.#redis as ScriptedRedis).crawleeRobotsLoadBuffer(
        this.#policyKey(origin, scope),
        scope.maxRecordBytes,
      ),
    );
    if (reply === null) return undefined;
    if (!Array.isArray(reply)) {
      const [kind, size] = reply.toString().split(' ');
      if (kind === 'fields') scope.ignored(origin, `its hash has ${size} fields, more than a record's`);
      else if (kind === 'octets') {
        scope.ignored(
          origin,
          `it holds ${size} octets, more than a record of this store takes (${scope.maxRecordBytes})`,
        );
      } else if (kind !== 'none') scope.ignored(origin, `the key holds a ${kind}, not a hash`);
      return undefined;
    }
    const fields = new Map<string, Buffer>();
    for (let index = 0; index + 1 < reply.length; index += 2)
      fields.set(reply[index].toString(), reply[index + 1]);
    const meta = fields.get('meta');
    if (meta === undefined) {
      scope.ignored(origin, 'the hash has no "meta" field');
      return undefined;
    }
    let record: unknown;
    try {
      record = JSON.parse(meta.toString('utf8'));
    } catch {
      scope.ignored(origin, 'its record is not valid JSON');
      return undefined;
    }
    const bodyField = fields.get('body');
    const body = fields.get('hasBody')?.toString() === '1' && bodyField ? new Uint8Array(bodyField) : null;
    const problem = recordProblem(record, origin, body);
    if (problem !== undefined) {
      scope.ignored(origin, problem);
      return undefined;
    }
    return { record: recordFields(record as PolicyRecord), body };
  }

  async fetchedAt(origin: string, scope: RobotsBackendScope): Promise<number | undefined> {
    await this.#ready();
    const at = await this.#limited(() =>
      (this.#redis as ScriptedRedis).crawleeRobotsFetchedAt(this.#policyKey(origin, scope)),
    );
    // What is not a time is no record: `load` says why, once the store reads it.
    const value = at === null ? Number.NaN : Number(at);
    return Number.isFinite(value) ? value : undefined;
  }

  async save(
    origin: string,
    policy: StoredPolicy,
    retainMs: number,
    scope: RobotsBackendScope,
  ): Promise<void> {
    // Checked before the script runs: a key is never written that PEXPIRE then refuses.
    const ttl = Math.ceil(retainMs);
    if (!Number.isSafeInteger(ttl) || ttl < 1) {
      throw new RangeError(`A policy is kept for a whole number of ms, 1 or more, got ${retainMs}.`);
    }
    await this.#ready();
    await this.#limited(() =>
      (this.#redis as ScriptedRedis).crawleeRobotsSaveIfNewer(
        this.#policyKey(origin, scope),
        String(policy.record.fetchedAt),
        JSON.stringify(policy.record),
        policy.body === null ? Buffer.alloc(0) : Buffer.from(policy.body),
        String(ttl),
        policy.body === null ? '0' : '1',
        String(CLOCK_SKEW_TOLERANCE_MS),
      ),
    );
  }

  async lock(origin: string, ttlMs: number, scope: RobotsBackendScope): Promise<RobotsFetchLock | undefined> {
    await this.#ready();
    const key = this.#lockKey(origin, scope);
    const token = randomBytes(16).toString('hex');
    const release = () =>
      this.#limited(() => (this.#redis as ScriptedRedis).crawleeRobotsReleaseIfOwner(key, token));
    let taken: number | string;
    try {
      taken = await this.#limited(() =>
        (this.#redis as ScriptedRedis).crawleeRobotsTakeLock(key, token, Math.max(1, Math.ceil(ttlMs))),
      );
    } catch (error) {
      // A command that timed out still runs once Redis catches up: the lock it takes would hold the
      // origin for the whole TTL, the fleet waiting for a fetch nobody makes. Sent after it on the
      // same connection, the release runs after it.
      release().catch(() => undefined);
      throw error;
    }
    if (taken === 0) return undefined;
    if (typeof taken === 'string')
      scope.ignored(origin, `its fetch lock key held ${taken}, not a lock`, 'lock');
    return {
      release: async () => {
        await release();
      },
    };
  }

  /** Turns are kept at `<keyPrefix>turn:<crawler>:<origin>`, timed by the Redis server's clock. */
  async claimTurn(origin: string, crawler: string, spacingMs: number): Promise<number> {
    const spacing = Math.ceil(spacingMs);
    if (!Number.isSafeInteger(spacing) || spacing < 1) {
      throw new RangeError(`Crawl-delay turns are a whole number of ms apart, 1 or more, got ${spacingMs}.`);
    }
    await this.#ready();
    const wait = await this.#limited(() =>
      (this.#redis as ScriptedRedis).crawleeRobotsClaimTurn(
        `${this.#prefix}turn:${crawler}:${origin}`,
        String(spacing),
      ),
    );
    return Math.max(0, Number(wait));
  }

  /**
   * @throws Error when the backend was closed: a store made after the last one using it was
   *   closed would otherwise run without it, each of its calls failing.
   */
  attach(): void {
    this.#assertOpen();
    this.#stores++;
    this.#connect();
  }

  /**
   * Opens the backend's own connection, once; and a given client that was made with
   * `lazyConnect` and never connected (status `wait`), which ioredis would connect on its first
   * command: commands here wait for a ready connection instead, so none would ever be sent.
   */
  #connect(): void {
    if (this.#opened || (!this.#owned && this.#redis.status !== 'wait')) return;
    this.#opened = true;
    this.#connecting = this.#redis
      .connect()
      .catch((error: Error) => {
        // After the server's own refusal (WRONGPASS, NOAUTH), told as an event, ioredis rejects
        // with "Connection is closed.", which would hide why.
        if (!(this.#lastError instanceof ReplyError)) this.#lastError = error;
      })
      .finally(() => {
        this.#connecting = undefined;
      });
  }

  /**
   * Closes the connection the backend opened, when the last store using it is closed; the
   * backend cannot be used afterwards. A client given as the `redis` option is left open.
   */
  async close(): Promise<void> {
    if (this.#stores > 1) {
      this.#stores--;
      return;
    }
    this.#stores = 0;
    if (!this.#owned) return;
    // Closed for good: opening it again would race with the QUIT below, and a backend shared by
    // stores that come and go is simply kept open by one of them.
    this.#closed = true;
    await this.#connecting;
    if (this.#redis.status === 'end' || this.#redis.status === 'wait') return;
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new Error(
        'This RedisBackend is closed (the stores using it were closed, and its Redis connection with them); create a new one.',
      );
    }
  }

  /** Commands are never queued: until the connection is ready, they fail at once. */
  async #ready(): Promise<void> {
    this.#assertOpen();
    if (this.#badDatabase !== undefined) throw this.#badDatabase;
    if (this.#redis.status === 'ready') return;
    this.#connect();
    if (this.#connecting !== undefined) {
      // The first connection: worth a short, bounded wait.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((resolve) => {
        timer = setTimeout(resolve, this.#connectTimeoutMs);
      });
      await Promise.race([this.#connecting, timeout]);
      clearTimeout(timer);
      if (this.#badDatabase !== undefined) throw this.#badDatabase;
      // Re-read: the status changed while we waited (TypeScript still has it narrowed).
      if ((this.#redis.status as string) === 'ready') return;
    }
    const last = this.#lastError;
    const refused = last instanceof ReplyError && /^(?:WRONGPASS|NOAUTH)\b/.test(last?.message ?? '');
    throw new Error(
      `Redis is not connected (${this.#redis.status}${last ? `: ${last.message}` : ''}).` +
        (refused
          ? ' Give the user and password the server expects in the url (redis://user:password@host:port), or a client of your own as `redis`.'
          : ''),
    );
  }

  /**
   * Runs a command when fewer than `maxInFlight` are out. A burst of thousands of new origins
   * would otherwise send every command at once, and replies that wait behind the parsing of
   * earlier ones would hit `commandTimeout` although Redis answered in time.
   *
   * A command that fails fails the ones waiting behind it: with Redis down or frozen they would
   * each wait their turn only to time out too (a store stops waiting for them anyway, and its
   * next try of Redis would be queued behind them). An error Redis answered with is about that
   * one command: the others go on.
   */
  #limited<T>(command: () => Promise<T>): Promise<T> {
    return this.#commands.run(async () => {
      try {
        return this.#owned ? await command() : await withinTime(command(), this.#commandTimeoutMs);
      } catch (error) {
        if (!(error instanceof ReplyError)) this.#commands.failWaiting(error);
        throw error;
      }
    });
  }

  #policyKey(origin: string, scope: RobotsBackendScope): string {
    return `${this.#prefix}policy:${scope.client}:${origin}`;
  }

  #lockKey(origin: string, scope: RobotsBackendScope): string {
    return `${this.#prefix}lock:${scope.client}:${origin}`;
  }
}

/**
 * `reply`, or an error like ioredis's own once `ms` have passed: a given client may have no
 * `commandTimeout`, or queue commands while Redis is down. The reply that comes later is dropped.
 */
function withinTime<T>(reply: Promise<T>, ms: number): Promise<T> {
  reply.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('Command timed out')), ms);
  });
  return Promise.race([reply, late]).finally(() => clearTimeout(timer));
}
