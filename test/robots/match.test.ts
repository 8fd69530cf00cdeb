import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesPattern } from '../../src/robots/match.js';

const matches = matchesPattern;

/**
 * The obviously correct matcher: try every way `*` can stretch. Exponential in the worst
 * case, so it only runs on short inputs.
 */
function referenceMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const go = (p: number, s: number): boolean => {
    if (p === body.length) return anchored ? s === path.length : true;
    if (body[p] === '*') {
      for (let k = s; k <= path.length; k++) if (go(p + 1, k)) return true;
      return false;
    }
    return s < path.length && body[p] === path[s] && go(p + 1, s + 1);
  };
  return go(0, 0);
}

describe('pattern matching (RFC 9309 2.2.2, 2.2.3)', () => {
  it.each([
    ['/fish', '/fish', true],
    ['/fish', '/fish.html', true],
    ['/fish', '/Fish.asp', false],
    ['/fish', '/catfish', false],
    ['/fish*', '/fishheads/yummy.html', true],
    ['/fish*', '/fis', false],
    ['/fish/', '/fish', false],
    ['/*.php', '/folder/filename.php?parameters', true],
    ['/*.php', '/windows.PHP', false],
    ['/*.php$', '/filename.php', true],
    ['/*.php$', '/filename.php?parameters', false],
    ['/*.php$', '/filename.php5', false],
    ['/fish*.php', '/fishheads/catfish.php?parameters', true],
    ['/fish*.php', '/Fish.PHP', false],
    ['/a*b*c', '/aXbYc', true],
    ['/a*b*c', '/aXcYb', false],
    ['/a*b$', '/abab', true],
    ['/a*b$', '/abba', false],
    ['*', '/anything', true],
    ['/$', '/', true],
    ['/$', '/x', false],
    ['/a**b', '/aXb', true],
    ['/a*$', '/a/anything', true],
  ])('%s vs %s -> %s', (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
    expect(referenceMatches(pattern, path)).toBe(expected);
  });

  it('agrees with the reference matcher on random patterns and paths', () => {
    const alphabet = fc.constantFrom('/', 'a', 'b', '*', '.');
    const pattern = fc
      .array(alphabet, { maxLength: 10 })
      .chain((chars) => fc.boolean().map((anchor) => chars.join('') + (anchor ? '$' : '')));
    const path = fc
      .array(fc.constantFrom('/', 'a', 'b', '.'), { maxLength: 14 })
      .map((c) => `/${c.join('')}`);
    fc.assert(
      fc.property(pattern, path, (p, s) => matches(p, s) === referenceMatches(p, s)),
      { numRuns: 20_000 },
    );
  });
});
