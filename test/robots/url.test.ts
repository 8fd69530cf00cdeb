import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/robots/index.js';
import { urlOrNull, withoutUserinfo } from '../../src/robots/url.js';

describe('urlOrNull', () => {
  it('reads a host written in Latin-1 letters every time, however often it is asked', () => {
    // Node 20's URL.canParse answers false for these once it is optimized.
    let read = 0;
    for (let i = 0; i < 200_000; i++)
      if (urlOrNull('http://café.example/x', 'http://base.example/') !== null) read++;
    expect(read).toBe(200_000);
    expect(urlOrNull('http://café.example/x')?.host).toBe('xn--caf-dma.example');
  });

  it('is null for what is no URL', () => {
    expect(urlOrNull('not a url')).toBeNull();
    expect(urlOrNull('http://[::1/x')).toBeNull();
    expect(urlOrNull('/x', 'http://base.example/')?.href).toBe('http://base.example/x');
  });
});

describe('withoutUserinfo', () => {
  it('leaves out the user and password of what is written as a URL, parsed or not', () => {
    const cases: [text: string, shown: string][] = [
      ['https://user:secret@a.example/x', 'https://a.example/x'],
      ['http://u:p@ss@a.example:99999/', 'http://a.example:99999/'],
      ['https://u:secret@[::1', 'https://[::1'],
      ['//u:secret@a.example/x', '//a.example/x'],
      ['HTTPS:\\\\u:secret@a.example\\x', 'HTTPS:\\\\a.example\\x'],
      ['ftp://u:secret@a.example/x', 'ftp://a.example/x'],
      // No authority, or an `@` past it: nothing is a credential.
      ['mailto:someone@a.example', 'mailto:someone@a.example'],
      ['https://a.example/@user', 'https://a.example/@user'],
      ['https://a.example?q=a@b', 'https://a.example?q=a@b'],
      ['/path@x', '/path@x'],
    ];
    for (const [text, shown] of cases) expect(withoutUserinfo(text), text).toBe(shown);
  });

  it('keeps credentials out of the errors of a URL the core refuses', () => {
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /\n');
    for (const url of ['http://user:secret@a.example:99999/', 'mailto://user:secret@']) {
      expect(() => robots.isAllowed(url, 'A')).toThrow(TypeError);
      try {
        robots.isAllowed(url, 'A');
      } catch (error) {
        expect((error as Error).message).not.toContain('secret');
      }
    }
  });
});
