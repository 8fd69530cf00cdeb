import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { type ReferenceRule, referenceMatches } from './support/reference.js';

/**
 * Groups that several crawlers name, each crawler also named elsewhere: its rules are those of
 * every group that names it (RFC 9309 2.2.1), however the file is laid out to share the work.
 */

const TOKENS = ['a-bot', 'b-bot', 'c-bot', 'd-bot'];

interface Group {
  agents: string[];
  rules: ReferenceRule[];
}

interface Expected {
  kind: 'allow' | 'disallow';
  line: number;
  length: number;
}

/** The file, and what the literal reading says each crawler's check of `path` finds. */
function fileOf(groups: readonly Group[]) {
  const out: string[] = [];
  const placed = groups.map((group) => {
    for (const agent of group.agents) out.push(`user-agent: ${agent}`);
    const rules = group.rules.map((rule) => {
      out.push(`${rule.allow ? 'allow' : 'disallow'}: ${rule.pattern}`);
      return { ...rule, line: out.length };
    });
    out.push('');
    return { agents: group.agents, rules };
  });
  /** Every rule of the groups that name `token` that matches `path`, best first. */
  const candidates = (token: string, path: string): Expected[] =>
    placed
      .filter((group) => group.agents.includes(token))
      .flatMap((group) => group.rules)
      .filter((rule) => rule.pattern !== '' && referenceMatches(rule.pattern, path))
      .sort(
        (a, b) => b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow) || a.line - b.line,
      )
      .map((rule) => ({
        kind: rule.allow ? 'allow' : 'disallow',
        line: rule.line,
        length: rule.pattern.length,
      }));
  return { body: out.join('\n'), candidates };
}

/** Checks every crawler's verdicts three ways against the literal reading. */
function agrees(groups: readonly Group[], paths: readonly string[]): void {
  const { body, candidates } = fileOf(groups);
  const robots = RobotsTxt.parse(body);
  for (const token of new Set(groups.flatMap((group) => group.agents))) {
    for (const path of paths) {
      const expected = candidates(token, path);
      const allowed = expected.length === 0 || expected[0].kind === 'allow';
      const label = `${token} ${path}`;
      expect(robots.isAllowed(path, token), label).toBe(allowed);
      const verdict = robots.explain(path, token);
      expect(verdict.allowed, label).toBe(allowed);
      expect(verdict.rule?.line ?? null, label).toBe(expected[0]?.line ?? null);
      expect(
        verdict.candidates.map(({ kind, line, length }) => ({ kind, line, length })),
        label,
      ).toEqual(expected);
      expect(robots.explain(path, token, { candidates: false }).rule?.line ?? null, label).toBe(
        expected[0]?.line ?? null,
      );
    }
  }
}

const agents = fc.subarray(TOKENS, { minLength: 1 });
const pattern = fc
  .array(fc.constantFrom('/', 'a', 'b', 'c', '*'), { maxLength: 6 })
  .chain((chars) => fc.boolean().map((anchor) => `/${chars.join('')}${anchor ? '$' : ''}`));
const rule = fc.record({ allow: fc.boolean(), pattern });
const path = fc
  .array(fc.constantFrom('/', 'a', 'b', 'c', 'x'), { maxLength: 10 })
  .map((c) => `/${c.join('')}`);

describe('crawlers named in groups that other crawlers name too', () => {
  it('find the rules of every group that names them, as one group', () => {
    // Groups of up to 40 rules: past 16, a group several crawlers name is ranked once for all.
    fc.assert(
      fc.property(
        fc.array(fc.record({ agents, rules: fc.array(rule, { minLength: 1, maxLength: 40 }) }), {
          minLength: 2,
          maxLength: 6,
        }),
        fc.array(path, { minLength: 1, maxLength: 8 }),
        agrees,
      ),
      { numRuns: 400 },
    );
  });

  it('find them in large groups too: plain rules by hash, wildcard rules through an index', () => {
    const plain = fc.record({
      allow: fc.boolean(),
      pattern: fc.array(fc.constantFrom('/', 'a', 'b'), { maxLength: 12 }).map((c) => `/${c.join('')}`),
    });
    const large = fc.oneof(
      fc.array(plain, { minLength: 520, maxLength: 700 }),
      fc.array(rule, { minLength: 40, maxLength: 120 }),
      fc.array(rule, { minLength: 1, maxLength: 5 }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ agents, rules: large }), { minLength: 2, maxLength: 5 }),
        fc.array(path, { minLength: 1, maxLength: 8 }),
        agrees,
      ),
      { numRuns: 40, endOnFailure: true },
    );
  });

  const shared = (rules: string[]) =>
    `user-agent: a-bot\nuser-agent: b-bot\n${rules.join('\n')}\n${Array.from({ length: 20 }, (_, i) => `disallow: /f${i}`).join('\n')}\n\n`;

  it('let allow win a tie between a shared group and their own', () => {
    const robots = RobotsTxt.parse(`${shared(['disallow: /x'])}user-agent: a-bot\nallow: /x\n`);
    expect(robots.isAllowed('/x', 'a-bot')).toBe(true);
    expect(robots.explain('/x', 'a-bot').rule).toMatchObject({ kind: 'allow', line: 26 });
    expect(robots.isAllowed('/x', 'b-bot')).toBe(false);
  });

  it('take the first line of a rule written in both', () => {
    const robots = RobotsTxt.parse(`user-agent: a-bot\ndisallow: /y\n\n${shared(['disallow: /y'])}`);
    expect(robots.explain('/y', 'a-bot').rule).toMatchObject({ kind: 'disallow', line: 2 });
    expect(robots.explain('/y', 'a-bot').candidates.map((c) => c.line)).toEqual([2, 6]);
    expect(robots.explain('/y', 'b-bot').rule).toMatchObject({ kind: 'disallow', line: 6 });
  });

  it('find the rules of groups past the 32 shared tables a crawler reads', () => {
    // 45 groups of 17 to 61 rules, each a class of its own (bot-a and a crawler of its own):
    // bot-a reads the tables of the 32 largest, and its own table of the other 13.
    const groups: Group[] = Array.from({ length: 45 }, (_, g) => ({
      agents: ['a-bot', `own-${String.fromCharCode(97 + (g % 26), 97 + Math.floor(g / 26))}`],
      rules: Array.from({ length: 17 + ((g * 7) % 45) }, (_, r) => ({
        allow: (g + r) % 5 === 0,
        pattern: r % 4 === 3 ? `/g${g}/*r${r}$` : `/g${g}/r${r}`,
      })),
    }));
    const paths = groups.flatMap((_, g) => [
      `/g${g}/r1`,
      `/g${g}/r10x`,
      `/g${g}/x/r3`,
      `/g${g}/r16`,
      `/g${g}/`,
    ]);
    agrees(groups, paths);
  });

  it('share the ranking of a large group: one table however many crawlers name it', () => {
    // Tokens are letters, hyphens and underscores: `bot1` would name `bot`.
    const bots = Array.from(
      { length: 40 },
      (_, i) => `bot-${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`,
    );
    const large = Array.from({ length: 2_000 }, (_, i) => `disallow: /s${i % 97}/item-${i}/`);
    const own = bots.map((bot, i) => `user-agent: ${bot}\ndisallow: /own-${i}/\n`);
    const body = `${bots.map((bot) => `user-agent: ${bot}`).join('\n')}\n${large.join('\n')}\n\n${own.join('\n')}`;
    const robots = RobotsTxt.parse(body);
    expect(robots.isAllowed('/s5/item-5/x', bots[0])).toBe(false);
    const first = robots.retainedBytes;
    for (const [i, bot] of bots.entries()) {
      expect(robots.isAllowed('/s5/item-5/x', bot)).toBe(false);
      expect(robots.isAllowed(`/own-${i}/x`, bot)).toBe(false);
      expect(robots.isAllowed(`/own-${(i + 1) % 40}/x`, bot)).toBe(true);
    }
    // Each other crawler adds the table of its own group of one rule, not a copy of the
    // 2,000 rules (a table and a hash of them: about 30 KB each).
    expect(robots.retainedBytes - first).toBeLessThan(39 * 1_024);
  });
});
