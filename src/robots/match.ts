/**
 * Pattern matching (RFC 9309 2.2.2 and 2.2.3). Patterns and paths arrive normalised
 * (see encoding.ts): in a pattern a raw `*` is the wildcard and a final raw `$` the end
 * anchor; in a path neither appears raw. Matching is linear in the path for every
 * pattern: literal pieces are found left to right and never revisited, so no input can
 * make it backtrack.
 */

/** A pattern split for matching. */
export interface CompiledPattern {
  /** The literal text before the first `*`; the path must start with it. */
  readonly prefix: string;
  /** The literal pieces after each `*`, in order (empty when the pattern has no `*`). */
  readonly pieces: readonly string[];
  /** The pattern ended in `$`: the match must reach the end of the path. */
  readonly anchored: boolean;
}

/**
 * Splits a normalised pattern. Runs of `*` count as one, and a trailing `*` (or `*$`)
 * matches everything after it, so it is dropped: `/fish*` matches as `/fish`.
 */
export function compilePattern(pattern: string): CompiledPattern {
  let body = pattern;
  let anchored = body.endsWith('$');
  if (anchored) body = body.slice(0, -1);
  let end = body.length;
  while (end > 0 && body.charCodeAt(end - 1) === 42 /* * */) end--;
  if (end < body.length) {
    body = body.slice(0, end);
    anchored = false;
  }
  const [prefix, ...rest] = body.split('*');
  return { prefix, pieces: rest.filter((piece) => piece.length > 0), anchored };
}

/** Whether the pattern matches the path from its first octet. */
export function matchesPattern(pattern: CompiledPattern, path: string): boolean {
  const { prefix, pieces, anchored } = pattern;
  if (!path.startsWith(prefix)) return false;
  if (pieces.length === 0) return anchored ? path.length === prefix.length : true;
  let at = prefix.length;
  const last = pieces.length - 1;
  for (let i = 0; i < last; i++) {
    // The leftmost occurrence of each piece leaves the most room for the pieces after it.
    const found = path.indexOf(pieces[i], at);
    if (found < 0) return false;
    at = found + pieces[i].length;
  }
  const tail = pieces[last];
  if (anchored) return path.length - tail.length >= at && path.endsWith(tail);
  return path.indexOf(tail, at) >= 0;
}
