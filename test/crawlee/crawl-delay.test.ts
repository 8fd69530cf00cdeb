import { describe, expect, it } from 'vitest';
import { formatWait } from '../../src/crawlee/crawl-delay.js';

describe('formatWait', () => {
  it('says a wait in seconds, minutes, hours or days, whichever reads best', () => {
    expect(formatWait(50_000)).toBe('50 s');
    expect(formatWait(119_000)).toBe('119 s');
    expect(formatWait(120_000)).toBe('2 min');
    expect(formatWait(5_000_000)).toBe('83 min');
    expect(formatWait(7_200_000)).toBe('2.0 h');
    expect(formatWait(150_000_000)).toBe('41.7 h');
    expect(formatWait(172_800_000)).toBe('2.0 days');
    expect(formatWait(4_000_000_000)).toBe('46.3 days');
  });
});
