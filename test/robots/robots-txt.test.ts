import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';

const allowed = (body: string, url: string, agent = 'FooBot') => RobotsTxt.parse(body).isAllowed(url, agent);

describe('groups (RFC 9309 2.2.1)', () => {
  it('merges groups that name the same token', () => {
    const body =
      'user-agent: FooBot\ndisallow: /a\n\nuser-agent: BarBot\ndisallow: /b\n\nuser-agent: foobot\ndisallow: /c\n';
    const robots = RobotsTxt.parse(body);
    expect(robots.isAllowed('/a', 'FooBot')).toBe(false);
    expect(robots.isAllowed('/c', 'FooBot')).toBe(false);
    expect(robots.isAllowed('/b', 'FooBot')).toBe(true);
    expect(robots.explain('/c', 'FooBot').group.spans).toEqual([
      { startLine: 1, endLine: 2 },
      { startLine: 7, endLine: 8 },
    ]);
  });

  it("describes each crawler's own group in its verdicts, one file asked by many", () => {
    const robots = RobotsTxt.parse('user-agent: FooBot\ndisallow: /f\n\nuser-agent: BarBot\ndisallow: /b\n');
    for (let round = 0; round < 2; round++) {
      expect(robots.explain('/f', 'FooBot').group).toMatchObject({
        how: 'token',
        token: 'foobot',
        userAgentLines: [1],
      });
      expect(robots.explain('/b', 'BarBot').group).toMatchObject({
        how: 'token',
        token: 'barbot',
        userAgentLines: [4],
      });
    }
  });

  it('lets a specific group replace the * group entirely', () => {
    const body = 'user-agent: *\ndisallow: /private\n\nuser-agent: FooBot\ndisallow: /tmp\n';
    expect(allowed(body, '/private')).toBe(true);
    expect(allowed(body, '/tmp')).toBe(false);
    expect(allowed(body, '/private', 'OtherBot')).toBe(false);
  });

  it('allows everything when no group applies', () => {
    const verdict = RobotsTxt.parse('user-agent: BarBot\ndisallow: /\n').explain('/x', 'FooBot');
    expect(verdict).toMatchObject({
      allowed: true,
      reason: 'no-group',
      rule: null,
      group: { how: 'none', token: null },
    });
  });

  it('reads a user-agent value as its leading [A-Za-z_-] token', () => {
    const body =
      'user-agent: sogou spider\ndisallow: /s\nuser-agent: Googlebot/2.1 (+http://x)\ndisallow: /g\n';
    expect(allowed(body, '/s', 'sogou')).toBe(false);
    expect(allowed(body, '/s', 'spider')).toBe(true);
    expect(allowed(body, '/g', 'Googlebot')).toBe(false);
  });

  it('treats "* anything" as the star group, as Google does', () => {
    expect(allowed('user-agent: * the rest\ndisallow: /\n', '/x')).toBe(false);
  });

  it('matches the token case-insensitively', () => {
    expect(allowed('USER-AGENT: FOOBOT\nDISALLOW: /\n', '/x', 'foobot')).toBe(false);
  });

  it('ignores rules before any user-agent', () => {
    expect(allowed('disallow: /\nuser-agent: FooBot\nallow: /x\n', '/y')).toBe(true);
  });

  it('lets an empty last group allow everything and shadow *', () => {
    const body = 'user-agent: *\ndisallow: /\nuser-agent: FooBot\n';
    expect(allowed(body, '/x')).toBe(true);
    expect(RobotsTxt.parse(body).explain('/x', 'FooBot')).toMatchObject({
      reason: 'no-match',
      group: { how: 'token' },
    });
  });

  it('answers for every group of a file, whichever groups are asked about first and in any order', () => {
    // Each bot has its own rules, some groups are shared by two bots, and the groups are
    // asked about in different orders on two parses of the same file.
    // Tokens are letters only: `bot1` would name `bot`.
    const name = (g: number) => String.fromCharCode(97 + Math.floor(g / 26), 97 + (g % 26));
    const lines: string[] = [];
    for (let g = 0; g < 60; g++) {
      lines.push(`User-agent: bot-${name(g)}`);
      if (g % 3 === 0) lines.push(`User-agent: twin-${name(g)}`);
      for (let r = 0; r < 1 + (g % 7) * 20; r++) lines.push(`Disallow: /g${g}/r${r}/`);
      lines.push(`Allow: /g${g}/r0/open`, `Disallow: /*.g${g}$`, '');
    }
    const body = lines.join('\n');
    const expectations = (g: number) =>
      [
        [`/g${g}/r0/x`, false],
        [`/g${g}/r0/open/x`, true],
        [`/g${(g + 1) % 60}/r0/x`, true],
        [`/file.g${g}`, false],
        [`/file.g${g}x`, true],
      ] as const;
    const forward = RobotsTxt.parse(body);
    const backward = RobotsTxt.parse(body);
    const order = Array.from({ length: 60 }, (_, g) => g);
    for (const [robots, groups] of [
      [forward, order],
      [backward, [...order].reverse()],
    ] as const) {
      for (const g of groups) {
        for (const agent of g % 3 === 0 ? [`bot-${name(g)}`, `twin-${name(g)}`] : [`bot-${name(g)}`]) {
          for (const [path, verdict] of expectations(g)) {
            expect(robots.isAllowed(path, agent), `${agent} ${path}`).toBe(verdict);
          }
        }
      }
    }
    // Asked again after every other group has been ranked: the same answers.
    for (const g of order) {
      for (const [path, verdict] of expectations(g)) {
        expect(forward.isAllowed(path, `bot-${name(g)}`)).toBe(verdict);
      }
    }
    // Tokens the file does not name, near ones included, find no group (and there is no *).
    for (const agent of ['bot', 'bot-', 'bot-zz', 'bot-aaa', 'twin-ab', 'examplebot']) {
      expect(forward.explain('/g0/r0/x', agent).reason, agent).toBe('no-group');
    }
  });

  it('describes the group of each file when the files asked about alternate', () => {
    // More files than the selections kept, each with its group on another line, asked in turn.
    const files = Array.from({ length: 100 }, (_, i) =>
      RobotsTxt.parse(
        `${'# x\n'.repeat(i % 7)}user-agent: FooBot\ndisallow: /f${i}/\nuser-agent: *\ndisallow: /\n`,
      ),
    );
    for (let round = 0; round < 3; round++) {
      files.forEach((robots, i) => {
        const verdict = robots.explain(`/f${i}/x`, 'FooBot');
        expect(verdict.allowed).toBe(false);
        expect(verdict.group.userAgentLines).toEqual([1 + (i % 7)]);
        expect(robots.explain(`/f${i}/x`, 'OtherBot').group).toMatchObject({
          how: 'star',
          userAgentLines: [3 + (i % 7)],
        });
      });
    }
  });

  it('joins a user-agent that follows sitemap or crawl-delay lines to the open group', () => {
    const body = 'user-agent: FooBot\ncrawl-delay: 5\nuser-agent: BarBot\ndisallow: /\n';
    expect(allowed(body, '/x', 'FooBot')).toBe(false);
    expect(allowed(body, '/x', 'BarBot')).toBe(false);
    const withSitemap =
      'user-agent: FooBot\nsitemap: https://a.example/s.xml\nuser-agent: BarBot\ndisallow: /\n';
    expect(allowed(withSitemap, '/x', 'FooBot')).toBe(false);
  });
});

describe('the crawler named by a User-Agent header', () => {
  const body = 'user-agent: ExampleBot\ndisallow: /private\n';
  it.each([
    'ExampleBot',
    'examplebot',
    'ExampleBot/2.1',
    'Mozilla/5.0 (compatible; ExampleBot/2.1; +https://example.com/bot)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ExampleBot/2.1; +https://e.x/b) Chrome/120.0 Safari/537.36',
  ])('%s finds the ExampleBot group', (agent) => {
    expect(allowed(body, '/private', agent)).toBe(false);
    expect(RobotsTxt.parse(body).explain('/private', agent).productToken).toBe('examplebot');
  });
});

describe('fallbacks between crawlers', () => {
  const body =
    'user-agent: Googlebot\ndisallow: /g\nuser-agent: Yandex\ndisallow: /y\nuser-agent: *\ndisallow: /star\n';
  it.each(['Googlebot-Image', 'Googlebot-News', 'Googlebot-Video', 'Storebot-Google', 'Applebot'])(
    '%s follows Googlebot when it has no group',
    (agent) => {
      const verdict = RobotsTxt.parse(body).explain('/g', agent);
      expect(verdict.allowed).toBe(false);
      expect(verdict.group).toMatchObject({
        how: 'fallback',
        token: 'googlebot',
        fallbackFrom: agent.toLowerCase(),
      });
    },
  );
  it('YandexBot follows Yandex', () => {
    expect(RobotsTxt.parse(body).explain('/y', 'YandexBot').group).toMatchObject({
      how: 'fallback',
      token: 'yandex',
    });
  });
  it('does not fall back when the crawler has a group of its own', () => {
    const own = `${body}user-agent: Googlebot-Image\ndisallow: /img\n`;
    expect(allowed(own, '/g', 'Googlebot-Image')).toBe(true);
    expect(allowed(own, '/img', 'Googlebot-Image')).toBe(false);
  });
  it('uses * when the followed crawler has no group either', () => {
    expect(RobotsTxt.parse('user-agent: *\ndisallow: /star\n').explain('/star', 'Applebot').group.how).toBe(
      'star',
    );
  });
  it('has no fallback for other crawlers', () => {
    expect(RobotsTxt.parse(body).explain('/g', 'Googlebot-Other').group.how).toBe('star');
  });
  it.each(['constructor', 'toString', '__proto__'])('reads %s as a crawler like any other', (agent) => {
    const robots = RobotsTxt.parse(body);
    expect(robots.isAllowed('/star', agent)).toBe(false);
    expect(robots.explain('/star', agent).group).toMatchObject({ how: 'star', token: '*' });
  });
});

describe('rule precedence (RFC 9309 2.2.2)', () => {
  it('picks the longest pattern, in octets', () => {
    const body = 'user-agent: *\nallow: /page\ndisallow: /*.html\n';
    expect(allowed(body, '/page.html')).toBe(false);
    expect(allowed(body, '/page')).toBe(true);
  });
  it('lets allow win a tie', () => {
    expect(allowed('user-agent: *\ndisallow: /x\nallow: /x\n', '/x')).toBe(true);
    expect(allowed('user-agent: *\nallow: /x\ndisallow: /x\n', '/x')).toBe(true);
  });
  it('counts octets after normalisation, so an encoded pattern is as long as its characters', () => {
    // `/é` is 7 octets encoded (/%C3%A9); `/xxxxx` is 6.
    const body = 'user-agent: *\nallow: /é\ndisallow: /*\n';
    expect(RobotsTxt.parse(body).explain('/%C3%A9/x', 'a').rule).toMatchObject({ kind: 'allow', length: 7 });
  });
  it('never depends on the order of rules', () => {
    const rules = [
      'allow: /a/b',
      'disallow: /a',
      'disallow: /*.pdf$',
      'allow: /a/*.pdf$',
      'disallow: /a/b/c',
    ];
    const urls = ['/a', '/a/b', '/a/b/c', '/a/x.pdf', '/x.pdf', '/a/b/c.pdf', '/z'];
    const reference = RobotsTxt.parse(`user-agent: *\n${rules.join('\n')}`);
    const reversed = RobotsTxt.parse(`user-agent: *\n${[...rules].reverse().join('\n')}`);
    for (const url of urls) expect(reversed.isAllowed(url, 'a')).toBe(reference.isAllowed(url, 'a'));
  });
  it('allows /robots.txt always', () => {
    const verdict = RobotsTxt.parse('user-agent: *\ndisallow: /\n').explain(
      'https://a.example/robots.txt',
      'FooBot',
    );
    expect(verdict).toMatchObject({ allowed: true, reason: 'robots-txt-always-allowed' });
  });
  it('reads an empty disallow as disallowing nothing', () => {
    expect(allowed('user-agent: *\ndisallow:\n', '/x')).toBe(true);
  });
  it('reads $ in the middle of a pattern as a literal', () => {
    expect(allowed('user-agent: *\ndisallow: /a$b\n', '/a$b')).toBe(false);
    expect(allowed('user-agent: *\ndisallow: /a$b\n', '/a')).toBe(true);
  });
  it('ignores a trailing * for matching', () => {
    expect(allowed('user-agent: *\ndisallow: /fish*\n', '/fish')).toBe(false);
  });
  it('treats an allowed index.html as allowing its directory, as Google does', () => {
    const body = 'user-agent: *\nallow: /dir/index.html\ndisallow: /\n';
    const robots = RobotsTxt.parse(body);
    expect(robots.isAllowed('/dir/', 'a')).toBe(true);
    expect(robots.isAllowed('/dir/index.html', 'a')).toBe(true);
    expect(robots.isAllowed('/dir/index.htm', 'a')).toBe(false);
    expect(robots.isAllowed('/dir/other', 'a')).toBe(false);
    expect(robots.explain('/dir/', 'a').rule).toMatchObject({
      pattern: '/dir/$',
      derived: 'index-html',
      line: 2,
    });
  });
  it('keeps a wildcard of the index.html rule in the directory it derives', () => {
    const robots = RobotsTxt.parse('user-agent: *\nallow: /shop*/index.html\ndisallow: /\n');
    expect(robots.isAllowed('/shop-old/', 'a')).toBe(true);
    expect(robots.isAllowed('/shop-old/cart', 'a')).toBe(false);
    expect(robots.explain('/shop-old/', 'a').rule).toMatchObject({
      pattern: '/shop*/$',
      derived: 'index-html',
    });
  });
});

describe('percent-encoding on both sides (RFC 9309 2.2.2)', () => {
  it.each([
    ['/caf%C3%A9', '/café'],
    ['/café', '/caf%c3%a9'],
    ['/%62%61%7A', '/baz'],
    ['/baz', '/%62%61%7a'],
  ])('pattern %s matches URL path %s', (pattern, path) => {
    expect(allowed(`user-agent: *\ndisallow: ${pattern}\n`, `https://a.example${path}`)).toBe(false);
  });
  it('keeps reserved escapes literal: %2F is not /', () => {
    expect(allowed('user-agent: *\ndisallow: /a%2Fb\n', '/a/b')).toBe(true);
    expect(allowed('user-agent: *\ndisallow: /a%2Fb\n', '/a%2fb')).toBe(false);
  });
  it('matches a literal * or $ in a URL only through %2A and %24', () => {
    expect(
      allowed('user-agent: *\ndisallow: /file-with-a-%2A.html\n', 'https://a.example/file-with-a-*.html'),
    ).toBe(false);
    expect(allowed('user-agent: *\ndisallow: /foo-%24\n', 'https://a.example/foo-$')).toBe(false);
    expect(allowed('user-agent: *\ndisallow: /foo-%24\n', 'https://a.example/foo-')).toBe(true);
  });
  it("compares a URL's own * and $ as %2A and %24, on both sides (two rows of the differences from Google's parser)", () => {
    const cases: [pattern: string, url: string, disallowed: boolean][] = [
      // A `$` that does not end the pattern is a literal `$`: its normal form `%24` meets the URL's.
      ['/a$b', 'https://a.example/a%24b', true],
      ['/a$b', 'https://a.example/a$b', true],
      ['/a$*', 'https://a.example/a%24', true],
      ['/a$b', 'https://a.example/ab', false],
      // The URL's `*` and `$` are their escapes, hex digits included, as an escaped é is.
      ['/*A', 'https://a.example/*', true],
      ['/*2', 'https://a.example/a*', true],
      ['/*4', 'https://a.example/a$', true],
      ['/a%2', 'https://a.example/a$', true],
      ['/*A', 'https://a.example/caf%C3%A9', true],
      ['/*A', 'https://a.example/a-b', false],
    ];
    for (const [pattern, url, disallowed] of cases) {
      expect(allowed(`user-agent: *\ndisallow: ${pattern}\n`, url), `${pattern} vs ${url}`).toBe(!disallowed);
    }
    // The same equivalence decides between an allow and a disallow rule.
    expect(allowed('user-agent: *\nallow: /a$b\ndisallow: /\n', 'https://a.example/a%24b')).toBe(true);
  });
  it('reads a % that starts no escape as a literal %, or, cut short at the end or a *, as the start of any escape', () => {
    const cases: [pattern: string, url: string, disallowed: boolean][] = [
      // An escape cut short matches the `%` of any escape the normal form keeps (Google's reading)...
      ['/*%', 'https://a.example/caf%C3%A9', true],
      ['/*%', 'https://a.example/café', true],
      ['/*%', 'https://a.example/a%2Fb', true],
      ['/a%', 'https://a.example/a%20b', true],
      ['/a%2', 'https://a.example/a%2Fb', true],
      ['/a%f', 'https://a.example/a%fa', true],
      ['/a%e*', 'https://a.example/a%e9x', true],
      ['/a%*b', 'https://a.example/a%3Fxb', true],
      // ...and a literal `%` of the URL, which is `%25`.
      ['/*%', 'https://a.example/100%', true],
      // Not escapes decoded to unreserved characters: `/%7Euser` is `/~user`.
      ['/*%', 'https://a.example/%7Euser', false],
      ['/*%', 'https://a.example/plain', false],
      // Any other lone `%` is a literal `%`, as `%25` names it (RFC 9309 2.2.2).
      ['/a%2G', 'https://a.example/a%2G', true],
      ['/100%$', 'https://a.example/100%', true],
      ['/100%$', 'https://a.example/100%25', true],
      ['/100%$', 'https://a.example/100%20', false],
      ['/100%25', 'https://a.example/100%', true],
      ['/100%25', 'https://a.example/100%25', true],
      // A `%` and one hex digit meet a literal `%` of the URL as its `%25` (see the README's
      // differences from Google's parser): `%7` is not `%25`, and `%2` is the start of every one.
      ['/a%7', 'https://a.example/a%7Z', false],
      ['/a%7', 'https://a.example/a%7C', true],
      ['/a%2', 'https://a.example/a%7', true],
      ['/a%2', 'https://a.example/a%', true],
    ];
    for (const [pattern, url, disallowed] of cases) {
      expect([pattern, url, allowed(`user-agent: *\ndisallow: ${pattern}\n`, url)]).toEqual([
        pattern,
        url,
        !disallowed,
      ]);
    }
    expect(RobotsTxt.parse('user-agent: *\ndisallow: /*%\n').groups[0].rules[0].normalizedPattern).toBe(
      '/*%',
    );
  });
  it('quotes each rule as written next to its normal form', () => {
    const robots = RobotsTxt.parse(
      'user-agent: *\ndisallow: /caf%c3%a9/é\ndisallow: /a%2Fb\ndisallow: /a$b/x$\ndisallow: /plain*\n',
    );
    const rules = robots.groups[0].rules.map(({ pattern, normalizedPattern }) => [
      pattern,
      normalizedPattern,
    ]);
    expect(rules).toEqual([
      ['/caf%c3%a9/é', '/caf%C3%A9/%C3%A9'],
      ['/a%2Fb', '/a%2Fb'],
      ['/a$b/x$', '/a%24b/x$'],
      ['/plain*', '/plain*'],
    ]);
    expect(robots.explain('/a%2Fb/c', 'a').rule?.pattern).toBe('/a%2Fb');
    expect(robots.explain('/caf%C3%A9/%C3%A9', 'a').rule?.pattern).toBe('/caf%c3%a9/é');
  });
});

describe('reading the file', () => {
  it('accepts CR, LF and CRLF line ends', () => {
    for (const eol of ['\n', '\r', '\r\n']) {
      const robots = RobotsTxt.parse(['user-agent: *', 'disallow: /a', 'allow: /a/b'].join(eol));
      expect(robots.isAllowed('/a', 'x')).toBe(false);
      expect(robots.explain('/a/b', 'x').rule?.line).toBe(3);
    }
  });
  it('skips a UTF-8 byte order mark in bytes and in strings', () => {
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('user-agent: *\ndisallow: /\n'),
    ]);
    expect(RobotsTxt.parse(bytes).isAllowed('/x', 'a')).toBe(false);
    expect(RobotsTxt.parse('\uFEFFuser-agent: *\ndisallow: /\n').isAllowed('/x', 'a')).toBe(false);
  });
  it('keeps invalid UTF-8 as U+FFFD and reports it', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('user-agent: *\ndisallow: /a'), 0xff, 0x0a]);
    const robots = RobotsTxt.parse(bytes);
    expect(robots.isAllowed('/a%EF%BF%BD', 'x')).toBe(false);
    expect(robots.lints).toContainEqual(expect.objectContaining({ code: 'invalid-utf8', line: 2 }));
  });
  it('accepts Google typos and a missing colon', () => {
    const robots = RobotsTxt.parse(
      'useragent FooBot\ndissallow: /a\ndisallow /b\nuser agent: BarBot\ndisalow: /c\n',
    );
    expect(robots.isAllowed('/a', 'FooBot')).toBe(false);
    expect(robots.isAllowed('/b', 'FooBot')).toBe(false);
    expect(robots.isAllowed('/c', 'BarBot')).toBe(false);
  });
  it('does not read prose as a directive without a colon', () => {
    expect(RobotsTxt.parse('user-agent: *\ndisallow all of it\n').isAllowed('/x', 'a')).toBe(true);
  });
  it('strips comments and blanks around keys and values', () => {
    expect(allowed('  user-agent :  *   # everyone\n\tdisallow\t:\t/a # not /b\n', '/a')).toBe(false);
  });
  it('reads at least 500 KiB and ignores the rest from the next line end', () => {
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(520);
    const body = `user-agent: *\n${filler}disallow: /late\n`;
    const robots = RobotsTxt.parse(body);
    expect(robots.isAllowed('/late', 'a')).toBe(true);
    expect(robots.lints).toContainEqual(expect.objectContaining({ code: 'file-too-large' }));
    expect(RobotsTxt.parse(body, { maxBytes: 2_000_000 }).isAllowed('/late', 'a')).toBe(false);
    expect(RobotsTxt.parse(new TextEncoder().encode(body)).isAllowed('/late', 'a')).toBe(true);
  });
  it('cuts a string where it cuts its UTF-8 octets, at every size limit', () => {
    // Characters of two, three and four octets, a lone surrogate (U+FFFD, three octets), lines
    // that start with them, and CR, LF and CRLF line ends: every limit falls inside one of them.
    const body =
      'user-agent: *\ndisallow: /é\rdisallow: /€x\r\ndisallow: /😀\n\ndisallow: /\ud800y\né: /a\n€: /b\r😀: /c\r\n\ud800: /d\ndisallow: /z\n';
    const octets = new TextEncoder().encode(body);
    const reading = (robots: RobotsTxt) => ({
      rules: robots.groups.flatMap((group) =>
        group.rules.map((rule) => `${rule.line} ${rule.normalizedPattern}`),
      ),
      lints: robots.lints.map((lint) => `${lint.code} ${lint.line}`),
    });
    for (let maxBytes = 1; maxBytes <= octets.length + 1; maxBytes++) {
      expect(reading(RobotsTxt.parse(body, { maxBytes })), `maxBytes ${maxBytes}`).toEqual(
        reading(RobotsTxt.parse(octets, { maxBytes })),
      );
    }
  });
  it('cuts a line of many-octet characters at 16,663 octets, inside one as Google does', () => {
    // 'disallow: /' is 11 octets; 5,550 x 'é€' (5 octets each) reach 27,761; the cap falls
    // after 3,330 pairs and one more `é` (16,663 octets exactly).
    const robots = RobotsTxt.parse(`user-agent: *\ndisallow: /${'é€'.repeat(5550)}\n`);
    expect(robots.groups[0].rules[0].pattern).toBe(`/${'é€'.repeat(3330)}é`);
    expect(robots.lints).toContainEqual(expect.objectContaining({ code: 'line-too-long', line: 2 }));
    // With fewer octets before the path, the cap falls inside the next character: the octets of
    // it that fit are kept as escapes (`€` is E2 82 AC, `é` C3 A9).
    const pairs = (n: number) => `/${'é€'.repeat(n)}`;
    for (const [key, kept] of [
      ['disallow:/', `${pairs(3330)}é%E2`],
      ['allow:  /', `${pairs(3330)}é%E2%82`],
      ['allow:/', `${pairs(3331)}%C3`],
    ]) {
      const shorter = RobotsTxt.parse(`user-agent: *\n${key}${'é€'.repeat(5550)}\n`);
      expect(shorter.groups[0].rules[0].pattern, key).toBe(kept);
    }
  });
  it('keeps the octets of a character the cap cuts as escapes, from text and from bytes', () => {
    // 'disallow: ' and the path are 16,662 octets before `é` (C3 A9): its first octet is the
    // 16,663rd, kept as `%C3`, which matches only what starts with that octet.
    const path = `/${'a'.repeat(16_663 - 'disallow: '.length - 2)}`;
    const body = `user-agent: a\ndisallow: ${path}éb\n`;
    const valid = new TextEncoder().encode(body);
    // The same line in a file with an invalid octet elsewhere, read by the other path.
    const invalid = new Uint8Array([...valid, ...new TextEncoder().encode('# '), 0xff, 0x0a]);
    for (const robots of [RobotsTxt.parse(body), RobotsTxt.parse(valid), RobotsTxt.parse(invalid)]) {
      expect(robots.groups[0].rules[0].pattern).toBe(`${path}%C3`);
      expect(robots.isAllowed(`${path}b`, 'a')).toBe(true);
      expect(robots.isAllowed(`${path}é`, 'a')).toBe(false);
      expect(robots.isAllowed(`${path}ã`, 'a')).toBe(false);
      expect(robots.isAllowed(`${path}ā`, 'a')).toBe(true); // C4 81
    }
    // A four-octet character (F0 9F 98 80) of which three fit.
    const emoji = `user-agent: a\ndisallow: ${path.slice(2)}😀\n`;
    const cut = `${path.slice(2)}%F0%9F%98`;
    expect(RobotsTxt.parse(emoji).groups[0].rules[0].pattern).toBe(cut);
    expect(RobotsTxt.parse(new TextEncoder().encode(emoji)).groups[0].rules[0].pattern).toBe(cut);
  });
  it('finishes the line that crosses the size limit', () => {
    const body = `user-agent: *\ndisallow: /${'a'.repeat(200)}\n`;
    const robots = RobotsTxt.parse(body, { maxBytes: 40 });
    expect(robots.isAllowed(`/${'a'.repeat(200)}`, 'x')).toBe(false);
  });
  it('cuts a line after 16,663 octets', () => {
    const prefix = 'disallow: ';
    // The kept part of the line ends right after `${longPath}/`: `/qux` is cut off.
    const longPath = `/x/${'a'.repeat(16_663 - prefix.length - 4)}`;
    const robots = RobotsTxt.parse(`user-agent: *\n${prefix}${longPath}/qux\n`);
    expect(robots.isAllowed(`${longPath}/fux`, 'a')).toBe(false);
    expect(robots.isAllowed(longPath, 'a')).toBe(true);
    expect(robots.isAllowed('/fux', 'a')).toBe(true);
    expect(robots.lints).toContainEqual(expect.objectContaining({ code: 'line-too-long', line: 2 }));
  });
  it('measures a line of invalid UTF-8 in the octets of the file, not of its decoded text', () => {
    const line = (invalid: number, tail: string) => {
      const head = new TextEncoder().encode('user-agent: *\ndisallow: /');
      const end = new TextEncoder().encode(`${tail}\ndisallow: /x\n`);
      const bytes = new Uint8Array(head.length + invalid + end.length);
      bytes.set(head);
      bytes.fill(0xff, head.length, head.length + invalid);
      bytes.set(end, head.length + invalid);
      return RobotsTxt.parse(bytes);
    };
    // 'disallow: /' and 16,652 invalid octets: 16,663 octets, each becoming a U+FFFD.
    const kept = line(16_652, '');
    expect(kept.lints.map((l) => l.code)).toEqual(['invalid-utf8']);
    expect(kept.groups[0].rules.map((rule) => rule.pattern.length)).toEqual([16_653, 2]);
    // One octet more: the line is cut where its octets reach the cap, and the rest ignored.
    const cut = line(16_652, 'tail');
    expect(cut.lints.find((l) => l.code === 'line-too-long')).toMatchObject({ line: 2 });
    expect(cut.lints.find((l) => l.code === 'line-too-long')?.message).toContain('16667 bytes');
    expect(cut.groups[0].rules.map((rule) => rule.pattern.length)).toEqual([16_653, 2]);
  });
  it('reads no rules from an HTML page', () => {
    const robots = RobotsTxt.parse(
      '<!DOCTYPE html>\n<html><body>\nUser-agent: *\nDisallow: /\n</body></html>',
    );
    expect(robots.isAllowed('/x', 'a')).toBe(true);
    expect(robots.lints.map((l) => l.code)).toEqual(['looks-like-html']);
    expect(robots.looksLikeHtml).toBe(true);
    const read = RobotsTxt.parse('<html>\nuser-agent: *\ndisallow: /\n', { rejectHtml: false });
    expect(read.isAllowed('/x', 'a')).toBe(false);
    expect(read.looksLikeHtml).toBe(false);
    expect(RobotsTxt.parse('').looksLikeHtml).toBe(false);
    expect(RobotsTxt.parse('user-agent: *\ndisallow: /\n').looksLikeHtml).toBe(false);
  });
  it.each([
    ['a comment first', '<!-- generated -->\n<!DOCTYPE html>\n<html><body>\nUser-agent: *\nDisallow: /\n'],
    ['an XML declaration first', '<?xml version="1.0"?>\n<html>\n<pre>\nUser-agent: *\nDisallow: /\n</pre>'],
    ['only a title', '<title>Not found</title>\n<pre>User-agent: *\nDisallow: /\n</pre>'],
    ['a meta tag first', '<meta charset="utf-8"/>\n<h1>Oops</h1>\nUser-agent: *\nDisallow: /\n'],
    ['a script first', '<script>location.href = "/"</script>\nUser-agent: *\nDisallow: /\n'],
  ])('reads no rules from an HTML page with %s', (_name, body) => {
    const robots = RobotsTxt.parse(body);
    expect(robots.looksLikeHtml).toBe(true);
    expect(robots.isAllowed('/x', 'a')).toBe(true);
  });
  it('reads the rules of a file that only starts with an HTML comment', () => {
    const robots = RobotsTxt.parse('<!-- made by the CMS -->\nUser-agent: *\nDisallow: /x\n');
    expect(robots.looksLikeHtml).toBe(false);
    expect(robots.isAllowed('/x', 'a')).toBe(false);
  });
  it('rejects what is not a body, saying what it takes', () => {
    expect(() => RobotsTxt.parse(42 as unknown as string)).toThrow(/string or a Uint8Array/);
    expect(() => RobotsTxt.parse('', { maxBytes: -1 })).toThrow(/maxBytes/);
  });
  it('explains with null options as with none', () => {
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /a\n');
    const verdict = robots.explain('/a/b', 'ExampleBot', null as unknown as undefined);
    expect(verdict).toEqual(robots.explain('/a/b', 'ExampleBot'));
    expect(verdict.rule?.line).toBe(2);
  });
  it('rejects options that are not an object, or of the wrong type, saying what it takes', () => {
    expect(() => RobotsTxt.parse('', null as unknown as object)).toThrow(
      /options must be an object, got null/,
    );
    expect(() => RobotsTxt.parse('', 5 as unknown as object)).toThrow(
      /options must be an object, got number/,
    );
    // A value of the wrong type is a TypeError, one out of range a RangeError, as everywhere else.
    expect(() => RobotsTxt.parse('', { maxBytes: '10' as unknown as number })).toThrow(
      new TypeError('maxBytes must be a positive integer, got "10".'),
    );
    expect(() => RobotsTxt.parse('', { maxBytes: true as unknown as number })).toThrow(TypeError);
    // A bigint is shown as one: `got 10` would read as if 10 were refused.
    expect(() => RobotsTxt.parse('', { maxBytes: 10n as unknown as number })).toThrow(
      new TypeError('maxBytes must be a positive integer, got 10n.'),
    );
    expect(() => RobotsTxt.parse('', { maxBytes: 1.5 })).toThrow(
      new RangeError('maxBytes must be a positive integer, got 1.5.'),
    );
    expect(() => RobotsTxt.parse('', { maxBytes: 0 })).toThrow(RangeError);
    // A string is no boolean: 'no' would otherwise reject HTML, the opposite of what it says.
    expect(() => RobotsTxt.parse('', { rejectHtml: 'no' as unknown as boolean })).toThrow(
      'rejectHtml must be true or false, got "no".',
    );
    expect(
      RobotsTxt.parse('<html>\nuser-agent: *\ndisallow: /\n', { rejectHtml: false }).isAllowed('/x', 'a'),
    ).toBe(false);
  });
  it('refuses an option it does not read, which would otherwise leave its default in place without a word', () => {
    expect(() => RobotsTxt.parse('User-agent: *\nDisallow: /abcdef\n', { maxByte: 10 } as object)).toThrow(
      'RobotsTxt.parse() has no option "maxByte": its options are maxBytes, rejectHtml.',
    );
    // Unset is unset, whatever the key.
    expect(
      RobotsTxt.parse('User-agent: *\nDisallow: /a\n', { maxByte: undefined } as object).isAllowed('/a', 'x'),
    ).toBe(false);
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /a\n');
    expect(() => robots.explain('/a', 'x', { candidate: false } as object)).toThrow(
      'explain() has no option "candidate": its options are candidates.',
    );
    expect(() => robots.explain('/a', 'x', { candidates: 'no' as unknown as boolean })).toThrow(
      'candidates must be true or false, got "no".',
    );
    expect(() => robots.explain('/a', 'x', 7 as unknown as object)).toThrow(
      'explain() options must be an object, got 7.',
    );
    expect(robots.explain('/a', 'x', { candidates: false }).rule?.line).toBe(2);
  });
});

describe('texts of every size read alike', () => {
  // A pass reads the code units of its text from a buffer shared by every parse, grown to the
  // largest text read up to the default size cap; a text over the cap gets a buffer of its own.
  const rule = 'Disallow: /archive/2019/a-long-path-that-fills-the-file/\n';

  it('reads a text longer than the default size cap, given a larger maxBytes', () => {
    const body = `User-agent: *\n${rule.repeat(12_000)}Disallow: /last\nAllow: /last/open`;
    expect(body.length).toBeGreaterThan(600 * 1024);
    const robots = RobotsTxt.parse(body, { maxBytes: 1024 * 1024 });
    expect(robots.isAllowed('/last/x', 'a')).toBe(false);
    expect(robots.explain('/last/open', 'a').rule).toMatchObject({ kind: 'allow', line: 12_003 });
    expect(robots.isAllowed('/archive/2019/a-long-path-that-fills-the-file/', 'a')).toBe(false);
  });

  it('reads nothing of an earlier, longer text past the end of the next one', () => {
    RobotsTxt.parse(`User-agent: *\n${rule.repeat(5_000)}`);
    // Ends without a line end, where the longer text went on with `a-long-path...`.
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /archive/2019/');
    expect(robots.explain('/archive/2019/a', 'a').rule).toMatchObject({
      pattern: '/archive/2019/',
      line: 2,
    });
    expect(RobotsTxt.parse('User-agent: *\nDisallow: /x #').explain('/x', 'a').rule?.pattern).toBe('/x');
  });
});

describe('groups with many plain rules', () => {
  /** The longest rule that is a prefix of the path, allow on a tie: the rule, read slowly. */
  function slowly(rules: readonly (readonly [boolean, string])[], path: string): boolean {
    let best: readonly [boolean, string] | undefined;
    for (const rule of rules) {
      if (!path.startsWith(rule[1])) continue;
      if (
        best === undefined ||
        rule[1].length > best[1].length ||
        (rule[1].length === best[1].length && rule[0])
      )
        best = rule;
    }
    return best === undefined || best[0];
  }

  const paths = (n: number) => [
    '/d5/x',
    `/d${n - 1}/y`,
    '/d100/open/x',
    '/d100/opex',
    '/d1000/open',
    '/e/x',
    '/zzz',
    '/d',
    `/d${n}/`,
    '/d12/sub/deep/x',
    '/d12/sub/deeper',
  ];

  it.each([
    // More plain rules in one group than a packed table holds.
    ['20,000 rules in one group', 20_000, 500 * 1024],
    // More rule ids in the file than a packed entry holds: only with a raised size cap.
    ['140,000 rules in the file', 140_000, 4 * 1024 * 1024],
  ])('agrees with a slow reading: %s', (_, n, maxBytes) => {
    const rules: (readonly [boolean, string])[] = [
      [false, '/'],
      [true, '/e'],
      [false, '/d12/sub/'],
      [true, '/d12/sub/deep'],
    ];
    for (let i = 0; i < n; i++) {
      rules.push([false, `/d${i}/`]);
      if (i % 100 === 0) rules.push([true, `/d${i}/open/`]);
    }
    const body = `user-agent: *\n${rules.map(([allow, p]) => `${allow ? 'allow' : 'disallow'}: ${p}`).join('\n')}\n`;
    const robots = RobotsTxt.parse(body, { maxBytes });
    // Only what the cap let in counts.
    const read = robots.groups[0].rules.length;
    const kept = rules.slice(0, read);
    for (const path of paths(n)) expect(robots.isAllowed(path, 'a'), path).toBe(slowly(kept, path));
  });
});

describe('long patterns that share most of their characters', () => {
  const shared = `/${'b'.repeat(3000)}`;
  const rules = Array.from({ length: 40 }, (_, i) => `${i % 2 ? 'allow' : 'disallow'}: ${shared}/${i}`);
  const robots = RobotsTxt.parse(`user-agent: *\ndisallow: ${shared}\n${rules.join('\n')}\n`);

  it('finds the longest match among them', () => {
    expect(robots.explain(`${shared}/7/x`, 'a').rule).toMatchObject({ kind: 'allow', length: 3003 });
    expect(robots.explain(`${shared}/38`, 'a').rule).toMatchObject({ kind: 'disallow', length: 3004 });
    // /3 matches, /39 does not: the parent chain leads back from the nearest pattern.
    expect(robots.explain(`${shared}/3x`, 'a').rule).toMatchObject({ kind: 'allow', length: 3003 });
    expect(robots.explain(`${shared}/x`, 'a').rule).toMatchObject({ kind: 'disallow', length: 3001 });
    expect(robots.isAllowed(`${shared.slice(0, -1)}`, 'a')).toBe(true);
  });
});

describe('many wildcard rules', () => {
  const rules = Array.from({ length: 300 }, (_, i) => `disallow: /*x${i}y*z$`).join('\n');
  const robots = RobotsTxt.parse(`user-agent: *\nallow: /*keep*z$\n${rules}\n`);
  const body = Array.from({ length: 200 }, (_, i) => `x${i * 3}y`).join('');

  it('finds the rule whose pieces a long path holds, and skips the others', () => {
    // The longest patterns that match tie; the first of them in the file decides.
    expect(robots.explain(`/${body}z`, 'a').rule).toMatchObject({ kind: 'disallow', pattern: '/*x102y*z$' });
    expect(robots.isAllowed(`/${body}q`, 'a')).toBe(true);
    expect(robots.isAllowed(`/keep/x1y${body}z`, 'a')).toBe(false);
    expect(robots.isAllowed(`/${'q'.repeat(8000)}x299y-z`, 'a')).toBe(false);
    expect(robots.isAllowed(`/${'q'.repeat(8000)}x299y-zq`, 'a')).toBe(true);
  });

  it('skips the chunks of rules that need a character the path lacks, and only those', () => {
    const needZ = Array.from({ length: 200 }, (_, i) => `disallow: /*z${i}z`).join('\n');
    const mixed = RobotsTxt.parse(`user-agent: *\n${needZ}\nallow: /*.h\ndisallow: /*z5z.h$\n`);
    expect(mixed.explain('/a.html', 'a').rule).toMatchObject({ kind: 'allow', pattern: '/*.h' });
    expect(mixed.explain('/z7z.html', 'a').rule).toMatchObject({ kind: 'disallow', pattern: '/*z7z' });
    expect(mixed.explain('/x/z5z.h', 'a').rule).toMatchObject({ kind: 'disallow', pattern: '/*z5z.h$' });
    expect(mixed.explain('/x/z5z.html', 'a').rule).toMatchObject({ pattern: '/*z5z' });
  });

  it('skips the chunks of rules that need a pair of characters the path lacks, and only those', () => {
    // Every rule has the pair `ab`; a path of `a`s after one `b` holds every character but not that pair.
    const alike = Array.from(
      { length: 400 },
      (_, i) => `disallow: /b${'a'.repeat(i % 50)}*${'a'.repeat(8 + (Math.floor(i / 50) % 8))}b`,
    );
    const pairs = RobotsTxt.parse(`user-agent: *\n${alike.join('\n')}\n`);
    expect(pairs.isAllowed(`/b${'a'.repeat(8000)}`, 'a')).toBe(true);
    // With the pair at its end, the longest rule the path holds decides.
    expect(pairs.explain(`/b${'a'.repeat(8000)}b`, 'a').rule).toMatchObject({
      pattern: `/b${'a'.repeat(49)}*${'a'.repeat(15)}b`,
    });
    // `/b` and eleven `a`s before the `b`: four rules fit; they tie, and the first in the file decides.
    expect(pairs.explain(`/b${'a'.repeat(11)}b`, 'a').rule).toMatchObject({
      pattern: `/baaa*${'a'.repeat(8)}b`,
    });
  });

  it('indexes a group once however many user-agent lines name it', () => {
    // 20,000 tokens share one group of 300 wildcard rules: one ranked table, one index.
    const agents = Array.from(
      { length: 20_000 },
      (_, i) => `user-agent: ua-${i.toString(36).replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`,
    );
    const shared = RobotsTxt.parse(`${agents.join('\n')}\n${rules}\n`);
    expect(shared.retainedBytes).toBeLessThan(4 * (agents.join('\n').length + rules.length));
    expect(shared.isAllowed(`/${body}z`, 'ua-a')).toBe(false);
    expect(shared.isAllowed(`/${body}z`, 'ua-baa')).toBe(false);
    expect(shared.isAllowed(`/${body}q`, 'ua-baa')).toBe(true);
  });

  it('ranks a bounded share of the tables while parsing when tokens name many combinations of groups', () => {
    // Token t names every group but group t: 30 tables of 29 groups x 60 wildcard rules each.
    const token = (t: number) => `bot-${String.fromCharCode(97 + Math.floor(t / 26), 97 + (t % 26))}`;
    const lines: string[] = [];
    for (let g = 0; g < 30; g++) {
      for (let t = 0; t < 30; t++) if (t !== g) lines.push(`user-agent: ${token(t)}`);
      for (let r = 0; r < 60; r++) lines.push(`disallow: /*x${g}_${r}y*z$`);
    }
    const text = `${lines.join('\n')}\n`;
    const combos = RobotsTxt.parse(text);
    // Room for all 30 tables would take 30 x 5,220 ints.
    expect(combos.retainedBytes).toBeLessThan(6 * text.length);
    for (const t of [0, 7, 29]) {
      expect(combos.isAllowed(`/x${(t + 1) % 30}_5y/z`, token(t))).toBe(false);
      expect(combos.isAllowed(`/x${t}_5y/z`, token(t))).toBe(true);
    }
  });

  it('answers a path of a million characters without the piece filter', () => {
    const path = `/${'ab'.repeat(500_000)}x150yz`;
    expect(robots.explain(path, 'a').rule).toMatchObject({ pattern: '/*x150y*z$' });
  });
});

describe('extensions', () => {
  const body = [
    'Sitemap: https://a.example/one.xml',
    'user-agent: FooBot',
    'crawl-delay: 2.5',
    'disallow: /x',
    'sitemap: https://a.example/two.xml',
    'sitemap: /relative.xml',
    'user-agent: *',
    'crawl-delay: 10',
    'Sitemap: https://a.example/one.xml',
  ].join('\n');
  const robots = RobotsTxt.parse(body);
  it('lists absolute sitemaps from anywhere in the file, in order, once', () => {
    expect(robots.sitemaps).toEqual(['https://a.example/one.xml', 'https://a.example/two.xml']);
  });
  it('lists each sitemap as the URL it is, once however it is spelt', () => {
    const sitemaps = RobotsTxt.parse(
      [
        'Sitemap: https://example.com/s.xml',
        'sitemap:https://example.com/s.xml',
        'SITEMAP: HTTPS://EXAMPLE.COM/s.xml',
        'Sitemap: https://example.com:443/s.xml',
        'Sitemap: https://example.com/./s.xml',
        'Sitemap: https://example.com/é.xml',
        'Sitemap: https://example.com/%C3%A9.xml',
        'Sitemap: http://example.com/s.xml',
        'Sitemap: https://example.com:8443/s.xml',
        'Sitemap: https://bücher.example/s.xml',
      ].join('\n'),
    ).sitemaps;
    expect(sitemaps).toEqual([
      'https://example.com/s.xml',
      'https://example.com/%C3%A9.xml',
      'http://example.com/s.xml',
      'https://example.com:8443/s.xml',
      'https://xn--bcher-kva.example/s.xml',
    ]);
  });
  it('lists only what new URL reads as an http(s) URL with a host', () => {
    const sitemaps = RobotsTxt.parse(
      [
        'Sitemap: https://exa mple.com/x.xml',
        'Sitemap: https://user@/x.xml',
        'Sitemap: https://example.com/s.xml extra words',
        'Sitemap: https:/example.com/one-slash.xml',
        'Sitemap: ftp://example.com/s.xml',
        'Sitemap: //example.com/s.xml',
        'Sitemap: <https://example.com/angle.xml>',
        'Sitemap: https://example.com/ok.xml # a comment',
      ].join('\n'),
    ).sitemaps;
    expect(sitemaps).toEqual(['https://example.com/ok.xml']);
  });
  it('keeps the repeats out of a long list of sitemaps', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `Sitemap: https://example.com/s${i % 20}.xml`);
    lines.push('Sitemap: HTTPS://Example.com:443/s3.xml');
    const sitemaps = RobotsTxt.parse(lines.join('\n')).sitemaps;
    expect(sitemaps).toEqual(Array.from({ length: 20 }, (_, i) => `https://example.com/s${i}.xml`));
  });
  it('reads crawl-delay of the group that applies', () => {
    expect(robots.crawlDelay('FooBot')).toBe(2.5);
    expect(robots.crawlDelay('Mozilla/5.0 (compatible; OtherBot/1)')).toBe(10);
    expect(RobotsTxt.parse('user-agent: *\ndisallow: /\n').crawlDelay('a')).toBeUndefined();
  });
  it.each([
    ['.5', 0.5],
    ['10.', 10],
    ['1.25', 1.25],
  ])('reads crawl-delay %s as a number of seconds, without a finding', (value, seconds) => {
    const parsed = RobotsTxt.parse(`user-agent: *\ncrawl-delay: ${value}\n`);
    expect(parsed.crawlDelay('a')).toBe(seconds);
    expect(parsed.lints.map((l) => l.code)).toEqual(['crawl-delay-extension']);
  });
  it.each(['1e3', '-1', '1.2.3', '.', 'five'])('ignores crawl-delay %s and says so', (value) => {
    const parsed = RobotsTxt.parse(`user-agent: *\ncrawl-delay: ${value}\n`);
    expect(parsed.crawlDelay('a')).toBeUndefined();
    expect(parsed.lints.map((l) => l.code)).toEqual(['invalid-crawl-delay']);
  });
  it('does not let sitemap lines end a group', () => {
    expect(robots.isAllowed('/x', 'FooBot')).toBe(false);
  });
});

describe('groups as written', () => {
  it('lists user-agent lines, spans, rules and delays', () => {
    const robots = RobotsTxt.parse(
      '# c\nuser-agent: A\nuser-agent: B/1\ndisallow: /a\ncrawl-delay: 1\n\nuser-agent: *\nallow: /\n',
    );
    expect(robots.groups).toEqual([
      {
        userAgents: [
          { value: 'A', token: 'a', line: 2 },
          { value: 'B/1', token: 'b', line: 3 },
        ],
        startLine: 2,
        endLine: 5,
        rules: [{ kind: 'disallow', pattern: '/a', normalizedPattern: '/a', line: 4 }],
        crawlDelay: 1,
      },
      {
        userAgents: [{ value: '*', token: '*', line: 7 }],
        startLine: 7,
        endLine: 8,
        rules: [{ kind: 'allow', pattern: '/', normalizedPattern: '/', line: 8 }],
      },
    ]);
  });
});
