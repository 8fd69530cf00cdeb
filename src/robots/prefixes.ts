/**
 * The longest plain prefix rule of a large group, found through a hash of each pattern rather
 * than a sorted table. A pattern of length L is a prefix of the path when it equals the path's
 * first L characters, so a check hashes the path's prefixes in one pass and looks up the hash of
 * each length some pattern has, longest first: the first length with a pattern equal to that
 * prefix holds the decisive plain rule.
 *
 * Building it reads each pattern once and sorts nothing: sorting the 6,591 plain patterns of a
 * 486 KiB file, which share long prefixes, was a third of its parse. Small groups keep the sorted
 * table of rank.ts, which a check searches in fewer steps and which keeps no arrays of its own.
 *
 * A hash says "maybe": every pattern filed under the hash of a prefix is compared with it. The
 * hash is seeded anew by each process, so a file cannot be written to make its patterns collide;
 * whatever the hashes, a check compares at most every character of the group's patterns once.
 */

import {
  ALLOW,
  CHUNK_BITS,
  CHUNK_MASK,
  chunkOf,
  compiledOctets,
  flagsIn,
  lengthIn,
  type RobotsData,
  startIn,
} from './compile.js';
import { regionMatches } from './match.js';

/*
 * A pattern's hash reads its octets four at a time, as one little-endian word (the last word holds
 * the octets left, zero above them). Words go to two lanes in turn (the first to lane 0, the
 * second to lane 1, ...), each lane mixes in its words as FNV-1a does its octets (an exclusive or,
 * then a multiplication), and the lanes and the length are mixed into one. A word costs one read
 * and one multiplication: octet by octet on four lanes, hashing the plain patterns of a 486 KiB
 * file took a third of the time its parse spent ranking and indexing.
 */
const FACTOR = 0x01000193;
/** Where each lane starts, chosen by each process. */
const SEEDS = Int32Array.from({ length: 2 }, () => (Math.random() * 2 ** 32) | 0);
/** What the lanes and the length are multiplied by as they are mixed. */
const MIX_1 = 0x85ebca6b | 0;
const MIX_2 = 0xc2b2ae35 | 0;

function mixLanes(a: number, b: number, length: number): number {
  return Math.imul(a, MIX_1) ^ Math.imul(b, MIX_2) ^ length;
}

/**
 * The hash of the `length` octets at `start` of the bytes `view` reads, which has at least three
 * octets after them: the last word is read whole, and what is past the pattern masked off.
 */
function hashOf(view: DataView, start: number, length: number): number {
  let a = SEEDS[0];
  let b = SEEDS[1];
  let i = 0;
  for (; i + 8 <= length; i += 8) {
    a = Math.imul(a ^ view.getInt32(start + i, true), FACTOR);
    b = Math.imul(b ^ view.getInt32(start + i + 4, true), FACTOR);
  }
  if (i + 4 <= length) {
    a = Math.imul(a ^ view.getInt32(start + i, true), FACTOR);
    i += 4;
    if (i < length) b = Math.imul(b ^ (view.getInt32(start + i, true) & TAIL_MASK[length - i]), FACTOR);
  } else if (i < length) a = Math.imul(a ^ (view.getInt32(start + i, true) & TAIL_MASK[length - i]), FACTOR);
  return mixLanes(a, b, length);
}

/** By the number of octets in a last word (1 to 3), the bits they take. */
const TAIL_MASK = Int32Array.of(0, 0xff, 0xffff, 0xffffff);

/**
 * Writes to `out[i]`, for i from 1 to n, the hash of `path`'s first i characters (hashOf's of
 * their octets: a path in normal form is ASCII). The word being read is built a character at a
 * time, and a prefix that ends inside it mixes in what its lane has so far.
 */
function hashPrefixes(path: string, n: number, out: Int32Array): void {
  let a = SEEDS[0];
  let b = SEEDS[1];
  let w = 0;
  for (let i = 0; i < n; i++) {
    w |= path.charCodeAt(i) << ((i & 3) << 3);
    const wordEnds = (i & 3) === 3;
    // Words 0, 2, 4... go to lane 0, words 1, 3, 5... to lane 1.
    if ((i & 4) === 0) {
      const lane = Math.imul(a ^ w, FACTOR);
      out[i + 1] = mixLanes(lane, b, i + 1);
      if (wordEnds) a = lane;
    } else {
      const lane = Math.imul(b ^ w, FACTOR);
      out[i + 1] = mixLanes(a, lane, i + 1);
      if (wordEnds) b = lane;
    }
    if (wordEnds) w = 0;
  }
}

/** The first position of `lengths` (longest first) whose length is at most `n`. */
function firstAtMost(lengths: Int32Array, n: number): number {
  let lo = 0;
  let hi = lengths.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lengths[mid] > n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Spreads a hash over the slots of the table (by the high bits of the product). */
const SLOT_FACTOR = 0x9e3779b1 | 0;
/** Spreads a hash over the bits of the filter, independently of its slot. */
const FILTER_FACTOR = 0x2545f491;

/** By length, the hash of the path's first characters (see longest); reused by every check. */
let pathHashes = new Int32Array(1024);

/** By entry of a PrefixHash: the next entry of its slot (-1: none), the hash of its pattern, its rule id. */
const ENTRY_FIELDS = 3;

/**
 * Rules of one merged group by the hash of their pattern: its plain rules, or its exact rules
 * (`/a/$`, which match one path alone), hashed without their `$`.
 */
export class PrefixHash {
  /** The lengths the patterns have, longest first. */
  private readonly lengths: Int32Array;
  /** By slot (the high bits of a hash, spread): 1 + the first entry of the slot, 0 for none. */
  private readonly heads: Int32Array;
  /** The entries, ENTRY_FIELDS ints each, together for a walk down a slot's list. */
  private readonly entries: Int32Array;
  /** 32 minus the bits of a slot number. */
  private readonly shift: number;
  /**
   * A bit per filter slot (see FILTER_FACTOR), set for the hash of every pattern: most prefixes
   * of a path are no pattern, and a clear bit says so from a few KiB that stay in the cache,
   * where the table and its entries are read from memory.
   */
  private readonly filter: Int32Array;
  private readonly filterShift: number;
  /** Octets at the end of each pattern that are not hashed: 1 for exact rules (their `$`), else 0. */
  private readonly anchor: number;

  /**
   * `plain`: the ids of the group's plain prefix rules, none of them empty, or with `anchor` 1 the
   * ids of its exact rules.
   */
  constructor(data: RobotsData, plain: ArrayLike<number>, anchor = 0) {
    this.anchor = anchor;
    const count = plain.length;
    // About one entry a slot: most slots a check looks at are empty or hold one pattern.
    let bits = 4;
    while (1 << bits < count) bits++;
    this.shift = 32 - bits;
    const heads = new Int32Array(1 << bits);
    // About 8 bits a pattern: a prefix that is no pattern finds its bit clear 7 times in 8.
    const filterBits = Math.max(bits + 3, 5);
    this.filterShift = 32 - filterBits;
    const filter = new Int32Array(1 << (filterBits - 5));
    const entries = new Int32Array(count * ENTRY_FIELDS);
    const ints = data.ints;
    const { view, bases } = octetsOf(data);
    const lengths: number[] = [];
    for (let e = 0; e < count; e++) {
      const id = plain[e];
      const position = startIn(ints, id);
      const start = bases[position >>> CHUNK_BITS] + (position & CHUNK_MASK);
      const length = lengthIn(ints, id) - anchor;
      const h = hashOf(view, start, length);
      const slot = Math.imul(h, SLOT_FACTOR) >>> this.shift;
      entries[e * ENTRY_FIELDS] = heads[slot] - 1;
      entries[e * ENTRY_FIELDS + 1] = h;
      entries[e * ENTRY_FIELDS + 2] = id;
      heads[slot] = e + 1;
      const bit = Math.imul(h, FILTER_FACTOR) >>> this.filterShift;
      filter[bit >>> 5] |= 1 << (bit & 31);
      if (lengthSeen.length <= length) lengthSeen = grownTo(lengthSeen, length + 1);
      if (lengthSeen[length] === 0) {
        lengthSeen[length] = 1;
        lengths.push(length);
      }
    }
    for (const length of lengths) lengthSeen[length] = 0;
    this.heads = heads;
    this.entries = entries;
    this.filter = filter;
    this.lengths = Int32Array.from(lengths).sort().reverse();
  }

  /** Bytes the index keeps: its arrays and its object. */
  get bytes(): number {
    const arrays = [this.lengths, this.heads, this.entries, this.filter];
    return arrays.reduce((sum, array) => sum + 200 + array.byteLength, 64);
  }

  /**
   * The decisive plain rule for `path`: of the longest patterns that are a prefix of it, the
   * allow rule if one is, else the first in the file; -1 when none is a prefix.
   */
  longest(data: RobotsData, path: string): number {
    const lengths = this.lengths;
    const hashes = prefixHashesOf(path, Math.min(path.length, lengths[0]));
    for (let k = firstAtMost(lengths, path.length); k < lengths.length; k++) {
      const best = this.bestOfLength(data, path, lengths[k], hashes[lengths[k]]);
      if (best >= 0) return best;
    }
    return -1;
  }

  /** For exact rules: the decisive rule whose pattern, without its `$`, is `path`; -1 for none. */
  exactly(data: RobotsData, path: string): number {
    const n = path.length;
    const k = firstAtMost(this.lengths, n);
    if (k === this.lengths.length || this.lengths[k] !== n) return -1;
    return this.bestOfLength(data, path, n, prefixHashesOf(path, n)[n]);
  }

  /**
   * Appends to `found` every rule whose pattern is a prefix of `path` (for exact rules: is
   * `path`), twins included, in no order: a look at each length some pattern has, not a read of
   * every pattern.
   */
  everyMatch(data: RobotsData, path: string, found: number[]): void {
    const lengths = this.lengths;
    const hashes = prefixHashesOf(path, Math.min(path.length, lengths[0]));
    for (let k = firstAtMost(lengths, path.length); k < lengths.length; k++) {
      const length = lengths[k];
      if (this.anchor !== 0 && length !== path.length) continue;
      this.bestOfLength(data, path, length, hashes[length], found);
    }
  }

  /**
   * Of the rules hashed with `length` octets to `key`, the decisive one that `path` starts with
   * (-1 for none); with `found`, every one of them is appended to it too.
   */
  private bestOfLength(
    data: RobotsData,
    path: string,
    length: number,
    key: number,
    found: number[] | null = null,
  ): number {
    const { heads, entries, shift, filter, filterShift, anchor } = this;
    const bit = Math.imul(key, FILTER_FACTOR) >>> filterShift;
    if ((filter[bit >>> 5] & (1 << (bit & 31))) === 0) return -1;
    const ints = data.ints;
    let best = -1;
    for (let e = heads[Math.imul(key, SLOT_FACTOR) >>> shift] - 1; e >= 0; e = entries[e * ENTRY_FIELDS]) {
      if (entries[e * ENTRY_FIELDS + 1] !== key) continue;
      const id = entries[e * ENTRY_FIELDS + 2];
      if (lengthIn(ints, id) - anchor !== length) continue;
      const position = startIn(ints, id);
      if (!regionMatches(path, 0, chunkOf(data, position), position & CHUNK_MASK, length)) continue;
      found?.push(id);
      // The same pattern more than once: allow wins (RFC 9309 2.2.2), then the first line.
      if (best < 0 || betterTwin(ints, id, best)) best = id;
    }
    return best;
  }
}

/** By i, from 1 to `n`, the hash of `path`'s first i characters (see hashPrefixes), in a table every check reuses. */
function prefixHashesOf(path: string, n: number): Int32Array {
  if (pathHashes.length <= n) pathHashes = new Int32Array(Math.max(n + 1, pathHashes.length * 2));
  hashPrefixes(path, n, pathHashes);
  return pathHashes;
}

/** By pattern length, 1 while the lengths of one group are collected (see PrefixHash); reused. */
let lengthSeen = new Uint8Array(1024);

function grownTo(array: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const grown = new Uint8Array(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}

const encoder = new TextEncoder();
/** The octets of the patterns of the file being indexed (see octetsOf), and a view to read them; reused. */
let patternOctets = new Uint8Array(64 * 1024);
let patternView = new DataView(patternOctets.buffer);

/**
 * The file's patterns as octets, chunk after chunk, with three octets to spare after them (see
 * hashOf), and where each chunk starts among them. Normalised patterns are ASCII, a character an
 * octet: the engine copies them out at once, and a word of four is read at once.
 */
function octetsOf(data: RobotsData): { view: DataView; bases: number[] } {
  // Straight after the pass, they are where the compiler wrote them: chunk k at k << CHUNK_BITS.
  const compiled = compiledOctets(data);
  if (compiled !== null) {
    const bases = Array.from({ length: data.chunks?.length ?? 1 }, (_, k) => k << CHUNK_BITS);
    return { view: new DataView(compiled.buffer, compiled.byteOffset, compiled.byteLength), bases };
  }
  // A file whose crawlers each read a large table of their own has one index per crawler, built
  // one after the other: its patterns are copied once for all of them.
  if (octetsSerial === data.serial && octetsBases !== null) return { view: patternView, bases: octetsBases };
  // Forgotten first: a copy left half written by a throw below must not pass for the last file's.
  octetsSerial = -1;
  const chunks = data.chunks ?? [data.patterns];
  let total = 0;
  for (const chunk of chunks) total += chunk.length;
  if (patternOctets.length < total + 3) {
    patternOctets = new Uint8Array(Math.max(total + 3, patternOctets.length * 2));
    patternView = new DataView(patternOctets.buffer);
  }
  const bases: number[] = [];
  let at = 0;
  for (const chunk of chunks) {
    bases.push(at);
    const { written } = encoder.encodeInto(chunk, patternOctets.subarray(at));
    // Every octet must stand where its character does; a wrong hash would miss a rule silently.
    if (written !== chunk.length) throw new Error('crawlee-robots: a chunk of patterns is not ASCII');
    at += written;
  }
  octetsSerial = data.serial;
  octetsBases = bases;
  return { view: patternView, bases };
}

/** The file whose patterns `patternOctets` holds (its serial number), and where its chunks start there. */
let octetsSerial = -1;
let octetsBases: number[] | null = null;

/** Of two rules with the same pattern, whether `a` decides rather than `b`. */
function betterTwin(ints: Int32Array, a: number, b: number): boolean {
  const allowA = flagsIn(ints, a) & ALLOW;
  const allowB = flagsIn(ints, b) & ALLOW;
  return allowA !== allowB ? allowA > allowB : a < b;
}
