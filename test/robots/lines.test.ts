import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import { NON_ASCII_LOWERING_TO_ASCII } from '../../src/robots/lines.js';

describe('reading keys', () => {
  it('knows every character outside ASCII whose lower case starts with an ASCII letter', () => {
    // A key is lower-cased before it is compared; keys that cannot start a directive once
    // lower-cased are skipped by their first character, which takes this list to be complete.
    const found: number[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const first = String.fromCodePoint(cp).toLowerCase().charCodeAt(0);
      if ((first >= 0x61 && first <= 0x7a) || (first >= 0x41 && first <= 0x5a)) found.push(cp);
    }
    expect(found).toEqual([...NON_ASCII_LOWERING_TO_ASCII]);
  });

  // Every word a key may start with, read by its prefix: written in capitals and with a suffix,
  // none of them is an unknown directive.
  it.each([
    ['User-agents', 'accepted-typo'],
    ['Useragent', 'accepted-typo'],
    ['User agent', 'accepted-typo'],
    ['Allowance', 'accepted-typo'],
    ['Disallowed', 'accepted-typo'],
    ['Dissallow', 'accepted-typo'],
    ['Dissalow', 'accepted-typo'],
    ['Disalow', 'accepted-typo'],
    ['Diasllow', 'accepted-typo'],
    ['Disallaw', 'accepted-typo'],
    ['Sitemaps', 'accepted-typo'],
    ['Site-map', 'accepted-typo'],
    ['Crawl-delays', 'accepted-typo'],
    ['Crawldelay', 'accepted-typo'],
    ['Crawl delay', 'accepted-typo'],
    ['Noindexing', 'accepted-typo'],
    ['Host', 'unsupported-directive'],
    ['Clean-param', 'unsupported-directive'],
    ['Request-rate', 'unsupported-directive'],
    ['Visit-time', 'unsupported-directive'],
    ['Nofollow', 'unsupported-directive'],
    ['Cache-delay', 'unsupported-directive'],
    ['Content-signal', 'unsupported-directive'],
    ['Noarchive', 'unsupported-directive'],
    ['Domain', 'unsupported-directive'],
    ['Revisit-after', 'unsupported-directive'],
    ['Content-usage', 'unsupported-directive'],
    ['Xyz', 'unknown-directive'],
    ['İndex', 'unknown-directive'],
    ['\uFFFDllow', 'unknown-directive'],
  ])('reads a key %j whatever the case of its first letter', (word, code) => {
    for (const key of [word, word.toUpperCase(), word.toLowerCase()]) {
      const codes = RobotsTxt.parse(`User-agent: *\n${key}: 1\n`).lints.map((l) => l.code);
      expect(codes, key).toContain(code);
      if (code !== 'unknown-directive') expect(codes, key).not.toContain('unknown-directive');
    }
  });

  it.each([
    // Only a blank is a blank: a NUL, `@` or `[` is not a space, `-` or letter in another case.
    ['User\0agent', 'unknown-directive'],
    ['User@agent', 'unknown-directive'],
    ['Di[allow', 'unknown-directive'],
    ['Crawl\u212adelay', 'unknown-directive'],
    // The Kelvin sign is a `k` once lower-cased, and İ an `i` and a dot above.
    ['Noindex\u212a', 'accepted-typo'],
    ['Dİsallow', 'unknown-directive'],
    ['Disallowİ', 'accepted-typo'],
  ])('reads %j as no directive but the one its characters spell', (key, code) => {
    const robots = RobotsTxt.parse(`User-agent: *\n${key}: /x\n`);
    expect(robots.lints.map((l) => l.code)).toContain(code);
    expect(robots.isAllowed('/x', 'ExampleBot')).toBe(code === 'unknown-directive' || !key.startsWith('Dis'));
  });

  it.each([
    ['Disallow /a:/x', 'disallow'],
    ['User agent x: /x', 'user-agent'],
    ['Disallowed stuff: /x', 'disallow'],
    ['Dissallow\t/b: /x', 'disallow'],
  ])('reads %j, a key with blanks and a colon, by the word it starts with', (line, key) => {
    // Split at the colon of the value, as Google does: the key is the word before the blank.
    const robots = RobotsTxt.parse(`User-agent: *\n${line}\n`);
    expect(robots.isAllowed('/x', 'ExampleBot')).toBe(key !== 'disallow');
  });
});
