import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { DOT_SEGMENT, NORMAL_HTTP_URL } from '../../src/robots/compile.js';
import { matchesPattern } from '../../src/robots/match.js';
import { agreesWithReference, fileOf } from './support/agreement.js';
import { referenceAllowed, referenceMatches, referenceMatchesTable } from './support/reference.js';

const pattern = fc
  .array(fc.constantFrom('/', 'a', 'b', 'c', '*', '.'), { maxLength: 8 })
  .chain((chars) => fc.boolean().map((anchor) => `/${chars.join('')}${anchor ? '$' : ''}`));
const rule = fc.record({ allow: fc.boolean(), pattern });
const path = fc
  .array(fc.constantFrom('/', 'a', 'b', 'c', '.', 'x'), { maxLength: 12 })
  .map((c) => `/${c.join('')}`);
/** The candidates of a verdict for `path` (file lines from 2), as the literal reading finds them, best first. */
function expectedCandidates(
  rules: readonly { allow: boolean; pattern: string }[],
  path: string,
): { kind: string; line: number; length: number }[] {
  return rules
    .map((r, i) => ({ kind: r.allow ? 'allow' : 'disallow', line: i + 2, length: r.pattern.length, r }))
    .filter(({ r }) => r.pattern !== '' && referenceMatches(r.pattern, path))
    .sort((a, b) => b.length - a.length || Number(b.r.allow) - Number(a.r.allow) || a.line - b.line)
    .map(({ kind, line, length }) => ({ kind, line, length }));
}

/** The kind, line and length of each candidate of a verdict, as expectedCandidates lists them. */
function listed(candidates: readonly { kind: string; line: number; length: number }[]) {
  return candidates.map(({ kind, line, length }) => ({ kind, line, length }));
}

describe('matcher properties', () => {
  it('agrees with the literal reading of RFC 9309 on small groups', () => {
    agreesWithReference(fc.array(rule, { maxLength: 12 }), fc.array(path, { minLength: 1, maxLength: 8 }), {
      numRuns: 2_000,
    });
  });

  it('agrees with it when another file is parsed before the first check', () => {
    // The first check ranks the group then, from the patterns' strings: the octets the
    // compiler wrote them to hold the other file's by that time.
    agreesWithReference(
      fc.array(rule, { maxLength: 40 }),
      fc.array(path, { minLength: 1, maxLength: 8 }),
      { numRuns: 1_000 },
      { parseBetween: true },
    );
  });

  it('lists every matching rule as a candidate, best first', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 40 }), path, (rules, p) => {
        const { candidates } = RobotsTxt.parse(fileOf(rules)).explain(p, 'bot');
        expect(listed(candidates)).toEqual(expectedCandidates(rules, p));
      }),
      { numRuns: 1_000 },
    );
  });

  // Over 512 plain rules, found by the hash of their patterns, and more than 32 wildcard and `$`
  // rules, matched as piece sequences: few characters, so that rules repeat and many match.
  const plain = fc
    .array(fc.constantFrom('/', 'a', 'b', 'ab', 'ba'), { maxLength: 7 })
    .map((chars) => `/${chars.join('')}`);
  const wildcard = fc
    .tuple(
      fc.array(fc.constantFrom('/', 'a', 'b', 'ab', 'ba', '*'), { maxLength: 7 }),
      fc.constantFrom('', '$', '*', '*$'),
    )
    .map(([chars, tail]) => `/*${chars.join('')}${tail}`);
  const large = fc.record({
    allow: fc.boolean(),
    pattern: fc.oneof(
      { weight: 7, arbitrary: plain },
      { weight: 1, arbitrary: plain.map((p) => `${p}$`) },
      { weight: 3, arbitrary: wildcard },
    ),
  });
  const longish = fc
    .array(fc.constantFrom('/', 'a', 'b', 'ab', 'x'), { maxLength: 24 })
    .map((c) => `/${c.join('')}`);

  it('lists every matching rule of a large group, found by hash and through its index', () => {
    fc.assert(
      fc.property(
        fc.array(large, { minLength: 950, maxLength: 1100 }),
        fc.array(longish, { minLength: 1, maxLength: 12 }),
        (rules, paths) => {
          const robots = RobotsTxt.parse(fileOf(rules));
          for (const p of paths) {
            const expected = expectedCandidates(rules, p);
            const { candidates, rule: decisive } = robots.explain(p, 'bot');
            expect(listed(candidates)).toEqual(expected);
            expect(decisive?.line).toBe(expected[0]?.line);
          }
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  });

  it('answers the first parse and check of a process as the literal reading does', async () => {
    // Fresh modules for each case: every table the parse and the check share with later ones
    // (the octets of patterns, the hashes of a path's prefixes, the marks of the index) is new.
    await fc.assert(
      fc.asyncProperty(
        fc.array(large, { minLength: 950, maxLength: 1100 }),
        fc.array(longish, { minLength: 1, maxLength: 4 }),
        async (rules, paths) => {
          vi.resetModules();
          const fresh = await import('../../src/index.js');
          const robots = fresh.RobotsTxt.parse(fileOf(rules));
          for (const p of paths) expect(robots.isAllowed(p, 'bot')).toBe(referenceAllowed(rules, p));
        },
      ),
      { numRuns: 10, endOnFailure: true },
    );
  });

  it('agrees with it on large, indexed groups too', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 60, maxLength: 200 }),
        fc.array(path, { minLength: 1, maxLength: 20 }),
        (rules, paths) => {
          const robots = RobotsTxt.parse(fileOf(rules));
          for (const p of paths) {
            expect(robots.isAllowed(p, 'bot')).toBe(referenceAllowed(rules, p));
            // The verdict's decisive rule is the one isAllowed used.
            expect(robots.explain(p, 'bot').allowed).toBe(referenceAllowed(rules, p));
            expect(robots.explain(p, 'bot', { candidates: false }).allowed).toBe(referenceAllowed(rules, p));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with it on hundreds of wildcard rules and long paths (the gram index)', () => {
    // Pieces of two to ten characters from a small alphabet: paths hold many of them, so that
    // the rules a check must consider are too many to read one by one.
    const piece = fc
      .array(fc.constantFrom('a', 'b', 'c', 'x'), { minLength: 1, maxLength: 10 })
      .map((c) => c.join(''));
    const wildcard = fc.record({
      allow: fc.boolean(),
      pattern: fc
        .tuple(
          fc.constantFrom('/', '/*', '/a', '/a*'),
          fc.array(piece, { minLength: 1, maxLength: 3 }),
          fc.constantFrom('', '$', '*'),
        )
        .map(([head, pieces, tail]) => `${head}${pieces.join('*')}${tail}`),
    });
    const longPath = fc
      .array(fc.constantFrom('/', 'a', 'b', 'c', 'x', 'ab', 'cx', 'abc'), { minLength: 20, maxLength: 200 })
      .map((c) => `/${c.join('')}`);
    agreesWithReference(
      fc.array(wildcard, { minLength: 200, maxLength: 500 }),
      fc.array(longPath, { minLength: 1, maxLength: 10 }),
      { numRuns: 60, endOnFailure: true },
    );
  });

  it('agrees with it when the rules lie across the boundary of two chunks of patterns', () => {
    // Another crawler's group first, of long rules that end up to 2,000 characters before the
    // first chunk boundary (64 Ki characters in): the rules of the group checked lie across it.
    const filler = (before: number) => {
      const lines = ['user-agent: filler'];
      let left = 65_536 - before;
      while (left > 0) {
        const length = Math.min(left, 16_000);
        lines.push(`disallow: /${'f'.repeat(length - 1)}`);
        left -= length;
      }
      return `${lines.join('\n')}\n\n`;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000 }),
        fc.array(rule, { minLength: 60, maxLength: 300 }),
        fc.array(path, { minLength: 1, maxLength: 20 }),
        (before, rules, paths) => {
          const robots = RobotsTxt.parse(filler(before) + fileOf(rules));
          for (const p of paths) {
            expect(robots.isAllowed(p, 'bot')).toBe(referenceAllowed(rules, p));
            expect(robots.explain(p, 'bot').allowed).toBe(referenceAllowed(rules, p));
          }
          expect(robots.groups[1].rules.map((r) => r.pattern)).toEqual(rules.map((r) => r.pattern));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('agrees with it on groups of hundreds of plain prefix rules (sorted, or past 512 found by hash)', () => {
    const plain = fc.record({
      allow: fc.boolean(),
      // Short patterns repeat; long ones share prefixes past the characters one sort step reads.
      pattern: fc
        .oneof(
          fc.array(fc.constantFrom('/', 'a', 'b', 'c'), { maxLength: 7 }),
          fc.array(fc.constantFrom('/', 'a', 'b'), { minLength: 8, maxLength: 24 }),
        )
        .map((c) => `/${c.join('')}`),
    });
    // Paths that start with a rule's pattern, cut or extended: the longest match is then a near miss
    // of many other patterns.
    const near = fc.tuple(fc.nat(), fc.integer({ min: -3, max: 3 }), fc.constantFrom('', 'a', 'b', '/c'));
    fc.assert(
      fc.property(
        fc.array(plain, { minLength: 200, maxLength: 800 }),
        fc.array(path, { minLength: 1, maxLength: 20 }),
        fc.array(near, { minLength: 1, maxLength: 40 }),
        (rules, paths, nearPaths) => {
          const robots = RobotsTxt.parse(fileOf(rules));
          const derived = nearPaths.map(([n, cut, tail]) => {
            const pattern = rules[n % rules.length].pattern;
            return `${cut < 0 ? pattern.slice(0, Math.max(1, pattern.length + cut)) : pattern}${tail}`;
          });
          for (const p of [...paths, ...derived])
            expect(robots.isAllowed(p, 'bot')).toBe(referenceAllowed(rules, p));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('agrees with it on hundreds of wildcard rules, where a check filters rules by their pieces', () => {
    // Long paths over few characters: most rules pass the character filter, so checks go on
    // to the gram index (decide.ts, pieces.ts).
    const wildcard = fc.record({
      allow: fc.boolean(),
      pattern: fc
        .array(fc.constantFrom('a', 'b', 'ab', 'ba', 'aab', 'bba', '*'), { minLength: 1, maxLength: 6 })
        .chain((parts) => fc.boolean().map((anchor) => `/*${parts.join('')}${anchor ? '$' : ''}`)),
    });
    const longPath = fc
      .array(fc.constantFrom('a', 'b', 'ab', 'x'), { minLength: 5, maxLength: 40 })
      .map((c) => `/${c.join('')}`);
    // Shrinking hundreds of rules takes minutes: report the first failure as found.
    agreesWithReference(
      fc.array(wildcard, { minLength: 300, maxLength: 500 }),
      fc.array(longPath, { minLength: 1, maxLength: 10 }),
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('agrees with it on rules of dozens of short pieces, which a check follows through rows of the path', () => {
    // Most rules need, after all their pieces, the `x` that most paths have only at their start:
    // a check follows thousands of pieces to the end of each rule, and past a few thousand finds
    // them through rows of the path (sequences.ts).
    const wildcard = fc.record({
      allow: fc.boolean(),
      pattern: fc
        .tuple(
          fc.constantFrom('/', '/a', '/*', '/x'),
          fc.array(fc.constantFrom('a', 'b', 'c', 'ab', 'ba', 'aa', 'abc', 'cab'), {
            minLength: 30,
            maxLength: 80,
          }),
          fc.constantFrom('*', '**'),
          fc.constantFrom('*x', '*x', '*x', '*x', '*x', '*x', '$', '*x$', '*b$', 'ab$'),
        )
        .map(([head, pieces, star, tail]) => `${head}*${pieces.join(star)}${tail}`),
    });
    const longPath = fc
      .tuple(
        fc.constantFrom('/', '/x', '/xa'),
        fc.array(fc.constantFrom('a', 'b', 'c', 'ab', 'aaaaaaaaaaaa'), { minLength: 50, maxLength: 200 }),
        fc.constantFrom('', '', '', 'x', 'b', 'ab'),
      )
      .map(([head, middle, tail]) => `${head}${middle.join('')}${tail}`);
    fc.assert(
      fc.property(
        fc.array(wildcard, { minLength: 100, maxLength: 160 }),
        fc.array(longPath, { minLength: 1, maxLength: 3 }),
        (rules, paths) => {
          const robots = RobotsTxt.parse(fileOf(rules));
          for (const p of paths) {
            const expected = referenceAllowed(rules, p, referenceMatchesTable);
            expect(robots.isAllowed(p, 'bot')).toBe(expected);
            expect(robots.explain(p, 'bot').allowed).toBe(expected);
          }
        },
      ),
      // Shrinking a hundred rules takes minutes: report the first failure as found.
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('agrees with matching in place on paths of runs of one character, short and past 16 KiB', () => {
    // Runs of `a` make a piece like `ab` start falsely many times over, so that a check leaves
    // the rows for the engine's search and what it remembers of earlier searches; past 16 KiB a
    // check searches every piece that way. Matching in place (match.ts) is held to the literal
    // reading on shorter paths above; here the two must agree.
    const run = fc.integer({ min: 1, max: 40 }).map((n) => 'a'.repeat(n));
    const wildcard = fc.record({
      allow: fc.boolean(),
      pattern: fc
        .tuple(
          fc.constantFrom('/', '/x', '/*'),
          fc.array(fc.constantFrom('a', 'b', 'ab', 'ba', 'aab', 'aaab', 'aaaaaaaaab', 'bb'), {
            minLength: 3,
            maxLength: 40,
          }),
          fc.constantFrom('*x', '*x', '', '$', '*b$', '*'),
        )
        .map(([head, pieces, tail]) => `${head}*${pieces.join('*')}${tail}`),
    });
    const longPath = fc
      .tuple(
        fc.constantFrom('/x', '/xa', '/'),
        fc.array(fc.tuple(run, fc.constantFrom('b', 'bb', 'ab')), { minLength: 20, maxLength: 200 }),
        fc.integer({ min: 0, max: 1 }),
        fc.constantFrom('', 'x', 'b'),
      )
      .map(([head, parts, long, tail]) => {
        const middle = parts.map(([a, b]) => a + b).join('');
        // Half the paths are stretched past 16 KiB.
        return `${head}${long ? middle.repeat(Math.ceil(17_000 / middle.length)) : middle}${tail}`;
      });
    fc.assert(
      fc.property(
        fc.array(wildcard, { minLength: 40, maxLength: 90 }),
        fc.array(longPath, { minLength: 1, maxLength: 3 }),
        (rules, paths) => {
          const robots = RobotsTxt.parse(fileOf(rules));
          for (const p of paths) {
            const expected = referenceAllowed(rules, p, matchesPattern);
            expect(robots.isAllowed(p, 'bot')).toBe(expected);
            expect(robots.explain(p, 'bot', { candidates: false }).allowed).toBe(expected);
          }
        },
      ),
      { numRuns: 60, endOnFailure: true },
    );
  });

  it('never changes a verdict when the rules are reordered', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 80 }), path, fc.nat(), (rules, p, seed) => {
        const shuffled = [...rules];
        let state = seed;
        for (let i = shuffled.length - 1; i > 0; i--) {
          state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
          const j = state % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
        }
        expect(RobotsTxt.parse(fileOf(shuffled)).isAllowed(p, 'bot')).toBe(
          RobotsTxt.parse(fileOf(rules)).isAllowed(p, 'bot'),
        );
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('parser properties', () => {
  const robotsish = fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom(
          'user-agent: *',
          'User-Agent: FooBot',
          'disallow: /',
          'allow: /a*b$',
          'sitemap: x',
          '#',
          ':',
          'crawl-delay: 1',
        ),
      ),
      { maxLength: 30 },
    )
    .chain((lines) => fc.constantFrom('\n', '\r', '\r\n').map((eol) => lines.join(eol)));

  it('never throws and always answers for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 400 }), robotsish), path, (body, p) => {
        const robots = RobotsTxt.parse(body);
        expect(typeof robots.isAllowed(p, 'FooBot')).toBe('boolean');
        expect(typeof robots.explain(p, 'Mozilla/5.0 (compatible; FooBot/1)').allowed).toBe('boolean');
        expect(Array.isArray(robots.groups)).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });

  it('never throws for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const robots = RobotsTxt.parse(bytes);
        expect(typeof robots.isAllowed('/x', 'FooBot')).toBe('boolean');
        for (const lint of robots.lints) expect(lint.line).toBeGreaterThan(0);
      }),
      { numRuns: 3_000 },
    );
  });

  it('reads a string and its UTF-8 octets alike', () => {
    // Marks in odd places too: only the file's first one is skipped, as a string's is.
    const text = fc.oneof(
      robotsish,
      robotsish.map((body) => `\ufeff${body}`),
      fc.tuple(robotsish, robotsish).map(([a, b]) => `\ufeff\ufeff${a}\n\ufeff${b}`),
    );
    fc.assert(
      fc.property(text, path, (body, p) => {
        // A lone surrogate has no UTF-8 form; toWellFormed() is what encoding it writes.
        const wellFormed = body.replace(/[\ud800-\udfff]/gu, '\ufffd');
        const fromText = RobotsTxt.parse(wellFormed);
        const fromBytes = RobotsTxt.parse(new TextEncoder().encode(wellFormed));
        expect(fromBytes.groups).toEqual(fromText.groups);
        expect(fromBytes.sitemaps).toEqual(fromText.sitemaps);
        expect(fromBytes.lints).toEqual(fromText.lints);
        expect(fromBytes.explain(p, 'FooBot')).toEqual(fromText.explain(p, 'FooBot'));
      }),
      { numRuns: 2_000 },
    );
  });

  it('answers any URL-ish path without throwing', () => {
    const robots = RobotsTxt.parse('user-agent: *\ndisallow: /a*b\nallow: /a%2Fb$\n');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (tail) => {
        expect(typeof robots.isAllowed(`/${tail}`, 'x')).toBe('boolean');
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('sitemap properties', () => {
  /**
   * The rule read slowly: http(s):// as written, no blank, and a URL `new URL` reads; listed as
   * its href. (Not `URL.canParse`: Node 20's, once optimized, rejects Latin-1 text like `http://é`.)
   */
  const referenceSitemap = (value: string): string | undefined => {
    // A host right after `//`: URL parsers skip a third slash, which would turn a path into one.
    if (!/^https?:\/\/(?![/\\])/i.test(value) || /\s/.test(value)) return undefined;
    try {
      return new URL(value).href;
    } catch {
      return undefined;
    }
  };

  const tail = fc
    .array(
      fc.constantFrom(
        'a',
        'B',
        'x',
        'n',
        '-',
        '0',
        '1',
        '.',
        '/',
        ':',
        '@',
        '%',
        '2e',
        'xn--',
        '?',
        '#',
        '\\',
        ' ',
        '[',
        ']',
        'é',
        "'",
        '..',
        '0x',
        '443',
      ),
      { maxLength: 14 },
    )
    .map((parts) => parts.join(''));
  const value = fc
    .tuple(fc.constantFrom('http://', 'https://', 'HTTPS://', 'https:/', 'ftp://', ''), tail)
    .map(([scheme, rest]) => `${scheme}${rest}`);

  it('lists exactly the URLs the slow reading accepts, as their href, each once', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 20 }), (values) => {
        const robots = RobotsTxt.parse(values.map((v) => `Sitemap: ${v}`).join('\n'));
        // The value of a line: up to its comment, without the blanks around it.
        const read = values.map((v) => referenceSitemap(v.split('#')[0].trim()));
        expect(robots.sitemaps).toEqual([...new Set(read.filter((url) => url !== undefined))]);
        const flagged = robots.lints.filter((l) => l.code === 'sitemap-not-absolute').map((l) => l.line);
        expect(flagged).toEqual(read.flatMap((url, i) => (url === undefined ? [i + 1] : [])));
      }),
      { numRuns: 3_000 },
    );
  });

  it('reads a URL that needs no parse exactly as URL.href writes it', () => {
    fc.assert(
      // URLs of every shape the expression allows, each part at most about 100 characters long.
      fc.property(fc.stringMatching(NORMAL_HTTP_URL, { size: 'medium' }), (url) => {
        fc.pre(!DOT_SEGMENT.test(url) && !url.includes('xn--'));
        expect(new URL(url).href).toBe(url);
        expect(RobotsTxt.parse(`Sitemap: ${url}`).sitemaps).toEqual([url]);
      }),
      { numRuns: 2_000 },
    );
  });
});
