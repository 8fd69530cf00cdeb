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
    ['Bot2000', 'bot'],
    ['Foo Bar', 'foo bar'],
    [' ExampleBot\t', 'examplebot'],
    ['ExampleBot ', 'examplebot'],
  ])('%s -> %s', (header, token) => {
    expect(productTokenOf(header)).toBe(token);
  });
});
