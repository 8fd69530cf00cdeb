/**
 * An index for groups with many wildcard rules: a rule like `/*x123y*z$` can only match a
 * path that contains its piece `x123y`. Each indexed rule is filed under a hash of (the start
 * of) its longest inner piece, its gram, or of another text it needs when too many rules share
 * that one; a check hashes the windows of the path that could start a gram and marks the rules
 * filed under them, so that a path is read once per gram length rather than once per rule. A
 * hash says "maybe": a marked rule is still matched in full.
 */

import type { BlockList } from './block-list.js';
import {
  FILTER_FIRST_STAR,
  FILTER_LONGEST_AT,
  FILTER_LONGEST_LENGTH,
  FILTER_PAIRS,
  FILTER_SECOND_AT,
  FILTER_SECOND_LENGTH,
  filters,
  pairFilter,
} from './pattern-copy.js';

/**
 * Pieces are hashed on at most this many leading characters. Rules whose pieces share a longer
 * start are all marked for a path that holds it: with 8, the 18,962 rules `/*abcdefgh<tail>` of
 * a bench case were all matched for a path holding `abcdefgh` (0.8-1 ms a check), none now.
 */
const MAX_GRAM = 16;
/** Shorter pieces are left to the character filter. */
const MIN_GRAM = 2;

/*
 * The arithmetic of a check is plain multiplication by factors under 2^21, exact in a double and
 * wrapped by `| 0`: a check of a long path runs before the optimizing compiler has `mark`,
 * and there a `Math.imul` is a call per window.
 *
 * The base of the hash is odd and chosen by each process. With a base known in advance, a file
 * can be written whose grams all hash alike, and alike with the windows of some path: under 31,
 * `Aa` and `BB` do, and so do the 256 grams of four such blocks. Every rule would be marked for
 * that path, and matched in full.
 */
const BASE = 2 ** 20 + 2 * Math.floor(Math.random() * 2 ** 19) + 1;
/** Spreads a key over the filter's bits (by the high bits of the product), independently of its table slot. */
const FILTER_FACTOR = 40503;
/**
 * Spreads a key over the slots of the table (by the high bits of the product: its low bits
 * depend on nothing but the key's, which keys can share by the way they are made).
 */
const SLOT_FACTOR = 0x85ebca6b;
/** By gram length, what keyOf mixes in. */
const LENGTH_SALT = Int32Array.from({ length: MAX_GRAM + 1 }, (_, length) => Math.imul(length, 0x9e3779b1));

/**
 * Writes to `out[k]`, for k from 0 to `to - from`, the hash of `text[from, from + k)`. The
 * hash of a window `[from + a, from + b)` is then `out[b] - out[a] * BASE^(b - a)`. Writes to
 * `positions` where a character of `starts` (1 for each such ASCII character, 0 for the
 * others) is, from 0 at `from`, and returns how many there are.
 *
 * One helper for rules and paths: hashing every rule's gram while indexing (with no start
 * characters) has it optimized by the time a check hashes a path, which the first check of a
 * long path would otherwise do in the interpreter. Every character runs the same operations,
 * so a path's start characters reach no code that the rules left without feedback.
 */
function hashPrefixes(
  text: string,
  from: number,
  to: number,
  out: Int32Array,
  starts: Uint8Array,
  positions: Int32Array,
): number {
  let h = 0;
  let count = 0;
  out[0] = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    h = (h * BASE + c) | 0;
    out[i - from + 1] = h;
    positions[count] = i - from;
    count += starts[c & 127];
  }
  return count;
}

/** The key a (hash, length) pair is stored under. */
function keyOf(hash: number, length: number): number {
  return (hash ^ LENGTH_SALT[length]) | 0;
}

/** The bit of `key` in a filter of 2^(32 - shift) bits. */
function filterBit(key: number, shift: number): number {
  return ((key * FILTER_FACTOR) | 0) >>> shift;
}

/** A gram: the key it is filed under, its length (0: no gram), its first character. */
export interface Gram {
  key: number;
  length: number;
  first: number;
}

/**
 * The gram of a rule whose longest piece after its first `*` (see pieceShape) is the
 * `pieceLength` characters of `text` at `at`: the key, length and first character of its first
 * MAX_GRAM characters, or length 0 when the piece has fewer than MIN_GRAM.
 */
export function gramOf(text: string, at: number, pieceLength: number): Gram {
  if (pieceLength < MIN_GRAM) return NO_GRAM;
  const length = Math.min(pieceLength, MAX_GRAM);
  hashPrefixes(text, at, at + length, gramHashes, NO_STARTS, noPositions);
  return { key: keyOf(gramHashes[length], length), length, first: text.charCodeAt(at) };
}

const NO_GRAM: Gram = Object.freeze({ key: 0, length: 0, first: 0 });

/**
 * Rules whose longest pieces share a gram are all marked for a path that holds it, and each is
 * then matched: 9,500 rules `/*<20 characters of the path>*<a tail of their own>` cost a check
 * 0.6 ms. A rule whose gram more than this many rules have is filed under its other gram (see
 * pairMask) when no more than this many have that one (see GramIndex.build).
 */
const SHARED_GRAM = 64;

/** By slot of the GramIndex built last, how many rules have its key (see GramIndex.build). */
let slotCounts = new Int32Array(64);

/** The prefix hashes of the gram being computed (see gramOf); reused. */
const gramHashes = new Int32Array(MAX_GRAM + 1);
/** What gramOf looks for where a gram could start in it: nothing (one position is written all the same). */
const NO_STARTS = new Uint8Array(128);
const noPositions = new Int32Array(1);

/** By gram length, BASE to that power (wrapped to 32 bits): what a window's hash is read from two prefix hashes with. */
const POWERS = Int32Array.from({ length: MAX_GRAM + 1 }, (_, length) => {
  let power = 1;
  for (let i = 0; i < length; i++) power = Math.imul(power, BASE);
  return power;
});

/** By position i, the hash of the first i characters of the path being marked; reused by every check. */
let prefixHashes = new Int32Array(1024);
/** Where a gram could start in the path being marked: `startPositions[0, startCount)`; reused. */
let startPositions = new Int32Array(1024);
let startCount = 0;

/**
 * The wildcard rules of one group by gram. A rule is known by its rank, its place in the
 * group's ranked table of wildcard rules (best first); a check marks candidates in a bitset by
 * rank, which is then read best first.
 *
 * A check marks one gram length at a time, in the order of the best rank filed under each
 * length (see begin and markLength): once the lengths up to some point are marked, every rank
 * before the next length's best is complete and can be read. The best candidates often settle
 * a check before the other lengths are looked at, and a path is read once per length marked
 * rather than once per length in use.
 */
export class GramIndex {
  /** Open addressing by key: the key of each slot, and 1 + the best rank filed under it (0: empty). */
  private readonly keys: Int32Array;
  private readonly heads: Int32Array;
  /** By rank: the next rank filed under the same key, or -1. */
  private readonly next: Int32Array;
  /** The rules that need no gram, as a bitset by rank: every check marks them. */
  private readonly always: Int32Array;
  /**
   * One bit per filter slot of a key (see filterBit), set for every key in use: most windows
   * of a path are no gram, and a clear bit says so without probing the table.
   */
  private readonly filter: Int32Array;
  private readonly filterShift: number;
  /** What the product of a key and SLOT_FACTOR is shifted right by for its slot: 32 - log2(table size). */
  private readonly slotShift: number;
  /** By ASCII character, 1 when a gram starts with it (see hashPrefixes). */
  private readonly starts: Uint8Array;
  /** The gram lengths in use, by the best rank filed under each, and that rank. */
  private readonly lengths: Int32Array;
  private readonly bestRanks: Int32Array;
  /** How many ranks the index has, those a check never needs included. */
  readonly ranks: number;
  /** How many rules have the gram most of them have. */
  private readonly mostShared: number;

  /**
   * The index of `grams` (see the constructor), with each rule whose gram more than SHARED_GRAM
   * rules have filed instead under its other gram, when no more than SHARED_GRAM have that one:
   * any text a rule needs is as good a gram for matching, and only which rules a path marks
   * changes. By rank, `others` holds where the other gram starts in `textOf(rank)` and how long
   * it is (0 for none; see pairMask).
   */
  static build(
    grams: BlockList<Gram | null>,
    others: Int32Array,
    textOf: (rank: number) => string,
  ): GramIndex {
    const index = new GramIndex(grams);
    if (index.mostShared <= SHARED_GRAM) return index;
    let moved = 0;
    for (let r = 0; r < grams.length; r++) {
      const gram = grams.at(r);
      const length = others[2 * r + 1];
      if (gram === null || gram.length === 0 || length === 0 || index.countOf(gram.key) <= SHARED_GRAM)
        continue;
      const other = gramOf(textOf(r), others[2 * r], length);
      if (index.countOf(other.key) > SHARED_GRAM) continue;
      grams.set(r, other);
      moved++;
    }
    return moved === 0 ? index : new GramIndex(grams);
  }

  /** How many rules have `key`, until another index is built. */
  private countOf(key: number): number {
    return slotCounts[this.slotOf(key)];
  }

  /**
   * @param grams by rank, the gram of each rule; null for a rank a check never needs (a rule
   *   found another way).
   */
  constructor(grams: BlockList<Gram | null>) {
    const count = grams.length;
    this.ranks = count;
    let distinct = 0;
    for (let r = 0; r < count; r++) {
      const g = grams.at(r);
      if (g !== null && g.length > 0) distinct++;
    }
    // At most three quarters full.
    let size = 16;
    while (size * 3 < distinct * 4) size *= 2;
    this.keys = new Int32Array(size);
    this.heads = new Int32Array(size);
    this.slotShift = 32 - Math.log2(size);
    this.next = new Int32Array(count).fill(-1);
    this.always = new Int32Array(bitsetWords(count));
    // About 8 bits per key: a window that is no gram finds its bit clear 7 times in 8.
    let filterBits = 64;
    while (filterBits < distinct * 8) filterBits *= 2;
    this.filter = new Int32Array(filterBits >>> 5);
    this.filterShift = 32 - Math.log2(filterBits);
    const starts = new Uint8Array(128);
    // By length, the best rank filed under it, or -1.
    const bestByLength = new Int32Array(MAX_GRAM + 1).fill(-1);
    if (slotCounts.length < size) slotCounts = new Int32Array(size);
    slotCounts.fill(0, 0, size);
    let most = 0;
    // Filed from the worst rank up, each in front: every list runs best first.
    for (let r = count - 1; r >= 0; r--) {
      const gram = grams.at(r);
      if (gram === null) continue;
      const { key, length, first } = gram;
      if (length === 0) {
        this.always[r >>> 5] |= 1 << (r & 31);
        continue;
      }
      starts[first] = 1;
      bestByLength[length] = r;
      const bit = filterBit(key, this.filterShift);
      this.filter[bit >>> 5] |= 1 << (bit & 31);
      const slot = this.slotOf(key);
      this.keys[slot] = key;
      this.next[r] = this.heads[slot] - 1;
      this.heads[slot] = r + 1;
      most = Math.max(most, ++slotCounts[slot]);
    }
    this.mostShared = most;
    this.starts = starts;
    const lengths: number[] = [];
    for (let length = 1; length <= MAX_GRAM; length++) if (bestByLength[length] >= 0) lengths.push(length);
    lengths.sort((a, b) => bestByLength[a] - bestByLength[b]);
    this.lengths = Int32Array.from(lengths);
    this.bestRanks = Int32Array.from(lengths, (length) => bestByLength[length]);
  }

  /** Bytes the index keeps: its arrays and their objects. */
  get bytes(): number {
    const arrays = [
      this.keys,
      this.heads,
      this.next,
      this.always,
      this.filter,
      this.starts,
      this.lengths,
      this.bestRanks,
    ];
    return arrays.reduce((sum, array) => sum + 200 + array.byteLength, 64);
  }

  /** Ints of a bitset for this index's ranks (see begin). */
  get words(): number {
    return this.always.length;
  }

  /** How many gram lengths a check may mark (see markLength). */
  get lengthCount(): number {
    return this.lengths.length;
  }

  /** The best rank that markLength(`k`) can mark: no rank before it waits for that length. */
  bestRankOf(k: number): number {
    return this.bestRanks[k];
  }

  /**
   * Starts the marks of `path` in `out`, a bitset by rank of at least `words` ints whose old
   * bits are overwritten: sets the bit of every rule that needs no gram, hashes the path's
   * prefixes and finds where in it a gram could start (see hashPrefixes). Each markLength
   * that follows, for the same path, marks the rules of one gram length.
   */
  begin(path: string, out: Int32Array): void {
    out.set(this.always);
    // With no gram to look for (rules of one-character pieces), the path is not hashed.
    if (this.lengths.length === 0) return;
    const n = path.length;
    if (prefixHashes.length <= n) prefixHashes = new Int32Array(Math.max(n + 1, prefixHashes.length * 2));
    if (startPositions.length < n) startPositions = new Int32Array(Math.max(n, startPositions.length * 2));
    startCount = hashPrefixes(path, 0, n, prefixHashes, this.starts, startPositions);
  }

  /**
   * Sets in `out` the bit of every rule of the `k`th gram length (see bestRankOf) whose gram
   * occurs in `path`, the path of the last begin. A hash says "maybe": a marked rule is still
   * matched in full.
   */
  markLength(k: number, path: string, out: Int32Array): void {
    const { keys, heads, next, filter, filterShift, slotShift } = this;
    const mask = keys.length - 1;
    const length = this.lengths[k];
    const power = POWERS[length];
    const salt = LENGTH_SALT[length];
    const last = path.length - length;
    const prefix = prefixHashes;
    const positions = startPositions;
    // A path of one repeated character yields one key over and over: it is looked up once.
    let lastKey = 0;
    let haveLast = false;
    for (let p = 0; p < startCount; p++) {
      const i = positions[p];
      if (i > last) continue;
      // keyOf, filterBit and slotOf written out: no call per window before this code is optimized.
      const key = (prefix[i + length] - Math.imul(prefix[i], power)) ^ salt;
      const bit = ((key * FILTER_FACTOR) | 0) >>> filterShift;
      if ((filter[bit >>> 5] & (1 << (bit & 31))) === 0 || (haveLast && key === lastKey)) continue;
      lastKey = key;
      haveLast = true;
      let slot = Math.imul(key, SLOT_FACTOR) >>> slotShift;
      while (heads[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
      const first = heads[slot] - 1;
      // A list is marked whole or not at all: a gram the path holds many times is read once.
      if (first < 0 || (out[first >>> 5] & (1 << (first & 31))) !== 0) continue;
      for (let r = first; r >= 0; r = next[r]) out[r >>> 5] |= 1 << (r & 31);
    }
  }

  /** The slot of `key`: where it is, or the empty slot where it would go. */
  private slotOf(key: number): number {
    const mask = this.keys.length - 1;
    let slot = Math.imul(key, SLOT_FACTOR) >>> this.slotShift;
    while (this.heads[slot] !== 0 && this.keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }
}

/**
 * Writes the filter of the pairs of adjacent characters in `text[from, to)` to `out[at, at + 2)`:
 * 64 bits, a bit per pair (by a hash). No pair spans a `*`: a rule can only match a path that
 * holds every pair of its pieces, so a rule whose pieces pair characters the path never pairs
 * (`ab` in a path of `a`s after one `b`) is ruled out without reading the path again. One
 * helper for rules and paths, optimized by indexing the rules before any check of a path. On the
 * way it notes the pieces of a rule in pieceShape, where its bucket and its gram are read from.
 */
export function pairMask(text: string, from: number, to: number, out: Int32Array, at: number): void {
  let low = 0;
  let high = 0;
  let previous = 42; /* * */
  let firstStar = -1;
  let pieceStart = from;
  let longestAt = from;
  let longestLength = 0;
  let secondAt = from;
  let secondLength = 0;
  for (let i = from; i <= to; i++) {
    // The end of the text ends a piece as a `*` does.
    const c = i < to ? text.charCodeAt(i) : 42;
    if (previous !== 42 && c !== 42) {
      // Which word the bit goes to is as random as the bit: chosen by masks, not by a branch
      // that the processor would guess wrong every other pair (a shift reads the low 5 bits).
      const bit = (previous * 31 + c) & 63;
      const inHigh = -(bit >>> 5);
      low |= (1 << bit) & ~inHigh;
      high |= (1 << bit) & inHigh;
    } else if (c === 42) {
      // A piece ends: the first longest after the first `*` is the rule's gram (see gramOf).
      const length = i - pieceStart;
      if (firstStar < 0) firstStar = i < to ? i : -1;
      else if (length > longestLength) {
        secondAt = longestAt;
        secondLength = longestLength;
        longestAt = pieceStart;
        longestLength = length;
      } else if (length > secondLength) {
        secondAt = pieceStart;
        secondLength = length;
      }
      pieceStart = i + 1;
    }
    previous = c;
  }
  out[at] = low;
  out[at + 1] = high;
  setPieceShape(firstStar, longestAt, longestLength, secondAt, secondLength);
}

/**
 * pairMask of the octets `[from, to)` of the compiler's scratch, read by the pattern copy's module
 * (see pattern-copy.ts), with places in pieceShape counted from `base`, where the chunk of the
 * patterns that holds them starts.
 */
export function pairMaskInModule(base: number, from: number, to: number, out: Int32Array, at: number): void {
  pairFilter(from, to);
  out[at] = filters[FILTER_PAIRS];
  out[at + 1] = filters[FILTER_PAIRS + 1];
  const firstStar = filters[FILTER_FIRST_STAR];
  setPieceShape(
    firstStar < 0 ? -1 : firstStar - base,
    filters[FILTER_LONGEST_AT] - base,
    filters[FILTER_LONGEST_LENGTH],
    filters[FILTER_SECOND_AT] - base,
    filters[FILTER_SECOND_LENGTH],
  );
}

/**
 * Writes to pieceShape what a read of a rule's pieces found (see pairMask): its first `*`, its
 * longest piece after that, and its second longest.
 */
function setPieceShape(
  firstStar: number,
  longestAt: number,
  longestLength: number,
  secondAt: number,
  secondLength: number,
): void {
  pieceShape[FIRST_STAR] = firstStar;
  pieceShape[LONGEST_AT] = longestAt;
  pieceShape[LONGEST_LENGTH] = longestLength;
  // The gram to file the rule under when too many rules share the one of its longest piece (see
  // GramIndex.build): its second longest piece, or else the end of a longest piece longer than
  // a gram. Chosen with no arithmetic in a branch: few files need it, and the first would stop
  // the compiled loop that calls this.
  const tailAt = longestAt + longestLength - MAX_GRAM;
  const hasTail = longestLength > MAX_GRAM;
  const hasSecond = secondLength >= MIN_GRAM;
  pieceShape[OTHER_AT] = hasSecond ? secondAt : tailAt;
  pieceShape[OTHER_LENGTH] = hasSecond ? secondLength : hasTail ? MAX_GRAM : 0;
}

/**
 * What the last pairMask found on its way: where the first `*` is (-1 for none); where the
 * longest piece after it starts and its length (the first of them on a tie; 0 for none); and
 * where another text the rule needs starts and its length, for another gram (0 for none).
 */
export const pieceShape = new Int32Array(5);
export const FIRST_STAR = 0;
export const LONGEST_AT = 1;
export const LONGEST_LENGTH = 2;
export const OTHER_AT = 3;
export const OTHER_LENGTH = 4;

/** Ints of a bitset of `count` bits. */
function bitsetWords(count: number): number {
  return (count + 31) >>> 5;
}
