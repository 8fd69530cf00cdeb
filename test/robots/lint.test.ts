import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';

const fixture = readFileSync(new URL('./fixtures/lints.txt', import.meta.url), 'utf8');

describe('lints', () => {
  const lints = RobotsTxt.parse(fixture).lints;

  it.each([
    ['rule-before-user-agent', 1],
    ['user-agent-joins-group', 4],
    ['absolute-url-pattern', 5],
    ['pattern-not-rooted', 6],
    ['accepted-typo', 7],
    ['missing-colon', 8],
    ['noindex-unsupported', 9],
    ['crawl-delay-extension', 10],
    ['invalid-crawl-delay', 11],
    ['unsupported-directive', 12],
    ['unknown-directive', 13],
    ['unparsable-line', 14],
    ['sitemap-not-absolute', 15],
    ['duplicate-rule', 17],
    ['conflicting-rules', 19],
    ['empty-user-agent', 20],
  ] as const)('%s on line %i', (code, line) => {
    const lint = lints.find((l) => l.code === code);
    expect(lint).toBeDefined();
    expect(lint).toMatchObject({ code, line });
    expect(lint!.message.length).toBeGreaterThan(20);
  });

  it('names the misspelled key and the correct one', () => {
    expect(lints.find((l) => l.code === 'accepted-typo')!.message).toMatch(/"Dissallow".*"Disallow"/);
  });

  it('points the joining user-agent at the line that did not end the list', () => {
    expect(lints.find((l) => l.code === 'user-agent-joins-group')!.message).toMatch(
      /line 2.*line 3.*are one group and all follow the same rules/,
    );
  });

  it.each([
    ['Disallow: x', /"x" .* Did you mean "\/x"\?$/],
    ['Disallow:: /x', /": \/x" .* second colon\. Did you mean "\/x"\?$/],
    ['Allow::*.pdf$', /second colon\. Did you mean "\*\.pdf\$"\?$/],
    ['Disallow: :x', /second colon\. Did you mean "\/x"\?$/],
    ['Disallow: \\Documentacion\\', /never a backslash\. Did you mean "\/Documentacion\/"\?$/],
    ['Disallow: docs\\old', /never a backslash\. Did you mean "\/docs\/old"\?$/],
  ])('suggests the pattern meant for %s', (line, message) => {
    const lint = RobotsTxt.parse(`User-agent: *\n${line}\n`).lints.find(
      (l) => l.code === 'pattern-not-rooted',
    );
    expect(lint?.message).toMatch(message);
  });

  it.each([
    [
      'User-agent: a\nDisallow: /a\n\nUser-agent: A\nAllow: /a\n',
      [[4, /line 1, names "a": for that crawler the two are one group/]],
    ],
    [
      'User-agent: *\nDisallow: /a\n\nUser-agent: b\nUser-agent: * extra\nAllow: /a\n\nUser-agent: *\nDisallow: /c\n',
      [
        [5, /line 1, is for every crawler \("\*"\)/],
        [8, /line 1, is for every crawler/],
      ],
    ],
    [
      'User-agent: a\nUser-agent: b\nDisallow: /x\n\nUser-agent: b\nUser-agent: a\nDisallow: /y\n',
      [
        [5, /line 2, names "b"/],
        [6, /line 1, names "a"/],
      ],
    ],
    // One group naming a crawler twice, and groups naming different crawlers: nothing merges.
    ['User-agent: a\nUser-agent: A\nDisallow: /a\n\nUser-agent: b\nDisallow: /b\n', []],
  ] as const)('says where a later group names a crawler an earlier one names: %j', (body, expected) => {
    const found = RobotsTxt.parse(body)
      .lints.filter((l) => l.code === 'groups-merge')
      .map((l) => [l.line, l.message] as const);
    expect(found.map(([line]) => line)).toEqual(expected.map(([line]) => line));
    found.forEach(([, message], i) => {
      expect(message).toMatch(expected[i][1]);
    });
  });

  it.each([
    [
      'User-agent: a\nDisallow: /x\n\nUser-agent: a\nAllow: /x\n',
      [
        [
          'conflicting-rules',
          5,
          /^For "a", Allow and Disallow name the same pattern here and on line 2, .*Allow wins/,
        ],
      ],
    ],
    [
      'User-agent: a\nDisallow: /x\n\nUser-agent: A\nDisallow: /x\n',
      [['duplicate-rule', 5, /^For "a", this rule repeats line 2, in a group/]],
    ],
    [
      'User-agent: *\nDisallow: /x%2d\n\nUser-agent: *\nDisallow: /x-\n',
      [['duplicate-rule', 5, /^For every crawler \("\*"\), this rule repeats line 2/]],
    ],
    // Named by both groups twice over: one finding for the rule, not one per crawler.
    [
      'User-agent: a\nUser-agent: b\nDisallow: /x\n\nUser-agent: b\nUser-agent: a\nDisallow: /x\n',
      [['duplicate-rule', 7, /repeats line 3/]],
    ],
    // Repeated in its own group as well: told once, by its own group.
    [
      'User-agent: a\nDisallow: /x\n\nUser-agent: a\nDisallow: /x\nDisallow: /x\n',
      [
        ['duplicate-rule', 5, /^For "a", this rule repeats line 2/],
        ['duplicate-rule', 6, /^This rule repeats line 5\./],
      ],
    ],
    // Groups for different crawlers never weigh their rules together.
    ['User-agent: a\nDisallow: /x\n\nUser-agent: b\nAllow: /x\n', []],
  ] as const)('finds rules repeated or contradicted across groups that merge: %j', (body, expected) => {
    const found = RobotsTxt.parse(body)
      .lints.filter((l) => l.code === 'duplicate-rule' || l.code === 'conflicting-rules')
      .map((l) => [l.code, l.line, l.message] as const);
    expect(found.map(([code, line]) => [code, line])).toEqual(expected.map(([code, line]) => [code, line]));
    found.forEach(([, , message], i) => {
      expect(message).toMatch(expected[i][2]);
    });
  });

  it('counts rules repeated across groups within the budget of 200', () => {
    const group = `User-agent: *\n${Array.from({ length: 150 }, (_, i) => `Disallow: /p${i}\n`).join('')}`;
    const lints = RobotsTxt.parse(`${group}\n${group}`).lints;
    expect(lints.filter((l) => l.code === 'duplicate-rule')).toHaveLength(150);
    const twice = RobotsTxt.parse(`${group}\n${group}\n${group}`).lints;
    expect(twice.filter((l) => l.code === 'duplicate-rule')).toHaveLength(200);
    expect(twice.at(-1)).toMatchObject({
      code: 'too-many-findings',
      // 300 repeated rules and the two later groups' groups-merge findings, 200 of them listed.
      message: expect.stringMatching(/^102 more/),
    });
  });

  it('lists findings in line order', () => {
    const lines = lints.map((l) => l.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it('reports nothing for a clean file', () => {
    const clean =
      'User-agent: *\nDisallow: /private/\nAllow: /private/press/\n\nSitemap: https://example.com/s.xml\n';
    expect(RobotsTxt.parse(clean).lints).toEqual([]);
  });

  it('says that a file without a directive allows everything, and only then', () => {
    for (const body of [
      '',
      '\n\n',
      '   \r\n\t\n',
      '# robots.txt of example.com\n\n# nothing here yet\n',
      '\uFEFF',
    ]) {
      expect(RobotsTxt.parse(body).lints.map((l) => [l.code, l.severity, l.line])).toEqual([
        ['empty-file', 'info', 1],
      ]);
      expect(RobotsTxt.parse(new TextEncoder().encode(body)).lints.map((l) => l.code)).toEqual([
        'empty-file',
      ]);
    }
    expect(RobotsTxt.parse('').lints[0].message).toMatch(/every crawler may fetch every URL/);
    // Invalid bytes in a comment: both findings.
    expect(RobotsTxt.parse(Uint8Array.of(0x23, 0xff, 0x0a)).lints.map((l) => l.code)).toEqual([
      'empty-file',
      'invalid-utf8',
    ]);
    // A sitemap line, a user-agent line without rules, a line of another crawler's directive, an
    // unparsable line, an HTML page: each has something to say, or says it otherwise.
    // Comments up to the size limit, rules after it: the file is not empty, only cut.
    const cut = RobotsTxt.parse(
      `${'# a comment of thirty-odd bytes\n'.repeat(40)}User-agent: *\nDisallow: /\n`,
      {
        maxBytes: 1000,
      },
    );
    expect(cut.lints.map((l) => l.code)).toEqual(['file-too-large']);
    for (const body of [
      'Sitemap: https://example.com/s.xml\n',
      'User-agent: *\n',
      'Host: example.com\n',
      'hello\n',
      '<!DOCTYPE html><html><body>Not found</body></html>',
    ])
      expect(RobotsTxt.parse(body).lints.map((l) => l.code)).not.toContain('empty-file');
  });

  it('reports a file cut at the size limit with the first ignored line', () => {
    const body = `User-agent: *\n${'Disallow: /a\n'.repeat(100)}Disallow: /late\n`;
    const lint = RobotsTxt.parse(body, { maxBytes: 600 }).lints.find((l) => l.code === 'file-too-large');
    // 14 octets for the first line, 13 for each rule: line 47 holds octets 599-611, so it is
    // read to its end and line 48 is the first one ignored.
    expect(lint?.line).toBe(48);
  });
});

describe('a file of garbage', () => {
  it('lists an error past the 200 findings: the one rule that matches nothing is not hidden', () => {
    const body = `${'Foo: bar\n'.repeat(300)}User-agent: *\nDisallow: https://e.com/x\nDisallow: https://e.com/y\n`;
    const lints = RobotsTxt.parse(body).lints;
    expect(lints.filter((l) => l.severity === 'error')).toEqual([
      expect.objectContaining({ code: 'absolute-url-pattern', line: 302 }),
      expect.objectContaining({ code: 'absolute-url-pattern', line: 303 }),
    ]);
    expect(lints).toHaveLength(203);
    expect(lints.at(-1)).toMatchObject({
      code: 'too-many-findings',
      message: '100 more findings are not listed (at most 200 are, and errors past them).',
    });
    // Past the cap, errors are listed up to 200 more.
    const errors = RobotsTxt.parse(`User-agent: *\n${'Disallow: https://e.com/x\n'.repeat(500)}`).lints;
    expect(errors.filter((l) => l.code === 'absolute-url-pattern')).toHaveLength(400);
  });

  it('lists at most 200 findings and says how many more there were', () => {
    const body = `user-agent: *\n${'this is not a rule\n'.repeat(1000)}`;
    const lints = RobotsTxt.parse(body).lints;
    expect(lints).toHaveLength(201);
    expect(lints.at(-1)).toMatchObject({
      code: 'too-many-findings',
      message: expect.stringMatching(/^800 more/),
    });
  });

  it('lists at most 200 repeated rules and says how many more there were', () => {
    const body = `user-agent: *\n${'disallow: /same\n'.repeat(1000)}`;
    const lints = RobotsTxt.parse(body).lints;
    expect(lints.filter((l) => l.code === 'duplicate-rule')).toHaveLength(200);
    expect(lints.at(-1)).toMatchObject({
      code: 'too-many-findings',
      line: 202,
      message: expect.stringMatching(/^799 more findings are not listed/),
    });
  });

  it('shares one budget of 200 between line findings and repeated rules, with one note', () => {
    const lines = [
      ...Array.from({ length: 300 }, (_, i) => `Foo${i}: x`),
      'User-agent: *',
      ...Array.from({ length: 301 }, () => 'Disallow: /same'),
    ];
    const lints = RobotsTxt.parse(lines.join('\n')).lints;
    expect(lints).toHaveLength(201);
    const notes = lints.filter((l) => l.code === 'too-many-findings');
    expect(notes).toHaveLength(1);
    // 100 unknown directives and 300 repeated rules past the first 200 findings.
    expect(notes[0].message).toMatch(/^400 more findings are not listed/);
    expect(lints.at(-1)).toBe(notes[0]);
  });

  it('gives repeated rules the room the line findings leave', () => {
    const lines = [
      ...Array.from({ length: 150 }, (_, i) => `Foo${i}: x`),
      'User-agent: *',
      ...Array.from({ length: 101 }, () => 'Disallow: /same'),
    ];
    const lints = RobotsTxt.parse(lines.join('\n')).lints;
    expect(lints.filter((l) => l.code === 'unknown-directive')).toHaveLength(150);
    expect(lints.filter((l) => l.code === 'duplicate-rule')).toHaveLength(50);
    expect(lints.at(-1)).toMatchObject({
      code: 'too-many-findings',
      message: expect.stringMatching(/^50 more/),
    });
  });

  it('keeps findings about the whole file on top of the 200', () => {
    const body = `user-agent: *\n${'this is not a rule\n'.repeat(300)}${'disallow: /same\n'.repeat(50)}`;
    const lints = RobotsTxt.parse(body, { maxBytes: 6000 }).lints;
    expect(lints.filter((l) => l.code === 'file-too-large')).toHaveLength(1);
    expect(lints.filter((l) => l.code === 'too-many-findings')).toHaveLength(1);
    expect(lints).toHaveLength(202);
  });
});

describe('a file over the size limit', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it.each([
    ['without a last line end', 'User-agent: *\nDisallow: /ab'],
    ['with a last line end', 'User-agent: *\nDisallow: /ab\n'],
    ['with blank lines after the limit', 'User-agent: *\nDisallow: /ab\r\n\r\n  \n'],
  ])('is not reported when nothing past the limit is dropped: %s', (_, body) => {
    for (const input of [body, encode(body)]) {
      const robots = RobotsTxt.parse(input, { maxBytes: 26 });
      expect(robots.isAllowed('/ab', 'x')).toBe(false);
      expect(robots.lints.map((l) => l.code)).not.toContain('file-too-large');
    }
  });

  it.each([
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ])('names the first line it ignores, with %s line ends', (_, eol) => {
    const body = ['User-agent: *', 'Disallow: /ab', 'Disallow: /late', ''].join(eol);
    for (const input of [body, encode(body)]) {
      const robots = RobotsTxt.parse(input, { maxBytes: 26 });
      expect(robots.isAllowed('/late', 'x')).toBe(true);
      expect(robots.lints.find((l) => l.code === 'file-too-large')).toMatchObject({
        line: 3,
        message: expect.stringContaining('from line 3 on'),
      });
    }
  });
});

describe('the first line past the size limit', () => {
  it('is ignored when the last octet kept ends the line before it, however long it is', () => {
    // 27 octets up to and including the line end of line 2: line 3 starts past a limit of 27.
    const body = `User-agent: *\nDisallow: /a\nDisallow: /${'b'.repeat(1000)}\n`;
    for (const input of [body, new TextEncoder().encode(body)]) {
      const robots = RobotsTxt.parse(input, { maxBytes: 27 });
      expect(robots.groups[0].rules.map((rule) => rule.pattern)).toEqual(['/a']);
      expect(robots.lints.find((l) => l.code === 'file-too-large')).toMatchObject({ line: 3 });
      // One octet more and line 3 is read to its end.
      expect(RobotsTxt.parse(input, { maxBytes: 28 }).groups[0].rules).toHaveLength(2);
    }
  });
});

describe('user-agent lines that name no crawler', () => {
  it.each(['*bot', '*Googlebot', '*/1.0', '**'])('reports %s, whose group applies to no crawler', (value) => {
    const robots = RobotsTxt.parse(`User-agent: ${value}\nDisallow: /private\n`);
    expect(robots.explain('/private', 'Googlebot').reason).toBe('no-group');
    const lint = robots.lints.find((l) => l.code === 'empty-user-agent');
    expect(lint).toMatchObject({ line: 1, message: expect.stringContaining('not a wildcard') });
  });

  it('suggests the name written after the star', () => {
    const lint = RobotsTxt.parse('User-agent: *Googlebot\nDisallow: /\n').lints[0];
    expect(lint.message).toContain('("Googlebot")');
  });

  it.each(['\u00a0', '\u2003', '\u3000'])(
    'reads "*" and the space %j as naming no crawler, as Google does',
    (space) => {
      // A no-break space pasted from a web page looks like a blank, but only ASCII blanks are.
      const robots = RobotsTxt.parse(`User-agent: *${space}Googlebot\nDisallow: /\n`);
      expect(robots.isAllowed('/page', 'ExampleBot')).toBe(true);
      expect(robots.isAllowed('/page', 'Googlebot')).toBe(true);
      const lint = robots.lints.find((l) => l.code === 'empty-user-agent');
      const code = space.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      expect(lint).toMatchObject({ line: 1, message: expect.stringContaining(`followed by U+${code}`) });
    },
  );

  it.each(['*', '* anything', '*\tbot', '*\vbot', '*\fbot'])('accepts %j, the star group', (value) => {
    const robots = RobotsTxt.parse(`User-agent: ${value}\nDisallow: /private\n`);
    expect(robots.isAllowed('/private', 'AnyBot')).toBe(false);
    // Words after the star are read past, and said to be (see user-agent-cut).
    expect(robots.lints.map((l) => l.code)).toEqual(value === '*' ? [] : ['user-agent-cut']);
  });
});

describe('invalid UTF-8', () => {
  const encode = (text: string) => [...new TextEncoder().encode(text)];

  it.each([
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ])('is reported on the line of the invalid byte, not of a U+FFFD written in the file (%s)', (_, eol) => {
    const head = encode(['# replacement character: \uFFFD', 'User-agent: *', 'Disallow: /caf'].join(eol));
    for (const bom of [[], [0xef, 0xbb, 0xbf]]) {
      const bytes = new Uint8Array([...bom, ...head, 0xe9, ...encode(`${eol}Disallow: /x${eol}`)]);
      const lints = RobotsTxt.parse(bytes).lints;
      expect(lints).toEqual([expect.objectContaining({ code: 'invalid-utf8', line: 3 })]);
    }
  });

  it('finds a sequence that a line end cuts short', () => {
    const bytes = new Uint8Array([...encode('User-agent: *\nDisallow: /é\n# euro '), 0xe2, 0x82, 0x0a]);
    expect(RobotsTxt.parse(bytes).lints).toEqual([
      expect.objectContaining({ code: 'invalid-utf8', line: 3 }),
    ]);
  });
});

describe('a missing colon before a value that holds a colon', () => {
  const robots = RobotsTxt.parse(
    'User-agent: *\nDisallow /a:b\nSitemap https://example.com/sitemap.xml\nDissallow /c:/d\n',
  );

  it('is read as Google reads it: split at the first colon', () => {
    expect(robots.groups[0].rules.map((r) => r.pattern)).toEqual(['b', '/d']);
    expect(robots.isAllowed('/a:b', 'x')).toBe(true);
    expect(robots.isAllowed('/d', 'x')).toBe(false);
    expect(robots.sitemaps).toEqual([]);
  });

  it('is reported as a missing colon saying how the line is read', () => {
    expect(robots.lints.filter((l) => l.code === 'missing-colon')).toEqual([
      expect.objectContaining({
        line: 2,
        message: expect.stringMatching(/colon after "Disallow".*"Disallow: b".*"Disallow: \/a:b"/),
      }),
      expect.objectContaining({
        line: 3,
        message: expect.stringMatching(
          /colon after "Sitemap".*"Sitemap: \/\/example.com\/sitemap.xml".*"Sitemap: https:\/\/example.com\/sitemap.xml"/,
        ),
      }),
      expect.objectContaining({
        line: 4,
        message: expect.stringMatching(/"Dissallow: \/d".*Write "Disallow: \/c:\/d"/),
      }),
    ]);
  });

  it('names the misspelt word alone, and gives no finding about the value read', () => {
    expect(robots.lints.find((l) => l.code === 'accepted-typo')?.message).toMatch(/^"Dissallow" is/);
    const codes = robots.lints.map((l) => l.code);
    expect(codes).not.toContain('pattern-not-rooted');
    expect(codes).not.toContain('sitemap-not-absolute');
  });

  it('is not found in a typo with a blank or a value after a colon', () => {
    const lints = RobotsTxt.parse('User agent: FooBot\nCrawl delay: 5\nDisallow: /a:b\n').lints;
    expect(lints.map((l) => l.code)).not.toContain('missing-colon');
  });
});

describe('a key that only starts with a directive', () => {
  it('is read by its prefix, as Google reads it, and reported like a misspelling', () => {
    const robots = RobotsTxt.parse('User-agents: *\nDisallowed: /private\n');
    expect(robots.isAllowed('/private', 'x')).toBe(false);
    expect(robots.lints).toEqual([
      expect.objectContaining({
        code: 'accepted-typo',
        line: 1,
        message: expect.stringMatching(/^"User-agents" is a misspelling of "User-agent"/),
      }),
      expect.objectContaining({
        code: 'accepted-typo',
        line: 2,
        message: expect.stringContaining('"Disallowed"'),
      }),
    ]);
  });

  it('names the directive it is read as, whichever it is', () => {
    const lints = RobotsTxt.parse('User-agent: *\nNoindex-page: /x\nCrawl-delays: 4\n').lints;
    expect(lints.filter((l) => l.code === 'accepted-typo').map((l) => l.message)).toEqual([
      expect.stringMatching(/^"Noindex-page" is a misspelling of "Noindex"/),
      expect.stringMatching(/^"Crawl-delays" is a misspelling of "Crawl-delay"/),
    ]);
  });
});

describe('extensions of other parties', () => {
  it("reads Cloudflare's Content-Signal as a directive some crawlers understand, not an unknown one", () => {
    const body = 'User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n';
    expect(RobotsTxt.parse(body).lints).toEqual([
      expect.objectContaining({ code: 'unsupported-directive', severity: 'info', line: 2 }),
    ]);
  });

  it.each(['Noarchive: /a', 'Domain: example.com', 'Revisit-after: 7 days', 'Content-Usage: train-ai=n'])(
    "reads %s, which Google's parser lists as known and unused, as such a directive",
    (line) => {
      expect(RobotsTxt.parse(`User-agent: *\n${line}\nAllow: /\n`).lints).toEqual([
        expect.objectContaining({ code: 'unsupported-directive', severity: 'info', line: 2 }),
      ]);
    },
  );
});

describe('a line without a colon that names no directive', () => {
  it.each(['Hello world', 'Disllow /private'])(
    'is one unknown directive, not a missing colon: %j',
    (line) => {
      const lints = RobotsTxt.parse(`User-agent: *\n${line}\nDisallow: /x\n`).lints;
      expect(lints).toEqual([expect.objectContaining({ code: 'unknown-directive', line: 2 })]);
    },
  );
});

describe('slips in directives Google does not read', () => {
  it('never say that Google accepts the line', () => {
    const lints = RobotsTxt.parse(
      'User-agent: *\nCrawldelay: 5\nCrawl-delay 5\nCrawl-delay 5:00\nHost example.com\nNoindex /x\n',
    ).lints;
    const slips = lints.filter((l) => l.code === 'accepted-typo' || l.code === 'missing-colon');
    expect(slips.map((l) => l.line)).toEqual([2, 3, 4, 5, 6]);
    for (const lint of slips) expect(lint.message).not.toMatch(/Google/);
  });

  it('still say so of the directives Google reads', () => {
    const lints = RobotsTxt.parse('Useragent: *\nDisallow /x\n').lints;
    expect(lints.map((l) => l.message)).toEqual([
      expect.stringContaining('Google accepts it'),
      expect.stringContaining('Google reads the line as "Disallow: /x"'),
    ]);
  });
});

describe('crawl-delay', () => {
  it('reports a delay longer than the table keeps, and the delay used instead', () => {
    const robots = RobotsTxt.parse('User-agent: *\nCrawl-delay: 99999999999\n');
    expect(robots.crawlDelay('a')).toBe(2147483.647);
    expect(robots.lints).toEqual([
      expect.objectContaining({
        code: 'invalid-crawl-delay',
        line: 2,
        message: expect.stringContaining('2147483.647 seconds'),
      }),
    ]);
  });

  it('keeps the largest delay that fits without a warning', () => {
    const robots = RobotsTxt.parse('User-agent: *\nCrawl-delay: 2147483.647\n');
    expect(robots.crawlDelay('a')).toBe(2147483.647);
    expect(robots.lints.map((l) => l.code)).toEqual(['crawl-delay-extension']);
  });
});

describe('sitemap lines', () => {
  it.each([
    'https://exa mple.com/x.xml',
    'https://user@/x.xml',
    'https://example.com/s.xml extra words',
    'https:/example.com/one-slash.xml',
    'https:///sitemap.xml',
    'HTTP://\\example.com/s.xml',
    'https://[::1/x.xml',
    'http://a.b:99999/x.xml',
  ])('reports %j, which is not listed', (value) => {
    const robots = RobotsTxt.parse(`Sitemap: ${value}\n`);
    expect(robots.sitemaps).toEqual([]);
    expect(robots.lints).toEqual([expect.objectContaining({ code: 'sitemap-not-absolute', line: 1 })]);
  });

  it('reads the values a URL parser must read when the findings are read, in the room the lines left', () => {
    // 100 unknown directives, then 150 values that are no URL, one every other line: the pass
    // lists the directives, and the sitemap values fill the 100 places left, in line order.
    const lines = [
      ...Array.from({ length: 100 }, (_, i) => `Foo${i}: x`),
      ...Array.from({ length: 150 }, (_, i) => [`Sitemap: https://exa mple.com/${i}.xml`, '# -']).flat(),
    ];
    const lints = RobotsTxt.parse(lines.join('\n')).lints;
    expect(lints).toHaveLength(201);
    expect(lints.filter((l) => l.code === 'unknown-directive')).toHaveLength(100);
    const sitemaps = lints.filter((l) => l.code === 'sitemap-not-absolute');
    expect(sitemaps.map((l) => l.line)).toEqual(Array.from({ length: 100 }, (_, i) => 101 + 2 * i));
    expect(lints.at(-1)).toMatchObject({
      code: 'too-many-findings',
      message: expect.stringMatching(/^50 more/),
    });
  });

  it('lists a sitemap written with a user name among the findings of the pass, by line', () => {
    const robots = RobotsTxt.parse(
      'Foo: x\nSitemap: https://user:pw@bücher.example/s.xml\nBar: y\nSitemap: https://bücher.example/t.xml\n',
    );
    expect(robots.lints.map((l) => [l.code, l.line])).toEqual([
      ['unknown-directive', 1],
      ['sitemap-credentials', 2],
      ['unknown-directive', 3],
    ]);
    expect(robots.sitemaps).toEqual([
      'https://user:pw@xn--bcher-kva.example/s.xml',
      'https://xn--bcher-kva.example/t.xml',
    ]);
  });

  it('reads the sitemaps once, and counts them in the memory the file keeps once read', () => {
    const robots = RobotsTxt.parse(
      Array.from({ length: 30 }, (_, i) => `Sitemap: https://bücher-${i % 20}.example/s.xml`).join('\n'),
    );
    const before = robots.retainedBytes;
    const sitemaps = robots.sitemaps;
    expect(sitemaps).toHaveLength(20);
    expect(sitemaps[19]).toBe('https://xn--bcher-19-65a.example/s.xml');
    expect(Object.isFrozen(sitemaps)).toBe(true);
    expect(robots.sitemaps).toBe(sitemaps);
    expect(robots.retainedBytes).toBeGreaterThan(
      before + 20 * 2 * 'https://xn--bcher-19-65a.example/s.xml'.length,
    );
  });

  it('says that a third slash leaves a URL without its host, which URL parsers would take from the path', () => {
    const robots = RobotsTxt.parse('Sitemap: https:///sitemap.xml\n');
    expect(robots.lints[0].message).toBe(
      'Sitemap "https:///sitemap.xml" names no host after "//"; crawlers cannot use it (URL parsers would read its first path segment as the host).',
    );
  });
});

describe('a sitemap URL with credentials', () => {
  it.each([
    ['https://admin:s3cret@example.com/s.xml', 'https://example.com/s.xml'],
    ['http://crawler@Example.com:80/sitemaps/a.xml', 'http://example.com/sitemaps/a.xml'],
    ['https://:s3cret@example.com/s.xml?k=1', 'https://example.com/s.xml?k=1'],
  ])('reports %j by its line, without the user or the password', (value, shown) => {
    const robots = RobotsTxt.parse(`User-agent: *\nDisallow: /x\nSitemap: ${value}\n`);
    expect(robots.lints).toEqual([
      expect.objectContaining({ code: 'sitemap-credentials', severity: 'warning', line: 3 }),
    ]);
    const { message } = robots.lints[0];
    expect(message).toContain(`"${shown}"`);
    expect(message).not.toMatch(/s3cret|admin|crawler@/);
  });

  it.each([
    'https://@example.com/s.xml',
    'https://example.com/feeds/@team/sitemap.xml',
    'https://example.com/s.xml?contact=me@example.com',
  ])('leaves %j alone: it names no user', (value) => {
    expect(RobotsTxt.parse(`Sitemap: ${value}\n`).lints).toEqual([]);
  });
});

describe('a user-agent value with more words after the name', () => {
  it.each([
    ['Googlebot Images', 'Googlebot', /\("Googlebot-Image"/],
    ['Mozilla/5.0 (compatible; bingbot/2.0)', 'Mozilla', /write that crawler's name alone\.$/],
    ['sogou spider', 'sogou', /write that crawler's name alone\.$/],
    ['Googlebot/2.1 Images', 'Googlebot', /\("Googlebot-Image"/],
  ])('reports %j, read as %j', (value, name, hint) => {
    const robots = RobotsTxt.parse(`User-agent: ${value}\nDisallow: /private\n`);
    expect(robots.isAllowed('/private', name)).toBe(false);
    const lint = robots.lints.find((l) => l.code === 'user-agent-cut');
    expect(lint).toMatchObject({ line: 1, severity: 'warning' });
    expect(lint!.message).toContain(`is read as "${name}"`);
    expect(lint!.message).toMatch(hint);
  });

  it.each([
    'Googlebot',
    'Googlebot/2.1',
    'bingbot 2.0',
    'Googlebot-Image',
    'foo_bar',
    'ExampleBot # my crawler',
    // The whole header of the same crawler: its version and the URL in its comment name no other.
    'Googlebot/2.1 (+http://www.google.com/bot.html)',
  ])('finds nothing to report in %j, whose rest names no other crawler', (value) => {
    expect(RobotsTxt.parse(`User-agent: ${value}\nDisallow: /\n`).lints).toEqual([]);
  });

  it('reports a star followed by a name, which is the star group for every crawler', () => {
    const robots = RobotsTxt.parse('User-agent: * Googlebot\nDisallow: /private\n');
    expect(robots.isAllowed('/private', 'bingbot')).toBe(false);
    expect(robots.lints).toEqual([
      {
        code: 'user-agent-cut',
        severity: 'warning',
        line: 1,
        message:
          'User-agent "* Googlebot" is read as "*": what follows the star is ignored, so these rules are for every crawler. If they are meant for Googlebot alone, write its name alone.',
      },
    ]);
    expect(RobotsTxt.parse('User-agent: * # every crawler\nDisallow: /\n').lints).toEqual([]);
  });
});

describe('a blank line inside a group', () => {
  it.each([
    [
      'between user-agent lines',
      'User-agent: a\n\nUser-agent: b\nDisallow: /x\n',
      2,
      /user-agent lines above it/,
    ],
    ['between the user-agents and the rules', 'User-agent: a\n\nDisallow: /x\n', 2, /lines after it/],
    ['between two rules', 'User-agent: a\nDisallow: /y\n\nDisallow: /x\n', 3, /lines after it/],
    ['before a crawl-delay', 'User-agent: a\nDisallow: /x\n\r\nCrawl-delay: 2\n', 3, /lines after it/],
    ['after a comment line', 'User-agent: a\n# rules\n\n# more\nDisallow: /x\n', 3, /lines after it/],
    ['of blanks only', 'User-agent: a\nDisallow: /y\n \t \nDisallow: /x\n', 3, /lines after it/],
    ['after CR line ends', 'User-agent: a\rDisallow: /y\r\rDisallow: /x\r', 3, /lines after it/],
  ])('is reported %s, with the line of the blank', (_, text, line, consequence) => {
    const robots = RobotsTxt.parse(text);
    // Read as RFC 9309 and Google read it: the group goes on.
    expect(robots.isAllowed('/x', 'a')).toBe(false);
    const lint = robots.lints.find((l) => l.code === 'blank-line-in-group');
    expect(lint).toMatchObject({ line, severity: 'warning', message: expect.stringMatching(consequence) });
    expect(lint!.message).toContain('group that starts on line 1');
  });

  it('names the parser that ends a group at an empty line, and only for an empty one', () => {
    const empty = RobotsTxt.parse('User-agent: a\nDisallow: /y\n\nDisallow: /x\n').lints[0];
    expect(empty.message).toContain('urllib.robotparser');
    const blanks = RobotsTxt.parse('User-agent: a\nDisallow: /y\n  \nDisallow: /x\n').lints[0];
    expect(blanks.code).toBe('blank-line-in-group');
    expect(blanks.message).not.toContain('urllib.robotparser');
  });

  it('is reported once per group', () => {
    const lints = RobotsTxt.parse(
      'User-agent: a\n\nDisallow: /x\n\nDisallow: /y\n\nUser-agent: b\nDisallow: /z\n\nAllow: /z/a\n',
    ).lints.filter((l) => l.code === 'blank-line-in-group');
    expect(lints.map((l) => l.line)).toEqual([2, 9]);
  });

  it.each([
    ['between groups', 'User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n'],
    ['before the first group', 'Sitemap: https://example.com/s.xml\n\nUser-agent: a\nDisallow: /x\n'],
    [
      'before a sitemap line after a group',
      'User-agent: a\nDisallow: /x\n\nSitemap: https://example.com/s.xml\n',
    ],
    ['at the end', 'User-agent: a\nDisallow: /x\n\n\n'],
    ['nowhere (a comment line)', 'User-agent: a\n# rules\nDisallow: /x\n'],
  ])('is not reported %s', (_, text) => {
    expect(RobotsTxt.parse(text).lints.filter((l) => l.code === 'blank-line-in-group')).toEqual([]);
  });
});

describe('a pattern with a blank in it', () => {
  it.each([
    ['/a /b', '/a%20/b'],
    ['/c\t/d', '/c%09/d'],
  ])('reports %j, matched only as %j', (pattern, normal) => {
    const robots = RobotsTxt.parse(`User-agent: *\nDisallow: ${pattern}\n`);
    expect(robots.isAllowed(normal, 'x')).toBe(false);
    expect(robots.isAllowed(pattern.split(/\s/)[0], 'x')).toBe(true);
    const lint = robots.lints.find((l) => l.code === 'blank-in-pattern');
    expect(lint).toMatchObject({ line: 2, severity: 'warning' });
    expect(lint!.message).toContain(`"${normal}"`);
    expect(lint!.message).toContain('one rule per line');
  });

  it('is not reported for a space written as %20, or a comment after the pattern', () => {
    expect(RobotsTxt.parse('User-agent: *\nDisallow: /a%20b\nDisallow: /c # old\n').lints).toEqual([]);
  });
});

describe('lint messages a site owner can read', () => {
  it('warns of a user-agent joining the group above across a line that is no key-value line', () => {
    const robots = RobotsTxt.parse('User-agent: a\njunk line here\nUser-agent: b\nDisallow: /\n');
    expect(robots.isAllowed('/x', 'a')).toBe(false);
    expect(robots.lints.map((l) => [l.code, l.line])).toEqual([
      ['unparsable-line', 2],
      ['user-agent-joins-group', 3],
    ]);
  });

  it.each([
    ['Dis\u0000allow: /a\n', '"Dis\\u0000allow" is not a robots.txt directive; crawlers ignore this line.'],
    [
      '\ufeff\ufeffUser-agent: *\n',
      '"\\ufeffUser-agent" is not a robots.txt directive; crawlers ignore this line.',
    ],
    ['Dis\u200ballow: /a\n', '"Dis\\u200ballow" is not a robots.txt directive; crawlers ignore this line.'],
    [
      'User-agent: *\nDisalow\u00ad: /a\n',
      '"Disalow\\u00ad" is a misspelling of "Disallow". Google accepts it; other crawlers may ignore the line.',
    ],
  ])('shows the characters no one can see in %j as escapes', (body, message) => {
    expect(RobotsTxt.parse(body).lints.map((l) => l.message)).toContain(message);
  });

  it('says of a name cut at a digit (MJ12bot) that the crawler is read the same way, not to rename it', () => {
    const robots = RobotsTxt.parse('User-agent: MJ12bot\nDisallow: /\n');
    expect(robots.isAllowed('/x', 'Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)')).toBe(
      false,
    );
    const [lint] = robots.lints;
    expect(lint).toMatchObject({ code: 'user-agent-cut', line: 1 });
    expect(lint.message).toContain(
      "The crawler's own User-Agent is read the same way, so these rules reach it",
    );
    expect(lint.message).not.toContain("write that crawler's name alone");
    // The name is the crawler's own (mj12bot.com asks for it): nothing to fix, so no warning.
    expect(lint.severity).toBe('info');
  });

  it('says how a line without its colon is read (Disallow / blocks the site)', () => {
    const [lint] = RobotsTxt.parse('User-agent: *\nDisallow /\n').lints;
    expect(lint).toMatchObject({ code: 'missing-colon', line: 2 });
    expect(lint.message).toContain('Google reads the line as "Disallow: /"');
  });

  it('gives the path of an absolute URL pattern and says another host needs its own robots.txt', () => {
    const [lint] = RobotsTxt.parse(
      'User-agent: *\nDisallow: https://stats.example.org/piwik/js/tracker.php\n',
    ).lints;
    expect(lint).toMatchObject({ code: 'absolute-url-pattern', line: 2 });
    expect(lint.message).toContain('If the URL is on this site, write its path, "/piwik/js/tracker.php"');
    expect(lint.message).toContain("that host's robots.txt");
    expect(RobotsTxt.parse('User-agent: *\nAllow: https://example.com\n').lints[0].message).toContain(
      'write its path, "/"',
    );
  });

  it('tells of Crawl-delay once per file, with what Bing, Google and Yandex do', () => {
    const robots = RobotsTxt.parse(
      'User-agent: a\nDisallow: /a\nCrawl-delay: 1\n\nUser-agent: b\nDisallow: /b\nCrawl-delay: 2\nCrawl-delay: x\n',
    );
    expect(robots.lints.map((l) => [l.code, l.line])).toEqual([
      ['crawl-delay-extension', 3],
      ['invalid-crawl-delay', 8],
    ]);
    expect(robots.lints[0].message).toMatch(
      /Bing honours it; Googlebot ignores it, and Yandex has ignored it since 2018/,
    );
    expect(robots.crawlDelay('b')).toBe(2);
  });
});

describe('a crawler group of Allow rules only, beside a * group that disallows', () => {
  const codes = (body: string) =>
    RobotsTxt.parse(body)
      .lints.filter((l) => l.code === 'star-rules-replaced')
      .map((l) => l.line);

  it('says the * rules no longer apply to that crawler, which may fetch every URL', () => {
    const body =
      'User-agent: *\nDisallow: /administrator/\nDisallow: /tmp/\n\nUser-agent: Googlebot\nAllow: *.css\nAllow: *.js\n';
    const robots = RobotsTxt.parse(body);
    // What the lint warns about: the crawler's own group replaces *.
    expect(robots.isAllowed('/administrator/x', 'Googlebot')).toBe(true);
    const lint = robots.lints.find((l) => l.code === 'star-rules-replaced');
    expect(lint).toMatchObject({ severity: 'warning', line: 5 });
    expect(lint!.message).toContain('the first Disallow is on line 2');
    expect(lint!.message).toContain('repeat those rules in this group');
  });

  it.each([
    ['a group that allows everything on purpose', 'User-agent: *\nDisallow: /\n\nUser-agent: a\nAllow: /\n'],
    ['an empty Disallow', 'User-agent: *\nDisallow: /\n\nUser-agent: a\nAllow: /x\nDisallow:\n'],
    [
      'a group with a Disallow of its own',
      'User-agent: *\nDisallow: /\n\nUser-agent: a\nAllow: /x\nDisallow: /y\n',
    ],
    ['a * group that disallows nothing', 'User-agent: *\nAllow: /\n\nUser-agent: a\nAllow: /x\n'],
    ['no * group', 'User-agent: b\nDisallow: /\n\nUser-agent: a\nAllow: /x\n'],
  ])('is quiet for %s', (_, body) => {
    expect(codes(body)).toEqual([]);
  });

  it('is told once per crawler, at the first line naming it, across merged groups', () => {
    const body =
      'User-agent: a\nUser-agent: b\nAllow: /x\n\nUser-agent: *\nDisallow: /p\n\nUser-agent: a\nAllow: /y\n\nUser-agent: c\nAllow: /z\nDisallow: /q\n';
    expect(codes(body)).toEqual([1, 2]);
  });
});
