import { describe, expect, it } from 'vitest';
import { globToRegExp, MAX_LOC_LENGTH, type SitemapEntry, SitemapParser } from '../../src/sitemap/index.js';
import { fixture } from './support/sitemap-server.js';

const O = 'https://example.com';

/** Parses `text` fed in chunks of `size` characters, or of the sizes `size()` returns one after another. */
function parse(text: string, size: number | (() => number) = text.length, documentUrl?: string) {
  const parser = new SitemapParser(documentUrl);
  const entries: SitemapEntry[] = [];
  for (let start = 0; start < text.length; ) {
    const end = start + (typeof size === 'number' ? size : size());
    parser.write(text.slice(start, end));
    entries.push(...parser.take());
    start = end;
  }
  parser.end();
  entries.push(...parser.take());
  return { entries, format: parser.format, error: parser.error };
}

/**
 * Parses `text` whole, then character by character and in chunks of pseudo-random sizes, and
 * checks that every split gives the same result. The seed is fixed, so a failure repeats.
 */
function parseInEveryChunking(text: string) {
  const whole = parse(text);
  expect(parse(text, 1)).toEqual(whole);
  let seed = 1;
  const randomSize = () => {
    seed = (seed * 48_271) % 0x7fffffff;
    return 1 + (seed % 24);
  };
  for (let round = 0; round < 40; round++) expect(parse(text, randomSize)).toEqual(whole);
  return whole;
}

describe('SitemapParser', () => {
  it('reads a urlset with extensions, CDATA, entities and stray ampersands, in chunks of any size', () => {
    const xml = fixture('urlset.xml', O);
    const whole = parse(xml);
    expect(whole.format).toBe('urlset');
    expect(whole.error).toBeUndefined();
    expect(whole.entries).toEqual([
      { kind: 'url', loc: `${O}/plain/1`, lastmod: '2024-03-01' },
      { kind: 'url', loc: `${O}/plain/2?a=1&b=2`, lastmod: '2023-01-15T10:00:00+00:00' },
      { kind: 'url', loc: `${O}/plain/3?x=1&y=2` },
      { kind: 'url', loc: `${O}/plain/4?q=a&b=c` },
      { kind: 'url', loc: `${O}/private/secret`, lastmod: '2024-04-01' },
    ]);
    for (const size of [1, 2, 3, 5, 7, 9, 10, 11, 64]) expect(parse(xml, size)).toEqual(whole);
  });

  it('reads RSS 2.0 items and Atom entries (alternate links only), in chunks', () => {
    const rss = parse(fixture('feed.rss', O), 3);
    expect(rss.format).toBe('rss');
    expect(rss.entries).toEqual([
      { kind: 'url', loc: `${O}/rss/1`, lastmod: 'Tue, 05 Mar 2024 10:00:00 GMT' },
      { kind: 'url', loc: `${O}/rss/2` },
    ]);
    const atom = parse(fixture('feed.atom', O), 4);
    expect(atom.format).toBe('atom');
    expect(atom.entries).toEqual([
      { kind: 'url', loc: `${O}/atom/1`, lastmod: '2024-03-05T10:00:00Z' },
      { kind: 'url', loc: `${O}/atom/2`, lastmod: '2024-02-01T00:00:00Z' },
    ]);
  });

  it('reads RSS 1.0 (RDF) items', () => {
    const rdf = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
      <channel><link>${O}/</link></channel><item><link>${O}/rdf/1</link></item></rdf:RDF>`;
    expect(parse(rdf).entries).toEqual([{ kind: 'url', loc: `${O}/rdf/1` }]);
  });

  it('reads a sitemap index with a prefixed sitemaps.org namespace', () => {
    const xml = `<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sm:sitemap><sm:loc>${O}/a.xml</sm:loc><sm:lastmod>2024-01-01</sm:lastmod></sm:sitemap></sm:sitemapindex>`;
    expect(parse(xml)).toEqual({
      format: 'sitemapindex',
      error: undefined,
      entries: [{ kind: 'sitemap', loc: `${O}/a.xml`, lastmod: '2024-01-01' }],
    });
  });

  it('reads entries whose own element binds the sitemaps.org prefix, and skips another namespace under it', () => {
    const ns = 'http://www.sitemaps.org/schemas/sitemap/0.9';
    const xml = `<urlset xmlns="${ns}">
      <s:url xmlns:s="${ns}"><s:loc>${O}/a</s:loc></s:url>
      <url><loc>${O}/b</loc></url>
      <x:url xmlns:x="https://example.com/other"><x:loc>${O}/not-a-sitemap-entry</x:loc></x:url></urlset>`;
    expect(parse(xml)).toEqual({
      format: 'urlset',
      error: undefined,
      entries: [
        { kind: 'url', loc: `${O}/a` },
        { kind: 'url', loc: `${O}/b` },
      ],
    });
  });

  it('reads text sitemaps: any line end, BOM, blanks trimmed, in chunks', () => {
    const list = fixture('list.txt', O);
    const expected = [`${O}/text/1`, `${O}/text/2`, `${O}/text/3`, `${O}/private/text`].map((loc) => ({
      kind: 'url',
      loc,
    }));
    // The BOM is left to the TextDecoder of the download; here it is stripped as the decoder would.
    const text = list.replace(/^\uFEFF/, '');
    for (const size of [1, 2, 5, text.length]) expect(parse(text, size).entries).toEqual(expected);
    expect(parse(text).format).toBe('text');
  });

  it('gives each relative Atom link the xml:base in effect, nested bases resolved against the outer one', () => {
    const feed = parse(
      `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="/blog/">
        <entry><link href="2024/post-1"/></entry>
        <entry xml:base="../news/"><link href="post-2"/></entry>
        <entry xml:base="https://cdn.example.net/a/"><link xml:base="b/" href="post-3"/></entry>
        <entry><link href="post-4"/></entry>
      </feed>`,
      7,
      `${O}/feeds/atom.xml`,
    );
    expect(feed.entries).toEqual([
      { kind: 'url', loc: '2024/post-1', base: `${O}/blog/` },
      { kind: 'url', loc: 'post-2', base: `${O}/news/` },
      { kind: 'url', loc: 'post-3', base: 'https://cdn.example.net/a/b/' },
      { kind: 'url', loc: 'post-4', base: `${O}/blog/` },
    ]);
  });

  it("takes an Atom entry's lastmod from updated, wherever published stands, and from published only without updated", () => {
    const feed = (entry: string) =>
      parse(
        `<feed xmlns="http://www.w3.org/2005/Atom"><entry>${entry}<link href="${O}/post"/></entry></feed>`,
      ).entries;
    const published = '<published>2019-01-01T00:00:00Z</published>';
    const updated = '<updated>2024-06-01T00:00:00Z</updated>';
    const expected = [{ kind: 'url', loc: `${O}/post`, lastmod: '2024-06-01T00:00:00Z' }];
    expect(feed(published + updated)).toEqual(expected);
    expect(feed(updated + published)).toEqual(expected);
    expect(feed(published)).toEqual([{ kind: 'url', loc: `${O}/post`, lastmod: '2019-01-01T00:00:00Z' }]);
  });

  it('reads a text sitemap that starts with comment lines, which are entries like any other line', () => {
    const text = `# generated by a plugin\n# 2 URLs\n${O}/a\n# end\n${O}/b\n`;
    expect(parse(text)).toEqual({
      entries: [
        { kind: 'url', loc: '# generated by a plugin' },
        { kind: 'url', loc: '# 2 URLs' },
        { kind: 'url', loc: `${O}/a` },
        { kind: 'url', loc: '# end' },
        { kind: 'url', loc: `${O}/b` },
      ],
      format: 'text',
      error: undefined,
    });
    // Comments and nothing else, or a page that starts like one, are no sitemap.
    expect(parse('# nothing here\n').error).toMatch(/^Not a sitemap: neither XML nor a list of URLs/);
    expect(parse('# Not found\nThe page is gone.\n').error).toMatch(/^Not a sitemap/);
  });

  it('reads text sitemaps with CR, LF and CRLF line ends mixed, however the text is split', () => {
    const text = `${O}/1\n${O}/2\r${O}/3\r\n${O}/4\n\n\r\r\n${O}/5\r\n\n${O}/6`;
    const result = parseInEveryChunking(text);
    expect(result.entries.map((entry) => entry.loc)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `${O}/${n}`));
  });

  it('skips blanks before the content wherever the text is split, and calls a file of blanks empty', () => {
    const blanks = ' \t\r\n'.repeat(50);
    expect(parseInEveryChunking(blanks).error).toBe('The file is empty.');
    expect(parseInEveryChunking(`${blanks}<urlset><url><loc>${O}/x</loc></url></urlset>`)).toEqual({
      format: 'urlset',
      error: undefined,
      entries: [{ kind: 'url', loc: `${O}/x` }],
    });
    expect(parseInEveryChunking(`${blanks}${O}/x\n`).entries).toEqual([{ kind: 'url', loc: `${O}/x` }]);
  });

  it('keeps what parsed before broken XML and says where it broke', () => {
    const result = parse(fixture('broken.xml', O), 16);
    expect(result.entries.map((entry) => entry.loc)).toEqual([`${O}/broken/1`, `${O}/broken/2`]);
    expect(result.error).toMatch(/^Broken XML: /);
  });

  it('refuses a DOCTYPE before saxes sees it, however the text is split: no entity is ever expanded', () => {
    const xml = fixture('billion-laughs.xml', O);
    for (const size of [1, 4, 9, xml.length]) {
      const result = parse(xml, size);
      expect(result.entries).toEqual([]);
      expect(result.error).toMatch(/DOCTYPE/);
    }
  });

  it('names an HTML page as such, whatever the case of its DOCTYPE and however the text is split', () => {
    for (const start of ['<!DOCTYPE html>', '<!doctype HTML PUBLIC "-//W3C//DTD HTML 4.01//EN">', '']) {
      const page = parseInEveryChunking(
        `\n${start}\n<html><head><title>App</title></head><body></body></html>`,
      );
      expect(page).toEqual({ entries: [], format: 'unknown', error: 'Not a sitemap: an HTML page.' });
    }
    expect(parseInEveryChunking('<!DOCTYPE urlset><urlset/>').error).toBe(
      'Refused: the file has a DOCTYPE (sitemaps never need one).',
    );
  });

  it('refuses a DOCTYPE only in the prolog: the same text in a comment, CDATA or instruction is read, in any chunking', () => {
    const xml = `<?xml version="1.0"?><?note "<!DOCTYPE"?><!-- <!DOCTYPE x> -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${O}/a</loc></url>
<!-- pages may start with <!DOCTYPE html> -->
<url><loc><![CDATA[${O}/search?q=<!DOCTYPE&x=1]]></loc></url></urlset>`;
    expect(parseInEveryChunking(xml)).toEqual({
      format: 'urlset',
      error: undefined,
      entries: [
        { kind: 'url', loc: `${O}/a` },
        { kind: 'url', loc: `${O}/search?q=<!DOCTYPE&x=1` },
      ],
    });
    const afterComment = parseInEveryChunking(
      `<!-- x --><!DOCTYPE urlset><urlset><url><loc>${O}/a</loc></url></urlset>`,
    );
    expect(afterComment.error).toBe('Refused: the file has a DOCTYPE (sitemaps never need one).');
    // After the root element a DOCTYPE is no declaration but broken XML.
    const afterRoot = parseInEveryChunking(`<urlset><url><loc>${O}/a</loc></url><!DOCTYPE x></urlset>`);
    expect(afterRoot.entries).toEqual([{ kind: 'url', loc: `${O}/a` }]);
    expect(afterRoot.error).toMatch(/^Broken XML: /);
  });

  it('reads stray ampersands after a comment or instruction that mentions <![CDATA[', () => {
    for (const prolog of ['<!-- wrap odd URLs in <![CDATA[ -->', '<?generator note="<![CDATA["?>']) {
      const xml = `<?xml version="1.0"?>${prolog}<urlset><url><loc>${O}/a?x=1&y=2</loc></url><!-- <![CDATA[ --><url><loc>${O}/b?p&q</loc></url></urlset>`;
      expect(parseInEveryChunking(xml)).toEqual({
        format: 'urlset',
        error: undefined,
        entries: [
          { kind: 'url', loc: `${O}/a?x=1&y=2` },
          { kind: 'url', loc: `${O}/b?p&q` },
        ],
      });
    }
  });

  it('reads character references padded with zeros, and still refuses those to no character', () => {
    const loc = (reference: string) =>
      parseInEveryChunking(`<urlset><url><loc>${O}/a${reference}b</loc></url></urlset>`);
    for (const slash of ['&#x0000002F;', '&#0000047;', '&#x002f;']) {
      expect(loc(slash).entries).toEqual([{ kind: 'url', loc: `${O}/a/b` }]);
    }
    for (const invalid of ['&#0;', '&#x00000000;', '&#x000D800;', '&#x0110000;', '&#0001114112;']) {
      expect(loc(invalid)).toEqual({
        format: 'urlset',
        entries: [],
        error: 'Broken XML: malformed character entity.',
      });
    }
    // Past the digits of the largest code point it is no reference at all, zeros or not.
    expect(loc('&#x00001100000;').entries).toEqual([{ kind: 'url', loc: `${O}/a&#x00001100000;b` }]);
  });

  it('reads undeclared entities as literal text, never as references', () => {
    const result = parse(`<urlset><url><loc>${O}/a?x=&lol9;&amp;&#65;</loc></url></urlset>`);
    expect(result.entries).toEqual([{ kind: 'url', loc: `${O}/a?x=&lol9;&A` }]);
  });

  it('says what a document that is not a sitemap is', () => {
    expect(parse('<html><body>Not found</body></html>').error).toBe('Not a sitemap: an HTML page.');
    expect(parse('<error><code>404</code></error>').error).toBe(
      'Not a sitemap: the root element is <error>.',
    );
    // XML names are case-sensitive: a root in another case is named with the one meant.
    expect(parse(`<URLSET><url><loc>${O}/a</loc></url></URLSET>`).error).toBe(
      'Not a sitemap: the root element is <URLSET>, which is not <urlset>: XML names are case-sensitive.',
    );
    expect(parse('<SitemapIndex></SitemapIndex>').error).toMatch(/which is not <sitemapindex>/);
    expect(parse('Not found').error).toMatch(/^Not a sitemap: neither XML nor a list of URLs/);
    expect(parse('   ').error).toBe('The file is empty.');
  });

  it('hands on a loc longer than any URL cut and marked tooLong, without buffering a whole line', () => {
    const long = `${O}/${'a'.repeat(10_000)}`;
    const cut = long.slice(0, MAX_LOC_LENGTH);
    expect(
      parse(`<urlset><url><loc>${long}</loc></url><url><loc>${O}/ok</loc></url></urlset>`).entries,
    ).toEqual([
      { kind: 'url', loc: cut, tooLong: true },
      { kind: 'url', loc: `${O}/ok` },
    ]);
    for (const size of [100, 20_000]) {
      expect(parse(`${O}/first\n${long}\n${O}/ok\n`, size).entries).toEqual([
        { kind: 'url', loc: `${O}/first` },
        { kind: 'url', loc: cut, tooLong: true },
        { kind: 'url', loc: `${O}/ok` },
      ]);
    }
  });

  it('stops at elements nested deeper than any sitemap, keeping what came before: saxes holds every open element', () => {
    const deep = parse(
      `<urlset><url><loc>${O}/first</loc></url>${'<a>'.repeat(100_000)}<url><loc>${O}/never</loc></url>`,
    );
    expect(deep.entries).toEqual([{ kind: 'url', loc: `${O}/first` }]);
    expect(deep.error).toMatch(/nested more than 256 deep/);
    // A feed's XHTML content nests a few dozen levels: still read.
    const nested = `${'<div>'.repeat(60)}text${'</div>'.repeat(60)}`;
    const feed = parse(
      `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="${O}/e"/><content type="xhtml">${nested}</content></entry></feed>`,
    );
    expect(feed).toEqual({ entries: [{ kind: 'url', loc: `${O}/e` }], format: 'atom', error: undefined });
  });
});

describe('SitemapParser.rootClosed', () => {
  it('turns true at the end tag of the root element, not before, and never for a text file', () => {
    const parser = new SitemapParser('https://example.com/sitemap.xml');
    parser.write(
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url>',
    );
    expect(parser.rootClosed).toBe(false);
    parser.write('</urlset');
    expect(parser.rootClosed).toBe(false);
    parser.write('>\n');
    expect(parser.rootClosed).toBe(true);
    expect(parser.take()).toEqual([{ kind: 'url', loc: 'https://example.com/a' }]);
    const list = new SitemapParser('https://example.com/sitemap.txt');
    list.write('https://example.com/a\n');
    list.end();
    expect(list.rootClosed).toBe(false);
  });
});

describe('SitemapParser on long tags and texts', () => {
  /** Writes `head`, then `filler` in chunks of 64 KiB until `total` characters, then `tail`. */
  function parseStream(head: string, filler: (index: number) => string, total: number, tail: string) {
    const parser = new SitemapParser();
    const entries: SitemapEntry[] = [];
    parser.write(head);
    for (let written = 0, index = 0; written < total && parser.error === undefined; index++) {
      let chunk = '';
      while (chunk.length < 65_536) chunk += filler(index++);
      parser.write(chunk);
      written += chunk.length;
      entries.push(...parser.take());
    }
    parser.write(tail);
    parser.end();
    entries.push(...parser.take());
    return { entries, error: parser.error };
  }

  it('stops at a tag of more than 8 Mi characters, keeping what came before: saxes holds a tag whole', () => {
    const attributes = parseStream(
      `<urlset><url><loc>${O}/first</loc></url><url `,
      (index) => ` a${index}="${'v'.repeat(20)}"`,
      9 * 2 ** 20,
      `><loc>${O}/never</loc></url></urlset>`,
    );
    expect(attributes.entries).toEqual([{ kind: 'url', loc: `${O}/first` }]);
    expect(attributes.error).toMatch(/^Refused: more than 8 Mi characters in one tag/);
    const comment = parseStream(
      `<urlset><url><loc>${O}/first</loc></url><!--`,
      () => 'c',
      9 * 2 ** 20,
      `--><url><loc>${O}/never</loc></url></urlset>`,
    );
    expect(comment.entries).toEqual([{ kind: 'url', loc: `${O}/first` }]);
    expect(comment.error).toMatch(/^Refused: more than 8 Mi/);
  });

  it('reads past 9 Mi characters of short comments and processing instructions: each is a piece of its own', () => {
    for (const filler of ['<!--x-->', '<?pi x?>']) {
      const many = parseStream(
        `<urlset><url><loc>${O}/first</loc></url>`,
        () => filler,
        9 * 2 ** 20,
        `<url><loc>${O}/after</loc></url></urlset>`,
      );
      expect(many.error, filler).toBeUndefined();
      expect(many.entries, filler).toEqual([
        { kind: 'url', loc: `${O}/first` },
        { kind: 'url', loc: `${O}/after` },
      ]);
    }
  });

  it('reads a feed whose article text is megabytes long, and what follows it', () => {
    const feed = parseStream(
      `<rss><channel><item><link>${O}/a</link><description>`,
      () => 'word ',
      3 * 2 ** 20,
      `</description></item><item><link>${O}/b</link></item></channel></rss>`,
    );
    expect(feed).toEqual({
      entries: [
        { kind: 'url', loc: `${O}/a` },
        { kind: 'url', loc: `${O}/b` },
      ],
      error: undefined,
    });
  });
});

describe('globToRegExp', () => {
  it('keeps * within a segment, lets ** cross segments, escapes the rest', () => {
    expect(globToRegExp(`${O}/blog/*`).test(`${O}/blog/a`)).toBe(true);
    expect(globToRegExp(`${O}/blog/*`).test(`${O}/blog/a/b`)).toBe(false);
    expect(globToRegExp(`${O}/blog/**`).test(`${O}/blog/a/b`)).toBe(true);
    expect(globToRegExp(`${O}/p?.html`).test(`${O}/p1.html`)).toBe(true);
    expect(globToRegExp(`${O}/p?.html`).test(`${O}/p1xhtml`)).toBe(false);
    expect(globToRegExp('**/item(1)+[x]').test(`${O}/item(1)+[x]`)).toBe(true);
  });

  it('refuses what is not a string rather than match nothing', () => {
    expect(() => globToRegExp(5 as never)).toThrow(new TypeError('globToRegExp() takes a string, got 5.'));
    expect(() => globToRegExp(/a/ as never)).toThrow(TypeError);
  });
});

describe('SitemapParser given bytes or bad input', () => {
  it('reads bytes as UTF-8, a character split between two writes included', () => {
    const text = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${O}/café/ü</loc></url></urlset>`;
    const bytes = new TextEncoder().encode(text);
    const split = bytes.indexOf(0xc3) + 1; // inside the two octets of é
    const parser = new SitemapParser();
    parser.write(bytes.subarray(0, split));
    parser.write(Buffer.from(bytes.subarray(split)));
    parser.end();
    const entries = parser.take();
    expect(entries).toEqual([{ kind: 'url', loc: `${O}/café/ü` }]);
    expect(entries).toEqual(parse(text).entries);
    expect(parser.error).toBeUndefined();
  });

  it('reads an incomplete character at the end of the bytes as U+FFFD', () => {
    const parser = new SitemapParser();
    parser.write(new TextEncoder().encode(`${O}/a\n${O}/b`));
    parser.write(Uint8Array.of(0xc3));
    parser.end();
    expect(parser.take()).toEqual([
      { kind: 'url', loc: `${O}/a` },
      { kind: 'url', loc: `${O}/b\uFFFD` },
    ]);
  });

  it('keeps the order of the file when bytes and text are mixed', () => {
    const parser = new SitemapParser();
    parser.write(new TextEncoder().encode(`${O}/a\n${O}/b`));
    parser.write(Uint8Array.of(0xc3));
    parser.write(`\n${O}/c\n`);
    parser.write(new TextEncoder().encode(`${O}/d`));
    parser.end();
    expect(parser.take().map((entry) => entry.loc)).toEqual([`${O}/a`, `${O}/b\uFFFD`, `${O}/c`, `${O}/d`]);
  });

  it('refuses what is neither text nor bytes, and a document URL that is not one', () => {
    const parser = new SitemapParser();
    expect(() => parser.write(5 as never)).toThrow(
      new TypeError('SitemapParser.write() takes a string or a Uint8Array, got 5.'),
    );
    expect(() => parser.write(null as never)).toThrow(/takes a string or a Uint8Array, got null/);
    expect(() => new SitemapParser({ foo: 1 } as never)).toThrow(
      /SitemapParser takes the absolute URL the file was read from, or nothing, got /,
    );
    expect(() => new SitemapParser('sitemap.xml')).toThrow(/got "sitemap.xml"/);
    expect(new SitemapParser(`${O}/sitemap.xml`).documentUrl).toBe(`${O}/sitemap.xml`);
  });
});

describe('SitemapParser keeps what belongs to a location', () => {
  it.each([
    ['urlset', `<urlset><url><loc> ${O}/a&#xA0;\n</loc></url></urlset>`],
    ['RSS', `<rss><channel><item><link>\t${O}/a&#x3000;</link></item></channel></rss>`],
    ['Atom', `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href=" ${O}/a&#xA0;"/></entry></feed>`],
    ['text', `${O}/a\u00a0 \r\n`],
  ])('cuts only XML white space from its ends, not U+00A0 or U+3000 (%s)', (_, text) => {
    const [entry] = parseInEveryChunking(text).entries;
    expect(entry.loc).toMatch(new RegExp(`^${O}/a[\u00a0\u3000]$`));
  });

  it('reads an Atom link whose rel is the IANA address of alternate (RFC 4287 4.2.7.2)', () => {
    const { entries } = parseInEveryChunking(
      `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="http://www.iana.org/assignments/relation/alternate" href="${O}/p"/><link rel="edit" href="${O}/e"/></entry></feed>`,
    );
    expect(entries.map((e) => e.loc)).toEqual([`${O}/p`]);
  });
});
