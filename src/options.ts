/*
 * The checks of the options of the fetcher, the store and its backends, shared by every layer
 * above the core. A value a timer, Redis or lru-cache
 * cannot hold would not fail where it is given but later, in every call: Node cuts a timer
 * longer than 2^31 - 1 ms to 1 ms, lru-cache preallocates its tables for `max` entries, Redis
 * refuses a TTL that is not an integer, a client without `request()` fails every fetch, a blank
 * product token matches the `*` group. So each option is refused when it is made, with a
 * message that names it and says what is accepted.
 */
import { isProductToken, productTokenOf, show } from './robots/index.js';

export { show };

/** The longest delay a Node timer holds (about 24.8 days); longer ones fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * Longest duration of an option that only sets a time to compare with the clock, never a timer
 * (a lifetime, a backoff): a century, so that every sum of such times stays an exact integer.
 */
export const MAX_SPAN_MS = 100 * 365 * 24 * 60 * 60 * 1000;

/**
 * Most entries of an in-memory LRU: lru-cache allocates about 16 bytes per entry of `max` up
 * front (160 MB for this many).
 */
export const MAX_LRU_ENTRIES = 10_000_000;

/** `value`, a time a timer waits for; past MAX_TIMER_MS (Node fires it after 1 ms) a RangeError naming `subject`. */
export function withinTimer(subject: string, value: number): number {
  if (value > MAX_TIMER_MS) {
    throw new RangeError(`${subject} must be at most ${MAX_TIMER_MS} ms (about 24 days), got ${value}.`);
  }
  return value;
}

/** What a numeric option accepts. */
export interface NumberBounds {
  /** Smallest value accepted. */
  min: number;
  /** True when `min` itself is refused (a duration that must be more than 0). */
  minExclusive?: boolean;
  /** Largest value accepted. */
  max: number;
  /** Only whole numbers. */
  integer?: boolean;
  /** What the value counts, for the message: `milliseconds`, `days`, `bytes`, `entries`. */
  unit?: string;
}

/**
 * `value` when it is within `bounds`, `fallback` when it is undefined.
 *
 * @param owner the class the option belongs to, for the message (`RobotsStore`).
 * @throws TypeError when `value` is not a number.
 * @throws RangeError when it is out of bounds, not finite, or not whole where it must be.
 */
export function numberOption(
  owner: string,
  name: string,
  value: unknown,
  fallback: number,
  bounds: NumberBounds,
): number {
  if (value === undefined) return fallback;
  const accepted = describe(bounds);
  if (typeof value !== 'number') {
    throw new TypeError(`${owner} option ${name} must be ${accepted}, got ${show(value)}.`);
  }
  const { min, max, minExclusive = false, integer = false } = bounds;
  const fits =
    Number.isFinite(value) &&
    (minExclusive ? value > min : value >= min) &&
    value <= max &&
    (!integer || Number.isInteger(value));
  if (!fits) throw new RangeError(`${owner} option ${name} must be ${accepted}, got ${show(value)}.`);
  return value;
}

/** A duration a timer can hold: more than 0 (or from 0 with `allowZero`) up to `max`. */
export function durationOption(
  owner: string,
  name: string,
  value: unknown,
  fallback: number,
  { allowZero = false, max = MAX_TIMER_MS }: { allowZero?: boolean; max?: number } = {},
): number {
  return numberOption(owner, name, value, fallback, {
    min: 0,
    minExclusive: !allowZero,
    max,
    unit: 'milliseconds',
  });
}

/** A function option (a clock), or `fallback` when undefined. */
function functionOption<T extends (...args: never[]) => unknown>(
  owner: string,
  name: string,
  value: unknown,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') {
    throw new TypeError(`${owner} option ${name} must be a function, got ${show(value)}.`);
  }
  return value as T;
}

/**
 * A `clock` option: a function giving milliseconds, read once here. A clock that gives no time
 * (NaN, a string) would make every lifetime, backoff and delay compare false: copies would never
 * be fresh and waits never end.
 */
export function clockOption(owner: string, value: unknown): () => number {
  const clock = functionOption(owner, 'clock', value, Date.now);
  const time: unknown = clock();
  if (typeof time !== 'number' || !Number.isFinite(time)) {
    throw new TypeError(
      `${owner} option clock must return milliseconds as a finite number, got ${show(time)}.`,
    );
  }
  return clock;
}

/** A boolean option, or `fallback` when undefined: a string such as `'false'` would read as true. */
export function booleanOption(owner: string, name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new TypeError(`${owner} option ${name} must be true or false, got ${show(value)}.`);
  }
  return value;
}

/** A string option, or `fallback` when undefined; `nonEmpty` refuses ''. */
export function stringOption(
  owner: string,
  name: string,
  value: unknown,
  fallback: string,
  { nonEmpty = false }: { nonEmpty?: boolean } = {},
): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || (nonEmpty && value === '')) {
    throw new TypeError(
      `${owner} option ${name} must be a${nonEmpty ? ' non-empty' : ''} string, got ${show(value)}.`,
    );
  }
  return value;
}

/**
 * An object option given by the caller (a client, a backend, a logger, a group of settings), or
 * undefined when it is not given. One without the methods it is called through would not fail
 * here but in every call, as `x.load is not a function`.
 *
 * @param expected what the option is, for the message: `a RobotsHttpClient`.
 * @param methods the methods it must have; `optional` ones must be functions when present.
 * @throws TypeError when `value` is not an object, or lacks one of the methods.
 */
export function objectOption<T extends object>(
  owner: string,
  name: string,
  value: unknown,
  expected: string,
  { methods = [], optional = [] }: { methods?: readonly string[]; optional?: readonly string[] } = {},
): T | undefined {
  if (value === undefined) return undefined;
  let got = show(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    const missing = [
      ...methods.filter((method) => typeof fields[method] !== 'function'),
      ...optional.filter((method) => fields[method] !== undefined && typeof fields[method] !== 'function'),
    ];
    if (missing.length === 0) return value as T;
    const names = missing.map((method) => `${method}()`);
    got = `${got} without ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`}`;
  }
  throw new TypeError(`${owner} option ${name} must be ${expected}, got ${got}.`);
}

/**
 * An option that must be an instance of `type` (a Crawlee Configuration), or undefined when it
 * is not given.
 *
 * @param expected what the option is, for the message: `a Crawlee Configuration`.
 * @throws TypeError when `value` is not an instance of `type`.
 */
export function instanceOption<T>(
  owner: string,
  name: string,
  value: unknown,
  type: abstract new (...args: never[]) => T,
  expected: string,
): T | undefined {
  if (value === undefined || value instanceof type) return value;
  throw new TypeError(`${owner} option ${name} must be ${expected}, got ${show(value)}.`);
}

/**
 * The product token (lower case) that `value`, a bare token or a whole User-Agent header, names,
 * or `*`, which asks for the `*` group alone. A value that names none (`''`, blanks, an unset
 * environment variable, `Example Bot`, `é-Bot/1.0`) would match no group and so fall silently
 * to `*`: it is refused.
 *
 * @param subject what `value` is, for the message: `RobotsStore option productToken`.
 * @param options.star accept `*`.
 * @param options.hint said after the message: how to fix it.
 * @throws TypeError when `value` names no product token.
 */
export function productTokenOption(
  subject: string,
  value: unknown,
  { star = true, hint }: { star?: boolean; hint?: string } = {},
): string {
  if (star && value === '*') return '*';
  const token = typeof value === 'string' ? productTokenOf(value) : '';
  if (isProductToken(token)) return token;
  const orStar = star ? ' or be "*" for the * group alone' : '';
  throw new TypeError(
    `${subject} must name a product token (RFC 9309 2.2.1: letters, "-" and "_", such as "ExampleBot", alone or in a User-Agent header)${orStar}, got ${show(value)}.${hint === undefined ? '' : ` ${hint}`}`,
  );
}

function describe({ min, minExclusive, max, integer, unit }: NumberBounds): string {
  const what = integer ? 'a whole number' : 'a number';
  const of = unit === undefined ? '' : ` of ${unit}`;
  const from = minExclusive ? `more than ${min}` : `from ${min}`;
  return `${what}${of} ${from}${minExclusive ? ' and at most' : ' to'} ${max}`;
}

/**
 * Every option an owner reads, as the keys of an object typed `OptionKeys<TheOptions>`: the
 * compiler then refuses a list that misses an option or names one the type does not have.
 */
export type OptionKeys<T> = { readonly [K in keyof Required<T>]: true };

/**
 * Refuses an option `owner` does not read. A misspelt option is otherwise ignored without a word
 * and its default used in its place: `enqueueWhenRobotsUnrechable: false` would queue what it
 * was meant to keep out. A key set to `undefined` is let through, as an unset option.
 *
 * @param owner what the options are given to, for the message: `RobotsStore`, `seed()`.
 * @throws TypeError naming the key, the option it is likely a misspelling of, or the options
 *   there are.
 */
export function refuseUnknownOptions(
  owner: string,
  options: object,
  known: Readonly<Record<string, true>>,
): void {
  // Typed as an object, but a JavaScript caller may pass anything.
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    const got = options === null ? 'null' : Array.isArray(options) ? 'an array' : show(options);
    // `RobotsGuard option crawlDelay` is an option itself; `RedisBackend` has options.
    const what = owner.includes(' option ') ? owner : `${owner} options`;
    throw new TypeError(`${what} must be an object, got ${got}.`);
  }
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(known, key) || (options as Record<string, unknown>)[key] === undefined) continue;
    const names = Object.keys(known);
    const near = nearestName(key, names);
    const hint = near === undefined ? `its options are ${names.join(', ')}.` : `did you mean ${near}?`;
    throw new TypeError(`${owner} has no option ${show(key)}: ${hint}`);
  }
}

/**
 * The name of `names` that `key` most likely misspells: the nearest in edits (Levenshtein, case
 * aside) within a budget that grows with the key: none for four characters or less, two for up
 * to seven, three beyond (`maxEntry` for `maxEntries`); undefined when none is that near.
 */
function nearestName(key: string, names: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let nearest: string | undefined;
  let best = key.length >= 8 ? 4 : key.length > 4 ? 3 : 1;
  for (const name of names) {
    const distance = editDistance(lower, name.toLowerCase(), best);
    if (distance < best) {
      nearest = name;
      best = distance;
    }
  }
  return nearest;
}

/** Levenshtein distance of `a` and `b`, or `limit` when it is `limit` or more. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, substitution));
    }
    previous = row;
  }
  return Math.min(previous[b.length], limit);
}
