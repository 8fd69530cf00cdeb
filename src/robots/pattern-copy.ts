/**
 * The WebAssembly copy of patterns in normal form (see scripts/build-pattern-copy.mjs for the
 * module): one instance per process, made when this file loads. Its
 * memory holds the code units of the text being read (lines.ts writes them there) and the octets
 * the compiler writes (compile.ts); a pattern whose units and octets are both there is copied by
 * the module sixteen characters at a time, where the loop of writePattern takes one or two.
 * While the octets of the file just compiled are there, the module also reads the filters of its
 * wildcard rules for the tables and indexes built at the parse (rank.ts, decide.ts), where
 * JavaScript would read them from the octets.
 *
 * The memory never grows, so the views of it stay valid: a text longer than the module reads
 * has its units elsewhere, and octets past the module's room go to memory of the compiler's
 * own; either way the compiler copies with writePattern. Without WebAssembly, or its vector
 * instructions, every pattern is copied that way.
 */

import {
  PATTERN_COPY_FILTERS,
  PATTERN_COPY_MODULE,
  PATTERN_COPY_SCRATCH,
  PATTERN_COPY_SCRATCH_BYTES,
  PATTERN_COPY_UNIT_LIMIT,
  PATTERN_COPY_UNITS,
} from './pattern-copy-code.js';

export { PATTERN_COPY_SLACK } from './pattern-copy-code.js';

interface PatternCopyExports {
  memory: WebAssembly.Memory;
  copy(from: number, to: number, at: number): number;
  characters(from: number, to: number): void;
  pairs(from: number, to: number): void;
}

/** The module's memory as the tokenizer and the compiler use it. */
export interface PatternCopyMemory {
  /** The code units of a text of up to `unitLimit` units, and the same memory as octets, to write them. */
  units: Uint16Array;
  unitOctets: Buffer;
  unitLimit: number;
  /** The compiler's octets, for a file whose patterns fit. */
  scratch: Uint8Array;
}

/** The module's exports and the views of its memory, made once when this file loads. */
interface PatternCopy {
  exports: PatternCopyExports;
  memory: PatternCopyMemory;
  filters: Int32Array;
}

/**
 * What the module found of the pattern it read last (see characterFilter, pairFilter): the
 * filter of its characters (2 words), the filter of its pairs (2 words), where its first `*` is
 * (-1 for none), where its longest piece after that starts and its length, and the same of the
 * second longest. Places are positions in the scratch.
 */
export const FILTER_CHARACTERS = 0;
export const FILTER_PAIRS = 2;
export const FILTER_FIRST_STAR = 4;
export const FILTER_LONGEST_AT = 5;
export const FILTER_LONGEST_LENGTH = 6;
export const FILTER_SECOND_AT = 7;
export const FILTER_SECOND_LENGTH = 8;

const patternCopy = instantiate();
/** The module's findings (see FILTER_CHARACTERS); an array of no use where the module does not run. */
export const filters = patternCopy?.filters ?? new Int32Array(9);

/** The module's memory; null where WebAssembly cannot run the module. */
export function patternCopyMemory(): PatternCopyMemory | null {
  return patternCopy?.memory ?? null;
}

function instantiate(): PatternCopy | null {
  // The module's memory is little-endian; on a big-endian host a Uint16Array view reads it
  // otherwise than the module does.
  if (new Uint8Array(Uint16Array.of(1).buffer)[0] !== 1) return null;
  let exports: PatternCopyExports;
  try {
    const module = new WebAssembly.Module(Buffer.from(PATTERN_COPY_MODULE, 'base64'));
    exports = new WebAssembly.Instance(module, {}).exports as unknown as PatternCopyExports;
  } catch {
    return null;
  }
  const buffer = exports.memory.buffer;
  return {
    exports,
    memory: {
      units: new Uint16Array(buffer, PATTERN_COPY_UNITS, PATTERN_COPY_UNIT_LIMIT),
      unitOctets: Buffer.from(buffer, PATTERN_COPY_UNITS, PATTERN_COPY_UNIT_LIMIT * 2),
      unitLimit: PATTERN_COPY_UNIT_LIMIT,
      scratch: new Uint8Array(buffer, PATTERN_COPY_SCRATCH, PATTERN_COPY_SCRATCH_BYTES),
    },
    filters: new Int32Array(buffer, PATTERN_COPY_FILTERS, 9),
  };
}

/** The module's functions, or ones that do nothing where it does not run (no caller reaches them then). */
const { copy, characters, pairs } = patternCopy?.exports ?? {
  copy: () => -1,
  characters: () => {},
  pairs: () => {},
};

/**
 * Copies the pattern of units `[from, to)` of the module's units to octet `at` of its scratch,
 * when the pattern is in normal form: returns what writePattern would (the position after it,
 * with WROTE_STAR when it holds a `*`), else -1. Writes up to PATTERN_COPY_SLACK octets past the
 * pattern's end. Call only where patternCopyMemory() gives the memory.
 */
export function copyPattern(from: number, to: number, at: number): number {
  return copy(from, to, at);
}

/**
 * Whether `octets` are the module's scratch: then the filters of a pattern in them are read by
 * the module (characterFilter, pairFilter).
 */
export function inPatternCopy(octets: Uint8Array): boolean {
  return octets === patternCopy?.memory.scratch;
}

/** Writes to `filters` the filter of the characters of scratch octets `[from, to)` (see charMask in chars.ts). */
export function characterFilter(from: number, to: number): void {
  characters(from, to);
}

/** Writes to `filters` the filter of the pairs of scratch octets `[from, to)` and their pieces (see pairMask in pieces.ts). */
export function pairFilter(from: number, to: number): void {
  pairs(from, to);
}
