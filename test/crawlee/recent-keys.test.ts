import { describe, expect, it } from 'vitest';
import { RecentKeys } from '../../src/crawlee/recent-keys.js';

describe('RecentKeys', () => {
  it('answers false for a key it keeps, and forgets the oldest past its limit', () => {
    const keys = new RecentKeys(3);
    expect(['a', 'b', 'c'].map((k) => keys.add(k))).toEqual([true, true, true]);
    expect(keys.add('a')).toBe(false);
    expect(keys.add('d')).toBe(true); // forgets 'a', the oldest
    expect(keys.size).toBe(3);
    expect(keys.add('b')).toBe(false);
    expect(keys.add('a')).toBe(true);
  });

  it('stays within its limit however many keys come', () => {
    const keys = new RecentKeys(1000);
    for (let i = 0; i < 100_000; i++) keys.add(`https://example.com/private/${i}`);
    expect(keys.size).toBe(1000);
    expect(keys.add('https://example.com/private/99999')).toBe(false);
    expect(keys.add('https://example.com/private/0')).toBe(true);
  });

  it('forgets every key when cleared', () => {
    const keys = new RecentKeys(3);
    keys.add('a');
    keys.clear();
    expect(keys.size).toBe(0);
    expect(keys.add('a')).toBe(true);
  });

  it('forgets one key when it is deleted', () => {
    const keys = new RecentKeys(3);
    keys.add('a');
    keys.add('b');
    expect(keys.delete('a')).toBe(true);
    expect(keys.delete('a')).toBe(false);
    expect(keys.size).toBe(1);
    expect(keys.add('a')).toBe(true);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new RecentKeys(0)).toThrow(RangeError);
    expect(() => new RecentKeys(1.5)).toThrow(RangeError);
  });
});
