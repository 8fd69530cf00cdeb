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

/** The longest matching pattern decides, allow on ties; no match allows. */
export function referenceAllowed(rules: readonly ReferenceRule[], path: string): boolean {
  let best: { allow: boolean; length: number } | undefined;
  for (const rule of rules) {
    if (rule.pattern === '' || !referenceMatches(rule.pattern, path)) continue;
    const length = rule.pattern.length;
    if (!best || length > best.length || (length === best.length && rule.allow))
      best = { allow: rule.allow, length };
  }
  return best?.allow ?? true;
}
