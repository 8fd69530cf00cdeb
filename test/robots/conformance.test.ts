/**
 * Data-driven conformance suite for the RFC 9309 core.
 *
 * - `fixtures/google.json`: the verdicts of Google's published parser tests
 *   (google/robotstxt, robots_test.cc) plus documented behaviour of its robots.cc.
 * - `fixtures/rfc9309.json`: the examples and tables of RFC 9309.
 * - `fixtures/google-spec.json`: the verdicts of Google's compliance suite for robots.txt
 *   parsers (google/robotstxt-spec-test, its CTC files), each case once. Its byte order mark
 *   and empty-string cases are below: the first need raw bytes, and an empty URL is refused.
 * - Inputs that cannot be literal JSON (very long lines, raw bytes, large files) are
 *   built below, as tables in the same shape.
 *
 * A suite with `deviation` expects this project's answer where it knowingly differs from
 * Google's parser; the text says what Google answers. A case may carry its own
 * `deviation` the same way.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';
import type {
  GroupChoiceKind,
  RobotsParseOptions,
  RuleKind,
  Verdict,
  VerdictReason,
} from '../../src/robots/types.js';

/** Parts of a verdict a case may pin down; absent fields are not checked. */
interface ExplainExpectation {
  reason?: VerdictReason;
  kind?: RuleKind;
  /** Line of the decisive rule; null when no rule decided. */
  line?: number | null;
  how?: GroupChoiceKind;
  derived?: 'index-html';
  productToken?: string;
}

interface ConformanceCase {
  agent: string;
  url: string;
  allowed: boolean;
  explain?: ExplainExpectation;
  /** Why this one case expects this project's answer rather than Google's. */
  deviation?: string;
}

interface ConformanceSuite {
  name: string;
  /** Where the facts come from. */
  source: string;
  robots: string | Uint8Array;
  options?: RobotsParseOptions;
  /** Why the expected values differ from Google's parser, and what Google answers. */
  deviation?: string;
  cases: ConformanceCase[];
}

function loadFixture(file: string): ConformanceSuite[] {
  return JSON.parse(
    readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8'),
  ) as ConformanceSuite[];
}

// ---------------------------------------------------------------------------------------
// Generated inputs
// ---------------------------------------------------------------------------------------

const GOOGLE_LINE_TOO_LONG = 'google/robotstxt robots_test.cc GoogleOnly_LineTooLong';
const GOOGLE_BOM = 'google/robotstxt robots_test.cc ID_UTF8ByteOrderMarkIsSkipped (via verdicts)';

/** Google keeps at most 2083 * 8 - 1 octets of a line; the rest of the line is dropped. */
const KEPT_LINE_OCTETS = 2083 * 8 - 1;

/** `/x/` padded with `fill` so that `key + path` is one octet short of the kept length. */
function padPath(key: string, fill: string): string {
  return `/x/${fill.repeat(KEPT_LINE_OCTETS - 1 - key.length - 3)}`;
}

const longDisallow = padPath('disallow: ', 'a');
const longAllowA = padPath('allow: ', 'a');
const longAllowB = padPath('allow: ', 'b');

const utf8 = new TextEncoder();
const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...utf8.encode(part)] : part)));
const BOM_BODY = 'User-Agent: foo\nDisallow: /AnyValue\n';

/** About 495 KB of comment lines: still inside the 500 KiB every parser must read. */
const bigPadding = `# ${'x'.repeat(97)}\n`.repeat(4950);

const generatedSuites: ConformanceSuite[] = [
  {
    name: 'overlong disallow line is cut after the kept octets',
    source: GOOGLE_LINE_TOO_LONG,
    robots: `user-agent: FooBot\ndisallow: ${longDisallow}/qux\n`,
    cases: [
      { agent: 'FooBot', url: 'http://foo.bar/fux', allowed: true },
      { agent: 'FooBot', url: `http://foo.bar${longDisallow}/fux`, allowed: false, explain: { line: 2 } },
      // The kept pattern ends with the slash after the padding: one octet fewer would match this.
      { agent: 'FooBot', url: `http://foo.bar${longDisallow}`, allowed: true },
    ],
  },
  {
    name: 'overlong allow lines are cut after the kept octets',
    source: GOOGLE_LINE_TOO_LONG,
    robots: `user-agent: FooBot\ndisallow: /\nallow: ${longAllowA}/qux\nallow: ${longAllowB}/qux\n`,
    cases: [
      { agent: 'FooBot', url: 'http://foo.bar/', allowed: false, explain: { line: 2 } },
      { agent: 'FooBot', url: `http://foo.bar${longAllowA}/qux`, allowed: true, explain: { line: 3 } },
      { agent: 'FooBot', url: `http://foo.bar${longAllowB}/fux`, allowed: true, explain: { line: 4 } },
    ],
  },
  {
    name: 'whole UTF-8 byte order mark (bytes)',
    source: GOOGLE_BOM,
    robots: bytes([0xef, 0xbb, 0xbf], BOM_BODY),
    cases: [
      { agent: 'foo', url: 'http://foo.bar/AnyValue', allowed: false, explain: { line: 2, how: 'token' } },
      { agent: 'foo', url: 'http://foo.bar/other', allowed: true },
    ],
  },
  // google/robotstxt-spec-test (CTC BOM-characters) expects the opposite of the next two: a
  // partial mark spoils the first line, so the rule after it has no group. Google's parser
  // skips the first octets of a mark as it skips a whole one (its own robots_test.cc), and
  // this project follows the parser that crawls.
  {
    name: 'first two octets of a byte order mark',
    source: GOOGLE_BOM,
    robots: bytes([0xef, 0xbb], BOM_BODY),
    cases: [{ agent: 'foo', url: 'http://foo.bar/AnyValue', allowed: false, explain: { line: 2 } }],
  },
  {
    name: 'first octet of a byte order mark',
    source: GOOGLE_BOM,
    robots: bytes([0xef], BOM_BODY),
    cases: [{ agent: 'foo', url: 'http://foo.bar/AnyValue', allowed: false, explain: { line: 2 } }],
  },
  {
    name: 'broken byte order mark spoils the first line',
    source: GOOGLE_BOM,
    robots: bytes([0xef, 0x11, 0xbf], BOM_BODY),
    cases: [{ agent: 'foo', url: 'http://foo.bar/AnyValue', allowed: true }],
  },
  {
    name: 'byte order mark in the middle of the file (bytes)',
    source: GOOGLE_BOM,
    robots: bytes('User-Agent: foo\n', [0xef, 0xbb, 0xbf], 'Disallow: /AnyValue\n'),
    cases: [{ agent: 'foo', url: 'http://foo.bar/AnyValue', allowed: true }],
  },
  {
    name: 'a second byte order mark spoils the first line, as Google skips only one (bytes)',
    source: GOOGLE_BOM,
    robots: bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], 'User-agent: *\nDisallow: /\n'),
    cases: [{ agent: 'FooBot', url: 'http://example.com/x', allowed: true, explain: { how: 'none' } }],
  },
  {
    name: 'a second byte order mark spoils the first line (string)',
    source: GOOGLE_BOM,
    robots: '\ufeff\ufeffUser-agent: *\nDisallow: /\n',
    cases: [{ agent: 'FooBot', url: 'http://example.com/x', allowed: true, explain: { how: 'none' } }],
  },
  {
    // Large files are decoded in pieces of 64 KiB ending at a line feed: a mark that starts
    // a piece is a mark in the middle of the file all the same.
    name: 'byte order mark at the start of a line past 64 KiB (bytes)',
    source: GOOGLE_BOM,
    robots: bytes(
      `User-agent: *\n${`# ${'x'.repeat(97)}\n`.repeat(655)}${'#'.repeat(65_518 - 14 - 655 * 100)}\n`,
      [0xef, 0xbb, 0xbf],
      'Disallow: /x\n',
    ),
    cases: [{ agent: 'FooBot', url: 'http://example.com/x', allowed: true, explain: { how: 'star' } }],
  },
  {
    name: 'a rule after about 495 KB of comments is still read',
    source: 'RFC 9309 2.5 (parse at least 500 KiB)',
    robots: `User-agent: *\n${bigPadding}Disallow: /deep\n`,
    cases: [
      { agent: 'ExampleBot', url: 'https://www.example.com/deep', allowed: false, explain: { line: 4952 } },
      { agent: 'ExampleBot', url: 'https://www.example.com/shallow', allowed: true },
    ],
  },
  {
    name: 'rules past a lowered size limit are ignored',
    source: 'RFC 9309 2.5; RobotsParseOptions.maxBytes',
    robots: `User-agent: *\nDisallow: /early\n${`# ${'x'.repeat(97)}\n`.repeat(50)}Disallow: /late\n`,
    options: { maxBytes: 1000 },
    cases: [
      { agent: 'ExampleBot', url: 'https://www.example.com/early', allowed: false },
      { agent: 'ExampleBot', url: 'https://www.example.com/late', allowed: true },
    ],
  },
];

// ---------------------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------------------

const sources: [string, ConformanceSuite[]][] = [
  ['google.json', loadFixture('google.json')],
  ['rfc9309.json', loadFixture('rfc9309.json')],
  ['google-spec.json', loadFixture('google-spec.json')],
  ['generated', generatedSuites],
];

function shorten(text: string): string {
  return text.length > 90 ? `${text.slice(0, 60)}…(${text.length} chars)…${text.slice(-20)}` : text;
}

function caseTitle(c: ConformanceCase): string {
  return `${c.agent === '' ? '(empty agent)' : JSON.stringify(c.agent)} ${shorten(c.url)} -> ${
    c.allowed ? 'allowed' : 'disallowed'
  }`;
}

/** The parts of a verdict that `expected` names, in the same shape. */
function pick(verdict: Verdict, expected: ExplainExpectation): ExplainExpectation {
  const got: ExplainExpectation = {};
  if ('reason' in expected) got.reason = verdict.reason;
  if ('kind' in expected) got.kind = verdict.rule?.kind;
  if ('line' in expected) got.line = verdict.rule?.line ?? null;
  if ('how' in expected) got.how = verdict.group.how;
  if ('derived' in expected) got.derived = verdict.rule?.derived;
  if ('productToken' in expected) got.productToken = verdict.productToken;
  return got;
}

function bodyForms(robots: string | Uint8Array): [string, string | Uint8Array][] {
  return typeof robots === 'string'
    ? [
        ['string', robots],
        ['bytes', utf8.encode(robots)],
      ]
    : [['bytes', robots]];
}

for (const [file, suites] of sources) {
  describe(`conformance: ${file}`, () => {
    it('fixture is well-formed', () => {
      expect(suites.length).toBeGreaterThan(0);
      for (const suite of suites) {
        const where = `suite "${suite.name}"`;
        expect(typeof suite.name, where).toBe('string');
        expect(typeof suite.source, where).toBe('string');
        expect(typeof suite.robots === 'string' || suite.robots instanceof Uint8Array, where).toBe(true);
        expect(suite.cases.length, where).toBeGreaterThan(0);
        if (suite.deviation !== undefined) expect(suite.deviation.length, where).toBeGreaterThan(20);
        for (const c of suite.cases) {
          expect(typeof c.agent, where).toBe('string');
          expect(typeof c.allowed, where).toBe('boolean');
          expect(/^(https?:\/\/|\/)/.test(c.url), `${where}: ${c.url}`).toBe(true);
          if (c.explain !== undefined) {
            const known = ['reason', 'kind', 'line', 'how', 'derived', 'productToken'];
            for (const key of Object.keys(c.explain))
              expect(known, `${where}: explain.${key}`).toContain(key);
          }
        }
      }
    });

    for (const suite of suites) {
      const label = suite.deviation === undefined ? suite.name : `${suite.name} [deviation from Google]`;
      describe(label, () => {
        for (const [form, body] of bodyForms(suite.robots)) {
          describe(`body as ${form}`, () => {
            let parsed: RobotsTxt | undefined;
            const robots = (): RobotsTxt => {
              parsed ??= RobotsTxt.parse(body, suite.options);
              return parsed;
            };
            for (const c of suite.cases) {
              const title = c.deviation === undefined ? caseTitle(c) : `${caseTitle(c)} [deviation]`;
              it(title, () => {
                expect(robots().isAllowed(c.url, c.agent), 'isAllowed').toBe(c.allowed);
                const verdict = robots().explain(c.url, c.agent);
                expect(verdict.allowed, 'explain().allowed').toBe(c.allowed);
                if (c.explain !== undefined) expect(pick(verdict, c.explain), 'explain()').toEqual(c.explain);
              });
            }
          });
        }
      });
    }
  });
}

describe('conformance: google/robotstxt-spec-test empty-string [deviation from Google]', () => {
  // The suite asks about an empty URL, which Google's parser reads as the path `/`. Here an
  // empty string names no page and is a TypeError; the suite's verdicts hold for `/`.
  const empty = RobotsTxt.parse('');
  const fooBot = RobotsTxt.parse('user-agent: FooBot\ndisallow: /\n');

  it('an empty URL is a TypeError, from isAllowed and from explain', () => {
    for (const robots of [empty, fooBot]) {
      expect(() => robots.isAllowed('', 'FooBot')).toThrow(TypeError);
      expect(() => robots.explain('', '')).toThrow(/absolute URL or a path starting with "\/", got ""/);
    }
  });

  it('the verdicts the suite expects, for the path /', () => {
    expect(empty.isAllowed('/', 'FooBot')).toBe(true);
    expect(empty.isAllowed('/', '')).toBe(true);
    expect(fooBot.isAllowed('/', '')).toBe(true);
    expect(fooBot.isAllowed('/', 'FooBot')).toBe(false);
  });
});
