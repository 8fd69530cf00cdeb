/**
 * A robots.txt that carries terminal control sequences: the text output shows them as escapes
 * (`\u001b`), so that a file cannot retitle the window or clear the screen of whoever checks it;
 * JSON keeps every value exact; the HTML report shows them as the text output does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { runInProcess } from './run-cli.js';

afterAll(removeTempDirs);

/** Sets the window title. */
const TITLE = '\u001b]0;pwned\u0007';
/** Clears the screen. */
const CLEAR = '\u001b[2J';
/** CSI as one C1 character: some terminals start a sequence with it too. */
const CSI = '\u009b';

/** Shows the text after it right to left: `txt.stobor` reads as `robots.txt`. */
const RIGHT_TO_LEFT = '\u202e';

/** C0 controls but the line feed, DEL and C1 controls. */
const CONTROL_BUT_LINE_FEED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** The colour codes the CLI writes itself. */
const OWN_COLOURS = /\u001b\[\d+m/g;

const dir = tempDir('controls');
let site: TestHttpServer;
let file: string;

beforeAll(async () => {
  site = await startHttpServer();
  const o = site.origin;
  file = [
    `# ${TITLE} a comment ${CLEAR} ${RIGHT_TO_LEFT}txt.stobor`,
    `User-agent: Evil${TITLE}Bot`,
    `Disallow: /a${CLEAR}`,
    'Disallow: /a',
    `Disallow: b${CSI}2J`,
    '',
    'User-agent: *',
    `Disallow: /p${CLEAR}`,
    '',
    `Sitemap: ${o}/s${CLEAR}.xml`,
    `Sitemap: ${o}/pages.xml`,
    '',
  ].join('\n');
  site.route('/robots.txt', text(file));
  site.route(
    '/pages.xml',
    text(
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/p%1B[2J</loc></url></urlset>`,
      200,
      { 'content-type': 'application/xml' },
    ),
  );
});
afterAll(async () => {
  await site.close();
});

/** Fails when `output` holds a control character other than a line feed. */
function expectNoControls(output: string): void {
  expect(CONTROL_BUT_LINE_FEED.exec(output)?.[0]).toBeUndefined();
}

describe('control characters from a site', () => {
  it('explain shows them as escapes: listing, decisive rule, matching rules, group, lints', async () => {
    const argv = ['explain', `${site.origin}/a%1B[2J`, '--agent', 'Evil', '--agents', 'GPTBot'];
    const run = await runInProcess(argv);
    expect(run.code).toBe(1);
    expectNoControls(run.stdout);
    expect(run.stdout).toContain('   1    # \\u001b]0;pwned\\u0007 a comment \\u001b[2J \\u202etxt.stobor');
    expect(run.stdout).not.toContain(RIGHT_TO_LEFT);
    expect(run.stdout).toContain(
      '  decided   by line 3, Disallow: /a\\u001b[2J (the longest of 2 matching rules',
    );
    expect(run.lines).toContain('  3     Disallow: /a\\u001b[2J  8       decisive');
    expect(run.stdout).toContain(
      '  group     its own group, User-agent: Evil\\u001b]0;pwned\\u0007Bot (line 2)',
    );
    expect(run.stdout).toContain('The pattern "b\\u009b2J" does not start with');
    expect(run.lines).toContain(`  10    Sitemap: ${site.origin}/s\\u001b[2J.xml`);

    // With colours, the only escape sequences left are the CLI's own.
    const coloured = await runInProcess(argv, { env: { FORCE_COLOR: '1' } });
    expect(coloured.stdout).toMatch(OWN_COLOURS);
    expectNoControls(coloured.stdout.replace(OWN_COLOURS, ''));
  });

  it('explain --json keeps the values exact, with every control character escaped', async () => {
    const run = await runInProcess(['explain', `${site.origin}/a%1B[2J`, '--agent', 'Evil', '--json']);
    expectNoControls(run.stdout);
    const json = JSON.parse(run.stdout);
    expect(json.rule.pattern).toBe(`/a${CLEAR}`);
    // A lint's message is prose for a site owner: it quotes the character it cannot show as an escape.
    expect(json.lints.map((lint: { message: string }) => lint.message).join('\n')).toContain('"b\\u009b2J"');
  });

  it('audit shows them as escapes in the lints and the fail-on details, and in the HTML report', async () => {
    const html = join(dir, 'report.html');
    const run = await runInProcess([
      'audit',
      site.origin,
      '--agents',
      'Evil',
      '--fail-on',
      'lint:warning',
      '--html',
      html,
    ]);
    expect(run.code).toBe(1);
    expectNoControls(run.stdout);
    expect(run.stdout).toContain('The pattern "b\\u009b2J" does not start with');
    const page = readFileSync(html, 'utf8');
    expectNoControls(page);
    expect(page).toContain('# \\u001b]0;pwned\\u0007 a comment \\u001b[2J \\u202etxt.stobor');
  });

  it('sitemaps shows them as escapes in the table of blocking rules', async () => {
    const run = await runInProcess(['sitemaps', site.origin]);
    expectNoControls(run.stdout);
    expect(run.lines).toContain('  1     8     disallow: /p\\u001b[2J');
    const json = await runInProcess(['sitemaps', site.origin, '--json']);
    expect(JSON.parse(json.stdout).blockedBy).toEqual([
      { rule: `disallow: /p${CLEAR}`, line: 8, count: 1, robotsTxtUrl: `${site.origin}/robots.txt` },
    ]);
  });

  it('a message on stderr shows the control characters of what was given', async () => {
    const run = await runInProcess(['sitemaps', site.origin, '--agent', `Bad${CSI} Bot!`]);
    expect(run.code).toBe(2);
    expectNoControls(run.stderr.trimEnd());
    expect(run.stderr).toContain('"Bad\\u009b Bot!" names no crawler');
  });
});

describe('control characters a site puts into messages and JSON', () => {
  let other: TestHttpServer;
  beforeAll(async () => {
    other = await startHttpServer();
    const o = other.origin;
    other.route(
      '/robots.txt',
      text(
        `User-agent: *\nDisallow: /d${RIGHT_TO_LEFT}evil\nSitemap: ${o}/good.xml\nSitemap: ${o}/bad.txt\n`,
      ),
    );
    other.route(
      '/good.xml',
      text(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/p</loc></url></urlset>`,
        200,
        { 'content-type': 'application/xml' },
      ),
    );
    // Not a sitemap: the failure quotes how the file starts, a C1 control and DEL included.
    other.route('/bad.txt', text(`${CSI}31m\u007fhello\n`));
  });
  afterAll(async () => {
    await other.close();
  });

  it('sitemaps --urls and --strict escape them in the failure they write on stderr', async () => {
    for (const flag of ['--urls', '--strict']) {
      const run = await runInProcess(['sitemaps', other.origin, flag]);
      expect(run.code).toBe(flag === '--strict' ? 2 : 0);
      expectNoControls(run.stderr.trimEnd());
      expect(run.stderr).toContain('\\u009b31m\\u007fhello');
    }
  });

  it('--json escapes bidirectional overrides, keeping the values exact', async () => {
    const path = `${other.origin}/d%E2%80%AEevil`;
    for (const argv of [
      ['explain', path, '--agent', 'A', '--json'],
      ['audit', other.origin, '--agents', 'A', '--json'],
    ]) {
      const run = await runInProcess(argv);
      expect(run.stdout).not.toContain(RIGHT_TO_LEFT);
      expect(run.stdout).toContain('\\u202e');
      JSON.parse(run.stdout);
    }
    const explained = JSON.parse((await runInProcess(['explain', path, '--agent', 'A', '--json'])).stdout);
    expect(explained.rule.pattern).toBe(`/d${RIGHT_TO_LEFT}evil`);
  });
});

describe('every bidirectional control', () => {
  // Bidi_Control in Unicode: the Arabic letter mark, the two marks, the embeddings and overrides, the isolates.
  const BIDI = [
    '\u061c',
    '\u200e',
    '\u200f',
    '\u202a',
    '\u202b',
    '\u202c',
    '\u202d',
    '\u202e',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
  ];

  it('is shown as an escape in text, JSON and HTML', async () => {
    const robots = join(dir, 'bidi-robots.txt');
    writeFileSync(robots, `User-agent: *\n${BIDI.map((mark, i) => `Disallow: /p${i}${mark}x`).join('\n')}\n`);
    const html = join(dir, 'bidi.html');
    // The first rule, as the URL writes it.
    const path = '/p0%D8%9Cx';
    const runs = [
      await runInProcess(['explain', path, '--file', robots, '--agent', 'A']),
      await runInProcess(['explain', path, '--file', robots, '--agent', 'A', '--json']),
      await runInProcess(['audit', 'https://example.com', '--file', robots, '--agents', 'A', '--html', html]),
    ];
    const page = readFileSync(html, 'utf8');
    for (const shown of [...runs.map((run) => run.stdout), page]) {
      for (const mark of BIDI) expect(shown).not.toContain(mark);
    }
    expect(page).toContain('/p0\\u061cx');
    expect(runs[0].stdout).toContain('\\u061c');
  });
});

describe('characters HTML does not allow, and long lines', () => {
  it('the HTML report shows noncharacters as escapes, and a cut line never splits a character', async () => {
    const emoji = '\u{1F600}';
    // The 300th unit (the HTML cut) and the 160th (the text cut) each fall inside an emoji.
    const long = `Disallow: /${'a'.repeat(288)}${emoji}${'b'.repeat(10)}`;
    const text160 = `Disallow: /${'a'.repeat(148)}${emoji}${'b'.repeat(10)}`;
    const robots = join(dir, 'nonchar-robots.txt');
    writeFileSync(
      robots,
      ['User-agent: *', 'Disallow: /x\uFFFF\uFDD0y', `Disallow: /z\u{10FFFF}`, long, text160, ''].join('\n'),
    );
    const html = join(dir, 'nonchar.html');
    const run = await runInProcess(['audit', 'https://shop.example', '--file', robots, '--html', html]);
    expect(run.code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).not.toMatch(/\p{Noncharacter_Code_Point}|\uFFFD/u);
    expect(page).toContain('Disallow: /x\\uffff\\ufdd0y');
    expect(page).toContain('Disallow: /z\\u{10ffff}');
    expect(page).toContain(`Disallow: /${'a'.repeat(288)}...`);

    const explained = await runInProcess(['explain', '/a', '--agent', 'A', '--file', robots]);
    expect(explained.stdout).not.toContain('\uFFFD');
    expect(explained.stdout).toContain(`Disallow: /${'a'.repeat(148)}...`);
  });
});
