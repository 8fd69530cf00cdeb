/**
 * Inputs of the robots.txt benchmark: the committed fixtures (bench/fixtures, written by
 * bench/fixtures/generate.ts) and the adversarial files, built in memory on each run from a
 * seeded PRNG. Shared by the suite and by the worker that runs adversarial cases in isolation.
 */
import { readFileSync } from 'node:fs';

import robotsParserModule from 'robots-parser';

import { prng } from './harness.js';

/**
 * The baseline, robots-parser 3.0.1. Its typings declare an ES default export, but the
 * CommonJS module itself is the function, and that is what a default import yields at run time.
 */
export const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;
export type BaselineRobots = ReturnType<typeof robotsParser>;

export const ORIGIN = 'https://www.example.com';
export const ROBOTS_URL = `${ORIGIN}/robots.txt`;
export const PRODUCT_TOKEN = 'ExampleBot';

/** A whole User-Agent header carrying `token`, as a crawler sends it. */
export function fullUserAgent(token: string): string {
  return `Mozilla/5.0 (compatible; ${token}/1.0; +https://example.com/bot.html) Chrome/120.0.0.0 Safari/537.36`;
}

export interface Fixture {
  name: string;
  text: string;
  bytes: number;
  /** Absolute URLs on {@link ORIGIN}. */
  urls: string[];
  /** The same URLs as path + query. */
  paths: string[];
}

export function loadFixture(name: 'typical' | 'large'): Fixture {
  const dir = new URL('./fixtures/', import.meta.url);
  let text: string;
  let list: string;
  try {
    text = readFileSync(new URL(`${name}.txt`, dir), 'utf8');
    list = readFileSync(new URL(`${name}-urls.txt`, dir), 'utf8');
  } catch (error) {
    throw new Error(
      `bench/fixtures/${name}.txt or ${name}-urls.txt is missing: run node --import tsx bench/fixtures/generate.ts`,
      { cause: error },
    );
  }
  const urls = list.split('\n').filter(Boolean);
  // Path and query as sent: from the href, since `search` drops an empty query ('/?' is not '/').
  const paths = urls.map((u) => {
    const { href, origin, hash } = new URL(u);
    return href.slice(origin.length, href.length - hash.length);
  });
  return { name: `${name}.txt`, text, bytes: Buffer.byteLength(text), urls, paths };
}

/** Crawlers of AI companies that sites list one by one, each in a group of its own. */
const AI_CRAWLERS = [
  'GPTBot',
  'ChatGPT-User',
  'OAI-SearchBot',
  'CCBot',
  'anthropic-ai',
  'ClaudeBot',
  'Claude-Web',
  'Google-Extended',
  'Applebot-Extended',
  'Bytespider',
  'PerplexityBot',
  'Perplexity-User',
  'cohere-ai',
  'cohere-training-data-crawler',
  'Diffbot',
  'FacebookBot',
  'Meta-ExternalAgent',
  'Meta-ExternalFetcher',
  'ImagesiftBot',
  'Omgilibot',
  'Omgili',
  'Timpibot',
  'YouBot',
  'Amazonbot',
  'AI2Bot',
  'Ai2Bot-Dolma',
  'img2dataset',
  'PetalBot',
  'magpie-crawler',
  'peer39_crawler',
  'DuckAssistBot',
  'iaskspider',
  'ICC-Crawler',
  'ISSCyberRiskCrawler',
  'Kangaroo Bot',
  'Sidetrade indexer bot',
  'VelenPublicWebCrawler',
  'Webzio-Extended',
  'FirecrawlAgent',
  'TikTokSpider',
];

/**
 * A small file of the kind many sites serve now: a few rules for every crawler, then a group of
 * its own for each of 40 AI crawlers, shutting it out. Many user-agent lines in few bytes.
 */
export function aiCrawlersText(): string {
  const lines = ['# Search engines are welcome; AI crawlers are not.', 'User-agent: *'];
  lines.push('Disallow: /admin/', 'Disallow: /cart', 'Disallow: /*?session=', 'Allow: /', '');
  for (const crawler of AI_CRAWLERS) lines.push(`User-agent: ${crawler}`, 'Disallow: /', '');
  lines.push('Sitemap: https://www.example.com/sitemap.xml');
  return `${lines.join('\n')}\n`;
}

/**
 * `count` copies of a robots.txt that differ in their first line, so that no two parses
 * share an input string (and no cache keyed on the string can help).
 */
export function distinctCopies(text: string, count: number): string[] {
  const nl = text.indexOf('\n');
  const first = nl < 0 ? text : text.slice(0, nl);
  const rest = nl < 0 ? '' : text.slice(nl);
  // Flat strings, as a body decoded from the network is: a template string is a rope, which
  // V8 flattens on first read and then reads through an indirection, slowing down whichever
  // library reads it character by character.
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return Array.from({ length: count }, (_, i) =>
    decoder.decode(encoder.encode(`${first} [copy ${i}]${rest}`)),
  );
}

// ---------------------------------------------------------------- adversarial files

/** RFC 9309 2.5: crawlers must parse at least 500 KiB; the adversarial files are that big. */
export const LIMIT = 500 * 1024;

export interface Probe {
  label: string;
  url: string;
  userAgent: string;
}

export interface AdversarialInput {
  /** What crawlee-robots parses: a string, or the raw bytes when the case is about bytes. */
  body: string | Uint8Array;
  /** What robots-parser parses (it takes strings only). */
  text: string;
  /** Size of the file in octets. */
  octets: number;
  /** Checks to time; the worst one is reported. */
  probes: Probe[];
  /** Counts worth printing next to the case (groups, rules, lines). */
  note: string;
}

export interface AdversarialCase {
  id: string;
  title: string;
  build(): AdversarialInput;
}

const PATH_8K_A = `/${'a'.repeat(8191)}`;

/** Base-26 letters, so that every name is its own product token (digits end a token). */
function letters(n: number): string {
  let s = '';
  let k = n;
  do {
    s = String.fromCharCode(97 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return s;
}

/** Appends `unit(i)` for i = 0, 1, ... while the text stays within `limit` octets of UTF-8. */
function fill(head: string, unit: (i: number) => string, limit = LIMIT): { text: string; count: number } {
  const parts = [head];
  let size = Buffer.byteLength(head);
  let i = 0;
  for (;;) {
    const u = unit(i);
    const octets = Buffer.byteLength(u);
    if (size + octets > limit) break;
    parts.push(u);
    size += octets;
    i++;
  }
  return { text: parts.join(''), count: i };
}

function asText(text: string, probes: Probe[], note: string): AdversarialInput {
  return { body: text, text, octets: Buffer.byteLength(text), probes, note };
}

const url = (path: string) => ORIGIN + path;

/**
 * Rules of 350 to 399 one-character pieces drawn from `letters`, each rule ending in `*z`,
 * against `/z` and 8 KB of letters drawn the same way: (u2) and (u4).
 */
function randomSingles(seed: number, letters: string, label: string): AdversarialInput {
  const rnd = prng(seed);
  const letter = () => letters[Math.floor(rnd() * letters.length)];
  const { text, count } = fill('User-agent: *\n', (i) => {
    let rule = 'Disallow: /';
    for (let k = 0; k < 350 + (i % 50); k++) rule += `*${letter()}`;
    return `${rule}*z\n`;
  });
  let path = '/z';
  while (path.length < 8192) path += letter();
  return asText(text, [{ label, url: url(path), userAgent: PRODUCT_TOKEN }], `${count} rules`);
}

/** 40 crawlers, each with a group of one rule of its own. */
function crawlers(): { agents: string[]; own: string } {
  const agents = Array.from({ length: 40 }, (_, i) => `bot-${letters(i)}`);
  const own = agents.map((agent, i) => `\nUser-agent: ${agent}\nDisallow: /own-${i}/\n`).join('');
  return { agents, own };
}

/** One group of the rules `rule(i)` that 40 crawlers name, each also with a group of its own. */
function sharedByCrawlers(rule: (i: number) => string, ruledPath: string): AdversarialInput {
  const { agents, own } = crawlers();
  const head = agents.map((agent) => `User-agent: ${agent}\n`).join('');
  const { text, count } = fill(head, rule, LIMIT - Buffer.byteLength(own));
  return asText(
    text + own,
    [
      { label: 'the last crawler, first check', url: url(ruledPath), userAgent: agents[agents.length - 1] },
      { label: 'the 30th crawler, first check', url: url('/own-29/x'), userAgent: agents[29] },
    ],
    `${count} rules, 40 crawlers`,
  );
}

/** Letters and digits: the characters of the (w) cases. */
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `/` and `start`, then every pair of two ALNUM characters: no filter of pairs rules a piece out. */
function everyPair(start: string): string {
  let path = `/${start}`;
  for (const a of ALNUM) for (const b of ALNUM) path += a + b;
  return path;
}

/** Rules `before*start<6 random ALNUM>`, as many as fit, against everyPair(start). */
function sharedStart(before: string, start: string, seed: number): AdversarialInput {
  const rnd = prng(seed);
  const { text, count } = fill('User-agent: *\n', () => {
    let tail = '';
    for (let k = 0; k < 6; k++) tail += ALNUM[Math.floor(rnd() * ALNUM.length)];
    return `Disallow: /*${before}${start}${tail}\n`;
  });
  const path = everyPair(start);
  return asText(
    text,
    [{ label: `${path.length} B path of every pair`, url: url(path), userAgent: PRODUCT_TOKEN }],
    `${count} rules`,
  );
}

export const ADVERSARIAL_CASES: AdversarialCase[] = [
  {
    id: 'a',
    title: "500 KiB Disallow line of '*' vs 8 KB path",
    build() {
      const head = 'User-agent: *\nDisallow: /';
      const text = `${head}${'*'.repeat(LIMIT - head.length - 1)}\n`;
      return asText(
        text,
        // One probe only: robots-parser needs tens of seconds for it.
        [{ label: '8 KB path', url: url(PATH_8K_A), userAgent: PRODUCT_TOKEN }],
        '1 rule',
      );
    },
  },
  {
    id: 'b',
    title: "16 KB pattern /a*a*...a$ vs 8 KB path of 'a's ending in 'b'",
    build() {
      const text = `User-agent: *\nDisallow: /${'a*'.repeat(8000)}a$\nAllow: /${'a*'.repeat(8000)}b\n`;
      return asText(
        text,
        [
          { label: "8 KB 'aaa...ab'", url: url(`/${'a'.repeat(8190)}b`), userAgent: PRODUCT_TOKEN },
          { label: "8 KB 'aaa...aa'", url: url(`/${'a'.repeat(8191)}`), userAgent: PRODUCT_TOKEN },
        ],
        '2 rules',
      );
    },
  },
  {
    id: 'c',
    title: "groups 'user-agent: botN / disallow: /pN' (one token 'bot')",
    build() {
      const { text, count } = fill('', (i) => `user-agent: bot${i}\ndisallow: /p${i}\n`);
      const last = count - 1;
      return asText(
        text,
        [
          { label: `bot${last}`, url: url(`/p${last}`), userAgent: `bot${last}` },
          { label: 'ExampleBot (no group)', url: url(`/p${last}`), userAgent: PRODUCT_TOKEN },
          { label: 'full UA bot', url: url(`/p${last >> 1}/x`), userAgent: fullUserAgent(`bot${last >> 1}`) },
        ],
        `${count} groups`,
      );
    },
  },
  {
    id: 'c2',
    title: "groups 'user-agent: bot-<letters> / disallow: /pN' (distinct tokens)",
    build() {
      const { text, count } = fill('', (i) => `user-agent: bot-${letters(i)}\ndisallow: /p${i}\n`);
      const last = count - 1;
      return asText(
        text,
        [
          { label: 'last group', url: url(`/p${last}`), userAgent: `bot-${letters(last)}` },
          { label: 'ExampleBot (no group)', url: url(`/p${last}`), userAgent: PRODUCT_TOKEN },
          {
            label: 'full UA, middle group',
            url: url(`/p${last >> 1}/x`),
            userAgent: fullUserAgent(`bot-${letters(last >> 1)}`),
          },
        ],
        `${count} groups`,
      );
    },
  },
  {
    id: 'd',
    title: "user-agent lines 'user-agent: ua-<letters>', one group",
    build() {
      const tail = 'disallow: /private/\n';
      const { text, count } = fill('', (i) => `user-agent: ua-${letters(i)}\n`, LIMIT - tail.length);
      return asText(
        text + tail,
        [
          { label: 'last agent', url: url('/private/x'), userAgent: `ua-${letters(count - 1)}` },
          { label: 'ExampleBot (no group)', url: url('/private/x'), userAgent: PRODUCT_TOKEN },
        ],
        `${count} user-agent lines`,
      );
    },
  },
  {
    id: 'e',
    title: "wildcard rules 'Disallow: /*xNy*z$' in the * group vs 8 KB path",
    build() {
      const { text, count } = fill('User-agent: *\n', (i) => `Disallow: /*x${i}y*z$\n`);
      let body = '/';
      for (let k = 0; body.length < 8190; k += 7) body += `x${k}y`;
      body = body.slice(0, 8190);
      return asText(
        text,
        [
          { label: "8 KB 'x0yx7y...', no z", url: url(`${body}q`), userAgent: PRODUCT_TOKEN },
          { label: "8 KB 'x0yx7y...z'", url: url(`${body}z`), userAgent: PRODUCT_TOKEN },
        ],
        `${count} rules`,
      );
    },
  },
  {
    id: 'u',
    title:
      "wildcard rules of one-character pieces, each found at once: 'Disallow: /*a*a...*a*b*z' vs 8 KB '/zaa...ab'",
    build() {
      // Every piece of every rule is found, at the next character of the path, up to the last
      // one, the `z`: a check follows each rule to its end, hundreds of thousands of pieces.
      const { text, count } = fill('User-agent: *\n', (i) => `Disallow: /${'*a'.repeat(i + 1)}*b*z\n`);
      return asText(
        text,
        [
          {
            label: "8 KB '/zaa...ab', no rule matches",
            url: url(`/z${'a'.repeat(8189)}b`),
            userAgent: PRODUCT_TOKEN,
          },
        ],
        `${count} rules`,
      );
    },
  },
  {
    id: 'u2',
    title:
      "wildcard rules of random one-character pieces: 'Disallow: /*a*c*c*a...*z' vs 8 KB '/z' + random 'a' and 'c'",
    build() {
      // Half the pieces are not where the last one ended: each is searched for, a character or
      // two on, and every rule is followed to its `z`, which the path has only at its start.
      return randomSingles(0x5eed, 'ac', "8 KB '/z' + random 'a' and 'c', no rule matches");
    },
  },
  {
    id: 'u3',
    title:
      'wildcard rules of two-character pieces, each a random choice among those of the path, in its order',
    build() {
      // The path is 3,995 random pairs of letters; each rule takes about one pair in eleven of
      // them, in order, then needs the `Z` the path has only at its start. Each piece is found
      // some 22 characters on, where another pair starting with its letter may come first.
      const rnd = prng(0xb16a);
      const letter = () => String.fromCharCode(97 + Math.floor(rnd() * 26));
      const pairs = Array.from({ length: 3995 }, () => letter() + letter());
      const { text, count } = fill('User-agent: *\n', () => {
        const picked = pairs.filter(() => rnd() < 0.09).slice(0, 230);
        return `Disallow: /*${picked.join('*')}*Z\n`;
      });
      return asText(
        text,
        [
          {
            label: "8 KB '/Z' + pairs of letters, no rule matches",
            url: url(`/Z${pairs.join('')}`),
            userAgent: PRODUCT_TOKEN,
          },
        ],
        `${count} rules`,
      );
    },
  },
  {
    id: 'u4',
    title:
      "wildcard rules of random one-character pieces among 25 letters: 'Disallow: /*k*c*x...*z' vs 8 KB '/z' + random letters",
    build() {
      // (u2) with 25 letters instead of 2: each piece is found some 25 characters on, in the
      // table of one of 25 characters, so that a check reads a new part of the tables at almost
      // every piece; each rule runs out of path before its `z`.
      return randomSingles(
        0x25ab,
        'abcdefghijklmnopqrstuvwxy',
        "8 KB '/z' + random letters a to y, no rule matches",
      );
    },
  },
  {
    id: 'f',
    title: '500 KiB of random bytes (core: Uint8Array; robots-parser: decoded text)',
    build() {
      const rnd = prng(0xf00d);
      const bytes = new Uint8Array(LIMIT);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rnd() * 256);
      let path = '/';
      const chars = 'abcdefghijklmnopqrstuvwxyz0123456789-_/~%';
      while (path.length < 8192) path += chars[Math.floor(rnd() * chars.length)];
      path = path.replace(/%/g, '%25');
      return {
        body: bytes,
        text: new TextDecoder().decode(bytes),
        octets: bytes.length,
        probes: [
          { label: '8 KB path', url: url(path), userAgent: PRODUCT_TOKEN },
          { label: '/', url: url('/'), userAgent: PRODUCT_TOKEN },
        ],
        note: '512,000 bytes',
      };
    },
  },
  {
    id: 'g',
    title: '500 KiB, one line, no newline (a Disallow with escapes and UTF-8)',
    build() {
      const head = 'Disallow: /';
      const units = ['caf%c3%a9/', 'é/', '%7Euser/', 'a%2Fb/', 'x?y=1&z=%20/', 'plain-segment/'];
      const { text } = fill(head, (i) => units[i % units.length], LIMIT - 1);
      return asText(
        text,
        [{ label: '8 KB path', url: url(`/${'caf%C3%A9/'.repeat(819)}`), userAgent: PRODUCT_TOKEN }],
        `${Buffer.byteLength(text).toLocaleString('en-US')} bytes`,
      );
    },
  },
  {
    id: 'h',
    title: "rules that all need normalising: 'Disallow: /категория/товар-N/' in the * group",
    build() {
      const { text, count } = fill('User-agent: *\n', (i) => `Disallow: /категория/товар-${i}/\n`);
      const segment = encodeURIComponent('категория');
      return asText(
        text,
        [
          {
            label: 'a ruled path',
            url: url(`/${segment}/${encodeURIComponent(`товар-${count - 1}`)}/x`),
            userAgent: PRODUCT_TOKEN,
          },
          { label: '8 KB path', url: url(`/${segment}/${'%D1%85'.repeat(1350)}`), userAgent: PRODUCT_TOKEN },
        ],
        `${count} rules`,
      );
    },
  },
  {
    id: 'i',
    title: "wildcard rules 'Disallow: /b<a x m>*<a x k>b', alike, vs 8 KB path '/baaa...a'",
    build() {
      // Every rule passes the character filter and is marked by the gram index (`aaaaaaaa`); none
      // matches, and each would read the whole path for its last piece.
      const { text, count } = fill(
        'User-agent: *\n',
        (i) => `Disallow: /b${'a'.repeat(i % 50)}*${'a'.repeat(8 + (Math.floor(i / 50) % 8))}b\n`,
      );
      return asText(
        text,
        [{ label: "8 KB '/baaa...a'", url: url(`/b${'a'.repeat(8189)}`), userAgent: PRODUCT_TOKEN }],
        `${count} rules`,
      );
    },
  },
  {
    id: 'k',
    title: 'the typical file vs 8 KB paths whose every character needs escaping',
    build() {
      const { text } = loadFixture('typical');
      const path = (unit: string) => `/${unit.repeat(Math.floor(8191 / unit.length))}`;
      return asText(
        text,
        [
          { label: "8 KB of '|'", url: url(path('|')), userAgent: PRODUCT_TOKEN },
          { label: "8 KB of lone '%'", url: url(path('%')), userAgent: PRODUCT_TOKEN },
          { label: "8 KB of '\"'", url: url(path('"')), userAgent: PRODUCT_TOKEN },
          { label: "8 KB of 'é'", url: url(path('é')), userAgent: PRODUCT_TOKEN },
          { label: '8 KB of lone surrogates', url: url(path('\ud800')), userAgent: PRODUCT_TOKEN },
        ],
        'typical.txt',
      );
    },
  },
  {
    id: 'k2',
    title: 'the typical file vs 8 KB URLs that alternate characters in normal form with ones to rewrite',
    build() {
      const { text } = loadFixture('typical');
      const path = (head: string, unit: string) =>
        `${head}${unit.repeat(Math.floor((8191 - head.length) / unit.length))}`;
      return asText(
        text,
        [
          { label: "8 KB of 'a|'", url: url(path('/', 'a|')), userAgent: PRODUCT_TOKEN },
          {
            label: "a query of '&a=%41' (an escaped letter)",
            url: url(path('/search?', '&a=%41')),
            userAgent: PRODUCT_TOKEN,
          },
          {
            label: "a query of '&q=%27' (an escaped quote)",
            url: url(path('/search?', '&q=%27')),
            userAgent: PRODUCT_TOKEN,
          },
          {
            label: "8 KB of '%c3%a9' (lower-case escapes)",
            url: url(path('/', '%c3%a9')),
            userAgent: PRODUCT_TOKEN,
          },
          { label: "8 KB of 'ab%7e|*$'", url: url(path('/', 'ab%7e|*$')), userAgent: PRODUCT_TOKEN },
          { label: "8 KB of 'a[b]'", url: url(path('/', 'a[b]')), userAgent: PRODUCT_TOKEN },
        ],
        'typical.txt',
      );
    },
  },
  {
    id: 'j',
    title: 'user-agent tokens built to agree in the low 16 bits of FNV-1a (hash flooding)',
    build() {
      const tokens = fnvLowBitCollisions(16, 13);
      const text = `${tokens.map((token) => `User-agent: ${token}\n`).join('')}Disallow: /private/\n`;
      return asText(
        text,
        [
          { label: 'last agent', url: url('/private/x'), userAgent: tokens[tokens.length - 1] },
          { label: 'ExampleBot (no group)', url: url('/private/x'), userAgent: PRODUCT_TOKEN },
        ],
        `${tokens.length} user-agent lines`,
      );
    },
  },
  {
    id: 'v',
    title: "wildcard pieces built to share one 31-polynomial hash: blocks of 'Aa' and 'BB'",
    build() {
      // 'Aa' and 'BB' hash alike under 31 * h + c, so do all 2^15 pieces of fifteen such blocks:
      // a builder that finds piece ids through that hash compares each new piece with all before.
      const pieces = Array.from({ length: 2 ** 15 }, (_, i) => {
        let piece = '';
        for (let b = 0; b < 15; b++) piece += (i >> b) & 1 ? 'Aa' : 'BB';
        return piece;
      });
      const { text, count } = fill('User-agent: *\n', (i) => {
        const line = pieces.slice((i * 40) % pieces.length, ((i * 40) % pieces.length) + 40);
        return `Disallow: /x*${line.join('*')}\n`;
      });
      return asText(
        text,
        [
          { label: "'/x' + 100 x 'Aa'", url: url(`/x${'Aa'.repeat(100)}`), userAgent: PRODUCT_TOKEN },
          { label: "8 KB '/xBBAa...'", url: url(`/x${'BBAa'.repeat(2047)}`), userAgent: PRODUCT_TOKEN },
        ],
        `${count} rules of 40 pieces`,
      );
    },
  },
  {
    id: 'w',
    title:
      "wildcard rules whose pieces share a start the path holds: 'Disallow: /*abcdefgh<6 random>' vs 8 KB path of every pair",
    build() {
      // No filter of characters or pairs rules a rule out. The gram index reads the pieces'
      // first 16 characters, which tell them from the path's.
      return sharedStart('', 'abcdefgh', 0xabcd);
    },
  },
  {
    id: 'w2',
    title:
      "as (w), after a longer piece the path holds: 'Disallow: /*<20 characters of the path>*abcdefgh<6 random>'",
    build() {
      // The longest piece of every rule is in the path: each rule is followed to its second
      // piece, which the path does not hold.
      return sharedStart(`${everyPair('abcdefgh').slice(100, 120)}*`, 'abcdefgh', 0xabce);
    },
  },
  {
    id: 'w3',
    title: "as (w), with a start as long as the gram index reads: 'Disallow: /*abcdefghijklmnop<6 random>'",
    build() {
      // Every rule is filed under the 16 characters the path holds; each is matched, and its
      // piece, found nowhere, is known absent from the hashes of the path's windows.
      return sharedStart('', 'abcdefghijklmnop', 0xabcf);
    },
  },
  {
    id: 'l',
    title: "plain rules of every length, alike: 'Disallow: /<a x N>b' vs 8 KB path '/aaa...a'",
    build() {
      // A group of plain rules found by hash (prefixes.ts) with as many distinct lengths as fit:
      // a check of the path looks up the hash of each of its prefixes that long, and none matches.
      const { text, count } = fill('User-agent: *\n', (i) => `Disallow: /${'a'.repeat(i)}b\n`);
      return asText(
        text,
        [
          { label: "8 KB '/aaa...a'", url: url(`/${'a'.repeat(8189)}`), userAgent: PRODUCT_TOKEN },
          { label: 'the longest rule', url: url(`/${'a'.repeat(count - 1)}b/x`), userAgent: PRODUCT_TOKEN },
        ],
        `${count} rules`,
      );
    },
  },
  {
    id: 'm',
    title: 'one group of plain rules that 40 crawlers name, each also with a group of its own',
    // Each crawler's rules are another combination of groups: the large group must be ranked
    // once for all of them, not once per crawler at its first check.
    build: () => sharedByCrawlers((i) => `Disallow: /section-${i % 97}/item-${i}/\n`, '/section-5/item-5/x'),
  },
  {
    id: 'n',
    title: 'case (m) with wildcard rules: one indexed group that 40 crawlers name',
    build: () =>
      sharedByCrawlers((i) => `Disallow: /*section-${i % 97}/item-${i}/\n`, '/a/section-5/item-5/x'),
  },
  {
    id: 'o',
    title: '100 groups of plain rules, each named by 40 crawlers but one: a crawler reads 40 shared tables',
    build() {
      const { agents, own } = crawlers();
      const heads = Array.from({ length: 100 }, (_, g) =>
        agents
          .filter((_, k) => k !== g)
          .map((agent) => `User-agent: ${agent}\n`)
          .join(''),
      );
      const room =
        LIMIT - Buffer.byteLength(own) - heads.reduce((sum, h) => sum + Buffer.byteLength(h) + 1, 0);
      const perGroup = Math.floor(room / 100 / `Disallow: /section-00/item-00000/\n`.length);
      let count = 0;
      const groups = heads.map((head) => {
        const rules = Array.from(
          { length: perGroup },
          () => `Disallow: /section-${count % 97}/item-${count++}/\n`,
        );
        return `${head}${rules.join('')}\n`;
      });
      const last = agents[agents.length - 1];
      return asText(
        groups.join('') + own,
        [
          { label: 'the last crawler, first check', url: url('/section-5/item-5/x'), userAgent: last },
          { label: 'the 30th crawler, no rule matches', url: url('/zzz'), userAgent: agents[29] },
        ],
        `${count} rules in 100 groups, 40 crawlers`,
      );
    },
  },
  {
    id: 'p',
    title: 'groups of 17 rules, each naming one crawler and a crawler of its own',
    build() {
      // Each group is a class of its own (a list of crawlers no other group has), which the
      // first crawler shares with another: a table per class would be one per group to read.
      const { text, count } = fill('', (g) => {
        const rules = Array.from({ length: 17 }, (_, r) => `Disallow: /p${g}/${r}\n`).join('');
        return `User-agent: bot-a\nUser-agent: own-${letters(g)}\n${rules}\n`;
      });
      return asText(
        text,
        [
          { label: 'the crawler of every group, first check', url: url('/p5/1x'), userAgent: 'bot-a' },
          { label: 'the crawler of the first group', url: url('/p0/1x'), userAgent: 'own-a' },
        ],
        `${count} groups of 17 rules`,
      );
    },
  },
  {
    id: 'q',
    title: 'groups of 17 rules, each named by another half of 40 crawlers',
    build() {
      // Each group is a class of its own: every crawler reads 32 of them and ranks the groups of
      // the others, hundreds, into a table of its own at its first check.
      const { agents } = crawlers();
      let seed = 12_345;
      const coin = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed < 2 ** 30;
      };
      const { text, count } = fill('', (g) => {
        const named = agents.filter(coin).map((agent) => `User-agent: ${agent}\n`);
        const rules = Array.from({ length: 17 }, (_, r) => `Disallow: /s${g % 97}/i${g}-${r}/\n`).join('');
        return `${named.join('')}${rules}\n`;
      });
      return asText(
        text,
        [
          { label: 'the last crawler, first check', url: url('/s5/i5-1/x'), userAgent: agents[39] },
          { label: 'the 30th crawler, first check', url: url('/zzz'), userAgent: agents[29] },
        ],
        `${count} groups of 17 rules`,
      );
    },
  },
  {
    id: 'r',
    title: 'a finding on every line: misspelt and unknown keys, missing colons, bad crawl-delays, in turn',
    build() {
      // Each line takes a path of the tokenizer and the linter that ordinary files never run,
      // and the findings pass the cap of listed ones after 200 lines.
      const lines = [
        (i: number) => `Dissallow: /typo-${i}/\n`,
        (i: number) => `Disallow /no-colon-${i}/\n`,
        (i: number) => `Disallowed: /longer-key-${i}/\n`,
        (i: number) => `Clean-param: ref${i} /x/\n`,
        (i: number) => `Unknown-${i}: value\n`,
        (i: number) => `Crawl-delay: soon-${i}\n`,
        (i: number) => `Disallow: no-slash-${i}\n`,
      ];
      const { text, count } = fill('User-agent: *\n', (i) => lines[i % lines.length](i));
      return asText(
        text,
        [
          { label: 'a misspelt rule', url: url('/typo-7/x'), userAgent: PRODUCT_TOKEN },
          { label: '8 KB path', url: url(PATH_8K_A), userAgent: PRODUCT_TOKEN },
        ],
        `${count} lines`,
      );
    },
  },
  {
    id: 's',
    title:
      "sitemap lines, each on another internationalised host: 'Sitemap: https://bücher-N.example/karte-N.xml'",
    build() {
      // Every URL goes to the URL parser, whose host needs IDNA (UTS 46) processing.
      const { text, count } = fill(
        'User-agent: *\nDisallow: /private/\n',
        (i) => `Sitemap: https://bücher-${i}.example/karte-${i}.xml\n`,
      );
      return asText(
        text,
        [{ label: '8 KB path', url: url(PATH_8K_A), userAgent: PRODUCT_TOKEN }],
        `${count} sitemaps`,
      );
    },
  },
  {
    id: 't',
    title: "allowed index pages: 'Allow: /dN/index.html', each adding its directory ('/dN/$')",
    build() {
      const { text, count } = fill('User-agent: *\nDisallow: /\n', (i) => `Allow: /d${i}/index.html\n`);
      return asText(
        text,
        [
          { label: 'the last directory', url: url(`/d${count - 1}/`), userAgent: PRODUCT_TOKEN },
          { label: '8 KB path', url: url(PATH_8K_A), userAgent: PRODUCT_TOKEN },
        ],
        `${count} rules`,
      );
    },
  },
];

/**
 * 2^levels distinct tokens whose FNV-1a hashes agree in their low `bits` bits: FNV's low bits
 * depend on nothing but the low bits of its state, so a pair of 3-letter blocks that collide
 * from one state can follow any token that reaches it, level after level.
 */
function fnvLowBitCollisions(bits: number, levels: number): string[] {
  const mask = 2 ** bits - 1;
  const step = (h: number, text: string) => {
    let state = h;
    for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 0x01000193);
    return state;
  };
  let state = 0x811c9dc5 | 0;
  let tokens = [''];
  for (let level = 0; level < levels; level++) {
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let n = 0; pair === undefined; n++) {
      // The three-letter blocks, `aaa` to `zzz`.
      const block = letters(702 + n);
      const low = step(state, block) & mask;
      const other = seen.get(low);
      if (other !== undefined) pair = [other, block];
      else seen.set(low, block);
    }
    state = step(state, pair[0]);
    tokens = tokens.flatMap((token) => [token + pair[0], token + pair[1]]);
  }
  return tokens;
}
