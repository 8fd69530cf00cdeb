import { show } from '../robots/index.js';
import type { SitemapUrlPattern } from './options.js';

/**
 * Turns a URL glob into an anchored RegExp: `**` is any sequence, `*` any sequence without `/`
 * (it stays inside one path segment), `?` one character other than `/`; everything else is
 * literal.
 *
 * @example
 * globToRegExp('https://example.com/blog/**').test('https://example.com/blog/2024/a'); // true
 * globToRegExp('https://example.com/*.html').test('https://example.com/a/b.html'); // false
 */
export function globToRegExp(glob: string): RegExp {
  if (typeof glob !== 'string') throw new TypeError(`globToRegExp() takes a string, got ${show(glob)}.`);
  let source = '^';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === '*') {
      if (glob[index + 1] === '*') {
        source += '.*';
        while (glob[index + 1] === '*') index++;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
    }
  }
  return new RegExp(`${source}$`);
}

/** Compiles patterns once; a global or sticky RegExp is copied without those flags (they make `test` stateful). */
export function compilePatterns(patterns: readonly SitemapUrlPattern[] | undefined): RegExp[] {
  if (patterns === undefined) return [];
  return patterns.map((pattern, index) => {
    if (pattern instanceof RegExp) {
      return pattern.global || pattern.sticky
        ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''))
        : pattern;
    }
    if (typeof pattern === 'string') return globToRegExp(pattern);
    throw new TypeError(`URL pattern ${index} must be a glob string or a RegExp, got ${typeof pattern}.`);
  });
}

/**
 * W3C Datetime, the form sitemaps.org prescribes: `2024`, `2024-05`, `2024-05-17`,
 * `2024-05-17T10:00Z`, `2024-05-17T10:00:00.5+02:00`. Also read: a space for `T`, an offset
 * without its colon, and no zone at all (taken as UTC, so that a date never depends on the
 * machine's time zone).
 */
const W3C_DATETIME =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;

/** RFC 822 / 1123 dates of RSS `pubDate`: `Tue, 05 Mar 2024 10:00:00 GMT`, `5 Mar 24 10:00 +0100`. */
const RFC822_DATE =
  /^(?:[a-z]{3},?\s*)?(\d{1,2})\s+([a-z]{3})\s+(\d{2}|\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s*([a-z]{1,3}|[+-]\d{4})?$/i;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** RFC 822's zone names, in hours from UTC (military letters other than Z are unreliable and unread). */
const ZONES: Record<string, number> = {
  ut: 0,
  gmt: 0,
  utc: 0,
  z: 0,
  est: -5,
  edt: -4,
  cst: -6,
  cdt: -5,
  mst: -7,
  mdt: -6,
  pst: -8,
  pdt: -7,
};

/**
 * Reads a `lastmod` value (W3C Datetime, or an RFC 822 date from RSS) to a time in ms; undefined
 * when it is no such date (`N/A`, `Rev 3`, `2024-02-30`): such an entry counts as undated.
 */
export function parseLastmod(value: string): number | undefined {
  if (typeof value !== 'string') throw new TypeError(`parseLastmod() takes a string, got ${show(value)}.`);
  const text = value.trim();
  const w3c = W3C_DATETIME.exec(text);
  if (w3c !== null) {
    const [, year, month = '1', day = '1', hour = '0', minute = '0', second = '0', fraction, zone] = w3c;
    const offset = zone === undefined ? 0 : zoneMinutes(zone);
    if (offset === undefined) return undefined;
    const ms = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
    return timeOf(+year, +month, +day, +hour, +minute, +second, ms, offset);
  }
  const rfc = RFC822_DATE.exec(text);
  if (rfc !== null) {
    const [, day, monthName, yearText, hour, minute, second = '0', zone] = rfc;
    const month = MONTHS.indexOf(monthName.toLowerCase()) + 1;
    if (month === 0) return undefined;
    // RFC 822 has two-digit years; RFC 1123 four. Two digits are read as the closest century.
    const year = yearText.length === 2 ? (+yearText < 50 ? 2000 : 1900) + +yearText : +yearText;
    const offset = zone === undefined ? 0 : zoneMinutes(zone);
    if (offset === undefined) return undefined;
    return timeOf(year, month, +day, +hour, +minute, +second, 0, offset);
  }
  return undefined;
}

/** Minutes east of UTC of a zone (`Z`, `+02:00`, `+0200`, `-05`, `GMT`, `EST`), or undefined. */
function zoneMinutes(zone: string): number | undefined {
  const sign = zone[0];
  if (sign === '+' || sign === '-') {
    const digits = zone.slice(1).replace(':', '');
    const hours = +digits.slice(0, 2);
    const minutes = digits.length > 2 ? +digits.slice(2) : 0;
    if (hours > 23 || minutes > 59) return undefined;
    return (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const hours = ZONES[zone.toLowerCase()];
  return hours === undefined ? undefined : hours * 60;
}

/** The UTC time of a date and time given at `offset` minutes east of UTC; undefined when a field is out of range. */
function timeOf(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offset: number,
): number | undefined {
  // A leap second is read as the last second of its minute.
  const seconds = second === 60 ? 59 : second;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || seconds > 59) return undefined;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, seconds, ms));
  // Set apart: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year);
  // An overflowing day is carried into the next month: 2024-02-30 is no date.
  if (date.getUTCDate() !== day) return undefined;
  return date.getTime() - offset * 60_000;
}

/**
 * Reads {@link SitemapSeedOptions.modifiedSince}. A string is read as `lastmod` values are (a
 * date-time without a zone is UTC), so the same option keeps the same URLs on any machine;
 * other forms `Date.parse` knows are read by it.
 */
export function parseSince(value: Date | string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  let time = Number.NaN;
  if (value instanceof Date) time = value.getTime();
  else if (typeof value === 'number') time = value;
  else if (typeof value === 'string') {
    const lastmod = parseLastmod(value);
    // In the form of a lastmod but out of range (`2024-02-30`): Date.parse would carry it over.
    if (lastmod === undefined && (W3C_DATETIME.test(value.trim()) || RFC822_DATE.test(value.trim()))) {
      throw new TypeError(`seed() option modifiedSince ${show(value)} is no date (a field is out of range).`);
    }
    time = lastmod ?? Date.parse(value);
  }
  if (!Number.isFinite(time)) {
    throw new TypeError(
      `seed() option modifiedSince must be a Date, a time in ms or an ISO 8601 date, got ${show(value)}.`,
    );
  }
  return time;
}
