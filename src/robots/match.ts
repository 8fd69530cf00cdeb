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
      piece <= SHORT_PIECE ? findShort(path, s, patterns, p, piece) : path.indexOf(patterns.slice(p, q), s);
    if (found < 0) return false;
    s = found + piece;
    p = q;
    if (p === end) return true;
  }
}

function regionMatches(path: string, at: number, patterns: string, p: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (path.charCodeAt(at + i) !== patterns.charCodeAt(p + i)) return false;
  return true;
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
