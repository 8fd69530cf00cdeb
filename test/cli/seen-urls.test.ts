import { describe, expect, it } from 'vitest';
import { SeenUrls } from '../../src/cli/seen-urls.js';

describe('SeenUrls', () => {
  it('says whether a URL was met before, through many growths of its table', () => {
    const seen = new SeenUrls();
    // URLs that differ in one character, in their length, or only by order, as a site's do.
    const urls: string[] = [];
    for (let i = 0; i < 300_000; i++) urls.push(`https://example.com/products/${i}?page=${i % 7}`);
    for (let i = 0; i < 1000; i++) urls.push(`https://example.com/${'a'.repeat(i)}`);
    urls.push('', 'https://example.com/ab', 'https://example.com/ba', 'https://example.com/caf\u00e9');
    for (const url of urls) expect(seen.add(url)).toBe(true);
    expect(seen.size).toBe(urls.length);
    for (const url of urls) expect(seen.add(url)).toBe(false);
    expect(seen.size).toBe(urls.length);
  });

  it('never takes a new URL for one met before among a million alike', () => {
    const seen = new SeenUrls();
    let added = 0;
    for (let i = 0; i < 1_000_000; i++) if (seen.add(`http://127.0.0.1:8765/p/${i.toString(36)}`)) added++;
    expect(added).toBe(1_000_000);
  });
});
