/**
 * The memory a parsed file keeps, counted from its structures: a cache bounded by bytes (the
 * policy store's LRU) must not take a file of many user-agent lines or wildcard rules, which
 * keeps several times its text, for the size of its text.
 */

import type { RobotsData } from './compile.js';
import { indexBytes } from './decide.js';

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
 * Bytes the compiled file keeps now. A check for a group not asked about before adds that
 * group's ranked table (and its index, for many wildcard rules); see RobotsTxt.prepare.
 */
export function retainedBytes(data: RobotsData): number {
  let bytes = 0;
  // The patterns are ASCII (one byte a character); `words` is text as written (maybe two).
  if (data.chunks === null) bytes += OBJECT_BYTES + data.patterns.length;
  else for (const chunk of data.chunks) bytes += OBJECT_BYTES + chunk.length;
  if (data.wordChunks === null) bytes += OBJECT_BYTES + 2 * data.words.length;
  else for (const chunk of data.wordChunks) bytes += OBJECT_BYTES + 2 * chunk.length;
  bytes += TYPED_ARRAY_BYTES + data.ints.byteLength;
  for (const index of data.indexes ?? []) if (index !== undefined) bytes += indexBytes(index);
  for (const prefixes of data.prefixes ?? []) if (prefixes !== undefined) bytes += prefixes.bytes;
  return FILE_BYTES + Math.ceil(bytes * (1 + UNSEEN));
}
