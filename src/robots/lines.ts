/**
 * The robots.txt tokenizer: one pass over the file that turns every line into an event
 * for a handler. The compiler (rules for matching) and the linter (findings for site
 * owners) are two handlers of the same pass, as in Google's parser; neither re-reads the
 * text.
 */

import { isUtf8 } from 'node:buffer';
import { HEX } from './encoding.js';
import { patternCopyMemory } from './pattern-copy.js';

/** The directives this project understands. */
export type DirectiveKey =
  | 'user-agent'
  | 'allow'
  | 'disallow'
  | 'sitemap'
  | 'crawl-delay'
  | 'noindex'
  /** A known directive of another crawler (`host`, `clean-param`, `request-rate`, ...). */
  | 'unsupported'
  | 'unknown';

/** One `key: value` line. */
export interface Directive {
  line: number;
  key: DirectiveKey;
  /**
   * The text of the file: the key is `source[keyStart, keyEnd)`, the value (trimmed, without
   * its comment) `source[valueStart, valueEnd)`; see keyTextOf and valueTextOf. Handlers read
   * them in place and copy only what they keep.
   */
  source: string;
  /**
   * The code units of `source`, `units[i] === source.charCodeAt(i)` for every position of it:
   * what a loop over characters reads (see codeUnitsOf). Valid during the call only.
   */
  units: Uint16Array;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
  /**
   * Set when the key is one of the misspellings Google accepts (`useragent`, `dissallow`, ...),
   * `crawldelay`, or a longer word read by its prefix (`Disallowed`).
   */
  typo: boolean;
  /**
   * Set when the key and value were separated by blanks instead of a colon, or when the colon
   * after a directive word is missing and the line was split at a colon of its value instead
   * (`Disallow /a:b` is `Disallow: b`, as Google reads it): then the key is the word alone and
   * the text between keyEnd and valueStart holds that colon.
   */
  missingColon: boolean;
  /**
   * The first line since the directive before this one that holds nothing but blanks, 0 for
   * none (comment lines are not blank); `blankLineEmpty` is set when that line is empty.
   */
  blankLine: number;
  blankLineEmpty: boolean;
}

/** The key of a directive as written, e.g. `Dissallow`. */
export function keyTextOf(d: Directive): string {
  return d.source.slice(d.keyStart, d.keyEnd);
}

/** The value of a directive. */
export function valueTextOf(d: Directive): string {
  return d.valueStart === d.valueEnd ? '' : d.source.slice(d.valueStart, d.valueEnd);
}

/** What the tokenizer saw of the file as a whole, reported once at the end. */
export interface FileSummary {
  /** Number of lines read. */
  lines: number;
  /** Set when the file was cut at the size limit: the first line that was ignored. */
  truncatedAtLine?: number;
  /**
   * Set when the text ends inside its last line, which goes on past it (see TokenizeOptions.cut):
   * that line is longer than was read.
   */
  lastLineCut?: boolean;
  /** Set when the bytes were not valid UTF-8: the first line with an invalid sequence. */
  invalidUtf8Line?: number;
  /** Set when the body is an HTML page; no directives were emitted. */
  looksLikeHtml: boolean;
}

/** Receives the events of one pass over a file. */
export interface RobotsLineHandler {
  directive(d: Directive): void;
  /** A line with content that is not `key: value` (comments and blank lines are not reported). */
  unparsable(line: number, text: string): void;
  /** A line cut at the line length limit. */
  lineTooLong(line: number, octets: number): void;
  end(summary: FileSummary): void;
}

/** Options of a pass; see RobotsParseOptions for their meaning. */
export interface TokenizeOptions {
  maxBytes: number;
  rejectHtml: boolean;
  /**
   * Set for bytes that are the start of a longer file, cut where their transfer stopped (a fetch
   * reads `maxBytes` and the line in progress, up to the line length cap): content past them is
   * ignored, and so is a last line cut short of the cap. Not read for a string.
   */
  cut?: boolean;
}

/**
 * Google's parser keeps 2083 * 8 octets of a line, its buffer including a terminator, so
 * a line keeps its first 16,663 octets and the rest is ignored.
 */
export const MAX_LINE_OCTETS = 2083 * 8 - 1;

/** RFC 9309 2.5: crawlers must parse at least 500 kibibytes. */
export const DEFAULT_MAX_BYTES = 500 * 1024;

/**
 * A web page: its first tag, after any comments and XML declaration, is one only HTML starts
 * with (an error page may begin with its `<title>` or a `<meta>`, with no `<html>` at all).
 */
const HTML_START =
  /^[\s\uFEFF]*(?:<!--[\s\S]*?-->\s*|<\?xml[^>]*>\s*)*<(?:!doctype\s+html|html|head|body|title|meta|script|style|link)[\s/>]/i;

const UTF8_BOM = [0xef, 0xbb, 0xbf];
/**
 * Bytes over this many octets are decoded in pieces of about as many, each ending after a line
 * feed: one string of a 486 KiB file is a V8 large object, and the file parsed from bytes in
 * 5.9 ms that way, 4.4 ms in pieces (it parses in 4.4 ms from a string too). A line longer than a
 * piece is decoded whole, as a piece of its own.
 */
const PIECE_OCTETS = 64 * 1024;
// `ignoreBOM`: the decoders keep every U+FEFF. The file's own mark is skipped before decoding;
// one more (a second mark, or one that starts a piece of a large file) is text of its line, which
// then names no directive, as in a string body.
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** Runs one pass over `body`, calling `handler` for every line. Never throws on content. */
export function tokenize(
  body: string | Uint8Array,
  options: TokenizeOptions,
  handler: RobotsLineHandler,
): void {
  /** The text, in pieces that each end with a line end but the last (see PIECE_OCTETS). */
  let pieces: string[];
  /** The bytes read, kept to find the first invalid sequence after the pass. */
  let invalidUtf8: Uint8Array | undefined;
  /**
   * Set for bytes that are not valid UTF-8: the lines over the length cap, measured and cut in
   * octets before decoding (each invalid octet becomes a three-octet U+FFFD in the text).
   */
  let longLines: LongLine[] | undefined;
  /** Set when content past the size limit was dropped (not when only line ends were). */
  let truncated = false;
  /**
   * For bytes cut in transfer (`options.cut`): set when they end inside a line, without its line
   * end (see FileSummary.lastLineCut).
   */
  let endsInLine = false;

  if (typeof body === 'string') {
    let text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
    // A JS string of n units is at most 3n UTF-8 octets; count only when it can matter.
    // Measured, not encoded: a buffer of the cap, fresh memory, cost a 486 KiB file a millisecond.
    if (text.length * 3 > options.maxBytes && Buffer.byteLength(text) > options.maxBytes) {
      // From the character holding the last octet kept, as bytes are cut: when it ends its
      // line, the next line starts past the limit.
      const cut = cutAtLineEnd(text, unitsWithinOctets(text, 0, text.length, options.maxBytes - 1));
      truncated = hasContentFrom(text, cut);
      text = text.slice(0, cut);
    }
    pieces = [text];
  } else {
    // Google skips a byte order mark, and even the first octets of one.
    let bom = 0;
    while (bom < 3 && body[bom] === UTF8_BOM[bom]) bom++;
    let bytes = body.subarray(bom);
    if (bytes.length > options.maxBytes) {
      const cut = cutBytesAtLineEnd(bytes, options.maxBytes - 1);
      truncated = hasContentBytesFrom(bytes, cut);
      endsInLine = options.cut === true && cut === bytes.length;
      bytes = bytes.subarray(0, cut);
    } else if (options.cut === true) {
      endsInLine = bytes.length > 0 && !isLineEnd(bytes[bytes.length - 1]);
    }
    if (options.cut === true) {
      truncated = true;
      if (endsInLine) {
        const lineStart = Math.max(bytes.lastIndexOf(0x0a), bytes.lastIndexOf(0x0d)) + 1;
        if (bytes.length - lineStart < MAX_LINE_OCTETS) {
          // A line cut short of the length cap (a client that read less than a fetch does) may be
          // half a rule, `Allow: /a` of `Allow: /abc`: it is not read.
          bytes = bytes.subarray(0, lineStart);
          endsInLine = false;
        } else {
          // A transfer cut inside a character leaves its first octets, which are no invalid UTF-8.
          bytes = bytes.subarray(0, completeUtf8End(bytes));
        }
      }
    }
    const valid = bytes.length > PIECE_OCTETS ? validPieces(bytes) : validText(bytes);
    if (valid !== undefined) pieces = valid;
    else {
      invalidUtf8 = bytes;
      longLines = [];
      pieces = [utf8Lenient.decode(cutLongLines(bytes, longLines))];
    }
  }

  const summary: FileSummary = { lines: 0, looksLikeHtml: false };
  // The first piece holds the first 512 characters, unless a line longer than a piece follows
  // a short start.
  const head = pieces[0].length >= 512 || pieces.length === 1 ? pieces[0] : pieces.join('');
  if (options.rejectHtml && HTML_START.test(head.slice(0, 512))) {
    summary.looksLikeHtml = true;
    summary.lines = countLines(pieces.length === 1 ? pieces[0] : pieces.join(''));
    handler.end(summary);
    return;
  }

  // One directive object, refilled for every line: handlers read it, never keep it.
  const directive: Directive = {
    line: 0,
    key: 'unknown',
    source: pieces[0],
    units: EMPTY_UNITS,
    keyStart: 0,
    keyEnd: 0,
    valueStart: 0,
    valueEnd: 0,
    typo: false,
    missingColon: false,
    blankLine: 0,
    blankLineEmpty: false,
  };
  let line = 0;
  for (let k = 0; k < pieces.length; k++) {
    const text = pieces[k];
    directive.source = text;
    directive.units = codeUnitsOf(text);
    const colons = new NextOf(text, ':');
    // A piece before the last ends with its line end: no line starts after it in that piece.
    const last = k === pieces.length - 1;
    line = readLines(text, line, !last || truncated, directive, handler, colons, longLines);
  }
  summary.lines = line;
  // The text ends where it was cut, without its line end: the next line is the first ignored.
  if (truncated) summary.truncatedAtLine = line + 1;
  if (endsInLine) summary.lastLineCut = true;
  // Found after the pass, not in its loop: code only a few files reach would leave the
  // optimized loop on the first of them.
  if (invalidUtf8 !== undefined) summary.invalidUtf8Line = firstInvalidUtf8Line(invalidUtf8);
  handler.end(summary);
}

/**
 * The loop over the lines of `text`, numbered on from `linesBefore`, returning the number of
 * the last. `cut` is set when the text ends where it was cut (at the size limit, or at the end of
 * a piece): then a line end at its end starts no line. A function of its own: a long file gets
 * this loop optimized while it runs, and the code after it would then leave the optimized code
 * at the end of every parse.
 */
function readLines(
  text: string,
  linesBefore: number,
  cut: boolean,
  directive: Directive,
  handler: RobotsLineHandler,
  colons: NextOf,
  longLines: LongLine[] | undefined,
): number {
  const n = text.length;
  const units = directive.units;
  let nextLong = 0;
  // The next LF, CR and `#` at or after `start` (n for none), each searched again only once passed:
  // a search per line would be quadratic where one of them is rare. `#` is looked for only from a
  // line with content, where a comment may start.
  let lf = -1;
  let cr = -1;
  let hash = -1;
  let line = linesBefore;
  let start = 0;
  for (;;) {
    if (lf < start) lf = nextOrEnd(text, '\n', start);
    if (cr < start) cr = nextOrEnd(text, '\r', start);
    // CR, LF and CRLF each end a line (RFC 9309 2.2; Google counts CRLF once).
    const end = Math.min(lf, cr);
    line++;
    if (longLines !== undefined && nextLong < longLines.length && longLines[nextLong].line === line) {
      handler.lineTooLong(line, longLines[nextLong++].octets);
    }
    if (end > start) {
      // Only a line with more units than the cap / 3 can exceed the cap in octets; lines of
      // invalid UTF-8 were measured and cut before decoding.
      const kept =
        longLines === undefined && (end - start) * 3 > MAX_LINE_OCTETS
          ? keptOfLongLine(text, start, end, line, handler)
          : undefined;
      if (kept === undefined) {
        if (hash < start) hash = nextOrEnd(text, '#', start);
        parseLine(text, start, end, hash, line, directive, handler, colons);
      } else parseKeptLine(kept, line, directive, handler);
    } else if (directive.blankLine === 0) {
      directive.blankLine = line;
      directive.blankLineEmpty = true;
    }
    if (end >= n) return line;
    // Both characters are read on every line but the last (see isBlank): a file of CRLF
    // line ends after files of LF alone would otherwise meet a test without feedback. Never
    // past the end: a read there would slow down every read of the optimized loop.
    const carriageReturn = units[end] === 13 ? 1 : 0;
    const lineFeed = end + 1 < n && units[end + 1] === 10 ? 1 : 0;
    start = end + 1 + (carriageReturn & lineFeed);
    // A file that ends with a line end has no line after it, except Google's empty last
    // line, which matters to nobody; a cut file or piece must not count one either.
    if (start >= n && cut) return line;
  }
}

/**
 * What is read of `text[from, to)`, a line that may be over the cap in octets, when it is: its
 * first MAX_LINE_OCTETS octets, as Google's parser keeps them. When the cap falls inside a
 * character, the octets of it that fit are kept as escapes (`%E2`), and they match what that
 * octet starts. Undefined for a line within the cap.
 */
function keptOfLongLine(
  text: string,
  from: number,
  to: number,
  line: number,
  handler: RobotsLineHandler,
): string | undefined {
  const octets = Buffer.byteLength(text.slice(from, to));
  if (octets <= MAX_LINE_OCTETS) return undefined;
  handler.lineTooLong(line, octets);
  const units = unitsWithinOctets(text, from, to, MAX_LINE_OCTETS);
  const kept = text.slice(from, from + units);
  const room = MAX_LINE_OCTETS - Buffer.byteLength(kept);
  return room > 0 ? kept + escapeOctets(Buffer.from(text.slice(from + units, from + units + 2)), room) : kept;
}

/** Reads `kept`, what is read of a line cut at the cap, as the line numbered `line`. */
function parseKeptLine(kept: string, line: number, d: Directive, handler: RobotsLineHandler): void {
  const { source, units } = d;
  d.source = kept;
  d.units = freshCodeUnitsOf(kept);
  parseLine(kept, 0, kept.length, nextOrEnd(kept, '#', 0), line, d, handler, new NextOf(kept, ':'));
  d.source = source;
  d.units = units;
}

/** The first `count` octets of `bytes` as `%XX` escapes. */
function escapeOctets(bytes: Uint8Array, count: number): string {
  let escapes = '';
  for (let i = 0; i < count; i++) escapes += `%${HEX[bytes[i] >> 4]}${HEX[bytes[i] & 15]}`;
  return escapes;
}

/** `bytes` decoded as one piece, or undefined when they are not valid UTF-8. */
function validText(bytes: Uint8Array): string[] | undefined {
  try {
    return [utf8Strict.decode(bytes)];
  } catch {
    return undefined;
  }
}

/**
 * `bytes` decoded in pieces of PIECE_OCTETS or so, each but the last ending right after a line
 * feed (which no multi-octet sequence holds); undefined when they are not valid UTF-8.
 */
function validPieces(bytes: Uint8Array): string[] | undefined {
  if (!isUtf8(bytes)) return undefined;
  const pieces: string[] = [];
  let from = 0;
  do {
    let to = bytes.length;
    if (from + PIECE_OCTETS < bytes.length) {
      const lineFeed = bytes.lastIndexOf(0x0a, from + PIECE_OCTETS - 1);
      const next = lineFeed >= from ? lineFeed : bytes.indexOf(0x0a, from + PIECE_OCTETS);
      if (next >= 0) to = next + 1;
    }
    pieces.push(utf8Lenient.decode(bytes.subarray(from, to)));
    from = to;
  } while (from < bytes.length);
  return pieces;
}

/**
 * The line (from 1) of the first invalid UTF-8 sequence in `bytes`, which the strict decoder
 * rejected: lines are checked one by one, each line with a non-ASCII octet decoded strictly.
 * A line end (CR, LF, CRLF) is never part of a multi-octet sequence, so one that cuts a
 * sequence leaves it invalid in its line. The decoded text cannot say where: a U+FFFD in it
 * may have been written in the file.
 */
function firstInvalidUtf8Line(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  let ascii = true;
  for (let i = 0; i <= bytes.length; i++) {
    const c = i < bytes.length ? bytes[i] : 0x0a;
    if (c !== 0x0a && c !== 0x0d) {
      if (c >= 0x80) ascii = false;
      continue;
    }
    if (!ascii) {
      try {
        utf8Strict.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
    }
    if (c === 0x0d && bytes[i + 1] === 0x0a) i++;
    start = i + 1;
    ascii = true;
    line++;
  }
  return 1;
}

/** A line over the length cap: its number and its length in octets. */
interface LongLine {
  line: number;
  octets: number;
}

/**
 * `bytes` with every line cut at MAX_LINE_OCTETS octets, as Google's parser reads them (the
 * octets kept of a character the cut splits become escapes); the lines cut go to `longLines`,
 * in order. The same bytes when no line is that long.
 */
function cutLongLines(bytes: Uint8Array, longLines: LongLine[]): Uint8Array {
  const kept: Uint8Array[] = [];
  let line = 1;
  let start = 0;
  let copiedTo = 0;
  // The next LF and CR, found by the engine's search and searched again only once passed.
  let lf = bytes.indexOf(0x0a);
  let cr = bytes.indexOf(0x0d);
  for (;;) {
    if (lf !== -1 && lf < start) lf = bytes.indexOf(0x0a, start);
    if (cr !== -1 && cr < start) cr = bytes.indexOf(0x0d, start);
    const end = lf === -1 ? (cr === -1 ? bytes.length : cr) : cr === -1 ? lf : Math.min(lf, cr);
    if (end - start > MAX_LINE_OCTETS) {
      longLines.push({ line, octets: end - start });
      const cap = start + MAX_LINE_OCTETS;
      const split = startOfSplitCharacter(bytes, cap);
      kept.push(bytes.subarray(copiedTo, split));
      if (split < cap)
        kept.push(Buffer.from(escapeOctets(bytes.subarray(split, cap), cap - split), 'latin1'));
      copiedTo = end;
    }
    if (end === bytes.length) break;
    start = end + (bytes[end] === 0x0d && bytes[end + 1] === 0x0a ? 2 : 1);
    line++;
  }
  if (kept.length === 0) return bytes;
  kept.push(bytes.subarray(copiedTo));
  return Buffer.concat(kept);
}

/**
 * Where the character that `cap` cuts in two starts in `bytes`, or `cap` when it cuts none:
 * the octets kept of that character are escaped (see keptOfLongLine).
 */
function startOfSplitCharacter(bytes: Uint8Array, cap: number): number {
  for (let back = 1; back <= 3; back++) {
    const octet = bytes[cap - back];
    if ((octet & 0xc0) === 0x80) continue;
    // Not the first octet of a character (ASCII, or one never valid): no character is split.
    if (octet < 0xc2 || octet > 0xf4) return cap;
    const size = octet >= 0xf0 ? 4 : octet >= 0xe0 ? 3 : 2;
    return size > back ? cap - back : cap;
  }
  return cap;
}

/**
 * How many units of `text[from, to)` fit in `maxOctets` octets of UTF-8, never half a
 * character: what `TextEncoder.encodeInto` reads into a buffer of that size (a lone surrogate
 * is U+FFFD, three octets).
 */
function unitsWithinOctets(text: string, from: number, to: number, maxOctets: number): number {
  let octets = 0;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    let units = 1;
    let size = 3;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if ((c & 0xfc00) === 0xd800 && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      size = 4;
      units = 2;
    }
    if (octets + size > maxOctets) break;
    octets += size;
    i += units;
  }
  return i - from;
}

/** Whether `text` has anything but blanks and line ends from `from` on. */
function hasContentFrom(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13 && !isBlankAt(text, i)) return true;
  }
  return false;
}

/** Whether `bytes` has anything but blanks and line ends from `from` on. */
function hasContentBytesFrom(bytes: Uint8Array, from: number): boolean {
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i];
    if (c !== 10 && c !== 13 && (c >= 128 || BLANK[c] === 0)) return true;
  }
  return false;
}

function countLines(text: string): number {
  return text.split(/\r\n|\r|\n/).length;
}

/** The first line end at or after `from`, or the length of `text`: where a file over the limit is cut. */
function cutAtLineEnd(text: string, from: number): number {
  const lf = text.indexOf('\n', from);
  const cr = text.indexOf('\r', from);
  const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
  return end < 0 ? text.length : end;
}

/**
 * The end of the last whole UTF-8 character of `bytes`: its length, less the first octets of a
 * multi-octet character that `bytes` cut short (at most 3).
 */
function completeUtf8End(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const octet = bytes[n - back];
    if ((octet & 0xc0) === 0x80) continue; // a continuation octet: the start is further back
    // The first octet of a character: how many octets it announces.
    const length = octet >= 0xf0 ? 4 : octet >= 0xe0 ? 3 : octet >= 0xc0 ? 2 : 1;
    return length > back ? n - back : n;
  }
  return n;
}

/** CR or LF: a code unit or an octet that ends a line. */
function isLineEnd(c: number): boolean {
  return c === 0x0a || c === 0x0d;
}

function cutBytesAtLineEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) {
    if (isLineEnd(bytes[i])) return i;
  }
  return bytes.length;
}

/** The first `ch` in `text` from `from` on, or the length of `text`. */
function nextOrEnd(text: string, ch: string, from: number): number {
  const found = text.indexOf(ch, from);
  return found < 0 ? text.length : found;
}

/**
 * The next position of a character at or after a point, remembered so that a file is
 * searched once per character in all (a search per line would be quadratic when the
 * character is rare).
 */
class NextOf {
  private at = -1;
  constructor(
    private readonly text: string,
    private readonly ch: string,
  ) {}
  /** The first position of the character at or after `position`, or the text's length. */
  from(position: number): number {
    if (this.at < position) this.at = nextOrEnd(this.text, this.ch, position);
    return this.at;
  }
}

/**
 * The code units of the text a pass reads, copied by the runtime (0.15 us for a 2.8 KB file,
 * against 5.5 us for one `charCodeAt` loop over it): an optimized loop reads a typed array
 * about three times faster than it calls `charCodeAt`. One buffer serves every pass, grown to
 * the largest text read, so that a parse allocates none: a buffer of a megabyte for each parse
 * of a 486 KiB file set off collections that made one parse in three twice as slow. A text over
 * the default size cap (a larger `maxBytes`) gets one of its own, so that the process keeps at
 * most a megabyte for it. Where the pattern copy runs (see pattern-copy.ts), the shared buffer
 * is in its memory, where the module reads the patterns.
 */
const SHARED_UNITS = DEFAULT_MAX_BYTES;
const EMPTY_UNITS = new Uint16Array(0);
/** The units are written little-endian, which a Uint16Array reads only on a little-endian machine. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** A buffer of code units and the same memory as octets, to write them. */
interface UnitBuffer {
  octets: Buffer;
  units: Uint16Array;
}

/** Room for `length` units, in memory of its own (not the pool: offset 0, aligned). */
function unitBuffer(length: number): UnitBuffer {
  const octets = Buffer.allocUnsafeSlow(length * 2);
  return { octets, units: new Uint16Array(octets.buffer, 0, length) };
}

let shared = unitBuffer(4 * 1024);
/** The buffer in the memory of the pattern copy, null where it does not run (see pattern-copy.ts). */
const copyUnits: UnitBuffer | null = sharedCopyUnits();

function sharedCopyUnits(): UnitBuffer | null {
  const memory = patternCopyMemory();
  return memory === null || memory.unitLimit < SHARED_UNITS
    ? null
    : { octets: memory.unitOctets, units: memory.units };
}

/** The code units of `text`, in the shared buffer (see SHARED_UNITS): valid until the next call. */
function codeUnitsOf(text: string): Uint16Array {
  if (text.length > SHARED_UNITS) return freshCodeUnitsOf(text);
  if (copyUnits !== null) return writeUnits(text, copyUnits);
  if (text.length > shared.units.length) {
    shared = unitBuffer(Math.min(SHARED_UNITS, Math.max(text.length, shared.units.length * 2)));
  }
  return writeUnits(text, shared);
}

/** The code units of `text` in a buffer of their own. */
function freshCodeUnitsOf(text: string): Uint16Array {
  return writeUnits(text, unitBuffer(text.length));
}

function writeUnits(text: string, into: UnitBuffer): Uint16Array {
  if (LITTLE_ENDIAN) into.octets.write(text, 0, text.length * 2, 'utf16le');
  else for (let i = 0; i < text.length; i++) into.units[i] = text.charCodeAt(i);
  return into.units;
}

/** Space, tab, vertical tab and form feed. */
const BLANK = new Uint8Array(128);
for (const c of [32, 9, 11, 12]) BLANK[c] = 1;

function isBlankAt(text: string, i: number): boolean {
  return isBlank(text.charCodeAt(i));
}

function isBlank(c: number): boolean {
  // A table rather than tests of each blank: every file runs the same operations, so the
  // optimized code of a pass has feedback for them before the first tab (code that no file
  // has run yet sends the whole pass back to the interpreter when a file first reaches it).
  return c < 128 && BLANK[c] !== 0;
}

/** Space or tab: what may stand in for a missing colon. */
function isSpaceOrTab(c: number): boolean {
  return c === 32 || c === 9;
}

/**
 * Reads `text[from, to)`, one line, into `d` and hands it on. `hash` is the first `#` of the text
 * from `from` on (its length if none): where a comment starts, if before `to`; `colons` finds
 * the colons of the text, shared by the lines of one pass.
 */
function parseLine(
  text: string,
  from: number,
  to: number,
  hash: number,
  line: number,
  d: Directive,
  handler: RobotsLineHandler,
  colons: NextOf,
): void {
  const units = d.units;
  const comment = hash < to;
  if (comment) to = hash;
  while (from < to && isBlank(units[from])) from++;
  while (to > from && isBlank(units[to - 1])) to--;
  if (from === to) {
    if (!comment && d.blankLine === 0) {
      d.blankLine = line;
      d.blankLineEmpty = false;
    }
    return;
  }
  // Most lines start with a usual key spelled right and its colon: read in one pass over the
  // word, with no search for the colon and no second read of the key.
  const usualColon = colonAfterUsualKey(units, from, to);
  const colonAt = usualColon < 0 ? colons.from(from) : usualColon;

  let keyEnd: number;
  let valueStart: number;
  let missingColon = false;
  if (colonAt < to) {
    keyEnd = colonAt;
    valueStart = colonAt + 1;
  } else {
    // Google accepts spaces and tabs in place of a forgotten colon, but only between exactly
    // two words: `Disallow /private` is a rule, `this is prose` is not. A vertical tab or a
    // form feed is no separator there (`Disallow\v/a` is no rule), only part of a word.
    keyEnd = from;
    while (keyEnd < to && !isSpaceOrTab(units[keyEnd])) keyEnd++;
    valueStart = keyEnd;
    while (valueStart < to && isSpaceOrTab(units[valueStart])) valueStart++;
    let rest = valueStart;
    while (rest < to && !isSpaceOrTab(units[rest])) rest++;
    if (keyEnd === to || rest !== to) {
      handler.unparsable(line, text.slice(from, to));
      return;
    }
    missingColon = true;
  }
  while (keyEnd > from && isBlank(units[keyEnd - 1])) keyEnd--;
  while (valueStart < to && isBlank(units[valueStart])) valueStart++;
  if (keyEnd === from) {
    handler.unparsable(line, text.slice(from, to));
    return;
  }
  d.line = line;
  d.keyStart = from;
  d.keyEnd = keyEnd;
  d.valueStart = valueStart;
  d.valueEnd = to;
  d.missingColon = missingColon;
  const answer =
    usualColon >= 0
      ? USUAL_BY_LETTER[units[from] | 0x20]!.answer
      : (exactKeyAt(units, from, keyEnd) ?? classifyInto(d));
  d.key = answer.key;
  d.typo = answer.typo;
  handler.directive(d);
  d.blankLine = 0;
}

/**
 * The directive of a key that is not one of the usual keys spelled right: a typo, a key
 * recognised by its prefix, another crawler's directive or an unknown one. A function of its
 * own, apart from the lines of ordinary files.
 *
 * A known directive word followed by blanks and more text before the colon is a missing colon
 * whose value holds a colon itself (`Disallow /a:b`, `Sitemap https://...`): the line is split
 * at its first colon, as Google's parser does (`Disallow: b`), and the key of `d` is cut to
 * the word so that findings name it.
 *
 * An ASCII key is read in place, with no copy and nothing allocated: a file may have a line
 * like this on each of its 40,000 lines, and its first parse runs this code before the engine
 * optimizes it. Another key is lower-cased first.
 */
function classifyInto(d: Directive): KeyAnswer {
  const { units, keyStart, keyEnd } = d;
  if (!mayStartKey(units[keyStart])) return UNKNOWN_KEY;
  let ascii = true;
  for (let i = keyStart; i < keyEnd && ascii; i++) ascii = units[i] < 128;
  if (!ascii) return classifyText(d);
  const length = keyEnd - keyStart;
  for (const word of KEY_WORDS) {
    if (word.codes.length <= length && isLowerCaseWordAt(units, keyStart, word.codes))
      return startingWith(d, word);
  }
  for (const word of UNSUPPORTED_WORDS) {
    if (word.length === length && isLowerCaseWordAt(units, keyStart, word)) return UNSUPPORTED_KEY;
  }
  return UNKNOWN_KEY;
}

/**
 * classifyInto for a key with characters outside ASCII, read from its lower-cased text. Up to the
 * end of a word it starts with, the key holds characters whose lower case is one character (`İ`
 * lower-cases to two, the second of which no word holds; see NON_ASCII_LOWERING_TO_ASCII): the
 * word ends at the same place in the key as written.
 */
function classifyText(d: Directive): KeyAnswer {
  const lower = d.source.slice(d.keyStart, d.keyEnd).toLowerCase();
  for (const word of KEY_WORDS) if (lower.startsWith(word.text)) return startingWith(d, word);
  return UNSUPPORTED.has(lower) ? UNSUPPORTED_KEY : UNKNOWN_KEY;
}

/** What the key of `d` names, `word` being the first directive word or misspelling it starts with. */
function startingWith(d: Directive, word: KeyWord): KeyAnswer {
  const end = d.keyStart + word.codes.length;
  if (end >= d.keyEnd) return word.answer;
  if (isBlank(d.units[end])) {
    d.keyEnd = end;
    d.missingColon = true;
    return word.answer;
  }
  // A longer key (`Disallowed`) is read by its prefix as Google reads it, but RFC 9309
  // crawlers know only the word: the linter reports it like a misspelling.
  return word.longer;
}

/**
 * Google's parser recognises a key by its prefix, case-insensitively, and accepts a few
 * frequent misspellings; we do the same and let the linter report the misspelling.
 */
const KEYS: readonly { key: DirectiveKey; exact: string; typos: readonly string[] }[] = [
  { key: 'user-agent', exact: 'user-agent', typos: ['useragent', 'user agent'] },
  { key: 'allow', exact: 'allow', typos: [] },
  { key: 'disallow', exact: 'disallow', typos: ['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'] },
  { key: 'sitemap', exact: 'sitemap', typos: ['site-map'] },
  { key: 'crawl-delay', exact: 'crawl-delay', typos: ['crawldelay', 'crawl delay'] },
  { key: 'noindex', exact: 'noindex', typos: [] },
];

/**
 * Directives some crawlers read that RFC 9309 does not define (Yandex's `host` and
 * `clean-param`, ...), and Cloudflare's `content-signal` (how fetched content may be used),
 * which its managed robots.txt writes into millions of files.
 */
const UNSUPPORTED = new Set([
  'host',
  'clean-param',
  'request-rate',
  'visit-time',
  'nofollow',
  'cache-delay',
  'content-signal',
  // Listed by Google's parser as known and unused.
  'noarchive',
  'domain',
  'revisit-after',
  'content-usage',
]);

/** What a key names: shared answers, never changed. */
interface KeyAnswer {
  key: DirectiveKey;
  typo: boolean;
}

const UNKNOWN_KEY: KeyAnswer = { key: 'unknown', typo: false };
const UNSUPPORTED_KEY: KeyAnswer = { key: 'unsupported', typo: false };

function codesOf(word: string): Uint8Array {
  return Uint8Array.from(word, (ch) => ch.charCodeAt(0));
}

/**
 * Every directive word and misspelling in the order a key is compared with them, each word
 * before its misspellings: the first that starts the key names it. `answer` is for the key that
 * is the word (or the word and blanks before more text); `longer` for a key that goes on past
 * it, which is a misspelling too.
 */
interface KeyWord {
  text: string;
  codes: Uint8Array;
  answer: KeyAnswer;
  longer: KeyAnswer;
}

const KEY_WORDS: readonly KeyWord[] = KEYS.flatMap(({ key, exact, typos }) =>
  [exact, ...typos].map((text) => ({
    text,
    codes: codesOf(text),
    answer: { key, typo: text !== exact },
    longer: { key, typo: true },
  })),
);

const UNSUPPORTED_WORDS: readonly Uint8Array[] = [...UNSUPPORTED].map(codesOf);

/** An exact key, as character codes, and the (shared) answer for it. */
interface ExactKey {
  codes: Uint8Array;
  answer: KeyAnswer;
}

/** The exact keys by length. */
const EXACT_BY_LENGTH: ExactKey[][] = [];
for (const { key, exact } of KEYS) {
  EXACT_BY_LENGTH[exact.length] ??= [];
  EXACT_BY_LENGTH[exact.length].push({
    codes: codesOf(exact),
    answer: { key, typo: false },
  });
}

/**
 * The exact keys by their first letter, lower case. No two share one; a key that did would be
 * read by the general path of parseLine, as any other line.
 */
const USUAL_BY_LETTER: (ExactKey | undefined)[] = Array.from({ length: 128 }, () => undefined);
for (const known of EXACT_BY_LENGTH) for (const exact of known ?? []) USUAL_BY_LETTER[exact.codes[0]] = exact;

/**
 * Where the colon is when `units[from, to)` starts with an exact key (the one of its first
 * letter) followed by blanks and a colon before `to`, else -1. That colon is then the first of
 * the line, and the key as trimmed is the word: what the general reading finds too.
 */
function colonAfterUsualKey(units: Uint16Array, from: number, to: number): number {
  const first = units[from];
  const usual = first < 128 ? USUAL_BY_LETTER[first | 0x20] : undefined;
  if (usual === undefined) return -1;
  const word = usual.codes;
  if (from + word.length >= to) return -1;
  for (let i = 1; i < word.length; i++) if ((units[from + i] | 0x20) !== word[i]) return -1;
  let colon = from + word.length;
  while (colon < to && isBlank(units[colon])) colon++;
  return colon < to && units[colon] === 58 /* : */ ? colon : -1;
}

/** `word` (lower case letters and `-`) is `units[from, from + word.length)`, ignoring case. */
function isWordAt(units: Uint16Array, from: number, word: Uint8Array): boolean {
  // `| 0x20` lower-cases A-Z and leaves `-` and a-z as they are.
  for (let i = 0; i < word.length; i++) if ((units[from + i] | 0x20) !== word[i]) return false;
  return true;
}

/** The usual keys, spelled right, read in place without a copy; undefined for any other. */
function exactKeyAt(units: Uint16Array, from: number, to: number): KeyAnswer | undefined {
  const known = EXACT_BY_LENGTH[to - from];
  if (known !== undefined) {
    for (let i = 0; i < known.length; i++) if (isWordAt(units, from, known[i].codes)) return known[i].answer;
  }
  return undefined;
}

/** By ASCII code, lower case: 1 for a letter that starts a key, a misspelling or another crawler's directive. */
const KEY_START = new Uint8Array(128);
for (const { exact, typos } of KEYS) for (const word of [exact, ...typos]) KEY_START[word.charCodeAt(0)] = 1;
for (const word of UNSUPPORTED) KEY_START[word.charCodeAt(0)] = 1;

/**
 * The characters outside ASCII whose lower case starts with an ASCII letter: `İ` (`i̇`) and the
 * Kelvin sign (`k`), in the Unicode of this engine.
 */
export const NON_ASCII_LOWERING_TO_ASCII: readonly number[] = [0x130, 0x212a];

/**
 * Whether a key that starts with the code unit `c` may name a directive once lower-cased. Most
 * keys of a file of garbage (random bytes, a binary served as robots.txt) do not, and are known
 * without lower-casing them or comparing them with every word.
 */
function mayStartKey(c: number): boolean {
  if (c < 128) return KEY_START[c | 0x20] === 1;
  return c === NON_ASCII_LOWERING_TO_ASCII[0] || c === NON_ASCII_LOWERING_TO_ASCII[1];
}

/**
 * Whether `units[from, from + word.length)` is `word` (lower case letters, `-` and space),
 * ignoring the case of ASCII letters only: `| 0x20` would also take a NUL for a space.
 */
function isLowerCaseWordAt(units: Uint16Array, from: number, word: Uint8Array): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = units[from + i];
    if ((c >= 65 && c <= 90 ? c | 0x20 : c) !== word[i]) return false;
  }
  return true;
}
