import { describe, expect, it } from 'vitest';
import { urlOrNull } from '../../src/robots/url.js';

describe('urlOrNull', () => {
  it('reads a host written in Latin-1 letters every time, however often it is asked', () => {
    // Node 20's URL.canParse answers false for these once it is optimized.
    let read = 0;
    for (let i = 0; i < 200_000; i++)
      if (urlOrNull('http://café.example/x', 'http://base.example/') !== null) read++;
    expect(read).toBe(200_000);
    expect(urlOrNull('http://café.example/x')?.host).toBe('xn--caf-dma.example');
  });

  it('is null for what is no URL', () => {
    expect(urlOrNull('not a url')).toBeNull();
    expect(urlOrNull('http://[::1/x')).toBeNull();
    expect(urlOrNull('/x', 'http://base.example/')?.href).toBe('http://base.example/x');
  });
});
