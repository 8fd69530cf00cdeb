/**
 * Product tokens: reading them from `user-agent` lines and from a crawler's User-Agent
 * header, and the documented fallbacks between crawlers.
 */

/** RFC 9309 2.2.1: a product token is made of `A-Z a-z _ -`. */
const TOKEN = /^[A-Za-z_-]+$/;
const LEADING_TOKEN = /^[A-Za-z_-]*/;
const HEADER_SHAPE = /[/(;]/;

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

/**
 * The token a `user-agent` line names: `*`, or its leading `[A-Za-z_-]` run, lower case
 * (`sogou spider` names `sogou`, `Googlebot/2.1` names `googlebot`). Google's parser also
 * reads `* anything` as the star group.
 */
export function tokenOfUserAgentLine(value: string): string {
  if (value.charCodeAt(0) === 42 /* * */ && (value.length === 1 || /^\*\s/.test(value))) return '*';
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
const CRAWLER_HINT = /bot|spider|crawl|fetch|agent|archiv|scrap|slurp|indexer/i;

const tokenCache = new Map<string, string>();

/**
 * The product token of a crawler, lower case. A bare token (`ExampleBot`) is taken as is;
 * one word is read up to its first character outside `[A-Za-z_-]` (`Bot2000` is `bot`);
 * several words that are not a header (`Foo Bar`) match no group.
 * From a whole User-Agent header (`Mozilla/5.0 (compatible; ExampleBot/2.1; +https://...)`)
 * the token is the first product that reads like a crawler's name (`bot`, `spider`,
 * `crawl`, ...), else the first product that is not a browser word. Pass the bare token
 * when the header is unusual.
 */
export function productTokenOf(userAgent: string): string {
  // A crawler asks with the same User-Agent again and again.
  if (userAgent === lastUserAgent) return lastToken;
  // A header-shaped string (`Name/1.0`, `Mozilla/5.0 (...)`) is searched for a token; a
  // single word is read like a user-agent line (`bot2` names `bot`); words with blanks
  // between them name no group, as in Google's parser.
  let token: string;
  if (TOKEN.test(userAgent)) token = userAgent.toLowerCase();
  else if (HEADER_SHAPE.test(userAgent)) token = readCached(userAgent);
  // Blanks around a name (`ExampleBot ` from a configuration file) are no part of it.
  else if (/\s/.test(userAgent.trim())) token = userAgent.toLowerCase();
  else token = LEADING_TOKEN.exec(userAgent.trim())![0].toLowerCase();
  lastUserAgent = userAgent;
  lastToken = token;
  return token;
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

function readProductToken(header: string): string {
  // Products are `name/version` words and the items of `(a; b; c)` comments.
  const names: string[] = [];
  for (const match of header.matchAll(/[(;,]?\s*\+?([A-Za-z_-][A-Za-z0-9_.!-]*)(\/\S*)?/g)) {
    const name = LEADING_TOKEN.exec(match[1])![0];
    if (name.length > 0 && !BROWSER_WORDS.has(name.toLowerCase())) names.push(name);
  }
  const crawler = names.find((name) => CRAWLER_HINT.test(name)) ?? names[0];
  return (crawler ?? LEADING_TOKEN.exec(header.trim())![0]).toLowerCase();
}
