import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { BlockList, IntList } from '../../src/robots/block-list.js';
import { wordsOf } from '../../src/robots/compile.js';

const LISTS_CHILD = fileURLToPath(new URL('./support/lists-child.ts', import.meta.url));

/** Counts on both sides of the edges of blocks (1,024 items) and past several of them. */
const COUNTS = [0, 1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 5000];

describe('BlockList and IntList', () => {
  it.each(COUNTS)('keep %i items in order, each read back where it was pushed', (n) => {
    const strings = new BlockList<string>();
    const ints = new IntList();
    const expected: string[] = [];
    for (let i = 0; i < n; i++) {
      strings.push(`v${i}`);
      ints.push(i * 3 - 7);
      expected.push(`v${i}`);
    }
    expect(strings.length).toBe(n);
    expect(ints.length).toBe(n);
    const read: string[] = [];
    for (let i = 0; i < n; i++) {
      read.push(strings.at(i));
      expect(ints.at(i)).toBe(i * 3 - 7);
    }
    expect(read).toEqual(expected);
    expect(strings.parts().flat()).toEqual(expected);
    // Every block but the last is full.
    const sizes = strings.parts().map((block) => block.length);
    expect(sizes.slice(0, -1).every((size) => size === 1024)).toBe(true);
  });

  it.each(COUNTS)('replace any of %i items in place', (n) => {
    const list = new BlockList<string>();
    for (let i = 0; i < n; i++) list.push(`v${i}`);
    for (let i = 0; i < n; i += 3) list.set(i, `w${i}`);
    const read = Array.from({ length: n }, (_, i) => list.at(i));
    expect(read).toEqual(Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `w${i}` : `v${i}`)));
    expect(list.parts().flat()).toEqual(read);
    expect(list.length).toBe(n);
  });

  it.each(COUNTS)('places %i words of each of three lists in chunks where they are read back', (n) => {
    const lists = [0, 1, 2].map((k) => {
      const list = new BlockList<string>();
      for (let i = 0; i < n + k * 700; i++) list.push(k === 1 ? `é${i}` : `${k}:${i};`.repeat(1 + (i % 7)));
      // A word longer than a chunk, and an empty one.
      if (k === 2) {
        list.push('x'.repeat(40_000));
        list.push('');
      }
      return list;
    });
    const words = lists.flatMap((list) => list.parts().flat());
    const { chunks, positions } = wordsOf(lists);
    expect(positions).toHaveLength(words.length);
    words.forEach((word, i) => {
      const chunk = chunks[positions[i] >>> 15];
      const start = positions[i] & 0x7fff;
      expect(chunk.slice(start, start + word.length)).toBe(word);
    });
    // Each chunk holds at most 4,096 words, and 32 Ki characters unless one word is longer.
    for (const chunk of chunks) expect(chunk.length <= 32 * 1024 + 1 || chunk.length === 40_001).toBe(true);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(words.length / 4096));
  });

  it('keeps at most 4,096 words in a chunk, however short they are', () => {
    const list = new BlockList<string>();
    for (let i = 0; i < 10_000; i++) list.push(String.fromCharCode(97 + (i % 26)));
    const { chunks, positions } = wordsOf([list]);
    const perChunk = new Map<number, number>();
    for (const position of positions) perChunk.set(position >>> 15, (perChunk.get(position >>> 15) ?? 0) + 1);
    expect([...perChunk.values()]).toEqual([4096, 4096, 1808]);
    expect(chunks.map((chunk) => chunk.length)).toEqual([4097, 4097, 1809]);
  });

  it('keep their optimized code for a list longer than a block after a full collection', () => {
    // The lists of a parse die with it. Were no list kept, a full collection between two parses
    // would drop the lists' hidden class and the type feedback naming it, and the first list to
    // fill a block after it would send push() back to the interpreter. V8 says so with
    // --trace-deopt, as it says so of `probe`, deoptimized on purpose to show that the trace works.
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', '--trace-deopt', '--import', 'tsx', LISTS_CHILD],
      {
        encoding: 'utf8',
      },
    );
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    const probe = lines.indexOf('probe true');
    const large = lines.indexOf('large');
    const done = lines.indexOf('done 3000');
    expect(probe).toBeGreaterThanOrEqual(0);
    expect(large).toBeGreaterThan(probe);
    expect(done).toBeGreaterThan(large);
    expect(
      lines.slice(probe, large).some((line) => line.startsWith('[bailout') && line.includes('probe')),
    ).toBe(true);
    // The script's own top-level code may be deoptimized there; the list's methods may not.
    const ofList = /<JSFunction (push|at|set|parts) |SharedFunctionInfo (push|at|set|parts)>/;
    expect(lines.slice(large, done).filter((line) => ofList.test(line))).toEqual([]);
  });
});

describe('files whose lists span several blocks', () => {
  // 2,500 groups of two user-agent lines (5,000 values, 2,500 tokens), 1,500 sitemaps and 1,500
  // rules written otherwise than in normal form: each list the compiler keeps crosses block edges,
  // and the values after them must come back from where they were kept.
  const groups = 2500;
  const lines: string[] = [];
  for (let g = 0; g < groups; g++) {
    lines.push(`User-agent: Bot${letters(g)}/1.${g}`, `User-agent: Other${letters(g)}`);
    lines.push(g < 1500 ? `Disallow: /%7e${g}/ü` : `Disallow: /p${g}/`);
  }
  for (let s = 0; s < 1500; s++) lines.push(`Sitemap: https://example.com/map-${s}.xml`);
  const robots = RobotsTxt.parse(`${lines.join('\n')}\n`);

  it('reads every user-agent value, token and line back', () => {
    expect(robots.groups).toHaveLength(groups);
    for (const g of [0, 511, 512, 1023, 1024, 1500, 2047, 2048, groups - 1]) {
      const group = robots.groups[g];
      expect(group.userAgents).toEqual([
        { value: `Bot${letters(g)}/1.${g}`, token: `bot${letters(g)}`, line: 3 * g + 1 },
        { value: `Other${letters(g)}`, token: `other${letters(g)}`, line: 3 * g + 2 },
      ]);
    }
  });

  it("finds each crawler's group and quotes its rule as written", () => {
    for (const g of [0, 1023, 1024, 1499, 1500, 2048, groups - 1]) {
      const raw = g < 1500;
      const path = raw ? `/~${g}/%C3%BC` : `/p${g}/`;
      const verdict = robots.explain(path, `Other${letters(g)}`);
      expect(verdict.allowed).toBe(false);
      expect(verdict.group.userAgentLines).toEqual([3 * g + 2]);
      expect(verdict.rule).toMatchObject({ pattern: raw ? `/%7e${g}/ü` : `/p${g}/`, line: 3 * g + 3 });
      // Another group's rule does not apply.
      expect(robots.isAllowed(raw ? `/~${g + 1}/%C3%BC` : `/p${g + 1}/`, `Bot${letters(g)}`)).toBe(true);
    }
  });

  it('lists every sitemap, in file order', () => {
    expect(robots.sitemaps).toEqual(
      Array.from({ length: 1500 }, (_, s) => `https://example.com/map-${s}.xml`),
    );
  });
});

/** A distinct run of letters for each number (tokens are letters, `-` and `_` only). */
function letters(n: number): string {
  let text = '';
  do {
    text += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  } while (n > 0);
  return text;
}
