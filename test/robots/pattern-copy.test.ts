import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { charMask } from '../../src/robots/chars.js';
import { compiledOctets, RobotsCompiler, type RobotsData } from '../../src/robots/compile.js';
import { WROTE_END, WROTE_NORMALISED, writePattern } from '../../src/robots/encoding.js';
import { type Directive, tokenize } from '../../src/robots/lines.js';
import {
  characterFilter,
  copyPattern,
  FILTER_CHARACTERS,
  filters,
  PATTERN_COPY_SLACK,
  patternCopyMemory,
} from '../../src/robots/pattern-copy.js';
import { pairMask, pairMaskInModule, pieceShape } from '../../src/robots/pieces.js';
import { fileOf } from './support/agreement.js';
import { referenceAllowed } from './support/reference.js';

/*
 * The WebAssembly copy of patterns in normal form (pattern-copy.ts): for every pattern it
 * copies, the octets and the answer writePattern gives; for every other, -1. And a parse goes
 * through it, or, past its room, through writePattern with the same verdicts.
 */

const memory = patternCopyMemory();

/** The tables a compiler makes of `text`, its octets still where it wrote them. */
function compiled(text: string): RobotsData {
  const compiler = new RobotsCompiler();
  tokenize(text, { maxBytes: 500 * 1024, rejectHtml: true }, compiler);
  return compiler.finish();
}

/** The copy's answer for `pattern` with its units at `from` and its octets at `at`, and the octets. */
function copied(pattern: string, from: number, at: number): { written: number; octets: number[] } {
  if (memory === null) throw new Error('no pattern copy');
  for (let i = 0; i < pattern.length; i++) memory.units[from + i] = pattern.charCodeAt(i);
  // Units after the pattern that a block reads past it: none may change the answer.
  for (let i = 0; i < 16; i++) memory.units[from + pattern.length + i] = i % 2 === 0 ? 0x25 : 0xe9;
  const written = copyPattern(from, from + pattern.length, at);
  const end = written & WROTE_END;
  return { written, octets: written < 0 ? [] : Array.from(memory.scratch.subarray(at, end)) };
}

/** writePattern's answer for `pattern`, and its octets. */
function written(pattern: string): { written: number; octets: number[] } {
  const units = Uint16Array.from(pattern, (ch) => ch.charCodeAt(0));
  const out = new Uint8Array(pattern.length * 12 + 16);
  const result = writePattern(pattern, units, 0, pattern.length, out, 0);
  return { written: result, octets: Array.from(out.subarray(0, result & WROTE_END)) };
}

/** The copy agrees with writePattern on `pattern`: -1 where it normalises, else the same. */
function expectSameAsWritePattern(pattern: string, from: number, at: number): void {
  const expected = written(pattern);
  const got = copied(pattern, from, at);
  if (expected.written & WROTE_NORMALISED) {
    expect(got.written, JSON.stringify(pattern)).toBe(-1);
  } else {
    expect(got.written - at, JSON.stringify(pattern)).toBe(expected.written);
    expect(got.octets).toEqual(expected.octets);
  }
}

describe.runIf(memory !== null)('the pattern copy', () => {
  it('gives every code unit, at every place of a block, the class writePattern gives it', () => {
    const units = [
      ...Array.from({ length: 128 }, (_, c) => c),
      0x80,
      0xe9,
      0xff,
      0x100,
      0x20ac,
      0xd800,
      0xfffe,
    ];
    for (const length of [1, 15, 16, 17, 33]) {
      for (let place = 0; place < length; place++) {
        for (const unit of units) {
          const pattern = `${'a'.repeat(place)}${String.fromCharCode(unit)}${'b'.repeat(length - place - 1)}`;
          expectSameAsWritePattern(pattern, 3 + place, 7);
        }
      }
    }
  });

  it('keeps a last `$` as the anchor and sends one elsewhere to writePattern', () => {
    for (const pattern of [
      '/a$',
      '$',
      '/a*$',
      `/${'x'.repeat(15)}$`,
      `/${'x'.repeat(14)}$`,
      '/a$b',
      '/$$',
      '',
    ]) {
      expectSameAsWritePattern(pattern, 11, 5);
    }
    expect(copied('/a$b', 0, 0).written).toBe(-1);
    expect(copied(`/${'x'.repeat(15)}$`, 0, 0).octets.length).toBe(17);
  });

  it('agrees with writePattern on any pattern, at any place', () => {
    const unit = fc.oneof(
      fc.constantFrom(...'abz/-._~!&()+,:;=?@[]*$%#" <>\\^`{|}\t'),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof({ weight: 6, arbitrary: fc.constantFrom('a', '/', '*') }, { weight: 1, arbitrary: unit }),
          {
            maxLength: 70,
          },
        ),
        fc.nat(1000),
        fc.nat(1000),
        (parts, from, at) => expectSameAsWritePattern(parts.join(''), from, at),
      ),
      { numRuns: 3000 },
    );
  });

  it('gives long patterns, copied by it, the verdicts of the literal reading', () => {
    const segment = fc.constantFrom('/', 'a', 'b', 'ab', '*', '.pdf', '?q=1', 'x'.repeat(20));
    const pattern = fc
      .tuple(fc.array(segment, { minLength: 6, maxLength: 14 }), fc.boolean())
      .map(([parts, anchored]) => `/${'long/'.repeat(6)}${parts.join('')}${anchored ? '$' : ''}`);
    const rule = fc.record({ allow: fc.boolean(), pattern });
    const path = fc
      .array(fc.constantFrom('/', 'a', 'b', 'ab', '.pdf', '?q=1', 'x'.repeat(20)), { maxLength: 14 })
      .map((parts) => `/${'long/'.repeat(6)}${parts.join('')}`);
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 1, maxLength: 8 }),
        fc.array(path, { minLength: 1, maxLength: 6 }),
        (rules, paths) => {
          const robots = RobotsTxt.parse(fileOf(rules));
          for (const p of paths) expect(robots.isAllowed(p, 'bot'), p).toBe(referenceAllowed(rules, p));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads the filters of a pattern as charMask and pairMask do', () => {
    if (memory === null) return;
    const text = fc.array(fc.constantFrom('a', 'b', 'j', 'd', '/', '*', '$', '.', '~', 'ab', 'xyz'), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(text, fc.nat(500), (parts, at) => {
        const pattern = parts.join('');
        for (let i = 0; i < pattern.length; i++) memory.scratch[at + i] = pattern.charCodeAt(i);
        const expected = new Int32Array(4);
        charMask(pattern, 0, pattern.length, expected, 0);
        pairMask(pattern, 0, pattern.length, expected, 2);
        const shape = Array.from(pieceShape);
        const got = new Int32Array(4);
        characterFilter(at, at + pattern.length);
        got.set(filters.subarray(FILTER_CHARACTERS, FILTER_CHARACTERS + 2));
        // Places counted from where the pattern starts, as pairMask counts them in its text.
        pairMaskInModule(at, at, at + pattern.length, got, 2);
        expect(Array.from(got)).toEqual(Array.from(expected));
        expect(Array.from(pieceShape)).toEqual(shape);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes at most PATTERN_COPY_SLACK octets past a pattern', () => {
    if (memory === null) return;
    memory.scratch.fill(0xaa, 0, 200);
    const end = copied('/a', 0, 50).written & WROTE_END;
    expect(end).toBe(52);
    expect(memory.scratch.subarray(50 + PATTERN_COPY_SLACK, 200).every((b) => b === 0xaa)).toBe(true);
  });

  it('is where a parse reads the units and writes the octets', () => {
    if (memory === null) return;
    const buffers: ArrayBufferLike[] = [];
    const handler = {
      directive: (d: Directive) => buffers.push(d.units.buffer),
      unparsable() {},
      lineTooLong() {},
      end() {},
    };
    tokenize('User-agent: *\nDisallow: /a\n', { maxBytes: 500 * 1024, rejectHtml: true }, handler);
    expect(buffers).toHaveLength(2);
    expect(buffers.every((b) => b === memory.units.buffer)).toBe(true);
    expect(compiledOctets(compiled('User-agent: *\nDisallow: /a*b$\n'))?.buffer).toBe(memory.scratch.buffer);
  });
});

/** Rules under `/t/` whose verdicts a file answers the same wherever they are in it. */
const TAIL = [
  'Disallow: /t/',
  'Allow: /t/open',
  'Disallow: /t/*.pdf$',
  'Allow: /t/a%2fb*c',
  'Disallow: /t/é',
  'Allow: /t/dir/index.html',
  'Disallow: /t/x$',
].join('\n');
const TAIL_PATHS = [
  '/t/',
  '/t/open/1',
  '/t/file.pdf',
  '/t/file.pdfx',
  '/t/a%2Fb-c',
  '/t/%C3%A9',
  '/t/dir/',
  '/t/x',
  '/t/xy',
];

/** What `robots` says about TAIL_PATHS: each verdict with the line of its rule, counted from the tail's first. */
function tailVerdicts(robots: RobotsTxt, firstTailLine: number): string[] {
  return TAIL_PATHS.map((path) => {
    const verdict = robots.explain(path, 'bot');
    const line = verdict.rule === null ? '-' : verdict.rule.line - firstTailLine;
    return `${path} ${verdict.allowed} ${line} ${verdict.rule?.pattern ?? ''}`;
  });
}

describe('patterns copied past the room of the pattern copy', () => {
  const alone = tailVerdicts(RobotsTxt.parse(`User-agent: *\n${TAIL}\n`), 2);

  it('gives the rules after the room the verdicts they have alone', () => {
    // Allowed index.html pages of 40 euro signs: each line's octets, its rule's and the rule
    // of its directory, are some 640 in 184 octets of text, past 2 MiB in 500 KiB.
    const filler = `Allow: /f/${'€'.repeat(40)}/index.html\n`;
    const lines = Math.floor((480 * 1024) / Buffer.byteLength(filler));
    const text = `User-agent: *\n${filler.repeat(lines)}${TAIL}\n`;
    const robots = RobotsTxt.parse(text);
    expect(robots.groups[0].rules.length).toBe(lines * 2 + 8);
    expect(tailVerdicts(robots, lines + 2)).toEqual(alone);
    expect(robots.isAllowed(`/f/${'€'.repeat(40)}/`, 'bot')).toBe(true);
    expect(robots.isAllowed(`/f/${'€'.repeat(40)}/x`, 'bot')).toBe(true);
    // The next parse writes where the copy does again.
    const next = RobotsTxt.parse(`User-agent: *\n${TAIL}\n`);
    expect(tailVerdicts(next, 2)).toEqual(alone);
    if (memory !== null) {
      expect(compiledOctets(compiled(`User-agent: *\n${TAIL}\n`))?.buffer).toBe(memory.scratch.buffer);
    }
  });

  it('gives the rules of a text longer than the copy reads the verdicts they have alone', () => {
    const filler = 'Disallow: /f/some/long/path/of/a/rule/that/no/check/here/reaches\n';
    const lines = Math.floor((600 * 1024) / filler.length);
    const robots = RobotsTxt.parse(`User-agent: *\n${filler.repeat(lines)}${TAIL}\n`, {
      maxBytes: 1024 * 1024,
    });
    expect(tailVerdicts(robots, lines + 2)).toEqual(alone);
  });
});
