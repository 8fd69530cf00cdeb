import { describe, expect, it } from 'vitest';
import { globToRegExp, MAX_LOC_LENGTH, type SitemapEntry, SitemapParser } from '../../src/sitemap/index.js';
import { fixture } from './support/sitemap-server.js';

const O = 'https://example.com';

/** Parses `text` fed in chunks of `size` characters. */
function parse(text: string, size = text.length) {
  const parser = new SitemapParser();
  const entries: SitemapEntry[] = [];
  for (let start = 0; start < text.length; start += size) {
    parser.write(text.slice(start, start + size));
    entries.push(...parser.take());
  }
  parser.end();
  entries.push(...parser.take());
  return { entries, format: parser.format, error: parser.error };
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

  it('reads undeclared entities as literal text, never as references', () => {
    const result = parse(`<urlset><url><loc>${O}/a?x=&lol9;&amp;&#65;</loc></url></urlset>`);
    expect(result.entries).toEqual([{ kind: 'url', loc: `${O}/a?x=&lol9;&A` }]);
  });

  it('says what a document that is not a sitemap is', () => {
    expect(parse('<html><body>Not found</body></html>').error).toBe(
      'Not a sitemap: the root element is <html>.',
    );
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
});
