/**
 * The robots.txt tokenizer: one pass over the file that turns every line into an event
 * for a handler. The compiler (rules for matching) and the linter (findings for site
 * owners) are two handlers of the same pass, as in Google's parser; neither re-reads the
 * text.
 */

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
  /** The key as written, e.g. `Dissallow`. */
  keyText: string;
  value: string;
  /** Set when the key is one of the misspellings Google accepts (`useragent`, `dissallow`, ...). */
  typo: boolean;
  /** Set when the key and value were separated by blanks instead of a colon. */
  missingColon: boolean;
}

/** What the tokenizer saw of the file as a whole, reported once at the end. */
export interface FileSummary {
  /** Number of lines read. */
  lines: number;
  /** Set when the file was cut at the size limit: the first line that was ignored. */
  truncatedAtLine?: number;
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
}

/**
 * Google's parser keeps 2083 * 8 octets of a line, its buffer including a terminator, so
 * a line keeps its first 16,663 octets and the rest is ignored.
 */
export const MAX_LINE_OCTETS = 2083 * 8 - 1;

/** RFC 9309 2.5: crawlers must parse at least 500 kibibytes. */
export const DEFAULT_MAX_BYTES = 500 * 1024;

/** Removes blanks (space, tab, vertical tab, form feed) around `text[from, to)`. */
function trimmed(text: string, from: number, to: number): string {
  while (from < to && isBlank(text.charCodeAt(from))) from++;
  while (to > from && isBlank(text.charCodeAt(to - 1))) to--;
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

function isBlank(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 12 && c !== 10);
}
const HTML_START = /^[\s\uFEFF]*<(?:!doctype\s+html|html|head|body)[\s>]/i;

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const utf8Strict = new TextDecoder('utf-8', { fatal: true });
const utf8Lenient = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/** Runs one pass over `body`, calling `handler` for every line. Never throws on content. */
export function tokenize(
  body: string | Uint8Array,
  options: TokenizeOptions,
  handler: RobotsLineHandler,
): void {
  let text: string;
  let invalidUtf8 = false;
  let truncated = false;

  if (typeof body === 'string') {
    text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
    // A JS string of n units is at most 3n UTF-8 octets; count only when it can matter.
    if (text.length * 3 > options.maxBytes) {
      const { read } = utf8Encoder.encodeInto(text, new Uint8Array(options.maxBytes));
      if (read !== undefined && read < text.length) {
        text = cutAtLineEnd(text, read);
        truncated = true;
      }
    }
  } else {
    // Google skips a byte order mark, and even the first octets of one.
    let bom = 0;
    while (bom < 3 && body[bom] === UTF8_BOM[bom]) bom++;
    let bytes = body.subarray(bom);
    if (bytes.length > options.maxBytes) {
      bytes = bytes.subarray(0, cutBytesAtLineEnd(bytes, options.maxBytes));
      truncated = true;
    }
    try {
      text = utf8Strict.decode(bytes);
    } catch {
      text = utf8Lenient.decode(bytes);
      invalidUtf8 = true;
    }
  }

  const lines = text.split(/\r\n|\r|\n/);
  // A file cut at a line end ends with that line end: the empty tail is not a line.
  if (truncated && lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const summary: FileSummary = { lines: lines.length, looksLikeHtml: false };
  if (truncated) summary.truncatedAtLine = lines.length + 1;
  if (invalidUtf8) {
    const index = lines.findIndex((l) => l.includes('\uFFFD'));
    summary.invalidUtf8Line = index < 0 ? 1 : index + 1;
  }
  if (options.rejectHtml && HTML_START.test(text.slice(0, 512))) {
    summary.looksLikeHtml = true;
    handler.end(summary);
    return;
  }

  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.length === 0) continue;
    // Only a line with more units than the cap / 3 can exceed the cap in octets.
    if (line.length * 3 > MAX_LINE_OCTETS) {
      const octets = utf8Encoder.encode(line).length;
      if (octets > MAX_LINE_OCTETS) {
        const { read } = utf8Encoder.encodeInto(line, new Uint8Array(MAX_LINE_OCTETS));
        line = line.slice(0, read);
        handler.lineTooLong(i + 1, octets);
      }
    }
    parseLine(i + 1, line, handler);
  }
  handler.end(summary);
}

function cutAtLineEnd(text: string, from: number): string {
  const lf = text.indexOf('\n', from);
  const cr = text.indexOf('\r', from);
  const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
  return end < 0 ? text : text.slice(0, end);
}

function cutBytesAtLineEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) {
    if (bytes[i] === 0x0a || bytes[i] === 0x0d) return i;
  }
  return bytes.length;
}

function parseLine(line: number, raw: string, handler: RobotsLineHandler): void {
  const hash = raw.indexOf('#');
  const content = trimmed(raw, 0, hash < 0 ? raw.length : hash);
  if (content.length === 0) return;

  let keyText: string;
  let value: string;
  let missingColon = false;
  const colon = content.indexOf(':');
  if (colon >= 0) {
    keyText = trimmed(content, 0, colon);
    value = trimmed(content, colon + 1, content.length);
  } else {
    // Google accepts blanks in place of a forgotten colon, but only between exactly two
    // words: `Disallow /private` is a rule, `this is prose` is not.
    const words = content.split(/[ \t]+/);
    if (words.length !== 2) {
      handler.unparsable(line, content);
      return;
    }
    [keyText, value] = words;
    missingColon = true;
  }
  if (keyText.length === 0) {
    handler.unparsable(line, content);
    return;
  }
  const { key, typo } = classifyKey(keyText);
  handler.directive({ line, key, keyText, value, typo, missingColon });
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

const UNSUPPORTED = new Set(['host', 'clean-param', 'request-rate', 'visit-time', 'nofollow', 'cache-delay']);

const EXACT_KEYS: ReadonlyMap<string, { key: DirectiveKey; typo: boolean }> = new Map(
  KEYS.map(({ key, exact }) => [exact, { key, typo: false }]),
);

export function classifyKey(keyText: string): { key: DirectiveKey; typo: boolean } {
  const lower = keyText.toLowerCase();
  const exact = EXACT_KEYS.get(lower);
  if (exact !== undefined) return exact;
  for (const { key, exact, typos } of KEYS) {
    if (lower.startsWith(exact)) return { key, typo: false };
    for (const typo of typos) if (lower.startsWith(typo)) return { key, typo: true };
  }
  return { key: UNSUPPORTED.has(lower) ? 'unsupported' : 'unknown', typo: false };
}
