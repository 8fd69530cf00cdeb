/**
 * A filter for groups with many wildcard rules: a rule like `/*x123y*z$` can only match a
 * path that contains its piece `x123y`. Each indexed rule keeps a hash of (the start of) its
 * longest inner piece; a check hashes every window of the path once per piece length in
 * use and skips the rules whose piece hash is not among them, without reading the path
 * again for each rule. A hash says "maybe": a rule that passes is still matched in full.
 */

/** Pieces are hashed on at most this many leading characters. */
export const MAX_GRAM = 8;
/** Shorter pieces are left to the character filter. */
const MIN_GRAM = 2;

const BASE = 31;

/** The largest table of path grams (two Int32Arrays of this many slots: 8 MiB). */
const MAX_SLOTS = 1 << 20;

/** Hash of `text[from, from + length)`. */
function hashOf(text: string, from: number, length: number): number {
  let h = 0;
  for (let i = from; i < from + length; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

/** The key a (hash, length) pair is stored under. */
function keyOf(hash: number, length: number): number {
  return (hash ^ Math.imul(length, 0x9e3779b1)) | 0;
}

/**
 * The gram of the pattern `text[from, to)` (without its final `$` or trailing `*`): the key
 * and length of the first MAX_GRAM characters of its longest piece after the first `*`, or
 * length 0 when no such piece has MIN_GRAM characters.
 */
export function gramOf(text: string, from: number, to: number): { key: number; length: number } {
  let best = -1;
  let bestLength = 0;
  let i = text.indexOf('*', from);
  if (i < 0 || i >= to) return { key: 0, length: 0 };
  while (i < to) {
    while (i < to && text.charCodeAt(i) === 42 /* * */) i++;
    let j = i;
    while (j < to && text.charCodeAt(j) !== 42) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestLength < MIN_GRAM) return { key: 0, length: 0 };
  const length = Math.min(bestLength, MAX_GRAM);
  return { key: keyOf(hashOf(text, best, length), length), length };
}

/**
 * The grams of one path: an open-addressing set of keys, reused from check to check (a
 * stamp marks the slots of the current path, so nothing is cleared).
 */
export class PathGrams {
  private keys = new Int32Array(1024);
  private stamps = new Int32Array(1024);
  private stamp = 0;
  private mask = 1023;

  /**
   * Collects the grams of `path` for each length in `lengths`. Returns false, collecting
   * nothing, for a path so long that its table would take more than MAX_SLOTS.
   */
  collect(path: string, lengths: readonly number[]): boolean {
    const needed = path.length * lengths.length * 2;
    if (needed > MAX_SLOTS) return false;
    if (needed > this.keys.length) {
      let size = this.keys.length;
      while (size < needed) size *= 2;
      this.keys = new Int32Array(size);
      this.stamps = new Int32Array(size);
      this.mask = size - 1;
      this.stamp = 0;
    }
    if (this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    this.stamp++;
    for (const length of lengths) {
      if (length > path.length) continue;
      // BASE^(length - 1), to take the leaving character out of a rolling hash.
      let power = 1;
      for (let i = 1; i < length; i++) power = Math.imul(power, BASE);
      let h = hashOf(path, 0, length);
      this.add(keyOf(h, length));
      for (let i = length; i < path.length; i++) {
        h = (Math.imul(h - Math.imul(path.charCodeAt(i - length), power), BASE) + path.charCodeAt(i)) | 0;
        this.add(keyOf(h, length));
      }
    }
    return true;
  }

  private add(key: number): void {
    let slot = Math.imul(key, 0x85ebca6b) & this.mask;
    while (this.stamps[slot] === this.stamp) {
      if (this.keys[slot] === key) return;
      slot = (slot + 1) & this.mask;
    }
    this.stamps[slot] = this.stamp;
    this.keys[slot] = key;
  }

  /** Whether the path collected last may contain a piece with this key. */
  has(key: number): boolean {
    let slot = Math.imul(key, 0x85ebca6b) & this.mask;
    while (this.stamps[slot] === this.stamp) {
      if (this.keys[slot] === key) return true;
      slot = (slot + 1) & this.mask;
    }
    return false;
  }
}
