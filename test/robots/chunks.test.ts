import { describe, expect, it } from 'vitest';
import { CHUNK_MASK, RobotsCompiler } from '../../src/robots/compile.js';
import { tokenize } from '../../src/robots/lines.js';
import { RobotsTxt } from '../../src/robots/robots-txt.js';

/**
 * The patterns of a large file are kept in chunks of 64 Ki characters (see CHUNK_BITS in
 * compile.ts): every rule must read the same whichever chunk holds it, a rule that crosses
 * from one chunk into the next included, and so must the tokens kept after the patterns.
 */

interface Rule {
  allow: boolean;
  /** The pattern in normal form (what the file says, for all but the long rule). */
  pattern: string;
}

/** Whether `pattern` (normal form) matches `path`: its pieces between `*` found left to right. */
function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  if (!path.startsWith(pieces[0])) return false;
  let at = pieces[0].length;
  for (let k = 1; k < pieces.length; k++) {
    const found =
      k === pieces.length - 1 && anchored ? path.length - pieces[k].length : path.indexOf(pieces[k], at);
    if (found < at || !path.startsWith(pieces[k], found)) return false;
    at = found + pieces[k].length;
  }
  return !anchored || at === path.length;
}

/** The verdict read slowly: every rule tried, the longest match, allow on a tie. */
function slowly(rules: readonly Rule[], path: string): Rule | undefined {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (!matches(rule.pattern, path)) continue;
    const longer = best === undefined || rule.pattern.length > best.pattern.length;
    if (longer || (rule.pattern.length === best!.pattern.length && rule.allow && !best!.allow)) best = rule;
  }
  return best;
}

/** A path the rule's pattern matches: each `*` read as `Q`, without the final `$`. */
function pathFor(rule: Rule): string {
  return rule.pattern.replace(/\$$/, '').replaceAll('*', 'Q');
}

describe('patterns in chunks', () => {
  // 30 characters a rule, so that where each lies is known: the long rule starts at 60,000
  // and crosses the first chunk boundary (65,536), and a short one crosses the second.
  const rules: Rule[] = [];
  const lines: string[] = ['User-agent: alpha'];
  const add = (allow: boolean, written: string, pattern = written) => {
    rules.push({ allow, pattern });
    lines.push(`${allow ? 'Allow' : 'Disallow'}: ${written}`);
  };
  const short = (i: number) =>
    i % 7 === 3
      ? `/*w${String(i).padStart(5, '0')}x*y${'z'.repeat(18)}$`
      : `/a${String(i).padStart(5, '0')}/${'b'.repeat(22)}`;
  // Patterns that differ only at their end, half in the first chunk and half in the third:
  // ranking compares them across chunks, more of them than an insertion sort takes.
  const FAMILY = '123456789abcdef';
  const family = (from: number) => {
    for (let k = from; k <= 14; k += 2) add(k % 4 === 0, `/fam/${FAMILY.slice(0, k)}`);
  };
  family(1);
  for (let i = 0; i < 2000; i++) add(i % 11 === 5, short(i));
  const long = `/long/${'é'.repeat(8000)}`;
  add(true, long, `/long/${'%C3%A9'.repeat(8000)}`);
  for (let i = 2000; i < 5000; i++) add(i % 11 === 5, short(i));
  family(2);
  // Tokens go after the patterns, in the last chunk; more than a list scan would read.
  const tokens = Array.from(
    { length: 40 },
    (_, k) => `bot${String.fromCharCode(97 + (k % 26))}${'x'.repeat(k)}`,
  );
  for (const [k, token] of tokens.entries()) lines.push('', `User-agent: ${token}`, `Disallow: /only-${k}/`);
  const body = `${lines.join('\n')}\n`;
  const robots = RobotsTxt.parse(body);

  it('cuts the patterns into chunks of ordinary strings, each whole item in the chunk where it starts', () => {
    const compiler = new RobotsCompiler();
    tokenize(body, { maxBytes: 500 * 1024, rejectHtml: true }, compiler);
    const { patterns, chunks } = compiler.finish();
    expect(rules.reduce((sum, rule) => sum + rule.pattern.length, 0)).toBeGreaterThan(3 * (CHUNK_MASK + 1));
    expect(chunks?.length).toBe(4);
    expect(chunks?.[0]).toBe(patterns);
    // The long rule crosses the first boundary: the first chunk goes on to its end.
    const longAt = rules.findIndex((rule) => rule.pattern.startsWith('/long/'));
    const longEnd = rules.slice(0, longAt + 1).reduce((sum, rule) => sum + rule.pattern.length, 0);
    expect(longEnd - rules[longAt].pattern.length).toBeLessThan(CHUNK_MASK + 1);
    expect(patterns.length).toBe(longEnd);
    for (const chunk of chunks ?? []) expect(chunk.length).toBeLessThan(128 * 1024);
  });

  it('keeps the patterns of a small file as one string, with no list of chunks', () => {
    const compiler = new RobotsCompiler();
    tokenize('User-agent: a\nDisallow: /x\n', { maxBytes: 500 * 1024, rejectHtml: true }, compiler);
    expect(compiler.finish()).toMatchObject({ patterns: '/xa', chunks: null });
  });

  it('reads the rules as a slow reading does, those at the chunk boundaries included', () => {
    // Every 17th rule, and the rules around each that crosses a chunk boundary.
    const tried = new Set<number>();
    let start = 0;
    for (const [i, rule] of rules.entries()) {
      const end = start + rule.pattern.length;
      if (i % 17 === 0) tried.add(i);
      if (start >>> 16 !== end >>> 16) for (let k = i - 2; k <= i + 2; k++) tried.add(k);
      start = end;
    }
    expect(tried.size).toBeGreaterThan(300);
    for (const rule of [...tried].map((i) => rules[i])) {
      const path = pathFor(rule);
      const expected = slowly(rules, path)!;
      const verdict = robots.explain(path, 'alpha');
      expect(verdict.allowed, path.slice(0, 40)).toBe(expected.allow);
      expect(verdict.rule?.normalizedPattern, path.slice(0, 40)).toBe(expected.pattern);
    }
    const familyPaths = Array.from({ length: 16 }, (_, k) => `/fam/${FAMILY.slice(0, k)}x`);
    for (const path of [
      '/a01999/',
      '/a02000/bb',
      '/long/%C3%A9',
      '/zzz',
      `/w04999x${'y'.repeat(9)}`,
      ...familyPaths,
    ]) {
      expect(robots.isAllowed(path, 'alpha'), path).toBe(slowly(rules, path)?.allow ?? true);
    }
  });

  it('lists the rules as written, and finds the group of every token', () => {
    const alpha = robots.groups[0].rules;
    expect(alpha.map((rule) => rule.normalizedPattern)).toEqual(rules.map((rule) => rule.pattern));
    expect(alpha.find((rule) => rule.pattern.startsWith('/long/'))?.pattern).toBe(long);
    for (const [k, token] of tokens.entries()) {
      expect(robots.isAllowed(`/only-${k}/x`, token), token).toBe(false);
      expect(robots.isAllowed(`/only-${(k + 1) % tokens.length}/x`, token), token).toBe(true);
      expect(robots.explain('/x', token).group).toMatchObject({ how: 'token', token });
    }
  });
});

it('reads an empty rule that starts where a chunk would, at the very end of the patterns', () => {
  // 64 Ki characters of patterns, then an empty one: it starts at the next chunk's first position.
  const lines = ['User-agent:'];
  for (let i = 0; i < 2184; i++) lines.push(`Disallow: /${String(i).padStart(29, '0')}`);
  // The group names no crawler: the file has no token to keep after the patterns.
  lines.push(`Disallow: /${'q'.repeat(15)}`, 'Disallow:');
  const robots = RobotsTxt.parse(`${lines.join('\n')}\n`);
  const { rules } = robots.groups[0];
  expect(rules.reduce((sum, rule) => sum + rule.normalizedPattern.length, 0)).toBe(CHUNK_MASK + 1);
  expect(rules.at(-1)).toMatchObject({ kind: 'disallow', pattern: '', normalizedPattern: '' });
  expect(robots.isAllowed('/00000000000000000000000000007', 'a')).toBe(true);
  expect(robots.lints.length).toBeGreaterThan(0);
});

describe('tokens past a chunk boundary', () => {
  /** A file of one group per token, each disallowing its own path; its tokens and the chunks they fill. */
  const fileOf = (tokens: readonly string[]) => {
    const lines = tokens.flatMap((token, k) => [`User-agent: ${token}`, `Disallow: /only-${k}/`, '']);
    const body = lines.join('\n');
    const compiler = new RobotsCompiler();
    tokenize(body, { maxBytes: 500 * 1024, rejectHtml: true }, compiler);
    return { robots: RobotsTxt.parse(body), chunks: compiler.finish().chunks };
  };
  const expectEveryGroup = (robots: RobotsTxt, tokens: readonly string[]) => {
    for (const [k, token] of tokens.entries()) {
      expect(robots.isAllowed(`/only-${k}/x`, token), `token ${k}`).toBe(false);
      expect(robots.isAllowed(`/only-${(k + 1) % tokens.length}/x`, token), `token ${k}`).toBe(true);
    }
  };

  it('finds the group of each of 7,000 tokens written after the patterns, across chunks', () => {
    const letters = (n: number) => {
      let s = '';
      for (let k = n + 1; k > 0; k = Math.floor((k - 1) / 26))
        s = String.fromCharCode(97 + ((k - 1) % 26)) + s;
      return s;
    };
    const tokens = Array.from({ length: 7000 }, (_, k) => `ua-${letters(k)}-crawler-robot`);
    const { robots, chunks } = fileOf(tokens);
    // The tokens hold more than two chunks of characters.
    expect(tokens.join('').length).toBeGreaterThan(2 * (CHUNK_MASK + 1));
    expect(chunks?.length).toBeGreaterThanOrEqual(3);
    expectEveryGroup(robots, tokens);
    expect(robots.explain('/x', tokens.at(-1)!).group).toMatchObject({ how: 'token', token: tokens.at(-1) });
  });

  it('finds the group of a few long tokens that cross chunk boundaries', () => {
    const tokens = Array.from(
      { length: 12 },
      (_, k) => `${String.fromCharCode(97 + k)}${'x'.repeat(12_000)}`,
    );
    const { robots, chunks } = fileOf(tokens);
    expect(chunks?.length).toBeGreaterThanOrEqual(2);
    expectEveryGroup(robots, tokens);
  });
});
