import { describe, expect, it } from 'vitest';
import { productTokenOf } from '../../src/index.js';

describe('productTokenOf', () => {
  it.each([
    ['ExampleBot', 'examplebot'],
    ['Googlebot-Image', 'googlebot-image'],
    ['ExampleBot/2.1', 'examplebot'],
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'googlebot'],
    [
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'googlebot',
    ],
    [
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0 Safari/537.36',
      'bingbot',
    ],
    [
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot',
      'gptbot',
    ],
    ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', 'yandexbot'],
    ['CCBot/2.0 (https://commoncrawl.org/faq/)', 'ccbot'],
    ['facebookexternalhit/1.1', 'facebookexternalhit'],
    [
      'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
      'meta-externalagent',
    ],
    // Hosts, URLs, e-mail addresses and `rv:` in a comment are no products.
    ['Mozilla/5.0 (compatible; YaK/1.0; http://linkfluence.com/; bot@linkfluence.com)', 'yak'],
    ['Mozilla/5.0 (compatible; Foo/1.0; +http://crawler.example.com/)', 'foo'],
    ['Mozilla/5.0 (compatible; Foo/1.0; mailto:crawler@example.com)', 'foo'],
    ['Mozilla/5.0 (compatible; Foo/1.0; indexer.example.com)', 'foo'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0 Foo/1.0', 'foo'],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
      'applebot',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      'mozilla',
    ],
    // Without a crawler's word in its name, the client after `compatible` is the crawler, not
    // the device model of the platform comment before it (Google's documented mobile headers).
    [
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 (compatible; GoogleOther)',
      'googleother',
    ],
    [
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 (compatible; Google-InspectionTool/1.0;)',
      'google-inspectiontool',
    ],
    [
      'Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)',
      'google-read-aloud',
    ],
    ['Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0) Foo/1.0', 'foo'],
    // Outside comments, words with blanks alone between them are one product, named by its first
    // word as a user-agent line is (`User-agent: Sogou web spider` names `sogou`).
    ['Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)', 'sogou'],
    ['Screaming Frog SEO Spider/19.0', 'screaming'],
    // A name with a dot whose last part reads like a crawler's is no host.
    ['Mozilla/5.0 (compatible; archive.org_bot +http://archive.org/details/archive.org_bot)', 'archive'],
    ['Mozilla/5.0 (compatible; Linux x86_64; Mail.RU_Bot/2.0; +http://go.mail.ru/help/robots)', 'mail'],
    // A host, even one whose top-level domain is a crawler's word, is no product.
    ['Mozilla/5.0 (compatible; Foo/1.0; crawler.example.bot)', 'foo'],
    ['Bot2000', 'bot'],
    ['Foo Bar', 'foo bar'],
    [' ExampleBot\t', 'examplebot'],
    ['ExampleBot ', 'examplebot'],
  ])('%s -> %s', (header, token) => {
    expect(productTokenOf(header)).toBe(token);
  });

  it.each([undefined, null, 42])('rejects %s, saying what it takes', (userAgent) => {
    expect(() => productTokenOf(userAgent as unknown as string)).toThrow(
      /product token such as "ExampleBot"/,
    );
  });

  it('reads a header of any length in one pass (blanks between a product and its version)', () => {
    // A pattern over the whole header once took seconds here.
    const header = `a/${' '.repeat(200_000)}1 (compatible; ExampleBot/1.0)`;
    expect(productTokenOf(header)).toBe('examplebot');
  });
});
