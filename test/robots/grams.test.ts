import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { agreesWithReference, fileOf } from './support/agreement.js';
import { type ReferenceRule, referenceAllowed, referenceMatchesTable } from './support/reference.js';

/*
 * A large group's wildcard rules are filed under a gram, the start of their longest piece, and
 * a check matches only the rules whose gram is in the path. Past 64 rules with one gram, a rule
 * is filed under another text it needs: its second longest piece, or the end of a longest piece
 * longer than a gram (16 characters). Whatever a rule is filed under, it must be found whenever
 * it matches.
 */

function robotsOf(rules: readonly ReferenceRule[]): RobotsTxt {
  return RobotsTxt.parse(fileOf(rules));
}

/** The verdict and the line of the decisive rule, checked against the literal reading. */
function verdict(robots: RobotsTxt, rules: readonly ReferenceRule[], path: string) {
  const allowed = robots.isAllowed(path, 'bot');
  expect(allowed, path.slice(0, 80)).toBe(referenceAllowed(rules, path, referenceMatchesTable));
  const explained = robots.explain(path, 'bot');
  expect(explained.allowed).toBe(allowed);
  return { allowed, line: explained.rule?.line };
}

describe('rules that share their longest piece', () => {
  const shared = 'sharedpiece-0123456789';
  const rules = Array.from({ length: 200 }, (_, i) => ({
    allow: false,
    pattern: `/*${shared}*t${i}x${i}y`,
  }));
  const robots = robotsOf(rules);

  it('finds each rule through its other piece', () => {
    expect(verdict(robots, rules, `/a/${shared}/b/t57x57y`)).toEqual({ allowed: false, line: 59 });
    expect(verdict(robots, rules, `/${shared}t199x199y/c`)).toEqual({ allowed: false, line: 201 });
    expect(verdict(robots, rules, `/${shared}/t0x0y`)).toEqual({ allowed: false, line: 2 });
  });

  it('matches no rule for a path with only the shared piece, or with the pieces out of order', () => {
    expect(verdict(robots, rules, `/a/${shared}/b/t57x58y`).allowed).toBe(true);
    expect(verdict(robots, rules, `/t57x57y/${shared}`).allowed).toBe(true);
    expect(verdict(robots, rules, `/${shared}${shared}`).allowed).toBe(true);
  });
});

describe('rules whose one piece shares a start longer than a gram', () => {
  const start = 'abcdefghijklmnop';
  const rules = Array.from({ length: 200 }, (_, i) => ({
    allow: i % 3 === 0,
    pattern: `/*${start}${String(i * 7919).padStart(6, 'q')}${i % 2 === 0 ? '$' : ''}`,
  }));
  const robots = robotsOf(rules);

  it('finds each rule through the end of its piece', () => {
    const piece = (i: number) => `${start}${String(i * 7919).padStart(6, 'q')}`;
    expect(verdict(robots, rules, `/x/${piece(5)}/y`)).toEqual({ allowed: false, line: 7 });
    expect(verdict(robots, rules, `/x/${piece(4)}`)).toEqual({ allowed: false, line: 6 });
    expect(verdict(robots, rules, `/x/${piece(4)}/y`).allowed).toBe(true);
    expect(verdict(robots, rules, `/${piece(3)}`)).toEqual({ allowed: true, line: 5 });
    // The piece's end alone, or its start alone, is not the piece.
    expect(verdict(robots, rules, `/x/${piece(5).slice(1)}`).allowed).toBe(true);
    expect(verdict(robots, rules, `/x/${start}`).allowed).toBe(true);
  });
});

describe('rules whose other piece is shared too', () => {
  // Each rule's other piece is one of two, each shared by 100 rules: none is filed again.
  const rules = Array.from({ length: 200 }, (_, i) => ({
    allow: false,
    pattern: `/*${'longest-piece-of-all'}*${i % 2 === 0 ? 'even-ones' : 'odd-ones'}*${i}.html$`,
  }));
  const robots = robotsOf(rules);

  it('still finds each rule', () => {
    expect(verdict(robots, rules, '/longest-piece-of-all/odd-ones/17.html')).toEqual({
      allowed: false,
      line: 19,
    });
    expect(verdict(robots, rules, '/longest-piece-of-all/even-ones/17.html').allowed).toBe(true);
  });
});

describe('groups of rules built from a few shared pieces', () => {
  it('agree with the literal reading', () => {
    const pieces = ['aaaaaaaaaaaaaaaaaaaa', 'bcbcbcbcbcbcbcbcbcbcbc', 'xy', 'zzz', 'q'];
    const piece = fc.constantFrom(...pieces);
    const tail = fc.stringMatching(/^[a-z]{1,4}$/);
    const rule = fc.record({
      allow: fc.boolean(),
      pattern: fc
        .tuple(fc.array(piece, { minLength: 1, maxLength: 3 }), tail, fc.boolean())
        .map(([parts, end, anchored]) => `/*${parts.join('*')}*${end}${anchored ? '$' : ''}`),
    });
    const path = fc
      .array(fc.oneof(piece, tail), { minLength: 1, maxLength: 8 })
      .map((parts) => `/${parts.join('')}`);
    agreesWithReference(
      fc.array(rule, { minLength: 80, maxLength: 220 }),
      fc.array(path, { minLength: 8, maxLength: 8 }),
      { numRuns: 60 },
      { matches: referenceMatchesTable },
    );
  });
});
