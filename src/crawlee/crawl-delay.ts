import { MAX_TIMER_MS } from '../options.js';

/** What CrawlDelayCache knows of an origin. */
export interface KnownCrawlDelay {
  /** Seconds asked for; undefined when robots.txt asks for none. */
  seconds: number | undefined;
  /** When the policy it was read from expires. */
  until: number;
}

/** Below twice this many origins, a CrawlDelayCache is not swept. */
export const CRAWL_DELAYS_SWEEP_MIN = 4096;

/**
 * The `Crawl-delay` each origin's robots.txt asks for, as read from its policy, kept until the
 * policy expires (RFC 9309 2.4: a copy is used at most 24 hours). Expired origins are forgotten
 * each time the cache doubles: it holds the origins of the last day or so, not every origin a
 * long-lived guard has met.
 */
export class CrawlDelayCache {
  readonly #known = new Map<string, KnownCrawlDelay>();
  #paced = 0;
  #sweptAt = CRAWL_DELAYS_SWEEP_MIN;

  /** How many origins known ask for a delay: with none, no URL needs its origin read for pacing. */
  get pacedOrigins(): number {
    return this.#paced;
  }

  get size(): number {
    return this.#known.size;
  }

  get(origin: string): KnownCrawlDelay | undefined {
    return this.#known.get(origin);
  }

  /** Remembers the delay of `origin` (undefined: none) until `until`; `now` is the time. */
  set(origin: string, seconds: number | undefined, until: number, now: number): void {
    const known = this.#known.get(origin);
    this.#paced += Number(isDelay(seconds)) - Number(isDelay(known?.seconds));
    if (known === undefined && this.#known.size >= this.#sweptAt * 2) this.#sweep(now);
    this.#known.set(origin, { seconds, until });
  }

  /** Forgets the origins whose policy has expired; their next request reads the delay again. */
  #sweep(now: number): void {
    for (const [origin, known] of this.#known) {
      if (known.until > now) continue;
      this.#known.delete(origin);
      if (isDelay(known.seconds)) this.#paced--;
    }
    this.#sweptAt = Math.max(CRAWL_DELAYS_SWEEP_MIN, this.#known.size);
  }
}

function isDelay(seconds: number | undefined): boolean {
  return seconds !== undefined && seconds > 0;
}

/**
 * Crawl-delay pacing per origin. `Crawl-delay` is not part of RFC 9309 (it lists it among the
 * extensions crawlers may read); it asks for a number of seconds between two requests to the
 * origin. Each origin has its own next free slot, so a slow origin never delays another one.
 */
export class CrawlDelayPacer {
  readonly #nextSlot = new Map<string, number>();
  /** When the last request of each origin went out (see beforeSend). */
  readonly #lastSent = new Map<string, number>();
  /**
   * When the last request of each origin really left (a page load as the browser let it go, a
   * plain HTTP request of AdaptivePlaywrightCrawler as it was sent), or its response came back
   * (see leavesNow, answered).
   */
  readonly #leftNow = new Map<string, number>();
  /** When the last request of each origin was written to its connection (see written). */
  readonly #written = new Map<string, number>();
  /** A delay after the last request of each origin handed to the crawler (see granted). */
  readonly #grantedUntil = new Map<string, number>();
  /** When the last request of each origin was handed to the crawler (see granted). */
  readonly #grantedAt = new Map<string, number>();

  /**
   * Reserves the next slot of `origin` for one request. Returns `now` when it may go at once, or
   * the later time of its slot; the slot after it is `delayMs` later either way.
   */
  reserve(origin: string, delayMs: number, now: number): number {
    const next = this.#nextSlot.get(origin) ?? 0;
    const slot = Math.max(now, next);
    this.#nextSlot.set(origin, slot + delayMs);
    return slot;
  }

  /**
   * A request of `origin` is about to go out at `now`: how long it must wait first so that it
   * follows the origin's last request by `delayMs` at least. Its sending is counted at the end of
   * that wait (see sent).
   */
  beforeSend(origin: string, delayMs: number, now: number): number {
    const wait = this.waitToSend(origin, delayMs, now);
    this.sent(origin, delayMs, now + wait);
    return wait;
  }

  /**
   * A request of `origin` really leaves at `now` (a page load as the browser lets it go, or a plain
   * HTTP request as it is sent): how long it must still wait to follow the origin's last one by
   * `delayMs`. The wait before it (see beforeSend) was reckoned in a navigation hook, from when the
   * requests before it were planned to go; the browser's own latency varies by tens of
   * milliseconds, and a request planned to go later than this one may well have gone out earlier.
   * This wait is reckoned from what really went out.
   */
  leavesNow(origin: string, delayMs: number, now: number): number {
    const last = this.#leftNow.get(origin);
    // One millisecond more: the clock counts whole milliseconds, so a gap it reads as `delayMs`
    // may be up to one less.
    const wait = last === undefined ? 0 : Math.max(0, last + delayMs + 1 - now);
    this.#leftNow.set(origin, now + wait);
    this.sent(origin, delayMs, now + wait);
    return wait;
  }

  /**
   * A request of `origin` was written to its connection at `at`: later than it left (see
   * leavesNow) when it waited for a new connection, or for a busy event loop. The origin's next
   * request, which may be waiting already, follows it by `delayMs` at least (see afterWritten).
   */
  written(origin: string, delayMs: number, at: number): void {
    this.#written.set(origin, Math.max(at, this.#written.get(origin) ?? at));
    this.#leftNow.set(origin, Math.max(at, this.#leftNow.get(origin) ?? at));
    this.sent(origin, delayMs, at);
  }

  /**
   * A request of `origin` has waited its turn (see leavesNow) and goes out at `now`: how long it
   * must still wait to follow by `delayMs` the last request written (see written), which may have
   * been written later than planned while this one waited. Not from a response: a slow server
   * would add its time to the spacing.
   */
  afterWritten(origin: string, delayMs: number, now: number): number {
    const last = this.#written.get(origin);
    const wait = last === undefined ? 0 : Math.max(0, last + delayMs + 1 - now);
    if (wait > 0) {
      this.#leftNow.set(origin, Math.max(now + wait, this.#leftNow.get(origin) ?? 0));
      this.sent(origin, delayMs, now + wait);
    }
    return wait;
  }

  /**
   * The browser has a response from `origin` at `at`: the request reached the server before, however
   * long after it left the browser. The origin's next request follows it by `delayMs` at least.
   */
  answered(origin: string, delayMs: number, at: number): void {
    this.#leftNow.set(origin, Math.max(at, this.#leftNow.get(origin) ?? at));
    this.sent(origin, delayMs, at);
  }

  /** Per origin, the end of the turn of the last page load handed to the browser (see inLine). */
  readonly #pageLoads = new Map<string, Promise<void>>();
  /** Per origin, the end of the turn of the last HTTP request about to be sent (see inSendLine). */
  readonly #sends = new Map<string, Promise<void>>();

  /**
   * A page load of `origin` takes its turn: resolves once the page load before it was answered,
   * and hands back the function that ends this one's turn (called when its answer comes, or when
   * it will get none). A request leaving the browser reaches the server tens of milliseconds later
   * at times (a new connection), after one that left after it: spaced as they leave, page loads
   * that pages started by script came up to 210 ms short of the delay at the server. Spaced from
   * the answer of the one before, which the server had sent by then, they cannot. A turn no one
   * ends is over `capMs` after it began, so that a load that never gets an answer does not stop
   * the origin.
   */
  inLine(origin: string, capMs: number): Promise<() => void> {
    return takeTurn(this.#pageLoads, origin, capMs);
  }

  /**
   * An HTTP request of `origin` about to be sent takes its turn: resolves once the one before it
   * has left, and hands back the function that ends this one's turn as it leaves. Each then
   * reckons its wait from when the one before really left, which the wait for that one's own
   * predecessor's write (see afterWritten) may have put later than planned. A turn no one ends is
   * over after `capMs`.
   */
  inSendLine(origin: string, capMs: number): Promise<() => void> {
    return takeTurn(this.#sends, origin, capMs);
  }

  /** How long a request of `origin` must wait at `now` to follow its last one by `delayMs`. */
  waitToSend(origin: string, delayMs: number, now: number): number {
    const last = this.#lastSent.get(origin);
    return last === undefined ? 0 : Math.max(0, last + delayMs - now);
  }

  /** A request of `origin` was handed to the crawler at `at`, to go out now. */
  granted(origin: string, delayMs: number, at: number): void {
    this.#grantedUntil.set(origin, Math.max(at + delayMs, this.#grantedUntil.get(origin) ?? 0));
    this.#grantedAt.set(origin, Math.max(at, this.#grantedAt.get(origin) ?? at));
  }

  /**
   * The earliest a request of `origin` may be handed to the crawler: `delayMs`, the delay in force
   * now, after the last one was. A slot is reckoned when its request leaves the queue, from the
   * slots before it and the delay of then: the request before it may have gone out late since (it
   * waited for robots.txt to be fetched again), and the delay may have grown.
   */
  grantableAt(origin: string, delayMs: number): number {
    const last = this.#grantedAt.get(origin);
    return last === undefined ? 0 : last + delayMs;
  }

  /** Runs of crawlers paced here going on now. */
  #runs = 0;

  /** A crawler paced here starts a run. */
  runStarted(): void {
    this.#runs++;
  }

  /** A run ends; once none goes on, the slots reserved for requests that did not go out are forgotten. */
  runEnded(): void {
    if (--this.#runs === 0) this.#forgetReservations();
  }

  /**
   * Forgets the slots reserved for requests that will not go out (the runs ended before them), so
   * that the next requests do not wait for them. What was handed to the crawler still counts: the
   * next run's first request of an origin follows the last one handed out by the delay.
   */
  #forgetReservations(): void {
    this.#nextSlot.clear();
    for (const [origin, until] of this.#grantedUntil) this.#nextSlot.set(origin, until);
  }

  /**
   * A request of `origin` waits until `slot` for a turn given elsewhere (a fleet's, shared through a
   * store's backend): the origin's next slot here is a delay after it at the earliest.
   */
  reservedElsewhere(origin: string, delayMs: number, slot: number): void {
    this.#nextSlot.set(origin, Math.max(this.#nextSlot.get(origin) ?? 0, slot + delayMs));
  }

  /** A request of `origin` goes out at `at`: the origin's next slot is a delay after it at the earliest. */
  sent(origin: string, delayMs: number, at: number): void {
    this.#lastSent.set(origin, Math.max(at, this.#lastSent.get(origin) ?? at));
    this.#nextSlot.set(origin, Math.max(this.#nextSlot.get(origin) ?? 0, at + delayMs));
  }
}

/**
 * Takes the next turn of `origin` in `lines`: resolves once the turn before it is over, with the
 * function that ends this one; a turn not ended is over `capMs` after it began.
 */
async function takeTurn(
  lines: Map<string, Promise<void>>,
  origin: string,
  capMs: number,
): Promise<() => void> {
  const before = lines.get(origin);
  let end!: () => void;
  const turn = new Promise<void>((resolve) => {
    end = resolve;
  });
  lines.set(origin, turn);
  void turn.then(() => {
    if (lines.get(origin) === turn) lines.delete(origin);
  });
  if (before !== undefined) await before;
  // A cap past what a timer holds would end the turn at once: it is held to the longest a timer waits (24.8 days).
  const cap = setTimeout(end, Math.min(capMs, MAX_TIMER_MS));
  cap.unref?.();
  return () => {
    clearTimeout(cap);
    end();
  };
}

/** The pacers of the process: one per store and product token (see pacerOf). */
const pacers = new WeakMap<object, Map<string, CrawlDelayPacer>>();

/**
 * The pacer of a crawler: guards that share a store and a product token are one crawler to the
 * sites, so they share the slots of each origin (two guards with pacers of their own would each
 * send a request per delay).
 */
export function pacerOf(store: object, productToken: string): CrawlDelayPacer {
  let byToken = pacers.get(store);
  if (byToken === undefined) {
    byToken = new Map();
    pacers.set(store, byToken);
  }
  const token = productToken.toLowerCase();
  let pacer = byToken.get(token);
  if (pacer === undefined) {
    pacer = new CrawlDelayPacer();
    byToken.set(token, pacer);
  }
  return pacer;
}

/** A wait of `ms` milliseconds for a message: `90 s` below two minutes, `83 min` below two hours, `2.3 h` below two days, else `4.1 days`. */
export function formatWait(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  const minutes = ms / 60_000;
  if (minutes < 120) return `${Math.round(minutes)} min`;
  const hours = minutes / 60;
  if (hours < 48) return `${hours.toFixed(1)} h`;
  return `${(hours / 24).toFixed(1)} days`;
}

/**
 * Waits `ms`, however long. A Node timer past MAX_TIMER_MS (about 24.8 days) fires after 1 ms, and
 * a Crawl-delay near `crawlDelay.maxSeconds`, times the requests of its origin queued before, can
 * ask for more.
 */
export async function waitFor(ms: number): Promise<void> {
  let rest = ms;
  while (rest > 0) {
    const part = Math.min(rest, MAX_TIMER_MS);
    await new Promise((resolve) => setTimeout(resolve, part));
    rest -= part;
  }
}
