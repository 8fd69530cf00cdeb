import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { show } from '../robots/index.js';
import type { SitemapEntry, SitemapFormat } from './types.js';

/**
 * The longest `loc` read; sitemaps.org asks for URLs under 2,048 characters. A longer one is
 * handed on cut to this length and marked `tooLong`, so the seeder counts it as invalid.
 */
export const MAX_LOC_LENGTH = 8192;

/** Comment lines a text sitemap may start with before its first URL. */
const MAX_LEADING_COMMENTS = 100;

/**
 * The deepest element read. A sitemap goes four or five levels deep (`urlset`, `url`,
 * `news:news`, `news:publication`, `news:name`), a feed's XHTML content a few dozen. saxes keeps
 * every open element (about 250 octets each): 50 MiB of `<a>`, 50 KiB once gzipped, would hold
 * gigabytes.
 */
const MAX_XML_DEPTH = 256;

/**
 * The most characters read without saxes finishing a tag, a text or a CDATA section. saxes keeps
 * what it has not finished whole: a tag of 50 MiB of attributes, within the file cap, held more
 * than 500 MB. A sitemap's longest pieces are a feed's article texts, far below this.
 */
const MAX_PENDING_CHARACTERS = 8 * 1024 * 1024;

/**
 * Namespaces whose prefix, when a file binds one, still names the elements this parser reads:
 * the sitemaps.org schema (and Google's old 0.84 one) and Atom. Extensions (image, video, news,
 * xhtml) always come with a prefix of their own and are skipped.
 */
const OWN_NAMESPACES =
  /^https?:\/\/(www\.)?(sitemaps\.org\/schemas\/sitemap\/|google\.com\/schemas\/sitemap\/|w3\.org\/2005\/Atom)/;

/**
 * By format, the names of the elements read inside the root, each by its name in lower case: the
 * entry's, then its fields'. An element whose name differs from one of them in case alone is one
 * the file meant but the parser skips (XML names are case-sensitive), and says so.
 */
const READ_NAMES: Partial<Record<SitemapFormat, ReadonlyMap<string, string>>> = {
  urlset: byLowerCase(['url', 'loc', 'lastmod']),
  sitemapindex: byLowerCase(['sitemap', 'loc', 'lastmod']),
  rss: byLowerCase(['item', 'link', 'pubDate']),
  atom: byLowerCase(['entry', 'link', 'updated', 'published']),
};

function byLowerCase(names: readonly string[]): ReadonlyMap<string, string> {
  return new Map(names.map((name) => [name.toLowerCase(), name]));
}

/** The format each root element read starts (RSS 1.0's root is `RDF`), by its name as written. */
const ROOT_FORMATS: ReadonlyMap<string, SitemapFormat> = new Map([
  ['urlset', 'urlset'],
  ['sitemapindex', 'sitemapindex'],
  ['rss', 'rss'],
  ['RDF', 'rss'],
  ['feed', 'atom'],
]);

/** The root names by their lower case: a root that differs in case alone is named. */
const ROOT_NAMES = byLowerCase([...ROOT_FORMATS.keys()]);

/** Elements skipped for the case of their name (see `SitemapParser.miscasedElements`). */
export interface MiscasedElements {
  /** How many. */
  count: number;
  /** The first spelling met (`Url`). */
  written: string;
  /** True when others were met too (`URL` after `Url`). */
  otherSpellings: boolean;
}

/**
 * Zeros a character reference may carry before its digits. XML 1.0 (4.1, CharRef) sets no limit;
 * this one, far above any padding written in practice, keeps the wait for a reference's end short.
 */
const MAX_LEADING_ZEROS = 32;

/**
 * The five entities XML predefines and character references: everything else is not an entity
 * here. Past its zeros a reference has at most the digits of U+10FFFF; saxes refuses one that
 * names no character (`&#0;`, a surrogate, above U+10FFFF).
 */
const STRAY_AMPERSAND = new RegExp(
  `&(?!(?:amp|lt|gt|quot|apos|#0{0,${MAX_LEADING_ZEROS}}[0-9]{1,7}|#x0{0,${MAX_LEADING_ZEROS}}[0-9a-fA-F]{1,6});)`,
  'g',
);
/** `&#x`, the zeros, six digits and `;`: the longest reference `STRAY_AMPERSAND` accepts. */
const LONGEST_REFERENCE = MAX_LEADING_ZEROS + 10;

/** Sections whose content is handed on untouched: CDATA, comments, processing instructions. */
const SECTIONS = [
  { open: '<![CDATA[', close: ']]>' },
  { open: '<!--', close: '-->' },
  { open: '<?', close: '?>' },
];
const DOCTYPE_START = '<!DOCTYPE';
/** The name a DOCTYPE declares (`html` for a web page), once the character after it has come. */
const DOCTYPE_NAME = /^<!DOCTYPE\s+([^\s>[]+)[\s>[]/i;
/** How far after `<!DOCTYPE` its name is looked for before the declaration is refused unnamed. */
const DOCTYPE_NAME_WINDOW = 64;
/** Everything `XmlPrefilter` looks for after a `<`: a tail that begins one of them waits for more. */
const OPENERS = [DOCTYPE_START, ...SECTIONS.map((section) => section.open)];
/** Past the prolog, only a CDATA section, a comment or an instruction needs attention. */
const SECTION_START = /<[!?]/g;

function escapeStrayAmpersands(text: string): string {
  return text.includes('&') ? text.replace(STRAY_AMPERSAND, '&amp;') : text;
}

/**
 * Prepares a stream of XML text for saxes: escapes stray ampersands in tags and character data,
 * hands CDATA sections, comments and processing instructions on untouched (an `&` or a
 * `<![CDATA[` inside them means nothing), and spots a DOCTYPE in the prolog, the only place XML
 * allows one. A tail that may be the start of a reference or of a delimiter waits for the next
 * chunk, so a chunk boundary never changes the result.
 */
class XmlPrefilter {
  /**
   * Set when the prolog holds a DOCTYPE (to its name, `''` when none was read); from there on
   * nothing is handed on.
   */
  doctype: string | undefined;
  #carry = '';
  /** The delimiter that closes the section the text is in, if it is in one. */
  #sectionEnd: string | undefined;
  /** True until the root element starts. */
  #inProlog = true;

  push(input: string): string {
    return this.#convert(this.#carry + input, false);
  }

  flush(): string {
    return this.#convert(this.#carry, true);
  }

  #convert(text: string, last: boolean): string {
    // The text goes on as it is but for stray ampersands: it is copied to `out` in long runs,
    // cut only where an `&` is escaped.
    let out = '';
    let copied = 0;
    // Where the text handed on now ends; the rest waits for the next chunk.
    let end = text.length;
    let index = 0;
    while (index < text.length) {
      const close = this.#sectionEnd;
      if (close !== undefined) {
        const closeAt = text.indexOf(close, index);
        if (closeAt === -1) {
          // The last characters may be the start of the closing delimiter.
          if (!last) end = Math.max(index, text.length - (close.length - 1));
          break;
        }
        index = closeAt + close.length;
        this.#sectionEnd = undefined;
        continue;
      }
      const markup = this.#nextMarkup(text, index);
      if (markup === -1 && !last) end = this.#heldBack(text, index);
      const plain = text.slice(index, markup === -1 ? end : markup);
      const escaped = escapeStrayAmpersands(plain);
      if (escaped !== plain) {
        out += text.slice(copied, index) + escaped;
        copied = index + plain.length;
      }
      if (markup === -1) break;
      const section = SECTIONS.find((candidate) => text.startsWith(candidate.open, markup));
      if (section !== undefined) {
        index = markup + section.open.length;
        this.#sectionEnd = section.close;
        continue;
      }
      // HTML writes it `<!doctype html>` as often as not: any case is a DOCTYPE.
      if (
        this.#inProlog &&
        text.slice(markup, markup + DOCTYPE_START.length).toUpperCase() === DOCTYPE_START
      ) {
        const name = DOCTYPE_NAME.exec(text.slice(markup, markup + DOCTYPE_NAME_WINDOW));
        end = markup;
        // The name may come with the next chunk.
        if (name === null && !last && text.length - markup < DOCTYPE_NAME_WINDOW) break;
        this.doctype = name?.[1] ?? '';
        break;
      }
      const tail = text.slice(markup);
      if (
        !last &&
        tail.length < DOCTYPE_START.length &&
        OPENERS.some((opener) => opener.startsWith(tail.toUpperCase()))
      ) {
        end = markup;
        break;
      }
      // Any other `<` is a tag (saxes judges it); in the prolog, the first one is the root element.
      if (text[markup + 1] !== '!' && text[markup + 1] !== '?') this.#inProlog = false;
      index = markup + 1;
    }
    this.#carry = text.slice(end);
    return out + text.slice(copied, end);
  }

  /** Where the next `<` that needs a look is: in the prolog any, after it `<!` and `<?` only. */
  #nextMarkup(text: string, index: number): number {
    if (this.#inProlog) return text.indexOf('<', index);
    SECTION_START.lastIndex = index;
    return SECTION_START.exec(text)?.index ?? -1;
  }

  /**
   * Where the text that must wait for the next chunk begins: an `&` that may be an unfinished
   * reference, or a final `<` that may begin a section (`SECTION_START` needs the character after it).
   */
  #heldBack(text: string, index: number): number {
    let plainEnd = text.length;
    const amp = text.lastIndexOf('&');
    if (amp >= index && text.length - amp < LONGEST_REFERENCE) plainEnd = amp;
    if (text.endsWith('<')) plainEnd = Math.min(plainEnd, text.length - 1);
    return plainEnd;
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
 * as lastmod), and text files with one URL a line. `xml:base` (XML Base, which RFC 4287 1.2
 * applies to Atom) is read on every element: an entry whose link is relative carries the base
 * it is read against, each base resolved against the one outside it and the outermost against
 * `documentUrl`.
 *
 * XML hardening: a DOCTYPE in the prolog ends the file (sitemaps never need one, and it is how
 * entity bombs start), so no entity is ever defined or expanded. An `&` that does not start one
 * of the five predefined entities or a character reference is read as a literal `&`: unescaped
 * ampersands in query strings are the most common sitemap mistake, and reading them as text
 * keeps the file.
 */
export class SitemapParser {
  /** What the content turned out to be; `unknown` until the first non-blank character. */
  format: SitemapFormat = 'unknown';
  /** Set when reading stopped: why, in one sentence. */
  error: string | undefined;
  /**
   * Entries of the kind the root does not hold (`<sitemap>` in a `urlset`, `<url>` in a
   * `sitemapindex`): sitemaps.org's schema allows one kind per root, so they are skipped.
   */
  misplacedEntries = 0;
  /**
   * Entry elements that are not where the format has them (a `<url>` inside another `<url>`,
   * or inside a wrapper element of the `urlset`): skipped, and counted so the seeder says so.
   */
  strayEntries = 0;
  /**
   * Locations skipped: a second `<loc>` (or RSS `<link>`) of one entry that differs from its
   * first, which is the one read, and a `<loc>` of a `urlset` or `sitemapindex` outside any entry.
   */
  strayLocations = 0;
  /**
   * Elements skipped because their name is one the format reads, written in another case
   * (`<Url>`, `<LOC>`, `<Sitemap>`) where it would be read: XML names are case-sensitive, and
   * sitemaps.org's are lower case. By the name the format reads (`url`), so the seeder says so.
   */
  readonly miscasedElements = new Map<string, MiscasedElements>();

  /**
   * True once the root element of an XML file has closed: nothing after it is an entry, so a
   * reader that stops there has every entry of the file, whether or not the rest was read.
   */
  get rootClosed(): boolean {
    return this.#rootClosed;
  }

  #rootClosed = false;
  #entries: SitemapEntry[] = [];
  /** The `xml:base` in effect inside each open element that sets one, innermost last. */
  #bases: { depth: number; base: string }[] = [];
  /** The base in effect where the entry's location was read, when an `xml:base` set one. */
  #locBase: string | undefined;
  #mode: 'sniff' | 'xml' | 'text' | 'stopped' = 'sniff';
  // Text mode
  #line = '';
  #lineTooLong = false;
  #firstLine = true;
  /** Comment lines read before the first URL of a text file (see #textLine). */
  #leadingComments: string[] = [];
  // XML mode
  #sax: SaxesParser | undefined;
  #prefilter = new XmlPrefilter();
  #ownPrefixes = new Set<string>();
  #depth = 0;
  /** Depth of the open entry element (`url`, `sitemap`, `item`, `entry`), 0 when outside one. */
  #entryDepth = 0;
  #field: 'loc' | 'lastmod' | 'published' | undefined;
  #text = '';
  #loc = '';
  #lastmod = '';
  /** Atom's `published`: the entry's lastmod only when it has no `updated`. */
  #published = '';
  /** Tags, texts and CDATA sections saxes has finished so far. */
  #finished = 0;
  /** Characters handed to saxes since it last finished one (see MAX_PENDING_CHARACTERS). */
  #pending = 0;

  /** Where the file was read from: the base of a relative `xml:base`. */
  readonly documentUrl: string | undefined;
  /** Decodes the pieces given as bytes, a character split between two of them included. */
  #decoder: TextDecoder | undefined;

  /** @param documentUrl where the file was read from (an absolute URL): the base of a relative `xml:base`. */
  constructor(documentUrl?: string) {
    if (documentUrl !== undefined && (typeof documentUrl !== 'string' || !URL.canParse(documentUrl))) {
      throw new TypeError(
        `SitemapParser takes the absolute URL the file was read from, or nothing, got ${show(documentUrl)}.`,
      );
    }
    this.documentUrl = documentUrl;
  }

  /** Feeds the next piece of the file: decoded text, or bytes read as UTF-8 (from a file, say). */
  write(piece: string | Uint8Array): void {
    let text: string;
    if (typeof piece === 'string') {
      // Text after bytes: an incomplete character the bytes ended with comes first, as U+FFFD.
      text = this.#decoder === undefined ? piece : this.#decoder.decode() + piece;
    } else if (piece instanceof Uint8Array) {
      this.#decoder ??= new TextDecoder();
      text = this.#decoder.decode(piece, { stream: true });
    } else {
      throw new TypeError(`SitemapParser.write() takes a string or a Uint8Array, got ${show(piece)}.`);
    }
    this.#writeDecoded(text);
  }

  #writeDecoded(text: string): void {
    if (this.#mode === 'stopped' || text.length === 0) return;
    if (this.#mode === 'sniff') {
      // Blanks before the content are dropped, so only the new text is searched and none is kept.
      const start = text.search(/\S/);
      if (start === -1) return;
      text = text.slice(start);
      if (text[0] === '<') this.#startXml();
      else this.#mode = 'text';
    }
    if (this.#mode === 'xml') this.#writeXml(text);
    else this.#writeText(text);
  }

  /** Ends the input: the last line of a text file, the end-of-document checks of XML. */
  end(): void {
    // An incomplete character at the end of the bytes becomes U+FFFD.
    if (this.#decoder !== undefined) this.#writeDecoded(this.#decoder.decode());
    if (this.#mode === 'text') {
      this.#textLine(this.#line, this.#lineTooLong);
      this.#line = '';
      this.#lineTooLong = false;
      if (this.#firstLine) {
        // Comments and no URL: no sitemap.
        const first = this.#leadingComments[0] ?? '';
        this.#stop(
          `Not a sitemap: neither XML nor a list of URLs (starts with ${JSON.stringify(first.slice(0, 40))}).`,
        );
      }
    } else if (this.#mode === 'xml' && this.#sax !== undefined) {
      this.#feedXml(this.#prefilter.flush());
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
    this.#sax = undefined; // and what it was holding
  }

  // ------------------------------------------------------------------ text sitemaps

  #writeText(text: string): void {
    let start = 0;
    // The next CR and LF are searched for again only once passed: a file with only one kind of
    // line end would otherwise have the rest of the text searched for the other at every line.
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    for (;;) {
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
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
    let line = trimXmlSpace(raw);
    if (line === '') return;
    if (line.length > MAX_LOC_LENGTH) {
      line = line.slice(0, MAX_LOC_LENGTH);
      tooLong = true;
    }
    if (this.#firstLine) {
      // Comment lines before the first URL (`# generated by ...`) are kept, to be filtered as
      // `invalid` as later ones are, once a URL says this is a sitemap.
      if (line.startsWith('#') && this.#leadingComments.length < MAX_LEADING_COMMENTS) {
        this.#leadingComments.push(line);
        return;
      }
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
      for (const comment of this.#leadingComments) this.#entries.push({ kind: 'url', loc: comment });
      this.#leadingComments = [];
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
    sax.on('opentag', (tag) => {
      this.#finished++;
      this.#open(tag);
    });
    sax.on('closetag', () => {
      this.#finished++;
      this.#close();
    });
    sax.on('text', (text) => {
      this.#finished++;
      this.#appendText(text);
    });
    sax.on('cdata', (text) => {
      this.#finished++;
      this.#appendText(text);
    });
    // Ignored, but each ends a piece of the file all the same: a run of many short comments is
    // no one long one.
    sax.on('comment', () => {
      this.#finished++;
    });
    sax.on('processinginstruction', () => {
      this.#finished++;
    });
    this.#sax = sax;
  }

  #writeXml(text: string): void {
    this.#feedXml(this.#prefilter.push(text));
  }

  #feedXml(text: string): void {
    // The DOCTYPE is refused before saxes reads it: saxes would buffer a whole internal subset.
    const doctype = this.#prefilter.doctype;
    if (doctype !== undefined) {
      // A web page where a sitemap was expected: often a soft 404 (an app answering any path).
      this.#stop(
        doctype.toLowerCase() === 'html'
          ? 'Not a sitemap: an HTML page.'
          : 'Refused: the file has a DOCTYPE (sitemaps never need one).',
      );
    }
    if (text.length === 0 || this.#mode !== 'xml') return;
    const finished = this.#finished;
    this.#sax!.write(text);
    // Counted by chunk: a chunk in which saxes finished something resets the count.
    this.#pending = this.#finished === finished ? this.#pending + text.length : 0;
    if (this.#pending > MAX_PENDING_CHARACTERS) {
      this.#stop(
        `Refused: more than ${MAX_PENDING_CHARACTERS / 2 ** 20} Mi characters in one tag, text or comment (no sitemap holds one so long).`,
      );
    }
  }

  /** The local name of an element this parser reads, or undefined for a foreign (extension) element. */
  #ownName(name: string): string | undefined {
    const colon = name.indexOf(':');
    if (colon === -1) return name;
    return this.#ownPrefixes.has(name.slice(0, colon)) ? name.slice(colon + 1) : undefined;
  }

  /**
   * The name of an element whose prefix it binds itself to a namespace of this parser
   * (`<s:url xmlns:s="http://www.sitemaps.org/...">`), or undefined. The prefix then stays bound
   * for the rest of the file, not only inside the element: no sitemap binds one prefix twice.
   */
  #bindingOwnPrefix(tag: SaxesTagPlain): string | undefined {
    const colon = tag.name.indexOf(':');
    const prefix = tag.name.slice(0, colon);
    const namespace = tag.attributes[`xmlns:${prefix}`];
    if (typeof namespace !== 'string' || !OWN_NAMESPACES.test(namespace)) return undefined;
    this.#ownPrefixes.add(prefix);
    return tag.name.slice(colon + 1);
  }

  #open(tag: SaxesTagPlain): void {
    if (this.#mode !== 'xml') return;
    const depth = ++this.#depth;
    if (depth > MAX_XML_DEPTH) {
      this.#stop(`Refused: elements nested more than ${MAX_XML_DEPTH} deep (no sitemap nests so deep).`);
      return;
    }
    const xmlBase = tag.attributes['xml:base'];
    if (typeof xmlBase === 'string') this.#setBase(xmlBase, depth);
    if (depth === 1) {
      for (const [attribute, value] of Object.entries(tag.attributes)) {
        if (attribute.startsWith('xmlns:') && OWN_NAMESPACES.test(value))
          this.#ownPrefixes.add(attribute.slice(6));
      }
      this.#root(tag.name);
      return;
    }
    const name = this.#ownName(tag.name) ?? this.#bindingOwnPrefix(tag);
    if (name === undefined) return;
    if (this.#entryDepth === 0) {
      if (this.#isMisplacedEntry(name, depth)) this.misplacedEntries++;
      else if (this.#isEntry(name, depth)) {
        this.#entryDepth = depth;
        this.#loc = '';
        this.#locBase = undefined;
        this.#lastmod = '';
        this.#published = '';
      } else if (name === this.#entryName()) this.strayEntries++;
      else if (name === 'loc' && depth === 2 && (this.format === 'urlset' || this.format === 'sitemapindex'))
        this.strayLocations++;
      else {
        const meant = this.#miscased(name);
        if (meant !== undefined && this.#isEntry(meant, depth)) this.#countMiscased(meant, name);
      }
      return;
    }
    if (name === this.#entryName()) this.strayEntries++;
    if (depth !== this.#entryDepth + 1) return;
    if (this.#readField(name, tag)) return;
    const meant = this.#miscased(name);
    if (meant !== undefined && meant !== this.#entryName()) this.#countMiscased(meant, name);
  }

  /** Reads a field of the open entry; false when the format reads no field of this name. */
  #readField(name: string, tag: SaxesTagPlain): boolean {
    switch (this.format) {
      case 'urlset':
      case 'sitemapindex':
        if (name === 'loc') this.#capture('loc');
        else if (name === 'lastmod') this.#capture('lastmod');
        else return false;
        return true;
      case 'rss':
        if (name === 'link') this.#capture('loc');
        else if (name === 'pubDate') this.#capture('lastmod');
        else return false;
        return true;
      case 'atom':
        if (name === 'link') {
          if (this.#loc !== '') return true;
          // Atom 4.2.7.2: a link without `rel` is `alternate`, the entry's own page.
          const rel = trimXmlSpace(tag.attributes['rel'] ?? 'alternate');
          const href = tag.attributes['href'];
          // A relation name is the IANA address it stands for (RFC 4287 4.2.7.2).
          if ((rel === 'alternate' || rel === IANA_ALTERNATE) && typeof href === 'string') {
            this.#loc = trimXmlSpace(href);
            this.#locBase = this.#bases.at(-1)?.base;
          }
        } else if (name === 'updated') {
          this.#capture('lastmod');
        } else if (name === 'published') {
          this.#capture('published');
        } else return false;
        return true;
      default:
        return false;
    }
  }

  /** The name the format reads that `name` spells in another case (`url` for `Url`), or undefined. */
  #miscased(name: string): string | undefined {
    const meant = READ_NAMES[this.format]?.get(name.toLowerCase());
    return meant === name ? undefined : meant;
  }

  #countMiscased(meant: string, written: string): void {
    const seen = this.miscasedElements.get(meant);
    if (seen === undefined) this.miscasedElements.set(meant, { count: 1, written, otherSpellings: false });
    else {
      seen.count++;
      if (written !== seen.written) seen.otherSpellings = true;
    }
  }

  #root(name: string): void {
    const local = name.slice(name.indexOf(':') + 1);
    const format = ROOT_FORMATS.get(local);
    if (format !== undefined) {
      this.format = format;
      return;
    }
    const lower = local.toLowerCase();
    const meant = ROOT_NAMES.get(lower);
    this.#stop(
      lower === 'html'
        ? 'Not a sitemap: an HTML page.'
        : meant !== undefined
          ? `Not a sitemap: the root element is <${name}>, which is not <${meant}>: XML names are case-sensitive.`
          : `Not a sitemap: the root element is <${name}>.`,
    );
  }

  /** The name of the entry element of the format: what a stray one would be called. */
  #entryName(): string | undefined {
    switch (this.format) {
      case 'urlset':
        return 'url';
      case 'sitemapindex':
        return 'sitemap';
      case 'rss':
        return 'item';
      case 'atom':
        return 'entry';
      default:
        return undefined;
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

  /** XML Base 4.2: a base is resolved against the base in effect outside its element. */
  #setBase(value: string, depth: number): void {
    const outer = this.#bases.at(-1)?.base ?? this.documentUrl;
    let base: string;
    try {
      base = new URL(value.trim(), outer).href;
    } catch {
      // A base that names no URL (or a relative one with nothing to resolve it against) is ignored.
      return;
    }
    this.#bases.push({ depth, base });
  }

  #isMisplacedEntry(name: string, depth: number): boolean {
    if (depth !== 2) return false;
    return this.format === 'urlset' ? name === 'sitemap' : this.format === 'sitemapindex' && name === 'url';
  }

  #capture(field: 'loc' | 'lastmod' | 'published'): void {
    if (field === 'loc') this.#locBase = this.#bases.at(-1)?.base;
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
    if (depth === 1) this.#rootClosed = true;
    if (this.#bases.at(-1)?.depth === depth) this.#bases.pop();
    if (this.#entryDepth === 0) return;
    if (depth === this.#entryDepth + 1 && this.#field !== undefined) {
      const value = trimXmlSpace(this.#text);
      if (this.#field === 'loc') {
        if (this.#loc === '') this.#loc = value;
        else if (value !== '' && value !== this.#loc) this.strayLocations++;
      } else if (this.#field === 'lastmod') {
        if (this.#lastmod === '') this.#lastmod = value;
      } else if (this.#published === '') {
        this.#published = value;
      }
      this.#field = undefined;
      this.#text = '';
      return;
    }
    if (depth === this.#entryDepth) {
      this.#entryDepth = 0;
      // An entry without a location (an empty `<url>`, an RSS item with a `<guid>` alone) is handed
      // on all the same, with an empty `loc`: the seeder counts it as invalid, rather than lose it unsaid.
      const entry: SitemapEntry = {
        kind: this.format === 'sitemapindex' ? 'sitemap' : 'url',
        loc: this.#loc,
      };
      if (this.#loc.length > MAX_LOC_LENGTH) {
        entry.loc = this.#loc.slice(0, MAX_LOC_LENGTH);
        entry.tooLong = true;
      }
      const lastmod = this.#lastmod || this.#published;
      if (lastmod !== '') entry.lastmod = lastmod;
      if (this.#locBase !== undefined) entry.base = this.#locBase;
      this.#entries.push(entry);
    }
  }
}

/** `alternate` written as the IANA address RFC 4287 4.2.7.2 makes it equal to. */
const IANA_ALTERNATE = 'http://www.iana.org/assignments/relation/alternate';

/**
 * `text` without the XML white space at its ends (space, tab, CR, LF: XML 1.0 rule S), the only
 * characters a location may be padded with. `trim()` would also cut U+00A0 or U+3000, which
 * belong to the URL (`/a%C2%A0` is not `/a`).
 */
function trimXmlSpace(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && isXmlSpace(text.charCodeAt(from))) from++;
  while (to > from && isXmlSpace(text.charCodeAt(to - 1))) to--;
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

function isXmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}
