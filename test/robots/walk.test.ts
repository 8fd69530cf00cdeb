import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { Walk, walker } from '../../src/robots/walk.js';
import {
  WALK_FAILED,
  WALK_LEFT,
  WALK_MATCHED,
  WALK_MEMORY_BYTES,
  WALK_PATH_LIMIT,
} from '../../src/robots/walk-code.js';
import { fileOf } from './support/agreement.js';
import { type ReferenceRule, referenceAllowed, referenceMatchesTable } from './support/reference.js';

/*
 * The WebAssembly walk of an indexed group's wildcard rules (walk.ts), seen through the verdicts
 * of checks, with the statuses the walk gave its rules counted: each test also shows that the
 * case it names went through the walk, and not through the JavaScript walk alone.
 */

/** Rules that fail at their last piece, enough of them for the group to be indexed. */
const fillers: ReferenceRule[] = Array.from({ length: 40 }, (_, i) => ({
  allow: false,
  pattern: `/x${'*a*b'.repeat(10 + i)}*Q`,
}));

let statuses: number[];

beforeEach(() => {
  statuses = [];
  const statusOf = Walk.prototype.statusOf;
  vi.spyOn(Walk.prototype, 'statusOf').mockImplementation(function (this: Walk, k: number) {
    const status = statusOf.call(this, k);
    statuses.push(status);
    return status;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The verdict and deciding line for `path` of the fillers and `rules`, checked against the literal reading. */
function check(rules: ReferenceRule[], path: string): { allowed: boolean; line: number | undefined } {
  const all = [...fillers, ...rules];
  const robots = RobotsTxt.parse(fileOf(all));
  const allowed = robots.isAllowed(path, 'bot');
  expect(allowed).toBe(referenceAllowed(all, path, referenceMatchesTable));
  return { allowed, line: robots.explain(path, 'bot').rule?.line };
}

/** The line of the `index`-th of the rules after the fillers. */
const lineOf = (index: number) => fillers.length + 2 + index;

describe('the walk of wildcard rules', () => {
  it('walks rules side by side and answers with the best that matches', () => {
    const path = `/x${'ab'.repeat(30)}Q`;
    // The fillers of 10 to 30 pairs match; the longest of them, on line 22, decides.
    expect(check([], path)).toEqual({ allowed: false, line: 22 });
    expect(statuses.filter((s) => s === WALK_MATCHED).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === WALK_FAILED).length).toBeGreaterThan(0);
  });

  it('walks rules of one-character pieces beside rules of longer pieces in one batch', () => {
    // Rules of one-character pieces alone take the walk's loop of such pieces, until a lane
    // meets a longer piece. The longest rules fail first, in batches that grow, four lanes full.
    const rules: ReferenceRule[] = Array.from({ length: 40 }, (_, i) => ({
      allow: i % 3 === 0,
      pattern: `/x${(i % 4 === 1 ? '*ab*b' : '*a*b').repeat(4 + i)}*C`,
    }));
    for (const pairs of [5, 9, 16, 23, 30, 41, 44]) {
      check(rules, `/x${'ab'.repeat(pairs)}C`);
      check(rules, `/x${'aab'.repeat(pairs)}bC`);
      check(rules, `/x${'ab'.repeat(pairs)}c`);
    }
    expect(statuses.filter((s) => s === WALK_MATCHED).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === WALK_FAILED).length).toBeGreaterThan(100);
  });

  it('takes a run of one character in one step', () => {
    // Forty `*a` in a row are one step: one past the fortieth `a` from where it starts.
    const run = `/x*q${'*a'.repeat(40)}*z`;
    expect(check([{ allow: true, pattern: run }], `/xq${'a'.repeat(40)}z`)).toEqual({
      allowed: true,
      line: lineOf(0),
    });
    expect(check([{ allow: true, pattern: run }], `/xq${'a'.repeat(39)}z`).line).toBeUndefined();
    expect(check([{ allow: true, pattern: run }], `/xq${'ab'.repeat(40)}z`).line).toBe(lineOf(0));
    expect(check([{ allow: true, pattern: `${run}*a` }], `/xq${'a'.repeat(40)}z`).line).toBeUndefined();
    expect(statuses).not.toContain(WALK_LEFT);
  });

  it('lets no rule it matched answer before an earlier one that it left to JavaScript', () => {
    // The first rule outranks the second, and its piece `ab`, past forty false starts, is left
    // to JavaScript; the second matches in the walk. Both are walked in one batch.
    const rules: ReferenceRule[] = [
      { allow: true, pattern: '/x*q*ab*z' },
      { allow: false, pattern: '/x*q*z' },
    ];
    expect(check(rules, `/xq${'a'.repeat(40)}bz`)).toEqual({ allowed: true, line: lineOf(0) });
    expect(statuses).toContain(WALK_LEFT);
    expect(check(rules, `/xq${'a'.repeat(40)}z`)).toEqual({ allowed: false, line: lineOf(1) });
  });

  it('finds a piece past more false starts than it follows, through the search of JavaScript', () => {
    // `ab` after forty `a`s: the row of `a` leads to thirty-nine places where no `b` follows.
    const path = `/x${'a'.repeat(40)}bz`;
    expect(check([{ allow: true, pattern: '/x*ab*z' }], path)).toEqual({ allowed: true, line: lineOf(0) });
    expect(statuses).toContain(WALK_LEFT);
    expect(check([{ allow: true, pattern: '/x*ab*ab*z' }], path).line).toBeUndefined();
  });

  it('compares pieces of more than two characters past their second', () => {
    const path = `/x${'abd'.repeat(5)}abcz`;
    expect(check([{ allow: true, pattern: '/x*abc*z' }], path)).toEqual({ allowed: true, line: lineOf(0) });
    expect(check([{ allow: true, pattern: '/x*abd*abc*z' }], path).line).toBe(lineOf(0));
    expect(check([{ allow: true, pattern: '/x*abcz*a' }], path).line).toBeUndefined();
    expect(check([{ allow: true, pattern: '/x*abdabdabdabdabdabcz' }], path).line).toBe(lineOf(0));
    expect(check([{ allow: true, pattern: '/x*abdabdabdabdabdabdz' }], path).line).toBeUndefined();
  });

  it('ends an anchored rule at the end of the path, wherever its last piece was found', () => {
    const path = `/x${'a'.repeat(40)}b`;
    // The last piece is found past many false starts, in JavaScript.
    expect(check([{ allow: true, pattern: '/x*ab$' }], path).line).toBe(lineOf(0));
    expect(check([{ allow: true, pattern: '/x*a*ab$' }], path).line).toBe(lineOf(0));
    expect(check([{ allow: true, pattern: '/x*ab*ab$' }], path).line).toBeUndefined();
    expect(check([{ allow: true, pattern: '/x*b*ab$' }], path).line).toBeUndefined();
    // One character, and a piece of two, at the end.
    expect(check([{ allow: true, pattern: '/x*a*b$' }], path).line).toBe(lineOf(0));
    expect(check([{ allow: true, pattern: '/x*b*b$' }], path).line).toBeUndefined();
    expect(check([{ allow: true, pattern: `/x${'*a'.repeat(40)}*ab$` }], path).line).toBeUndefined();
    expect(check([{ allow: true, pattern: `/x${'*a'.repeat(39)}*ab$` }], path).line).toBe(lineOf(0));
    // Pieces found after a few false starts, within the walk.
    const near = `/x${'a'.repeat(10)}b`;
    expect(check([{ allow: true, pattern: '/x*ab$' }], near).line).toBe(lineOf(0));
    expect(check([{ allow: true, pattern: '/x*ab*ab$' }], near).line).toBeUndefined();
  });

  it('answers checks of many large files, taking turns, each by its own rules', () => {
    // Each file's rules take a megabyte or more in the walk's memory: past 32 MB it starts
    // again, and the files checked again are copied again. The memory never grows: its buffer
    // is never detached (see scripts/build-walk.mjs).
    const memory = walker()!.ints.buffer;
    const letter = (f: number) => 'defghijklmnopqrstuvw'[f % 20];
    const files = Array.from({ length: 40 }, (_, f) => {
      const rules = Array.from(
        { length: 1200 },
        (_, i) => `disallow: /*${'c*a*'.repeat(75 + (i % 25))}${letter(f)}\n`,
      );
      return RobotsTxt.parse(`user-agent: *\n${rules.join('')}`);
    });
    const path = (f: number) => `/${'ca'.repeat(99)}${letter(f)}`;
    for (let round = 0; round < 2; round++) {
      for (let f = 0; f < files.length; f++) {
        expect(files[f].isAllowed(path(f), 'bot')).toBe(false);
        expect(files[f].isAllowed(path(f + 1), 'bot')).toBe(true);
        expect(files[f].isAllowed(`/${'ca'.repeat(75)}${letter(f)}`, 'bot')).toBe(false);
        expect(files[f].isAllowed(`/${'ca'.repeat(74)}${letter(f)}`, 'bot')).toBe(true);
      }
    }
    expect(statuses).toContain(WALK_MATCHED);
    expect(walker()!.ints.buffer).toBe(memory);
    expect(memory.byteLength).toBe(WALK_MEMORY_BYTES);
  });

  it('leaves to JavaScript sequences larger than its arena, and keeps its memory as it is', () => {
    const walk = walker()!;
    const memory = walk.ints.buffer;
    const steps = WALK_MEMORY_BYTES / 4;
    const source = {
      offsets: Int32Array.of(0, steps),
      steps: new Int32Array(steps),
      seconds: new Uint16Array(0),
      lengths: new Int32Array(0),
      writeText: () => {},
    };
    expect(walk.load(-1, () => source)).toBe(false);
    expect(walk.ints.buffer).toBe(memory);
    expect(memory.byteLength).toBe(WALK_MEMORY_BYTES);
    // The walk goes on for the files after it.
    expect(check([{ allow: true, pattern: '/x*ab*cd$' }], '/xabcd').line).toBe(lineOf(0));
    expect(statuses).toContain(WALK_MATCHED);
  });

  it('finds each piece at its next place, wherever a block of sixteen places ends', () => {
    // The rows of the path's characters are built sixteen places at a time, down from the last
    // multiple of 16 below the path's length. The path has its d at places on both sides of
    // block edges, and a rule of k pieces `d` (or `dc`) matches only when the rows lead to k
    // of them before the `e` that ends it: a row that skips a place of d, or leads to one that is
    // not, changes a verdict.
    for (const length of [15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 95]) {
      let path = '/x';
      while (path.length < length) {
        const i = path.length;
        path += i % 16 === 0 || i % 16 === 1 || i % 16 === 15 || i % 7 === 3 ? 'd' : 'c';
      }
      path += 'e';
      const ds = [...path].filter((c) => c === 'd').length;
      const rules: ReferenceRule[] = [];
      for (let k = 1; k <= ds + 1; k++) {
        rules.push({ allow: false, pattern: `/x${'*d'.repeat(k)}*e$` });
        rules.push({ allow: false, pattern: `/x${'*dc'.repeat(k)}*e$` });
      }
      for (const rule of rules) check([rule], path);
    }
    expect(statuses).toContain(WALK_MATCHED);
  });
});

describe('the path the walk takes', () => {
  it('takes a path of ASCII characters up to its limit, and refuses any other', () => {
    const walk = walker();
    expect(walk).not.toBeNull();
    let check = 1_000_000;
    expect(walk!.path('/a/b?c=d', ++check)).toBe(true);
    expect(walk!.path(`/${'a'.repeat(WALK_PATH_LIMIT - 1)}`, ++check)).toBe(true);
    expect(walk!.path(`/${'a'.repeat(WALK_PATH_LIMIT)}`, ++check)).toBe(false);
    // Outside ASCII: one character of two octets, and one of two before one of three, which
    // fill the room the path's length gives them without the whole path read.
    expect(walk!.path('/caf\u00e9', ++check)).toBe(false);
    expect(walk!.path('\u00e9\u20ac', ++check)).toBe(false);
    expect(walk!.path('/\ud800', ++check)).toBe(false);
    // A 0 would end the module's comparisons.
    expect(walk!.path('/a\u0000b', ++check)).toBe(false);
    // Once a check: the answer stays for the same count, whatever the path.
    expect(walk!.path('/a', check)).toBe(false);
    walk!.discard(true);
  });
});
