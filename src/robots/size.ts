/**
 * The memory a parsed file keeps, counted from its structures: a cache bounded by bytes (the
 * policy store's LRU) must not take a file of many user-agent lines or wildcard rules, which
 * keeps several times its text, for the size of its text.
 */

import {
  count,
  EMPTY,
  FIRST_RULE,
  GROUP_COUNT,
  groupField,
  INTS_FULL,
  MEMBERS_FROM,
  MEMBERS_TO,
  MERGED_COUNT,
  mergedField,
  PLAIN,
  RANKED_TABLE,
  type RobotsData,
  RULE_COUNT,
  ruleFlags,
} from './compile.js';
import { INDEX_THRESHOLD, indexBytes } from './decide.js';

/** The file's objects whatever it holds: the parsed file, its tables' objects, its lists. */
const FILE_BYTES = 512;
/** A JavaScript object with a few fields, or the header of an array or string. */
const OBJECT_BYTES = 64;
/**
 * What the count below does not see (object headers, the spare room of maps and arrays), as
 * a share of what it sees: measured at up to 4% for files from 2.7 KiB to 500 KiB, rounded up.
 */
const UNSEEN = 0.1;
/** A typed array: its object, its buffer object and the buffer's bookkeeping. */
const TYPED_ARRAY_BYTES = 200;
/**
 * The most an index can take per wildcard or `$` rule: its place in a bucket, in the gram
 * index and in the map of exact patterns, with its bucket's own share.
 */
const INDEX_BYTES_PER_RULE = 300;

/**
 * Bytes the compiled file keeps at most: what it holds now, plus the ranked tables and
 * indexes that checks may still add (each is added once, on the first check that needs it).
 */
export function retainedBytes(data: RobotsData): number {
  let bytes = 0;
  // `patterns` is ASCII (one byte a character); `words` is text as written (maybe two).
  bytes += OBJECT_BYTES + data.patterns.length + OBJECT_BYTES + 2 * data.words.length;
  // `ints` grows as checks add ranked tables, up to room for all of them.
  bytes += TYPED_ARRAY_BYTES + 4 * Math.max(data.ints.length, data.ints[INTS_FULL]);
  if (data.tokenSlots !== null) bytes += TYPED_ARRAY_BYTES + data.tokenSlots.byteLength;
  bytes += indexesBytes(data);
  return FILE_BYTES + Math.ceil(bytes * (1 + UNSEEN));
}

/** The indexes of the file's ranked tables: built, or to be built for the tables of many wildcard rules. */
function indexesBytes(data: RobotsData): number {
  // The wildcard and `$` rules of each group as written (the rules an index holds).
  const other = new Int32Array(count(data, GROUP_COUNT));
  for (let g = 0; g < other.length; g++) {
    const first = groupField(data, g, FIRST_RULE);
    for (let id = first; id < first + groupField(data, g, RULE_COUNT); id++) {
      if ((ruleFlags(data, id) & (PLAIN | EMPTY)) === 0) other[g]++;
    }
  }
  let bytes = 0;
  const seen = new Set<number>();
  for (let m = 0; m < count(data, MERGED_COUNT); m++) {
    const table = mergedField(data, m, RANKED_TABLE);
    if (seen.has(table)) continue;
    seen.add(table);
    const index = data.indexes?.[table];
    if (index !== undefined) {
      bytes += indexBytes(index);
      continue;
    }
    let rules = 0;
    for (let k = mergedField(data, m, MEMBERS_FROM); k < mergedField(data, m, MEMBERS_TO); k++) {
      rules += other[data.ints[k]];
    }
    if (rules > INDEX_THRESHOLD) bytes += rules * INDEX_BYTES_PER_RULE;
  }
  return bytes;
}
