/**
 * Product tokens: reading them from `user-agent` lines and from a crawler's User-Agent
 * header, and the documented fallbacks between crawlers.
 */

/** RFC 9309 2.2.1: a product token is made of `A-Z a-z _ -`. */
const TOKEN = /^[A-Za-z_-]+$/;
const LEADING_TOKEN = /^[A-Za-z_-]*/;

/**
 * Crawlers documented to obey another crawler's group when the file has none of their
 * own: Google's special-purpose crawlers follow Googlebot, Apple's Applebot follows
 * Googlebot, and Yandex's main crawler follows the `Yandex` group.
 */
export const FALLBACK_TOKENS: Readonly<Record<string, string>> = {
  'googlebot-image': 'googlebot',
  'googlebot-news': 'googlebot',
  'googlebot-video': 'googlebot',
  'storebot-google': 'googlebot',
  applebot: 'googlebot',
  yandexbot: 'yandex',
};

/** `*` and an ASCII blank: Google's parser reads no other space there (a no-break space is none). */
const STAR_THEN_BLANK = /^\*[\t\v\f ]/;

/**
 * The token a `user-agent` line names: `*`, or its leading `[A-Za-z_-]` run, lower case
 * (`sogou spider` names `sogou`, `Googlebot/2.1` names `googlebot`). Google's parser also
 * reads `* anything` as the star group; `*` followed by anything else names no crawler.
 */
export function tokenOfUserAgentLine(value: string): string {
  if (value.charCodeAt(0) === 42 /* * */ && (value.length === 1 || STAR_THEN_BLANK.test(value))) return '*';
  let n = 0;
  while (n < value.length && isTokenChar(value.charCodeAt(n))) n++;
  return value.slice(0, n).toLowerCase();
}

/** `A-Z a-z _ -`. */
export function isTokenChar(c: number): boolean {
  const lower = c | 0x20;
  return (lower >= 97 && lower <= 122) || c === 95 || c === 45;
}

/** Products of a header that name a browser engine or platform, never a crawler. */
const BROWSER_WORDS = new Set([
  'mozilla',
  'applewebkit',
  'khtml',
  'like',
  'gecko',
  'chrome',
  'chromium',
  'headlesschrome',
  'safari',
  'version',
  'mobile',
  'firefox',
  'edg',
  'edge',
  'opr',
  'opera',
  'compatible',
  'windows',
  'win',
  'nt',
  'linux',
  'android',
  'macintosh',
  'intel',
  'mac',
  'os',
  'x',
  'cpu',
  'iphone',
  'ipad',
  'u',
  'wow',
  'trident',
  'msie',
  'ubuntu',
  'build',
  'en',
  'en-us',
  'http',
  'https',
  'www',
]);
/** Words that make a product read like a crawler's name, lower case. */
const CRAWLER_HINTS = ['bot', 'spider', 'crawl', 'fetch', 'agent', 'archiv', 'scrap', 'slurp', 'indexer'];

/**
 * Whether `name` holds a crawler hint, in any case. Searched without a regular expression: a
 * case-insensitive one took 0.15 ms to compile at its first use, and the first check of a whole
 * header paid for it.
 */
function hasCrawlerHint(name: string): boolean {
  const lower = name.toLowerCase();
  for (const hint of CRAWLER_HINTS) if (lower.includes(hint)) return true;
  return false;
}

/** Whether `text` has a character other than an ASCII letter. */
function hasNonLetter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const lower = text.charCodeAt(i) | 0x20;
    if (lower < 97 || lower > 122) return true;
  }
  return false;
}

const tokenCache = new Map<string, string>();

/**
 * The product token of a crawler, lower case. A bare token (`ExampleBot`) is taken as is;
 * one word is read up to its first character outside `[A-Za-z_-]` (`Bot2000` is `bot`);
 * several words that are not a header (`Foo Bar`) match no group.
 * From a whole User-Agent header (`Mozilla/5.0 (compatible; ExampleBot/2.1; +https://...)`)
 * the token is the first product that reads like a crawler's name (`bot`, `spider`,
 * `crawl`, ...), else the product right after `compatible`, else the first product that is
 * not a browser word; a product of several words (`Sogou web spider/4.0`) is named by its first,
 * as a `user-agent` line is. Pass the bare token when the header is unusual.
 */
export function productTokenOf(userAgent: string): string {
  // A crawler asks with the same User-Agent again and again.
  if (userAgent === lastUserAgent) return lastToken;
  if (typeof userAgent !== 'string') {
    throw new TypeError(
      `Expected a product token such as "ExampleBot" or a User-Agent header, got ${userAgent === null ? 'null' : typeof userAgent}.`,
    );
  }
  // A header-shaped string (`Name/1.0`, `Mozilla/5.0 (...)`) is searched for a token; a
  // single word is read like a user-agent line (`bot2` names `bot`); words with blanks
  // between them name no group, as in Google's parser.
  let token: string;
  if (TOKEN.test(userAgent)) token = userAgent.toLowerCase();
  else if (userAgent.includes('/') || userAgent.includes('(') || userAgent.includes(';'))
    token = readCached(userAgent);
  // Blanks around a name (`ExampleBot ` from a configuration file) are no part of it.
  else if (/\s/.test(userAgent.trim())) token = userAgent.toLowerCase();
  else token = LEADING_TOKEN.exec(userAgent.trim())![0].toLowerCase();
  lastUserAgent = userAgent;
  lastToken = token;
  return token;
}

/**
 * True when `token`, as {@link productTokenOf} reads it, is a product token (RFC 9309 2.2.1:
 * `A-Z a-z _ -`), one a group can address. What `Foo Bar`, `''` or `é-Bot/1.0` yield is none: it
 * matches no group, so a crawler named by it would follow `*` alone.
 */
export function isProductToken(token: string): boolean {
  return TOKEN.test(token);
}

let lastUserAgent = '';
let lastToken = '';

function readCached(userAgent: string): string {
  let token = tokenCache.get(userAgent);
  if (token === undefined) {
    token = readProductToken(userAgent);
    if (tokenCache.size >= 256) tokenCache.clear();
    tokenCache.set(userAgent, token);
  }
  return token;
}

/**
 * The product token of a User-Agent header (RFC 9110 10.1.5: products `name/version` and
 * comments `(a; b; c)`, whose items name crawlers too: `(compatible; ExampleBot/2.1; +https://...)`).
 * Words are read between blanks, parentheses, `;` and `,`. A word whose name (before any `/`)
 * holds `:` or `@` is a URL, an e-mail address or a `key:value` such as `rv:109.0`, and one with
 * `.` a host, never a product: `(compatible; Foo/1.0; +http://crawler.example.com/)` names `foo`,
 * not `crawler`; but a name whose last part after a `.` is no domain label and reads like a
 * crawler's (`archive.org_bot`, `Mail.RU_Bot`) is read as a `user-agent` line reads it (`archive`,
 * `mail`). Outside comments, words separated by blanks alone are one product, named as the line
 * would name it, by its first word: `Sogou web spider/4.0` is `sogou`, as `User-agent: Sogou web
 * spider` names `sogou`. One pass over the header, whatever it holds.
 */
function readProductToken(header: string): string {
  let first = '';
  // The word after `compatible` names the client (`(compatible; GoogleOther)`), ahead of words
  // of the platform before it (`Nexus` in `(Linux; Android 6.0.1; Nexus 5X Build/MMB29P)`).
  let compatible = '';
  let afterCompatible = false;
  /** How deep in comments the word is: 0 outside them. */
  let depth = 0;
  /** Outside comments, the name of the product the words since the last break other than a blank make, '' for none. */
  let product = '';
  /** Set when the next word outside comments starts a product. */
  let startsProduct = true;
  for (let at = 0; at < header.length; ) {
    const c = header.charCodeAt(at);
    if (isWordBreak(c)) {
      if (c === 40 /* ( */) depth++;
      else if (c === 41 /* ) */ && depth > 0) depth--;
      if (c !== 32 && c !== 9) startsProduct = true;
      at++;
      continue;
    }
    let end = at;
    while (end < header.length && !isWordBreak(header.charCodeAt(end))) end++;
    const word = readWord(header, at, end);
    at = end;
    let name = word.name;
    if (depth === 0) {
      if (startsProduct) product = name !== '' && !BROWSER_WORDS.has(name.toLowerCase()) ? name : '';
      // A version ends a product: the next word starts another.
      startsProduct = word.versioned;
      if (product !== '') name = product;
    }
    const lower = name.toLowerCase();
    const wasAfterCompatible = afterCompatible;
    afterCompatible = lower === 'compatible';
    if (name === '' || BROWSER_WORDS.has(lower)) continue;
    if (word.hinted) return lower;
    if (wasAfterCompatible && compatible === '') compatible = name;
    if (first === '') first = name;
  }
  if (compatible !== '') return compatible.toLowerCase();
  return (first === '' ? LEADING_TOKEN.exec(header.trim())![0] : first).toLowerCase();
}

/** Blanks, parentheses, `;` and `,`: what separates the words of a header. */
function isWordBreak(c: number): boolean {
  return c === 32 || c === 9 || c === 40 || c === 41 || c === 59 || c === 44;
}

/** A word of a header, as a product. */
interface Word {
  /** Its leading `[A-Za-z_-]` run, '' when the word is no product (a URL, a host, an address). */
  name: string;
  /** Whether its name, before any `/`, reads like a crawler's. */
  hinted: boolean;
  /** Whether it has a `/` (a version). */
  versioned: boolean;
}

/** The word `header[from, to)` as a product (see readProductToken). */
function readWord(header: string, from: number, to: number): Word {
  if (header.charCodeAt(from) === 43 /* + */) from++;
  let nameEnd = from;
  let lastDot = -1;
  while (nameEnd < to && header.charCodeAt(nameEnd) !== 47 /* / */) {
    const c = header.charCodeAt(nameEnd);
    if (c === 58 /* : */ || c === 64 /* @ */) return { name: '', hinted: false, versioned: false };
    if (c === 46 /* . */) lastDot = nameEnd;
    nameEnd++;
  }
  const versioned = nameEnd < to;
  const whole = header.slice(from, nameEnd);
  const hinted = hasCrawlerHint(whole);
  // A host ends in a label of letters; `archive.org_bot` ends in a crawler's name.
  if (lastDot >= 0) {
    const last = header.slice(lastDot + 1, nameEnd);
    if (!hinted || !hasCrawlerHint(last) || !hasNonLetter(last))
      return { name: '', hinted: false, versioned };
  }
  let end = from;
  while (end < nameEnd && isTokenChar(header.charCodeAt(end))) end++;
  return { name: header.slice(from, end), hinted, versioned };
}
