import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotHttpUrlError, originOf, robotsTxtUrlOf } from '../../src/fetch/index.js';

describe('originOf', () => {
  it.each([
    ['https://a.com:443/x', 'https://a.com'],
    ['http://a.com:80/x', 'http://a.com'],
    ['https://a.com:80/x', 'https://a.com:80'],
    ['http://A.COM/Path', 'http://a.com'],
    ['HTTPS://Example.org', 'https://example.org'],
    ['https://Bücher.example:443/a?b', 'https://xn--bcher-kva.example'],
    ['https://xn--bcher-kva.example/', 'https://xn--bcher-kva.example'],
    ['http://user:pass@host.example:8080/p', 'http://host.example:8080'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://0x7f.1/', 'http://127.0.0.1'],
    ['http://[::1]:3000/', 'http://[::1]:3000'],
    ['https://a.com:0443/', 'https://a.com'],
    ['https://a.com./', 'https://a.com.'],
    ['http://a.com\\path', 'http://a.com'],
    ['http://a.com?q', 'http://a.com'],
    ['http://a.com#f', 'http://a.com'],
  ])('%s -> %s', (url, origin) => {
    expect(originOf(url)).toBe(origin);
  });

  it('accepts URL objects', () => {
    expect(originOf(new URL('https://a.com:443/x'))).toBe('https://a.com');
  });

  it.each([
    'ftp://a.com/',
    'file:///etc/passwd',
    'mailto:a@b.c',
    '/relative',
    'not a url',
    'https://a.com:99999/',
  ])('throws a NotHttpUrlError, a TypeError, for %s', (url) => {
    expect(() => originOf(url)).toThrow(NotHttpUrlError);
    expect(() => originOf(url)).toThrow(TypeError);
  });

  it('throws a plain TypeError, not a NotHttpUrlError, for what is no URL at all', () => {
    for (const value of [42, undefined, null, {}]) {
      let thrown: unknown;
      try {
        originOf(value as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect(thrown).not.toBeInstanceOf(NotHttpUrlError);
    }
  });

  it('agrees with the WHATWG parser on generated URLs (the fast path included)', () => {
    const host = fc.oneof(
      fc.domain(),
      fc.domain().map((domain) => domain.toUpperCase()),
      fc.ipV4(),
      fc.ipV4Extended(),
      // Dotted numbers of every shape: too many or few parts, leading zeros, over 255.
      fc
        .array(fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '010', '0')), {
          minLength: 1,
          maxLength: 5,
        })
        .map((parts) => parts.join('.')),
      fc.constantFrom('localhost', 'xn--bcher-kva.example', 'a-.b', 'x.1', 'a..b', '0x10.0.0.1'),
    );
    const port = fc.oneof(
      fc.constant(''),
      fc.integer({ min: 0, max: 70000 }).map((value) => `:${value}`),
      fc.constant(':'),
    );
    const rest = fc.constantFrom('', '/', '/p?q=1', '?q', '#f', '\\x', '@evil.example/', ' /');
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), host, port, rest, (scheme, hostname, portPart, tail) => {
        const url = `${scheme}://${hostname}${portPart}${tail}`;
        let expected: string | undefined;
        try {
          expected = new URL(url).origin;
        } catch {
          expected = undefined;
        }
        if (expected === undefined) {
          expect(() => originOf(url)).toThrow(NotHttpUrlError);
        } else {
          expect(originOf(url)).toBe(expected);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe('robotsTxtUrlOf', () => {
  it('puts robots.txt at the top level of the origin (RFC 9309 2.3)', () => {
    expect(robotsTxtUrlOf('https://a.com:8443')).toBe('https://a.com:8443/robots.txt');
  });
});
