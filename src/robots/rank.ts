/**
 * Ranking the rules of a list of groups (a ranked table: a merged group's, or a part of it; see
 * compile.ts), once, on the first check that needs it, into a table appended to
 * `RobotsData.ints`.
 *
 * Plain prefix rules (`/private/`) are sorted by pattern for a binary search; each keeps
 * a link to its parent, the longest other plain pattern that is a prefix of it, as the
 * number of entries back to it (0 for none). A group of more than HASHED_PLAIN of them keeps
 * them in file order, with no parents, and finds them through a hash (see prefixes.ts). Every
 * other rule (with `*` or `$`) is sorted best first (RFC 9309 2.2.2: longest pattern, then
 * allow) with a 64-bit filter of its characters. Layout of a table:
 * `[head, plain entries..., (id, maskLow, maskHigh)...]`. A plain entry is one int,
 * `id + back * PACKED_ID_LIMIT`, and `head` the position in `ints` of the first other rule; in a
 * table too large for that (see PACKED_ID_LIMIT) a plain entry is two ints, `id, back`, and
 * `head` that position negated.
 */

import { charMask, octetMask } from './chars.js';
import {
  ALLOW,
  CHUNK_MASK,
  chunkOf,
  compiledOctets,
  EMPTY,
  FIRST_RULE,
  groupField,
  INTS_FULL,
  INTS_USED,
  OTHER_FIELDS,
  PACKED_ID_LIMIT,
  PLAIN,
  type RobotsData,
  RULE_COUNT,
  ruleFlags,
  ruleLength,
  ruleMatchLength,
  ruleStart,
  TABLE_SIZE,
  TABLE_START,
  tableField,
  tableMembersFrom,
  tableMembersTo,
  tableStartAt,
} from './compile.js';
import { characterFilter, FILTER_CHARACTERS, filters, inPatternCopy } from './pattern-copy.js';
import { PrefixHash } from './prefixes.js';

/**
 * The position in `data.ints` of ranked table `table`, ranked on first use; the table ends at
 * this position plus `rankedSize`. Ranking replaces `data.ints`.
 */
export function rankedRules(data: RobotsData, table: number): number {
  const entry = tableStartAt(data, table);
  let at = data.ints[entry];
  if (at === 0) {
    at = data.ints[INTS_USED];
    const used = at + rankedSize(data, table);
    if (used > data.ints.length) {
      // Grown by at least a quarter, never past room for every table: asking about every
      // group of a file copies `ints` a logarithmic number of times, and a file asked about
      // one group gets no slack.
      const length = Math.min(data.ints[INTS_FULL], Math.max(used, Math.ceil(data.ints.length * 1.25)));
      const grown = new Int32Array(length);
      grown.set(data.ints);
      data.ints = grown;
    }
    data.ints[INTS_USED] = used;
    data.ints[entry] = at;
  }
  // A table's first int, written last, is 0 until it is complete.
  if (data.ints[at] === 0) rank(data, table, at);
  return at;
}

/** Whether ranked table `table` is in `ints` already. */
export function isRanked(data: RobotsData, table: number): boolean {
  const at = tableField(data, table, TABLE_START);
  // Both tests run for every file (see compile.ts on type feedback): with no place yet, `at` is
  // 0 and ints[0] the group count, at least 1 in a file with a merged group.
  return data.ints[at] !== 0 && at !== 0;
}

/** The size in ints of ranked table `table`. */
export function rankedSize(data: RobotsData, table: number): number {
  return tableField(data, table, TABLE_SIZE);
}

/** RFC 9309 2.2.2: the longest pattern first; on equal length allow first; then file order. */
function compareRank(data: RobotsData, a: number, b: number): number {
  return (
    ruleLength(data, b) - ruleLength(data, a) ||
    (ruleFlags(data, b) & ALLOW) - (ruleFlags(data, a) & ALLOW) ||
    a - b
  );
}

/**
 * Whether the pattern of rule `short` is a prefix of the pattern of rule `long`. Read from the
 * end: the two are close in sorted order, where patterns share their first characters and differ,
 * when they do, near the end of the shorter (`/shop/item-17/` and `/shop/item-170/`).
 */
function isPrefixOf(data: RobotsData, short: number, long: number): boolean {
  const n = ruleLength(data, short);
  if (n > ruleLength(data, long)) return false;
  const shortAt = ruleStart(data, short);
  const longAt = ruleStart(data, long);
  const shortChunk = chunkOf(data, shortAt);
  const longChunk = chunkOf(data, longAt);
  const ss = shortAt & CHUNK_MASK;
  const sl = longAt & CHUNK_MASK;
  for (let i = n - 1; i >= 0; i--)
    if (longChunk.charCodeAt(sl + i) !== shortChunk.charCodeAt(ss + i)) return false;
  return true;
}

/** Ranges this short are finished by insertion sort. */
const SMALL_RANGE = 12;

/**
 * Sorts plain rules by pattern; among equal patterns the best comes last, where the binary
 * search in decide.ts lands. A most-significant-digit radix sort whose digits are several
 * characters wide: the next characters of each pattern in a range, with the end of a pattern
 * as the lowest character, are packed into one exact integer of a float64 together with the
 * pattern's place in the range, and the range is sorted by the engine's native typed-array
 * sort. Patterns with the same digit form a run that goes on with the next characters, so the
 * long prefixes patterns share (`/shop/`, `/archive/2024/`) are read once per run rather than
 * once per comparison, and no comparison calls back into JavaScript.
 */
function sortByPattern(data: RobotsData, plain: Int32Array): void {
  // Pending ranges (lo, hi, depth), instead of recursion: no input can overflow the stack.
  const stack: number[] = [0, plain.length, 0];
  while (stack.length > 0) {
    let depth = stack.pop()!;
    const hi = stack.pop()!;
    const lo = stack.pop()!;
    const n = hi - lo;
    if (n <= SMALL_RANGE) {
      insertionSort(data, plain, lo, hi, depth);
      continue;
    }
    // A run the patterns all share would take a pass per digit: it is read once instead.
    depth = sharedPrefix(data, plain, lo, hi, depth);
    // A key is digit * span + place: as many characters per digit as keep it below 2^53.
    let span = 1;
    while (span < n) span *= 2;
    let width = 0;
    for (let weight = CHAR_BASE; weight * span <= MAX_EXACT; weight *= CHAR_BASE) width++;
    if (keyScratch.length < n) keyScratch = new Float64Array(Math.max(n, keyScratch.length * 2));
    const keys = keyScratch;
    for (let i = 0; i < n; i++) {
      const id = plain[lo + i];
      const position = ruleStart(data, id);
      const patterns = chunkOf(data, position);
      const start = (position & CHUNK_MASK) + depth;
      const left = ruleLength(data, id) - depth;
      let digit = 0;
      for (let j = 0; j < width; j++)
        digit = digit * CHAR_BASE + (j < left ? patterns.charCodeAt(start + j) + 1 : 0);
      keys[i] = digit * span + i;
    }
    sortNumbers(keys, n);
    const before = plain.slice(lo, hi);
    let runStart = 0;
    let runDigit = -1;
    for (let i = 0; i <= n; i++) {
      const digit = i < n ? Math.floor(keys[i] / span) : -1;
      if (digit !== runDigit) {
        // A run of equal digits: if its last character is the end, the patterns are equal.
        if (i - runStart > 1) {
          if (runDigit % CHAR_BASE === 0) sortEqual(data, plain, lo + runStart, lo + i);
          else stack.push(lo + runStart, lo + i, depth + width);
        }
        runStart = i;
        runDigit = digit;
      }
      if (i < n) plain[lo + i] = before[keys[i] - digit * span];
    }
  }
}

/** The length of the prefix the patterns of `ids[lo, hi)` share, known to be at least `depth`. */
function sharedPrefix(data: RobotsData, ids: Int32Array, lo: number, hi: number, depth: number): number {
  const firstAt = ruleStart(data, ids[lo]);
  const firstChunk = chunkOf(data, firstAt);
  const first = firstAt & CHUNK_MASK;
  let shared = ruleLength(data, ids[lo]);
  for (let k = lo + 1; k < hi && shared > depth; k++) {
    const position = ruleStart(data, ids[k]);
    const patterns = chunkOf(data, position);
    const start = position & CHUNK_MASK;
    const n = Math.min(shared, ruleLength(data, ids[k]));
    let i = depth;
    while (i < n && patterns.charCodeAt(start + i) === firstChunk.charCodeAt(first + i)) i++;
    shared = i;
  }
  return shared;
}

/** Values of a character in a digit: 1 + its code (normalised patterns are ASCII), 0 past the end. */
const CHAR_BASE = 129;
const MAX_EXACT = 2 ** 53;
/** The keys of the range being sorted, reused. */
let keyScratch = new Float64Array(1024);

/** Up to this many keys, insertion sort beats the call of the native sort. */
const SMALL_KEYS = 32;

/** Sorts `keys[0, n)` in ascending order. */
function sortNumbers(keys: Float64Array, n: number): void {
  if (n > SMALL_KEYS) {
    keys.subarray(0, n).sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const key = keys[i];
    let j = i;
    for (; j > 0 && keys[j - 1] > key; j--) keys[j] = keys[j - 1];
    keys[j] = key;
  }
}

/**
 * A rank key is `((LENGTH_SPAN - length) * 2 + deny) * ID_SPAN + id`: ascending keys are best
 * first (compareRank). A normalised pattern has fewer than LENGTH_SPAN characters (a line
 * keeps 16,663 octets, each at most a three-character escape), and a file fewer than
 * ID_SPAN rules, so a key is an exact integer below 2^45.
 */
const LENGTH_SPAN = 2 ** 16;
const ID_SPAN = 2 ** 28;
/** Rank keys being sorted, reused (not keyScratch: sortByPattern may call sortEqual while reading it). */
let rankScratch = new Float64Array(256);

/** Sorts rule ids best first, as compareRank orders them, without a comparison callback. */
export function sortByRank(data: RobotsData, ids: number[] | Int32Array): void {
  const n = ids.length;
  if (n < 2) return;
  if (rankScratch.length < n) rankScratch = new Float64Array(Math.max(n, rankScratch.length * 2));
  const keys = rankScratch;
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    const deny = ruleFlags(data, id) & ALLOW ? 0 : 1;
    keys[i] = ((LENGTH_SPAN - ruleLength(data, id)) * 2 + deny) * ID_SPAN + id;
  }
  sortNumbers(keys, n);
  for (let i = 0; i < n; i++) ids[i] = keys[i] % ID_SPAN;
}

/** Sorts `ids[lo, hi)`, whose patterns agree on their first `depth` characters. */
function insertionSort(data: RobotsData, ids: Int32Array, lo: number, hi: number, depth: number): void {
  for (let i = lo + 1; i < hi; i++) {
    const id = ids[i];
    let j = i;
    while (j > lo && compareFrom(data, ids[j - 1], id, depth) > 0) {
      ids[j] = ids[j - 1];
      j--;
    }
    ids[j] = id;
  }
}

/** compareText, then the best last; the first `depth` characters are known to be equal. */
function compareFrom(data: RobotsData, a: number, b: number, depth: number): number {
  const la = ruleLength(data, a);
  const lb = ruleLength(data, b);
  const n = Math.min(la, lb);
  const atA = ruleStart(data, a);
  const atB = ruleStart(data, b);
  const chunkA = chunkOf(data, atA);
  const chunkB = chunkOf(data, atB);
  const sa = atA & CHUNK_MASK;
  const sb = atB & CHUNK_MASK;
  for (let i = depth; i < n; i++) {
    const d = chunkA.charCodeAt(sa + i) - chunkB.charCodeAt(sb + i);
    if (d !== 0) return d;
  }
  return la - lb || compareRank(data, b, a);
}

/** Orders rules with the same pattern so that the best comes last. */
function sortEqual(data: RobotsData, ids: Int32Array, lo: number, hi: number): void {
  if (hi - lo < 2) return;
  const equal = ids.slice(lo, hi).sort((a, b) => compareRank(data, b, a));
  for (let k = 0; k < equal.length; k++) ids[lo + k] = equal[k];
}

/**
 * The ids of the plain rules and of the others of the table being ranked, reused: a file of
 * 22,743 wildcard rules in a group spent 7% of its parse pushing them onto an array, which V8
 * slows down past about 16,000 items (see block-list.ts).
 */
let plainScratch = new Int32Array(256);
let otherScratch = new Int32Array(256);

/** Groups with more plain prefix rules than this find them by hash instead of a sorted table. */
const HASHED_PLAIN = 512;

function rank(data: RobotsData, table: number, at: number): void {
  const ints = data.ints;
  let room = 0;
  for (let k = tableMembersFrom(data, table); k < tableMembersTo(data, table); k++)
    room += groupField(data, ints[k], RULE_COUNT);
  if (plainScratch.length < room) plainScratch = new Int32Array(Math.max(room, plainScratch.length * 2));
  if (otherScratch.length < room) otherScratch = new Int32Array(Math.max(room, otherScratch.length * 2));
  let plainCount = 0;
  let otherCount = 0;
  for (let k = tableMembersFrom(data, table); k < tableMembersTo(data, table); k++) {
    const g = ints[k];
    const first = groupField(data, g, FIRST_RULE);
    for (let id = first; id < first + groupField(data, g, RULE_COUNT); id++) {
      const flags = ruleFlags(data, id);
      if (flags & EMPTY) continue;
      if (flags & PLAIN) plainScratch[plainCount++] = id;
      else otherScratch[otherCount++] = id;
    }
  }
  const plain = plainScratch.subarray(0, plainCount);
  const other = otherScratch.subarray(0, otherCount);
  // A large group's plain rules are found by hash (see prefixes.ts): they stay in file order.
  const hashed = plain.length > HASHED_PLAIN;
  if (hashed) {
    data.prefixes ??= [];
    data.prefixes[table] = new PrefixHash(data, plain);
  } else sortByPattern(data, plain);
  sortByRank(data, other);

  // The compiler sized the table for one layout or the other (see PACKED_ID_LIMIT).
  const stride =
    plain.length === 0 ? 1 : (rankedSize(data, table) - 1 - other.length * OTHER_FIELDS) / plain.length;
  const split = at + 1 + plain.length * stride;
  // Entry indexes of the open chain of prefixes, and the parent of each entry (-1 for none).
  const chain: number[] = [];
  const parents: number[] = [];
  for (let i = 0; i < plain.length; i++) {
    const id = plain[i];
    // A hashed group's entries link no parents: its table is only read in full (see allMatches).
    let back = 0;
    if (!hashed) {
      while (chain.length > 0 && !isPrefixOf(data, plain[chain[chain.length - 1]], id)) chain.pop();
      const top = chain.length > 0 ? chain[chain.length - 1] : -1;
      if (top >= 0 && ruleLength(data, plain[top]) === ruleLength(data, id)) {
        // Same pattern, better rule: it takes the place of the previous one.
        parents.push(parents[top]);
        chain[chain.length - 1] = i;
      } else {
        parents.push(top);
        chain.push(i);
      }
      back = parents[i] < 0 ? 0 : i - parents[i];
    }
    if (stride === 1) ints[at + 1 + i] = id + back * PACKED_ID_LIMIT;
    else {
      ints[at + 1 + i * 2] = id;
      ints[at + 2 + i * 2] = back;
    }
  }
  // Read from the octets the compiler wrote while they are there (a table ranked while parsing).
  // The pattern copy's module reads them when they are in its memory (see pattern-copy.ts).
  const octets = compiledOctets(data);
  const inModule = octets !== null && inPatternCopy(octets);
  other.forEach((id, i) => {
    const position = split + i * OTHER_FIELDS;
    ints[position] = id;
    // A `*` or `$` adds no bit: the filter is read from the part the path must match.
    const start = ruleStart(data, id);
    const length = ruleMatchLength(data, id);
    if (inModule) {
      characterFilter(start, start + length);
      ints[position + 1] = filters[FILTER_CHARACTERS];
      ints[position + 2] = filters[FILTER_CHARACTERS + 1];
    } else if (octets !== null) octetMask(octets, start, length, ints, position + 1);
    else charMask(chunkOf(data, start), start & CHUNK_MASK, length, ints, position + 1);
  });
  ints[at] = stride === 1 ? split : -split;
}

/** The position of the first other rule of the table at `at`. */
export function splitOf(ints: Int32Array, at: number): number {
  return Math.abs(ints[at]);
}

/** Ints per plain entry of the table at `at`: 1 (packed) or 2. */
export function strideOf(ints: Int32Array, at: number): number {
  return ints[at] < 0 ? 2 : 1;
}

/** The rule id of the plain entry at position `k` of a table with `stride`. */
export function plainId(ints: Int32Array, k: number, stride: number): number {
  return stride === 1 ? ints[k] & (PACKED_ID_LIMIT - 1) : ints[k];
}

/** How many entries back the parent of the plain entry at `k` is, 0 for none. */
export function plainBack(ints: Int32Array, k: number, stride: number): number {
  return stride === 1 ? Math.floor(ints[k] / PACKED_ID_LIMIT) : ints[k + 1];
}
