/**
 * Pattern matching (RFC 9309 2.2.2 and 2.2.3). Patterns and paths arrive normalised
 * (see encoding.ts): in a pattern a raw `*` is the wildcard and a final raw `$` the end
 * anchor; in a path neither appears raw. A pattern is matched where it lies, inside the
 * string of all patterns of a file, so checking a URL allocates nothing in the common
 * case. Literal pieces are found left to right and never revisited: no input can make
 * the matcher backtrack.
 */

/** Pieces up to this length are searched in place; longer ones through `indexOf`. */
const SHORT_PIECE = 16;
/**
 * Past this many characters of path the engine's `indexOf` searches every piece: the search in
 * place tries the piece at each of its first character's occurrences, which a path of one
 * repeated character makes path length times piece length.
 */
const LONG_TEXT = 256;

/**
 * The searches for pieces already made for one path, by piece: its first occurrence, its last
 * once a search has found nothing past some point (UNKNOWN until then), and the last search
 * made (where it started, where it found the piece; -1: nowhere after that start). A check
 * that tries many rules whose pieces repeat (`/*aaaaaaab`, ...) reads the path a few times
 * per distinct piece, not once per rule. Only valid for one path: the caller clears it when
 * the path changes.
 */
export type PieceSearches = Map<string, { first: number; last: number; from: number; at: number }>;
const UNKNOWN = -2;

/**
 * Whether the pattern in `patterns[start, start + length)` matches `path` from its first
 * octet. `length` excludes a final `$` (passed as `anchored`) and any trailing `*`, which
 * matches everything after it.
 */
export function matchesAt(
  patterns: string,
  start: number,
  length: number,
  anchored: boolean,
  path: string,
  searches?: PieceSearches,
): boolean {
  const end = start + length;
  let p = start;
  let s = 0;
  // The literal prefix: most patterns end here, or fail on their first octets.
  while (p < end) {
    const c = patterns.charCodeAt(p);
    if (c === 42 /* * */) break;
    if (path.charCodeAt(s) !== c) return false;
    p++;
    s++;
  }
  if (p === end) return anchored ? s === path.length : true;
  if (anchored) {
    // The last piece must end the path: a cheap test that settles most anchored patterns.
    let last = end;
    while (last > p && patterns.charCodeAt(last - 1) !== 42) last--;
    const piece = end - last;
    if (path.length - piece < s || !regionMatches(path, path.length - piece, patterns, last, piece))
      return false;
  }
  for (;;) {
    while (p < end && patterns.charCodeAt(p) === 42) p++;
    if (p === end) return true;
    let q = p;
    while (q < end && patterns.charCodeAt(q) !== 42) q++;
    const piece = q - p;
    if (q === end && anchored) {
      // The last piece of an anchored pattern must end the path.
      const at = path.length - piece;
      return at >= s && regionMatches(path, at, patterns, p, piece);
    }
    // The leftmost occurrence of each piece leaves the most room for the pieces after it.
    const found =
      searches !== undefined
        ? findRemembered(path, s, patterns.slice(p, q), searches)
        : piece <= SHORT_PIECE && path.length - s <= LONG_TEXT
          ? findShort(path, s, patterns, p, piece)
          : path.indexOf(patterns.slice(p, q), s);
    if (found < 0) return false;
    s = found + piece;
    p = q;
    if (p === end) return true;
  }
}

/** Whether `path[at, at + length)` is `patterns[p, p + length)`. */
export function regionMatches(
  path: string,
  at: number,
  patterns: string,
  p: number,
  length: number,
): boolean {
  for (let i = 0; i < length; i++) if (path.charCodeAt(at + i) !== patterns.charCodeAt(p + i)) return false;
  return true;
}

/** The first index >= `from` where `piece` occurs in `path`, or -1, settled by earlier searches when they can. */
function findRemembered(path: string, from: number, piece: string, searches: PieceSearches): number {
  let known = searches.get(piece);
  if (known === undefined) {
    const first = path.indexOf(piece);
    known = { first, last: first < 0 ? -1 : UNKNOWN, from: 0, at: first };
    searches.set(piece, known);
  }
  if (known.first >= from || known.first < 0) return known.first;
  if (known.last !== UNKNOWN && known.last < from) return -1;
  if (known.from <= from && (known.at < 0 || known.at >= from)) return known.at;
  const at = path.indexOf(piece, from);
  known.from = from;
  known.at = at;
  // Nothing from here on: the last occurrence is before it, and settles every later start.
  if (at < 0 && known.last === UNKNOWN) known.last = path.lastIndexOf(piece, from);
  return at;
}

/** The first index >= `from` where the short piece occurs in `path`, or -1. */
function findShort(path: string, from: number, patterns: string, p: number, length: number): number {
  const first = patterns[p];
  const last = path.length - length;
  for (let i = path.indexOf(first, from); i >= 0 && i <= last; i = path.indexOf(first, i + 1)) {
    if (regionMatches(path, i + 1, patterns, p + 1, length - 1)) return i;
  }
  return -1;
}

/**
 * Whether a whole normalised pattern (with its `*` and final `$`) matches `path`. The
 * compiled file calls `matchesAt` directly; this is the same rule for one pattern.
 */
export function matchesPattern(pattern: string, path: string): boolean {
  let length = pattern.length;
  const anchored = length > 0 && pattern.charCodeAt(length - 1) === 36; /* $ */
  if (anchored) length--;
  let stars = 0;
  while (stars < length && pattern.charCodeAt(length - 1 - stars) === 42) stars++;
  // A trailing `*` (or `*$`) matches anything after it.
  return matchesAt(pattern, 0, length - stars, anchored && stars === 0, path);
}
