import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';

const fixture = readFileSync(new URL('./fixtures/lints.txt', import.meta.url), 'utf8');

describe('lints', () => {
  const lints = RobotsTxt.parse(fixture).lints;

  it.each([
    ['rule-before-user-agent', 1],
    ['user-agent-joins-group', 4],
    ['absolute-url-pattern', 5],
    ['pattern-not-rooted', 6],
    ['accepted-typo', 7],
    ['missing-colon', 8],
    ['noindex-unsupported', 9],
    ['crawl-delay-extension', 10],
    ['invalid-crawl-delay', 11],
    ['unsupported-directive', 12],
    ['unknown-directive', 13],
    ['unparsable-line', 14],
    ['sitemap-not-absolute', 15],
    ['duplicate-rule', 17],
    ['conflicting-rules', 19],
    ['empty-user-agent', 20],
  ] as const)('%s on line %i', (code, line) => {
    const lint = lints.find((l) => l.code === code);
    expect(lint).toBeDefined();
    expect(lint).toMatchObject({ code, line });
    expect(lint!.message.length).toBeGreaterThan(20);
  });

  it('names the misspelled key and the correct one', () => {
    expect(lints.find((l) => l.code === 'accepted-typo')!.message).toMatch(/"Dissallow".*"Disallow"/);
  });

  it('points the joining user-agent at the line that did not end the list', () => {
    expect(lints.find((l) => l.code === 'user-agent-joins-group')!.message).toMatch(/line 2.*line 3/);
  });

  it('lists findings in line order', () => {
    const lines = lints.map((l) => l.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it('reports nothing for a clean file', () => {
    const clean =
      'User-agent: *\nDisallow: /private/\nAllow: /private/press/\n\nSitemap: https://example.com/s.xml\n';
    expect(RobotsTxt.parse(clean).lints).toEqual([]);
  });

  it('reports a file cut at the size limit with the first ignored line', () => {
    const body = `User-agent: *\n${'Disallow: /a\n'.repeat(100)}Disallow: /late\n`;
    const lint = RobotsTxt.parse(body, { maxBytes: 600 }).lints.find((l) => l.code === 'file-too-large');
    // 14 octets for the first line, 13 for each rule: line 47 holds octets 599-611, so it is
    // read to its end and line 48 is the first one ignored.
    expect(lint?.line).toBe(48);
  });
});

describe('a file of garbage', () => {
  it('lists at most 200 findings and says how many more there were', () => {
    const body = `user-agent: *\n${'this is not a rule\n'.repeat(1000)}`;
    const lints = RobotsTxt.parse(body).lints;
    expect(lints).toHaveLength(201);
    expect(lints.at(-1)).toMatchObject({
      code: 'too-many-findings',
      message: expect.stringMatching(/^800 more/),
    });
  });

  it('lists at most 200 repeated rules and says how many more there were', () => {
    const body = `user-agent: *\n${'disallow: /same\n'.repeat(1000)}`;
    const lints = RobotsTxt.parse(body).lints;
    expect(lints.filter((l) => l.code === 'duplicate-rule')).toHaveLength(200);
    expect(lints.at(-1)).toMatchObject({
      code: 'too-many-findings',
      line: 202,
      message: expect.stringMatching(/^799 more repeated or conflicting rules after line 202/),
    });
  });
});
