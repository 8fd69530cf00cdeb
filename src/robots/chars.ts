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

/**
 * Texts at least this long are read as octets (see charMaskOfLong): an 8 KB URL of characters
 * to escape has a normal form of 72 KB, whose filter took half of its check read unit by unit.
 */
const LONG_TEXT = 2048;

/** Writes the filter of `text[start, start + length)` as two words at `out[at]`. */
export function charMask(text: string, start: number, length: number, out: Int32Array, at: number): void {
  if (length >= LONG_TEXT) {
    charMaskOfLong(text, start, length, out, at);
    return;
  }
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

/** Which of the 128 values `c & 127` a long text holds; reused. */
const seen = new Uint8Array(128);

/**
 * charMask for a long text: its units copied to octets by the runtime (Latin-1 keeps the low
 * eight bits, so `& 127` reads the same value), each value marked once, and the bits of the
 * values seen joined at the end. Twice as fast as reading the string unit by unit.
 */
function charMaskOfLong(text: string, start: number, length: number, out: Int32Array, at: number): void {
  const octets = Buffer.from(
    start === 0 && length === text.length ? text : text.slice(start, start + length),
    'latin1',
  );
  seen.fill(0);
  for (let i = 0; i < octets.length; i++) seen[octets[i] & 127] = 1;
  let low = 0;
  let high = 0;
  for (let c = 0; c < 128; c++) {
    if (seen[c] !== 0) {
      low |= LOW_BIT[c];
      high |= HIGH_BIT[c];
    }
  }
  out[at] = low;
  out[at + 1] = high;
}
