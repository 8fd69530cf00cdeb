import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';

/**
 * Groups of more than 512 plain prefix rules find the longest one by hash (prefixes.ts), smaller
 * groups by binary search over a sorted table (rank.ts). Both must give the same verdicts and
 * name the same decisive line.
 */

/** A `*` group of `filler` plain rules that match none of the paths below, then `rules`. */
function fileWith(filler: number, rules: readonly string[]): string {
  const lines = ['user-agent: *'];
  for (let i = 0; i < filler; i++) lines.push(`disallow: /filler-${i}/`);
  lines.push(...rules);
  return `${lines.join('\n')}\n`;
}

/** The line of `rules[k]` in fileWith(filler, rules). */
const lineOf = (filler: number, k: number) => filler + 2 + k;

/**
 * The decisive rule, as a check finds it (without candidates) and as the list of every matching
 * rule gives it: both must agree.
 */
function decisive(robots: RobotsTxt, path: string) {
  const found = robots.explain(path, 'a', { candidates: false });
  expect(robots.explain(path, 'a').rule, path).toEqual(found.rule);
  expect(robots.isAllowed(path, 'a'), path).toBe(found.allowed);
  return found;
}

describe.each([
  ['a sorted table', 10],
  ['a hash', 800],
  // Patterns of more than 64 Ki characters: kept in chunks, each copied to its own place in the octets.
  ['a hash over patterns in two chunks', 6000],
])('the longest plain rule, found through %s', (_, filler) => {
  it('prefers the allow rule of two with the same pattern, wherever it stands', () => {
    const rules = ['disallow: /twin/', 'allow: /twin/', 'allow: /other/', 'disallow: /other/'];
    const robots = RobotsTxt.parse(fileWith(filler, rules));
    expect(decisive(robots, '/twin/page').rule).toMatchObject({ kind: 'allow', line: lineOf(filler, 1) });
    expect(decisive(robots, '/other/page').rule).toMatchObject({ kind: 'allow', line: lineOf(filler, 2) });
  });

  it('names the first line of a rule written twice', () => {
    const rules = ['disallow: /dup/', 'disallow: /x/', 'disallow: /dup/', 'allow: /a/', 'allow: /a/'];
    const robots = RobotsTxt.parse(fileWith(filler, rules));
    expect(decisive(robots, '/dup/page').rule?.line).toBe(lineOf(filler, 0));
    expect(decisive(robots, '/a/page').rule?.line).toBe(lineOf(filler, 3));
  });

  it('takes the longest of patterns that are prefixes of one another, and a pattern the whole path', () => {
    const rules = ['disallow: /p', 'allow: /p/q', 'disallow: /p/q/r', 'allow: /p/q/r/s.html'];
    const robots = RobotsTxt.parse(fileWith(filler, rules));
    const cases: [string, boolean, number][] = [
      ['/p', false, 0],
      ['/px', false, 0],
      ['/p/q', true, 1],
      ['/p/q/', true, 1],
      ['/p/q/r', false, 2],
      ['/p/q/r/s.htm', false, 2],
      ['/p/q/r/s.html', true, 3],
      ['/p/q/r/s.html?x=1', true, 3],
    ];
    for (const [path, allowed, k] of cases) {
      const verdict = decisive(robots, path);
      expect(verdict.allowed, path).toBe(allowed);
      expect(verdict.rule?.line, path).toBe(lineOf(filler, k));
    }
  });

  it('finds nothing for a path shorter than every pattern, or sharing none', () => {
    const robots = RobotsTxt.parse(fileWith(filler, ['disallow: /long/pattern/']));
    expect(decisive(robots, '/').reason).toBe('no-match');
    expect(decisive(robots, '/long').reason).toBe('no-match');
    expect(decisive(robots, '/long/patterN/').reason).toBe('no-match');
  });

  it('finds the wildcard and `$` rules next to them, each by the characters of its own pattern', () => {
    // Past the filler, 40 wildcard rules that match nothing here put the group's wildcard rules
    // in an index; the filters of a hashed group's rules are read from the octets of its patterns.
    const noise = Array.from({ length: 40 }, (_, i) => `disallow: /noise-${i}/*/never`);
    const rules = [
      'disallow: /*.pdf$',
      'allow: /shop/*?ref=Z9',
      'disallow: /~user_*/private',
      'allow: /a/*/B-2$',
      'disallow: /x*{q}',
      ...noise,
    ];
    const robots = RobotsTxt.parse(fileWith(filler, rules));
    const cases: [string, boolean, number][] = [
      ['/docs/report.pdf', false, 0],
      ['/shop/item?ref=Z9', true, 1],
      ['/~user_ann/private/x', false, 2],
      ['/a/x/B-2', true, 3],
      ['/x/%7Bq%7D', false, 4],
    ];
    for (const [path, allowed, k] of cases) {
      const verdict = decisive(robots, path);
      expect(verdict.allowed, path).toBe(allowed);
      expect(verdict.rule?.line, path).toBe(lineOf(filler, k));
    }
    // One character short of each: no rule.
    for (const path of ['/docs/report.pd', '/shop/item?ref=Z', '/~user_ann/privat', '/a/x/B-', '/x/%7Bq'])
      expect(decisive(robots, path).reason, path).toBe('no-match');
  });
});

it('gives the same answers on either side of the group size where the hash takes over', () => {
  const rules = ['disallow: /a/', 'allow: /a/b/', 'disallow: /a/b/c', 'allow: /a/b/c', 'disallow: /a/b/c/d/'];
  const paths = ['/a/', '/a/x', '/a/b/', '/a/b/c', '/a/b/cc', '/a/b/c/d', '/a/b/c/d/e', '/b/', '/filler'];
  const answers = (filler: number) =>
    paths.map((path) => {
      const { allowed, rule } = decisive(RobotsTxt.parse(fileWith(filler, rules)), path);
      // Lines shift with the filler: they are compared from the first rule after it.
      return { allowed, line: rule === null ? null : rule.line - filler };
    });
  const expected = answers(0);
  for (const filler of [504, 505, 506, 507, 508, 509, 510, 900])
    expect(answers(filler), `${filler}`).toEqual(expected);
});

it('finds the rules of a large group another crawler names, and of large merged groups', () => {
  const many = (prefix: string) =>
    Array.from({ length: 700 }, (_, i) => `disallow: /${prefix}${i}/`).join('\n');
  const body = [
    'user-agent: onebot',
    many('one'),
    'allow: /one7/open/',
    '',
    'user-agent: twobot',
    many('two'),
    '',
    'user-agent: onebot',
    'disallow: /shared/',
    '',
  ].join('\n');
  const robots = RobotsTxt.parse(body);
  expect(robots.isAllowed('/one7/x', 'OneBot')).toBe(false);
  expect(robots.isAllowed('/one7/open/x', 'OneBot')).toBe(true);
  expect(robots.isAllowed('/shared/x', 'OneBot')).toBe(false);
  expect(robots.isAllowed('/two7/x', 'OneBot')).toBe(true);
  expect(robots.isAllowed('/two7/x', 'TwoBot')).toBe(false);
  expect(robots.isAllowed('/two700/x', 'TwoBot')).toBe(true);
});

it('finds a pattern of any length through the hash, a word of four octets read at a time', () => {
  // Patterns of every length from 1 to 27, each a prefix of the next, so that a check hashes the
  // path's prefixes in both lanes and ends in every place of a word; exact rules of each length too.
  const path = '/abcdefghijklmnopqrstuvwxyz';
  const plain = Array.from(path, (_, i) => `${i % 2 === 0 ? 'allow' : 'disallow'}: ${path.slice(0, i + 1)}`);
  const exact = Array.from(
    path,
    (_, i) => `${i % 2 === 0 ? 'disallow' : 'allow'}: /x${path.slice(1, i + 1)}$`,
  );
  const filler = 600;
  const robots = RobotsTxt.parse(fileWith(filler, [...plain, ...exact]));
  for (let length = 1; length <= path.length; length++) {
    const prefix = path.slice(0, length);
    for (const tail of ['', '~', '~~~~~~~~~']) {
      const verdict = decisive(robots, prefix + tail);
      expect(verdict.rule?.line, prefix + tail).toBe(lineOf(filler, length - 1));
      expect(verdict.allowed, prefix + tail).toBe((length - 1) % 2 === 0);
    }
    const exactPath = `/x${prefix.slice(1)}`;
    const verdict = decisive(robots, exactPath);
    expect(verdict.rule, exactPath).toMatchObject({ line: lineOf(filler, path.length + length - 1) });
    expect(verdict.allowed, exactPath).toBe((length - 1) % 2 === 1);
  }
});

it("finds each file's rules when their indexes are built at first checks, between other files' parses", () => {
  // 200 groups of 17 rules, each named by a different half of 40 crawlers: a crawler reads its
  // 32 largest groups as shared tables and the rest, over a thousand plain rules, in a hashed table
  // of its own. Ranking them all would pass the file's budget, so most are built at a first check.
  const letter = (n: number) => String.fromCharCode(97 + n);
  // Letters only: a user-agent line names the token its value starts with (`bot1` would name `bot`).
  const agents = Array.from({ length: 40 }, (_, i) => `bot${letter(Math.floor(i / 26))}${letter(i % 26)}`);
  const build = (tag: string, seed: number) => {
    let state = seed;
    const coin = () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state < 2 ** 30;
    };
    const named: Set<string>[] = [];
    const lines: string[] = [];
    for (let g = 0; g < 200; g++) {
      const names = new Set(agents.filter(coin));
      named.push(names);
      for (const agent of names) lines.push(`User-agent: ${agent}`);
      for (let r = 0; r < 17; r++) lines.push(`Disallow: /${tag}${g}/r${r}/`);
      lines.push('');
    }
    return { robots: RobotsTxt.parse(lines.join('\n')), named };
  };
  const first = build('x', 1);
  const second = build('y', 2);
  const third = build('x', 3);
  for (const [file, tag] of [
    [second, 'y'],
    [first, 'x'],
    [third, 'x'],
  ] as const) {
    for (const agent of agents) {
      for (const g of [0, 57, 121, 199]) {
        const path = `/${tag}${g}/r16/page`;
        expect(file.robots.isAllowed(path, agent), `${agent} ${path}`).toBe(!file.named[g].has(agent));
      }
    }
  }
});
