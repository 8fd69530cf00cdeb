import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { SitemapEntry, SitemapFormat } from './types.js';

/**
 * The longest `loc` read; sitemaps.org asks for URLs under 2,048 characters. A longer one is
 * handed on cut to this length and marked `tooLong`, so the seeder counts it as invalid.
 */
export const MAX_LOC_LENGTH = 8192;

/**
 * Namespaces whose prefix, when a file binds one, still names the elements this parser reads:
 * the sitemaps.org schema (and Google's old 0.84 one) and Atom. Extensions (image, video, news,
 * xhtml) always come with a prefix of their own and are skipped.
 */
const OWN_NAMESPACES =
  /^https?:\/\/(www\.)?(sitemaps\.org\/schemas\/sitemap\/|google\.com\/schemas\/sitemap\/|w3\.org\/2005\/Atom)/;

/** The five entities XML predefines and character references: everything else is not an entity here. */
const STRAY_AMPERSAND = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)/g;

const CDATA_START = '<![CDATA[';
const CDATA_END = ']]>';
/** `&#x10FFFF;`, the longest reference `STRAY_AMPERSAND` accepts, is 10 characters long. */
const LONGEST_REFERENCE = 10;

/**
 * Escapes stray ampersands in a stream of XML text, outside CDATA sections (where `&` is literal
 * already). A tail that may be the start of a reference, of `<![CDATA[` or of `]]>` waits for the
 * next chunk, so a chunk boundary never changes the result.
 */
class StrayAmpersands {
  #carry = '';
  #inCdata = false;

  push(input: string): string {
    return this.#convert(this.#carry + input, false);
  }

  flush(): string {
    return this.#convert(this.#carry, true);
  }

  #convert(text: string, last: boolean): string {
    this.#carry = '';
    let out = '';
    let index = 0;
    while (index < text.length) {
      if (this.#inCdata) {
        const end = text.indexOf(CDATA_END, index);
        if (end === -1) {
          // The last two characters may be the start of `]]>`.
          const keep = last ? text.length : Math.max(index, text.length - 2);
          this.#carry = text.slice(keep);
          return out + text.slice(index, keep);
        }
        out += text.slice(index, end + CDATA_END.length);
        index = end + CDATA_END.length;
        this.#inCdata = false;
        continue;
      }
      const start = text.indexOf(CDATA_START, index);
      let plainEnd = start === -1 ? text.length : start;
      if (start === -1 && !last) {
        // Hold back an `&` that may be an unfinished reference, and a `<` that may begin `<![CDATA[`.
        const amp = text.lastIndexOf('&');
        if (amp >= index && text.length - amp < LONGEST_REFERENCE) plainEnd = amp;
        const lt = text.lastIndexOf('<');
        if (lt >= index && text.length - lt < CDATA_START.length && CDATA_START.startsWith(text.slice(lt))) {
          plainEnd = Math.min(plainEnd, lt);
        }
        this.#carry = text.slice(plainEnd);
      }
      const plain = text.slice(index, plainEnd);
      out += plain.includes('&') ? plain.replace(STRAY_AMPERSAND, '&amp;') : plain;
      if (start === -1) break;
      out += CDATA_START;
      index = start + CDATA_START.length;
      this.#inCdata = true;
    }
    return out;
  }
}

/**
 * A streaming sitemap parser: fed decoded text in chunks, it recognises the format from the
 * content and collects entries (`take()` hands them over). It never throws on content: a file
 * that is not a sitemap, or XML that breaks, sets `error` and the parser ignores the rest;
 * the entries read before the error stay valid.
 *
 * Formats (sitemaps.org, "Other sitemap formats"): XML `urlset` and `sitemapindex`, RSS 2.0 and
 * RSS 1.0 (`item` / `link`, `pubDate` as lastmod), Atom 1.0 (`entry` / `link href`, `updated`
 * as lastmod), and text files with one URL a line.
 *
 * XML hardening: a DOCTYPE ends the file (sitemaps never need one, and it is how entity bombs
 * start), so no entity is ever defined or expanded. An `&` that does not start one of the five
 * predefined entities or a character reference is read as a literal `&`: unescaped ampersands in
 * query strings are the most common sitemap mistake, and reading them as text keeps the file.
 */
export class SitemapParser {
  /** What the content turned out to be; `unknown` until the first non-blank character. */
  format: SitemapFormat = 'unknown';
  /** Set when reading stopped: why, in one sentence. */
  error: string | undefined;

  #entries: SitemapEntry[] = [];
  #mode: 'sniff' | 'xml' | 'text' | 'stopped' = 'sniff';
  #sniffed = '';
  // Text mode
  #line = '';
  #lineTooLong = false;
  #firstLine = true;
  // XML mode
  #sax: SaxesParser | undefined;
  #ampersands = new StrayAmpersands();
  #rootSeen = false;
  #doctypeWindow = '';
  #ownPrefixes = new Set<string>();
  #depth = 0;
  /** Depth of the open entry element (`url`, `sitemap`, `item`, `entry`), 0 when outside one. */
  #entryDepth = 0;
  #field: 'loc' | 'lastmod' | undefined;
  #text = '';
  #loc = '';
  #lastmod = '';

  /** Feeds the next piece of decoded text. */
  write(text: string): void {
    if (this.#mode === 'stopped' || text.length === 0) return;
    if (this.#mode === 'sniff') {
      this.#sniffed += text;
      const start = this.#sniffed.search(/\S/);
      if (start === -1) {
        // Blanks only so far; a file of blanks is bounded by the byte cap.
        return;
      }
      text = this.#sniffed.slice(start);
      this.#sniffed = '';
      if (text[0] === '<') this.#startXml();
      else this.#mode = 'text';
    }
    if (this.#mode === 'xml') this.#writeXml(text);
    else this.#writeText(text);
  }

  /** Ends the input: the last line of a text file, the end-of-document checks of XML. */
  end(): void {
    if (this.#mode === 'text') {
      this.#textLine(this.#line, this.#lineTooLong);
      this.#line = '';
      this.#lineTooLong = false;
    } else if (this.#mode === 'xml' && this.#sax !== undefined) {
      this.#feedXml(this.#ampersands.flush());
      if (this.#mode === 'xml') this.#sax.close();
    } else if (this.#mode === 'sniff') {
      this.#stop('The file is empty.');
    }
  }

  /** The entries read since the last call. */
  take(): SitemapEntry[] {
    const entries = this.#entries;
    if (entries.length > 0) this.#entries = [];
    return entries;
  }

  #stop(why: string): void {
    if (this.#mode === 'stopped') return;
    this.error = why;
    this.#mode = 'stopped';
  }

  // ------------------------------------------------------------------ text sitemaps

  #writeText(text: string): void {
    let start = 0;
    for (;;) {
      const lf = text.indexOf('\n', start);
      const cr = text.indexOf('\r', start);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) break;
      this.#textLine(this.#lineTooLong ? this.#line : this.#line + text.slice(start, end), this.#lineTooLong);
      this.#line = '';
      this.#lineTooLong = false;
      start = end + 1;
      if (this.#mode === 'stopped') return;
    }
    if (this.#lineTooLong) return;
    this.#line += text.slice(start);
    if (this.#line.length > MAX_LOC_LENGTH) {
      // A line longer than any URL: its start is kept to report it, the rest skipped up to its
      // end, never buffered whole.
      this.#line = this.#line.slice(0, MAX_LOC_LENGTH);
      this.#lineTooLong = true;
    }
  }

  #textLine(raw: string, tooLong: boolean): void {
    let line = raw.trim();
    if (line === '') return;
    if (line.length > MAX_LOC_LENGTH) {
      line = line.slice(0, MAX_LOC_LENGTH);
      tooLong = true;
    }
    if (this.#firstLine) {
      this.#firstLine = false;
      // sitemaps.org: a text sitemap holds one URL a line and nothing else. A first line that is
      // not a URL means this is some other document (an error page, say).
      if (!/^https?:\/\//i.test(line)) {
        this.#stop(
          `Not a sitemap: neither XML nor a list of URLs (starts with ${JSON.stringify(line.slice(0, 40))}).`,
        );
        return;
      }
      this.format = 'text';
    }
    this.#entries.push(tooLong ? { kind: 'url', loc: line, tooLong } : { kind: 'url', loc: line });
  }

  // ------------------------------------------------------------------ XML sitemaps

  #startXml(): void {
    this.#mode = 'xml';
    const sax = new SaxesParser({ xmlns: false, position: false });
    sax.on('error', (error) => {
      // saxes recovers poorly after an error (text and tags run together): stop at the first one.
      // Positions are off (they cost a fifth of the parse); the caller says how many entries came before.
      this.#stop(`Broken XML: ${error.message}`);
    });
    sax.on('doctype', () => this.#stop('Refused: the file has a DOCTYPE (sitemaps never need one).'));
    sax.on('opentag', (tag) => this.#open(tag));
    sax.on('closetag', () => this.#close());
    sax.on('text', (text) => this.#appendText(text));
    sax.on('cdata', (text) => this.#appendText(text));
    this.#sax = sax;
  }

  #writeXml(text: string): void {
    if (!this.#rootSeen) {
      // The DOCTYPE is refused before saxes reads it: saxes would buffer a whole internal subset.
      const window = this.#doctypeWindow + text;
      if (window.includes('<!DOCTYPE')) {
        this.#stop('Refused: the file has a DOCTYPE (sitemaps never need one).');
        return;
      }
      this.#doctypeWindow = window.slice(-8);
    }
    this.#feedXml(this.#ampersands.push(text));
  }

  #feedXml(text: string): void {
    if (text.length > 0 && this.#mode === 'xml') this.#sax!.write(text);
  }

  /** The local name of an element this parser reads, or undefined for a foreign (extension) element. */
  #ownName(name: string): string | undefined {
    const colon = name.indexOf(':');
    if (colon === -1) return name;
    return this.#ownPrefixes.has(name.slice(0, colon)) ? name.slice(colon + 1) : undefined;
  }

  #open(tag: SaxesTagPlain): void {
    if (this.#mode !== 'xml') return;
    const depth = ++this.#depth;
    if (depth === 1) {
      this.#rootSeen = true;
      for (const [attribute, value] of Object.entries(tag.attributes)) {
        if (attribute.startsWith('xmlns:') && OWN_NAMESPACES.test(value))
          this.#ownPrefixes.add(attribute.slice(6));
      }
      this.#root(tag.name);
      return;
    }
    const name = this.#ownName(tag.name);
    if (name === undefined) return;
    if (this.#entryDepth === 0) {
      if (this.#isEntry(name, depth)) {
        this.#entryDepth = depth;
        this.#loc = '';
        this.#lastmod = '';
      }
      return;
    }
    if (depth !== this.#entryDepth + 1) return;
    switch (this.format) {
      case 'urlset':
      case 'sitemapindex':
        if (name === 'loc') this.#capture('loc');
        else if (name === 'lastmod') this.#capture('lastmod');
        return;
      case 'rss':
        if (name === 'link') this.#capture('loc');
        else if (name === 'pubDate') this.#capture('lastmod');
        return;
      case 'atom':
        if (name === 'link' && this.#loc === '') {
          // Atom 4.2.7.2: a link without `rel` is `alternate`, the entry's own page.
          const rel = tag.attributes['rel'] ?? 'alternate';
          const href = tag.attributes['href'];
          if (rel === 'alternate' && typeof href === 'string') this.#loc = href.trim();
        } else if (name === 'updated' || (name === 'published' && this.#lastmod === '')) {
          this.#capture('lastmod');
        }
        return;
      default:
        return;
    }
  }

  #root(name: string): void {
    const local = name.slice(name.indexOf(':') + 1);
    switch (local) {
      case 'urlset':
      case 'sitemapindex':
        this.format = local;
        return;
      case 'rss':
      case 'RDF':
        this.format = 'rss';
        return;
      case 'feed':
        this.format = 'atom';
        return;
      default:
        this.#stop(`Not a sitemap: the root element is <${name}>.`);
    }
  }

  #isEntry(name: string, depth: number): boolean {
    switch (this.format) {
      case 'urlset':
        return depth === 2 && name === 'url';
      case 'sitemapindex':
        return depth === 2 && name === 'sitemap';
      case 'rss':
        // RSS 2.0: rss/channel/item; RSS 1.0: rdf:RDF/item.
        return name === 'item' && depth <= 3;
      case 'atom':
        return depth === 2 && name === 'entry';
      default:
        return false;
    }
  }

  #capture(field: 'loc' | 'lastmod'): void {
    this.#field = field;
    this.#text = '';
  }

  #appendText(text: string): void {
    if (this.#field === undefined || this.#mode !== 'xml') return;
    // A value longer than any URL is not kept whole (the file cap bounds saxes's own buffer).
    if (this.#text.length <= MAX_LOC_LENGTH) this.#text += text;
  }

  #close(): void {
    if (this.#mode !== 'xml') return;
    const depth = this.#depth--;
    if (this.#entryDepth === 0) return;
    if (depth === this.#entryDepth + 1 && this.#field !== undefined) {
      const value = this.#text.trim();
      if (this.#field === 'loc') {
        if (this.#loc === '') this.#loc = value;
      } else if (this.#lastmod === '') {
        this.#lastmod = value;
      }
      this.#field = undefined;
      this.#text = '';
      return;
    }
    if (depth === this.#entryDepth) {
      this.#entryDepth = 0;
      if (this.#loc === '') return;
      const entry: SitemapEntry = {
        kind: this.format === 'sitemapindex' ? 'sitemap' : 'url',
        loc: this.#loc,
      };
      if (this.#loc.length > MAX_LOC_LENGTH) {
        entry.loc = this.#loc.slice(0, MAX_LOC_LENGTH);
        entry.tooLong = true;
      }
      if (this.#lastmod !== '') entry.lastmod = this.#lastmod;
      this.#entries.push(entry);
    }
  }
}
