import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/robots/index.js';
import { answerStatus, diffPolicies } from '../../src/store/changes.js';

/** The change between two files of one origin, as `rules`/`crawl-delays` lines, or null. */
function change(before: string, after: string) {
  const policy = (text: string, fetchedAt: number) => ({
    origin: 'https://example.com',
    robotsTxtUrl: 'https://example.com/robots.txt',
    kind: 'rules' as const,
    status: 200,
    fetchedAt,
    answerStatus: 200,
    file: RobotsTxt.parse(text),
  });
  const found = diffPolicies(policy(before, 1), policy(after, 2));
  if (found === null) return null;
  const rules = (sign: string, list: typeof found.addedRules) =>
    list.map((rule) => `${sign} ${rule.userAgents.join(',')} ${rule.kind} ${rule.pattern} @${rule.line}`);
  return [
    ...rules('+', found.addedRules),
    ...rules('-', found.removedRules),
    ...found.changedCrawlDelays.map(
      (delay) => `delay ${delay.userAgents.join(',')} ${delay.previous} -> ${delay.current}`,
    ),
  ];
}

describe('change events compare what each crawler obeys', () => {
  it.each([
    [
      'user-agent lines reordered',
      'User-agent: a\nUser-agent: b\nDisallow: /x\n',
      'User-agent: b\nUser-agent: a\nDisallow: /x\n',
    ],
    [
      'a group split in two of the same token (merged again)',
      'User-agent: a\nDisallow: /x\nDisallow: /y\n',
      'User-agent: a\nDisallow: /x\n\nUser-agent: a\nDisallow: /y\n',
    ],
    [
      'a rule of a group of two tokens given to each in a group of its own',
      'User-agent: a\nUser-agent: b\nDisallow: /x\n',
      'User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /x\n',
    ],
    ['the case of an escape', 'User-agent: *\nDisallow: /a%2f\n', 'User-agent: *\nDisallow: /a%2F\n'],
    [
      'the case of a user-agent',
      'User-agent: ExampleBot\nDisallow: /x\n',
      'User-agent: examplebot\nDisallow: /x\n',
    ],
    [
      'an empty disallow added (it matches nothing)',
      'User-agent: *\nDisallow: /x\n',
      'User-agent: *\nDisallow: /x\nDisallow:\n',
    ],
    [
      'a trailing wildcard added',
      'User-agent: *\nDisallow: /x\nAllow: /y\n',
      'User-agent: *\nDisallow: /x*\nAllow: /y*$\n',
    ],
    [
      'a rule moved to another line',
      'User-agent: *\nDisallow: /x\nDisallow: /y\n',
      'User-agent: *\nDisallow: /y\nDisallow: /x\n',
    ],
  ])('no change: %s', (_, before, after) => {
    expect(change(before, after)).toBeNull();
  });

  it.each([
    [
      'a token taken out of a group loses its rules',
      'User-agent: a\nUser-agent: b\nDisallow: /x\n',
      'User-agent: a\nDisallow: /x\n',
      ['- b disallow /x @3'],
    ],
    [
      'a token added to a group gains them',
      'User-agent: a\nDisallow: /x\n',
      'User-agent: a\nUser-agent: b\nDisallow: /x\n',
      ['+ b disallow /x @3'],
    ],
    [
      'a rule of a group of two tokens, one change naming both',
      'User-agent: b\nUser-agent: a\nDisallow: /x\n',
      'User-agent: b\nUser-agent: a\nDisallow: /x\nAllow: /x/open\n',
      ['+ a,b allow /x/open @4'],
    ],
    [
      'a rule added in two groups: a change per line',
      'User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /x\n',
      'User-agent: a\nDisallow: /x\nDisallow: /new\n\nUser-agent: b\nDisallow: /x\nDisallow: /new\n',
      ['+ a disallow /new @3', '+ b disallow /new @7'],
    ],
    [
      'a rule turned from disallow to allow',
      'User-agent: *\nDisallow: /x\n',
      'User-agent: *\nAllow: /x\n',
      ['+ * allow /x @2', '- * disallow /x @2'],
    ],
    [
      'crawl-delays by token, the largest of its groups',
      'User-agent: a\nUser-agent: b\nCrawl-delay: 1\nDisallow: /x\n\nUser-agent: c\nCrawl-delay: 1\nDisallow: /x\n',
      'User-agent: a\nCrawl-delay: 1\nDisallow: /x\n\nUser-agent: b\nUser-agent: c\nCrawl-delay: 5\nDisallow: /x\n\nUser-agent: b\nCrawl-delay: 2\nDisallow: /x\n',
      ['delay b,c 1 -> 5'],
    ],
  ])('%s', (_, before, after, expected) => {
    expect(change(before, after)).toEqual(expected);
  });
});

describe('the status a change compares', () => {
  const good = { kind: 'rules' as const, status: 200, fetchedAt: 1, why: 'HTTP 200', truncated: false };

  it("is the good copy's after a 304 that kept it, and the answer's own otherwise", () => {
    expect(answerStatus('invalid-redirect', 0, good)).toBe(200);
    expect(answerStatus(404, 0, { ...good, kind: 'allow-all', status: 404 })).toBe(404);
    expect(answerStatus('invalid-redirect', 0, undefined)).toBe('invalid-redirect');
  });

  it("is the outage's during one, though a good copy is held", () => {
    expect(answerStatus(503, 2, good)).toBe(503);
    expect(answerStatus('timeout', 1, undefined)).toBe('timeout');
  });
});
