/**
 * Percent-encoding normalisation, applied the same way to the URL path and to rule
 * patterns so that both sides of a match speak one form (RFC 9309 2.2.2):
 * - octets outside the URI grammar (non-ASCII, controls, space, `"<>\^`{|}`) are encoded;
 * - `%xx` escapes are upper-cased;
 * - escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`) are decoded (`%62%61%7A` = `baz`),
 *   and so is `%27` (`'`, which URL parsers escape in a query);
 * - escapes of reserved characters (`%2F`, `%2A`, `%24`, ...) stay encoded and match literally;
 * - a `%` that starts no escape is a literal `%`, encoded as `%25`; except in a pattern where it
 *   is an escape cut short, followed by at most one hex digit before the pattern's end or a `*`
 *   (`/*%`, `/a%2`): there it stays `%` and matches the `%` of any escape the normal form keeps,
 *   as Google's parser matches it, and the `%25` of a literal one.
 * In a path, `*` and `$` are encoded as `%2A` and `%24`, so a rule can name them only
 * through their escapes (RFC 9309 2.2.3) and never through the special characters.
 */

import { HIGH_BIT, LOW_BIT, pathCharMask } from './chars.js';
import { withoutUserinfo } from './url.js';

/** Upper-case hex digits, as escapes are written (RFC 3986 2.1). */
export const HEX = '0123456789ABCDEF';

/** Character classes, indexed by char code < 128. */
const RAW = 1; // may stay as is
const DECODED = 2; // decoded when found escaped

const classes = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9\-._~]/.test(ch)) classes[c] = RAW | DECODED;
  else if (/[!#$&'()*+,/:;=?@[\]]/.test(ch)) classes[c] = RAW;
}
// RFC 3986 unreserved characters above, and `'`: the WHATWG URL parser escapes it in the query
// of http(s) URLs, so a crawler requests `?q=%27` for `?q='`, and Crawlee and browsers hand
// either form. One form on both sides: `'`.
classes[0x27] |= DECODED;

/** Path characters that need no work at all. `%`, `*` and `$` are not among them. */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!&'()+,/:;=?@[\]]*$/;

/** Set in the result of `writePattern` when the pattern may have a `*`. */
export const WROTE_STAR = 1 << 30;
/** Set in the result of `writePattern` when the pattern was not in normal form as written. */
export const WROTE_NORMALISED = 1 << 29;
/** The position part of the result of `writePattern`. */
export const WROTE_END = WROTE_NORMALISED - 1;

/**
 * Writes the normal form of the pattern `text[from, to)` (what normalizePattern returns) as
 * octets into `out` at `at`, which has room for MAX_EXPANSION octets per unit; `units` holds
 * the code units of `text` (see codeUnitsOf in lines.ts), which the usual case reads. Returns the
 * position after it (WROTE_END), with WROTE_STAR and WROTE_NORMALISED set as they apply. Most
 * patterns are in normal form already and are copied as they are; none makes a string.
 */
export function writePattern(
  text: string,
  units: Uint16Array,
  from: number,
  to: number,
  out: Uint8Array,
  at: number,
): number {
  const anchored = to > from && units[to - 1] === 36; /* $ */
  const end = anchored ? to - 1 : to;
  let o = at;
  let star = 0;
  let i = from;
  // Two units a turn: half the loop's own work, and the loop over the patterns of a 486 KiB file
  // took 15% less time.
  for (; i + 1 < end; i += 2) {
    const c = units[i];
    const d = units[i + 1];
    const kind = PATTERN_UNIT[c];
    const next = PATTERN_UNIT[d];
    if ((kind & next) !== PLAIN_UNIT) {
      if (kind === 0 || next === 0) {
        return normalizeInto(text, from, to, true, out, at) | WROTE_NORMALISED | WROTE_STAR;
      }
      star = WROTE_STAR;
    }
    out[o] = c;
    out[o + 1] = d;
    o += 2;
  }
  if (i < end) {
    const c = units[i];
    const kind = PATTERN_UNIT[c];
    if (kind !== PLAIN_UNIT) {
      if (kind === STAR_UNIT) star = WROTE_STAR;
      else return normalizeInto(text, from, to, true, out, at) | WROTE_NORMALISED | WROTE_STAR;
    }
    out[o++] = c;
  }
  if (anchored) out[o++] = 36;
  return o | star;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** Output buffer of normalizePath and normalizePattern, grown as needed and reused (see MAX_EXPANSION). */
let buffer = new Uint8Array(1024);
const HEX_CODES = Uint8Array.from(HEX, (ch) => ch.charCodeAt(0));
/** The output is ASCII, which UTF-8 decodes fastest (and as a one-byte string). */
const decoder = new TextDecoder();

/** The output buffer, with room for the normal form of `units` units of text. */
function bufferFor(units: number): Uint8Array {
  if (buffer.length < units * MAX_EXPANSION)
    buffer = new Uint8Array(Math.max(units * MAX_EXPANSION, buffer.length * 2));
  return buffer;
}

/** The string of the first `o` octets (ASCII) of the output buffer. */
function bufferText(o: number): string {
  const octets = buffer.subarray(0, o);
  // Short results are cheaper without the decoder's native call (about 25 characters).
  return o <= 24 ? String.fromCharCode.apply(null, octets as unknown as number[]) : decoder.decode(octets);
}

/** Room for the normal form per unit of text: a unit becomes at most nine octets (`é` is `%C3%A9`, `€` `%E2%82%AC`). */
export const MAX_EXPANSION = 12;

/** Writes the normal form of `text[from, to)` as octets into `out` at `at`; returns the position after it. */
function normalizeInto(
  text: string,
  from: number,
  to: number,
  patternMode: boolean,
  out: Uint8Array,
  at: number,
): number {
  let o = at;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 /* % */) {
      const hi = i + 2 < to ? hexValue(text.charCodeAt(i + 1)) : -1;
      const lo = hi >= 0 ? hexValue(text.charCodeAt(i + 2)) : -1;
      if (lo < 0) {
        if (patternMode && escapeCutShort(text, i, to)) {
          out[o++] = 37;
          // Its hex digit upper-cased, as escapes are written: `/a%f` is the start of `%FA`.
          const digit = i + 1 < to ? hexValue(text.charCodeAt(i + 1)) : -1;
          if (digit >= 0) {
            out[o++] = HEX_CODES[digit];
            i++;
          }
        } else o = escapeAt(out, o, 37); // a literal `%`
        continue;
      }
      const byte = (hi << 4) | lo;
      if (byte < 128 && classes[byte] & DECODED) out[o++] = byte;
      else o = escapeAt(out, o, byte);
      i += 2;
    } else if (c === 42 /* * */ || c === 36 /* $ */) {
      // In a pattern `*` is the wildcard and a final `$` the end; a `$` elsewhere is literal.
      if (patternMode && (c === 42 || i === to - 1)) out[o++] = c;
      else o = escapeAt(out, o, c);
    } else if (c < 128 && classes[c] & RAW) {
      out[o++] = c;
    } else {
      let cp = c;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          cp = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
          i++;
        }
      }
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate
      o = cp < 0x80 ? escapeAt(out, o, cp) : escapeUtf8(out, o, cp);
    }
  }
  return o;
}

/**
 * Whether the `%` at `text[at]` of a pattern ending at `to` is followed by at most one hex digit
 * before the end or a `*`: the start of an escape the pattern leaves open (`/*%`, `/a%2*`).
 */
function escapeCutShort(text: string, at: number, to: number): boolean {
  let next = at + 1;
  if (next < to && hexValue(text.charCodeAt(next)) >= 0) next++;
  return next === to || text.charCodeAt(next) === 42; /* * */
}

/** Writes `%XX` for `byte` at `at`; returns the position after it. */
function escapeAt(out: Uint8Array, at: number, byte: number): number {
  out[at] = 37; /* % */
  out[at + 1] = HEX_CODES[byte >> 4];
  out[at + 2] = HEX_CODES[byte & 15];
  return at + 3;
}

/**
 * A stretch of a path already in normal form: plain characters and escapes that stay as they
 * are (upper-case hex of an octet that is not unreserved).
 */
const NORMAL_PATH_RUN =
  /(?:[A-Za-z0-9\-._~!&'()+,/:;=?@[\]]|%(?!27|2D|2E|3[0-9]|4[1-9A-F]|5[0-9A]|5F|6[1-9A-F]|7[0-9A]|7E)[0-9A-F]{2})+/y;
/**
 * The same, a stretch at most 65,536 long, for a path whose runs could be longer than the
 * engine's stack holds (a run of escapes of 20 million units threw a RangeError). Not used
 * for the rest: a counted loop made ordinary paths 30% slower.
 */
const BOUNDED_PATH_RUN = new RegExp(NORMAL_PATH_RUN.source.replace(/\+$/, '{1,65536}'), 'y');
/** Paths longer than this are read with BOUNDED_PATH_RUN. */
const UNBOUNDED_RUN_MAX = 1_000_000;

/** What normalizePath does with a code unit (PATH_UNIT). */
const KEEP = 0; // a plain character: kept
const ESCAPE = 1; // an ASCII character written as its escape (`|` as `%7C`, `*` as `%2A`)
const PERCENT = 2; // `%`: an escape to keep or rewrite, or a lone `%`
const WIDE = 3; // outside ASCII: its UTF-8 octets, escaped
const PATH_UNIT = new Uint8Array(65536).fill(WIDE);

/** By octet, 1 for one whose escape is decoded (DECODED); by code unit below 128, its hex value or -1. */
const DECODES = new Uint8Array(256);
const HEX_VALUE = new Int8Array(128).fill(-1);

/**
 * After this many units in a row kept as they are, or in a row escaped, normalizePath hands the
 * rest of the stretch to the engine's native code: a regular expression finds where a stretch in
 * normal form ends, encodeURI escapes a stretch of characters. Native code costs the same before
 * the JIT has seen a path like it (a loop over 8 KB of `é` in code not compiled yet took 2.7 ms,
 * encodeURI 0.1 ms), but each call costs a few hundred nanoseconds, which a path that changes
 * from one kind of unit to the other at every character would pay thousands of times (8 KB of
 * `a|` took 1.6 ms that way): short stretches are read by the loop.
 */
const NATIVE_AFTER = 32;
/** Stretches in normal form this long are sliced from the path rather than copied. */
const LONG_RUN = 256;
/** Units of path the output buffer of normalizePath has room for, before it is made a string. */
const PATH_CHUNK_UNITS = 4096;

/**
 * Normalises a URL path (with its query) for matching, in one loop over its units that writes
 * their normal form into the shared buffer, a chunk at a time: a path of thousands of characters
 * to escape makes a few strings, not one per character. Long stretches go to native code (see
 * NATIVE_AFTER); the WHATWG parser leaves most escapes in normal form, so most of a long URL is
 * one.
 */
export function normalizePath(path: string): string {
  if (PLAIN_PATH.test(path)) return path;
  const n = path.length;
  const out = bufferFor(Math.max(4, Math.min(n, PATH_CHUNK_UNITS)));
  const runs = n > UNBOUNDED_RUN_MAX ? BOUNDED_PATH_RUN : NORMAL_PATH_RUN;
  const parts: string[] = [];
  let o = 0;
  let i = 0;
  /** Units kept as they are since the last one rewritten, and units rewritten since the last one kept. */
  let kept = 0;
  let escaped = 0;
  while (i < n) {
    // A chunk of units whose normal form fits in the buffer (a unit is at most MAX_EXPANSION octets).
    const stop = Math.min(n, i + PATH_CHUNK_UNITS);
    if (o + (stop - i) * MAX_EXPANSION > out.length) {
      parts.push(bufferText(o));
      o = 0;
    }
    while (i < stop) {
      if (kept >= NATIVE_AFTER) {
        runs.lastIndex = i;
        const end = runs.test(path) ? runs.lastIndex : i;
        kept = 0;
        if (end - i >= LONG_RUN) {
          if (o > 0) parts.push(bufferText(o));
          o = 0;
          parts.push(path.slice(i, end));
          i = end;
          break;
        }
        // A run that ends soon is copied by the loop, a chunk at most (the buffer's room).
        if (end > stop) {
          kept = NATIVE_AFTER;
          for (; i < stop; i++) out[o++] = path.charCodeAt(i);
          break;
        }
        for (; i < end; i++) out[o++] = path.charCodeAt(i);
        continue;
      }
      if (escaped >= NATIVE_AFTER) {
        // Up to the next unit that may start a stretch in normal form: ASCII, never half a pair.
        RUN_START.lastIndex = i;
        const end = RUN_START.exec(path)?.index ?? n;
        escaped = 0;
        if (o > 0) parts.push(bufferText(o));
        o = 0;
        parts.push(encodeStretch(path.slice(i, end)));
        i = end;
        break;
      }
      const c = path.charCodeAt(i);
      const kind = PATH_UNIT[c];
      if (kind === KEEP) {
        out[o++] = c;
        i++;
        kept++;
        escaped = 0;
      } else if (kind === ESCAPE) {
        out[o] = 37;
        out[o + 1] = HEX_CODES[c >> 4];
        out[o + 2] = HEX_CODES[c & 15];
        o += 3;
        i++;
        escaped++;
        kept = 0;
      } else if (kind === PERCENT) {
        const next = i + 2 < n ? path.charCodeAt(i + 1) : 128;
        const last = i + 2 < n ? path.charCodeAt(i + 2) : 128;
        const hi = next < 128 ? HEX_VALUE[next] : -1;
        const lo = last < 128 ? HEX_VALUE[last] : -1;
        if (hi < 0 || lo < 0) {
          // A literal `%`, which starts no escape.
          out[o] = 37;
          out[o + 1] = 50; /* 2 */
          out[o + 2] = 53; /* 5 */
          o += 3;
          i++;
          escaped++;
          kept = 0;
          continue;
        }
        const byte = (hi << 4) | lo;
        if (DECODES[byte] === 1) {
          out[o++] = byte;
          kept = 0;
        } else {
          out[o] = 37;
          out[o + 1] = HEX_CODES[hi];
          out[o + 2] = HEX_CODES[lo];
          o += 3;
          // Written as it was (upper-case hex): a run in normal form goes on.
          kept = next === out[o - 2] && last === out[o - 1] ? kept + 3 : 0;
        }
        i += 3;
        escaped = 0;
      } else {
        let cp = c;
        let units = 1;
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
          const low = path.charCodeAt(i + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            cp = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
            units = 2;
          }
        }
        if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate
        o = escapeUtf8(out, o, cp);
        i += units;
        escaped += units;
        kept = 0;
      }
    }
  }
  if (o > 0) parts.push(bufferText(o));
  return parts.length === 1 ? parts[0] : parts.join('');
}

/** Writes the UTF-8 octets of code point `cp` (128 or more), each escaped, at `at`; returns the position after them. */
function escapeUtf8(out: Uint8Array, at: number, cp: number): number {
  let o = at;
  if (cp < 0x800) {
    o = escapeAt(out, o, 0xc0 | (cp >> 6));
  } else {
    if (cp < 0x10000) o = escapeAt(out, o, 0xe0 | (cp >> 12));
    else {
      o = escapeAt(out, o, 0xf0 | (cp >> 18));
      o = escapeAt(out, o, 0x80 | ((cp >> 12) & 63));
    }
    o = escapeAt(out, o, 0x80 | ((cp >> 6) & 63));
  }
  return escapeAt(out, o, 0x80 | (cp & 63));
}

/**
 * The normal form of units that start no run (no plain character, no escape): encodeURI's,
 * with a lone surrogate read as U+FFFD, and `*` and `$`, which it leaves raw, escaped.
 */
function encodeStretch(units: string): string {
  // toWellFormed is ES2024: Node 20 has it, the ES2023 library this project compiles against
  // does not declare it.
  const wellFormed = (units as string & { toWellFormed(): string }).toWellFormed();
  return encodeURI(wellFormed).replaceAll('*', '%2A').replaceAll('$', '%24');
}

/** The next unit that may start a stretch in normal form: a plain character, or an escape. */
const RUN_START = /[A-Za-z0-9\-._~!&'()+,/:;=?@[\]]|%[0-9A-Fa-f]{2}/g;

/**
 * Normalises a rule pattern. `*` stays a wildcard; a `$` stays raw only as the last
 * character (the end anchor), anywhere else it is a literal and becomes `%24`.
 */
export function normalizePattern(pattern: string): string {
  const units = new Uint16Array(pattern.length);
  for (let i = 0; i < pattern.length; i++) units[i] = pattern.charCodeAt(i);
  const written = writePattern(pattern, units, 0, pattern.length, bufferFor(pattern.length), 0);
  return written & WROTE_NORMALISED ? bufferText(written & WROTE_END) : pattern;
}

/** Characters that may appear in a path that needs no normalisation (not `%`, `*`, `$`, `#`). */
const plainPath = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!&'()+,/:;=?@[]") {
  plainPath[ch.charCodeAt(0)] = 1;
}
/**
 * What writePattern makes of each code unit: PLAIN_UNIT for one that stays as it is, STAR_UNIT for
 * `*`, 0 for one to normalise (the two kinds have a bit each: a pair of units is plain when the
 * `&` of their kinds is PLAIN_UNIT). A table of every unit, not of ASCII alone: one load and one
 * test a unit, where a test for ASCII first made the loop over a 486 KiB file's patterns 40%
 * slower.
 */
const PATTERN_UNIT = new Uint8Array(65536);
const PLAIN_UNIT = 1;
const STAR_UNIT = 2;
for (let c = 0; c < 128; c++) if (plainPath[c] === 1) PATTERN_UNIT[c] = PLAIN_UNIT;
PATTERN_UNIT[42] = STAR_UNIT;
for (let c = 0; c < 128; c++) PATH_UNIT[c] = plainPath[c] === 1 ? KEEP : ESCAPE;
PATH_UNIT[37] = PERCENT;
// Kept, as normalizeInto keeps it: no path read from a URL holds one (it starts the fragment).
PATH_UNIT[35] = KEEP;
for (let c = 0; c < 128; c++) {
  DECODES[c] = classes[c] & DECODED ? 1 : 0;
  HEX_VALUE[c] = hexValue(c);
}

/** Characters of an authority the plain path leaves to the URL parser (`:` only separates the port). */
const NOT_IN_PLAIN_HOST = new Uint8Array(128);
for (let c = 0; c <= 32; c++) NOT_IN_PLAIN_HOST[c] = 1;
for (const ch of '@\\#[]<>^|%') NOT_IN_PLAIN_HOST[ch.charCodeAt(0)] = 1;

/** Whether `text[from, to)` is a port: at most five digits, at most 65535 (empty: the default). */
function isPort(text: string, from: number, to: number): boolean {
  if (to - from > 5) return false;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value <= 65535;
}

/**
 * The path and query of a plain absolute http(s) URL, already in normal form, or
 * undefined when the URL needs the full parser (credentials, dot segments, escapes,
 * characters to encode, a fragment...). The character filter of the path goes to `mask`, read
 * on the same pass.
 */
function plainPathOf(url: string, mask: Int32Array | undefined): string | undefined {
  // `http` or `https`, in any case.
  if (
    (url.charCodeAt(0) | 0x20) !== 104 ||
    (url.charCodeAt(1) | 0x20) !== 116 ||
    (url.charCodeAt(2) | 0x20) !== 116 ||
    (url.charCodeAt(3) | 0x20) !== 112
  ) {
    return undefined;
  }
  const secure = (url.charCodeAt(4) | 0x20) === 115;
  const scheme = url.charCodeAt(4) === 58 /* : */ ? 4 : secure && url.charCodeAt(5) === 58 ? 5 : -1;
  if (scheme < 0 || url.charCodeAt(scheme + 1) !== 47 || url.charCodeAt(scheme + 2) !== 47) return undefined;
  const n = url.length;
  let i = scheme + 3;
  let port = -1;
  for (; i < n; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 || c === 63) break;
    // The authority: credentials, IPv6, escapes, characters a host may not hold and non-ASCII
    // need the parser; so does a port that is not one.
    if (c >= 127 || NOT_IN_PLAIN_HOST[c] !== 0) return undefined;
    if (c === 58 /* : */) {
      // A second colon (`host:80:`) is no port: the parser rejects such a URL.
      if (port >= 0) return undefined;
      port = i;
    }
  }
  // An empty host (`http:///x` is host `x` to the parser) or an invalid port: the parser decides.
  if (i === scheme + 3 || port === scheme + 3 || (port >= 0 && !isPort(url, port + 1, i))) return undefined;
  return plainPathAfter(url, i, mask);
}

/**
 * {@link plainPathOf} for a URL whose authority is known to be valid and plain up to `start`,
 * where its path, query or fragment begins (or the URL ends).
 */
function plainPathAfter(url: string, start: number, mask: Int32Array | undefined): string | undefined {
  const n = url.length;
  let i = start;
  // The path starts with `/`, added when the URL has none.
  let low = LOW_BIT[47];
  let high = HIGH_BIT[47];
  for (let previous = 0; i < n; i++) {
    const c = url.charCodeAt(i);
    if (c >= 128 || plainPath[c] === 0) return undefined;
    // `/.` may start a dot segment, which the parser resolves.
    if (c === 46 && previous === 47) return undefined;
    low |= LOW_BIT[c];
    high |= HIGH_BIT[c];
    previous = c;
  }
  if (mask !== undefined) {
    mask[0] = low;
    mask[1] = high;
  }
  if (start === n) return '/';
  const path = url.slice(start);
  return path.charCodeAt(0) === 63 ? `/${path}` : path;
}

/**
 * The path and query of a URL, normalised for matching (RFC 9309 2.2.2 matches the
 * path from its first octet, query included). Accepts an absolute URL, a `URL`, or a
 * path starting with `/`.
 */
export function pathOf(url: string | URL): string {
  return filteredPathOf(url, undefined);
}

/**
 * {@link filteredPathOf} for an absolute URL string that starts with a normalised origin
 * (`https://example.com`, as the policy store keys them) `authorityEnd` characters long,
 * followed by the end of the URL or by `/`, `?` or `#`. The caller vouches for that prefix; the
 * authority is not read again.
 */
export function filteredPathAfterOrigin(url: string, authorityEnd: number, mask: Int32Array): string {
  return plainPathAfter(url, authorityEnd, mask) ?? filteredPathOf(url, mask);
}

/** {@link pathOf}, writing the path's character filter (see chars.ts) to `mask[0, 2)` when given. */
export function filteredPathOf(url: string | URL, mask: Int32Array | undefined): string {
  let path: string;
  if (typeof url !== 'string') {
    if (!(url instanceof URL))
      throw new TypeError(`Expected a URL string or a URL object, got ${typeof url}.`);
    path = pathAndQuery(url);
  } else if (url.charCodeAt(0) === 47 /* / */) {
    // Any string that starts with `/` is a path, `//x` included: there is no base URL here.
    // Most are in normal form already, as the plain path of a URL is.
    const plain = plainPathAfter(url, 0, mask);
    if (plain !== undefined) return plain;
    const hash = url.indexOf('#');
    path = hash < 0 ? url : url.slice(0, hash);
  } else {
    const plain = plainPathOf(url, mask);
    if (plain !== undefined) return plain;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      // `https://e.com:99999/a` is absolute, and no URL all the same: say which it is.
      throw new TypeError(
        /^[a-z][a-z0-9+.-]*:/i.test(url)
          ? `Expected a valid URL, got ${JSON.stringify(withoutUserinfo(url))}, which a URL parser refuses (a port past 65535, a blank or a character no host may hold).`
          : `Expected an absolute URL or a path starting with "/", got ${JSON.stringify(withoutUserinfo(url))}.`,
      );
    }
    path = pathAndQuery(parsed);
  }
  // A URL of an opaque path (`mailto:a@b`, `javascript:x`, `urn:isbn:1`) has no path for rules
  // to match: only a hierarchical path (`/...`) can be allowed or disallowed.
  if (path.charCodeAt(0) !== 47 /* / */) throw opaqueUrl(url);
  const normal = normalizePath(path);
  if (mask !== undefined) pathCharMask(normal, mask);
  return normal;
}

function opaqueUrl(url: string | URL): TypeError {
  const text = typeof url === 'string' ? url : url.href;
  return new TypeError(
    `Expected an absolute URL with a path starting with "/" (such as http:// and https:// URLs), got ${JSON.stringify(withoutUserinfo(text))}: robots.txt rules apply to no other kind of URL.`,
  );
}

/** WHATWG drops an empty `?` from `search`, but the request still carries it. */
function pathAndQuery(url: URL): string {
  if (url.search !== '') return url.pathname + url.search;
  const beforeHash = url.href.split('#', 1)[0];
  return beforeHash.endsWith('?') ? `${url.pathname}?` : url.pathname;
}

/*
 * One path with every kind of unit, read as the module loads, as many times as the engine waits
 * before it keeps type feedback for a function (8 calls): the loop then has feedback for each of
 * its branches when the engine optimizes it on ordinary traffic, whose paths are plain or hold a
 * few escapes. Without it, the first path with a unit of another kind (an 8 KB query of `|`, of
 * lower-case escapes) sent the optimized loop back to the interpreter for the rest of that path,
 * and the next paths like it until the engine had compiled the loop again.
 */
const EVERY_KIND = `/a%41%7e%2F%zz%|*$é\ud800\ud83d\ude00${'a'.repeat(NATIVE_AFTER)}${'|'.repeat(NATIVE_AFTER)}`;
for (let i = 0; i < 12; i++) normalizePath(EVERY_KIND);
