import { describe, expect, it } from 'vitest';
import { agentsNamedBy, parseFailOn } from '../../src/cli/fail-on.js';
import { CliInputError } from '../../src/cli/io.js';

describe('--fail-on syntax', () => {
  it('reads every rule kind, repeated or comma-separated', () => {
    expect(
      parseFailOn(['blocked:Googlebot, allowed:GPTBot', 'lint:error', 'lint:accepted-typo', 'unreachable']),
    ).toEqual([
      { kind: 'blocked', agent: 'Googlebot', text: 'blocked:Googlebot' },
      { kind: 'allowed', agent: 'GPTBot', text: 'allowed:GPTBot' },
      { kind: 'lint', severity: 'error', text: 'lint:error' },
      { kind: 'lint-code', code: 'accepted-typo', text: 'lint:accepted-typo' },
      { kind: 'unreachable', text: 'unreachable' },
    ]);
  });

  it('keeps a whole User-Agent header in one rule: its parentheses may hold commas', () => {
    const header = 'Mozilla/5.0 (KHTML, like Gecko; compatible; GPTBot/1.0)';
    expect(parseFailOn([`allowed:${header},lint:error`])).toEqual([
      { kind: 'allowed', agent: header, text: `allowed:${header}` },
      { kind: 'lint', severity: 'error', text: 'lint:error' },
    ]);
  });

  it('keeps a rule given twice once, whatever the case of its crawler: it trips once', () => {
    expect(
      parseFailOn([
        'blocked:ExampleBot',
        'blocked:examplebot,allowed:ExampleBot',
        'lint:error,lint:error',
        'unreachable,unreachable',
      ]),
    ).toEqual([
      { kind: 'blocked', agent: 'ExampleBot', text: 'blocked:ExampleBot' },
      { kind: 'allowed', agent: 'ExampleBot', text: 'allowed:ExampleBot' },
      { kind: 'lint', severity: 'error', text: 'lint:error' },
      { kind: 'unreachable', text: 'unreachable' },
    ]);
  });

  it('names the crawlers of its rules, except *', () => {
    expect(agentsNamedBy(parseFailOn(['blocked:*,allowed:CCBot']))).toEqual(['CCBot']);
  });

  it.each([
    ['blocked', /is not a rule; use blocked:<agent>/],
    ['blocked:', /is not a rule/],
    ['denied:Googlebot', /is not a rule/],
    ['lint:fatal', /unknown lint; use lint:error, lint:warning, lint:info or a lint code/],
    ['blocked:Foo Bar', /names no crawler/],
    ['', /"" names no rule; use blocked:<agent>/],
    [' , ', /" , " names no rule/],
  ])('refuses %s with a message that shows the syntax', (text, message) => {
    expect(() => parseFailOn([text])).toThrow(CliInputError);
    expect(() => parseFailOn([text])).toThrow(message);
  });
});
