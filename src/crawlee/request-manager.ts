import { Request, type RequestsLike, type Source } from 'crawlee';
import { MAX_TIMER_MS } from '../options.js';

/** What the guard decided for a request taken out of the queue. */
export type DequeueDecision =
  /** Hand it to the crawler. */
  | { action: 'fetch' }
  /** Mark it handled and go on (the gate has recorded why). */
  | { action: 'skip' }
  /**
   * Keep it aside until `until` (deferral or Crawl-delay), or until `wake` settles if sooner (its
   * robots.txt is still being fetched), then decide again.
   */
  | { action: 'hold'; until: number; paced: boolean; wake?: Promise<unknown> };

/** The robots.txt decisions the interceptor asks for: implemented by the guard. */
export interface RequestGate {
  /**
   * For URLs being added: true to let each in. Drops are recorded by the gate. `lists` holds the
   * indexes of URLs that are lists Crawlee downloads during the add (`requestsFromUrl`): no check
   * on dequeue follows, so they are let in only when robots.txt allows them now.
   */
  admit(
    urls: readonly (string | undefined)[],
    lists: ReadonlySet<number> | undefined,
    sources: readonly (Source | string)[],
  ): Promise<boolean[]>;
  /**
   * For a request taken out of the queue. `paced` is true when the request already waited for
   * its Crawl-delay slot. A plain decision when it needs no I/O.
   */
  release(request: Request, paced: boolean): DequeueDecision | Promise<DequeueDecision>;
  /**
   * The crawler gave a request back to the queue (`reclaimRequest`): for a retry, or unfetched
   * (Crawlee's `sameDomainDelaySecs` takes a request out, then puts it back to wait).
   */
  returned(request: Request): void;
  /**
   * Resolves when the records of every drop so far are written. A skipped request is marked
   * handled only then: the other way round, a crawl killed between the two would resume past
   * the request with no record of why it was not fetched.
   */
  recorded(): Promise<void>;
  /**
   * Adding the URLs of an iterable stopped after the first `read` of them: checking the next ones
   * failed with `error` where nobody waits for the add (Crawlee adds all but the first batch in the
   * background).
   */
  stoppedAdding(error: Error, read: number): void;
  /**
   * Deciding a request taken out of the queue failed with `error` (a closed store): the request
   * went back to the queue unfetched, and no other can be decided either.
   */
  releaseFailed(error: Error): void;
  /** Wall clock, the one `until` is measured on. */
  now(): number;
  /**
   * A held request's time has come: the crawler should ask for it now, rather than at its next
   * look for work (Crawlee's pool looks every half second when it has nothing to do).
   */
  ready?(): void;
}

/** The part of an `IRequestManager` (RequestQueue, RequestList adapter, tandem) the interceptor uses. */
interface RequestManagerLike {
  fetchNextRequest(): Promise<Request | null>;
  markRequestHandled(request: Request): Promise<unknown>;
  reclaimRequest(request: Request): Promise<unknown>;
  isEmpty(): Promise<boolean>;
  isFinished(): Promise<boolean>;
  addRequest?(request: Source | string, options?: object): Promise<unknown>;
  addRequests?(requests: (Source | string)[], options?: object): Promise<unknown>;
  addRequestsBatched?(requests: RequestsLike, options?: object): Promise<unknown>;
}

interface HeldRequest {
  target: RequestManagerLike;
  request: Request;
  paced: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** Most requests one `fetchNextRequest()` call skips or holds before it answers `null`. */
const MAX_SCAN_PER_FETCH = 200;
/** URLs of an iterable read (and their origins resolved together) at a time. */
const ADMIT_CHUNK = 1000;

/**
 * Wraps a crawler's request manager (DESIGN.md, "Integration points"): every add path of Crawlee
 * (`crawler.addRequests`, `context.addRequests`, `enqueueLinks`, a RequestList tandem) goes
 * through `addRequest`, `addRequests` or `addRequestsBatched` of this object, and every request
 * the crawler works on comes out of `fetchNextRequest()`.
 *
 * The wrapper is a `Proxy`, so `instanceof RequestQueue` and every property Crawlee reads keep
 * working; methods it does not override run on the real manager.
 *
 * Held requests (deferred while robots.txt is unreachable, or waiting for their Crawl-delay slot)
 * stay locked in the queue, so `isFinished()` stays false and the crawl waits for them while it
 * goes on with other origins, as Crawlee's own `sameDomainDelaySecs` does.
 */
/** Every interceptor's proxies, to what each wraps: the guards of one crawler each wrap its queue once. */
const wrappedBy = new WeakMap<object, object>();
/** Every interceptor's proxies, to the guard whose interceptor made them. */
const ownerOf = new WeakMap<object, object>();

export class RequestManagerInterceptor {
  readonly #gate: RequestGate;
  readonly #owner: object;
  readonly #proxies = new WeakMap<object, object>();
  readonly #targets = new WeakMap<object, object>();
  readonly #held = new Map<string, HeldRequest>();
  #ready: HeldRequest[] = [];
  /** Work still adding requests (a sitemap seeding): the crawl is not finished before it ends. */
  #busy = 0;

  /**
   * @param owner the guard the interceptor decides for: a queue another of its interceptors
   *   wrapped (`crawler.getRequestQueue()` of an earlier crawler, given to the next) is wrapped
   *   from the real queue, not through that interceptor.
   */
  constructor(gate: RequestGate, owner: object) {
    this.#gate = gate;
    this.#owner = owner;
  }

  /** Keeps the crawl from finishing until `work` settles; returns it. */
  whileBusy<T>(work: Promise<T>): Promise<T> {
    this.#busy++;
    return work.finally(() => {
      this.#busy--;
    });
  }

  /** The wrapped manager (the same proxy each time for the same manager). */
  wrap<T>(given: T): T {
    if (given === null || typeof given !== 'object') return given;
    let manager: object = given;
    // The same guard's wrapper of another crawler: each request would be decided twice, by the
    // other crawler's gate too (recorded as that crawler's, and paced twice, the second time
    // behind the slots held for that crawler's run).
    while (ownerOf.get(manager) === this.#owner && !this.#targets.has(manager)) {
      manager = wrappedBy.get(manager)!;
    }
    // Wrapped by this interceptor already, perhaps under another guard's wrapper: wrapped again,
    // each re-wrap of two guards would nest them deeper, a request decided and held at each level.
    for (let link: object | undefined = manager; link !== undefined; link = wrappedBy.get(link)) {
      if (this.#targets.has(link)) return manager as T;
    }
    // A tandem Crawlee built around the crawler's queue, which is wrapped already: each request is
    // decided once, by the tandem. Checked twice, a request took two Crawl-delay slots, and one
    // held by the queue's wrapper was later taken out by the tandem's and lost.
    const tandem = manager as { requestQueue?: unknown };
    if (this.#targets.has(tandem.requestQueue as object))
      tandem.requestQueue = this.unwrap(tandem.requestQueue);
    let proxy = this.#proxies.get(manager);
    if (proxy === undefined) {
      proxy = this.#proxy(manager as unknown as RequestManagerLike);
      this.#proxies.set(manager, proxy);
      this.#targets.set(proxy, manager);
      wrappedBy.set(proxy, manager);
      ownerOf.set(proxy, this.#owner);
    }
    return proxy as T;
  }

  /** The real manager behind a proxy made here (anything else is returned as is). */
  unwrap<T>(manager: T): T {
    if (manager === null || typeof manager !== 'object') return manager;
    return (this.#targets.get(manager) as T | undefined) ?? manager;
  }

  /** Requests held right now. */
  get heldCount(): number {
    return this.#held.size;
  }

  /** Keeps a request aside until `until`, or until `wake` settles if sooner; it is decided again then. */
  hold(manager: object, request: Request, until: number, paced: boolean, wake?: Promise<unknown>): void {
    const target = this.unwrap(manager) as RequestManagerLike;
    const key = keyOf(request);
    const previous = this.#held.get(key);
    if (previous?.timer !== undefined) clearTimeout(previous.timer);
    const entry: HeldRequest = { target, request, paced, timer: undefined };
    this.#held.set(key, entry);
    const delay = Math.max(0, until - this.#gate.now());
    // Once, by whichever comes first; not after the request was held again or given back.
    const release = () => {
      if (entry.timer === undefined || this.#held.get(key) !== entry) return;
      clearTimeout(entry.timer);
      entry.timer = undefined;
      this.#ready.push(entry);
      this.#gate.ready?.();
    };
    // A delay past what a timer holds (slots of a long Crawl-delay, days ahead) is waited for in
    // steps: one timer would fire after 1 ms and let the request go at once.
    const wait = (rest: number) => {
      entry.timer = setTimeout(
        rest > MAX_TIMER_MS ? () => wait(rest - MAX_TIMER_MS) : release,
        Math.min(rest, MAX_TIMER_MS),
      );
    };
    wait(delay);
    void wake?.then(release);
  }

  /**
   * Gives every held request back to its manager and forgets it (the run ended before them:
   * `maxRequestsPerCrawl`, `stop()`, an abort). Left locked in a queue, a held request would keep
   * the next run, or any other client of the queue, waiting for its lock to expire. Resolves to
   * how many requests were given back.
   */
  async dispose(): Promise<number> {
    const entries = [...this.#held.values()];
    this.#held.clear();
    this.#ready = [];
    for (const entry of entries) if (entry.timer !== undefined) clearTimeout(entry.timer);
    // A manager that cannot take one back (a queue dropped since) leaves it to its lock's expiry.
    await Promise.all(
      entries.map((entry) => entry.target.reclaimRequest(entry.request).catch(() => undefined)),
    );
    return entries.length;
  }

  #proxy(target: RequestManagerLike): object {
    const overrides: Record<PropertyKey, unknown> = {
      fetchNextRequest: () => this.#fetchNext(target),
      // Polled by Crawlee's pool between tasks: the real manager's promise unless a request is held.
      // Any manager of the crawler answers for every held request (see #takeReady): the one it
      // asks now is the one that hands them out, and the crawl is not finished while one is held.
      isEmpty: () => (this.#ready.length > 0 ? Promise.resolve(false) : target.isEmpty()),
      isFinished: () =>
        this.#held.size > 0 || this.#busy > 0 ? Promise.resolve(false) : target.isFinished(),
      reclaimRequest: (request: Request, options?: object) => {
        this.#gate.returned(request);
        return (target.reclaimRequest as (request: Request, options?: object) => Promise<unknown>)(
          request,
          options,
        );
      },
      addRequest: async (request: Source | string, options?: object) => {
        const [keep] = await admit(this.#gate, [request]);
        if (keep) return target.addRequest!(request, options);
        return droppedOperation(request);
      },
      addRequests: async (requests: (Source | string)[], options?: object) => {
        const list = [...requests];
        const keep = await admit(this.#gate, list);
        return target.addRequests!(
          list.filter((_, i) => keep[i]),
          options,
        );
      },
      addRequestsBatched: async (requests: RequestsLike, options?: object) => {
        if (Array.isArray(requests)) {
          const keep = await admit(this.#gate, requests);
          return target.addRequestsBatched!(
            requests.filter((_, i) => keep[i]),
            options,
          );
        }
        return target.addRequestsBatched!(this.#admitted(requests), options);
      },
    };
    const bound = new Map<PropertyKey, unknown>();
    return new Proxy(target, {
      get: (object, property) => {
        if (Object.hasOwn(overrides, property) && typeof Reflect.get(object, property) === 'function') {
          return overrides[property];
        }
        const value = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        // Methods run on the real manager: internal calls and private state stay its own.
        let method = bound.get(property);
        if (method === undefined || (method as { original?: unknown }).original !== value) {
          const wrapped = Object.assign((...args: unknown[]) => value.apply(object, args), {
            original: value,
          });
          bound.set(property, wrapped);
          method = wrapped;
        }
        return method;
      },
    });
  }

  /**
   * Reads an iterable in chunks, resolving the new origins of each chunk together. The first chunk
   * is admitted while the caller of the add waits, and a failure there (a closed store) reaches
   * it. Crawlee adds the rest in the background, where a failure would be an unhandled rejection
   * and leave `waitForAllRequestsToBeAdded` pending for ever: the gate is told, and adding stops.
   */
  async *#admitted(requests: RequestsLike): AsyncGenerator<Source | string> {
    let chunk: (Source | string)[] = [];
    let read = 0;
    const admit = async (): Promise<(Source | string)[] | undefined> => {
      try {
        return await this.#admitChunk(chunk);
      } catch (error) {
        if (read === 0) throw error;
        this.#gate.stoppedAdding(error as Error, read);
        return undefined;
      }
    };
    for await (const request of requests as AsyncIterable<Source | string>) {
      chunk.push(request);
      if (chunk.length >= ADMIT_CHUNK) {
        const admitted = await admit();
        if (admitted === undefined) return;
        yield* admitted;
        read += chunk.length;
        chunk = [];
      }
    }
    if (chunk.length > 0) yield* (await admit()) ?? [];
  }

  async #admitChunk(chunk: (Source | string)[]): Promise<(Source | string)[]> {
    const keep = await admit(this.#gate, chunk);
    return chunk.filter((_, i) => keep[i]);
  }

  async #fetchNext(target: RequestManagerLike): Promise<Request | null> {
    // The requests skipped on the way are marked handled together, once their records are written
    // (see RequestGate.recorded): one wait for the records of a run of skips, not one each.
    const skipped: Request[] = [];
    try {
      for (let scanned = 0; scanned < MAX_SCAN_PER_FETCH; scanned++) {
        // Nearly always none: no promise then.
        const ready = this.#ready.length === 0 ? undefined : await this.#takeReady(target);
        let request: Request | null;
        let paced = false;
        if (ready !== undefined) {
          request = ready.request;
          paced = ready.paced;
        } else {
          request = await target.fetchNextRequest();
          if (request === null) return null;
          // A request held longer than its queue lock comes out of the queue again: we still hold it.
          if (this.#held.size > 0 && this.#held.has(keyOf(request))) continue;
        }
        let decision: DequeueDecision;
        try {
          // Most decisions need no I/O and come without a promise: no await for them.
          const released = this.#gate.release(request, paced);
          decision = released instanceof Promise ? await released : released;
        } catch (error) {
          // Neither fetched nor lost: back in the queue, unlocked, for a run that can check it.
          // Left locked, it would keep the queue unfinished and the crawl running for ever.
          await target.reclaimRequest(request);
          this.#gate.releaseFailed(error as Error);
          return null;
        }
        if (decision.action === 'fetch') return request;
        if (decision.action === 'skip') skipped.push(request);
        else this.hold(target, request, decision.until, decision.paced, decision.wake);
      }
      return null;
    } finally {
      if (skipped.length > 0) {
        await this.#gate.recorded();
        for (const request of skipped) await target.markRequestHandled(request);
      }
    }
  }

  /**
   * A held request whose time has come, taken out of the manager it came from. One held by a
   * manager the crawler no longer asks (Crawlee replaces its RequestList adapter with a tandem of
   * list and queue once a handler adds requests) is moved into the one it asks now: added to
   * it, then marked handled in its old one, whose unfinished request would keep the crawl from
   * ever finishing. It comes out of the new manager later, and is decided again then.
   */
  async #takeReady(target: RequestManagerLike): Promise<HeldRequest | undefined> {
    while (this.#ready.length > 0) {
      const entry = this.#ready.shift()!;
      this.#held.delete(keyOf(entry.request));
      if (entry.target === target) return entry;
      await target.addRequest!(entry.request, { forefront: true });
      await entry.target.markRequestHandled(entry.request);
    }
    return undefined;
  }
}

function keyOf(request: Request): string {
  return request.id ?? request.uniqueKey;
}

/**
 * The URL an add would fetch: the request's own, or, for a source whose URLs Crawlee downloads
 * from a list during the add (`requestsFromUrl`), the list's. The URLs in the list are checked
 * as they leave the queue.
 */
function urlOf(request: Source | string): string | undefined {
  if (typeof request === 'string') return request;
  if (typeof request?.url === 'string') return request.url;
  return listUrlOf(request);
}

function listUrlOf(request: Source | string): string | undefined {
  if (typeof request === 'string' || typeof request?.url === 'string') return undefined;
  const list = (request as { requestsFromUrl?: unknown } | undefined)?.requestsFromUrl;
  return typeof list === 'string' ? list : undefined;
}

/** Asks `gate` which of `requests` to add: their URLs, which of them are lists, and the requests. */
function admit(gate: RequestGate, requests: readonly (Source | string)[]): Promise<boolean[]> {
  const lists = new Set<number>();
  requests.forEach((request, i) => {
    if (listUrlOf(request) !== undefined) lists.add(i);
  });
  return gate.admit(requests.map(urlOf), lists.size > 0 ? lists : undefined, requests);
}

/**
 * The key the queue tells a request apart by, when it is not the one of its URL alone: a
 * `uniqueKey` of its own, or one `useExtendedUniqueKey` (method and payload) or `keepUrlFragment`
 * makes. Undefined for a request the queue keys by its URL, the most usual: such requests are one
 * in the queue, and one record. Computed only for a request that is dropped.
 */
export function queueKeyOf(source: Source | string | Request | undefined): string | undefined {
  if (source === undefined || typeof source === 'string' || typeof source.url !== 'string') return undefined;
  const { url } = source;
  const options = source as {
    uniqueKey?: unknown;
    method?: string;
    payload?: string | Buffer;
    keepUrlFragment?: boolean;
    useExtendedUniqueKey?: boolean;
  };
  let key = typeof options.uniqueKey === 'string' ? options.uniqueKey : undefined;
  if (key === undefined) {
    if (options.useExtendedUniqueKey !== true && options.keepUrlFragment !== true) return undefined;
    key = Request.computeUniqueKey({
      url,
      method: (options.method ?? 'GET') as 'GET',
      payload: options.payload,
      keepUrlFragment: options.keepUrlFragment,
      useExtendedUniqueKey: options.useExtendedUniqueKey,
    });
  }
  return key === Request.computeUniqueKey({ url, method: 'GET' }) ? undefined : key;
}

/** What `addRequest` answers for a URL that was not added. */
function droppedOperation(request: Source | string) {
  const uniqueKey = typeof request === 'string' ? request : (request.uniqueKey ?? urlOf(request) ?? '');
  return { requestId: '', uniqueKey, wasAlreadyPresent: false, wasAlreadyHandled: true, forefront: false };
}
