import { describe, expect, it } from 'vitest';
import { NotHttpUrlError, unansweredCheck } from '../../src/store/index.js';

describe('unansweredCheck', () => {
  const why = 'robots.txt had not answered after 2 s.';

  it('disallows every page of the origin, as an unreachable robots.txt does, and says why', () => {
    const check = unansweredCheck(
      'HTTP://Example.com:80/a?b',
      'Mozilla/5.0 (compatible; ExampleBot/2.1)',
      why,
    );
    expect(check).toMatchObject({
      allowed: false,
      reason: 'disallow-all',
      productToken: 'examplebot',
      path: '/a?b',
      rule: null,
      origin: 'http://example.com',
      robotsTxtUrl: 'http://example.com/robots.txt',
      policyKind: 'disallow-all',
      status: 'timeout',
      why,
      servedFromStaleCopy: false,
    });
    expect(check.group.how).toBe('none');
  });

  it('still allows /robots.txt (RFC 9309 2.2.2)', () => {
    const check = unansweredCheck(new URL('https://example.com/robots.txt'), 'ExampleBot', why);
    expect([check.allowed, check.reason]).toEqual([true, 'robots-txt-always-allowed']);
  });

  it('refuses a URL robots.txt does not apply to, as a check does', () => {
    expect(() => unansweredCheck('data:text/html,hi', 'ExampleBot', why)).toThrow(NotHttpUrlError);
  });
});
