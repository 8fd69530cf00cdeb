/**
 * RFC 9309 2.2.2 read literally, slowly and obviously: the oracle the matcher's property tests
 * compare it with.
 */

export interface ReferenceRule {
  allow: boolean;
  pattern: string;
}

/** Whether `pattern` matches `path`, trying every way a `*` can stretch. */
export function referenceMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const memo = new Map<number, boolean>();
  const go = (p: number, s: number): boolean => {
    const key = p * 10_000 + s;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (p === body.length) result = anchored ? s === path.length : true;
    else if (body[p] === '*') result = go(p + 1, s) || (s < path.length && go(p, s + 1));
    else result = s < path.length && body[p] === path[s] && go(p + 1, s + 1);
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

/**
 * referenceMatches as a table, for patterns and paths of hundreds of characters: after reading
 * the path's first j characters, `reached[i]` says whether the pattern's first i characters can
 * match them. A `*` matches any run, a character itself.
 */
export function referenceMatchesTable(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  let reached = new Uint8Array(body.length + 1);
  reached[0] = 1;
  // A `*` may match nothing: what reaches it reaches past it.
  const closeStars = (row: Uint8Array) => {
    for (let i = 0; i < body.length; i++) if (row[i] && body[i] === '*') row[i + 1] = 1;
  };
  closeStars(reached);
  for (let j = 0; j < path.length; j++) {
    if (!anchored && reached[body.length]) return true;
    const next = new Uint8Array(body.length + 1);
    for (let i = 0; i < body.length; i++) {
      if (!reached[i]) continue;
      if (body[i] === '*') next[i] = 1;
      else if (body[i] === path[j]) next[i + 1] = 1;
    }
    closeStars(next);
    reached = next;
  }
  return reached[body.length] === 1;
}

/** The longest matching pattern decides, allow on ties; no match allows. */
export function referenceAllowed(
  rules: readonly ReferenceRule[],
  path: string,
  matches: (pattern: string, path: string) => boolean = referenceMatches,
): boolean {
  let best: { allow: boolean; length: number } | undefined;
  for (const rule of rules) {
    if (rule.pattern === '' || !matches(rule.pattern, path)) continue;
    const length = rule.pattern.length;
    if (!best || length > best.length || (length === best.length && rule.allow))
      best = { allow: rule.allow, length };
  }
  return best?.allow ?? true;
}
