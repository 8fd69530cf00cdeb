import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { matchesPattern } from '../../src/robots/match.js';
import { agreesWithReference, fileOf } from './support/agreement.js';
import { referenceAllowed, referenceMatchesTable } from './support/reference.js';

/** Runs of `a` or `b` as a pattern writes them (`a*a*a`), of `min` to `max` pieces. */
const runOf = (min: number, max: number) =>
  fc.tuple(fc.integer({ min, max }), fc.constantFrom('a', 'b')).map(([k, c]) => `${c}*`.repeat(k - 1) + c);

/** Allow and disallow rules `/x*` + `pieces` joined by `*` + one of `tails`. */
const ruleOf = (piece: fc.Arbitrary<string>, maxPieces: number, tails: string[]) =>
  fc.record({
    allow: fc.boolean(),
    pattern: fc
      .tuple(fc.array(piece, { minLength: 1, maxLength: maxPieces }), fc.constantFrom(...tails))
      .map(([pieces, tail]) => `/x*${pieces.join('*')}${tail}`),
  });

/*
 * A check that has followed thousands of pieces finds the next ones through rows of the path
 * (sequences.ts). The rules tried first here are the longest: each follows about 85 pieces and
 * fails at its end, so the rule under test, shorter, is matched past that point.
 */
const fillers = Array.from({ length: 60 }, (_, i) => ({
  allow: false,
  pattern: `/x${'*a*b'.repeat(60 + i)}*c`,
}));

function check(rule: string, path: string): { allowed: boolean; line: number | undefined } {
  const rules = [...fillers, { allow: false, pattern: rule }];
  const robots = RobotsTxt.parse(`user-agent: *\n${rules.map((r) => `disallow: ${r.pattern}`).join('\n')}\n`);
  const allowed = robots.isAllowed(path, 'bot');
  expect(allowed).toBe(referenceAllowed(rules, path, referenceMatchesTable));
  expect(robots.explain(path, 'bot', { candidates: false }).allowed).toBe(allowed);
  return { allowed, line: robots.explain(path, 'bot').rule?.line };
}

describe('rules of many pieces, past the point where a check reads rows of the path', () => {
  it('takes each piece where the search starts when it is there', () => {
    // Forty pairs in a path of forty pairs: only the leftmost place of every piece leaves room.
    const path = `/x${'ab'.repeat(40)}c`;
    expect(check(`/x${'*a*b'.repeat(40)}*c$`, path)).toEqual({ allowed: false, line: 62 });
    expect(check(`/x${'*a*b'.repeat(41)}*c$`, path)).toEqual({ allowed: true, line: undefined });
  });

  it('finds a piece of several characters past many false starts of its first one', () => {
    // `ab` after ten `a`s: the row of `a` leads to nine places where no `b` follows.
    const path = `/x${'ab'.repeat(40)}${'a'.repeat(10)}bc`;
    expect(check(`/x${'*a*b'.repeat(40)}*ab*c$`, path)).toEqual({ allowed: false, line: 62 });
    expect(check(`/x${'*a*b'.repeat(40)}*abc$`, path)).toEqual({ allowed: false, line: 62 });
    expect(check(`/x${'*a*b'.repeat(40)}*aab*c$`, path)).toEqual({ allowed: false, line: 62 });
    expect(check(`/x${'*a*b'.repeat(40)}*abb*c$`, path)).toEqual({ allowed: true, line: undefined });
    // Its first two characters are not enough.
    expect(check(`/x${'*a*b'.repeat(40)}*abc*c$`, `/x${'ab'.repeat(40)}abxc`)).toEqual({
      allowed: true,
      line: undefined,
    });
  });

  it('stops at the end of the path', () => {
    const path = `/x${'ab'.repeat(40)}ca`;
    expect(check(`/x${'*a*b'.repeat(40)}*c*a`, path)).toEqual({ allowed: false, line: 62 });
    expect(check(`/x${'*a*b'.repeat(40)}*c*a*a`, path)).toEqual({ allowed: true, line: undefined });
    expect(check(`/x${'*a*b'.repeat(40)}*c*ab`, path)).toEqual({ allowed: true, line: undefined });
  });

  it('answers each path by itself when checks of two files take turns', () => {
    // The same rules in two files share their pieces' places: what one check found must not
    // answer the next.
    const rules = [...fillers, { allow: false, pattern: `/x${'*a*b'.repeat(40)}*c$` }];
    const text = `user-agent: *\n${rules.map((r) => `disallow: ${r.pattern}`).join('\n')}\n`;
    const one = RobotsTxt.parse(text);
    const two = RobotsTxt.parse(text);
    const matching = `/x${'ab'.repeat(40)}c`;
    const shifted = `/x${'ab'.repeat(39)}bac`;
    for (let turn = 0; turn < 3; turn++) {
      expect(one.isAllowed(matching, 'bot')).toBe(false);
      expect(two.isAllowed(shifted, 'bot')).toBe(true);
      expect(one.isAllowed(shifted, 'bot')).toBe(true);
      expect(two.isAllowed(matching, 'bot')).toBe(false);
    }
  });
});

describe('searches remembered within a check, on a path past 16 KiB', () => {
  // Rules that never get past their literal prefix make the group large enough to be indexed.
  const others = Array.from({ length: 40 }, (_, i) => `disallow: /other-${i}/*z`);
  const verdict = (rules: string[], path: string) =>
    RobotsTxt.parse(`user-agent: *\n${[...others, ...rules].join('\n')}\n`).isAllowed(path, 'bot');
  // The engine searches a path this long. Pieces of two characters or more have an id, under
  // which a check remembers what the searches for them found; one character is searched anew.

  it('finds a piece at its last place after a search past it found nothing', () => {
    // The longer rule finds `cd`, then no `bq` after it: the last `bq` is known to be before.
    // The rule tested looks for a `bq` from exactly that place.
    const path = `/xbq${'c'.repeat(17_000)}abqccd`;
    expect(verdict(['disallow: /x*cd*bq*x*x*x*x', 'disallow: /x*a*bq'], path)).toBe(false);
    expect(verdict(['disallow: /x*cd*bq*x*x*x*x', 'disallow: /x*a*bqd'], path)).toBe(true);
  });

  it('finds a piece where the search starts, before where an earlier search started', () => {
    // The longer rule looks for `bq` from just after `dbq` and finds the last `bq`; the rule
    // tested looks for it from the `bq` after the `d`, where it is.
    const path = `/xbq${'c'.repeat(17_000)}dbqccbq`;
    expect(verdict(['disallow: /x*dbq*bq*x*x*x*x', 'disallow: /x*d*bq*cc*bq$'], path)).toBe(false);
    expect(verdict(['disallow: /x*dbq*bq*x*x*x*x', 'disallow: /x*d*bq*cc*cc*bq$'], path)).toBe(true);
  });

  it('looks for the next piece after the whole of the one found, not inside it', () => {
    // `bq` and `qz` overlap the `abq` found; `zy` follows it.
    const path = `/x${'z'.repeat(17_000)}abqzy`;
    expect(verdict(['disallow: /x*abq*bq'], path)).toBe(true);
    expect(verdict(['disallow: /x*abq*qz'], path)).toBe(true);
    expect(verdict(['disallow: /x*abq*zy'], path)).toBe(false);
    expect(verdict(['disallow: /x*abq*bq'], `${path}bq`)).toBe(false);
  });
});

describe('one rule among many that share its pieces', () => {
  it('matches as matching in place does, wherever the searches before it left off', () => {
    // Forty longer rules are tried first and fail at their end (the path's only `x` is at its
    // start): their searches for the same pieces, from other places, are what a check
    // remembers when the rule under test is matched. Its verdict is the rule's match alone.
    // Paths are mostly `c`, with a few pieces strewn in: a rule matches, or not, by a few
    // characters. Some pass 16 KiB, where every piece is searched by the engine; `cb` starts
    // falsely at every `c`, so that shorter paths leave the rows for the engine too.
    const piece = fc.constantFrom('a', 'b', 'ab', 'ba', 'aab', 'bab', 'cb', 'bc');
    const filler = fc.array(piece, { minLength: 20, maxLength: 30 }).map((p) => `/x*${p.join('*')}*x`);
    const tested = fc
      .tuple(
        fc.constantFrom('/x', '/x*a', '/*'),
        fc.array(piece, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('', '$', '*b$', 'b'),
      )
      .map(([head, pieces, tail]) => `${head}*${pieces.join('*')}${tail}`);
    const path = fc
      .tuple(
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('a', 'b', 'ab', 'ba', 'bab')), {
          minLength: 2,
          maxLength: 30,
        }),
        fc.constantFrom(200, 3_000, 17_000),
      )
      .map(([strewn, size]) => {
        const chars = Array.from({ length: size }, () => 'c');
        for (const [at, text] of strewn) chars[at % size] = text;
        return `/x${chars.join('')}`;
      });
    fc.assert(
      fc.property(
        fc.array(filler, { minLength: 40, maxLength: 40 }),
        tested,
        fc.array(path, { minLength: 1, maxLength: 4 }),
        (fillers, rule, paths) => {
          const text = `user-agent: *\n${[...fillers, rule].map((p) => `disallow: ${p}`).join('\n')}\n`;
          const robots = RobotsTxt.parse(text);
          for (const p of paths) {
            expect(robots.isAllowed(p, 'bot'), `${rule} on ${p.length} characters`).toBe(
              !matchesPattern(rule, p),
            );
          }
        },
      ),
      { numRuns: 300, endOnFailure: true },
    );
  });
});

describe('pieces a check knows are not in the path, from the hashes of its windows', () => {
  // Past a few searches of pieces of one length, a check hashes every window of the path that
  // long, and a rule whose longest piece hashes like no window fails without a search. The path
  // pairs every two of its letters, so that no filter of pairs rules a piece out.
  const path = `/${'ab'.repeat(20)}cbbccaac`;
  let words = [''];
  for (let i = 0; i < 6; i++) words = words.flatMap((w) => ['a', 'b', 'c'].map((c) => w + c));
  const absent = words.filter((w) => !path.includes(w));
  // Longer patterns than the rules tested, with no literal prefix: tried first, each searches for
  // a piece of six.
  const fillers = absent.slice(0, 40).map((piece) => ({ allow: false, pattern: `*${piece}*a*b*a*b` }));

  const verdict = (rule: string, on = path) => {
    const rules = [...fillers, { allow: false, pattern: rule }];
    const robots = RobotsTxt.parse(
      `user-agent: *\n${rules.map((r) => `disallow: ${r.pattern}`).join('\n')}\n`,
    );
    const allowed = robots.isAllowed(on, 'bot');
    expect(allowed, `${rule} on ${on}`).toBe(referenceAllowed(rules, on, referenceMatchesTable));
    return allowed;
  };

  it('has pieces enough to hash the windows: none of them is in the path', () => {
    expect(absent.length).toBeGreaterThanOrEqual(40);
  });

  it('finds a longest piece in the last window of the path, and in the first', () => {
    expect(verdict('/*bccaac')).toBe(false);
    expect(verdict('/*ab*bccaac$')).toBe(false);
    expect(verdict('*/ababa')).toBe(false);
    expect(verdict('*/ababa*cbb')).toBe(false);
  });

  it('finds a longest piece as long as the path', () => {
    expect(verdict('*/ababa', '/ababa')).toBe(false);
    expect(verdict('*/ababa', '/abab')).toBe(true);
  });

  it('fails a rule whose longest piece is nowhere, though its other pieces are', () => {
    expect(verdict(`/*ab*${absent[45]}`)).toBe(true);
    expect(verdict(`/*${absent[46]}*ab`)).toBe(true);
    expect(verdict('/*bccaaca')).toBe(true);
  });

  it('fails a rule whose second longest piece is nowhere, and matches one with both pieces', () => {
    expect(verdict(`/*abababa*${absent[47]}`)).toBe(true);
    expect(verdict(`/*${absent[48]}*abababa`)).toBe(true);
    expect(verdict('/*abababa*bccaac')).toBe(false);
    expect(verdict('/*bccaac*abababa')).toBe(true);
  });

  it('matches as matching in place does for pieces of one length over three letters', () => {
    const piece = fc.stringMatching(/^[abc]{5,6}$/);
    const rule = fc
      .tuple(fc.array(piece, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '$'))
      .map(([pieces, tail]) => `/*${pieces.join('*')}${tail}`);
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 40, maxLength: 60 }),
        fc.array(fc.stringMatching(/^[abc]{0,300}$/), { minLength: 1, maxLength: 4 }),
        (patterns, paths) => {
          const rules = patterns.map((pattern, i) => ({ allow: i % 3 === 0, pattern }));
          const robots = RobotsTxt.parse(
            `user-agent: *\n${rules.map((r) => `${r.allow ? 'allow' : 'disallow'}: ${r.pattern}`).join('\n')}\n`,
          );
          for (const p of paths) {
            expect(robots.isAllowed(`/${p}`, 'bot'), `/${p}`).toBe(
              referenceAllowed(rules, `/${p}`, referenceMatchesTable),
            );
          }
        },
      ),
      { numRuns: 200, endOnFailure: true },
    );
  });
});

describe('runs of one-character pieces, taken at once', () => {
  // Forty rules make the group one that a check indexes; none matches, the paths having no `z`.
  const others = Array.from({ length: 40 }, (_, i) => `/x${'*b'.repeat(i + 1)}*z`);
  const verdict = (rule: string, path: string, before?: string) => {
    const patterns = [...others, ...(before === undefined ? [] : [before]), rule];
    const robots = RobotsTxt.parse(fileOf(patterns.map((pattern) => ({ allow: false, pattern }))));
    const allowed = robots.isAllowed(path, 'bot');
    const matched = matchesPattern(rule, path) || (before !== undefined && matchesPattern(before, path));
    expect(allowed, `${rule} on ${path.length} characters`).toBe(!matched);
    return allowed;
  };
  const run = (k: number, c = 'a') => `*${c}`.repeat(k);

  it('needs as many occurrences as the run has pieces, from where it starts', () => {
    const path = `/x${'ab'.repeat(50)}`;
    expect(verdict(`/x${run(50)}`, path)).toBe(false);
    expect(verdict(`/x${run(51)}`, path)).toBe(true);
    expect(verdict(`/xa${run(49)}`, path)).toBe(false);
    expect(verdict(`/xa${run(50)}`, path)).toBe(true);
  });

  it('follows a run with the pieces after it, from one past its last occurrence', () => {
    const path = `/x${'a'.repeat(40)}b${'a'.repeat(40)}c`;
    expect(verdict(`/x${run(40)}*b${run(40)}*c`, path)).toBe(false);
    expect(verdict(`/x${run(41)}*b`, path)).toBe(true);
    expect(verdict(`/x${run(40)}*ab*c`, path)).toBe(true);
    expect(verdict(`/x${run(39)}*ab*c`, path)).toBe(false);
    expect(verdict(`/x*b${run(39)}*ac`, path)).toBe(false);
    expect(verdict(`/x*b${run(40)}*ac`, path)).toBe(true);
    expect(verdict(`/x${run(80)}*c`, path)).toBe(false);
    expect(verdict(`/x${run(81)}`, path)).toBe(true);
  });

  it('tests the last piece of an anchored rule at the end of the path', () => {
    const path = `/x${'a'.repeat(40)}`;
    expect(verdict(`/x${run(40)}$`, path)).toBe(false);
    expect(verdict(`/x${run(41)}$`, path)).toBe(true);
    expect(verdict(`/x${run(33)}$`, path)).toBe(false);
    expect(verdict(`/x${run(40)}$`, `${path}b`)).toBe(true);
    expect(verdict(`/x${run(39)}*b$`, `${path}b`)).toBe(false);
  });

  it('takes a run through the row of its character that single pieces of it had built', () => {
    // Longer, so tried first: its single `a` pieces have the check build the row of `a` before
    // the run needs it, and it fails at its 51st `a`.
    const singles = `/x${'*a*b'.repeat(51)}`;
    const path = `/x${'ab'.repeat(50)}`;
    expect(verdict(`/x${run(50)}`, path, singles)).toBe(false);
    expect(verdict(`/x${run(51)}`, path, singles)).toBe(true);
    expect(verdict(`/xab${run(49)}*b`, path, singles)).toBe(false);
    expect(verdict(`/xab${run(50)}`, path, singles)).toBe(true);
  });

  it('reads the row a run built in the first check of a process, which enlarged the table', async () => {
    // Fresh modules: the check starts with no table of rows, and the run, tried first as the
    // longest rule, builds the first row. The piece of `a` after it reads that row.
    vi.resetModules();
    const fresh = await import('../../src/index.js');
    const rule = `/x${run(60)}`;
    const robots = fresh.RobotsTxt.parse(
      fileOf([...others, rule].map((pattern) => ({ allow: false, pattern }))),
    );
    expect(robots.isAllowed(`/x${'a'.repeat(60)}`, 'bot')).toBe(false);
    expect(robots.isAllowed(`/x${'a'.repeat(59)}`, 'bot')).toBe(true);
  });

  it('takes runs along a path past 16 KiB, where the engine searches', () => {
    const path = `/x${'c'.repeat(17_000)}${'ab'.repeat(40)}`;
    expect(verdict(`/x${run(40)}`, path)).toBe(false);
    expect(verdict(`/x${run(41)}`, path)).toBe(true);
    expect(verdict(`/x${run(40)}$`, path)).toBe(true);
    expect(verdict(`/x${run(40, 'b')}$`, path)).toBe(false);
  });

  it('matches as matching in place does, with runs of every length among other pieces', () => {
    const segment = fc.oneof(
      fc.tuple(fc.integer({ min: 1, max: 70 }), fc.constantFrom('a', 'b')).map(([k, c]) => run(k, c)),
      fc.constantFrom('*ab', '*ba', '*bb', 'a'),
    );
    const rule = fc
      .tuple(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.constantFrom('', '$'))
      .map(([segments, tail]) => `/x${segments.join('')}${tail}`);
    const path = fc.stringMatching(/^[ab]{0,300}$/).map((p) => `/x${p}`);
    fc.assert(
      fc.property(rule, fc.array(path, { minLength: 1, maxLength: 4 }), (tested, paths) => {
        for (const p of paths) verdict(tested, p);
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });
});

describe('many rules of one-character pieces, each of which may match', () => {
  // Rules of up to 40 pieces over three letters against paths of up to 300: each rule matches
  // or not by a few characters, allow and disallow rules of many lengths compete, and some hold
  // runs. Forty rules or more make a group a check indexes; past 128 candidates in the buckets of
  // a path, it marks them through the gram index.
  const piece = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c') },
    { weight: 1, arbitrary: runOf(32, 40) },
  );
  const rule = ruleOf(piece, 40, ['', '', '$']);
  const path = fc.stringMatching(/^[abc]{0,300}$/).map((p) => `/x${p}`);

  it('answers as the literal reading does, in groups read by bucket and by the gram index', () => {
    agreesWithReference(
      fc.array(rule, { minLength: 40, maxLength: 200 }),
      fc.array(path, { minLength: 1, maxLength: 2 }),
      { numRuns: 80, endOnFailure: true },
      { matches: referenceMatchesTable, explained: true },
    );
  });

  it('takes the longest rule that matches, an allow on a tie, past a longer one that fails', () => {
    // Rules of one-character pieces, each found in `/xabcabc…` but one that needs a character more.
    const path = `/x${'abc'.repeat(20)}`;
    const others = Array.from({ length: 40 }, (_, i) => `/x${'*b'.repeat(i + 1)}*z`);
    const verdict = (allowed: string[], disallowed: string[]) => {
      const rules = [
        ...[...others, ...disallowed].map((pattern) => ({ allow: false, pattern })),
        ...allowed.map((pattern) => ({ allow: true, pattern })),
      ];
      const allowedNow = RobotsTxt.parse(fileOf(rules)).isAllowed(path, 'bot');
      expect(allowedNow).toBe(referenceAllowed(rules, path, referenceMatchesTable));
      return allowedNow;
    };
    const of = (pieces: string) => `/x*${pieces.split('').join('*')}`;
    const long = of('abc'.repeat(4));
    const short = of('abc'.repeat(2));
    expect(verdict([long], [short])).toBe(true);
    expect(verdict([short], [long])).toBe(false);
    expect(verdict([long], [long])).toBe(true);
    expect(verdict([of(`${'abc'.repeat(20)}a`), long], [of('abc'.repeat(20))])).toBe(false);
  });
});

describe('the first check of a process', () => {
  // A check grows the tables it shares with the checks after it (rows of the path, its windows,
  // the searches of pieces, the marks of the gram index) from nothing: fresh modules for each
  // case, so that every table a check needs is new to it.
  const piece = fc.oneof(fc.constantFrom('a', 'b', 'c', 'ab', 'ba', 'abc', 'cab'), runOf(30, 45));
  const rule = ruleOf(piece, 4, ['', '$', '*']);
  const path = fc
    .tuple(fc.stringMatching(/^[abc]{0,120}$/), fc.integer({ min: 0, max: 3_000 }))
    .map(([start, more]) => `/x${start}${'ab'.repeat(more >> 1)}`);

  it('agrees with the literal reading, whatever tables it has to grow', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rule, { minLength: 40, maxLength: 70 }),
        path,
        fc.boolean(),
        async (rules, p, explainFirst) => {
          vi.resetModules();
          const fresh = await import('../../src/index.js');
          const robots = fresh.RobotsTxt.parse(fileOf(rules));
          const expected = referenceAllowed(rules, p, referenceMatchesTable);
          // explain reads every matching rule, through other code than isAllowed.
          if (explainFirst) expect(robots.explain(p, 'bot').allowed).toBe(expected);
          expect(robots.isAllowed(p, 'bot')).toBe(expected);
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  });
});
