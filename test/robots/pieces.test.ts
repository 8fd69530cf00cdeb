import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/robots/robots-txt.js';

/**
 * Bytes are decoded in pieces of about 64 KiB that end after a line feed (see PIECE_OCTETS in
 * lines.ts): the same file given as bytes must read exactly as given as text, line numbers,
 * findings and answers included, whatever falls on a piece's edge.
 */

const encoder = new TextEncoder();

/** What a parse yields, as plain data. */
function reading(robots: RobotsTxt, paths: readonly string[]) {
  return {
    groups: robots.groups,
    lints: robots.lints,
    sitemaps: robots.sitemaps,
    verdicts: paths.map((path) => robots.explain(path, 'ExampleBot')),
  };
}

function expectSameAsText(text: string, paths: readonly string[], options = {}): void {
  const bytes = encoder.encode(text);
  expect(reading(RobotsTxt.parse(bytes, options), paths)).toEqual(
    reading(RobotsTxt.parse(text, options), paths),
  );
}

/** Lines of rules, sitemaps and findings of `count` lines in all, with `end` after each. */
function lines(count: number, end: string, salt: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = i * 7 + salt;
    switch (i % 9) {
      case 0:
        out.push(`User-agent: bot${n % 5 === 0 ? '' : 'x'}-${n % 3}`);
        break;
      case 1:
        out.push(`Disallow: /café/${n}/privé-€-😀/`);
        break;
      case 2:
        out.push(`Allow: /*/p${n}*.html$`);
        break;
      case 3:
        out.push(`Dissallow: /typo/${n}`);
        break;
      case 4:
        out.push(`Sitemap: https://example.com/s${n}.xml`);
        break;
      case 5:
        out.push(`# a comment ${'-'.repeat(n % 40)}`);
        break;
      case 6:
        out.push('');
        break;
      case 7:
        out.push(`User-agent: ExampleBot\nDisallow: /e${n}/\nCrawl-delay: ${n % 4}`);
        break;
      default:
        out.push(`this line is prose ${n}`);
    }
  }
  return out.join(end) + end;
}

const PATHS = [
  '/',
  '/café/8/privé-€-😀/x',
  '/e7/x',
  '/e70/a',
  '/e7000/a',
  '/a/p2.html',
  '/typo/3',
  '/robots.txt',
  `/long/${'a'.repeat(3000)}`,
];

describe('a file given as bytes reads as the same file given as text', () => {
  for (const [name, end] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    it(`over several pieces of 64 KiB, with ${name} line ends`, () => {
      const text = lines(12_000, end, 1);
      expect(encoder.encode(text).length).toBeGreaterThan(3 * 64 * 1024);
      expectSameAsText(text, PATHS);
      // Without the last line end, and with a last line that is a rule.
      expectSameAsText(`${text}User-agent: *\nDisallow: /last`, [...PATHS, '/last']);
    });
  }

  it('with a line longer than a piece, and lines that end right at a piece edge', () => {
    const long = `Disallow: /long/${'a'.repeat(100_000)}*b\n`;
    const before = lines(3000, '\n', 2);
    const after = lines(3000, '\n', 3);
    expectSameAsText(`User-agent: *\n${before}${long}${after}`, PATHS);
    // Lines of 64 Ki octets exactly, so that a piece ends with a line feed at its very edge.
    const exact = `Disallow: /${'b'.repeat(64 * 1024 - 12)}\n`;
    expect(encoder.encode(exact).length).toBe(64 * 1024);
    expectSameAsText(`${exact}User-agent: *\n${exact}${exact}${before}`, PATHS);
  });

  it('with multi-octet characters across every piece edge', () => {
    // Lines of 4-octet characters only: wherever 64 Ki octets fall, they fall inside one.
    const line = `Disallow: /${'😀'.repeat(997)}\n`;
    const text = `User-agent: *\n${line.repeat(60)}Disallow: /end\n`;
    expectSameAsText(text, [...PATHS, `/${'😀'.repeat(997)}`, '/end']);
  });

  it('cut at the size limit, and as an HTML page', () => {
    const text = `User-agent: *\n${lines(12_000, '\n', 4)}`;
    expectSameAsText(text, PATHS, { maxBytes: 150_000 });
    const page = `<!doctype html>\n<html>\n${'<p>Disallow: /x</p>\n'.repeat(8000)}</html>\n`;
    expectSameAsText(page, PATHS);
    // An HTML page whose first piece is short: a line longer than a piece follows it.
    expectSameAsText(`\n<html>\n<p>${'x'.repeat(100_000)}</p>\n</html>\n`, PATHS);
  });
});
