/**
 * Explains a bundled robots.txt for a few URLs and crawlers: the verdict, the decisive
 * line and the group that was used.
 *
 *   npx tsx examples/tester.ts [robots.txt] [url ...]
 */
import { readFileSync } from 'node:fs';
import { RobotsTxt } from '../src/index.js';

const [file = new URL('./robots.txt', import.meta.url).pathname, ...given] = process.argv.slice(2);
const urls =
  given.length > 0
    ? given
    : [
        'https://shop.example/search?q=shoes',
        'https://shop.example/search/help',
        'https://shop.example/drafts/new-collection',
        'https://shop.example/products/42?sessionid=abc',
      ];
const crawlers = [
  'ExampleBot',
  'Googlebot-Image',
  'GPTBot',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
];

const robots = RobotsTxt.parse(readFileSync(file));
console.log(`${file}: ${robots.groups.length} groups, sitemaps: ${robots.sitemaps.join(', ') || 'none'}`);
for (const lint of robots.lints) console.log(`  line ${lint.line}: ${lint.severity}: ${lint.message}`);
for (const url of urls) {
  console.log(`\n${url}`);
  for (const crawler of crawlers) {
    const verdict = robots.explain(url, crawler);
    const rule = verdict.rule
      ? `line ${verdict.rule.line} (${verdict.rule.kind}: ${verdict.rule.pattern})`
      : verdict.reason;
    const group =
      verdict.group.how === 'fallback'
        ? `fallback ${verdict.group.fallbackFrom} -> ${verdict.group.token}`
        : `${verdict.group.how} ${verdict.group.token ?? ''}`;
    console.log(
      `  ${verdict.allowed ? 'allowed   ' : 'DISALLOWED'} ${verdict.productToken.padEnd(16)} ${rule}; group: ${group.trim()}`,
    );
  }
}
