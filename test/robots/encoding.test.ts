import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charMask, octetMask, pathCharMask } from '../../src/robots/chars.js';
import { filteredPathOf } from '../../src/robots/encoding.js';
import { normalizePath, normalizePattern, pathOf } from '../../src/robots/index.js';

describe('normalizePath', () => {
  it.each([
    ['/plain/path?q=1&r=2', '/plain/path?q=1&r=2'],
    ['/café', '/caf%C3%A9'],
    ['/caf%c3%a9', '/caf%C3%A9'],
    ['/%62%61%7A', '/baz'],
    ['/%7e%2d%2E%5F', '/~-._'],
    ['/a%2Fb', '/a%2Fb'],
    ['/a%2fb', '/a%2Fb'],
    ['/a*b$c', '/a%2Ab%24c'],
    ['/a%2Ab', '/a%2Ab'],
    // A `%` that starts no escape is a literal `%`.
    ['/100%', '/100%25'],
    ['/100%zz', '/100%25zz'],
    ['/a%2', '/a%252'],
    ['/a%%41', '/a%25A'],
    ['/a b"c<d>', '/a%20b%22c%3Cd%3E'],
    ['/ツ', '/%E3%83%84'],
    ['/😀', '/%F0%9F%98%80'],
    ['/\uD800x', '/%EF%BF%BDx'],
    ['/foo/bar?baz=http://foo.bar?tar&par', '/foo/bar?baz=http://foo.bar?tar&par'],
    // URL parsers escape `'` in a query: both forms are one.
    ['/search?q=%27x%27', "/search?q='x'"],
    ["/it's", "/it's"],
  ])('%s -> %s', (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });
});

/**
 * The rules of encoding.ts spelled out one unit at a time, as slowly and plainly as
 * possible: the reference the fast normaliser must agree with.
 */
function referenceNormalizePath(path: string): string {
  // Unreserved characters, and `'`, which URL parsers escape in a query.
  const unreserved = /^[A-Za-z0-9\-._~']$/;
  const raw = /^[A-Za-z0-9\-._~!#&'()+,/:;=?@[\]]$/;
  let out = '';
  for (let i = 0; i < path.length; ) {
    const hex = /^%([0-9A-Fa-f]{2})/.exec(path.slice(i));
    if (hex) {
      const ch = String.fromCharCode(Number.parseInt(hex[1], 16));
      out += unreserved.test(ch) ? ch : `%${hex[1].toUpperCase()}`;
      i += 3;
      continue;
    }
    const ch = String.fromCodePoint(path.codePointAt(i)!);
    i += ch.length;
    if (raw.test(ch)) out += ch;
    else
      for (const octet of new TextEncoder().encode(ch))
        out += `%${octet.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

describe('normalizePath agrees with the reference', () => {
  const unit = fc.oneof(
    fc.constantFrom(
      '%',
      '%2',
      '%2F',
      '%2f',
      '%41',
      '%7e',
      '%7E',
      '%C3%A9',
      '%zz',
      '*',
      '$',
      ' ',
      'é',
      '😀',
      '\uD800',
      '\uDC00',
    ),
    fc.constantFrom('a', 'Z', '0', '/', '?', '=', '&', '-', '.', '~', '[', '|', '^', '"'),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  it('on paths made of escapes, wildcards, non-ASCII and plain runs', () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const path = `/${units.join('')}`;
        expect(normalizePath(path)).toBe(referenceNormalizePath(path));
      }),
      { numRuns: 2000 },
    );
  });
  it('on long paths, written in chunks: none cut in an escape or a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(unit, fc.integer({ min: 1, max: 600 })), { minLength: 1, maxLength: 30 }),
        (pieces) => {
          const path = `/${pieces.map(([text, times]) => text.repeat(times)).join('')}`;
          expect(normalizePath(path)).toBe(referenceNormalizePath(path));
        },
      ),
      { numRuns: 300 },
    );
    for (let shift = 0; shift < 12; shift++) {
      for (const filler of ['|', '%', 'é', 'a']) {
        const path = `/${filler.repeat(4000 + shift * 7)}😀%7e%41${'x'.repeat(shift)}😀${'"'.repeat(5000)}`;
        expect(normalizePath(path)).toBe(referenceNormalizePath(path));
      }
    }
    // A run in normal form, long enough to be read natively but not sliced, across the end of a
    // chunk: units that change kind at every character up to a point just before it.
    for (let start = 3950; start < 4100; start++) {
      const head = `/${'a|'.repeat((start - 1) >> 1)}${start % 2 === 0 ? '|' : ''}`;
      const path = `${head}${'b'.repeat(100)}|%7e`;
      expect(normalizePath(path)).toBe(referenceNormalizePath(path));
    }
  });
  it('on paths of millions of units, the runs in normal form read in bounded stretches', () => {
    // Over UNBOUNDED_RUN_MAX units: runs of 65,536 at most, which must join up unchanged.
    for (const run of ['a%2F', '%C3%A9b', 'x']) {
      const path = `/${run.repeat(Math.ceil(1_100_000 / run.length))}%7e${run.repeat(70_000)}é`;
      expect(normalizePath(path)).toBe(referenceNormalizePath(path));
    }
  });
  it('on a path of 20 million units in normal form, without running out of stack', () => {
    const path = `/${'a%2F'.repeat(5_000_000)}`;
    expect(normalizePath(path)).toBe(path);
  });
  it('keeps whole an escape written at the end of the buffer, before a long stretch', () => {
    // The buffer is shared and only grows: in a process of its own it holds 4,096 units (49,152
    // octets), which runs of 255 `a` and one `|` each fill to within a few octets of its end.
    const script = `
      import { normalizePath } from './src/robots/encoding.ts';
      let wrong = 0;
      for (let blocks = 188; blocks <= 192; blocks++)
        for (let pad = 0; pad < 255; pad++) {
          const head = ('a'.repeat(255) + '|').repeat(blocks) + 'a'.repeat(pad);
          const want = '/' + ('a'.repeat(255) + '%7C').repeat(blocks) + 'a'.repeat(pad) + '%2F' + '%7C'.repeat(40);
          if (normalizePath('/' + head + '%2f' + '|'.repeat(40)) !== want) wrong++;
        }
      console.log(wrong);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('0');
  });

  it('on long stretches of units that start no run, each kind among them, after an escape to rewrite', () => {
    const kinds = [
      '*',
      '$',
      '#',
      '%',
      '%2',
      '|',
      '^',
      ' ',
      '\u0001',
      '\u007f',
      'é',
      '€',
      '😀',
      '\uD800',
      '\uDC00',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom('', '%7e', '%2f', '%C3%a9', 'a'),
        fc.array(fc.constantFrom(...kinds), { minLength: 20, maxLength: 200 }),
        fc.constantFrom('', 'a', '%41', '\uDC00b'),
        (before, stretch, after) => {
          const path = `/${before}${stretch.join('')}${after}`;
          expect(normalizePath(path)).toBe(referenceNormalizePath(path));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('normalizePattern', () => {
  it('keeps * as a wildcard and a final $ as the anchor', () => {
    expect(normalizePattern('/a*b$')).toBe('/a*b$');
  });
  it('reads a $ before the end as a literal', () => {
    expect(normalizePattern('/a$b')).toBe('/a%24b');
    expect(normalizePattern('/a$b$')).toBe('/a%24b$');
  });
  it('encodes like a path otherwise', () => {
    expect(normalizePattern('/café/%62')).toBe('/caf%C3%A9/b');
  });
  it('finds what to normalise at any place, next to a * or not (units are read two at a time)', () => {
    for (const [raw, normal] of [
      ['é', '%C3%A9'],
      [' ', '%20'],
      ['%62', 'b'],
      ['$', '%24'],
    ]) {
      for (const [before, after] of [
        ['/', ''],
        ['/a', ''],
        ['/ab', 'c'],
        ['/*', '*'],
        ['/a*', 'b*'],
        ['/ab*', ''],
      ]) {
        // A `$` that ends the pattern is the anchor.
        const end = raw === '$' && after === '' ? 'x' : after;
        expect(normalizePattern(before + raw + end), before + raw + end).toBe(before + normal + end);
      }
    }
    expect(['/a*', '/ab*', '/**', '/a**b'].map(normalizePattern)).toEqual(['/a*', '/ab*', '/**', '/a**b']);
  });
  it('keeps a % that starts an escape cut short by the end or a *, and encodes any other lone %', () => {
    expect(
      ['/*%', '/a%2', '/a%f', '/a%*b', '/a%e*', '/a%$', '/100%zz', '/a%2G', '/%'].map(normalizePattern),
    ).toEqual(['/*%', '/a%2', '/a%F', '/a%*b', '/a%E*', '/a%25$', '/100%25zz', '/a%252G', '/%']);
  });
});

describe('pathOf', () => {
  it.each([
    ['https://example.com', '/'],
    ['https://example.com?x=1', '/?x=1'],
    ['https://example.com/a/b?c=d#frag', '/a/b?c=d'],
    ['HTTPS://Example.COM:8443/A', '/A'],
    ['https://example.com/a/../b/./c', '/b/c'],
    ['https://user:pw@example.com/x', '/x'],
    ['https://example.com/a b', '/a%20b'],
    ['https://example.com/p?', '/p?'],
    ['/just/a/path#x', '/just/a/path'],
  ])('%s -> %s', (input, expected) => {
    expect(pathOf(input)).toBe(expected);
  });

  it('takes URL objects', () => {
    expect(pathOf(new URL('https://example.com/é?q'))).toBe('/%C3%A9?q');
    // WHATWG's `search` is empty for a bare `?`, but the request line keeps it.
    expect(pathOf(new URL('https://example.com/p?'))).toBe('/p?');
    expect(pathOf(new URL('https://example.com/p?#x'))).toBe('/p?');
    expect(pathOf(new URL('https://example.com/p#x?'))).toBe('/p');
  });

  it('rejects what is neither an absolute URL nor a path, saying what it expects', () => {
    expect(() => pathOf('example.com/x')).toThrow(/absolute URL or a path starting with "\/"/);
    expect(() => pathOf('mailto')).toThrow(TypeError);
  });

  it('rejects a URL without a hierarchical path, which no rule can match', () => {
    for (const url of ['mailto:a@b.c', 'javascript:alert(1)', 'urn:isbn:0451450523', 'data:text/plain,x']) {
      expect(() => pathOf(url)).toThrow(/path starting with "\/"/);
      expect(() => pathOf(new URL(url))).toThrow(/path starting with "\/"/);
    }
    // A URL of another scheme with a path is read like any other.
    expect(pathOf('ftp://example.com/pub/x')).toBe('/pub/x');
    expect(pathOf('foo:/bar')).toBe('/bar');
  });

  it('reads any string starting with / as a path', () => {
    expect(pathOf('//x/y')).toBe('//x/y');
  });

  it('reads a path as its part before any #, normalised, and writes its filter', () => {
    const unit = fc.constantFrom(
      'a',
      'Z',
      '0',
      '/',
      '?',
      '=',
      '.',
      '..',
      '~',
      '#',
      '%',
      '%2f',
      '*',
      '$',
      ' ',
      'é',
      '|',
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), (units) => {
        const path = `/${units.join('')}`;
        const expected = normalizePath(path.split('#', 1)[0]);
        const mask = new Int32Array([-1, -1]);
        expect(filteredPathOf(path, mask)).toBe(expected);
        const filter = new Int32Array(2);
        charMask(expected, 0, expected.length, filter, 0);
        expect([...mask]).toEqual([...filter]);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a URL string as the URL parser reads it, whatever its authority', () => {
    for (const url of [
      'http:///private',
      'http:////private',
      'https://example.com:8443/a',
      'https://example.com:/a',
      'https://[::1]:8080/a?b',
      "https://example.com/search?q='x'",
      "https://example.com/search?q='x'#top",
      'https://example.com/search?q=%27x%27',
      'https://EXAMPLE.com/A',
    ]) {
      expect(pathOf(url), url).toBe(pathOf(new URL(url)));
    }
    for (const url of [
      'http://',
      'http://?x',
      'http://[::1/private',
      'http://h:99999/private',
      'http://:80/x',
      'http://e.com:80:/x',
      'http://e.com:8o:/x',
    ]) {
      expect(() => new URL(url), url).toThrow();
      expect(() => pathOf(url), url).toThrow(TypeError);
      // It is absolute, and no URL all the same: the message says so, not that a scheme is missing.
      expect(() => pathOf(url), url).toThrow(/^Expected a valid URL, got .*, which a URL parser refuses/);
    }
  });
});

describe('charMask', () => {
  /** The filter by its definition: bit `c & 63` of each unit's `c & 127`, none for `*` and `$`. */
  const reference = (text: string, start: number, length: number) => {
    let low = 0;
    let high = 0;
    for (let i = start; i < start + length; i++) {
      const c = text.charCodeAt(i) & 127;
      if (c === 42 || c === 36) continue;
      if ((c & 63) < 32) low |= 1 << (c & 63);
      else high |= 1 << ((c & 63) - 32);
    }
    return [low, high];
  };

  it('gives the filter of its definition for any text, any unit, any slice', () => {
    // Units below and above 128 and 256, and surrogates, in texts short and long.
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 127 }),
      fc.integer({ min: 128, max: 0xffff }),
      fc.constantFrom(0x2a, 0x24, 0x6a, 0x64, 0x100 + 0x2a, 0xd800, 0xffff),
    );
    fc.assert(
      fc.property(
        fc.array(unit, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 400 }),
        fc.nat(),
        fc.nat(),
        (units, repeat, a, b) => {
          const text = String.fromCharCode(...units).repeat(repeat);
          const start = a % text.length;
          const length = b % (text.length - start + 1);
          const out = new Int32Array(4);
          charMask(text, start, length, out, 1);
          expect([out[1], out[2]]).toEqual(reference(text, start, length));
          expect(out[0]).toBe(0);
          expect(out[3]).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives from ASCII octets (octetMask) the filter of their text, for any slice', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 300 }),
        fc.nat(),
        fc.nat(),
        (text, a, b) => {
          const start = a % text.length;
          const length = b % (text.length - start + 1);
          const octets = Uint8Array.from(text, (ch) => ch.charCodeAt(0));
          const out = new Int32Array(4);
          octetMask(octets, start, length, out, 1);
          expect([out[1], out[2]]).toEqual(reference(text, start, length));
          expect(out[0]).toBe(0);
          expect(out[3]).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the same filter for long texts, ASCII or with a unit that is not, wherever it falls', () => {
    // Long ASCII texts are masked from their encoded octets, in pieces of 16 Ki: a unit that is
    // not ASCII at the end of a piece, or spilling over it, must still count as `c & 127`.
    const ascii = 'abc/%?=*$-_.~XYZ09';
    for (const length of [31, 32, 63, 64, 65, 255, 256, 16383, 16384, 16385, 40000]) {
      const base = ascii.repeat(Math.ceil(length / ascii.length)).slice(0, length);
      for (const at of [-1, 0, 31, 255, 16383, 16384, length - 1]) {
        for (const unit of ['\u00e9', '\ud800', '\u0100', '\u2a2a']) {
          if (at >= length) continue;
          const text = at < 0 ? base : base.slice(0, at) + unit + base.slice(at + 1);
          for (const [start, span] of [
            [0, length],
            [1, length - 1],
            [0, Math.min(length, 16385)],
          ]) {
            const out = new Int32Array(2);
            charMask(text, start, span, out, 0);
            const label = `${length} ${at} ${unit.charCodeAt(0)} ${start}+${span}`;
            expect([...out], label).toEqual(reference(text, start, span));
          }
          const out = new Int32Array(2);
          pathCharMask(text, out);
          expect([...out], `path ${length} ${at} ${unit.charCodeAt(0)}`).toEqual(reference(text, 0, length));
        }
      }
    }
  });
});

describe('filteredPathOf', () => {
  const filterOf = (path: string) => {
    const mask = new Int32Array(2);
    charMask(path, 0, path.length, mask, 0);
    return [...mask];
  };
  it.each([
    'https://example.com',
    'https://example.com?x=1',
    'https://example.com/a/b?c=d#frag',
    'https://example.com/a/../b',
    'https://example.com/caf%C3%A9/$x*',
    'https://example.com/é',
    '/just/a/path#x',
    '/a%2Fb',
  ])('writes the filter of the path it returns for %s', (url) => {
    const mask = new Int32Array([-1, -1]);
    const path = filteredPathOf(url, mask);
    expect(path).toBe(pathOf(url));
    expect([...mask]).toEqual(filterOf(path));
  });

  it('writes the filter of the path on any URL of a plain origin', () => {
    const tail = fc.string({
      unit: fc.constantFrom('a', '/', '?', '.', '%', '2', 'F', '*', '$', '#', 'é', ' '),
      maxLength: 20,
    });
    fc.assert(
      fc.property(tail, (rest) => {
        const url = `https://example.com/${rest}`;
        const mask = new Int32Array([-1, -1]);
        const path = filteredPathOf(url, mask);
        expect([...mask]).toEqual(filterOf(path));
      }),
      { numRuns: 1000 },
    );
  });
});
