/**
 * The character filter: 64 bits for the characters of a text (bit `c & 63`). A rule can only
 * match a path whose filter has every bit of the rule's, so one AND rules out most wildcard
 * rules without reading the path again (`/*?sort=` cannot match a path without `?`).
 */

/** The filter bit of each character (`c & 63`), in the low or the high word; none for `*` and `$`. */
export const LOW_BIT = new Int32Array(128);
export const HIGH_BIT = new Int32Array(128);
for (let c = 0; c < 128; c++) {
  if (c === 42 /* * */ || c === 36 /* $ */) continue;
  const bit = c & 63;
  if (bit < 32) LOW_BIT[c] = 1 << bit;
  else HIGH_BIT[c] = 1 << (bit - 32);
}

/** Writes the filter of `text[start, start + length)` as two words at `out[at]`. */
export function charMask(text: string, start: number, length: number, out: Int32Array, at: number): void {
  let low = 0;
  let high = 0;
  for (let i = start; i < start + length; i++) {
    const c = text.charCodeAt(i) & 127;
    low |= LOW_BIT[c];
    high |= HIGH_BIT[c];
  }
  out[at] = low;
  out[at + 1] = high;
}
