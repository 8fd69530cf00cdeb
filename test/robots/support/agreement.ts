import fc from 'fast-check';
import { expect } from 'vitest';
import { RobotsTxt } from '../../../src/index.js';
import { type ReferenceRule, referenceAllowed, referenceMatches } from './reference.js';

/** A robots.txt of one `*` group holding `rules`, in order, from line 2. */
export const fileOf = (rules: readonly ReferenceRule[]) =>
  `user-agent: *\n${rules.map((r) => `${r.allow ? 'allow' : 'disallow'}: ${r.pattern}`).join('\n')}\n`;

/**
 * Checks that the parsed rules answer every path as the literal reading does: `matches` is the
 * reading of one pattern (referenceMatchesTable for long ones), with `parseBetween` another file
 * is parsed before the first check, and with `explained` the verdict of explain, which reads
 * every matching rule through other code, is checked too.
 */
export function agreesWithReference(
  rules: fc.Arbitrary<ReferenceRule[]>,
  paths: fc.Arbitrary<string[]>,
  parameters: fc.Parameters<[ReferenceRule[], string[]]>,
  {
    parseBetween = false,
    matches = referenceMatches,
    explained = false,
  }: { parseBetween?: boolean; matches?: typeof referenceMatches; explained?: boolean } = {},
): void {
  fc.assert(
    fc.property(rules, paths, (generated, checked) => {
      const robots = RobotsTxt.parse(fileOf(generated));
      if (parseBetween) RobotsTxt.parse(fileOf([...generated].reverse()));
      for (const p of checked) {
        const expected = referenceAllowed(generated, p, matches);
        expect(robots.isAllowed(p, 'bot'), p).toBe(expected);
        if (explained) expect(robots.explain(p, 'bot', { candidates: false }).allowed, p).toBe(expected);
      }
    }),
    parameters,
  );
}
