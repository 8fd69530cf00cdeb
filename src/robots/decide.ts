/**
 * Finding the decisive rule of a group for a path (RFC 9309 2.2.2): the matching rule
 * with the longest pattern, allow on a tie.
 *
 * Most rules are plain prefixes (`/private/`). For those the longest match is the
 * longest pattern that is a prefix of the path: found by binary search over the group's
 * prefix rules sorted by pattern, or in a group of hundreds of them by looking up the hash of
 * each prefix of the path that some pattern is as long as (see prefixes.ts). The other rules
 * (with `*` or `$`) are kept best first, so the scan stops at the first rule that cannot
 * beat the best match so far, and a character filter skips most of them without reading
 * the path. Groups with many such rules get an index on first use.
 *
 * A token's rules are in one ranked table, or in a few when some of its groups are shared with
 * other tokens (see sizeRankedTables in compile.ts): each table gives its best match, and the
 * best of those decides, as if the rules were in one.
 */

import { BlockList } from './block-list.js';
import {
  ALLOW,
  CHUNK_MASK,
  chunkOf,
  compiledOctets,
  count,
  EXACT,
  FIRST_RULE,
  flagsIn,
  GROUP_COUNT,
  groupField,
  lengthIn,
  MERGED_COUNT,
  OTHER_FIELDS,
  partCount,
  partOf,
  type RobotsData,
  RULE_COUNT,
  ruleAnchored,
  ruleCount,
  ruleFlags,
  ruleLength,
  ruleMatchLength,
  ruleStart,
  SHARED_TABLE_COUNT,
  startIn,
  tableMembersFrom,
  tableMembersTo,
  WILDCARD,
} from './compile.js';
import { matchesAt, type PieceSearches } from './match.js';
import { inPatternCopy } from './pattern-copy.js';
import {
  FIRST_STAR,
  type Gram,
  GramIndex,
  gramOf,
  LONGEST_AT,
  LONGEST_LENGTH,
  OTHER_AT,
  OTHER_LENGTH,
  pairMask,
  pairMaskInModule,
  pieceShape,
} from './pieces.js';
import { PrefixHash } from './prefixes.js';
import {
  isRanked,
  plainBack,
  plainId,
  rankedRules,
  rankedSize,
  sortByRank,
  splitOf,
  strideOf,
} from './rank.js';
import { beginCheck, FAILS, MATCHES, type PieceSequences, QUEUED, sequencesOf } from './sequences.js';
import { BATCH_LIMIT } from './walk.js';

/**
 * Indexes whose wildcard rules have more characters than this build their piece sequences with
 * the index, not on the check that first needs them: 32 Ki characters take about 0.25 ms.
 */
const EAGER_SEQUENCES = 32 * 1024;
/** Groups with more wildcard or `$` rules than this index them. */
const INDEX_THRESHOLD = 32;
/** Indexed wildcard rules are bucketed by up to this many leading characters of their literal prefix. */
const BUCKET_PREFIX = 6;
/**
 * The rules of a bucket are filtered in chunks of this many: a chunk whose rules all need a
 * character the path lacks is skipped with one test.
 */
const CHUNK = 32;

/** The wildcard and `$` rules of one literal prefix. */
interface Bucket {
  /** The position in `ints` of each rule, best first. */
  rules: number[];
  /**
   * By chunk of CHUNK rules, four ints: the bits of the character filter (low, high) and of
   * the pair filter (low, high; see pairMask) that every rule of the chunk has.
   */
  common: number[];
}

/** The index of the wildcard and `$` rules of one large group (see prepareLargeGroups). */
export interface GroupIndex {
  /** The exact rules (`$`-anchored, no `*`) by the hash of their pattern, null for none. */
  exact: PrefixHash | null;
  /** Every other rule, by the start of its literal prefix. */
  buckets: Map<string, Bucket>;
  bucketLengths: number[];
  /** Position in `ints` of the first wildcard or `$` rule of the ranked table. */
  split: number;
  /** The bucketed rules by the gram of a piece the path must contain (see pieces.ts). */
  grams: GramIndex;
  /** By rank, the filter of the character pairs of each rule's pieces (low, high; see pairMask). */
  pairs: Int32Array;
  /**
   * The rules as piece sequences, which a check matches (see sequences.ts); null until a check
   * needs them, unless the rules are long enough that building them would slow that check.
   */
  sequences: PieceSequences | null;
}

/** Merged groups with more rules than this are ranked while parsing. */
const EAGER_RANKING = 256;
/** Ints of ranked tables built while parsing, per rule of the file (a rule in one table takes one to three). */
const EAGER_BUDGET_PER_RULE = 6;
/** Merged groups whose patterns hold more characters than this are ranked while parsing too. */
const EAGER_CHARACTERS = 32 * 1024;
/**
 * Tables of shared classes up to this many ints wait for a check: a token reads at most
 * MAX_SHARED_PARTS of them (compile.ts), which its first check ranks in about 0.1 ms, and a file
 * may have thousands, each costing a parse microseconds.
 */
const SMALL_SHARED_TABLE = 64;

/**
 * Ranks and indexes the large merged groups while parsing. Ranking sorts the wildcard rules and
 * hashes every plain pattern, and an index reads every rule: spent lazily, a group of thousands
 * of rules would make one unlucky check take milliseconds, where a parse of such a file takes
 * them anyway. Small groups stay lazy: most of a file's groups are never asked about, and
 * ranking one costs less than a check.
 *
 * The tables of shared classes come first, all but the small ones: they hold each rule of the
 * file once at most, and a token may read dozens of them. The work is then bounded by the file's
 * rules: tokens that each name another combination of the other groups would otherwise rank
 * every combination, each a table of its own; past the budget, a table waits for a check that
 * needs it.
 */
export function prepareLargeGroups(data: RobotsData): void {
  const rules = ruleCount(data);
  // The rules' patterns lie first in the patterns, up to where the first token starts.
  const ruleCharacters = ruleStart(data, rules);
  // No table holds more than every rule: when that is too little to rank while parsing, the
  // merged groups are not read (a file may name tens of thousands of tokens for one rule).
  if (1 + OTHER_FIELDS * rules <= EAGER_RANKING * 2 && ruleCharacters <= EAGER_CHARACTERS) return;
  let budget = EAGER_BUDGET_PER_RULE * rules;
  for (let t = 0; t < count(data, SHARED_TABLE_COUNT); t++) {
    if (rankedSize(data, t) <= SMALL_SHARED_TABLE) continue;
    budget -= rankedSize(data, t);
    prepareTable(data, t);
  }
  // Few rules can be long ones: ranking reads their characters, which the budget counts too.
  const characters = ruleCharacters > EAGER_CHARACTERS ? patternCharacters(data) : null;
  for (let m = 0; m < count(data, MERGED_COUNT); m++) {
    let size = 0;
    let sum = 0;
    for (let i = 0; i < partCount(data, m); i++) {
      const t = partOf(data, m, i);
      if (isRanked(data, t)) continue;
      size += rankedSize(data, t);
      if (characters !== null) sum += memberSum(data, t, characters);
    }
    if (size === 0 || size > budget) continue;
    if (size > EAGER_RANKING * 2 || sum > EAGER_CHARACTERS) {
      budget -= size;
      prepareGroup(data, m);
    }
  }
}

/**
 * By group as written, the characters of its patterns: a group's rules follow each other, and so
 * do their patterns, so they span from the start of its first to the start of the rule after it.
 */
function patternCharacters(data: RobotsData): Int32Array {
  const characters = new Int32Array(count(data, GROUP_COUNT));
  for (let g = 0; g < characters.length; g++) {
    const first = groupField(data, g, FIRST_RULE);
    characters[g] = ruleStart(data, first + groupField(data, g, RULE_COUNT)) - ruleStart(data, first);
  }
  return characters;
}

/** The sum of `byGroup` over the member groups of ranked table `table`. */
function memberSum(data: RobotsData, table: number, byGroup: Int32Array): number {
  let sum = 0;
  for (let k = tableMembersFrom(data, table); k < tableMembersTo(data, table); k++)
    sum += byGroup[data.ints[k]];
  return sum;
}

/**
 * Ranks the tables of merged group `merged`, and indexes those with many wildcard rules: what its
 * first check does. `whole`: with the piece sequences of the indexes too, which a check builds
 * when it first matches a wildcard rule.
 */
export function prepareGroup(data: RobotsData, merged: number, whole = false): void {
  for (let i = 0; i < partCount(data, merged); i++) prepareTable(data, partOf(data, merged, i), whole);
}

function prepareTable(data: RobotsData, table: number, whole = false): void {
  const at = rankedRules(data, table);
  const end = at + rankedSize(data, table);
  const split = splitOf(data.ints, at);
  if (end - split <= INDEX_THRESHOLD * OTHER_FIELDS) return;
  const index = indexOf(data, table, split, end);
  if (whole) sequencesFor(data, index);
}

/** The piece sequences of the rules of `index`, built on first use (see GroupIndex). */
function sequencesFor(data: RobotsData, index: GroupIndex): PieceSequences {
  index.sequences ??= sequencesOf(data, index.split, index.split + index.grams.ranks * OTHER_FIELDS);
  return index.sequences;
}

/**
 * A check whose buckets hold more rules than this marks its candidates through the gram
 * index instead of reading the buckets rule by rule.
 */
const SCAN_LIMIT = 4 * CHUNK;

/** The pair filter of the path being checked (see pairMask), for indexed groups; reused. */
const pathPairs = new Int32Array(2);
/** The pieces searched for the rules tried on the path being checked (see bestMarked); reused. */
const searches: PieceSearches = new Map();

/** The buckets of the path being checked, and the candidates marked for it (see GramIndex.begin); reused. */
const pathBuckets: Bucket[] = [];
let marks = new Int32Array(1024);

/** Whether rule `id` matches `path`; `searches` remembers the pieces searched in this path (see matchesAt). */
function ruleMatches(data: RobotsData, id: number, path: string, searches?: PieceSearches): boolean {
  const flags = ruleFlags(data, id);
  const length = ruleMatchLength(data, id);
  const position = ruleStart(data, id);
  const patterns = chunkOf(data, position);
  const start = position & CHUNK_MASK;
  if (flags & WILDCARD) {
    return matchesAt(patterns, start, length, ruleAnchored(data, id, length), path, searches);
  }
  if (flags & EXACT ? path.length !== length : path.length < length) return false;
  for (let i = 0; i < length; i++) {
    if (path.charCodeAt(i) !== patterns.charCodeAt(start + i)) return false;
  }
  return true;
}

/** The character filter of the path being checked (see chars.ts); reused by every check. */
const pathMask = new Int32Array(2);

/** Whether the path being checked has every character of the filter (low, high) of a rule or chunk. */
function pathHas(low: number, high: number): boolean {
  return (low & ~pathMask[0]) === 0 && (high & ~pathMask[1]) === 0;
}

/** Whether the path being checked has every character pair of the filter (low, high) of a rule or chunk (see pairMask). */
function pathHasPairs(low: number, high: number): boolean {
  return (low & ~pathPairs[0]) === 0 && (high & ~pathPairs[1]) === 0;
}

/**
 * The decisive rule of merged group `merged` for `path`, or -1 when none matches. `mask` holds
 * the path's character filter (see chars.ts), which pathOf reads on its pass over the URL.
 */
export function decide(data: RobotsData, merged: number, path: string, mask: Int32Array): number {
  pathMask[0] = mask[0];
  pathMask[1] = mask[1];
  let best = decideTable(data, partOf(data, merged, 0), path, mask, -1);
  for (let i = 1; i < partCount(data, merged); i++)
    best = decideTable(data, partOf(data, merged, i), path, mask, best);
  return best;
}

/** The best of `best` (a rule id, or -1) and the rules of ranked table `table` that match `path`. */
function decideTable(data: RobotsData, table: number, path: string, mask: Int32Array, best: number): number {
  const at = rankedRules(data, table);
  const ints = data.ints;
  const split = splitOf(ints, at);
  const end = at + rankedSize(data, table);
  const hashed = data.prefixes === null ? undefined : data.prefixes[table];
  const plain =
    hashed === undefined
      ? longestPrefixRule(data, at + 1, split, strideOf(ints, at), path)
      : hashed.longest(data, path);
  if (plain >= 0 && outranks(data, plain, best)) best = plain;
  if (end - split > INDEX_THRESHOLD * OTHER_FIELDS) {
    return decideIndexed(data, indexOf(data, table, split, end), path, best);
  }
  // Best first: once a rule cannot beat the best match, none after it can (see outranks).
  const bestLength = best < 0 ? -1 : lengthIn(ints, best);
  const bestAllows = best >= 0 && (flagsIn(ints, best) & ALLOW) !== 0;
  const lacksLow = ~mask[0];
  const lacksHigh = ~mask[1];
  const stop = bestLength < 0 ? end : firstShorter(ints, split, end, bestLength);
  for (let k = split; k < stop; k += OTHER_FIELDS) {
    // The filter first: it rules out most rules with one test and no read of the rule.
    if (((ints[k + 1] & lacksLow) | (ints[k + 2] & lacksHigh)) !== 0) continue;
    const id = ints[k];
    const length = lengthIn(ints, id);
    if (length === bestLength) {
      const allows = (flagsIn(ints, id) & ALLOW) !== 0;
      if (allows === bestAllows ? id > best : !allows) break;
    }
    if (ruleMatches(data, id, path)) return id;
  }
  return best;
}

/**
 * The position of the first entry of `ints[split, end)` (wildcard and `$` rules, best first, so
 * by length descending) whose pattern is shorter than `length`, or `end`: none from there on can
 * beat a match of that length.
 */
function firstShorter(ints: Int32Array, split: number, end: number, length: number): number {
  let lo = 0;
  let hi = (end - split) / OTHER_FIELDS;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lengthIn(ints, ints[split + mid * OTHER_FIELDS]) < length) hi = mid;
    else lo = mid + 1;
  }
  return split + lo * OTHER_FIELDS;
}

/** Every rule of the group that matches, best first; `mask` as for decide. */
export function allMatches(data: RobotsData, merged: number, path: string, mask: Int32Array): number[] {
  pathMask[0] = mask[0];
  pathMask[1] = mask[1];
  const found: number[] = [];
  for (let i = 0; i < partCount(data, merged); i++) matchesIn(data, partOf(data, merged, i), path, found);
  sortByRank(data, found);
  return found;
}

/** Appends to `found` every rule of ranked table `table` that matches `path`. */
function matchesIn(data: RobotsData, table: number, path: string, found: number[]): void {
  const at = rankedRules(data, table);
  const ints = data.ints;
  const split = splitOf(ints, at);
  const stride = strideOf(ints, at);
  const end = at + rankedSize(data, table);
  const hashed = data.prefixes === null ? undefined : data.prefixes[table];
  if (hashed !== undefined) hashed.everyMatch(data, path, found);
  else {
    for (let k = at + 1; k < split; k += stride) {
      const id = plainId(ints, k, stride);
      if (ruleMatches(data, id, path)) found.push(id);
    }
  }
  if (end - split > INDEX_THRESHOLD * OTHER_FIELDS) {
    matchesIndexed(data, indexOf(data, table, split, end), path, found);
    return;
  }
  // Every wildcard rule is read: the pieces they share are searched once.
  searches.clear();
  for (let k = split; k < end; k += OTHER_FIELDS) {
    if (pathHas(ints[k + 1], ints[k + 2]) && ruleMatches(data, ints[k], path, searches)) found.push(ints[k]);
  }
}

/**
 * Appends to `found` every wildcard and `$` rule of `index` that matches `path`. Each rule is
 * read, as in matchesIn, but through the filters and piece sequences a check uses: a file of
 * twenty thousand wildcard rules against an 8 KB path took 60-160 ms matched in place.
 */
function matchesIndexed(data: RobotsData, index: GroupIndex, path: string, found: number[]): void {
  beginIndexedCheck(path);
  const ints = data.ints;
  const { pairs, split } = index;
  index.exact?.everyMatch(data, path, found);
  for (let rank = 0; rank < index.grams.ranks; rank++) {
    const k = split + rank * OTHER_FIELDS;
    if (!pathHas(ints[k + 1], ints[k + 2])) continue;
    const id = ints[k];
    const flags = ruleFlags(data, id);
    // Exact rules were found by their pattern; a rule like `/a*$` matches as `/a` does.
    if (flags & EXACT) continue;
    if ((flags & WILDCARD) === 0) {
      if (ruleMatches(data, id, path)) found.push(id);
      continue;
    }
    if (pathHasPairs(pairs[rank * 2], pairs[rank * 2 + 1]) && sequenceMatchesNow(data, index, rank, id, path))
      found.push(id);
  }
}

/** True when rule `a` outranks rule `b` (b may be -1). */
function outranks(data: RobotsData, a: number, b: number): boolean {
  if (b < 0) return true;
  const la = ruleLength(data, a);
  const lb = ruleLength(data, b);
  if (la !== lb) return la > lb;
  const allowA = ruleFlags(data, a) & ALLOW;
  const allowB = ruleFlags(data, b) & ALLOW;
  if (allowA !== allowB) return allowA > allowB;
  return a < b;
}

/**
 * The longest plain prefix rule that is a prefix of `path`, or -1. `ints[from, split)`
 * holds the plain entries (see rank.ts), `stride` ints each, sorted by pattern. Let K be the
 * largest pattern not above the path and c the length of their common prefix. Any pattern
 * P that is a prefix of the path is not above K, so P cannot be longer than c (K and the
 * path part at c with K below): P is a prefix of K, reached through K's parents.
 */
function longestPrefixRule(
  data: RobotsData,
  from: number,
  split: number,
  stride: number,
  path: string,
): number {
  const ints = data.ints;
  let lo = 0;
  let hi = (split - from) / stride;
  // Every pattern between two others shares at least the shorter of their common prefixes
  // with the path: the comparison starts there.
  let loCommon = 0;
  let hiCommon = 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const id = plainId(ints, from + mid * stride, stride);
    const position = startIn(ints, id);
    const patterns = chunkOf(data, position);
    const start = position & CHUNK_MASK;
    const length = lengthIn(ints, id);
    const n = Math.min(length, path.length);
    let i = Math.min(loCommon, hiCommon);
    while (i < n && patterns.charCodeAt(start + i) === path.charCodeAt(i)) i++;
    const order = i < n ? patterns.charCodeAt(start + i) - path.charCodeAt(i) : length - path.length;
    if (order <= 0) {
      lo = mid + 1;
      loCommon = i;
    } else {
      hi = mid;
      hiCommon = i;
    }
  }
  if (lo === 0) return -1;
  // K was the last entry the search went past: loCommon is its common prefix with the path.
  let at = from + (lo - 1) * stride;
  let id = plainId(ints, at, stride);
  const common = loCommon;
  if (common === lengthIn(ints, id)) return id;
  for (let back = plainBack(ints, at, stride); back !== 0; back = plainBack(ints, at, stride)) {
    at -= back * stride;
    id = plainId(ints, at, stride);
    if (lengthIn(ints, id) <= common) return id;
  }
  return -1;
}

function decideIndexed(data: RobotsData, index: GroupIndex, path: string, best: number): number {
  beginIndexedCheck(path);
  const exact = index.exact === null ? -1 : index.exact.exactly(data, path);
  if (exact >= 0 && outranks(data, exact, best)) best = exact;
  let count = 0;
  let rules = 0;
  for (const length of index.bucketLengths) {
    if (length > path.length) break;
    const bucket = index.buckets.get(path.slice(0, length));
    if (bucket === undefined) continue;
    const candidates = candidatesIn(bucket, SCAN_LIMIT - rules);
    if (candidates === 0) continue;
    pathBuckets[count++] = bucket;
    rules += candidates;
    if (rules > SCAN_LIMIT) return bestMarked(data, index, path, best);
  }
  for (let b = 0; b < count; b++) best = bestInBucket(data, index, pathBuckets[b], path, best);
  return best;
}

/**
 * Whether the path being checked has the characters and the character pairs that every rule
 * of the chunk at `common[j, j + 4)` needs (see Bucket).
 */
function chunkPasses(common: number[], j: number): boolean {
  return pathHas(common[j], common[j + 1]) && pathHasPairs(common[j + 2], common[j + 3]);
}

/**
 * How many rules of `bucket` are in chunks the filters of the path let through, counted up to
 * the first count over `room`.
 */
function candidatesIn(bucket: Bucket, room: number): number {
  const { rules, common } = bucket;
  let count = 0;
  for (let j = 0; j < common.length && count <= room; j += 4) {
    if (chunkPasses(common, j)) count += CHUNK;
  }
  return Math.min(count, rules.length);
}

/** The best of `best` and the rules of `bucket` that match `path`, read best first. */
function bestInBucket(
  data: RobotsData,
  index: GroupIndex,
  bucket: Bucket,
  path: string,
  best: number,
): number {
  const ranked = data.ints;
  const { rules, common } = bucket;
  for (let c = 0; c < rules.length; c += CHUNK) {
    if (!outranks(data, ranked[rules[c]], best)) break;
    if (!chunkPasses(common, (c / CHUNK) * 4)) continue;
    for (let i = c; i < Math.min(c + CHUNK, rules.length); i++) {
      const found = tryRuleAt(data, index, rules[i], path, best);
      if (found !== NO_MATCH) return found === OUTRANKED ? best : found;
    }
  }
  const found = walkQueuedRules(data, index, path);
  return found === NO_MATCH ? best : found;
}

/** What tryRuleAt says of a rule that does not match, and of one that cannot beat the best so far. */
const NO_MATCH = -1;
const OUTRANKED = -2;

/**
 * The wildcard rules whose walks wait (see PieceSequences.matches), best first: their ids, and
 * how many. They are walked together, when the batch is full or before a check goes on to
 * anything a rule among them would outrank.
 */
const queuedIds = new Int32Array(BATCH_LIMIT);
let queuedRules = 0;
/**
 * How many rules the next walk waits for: one in a check's first, then twice as many each time
 * up to BATCH_LIMIT. A check whose best rule matches reads no other, as a check of one rule at
 * a time would (reading the next rules' filters costs more than their walks: past a few, the
 * filter of their longest piece hashes the path's windows); one that reads thousands of rules
 * walks them 64 at a time.
 */
let batchSize = 1;

/**
 * The wildcard rule at position `k` of the ranked table, tried for `path` after the best match
 * so far: its id if it matches, NO_MATCH, or OUTRANKED when it cannot beat `best` (nor can any
 * rule after it, best first). The rule is matched through its piece ids (see sequences.ts),
 * unless its longest pieces are known to be nowhere in the path. A rule whose walk waits is
 * NO_MATCH until the walk: then the answer is that of the best queued rule that matches, which
 * outranks every rule tried after it.
 */
function tryRuleAt(data: RobotsData, index: GroupIndex, k: number, path: string, best: number): number {
  const ranked = data.ints;
  const id = ranked[k];
  if (!outranks(data, id, best)) {
    const found = walkQueuedRules(data, index, path);
    return found === NO_MATCH ? OUTRANKED : found;
  }
  if (!pathHas(ranked[k + 1], ranked[k + 2])) return NO_MATCH;
  const verdict = sequenceMatches(data, index, (k - index.split) / OTHER_FIELDS, id, path);
  if (verdict === FAILS) return NO_MATCH;
  if (verdict === MATCHES) {
    const found = walkQueuedRules(data, index, path);
    return found === NO_MATCH ? id : found;
  }
  queuedIds[queuedRules++] = id;
  return queuedRules < batchSize ? NO_MATCH : walkQueuedRules(data, index, path);
}

/** Walks the queued rules (see queuedIds): the id of the best that matches `path`, or NO_MATCH. */
function walkQueuedRules(data: RobotsData, index: GroupIndex, path: string): number {
  if (queuedRules === 0) return NO_MATCH;
  queuedRules = 0;
  batchSize = Math.min(2 * batchSize, BATCH_LIMIT);
  const k = sequencesFor(data, index).walkQueued(data, path);
  return k < 0 ? NO_MATCH : queuedIds[k];
}

/**
 * Whether wildcard rule `id`, of rank `rank` in `index`, matches `path`, the path of the last
 * beginIndexedCheck: through its piece sequence (see sequences.ts), unless its longest pieces are
 * known to be nowhere in the path. FAILS, MATCHES, or QUEUED for a walk with others.
 */
function sequenceMatches(
  data: RobotsData,
  index: GroupIndex,
  rank: number,
  id: number,
  path: string,
): number {
  const sequences = sequencesFor(data, index);
  if (sequences.lacksLongest(rank, path)) return FAILS;
  const length = ruleMatchLength(data, id);
  const anchored = ruleAnchored(data, id, length);
  return sequences.matches(data, rank, ruleStart(data, id), length, anchored, path);
}

/** sequenceMatches, with a queued rule walked at once, on its own. */
function sequenceMatchesNow(
  data: RobotsData,
  index: GroupIndex,
  rank: number,
  id: number,
  path: string,
): boolean {
  const verdict = sequenceMatches(data, index, rank, id, path);
  return verdict === QUEUED ? sequencesFor(data, index).walkQueued(data, path) === 0 : verdict === MATCHES;
}

/** Starts a check of `path` against indexed groups: what the searches of the last one found no longer holds. */
function beginIndexedCheck(path: string): void {
  beginCheck();
  queuedRules = 0;
  batchSize = 1;
  pairMask(path, 0, path.length, pathPairs, 0);
}

/**
 * The best of `best` and the wildcard rules of the index that match `path`, found among the
 * rules the gram index marks for it, best first: each rule a path cannot hold the piece of
 * costs nothing. Gram lengths are marked one at a time, by the best rank of each (see
 * GramIndex): the ranks before the next length's best are complete, and are read before that
 * length is marked, so that a match among the best rules ends the check early.
 */
function bestMarked(data: RobotsData, index: GroupIndex, path: string, best: number): number {
  const { grams } = index;
  if (marks.length < grams.words) marks = new Int32Array(Math.max(grams.words, marks.length * 2));
  grams.begin(path, marks);
  let from = 0;
  for (let k = 0; k < grams.lengthCount; k++) {
    const to = grams.bestRankOf(k);
    const found = bestAmongMarked(data, index, path, best, from, to);
    if (found !== NO_MATCH) return found === OUTRANKED ? best : found;
    // Best first: a length whose best rule cannot beat the best match has no rule that can.
    if (!outranks(data, data.ints[index.split + to * OTHER_FIELDS], best)) return best;
    grams.markLength(k, path, marks);
    from = to;
  }
  const found = bestAmongMarked(data, index, path, best, from, grams.ranks);
  return found === NO_MATCH || found === OUTRANKED ? best : found;
}

/**
 * The first marked rule of ranks `[from, to)` that matches `path` (see tryRuleAt), read best
 * first: its id, NO_MATCH, or OUTRANKED. A rule whose pieces pair characters the path never
 * pairs is not read at all.
 */
function bestAmongMarked(
  data: RobotsData,
  index: GroupIndex,
  path: string,
  best: number,
  from: number,
  to: number,
): number {
  const { pairs, split } = index;
  for (let w = from >>> 5; w < (to + 31) >>> 5; w++) {
    let bits = marks[w];
    if (w === from >>> 5) bits &= -1 << (from & 31);
    if (w === (to - 1) >>> 5 && (to & 31) !== 0) bits &= (1 << (to & 31)) - 1;
    for (; bits !== 0; bits &= bits - 1) {
      const rank = w * 32 + 31 - Math.clz32(bits & -bits);
      if (!pathHasPairs(pairs[rank * 2], pairs[rank * 2 + 1])) continue;
      const found = tryRuleAt(data, index, split + rank * OTHER_FIELDS, path, best);
      if (found !== NO_MATCH) return found;
    }
  }
  return walkQueuedRules(data, index, path);
}

/**
 * The index of ranked table `table`, whose wildcard and `$` rules are `ints[split, end)`, built
 * on first use and shared by the tokens that read the table.
 */
function indexOf(data: RobotsData, table: number, split: number, end: number): GroupIndex {
  data.indexes ??= [];
  data.indexes[table] ??= buildIndex(data, split, end);
  return data.indexes[table];
}

function buildIndex(data: RobotsData, split: number, end: number): GroupIndex {
  const ranked = data.ints;
  const exact: number[] = [];
  const lists = new Map<string, number[]>();
  // A list of blocks: one array of tens of thousands of grams is slow to grow (see block-list.ts).
  const grams = new BlockList<Gram | null>();
  // By rank, where another gram of the rule starts in its chunk of the patterns, and its length.
  const others = new Int32Array(((end - split) / OTHER_FIELDS) * 2);
  const pairs = new Int32Array(((end - split) / OTHER_FIELDS) * 2);
  let characters = 0;
  // Read by the pattern copy's module while the compiler's octets are in its memory.
  const octets = compiledOctets(data);
  const inModule = octets !== null && inPatternCopy(octets);
  for (let k = split; k < end; k += OTHER_FIELDS) {
    const id = ranked[k];
    const position = ruleStart(data, id);
    const patterns = chunkOf(data, position);
    const start = position & CHUNK_MASK;
    const matchEnd = start + ruleMatchLength(data, id);
    // An exact rule is found by its pattern alone, in no bucket: its pair filter is never read.
    if (ruleFlags(data, id) & EXACT) {
      exact.push(id);
      grams.push(null);
      continue;
    }
    // One read of the rule: its pairs, its pieces and where its first `*` is.
    const at = ((k - split) / OTHER_FIELDS) * 2;
    if (inModule) pairMaskInModule(position - start, position, position - start + matchEnd, pairs, at);
    else pairMask(patterns, start, matchEnd, pairs, at);
    grams.push(gramOf(patterns, pieceShape[LONGEST_AT], pieceShape[LONGEST_LENGTH]));
    others[at] = pieceShape[OTHER_AT];
    others[at + 1] = pieceShape[OTHER_LENGTH];
    const star = pieceShape[FIRST_STAR];
    const key = patterns.slice(start, Math.min(start + BUCKET_PREFIX, star < 0 ? matchEnd : star));
    const list = lists.get(key);
    if (list === undefined) lists.set(key, [k]);
    else list.push(k);
    characters += matchEnd - start;
  }
  const buckets = new Map<string, Bucket>();
  for (const [key, list] of lists) buckets.set(key, bucketOf(ranked, list, pairs, split));
  return {
    exact: exact.length === 0 ? null : new PrefixHash(data, exact, 1),
    buckets,
    bucketLengths: [...new Set([...buckets.keys()].map((k) => k.length))].sort((a, b) => a - b),
    split,
    grams: GramIndex.build(grams, others, (rank) =>
      chunkOf(data, ruleStart(data, ranked[split + rank * OTHER_FIELDS])),
    ),
    pairs,
    // Built now when a check would take long to: the other indexes wait for a check that needs them.
    sequences: characters > EAGER_SEQUENCES ? sequencesOf(data, split, end) : null,
  };
}

/** Bytes an index keeps (see size.ts): its maps, its buckets and its gram index. */
export function indexBytes(index: GroupIndex): number {
  // A map entry with its key (a short string or a slice of `patterns`) and its share of the table.
  const entry = 96;
  let bytes =
    256 +
    (index.exact?.bytes ?? 0) +
    index.grams.bytes +
    200 +
    index.pairs.byteLength +
    (index.sequences?.bytes ?? 0);
  for (const { rules, common } of index.buckets.values()) {
    // The entry, the bucket and its two arrays of small integers (8 bytes an element), with
    // the spare room an array grown by push keeps (measured: up to 17 elements).
    bytes += entry + 3 * 64 + 8 * (rules.length + common.length + 20);
  }
  return bytes;
}

/**
 * A bucket of the rules at positions `rules` of `ranked`, with the filter bits common to each
 * chunk; `pairs` holds the pair filter of each wildcard rule by rank, from position `split`.
 */
function bucketOf(ranked: Int32Array, rules: number[], pairs: Int32Array, split: number): Bucket {
  const common: number[] = [];
  for (let c = 0; c < rules.length; c += CHUNK) {
    let low = -1;
    let high = -1;
    let pairLow = -1;
    let pairHigh = -1;
    for (let i = c; i < Math.min(c + CHUNK, rules.length); i++) {
      const k = rules[i];
      low &= ranked[k + 1];
      high &= ranked[k + 2];
      const rank = (k - split) / OTHER_FIELDS;
      pairLow &= pairs[rank * 2];
      pairHigh &= pairs[rank * 2 + 1];
    }
    common.push(low, high, pairLow, pairHigh);
  }
  return { rules, common };
}
