import fc from 'fast-check';
import { expect } from 'vitest';
import { RobotsTxt } from '../../../src/index.js';
import { type ReferenceRule, referenceAllowed, referenceMatches } from './reference.js';

/** A robots.txt of one `*` group holding `rules`, in order, from line 2. */
export const fileOf = (rules: readonly ReferenceRule[]) =>
  `user-agent: *\n${rules.map((r) => `${r.allow ? 'allow' : 'disallow'}: ${r.pattern}`).join('\n')}\n`;

/**
 * Checks that the parsed rules answer every path as the literal reading does: `matches` is the
 * reading of one pattern (referenceMatchesTable for long ones), and with `parseBetween` another
 * file is parsed before the first check.
 */
export function agreesWithReference(
  rules: fc.Arbitrary<ReferenceRule[]>,
  paths: fc.Arbitrary<string[]>,
  parameters: fc.Parameters<[ReferenceRule[], string[]]>,
  {
    parseBetween = false,
    matches = referenceMatches,
  }: { parseBetween?: boolean; matches?: typeof referenceMatches } = {},
): void {
  fc.assert(
    fc.property(rules, paths, (generated, checked) => {
      const robots = RobotsTxt.parse(fileOf(generated));
      if (parseBetween) RobotsTxt.parse(fileOf([...generated].reverse()));
      for (const p of checked)
        expect(robots.isAllowed(p, 'bot')).toBe(referenceAllowed(generated, p, matches));
    }),
    parameters,
  );
}
