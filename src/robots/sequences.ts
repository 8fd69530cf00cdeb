/**
 * The wildcard rules of an indexed group (see decide.ts) as sequences of pieces: `/shop*a*b$`
 * is its literal prefix `/shop`, then steps to `a` and `b`, anchored. Pieces many rules share
 * have one id. A check reads the path into an array once, and finds each piece through the row
 * of its first character (below): reads of the step, of where the row starts and of the row in
 * most cases, where matching in place (match.ts) found each `*` again and called the engine's
 * search for each piece. A file's rules may hold a quarter of a million pieces, which one check
 * of a long path may have to follow.
 *
 * Past a few false starts, and on paths too long for rows, the engine searches for the piece,
 * and the check remembers by id what those searches found: the first occurrence, the last search
 * made, where the piece stops occurring. Rules that share a piece then read the path for it a
 * few times, not once each. Pieces that are all different and nowhere in the path are settled by
 * hashes of the path's windows instead (see lacksWindow), as are rules whose longest or second
 * longest piece is.
 *
 * On paths of up to 16 Ki characters the pieces are followed by the WebAssembly walk (walk.ts),
 * four rules at a time, from copies of these sequences; the walk here takes the steps it leaves,
 * longer paths, and every path where WebAssembly cannot run.
 *
 * The matching is that of matchesAt: the literal prefix from the path's first octet, then each
 * piece at its leftmost occurrence after the previous one, and, for a rule ending in `$`, the
 * last piece at the end of the path. Pieces are never revisited: no input makes it backtrack.
 */

import {
  CHUNK_MASK,
  chunkOf,
  EXACT,
  OTHER_FIELDS,
  type RobotsData,
  ruleFlags,
  ruleLength,
  ruleMatchLength,
  ruleStart,
} from './compile.js';
import { regionMatches } from './match.js';
import { BATCH_LIMIT, type WalkSource, walker } from './walk.js';
import { WALK_FAILED, WALK_LEFT, WALK_MATCHED, WALK_SLOT_FACTOR, WALK_WINDOW_SETS } from './walk-code.js';

/**
 * A rule is a sequence of steps, one per piece, each an int. Its low STEP_ROW bits name the row
 * of the path it is found through (see rows), its first character. A piece of one character
 * (`*a`) has STEP_RUN, and nothing else. Any other piece has its id, shifted left by STEP_SHIFT.
 * A run of RUN_MIN or more pieces of one character (`*a*a*a…`) is one step: STEP_RUN, RUN_ROW
 * for its row, the character shifted left by STEP_SHIFT and the number of pieces by RUN_SHIFT;
 * a check takes it in two reads, not one per piece. The last piece of a rule is a step of its
 * own, so that an anchored rule can test it apart. Patterns are ASCII once normalised
 * (encoding.ts); a piece whose first character were not would have NO_ROW, be no run, and be
 * searched by the engine. A file holds far fewer than the 2^21 ids a step leaves room for (a
 * piece takes two octets of a pattern, `*a`), and a rule fewer than the 2^14 pieces a run does
 * (a line keeps 16,664 octets).
 */
const STEP_SHIFT = 10;
const STEP_RUN = 0x100;
const STEP_ROW = 0xff;
const NO_ROW = 128;
const RUN_ROW = 129;
const RUN_SHIFT = 17;
/**
 * Runs shorter than this are steps of one piece each, followed through rows read after read. A
 * run costs a branch the processor guesses wrong and three reads: with runs from 8 pieces, rules
 * of random `*a` and `*c` pieces (one run in 128 that long) were checked 20-30% slower.
 */
const RUN_MIN = 32;

/** The step of a run of `count` pieces of character `code`. */
function runStep(code: number, count: number): number {
  return (count << RUN_SHIFT) | (code << STEP_SHIFT) | STEP_RUN | RUN_ROW;
}

/**
 * Appends a piece of one character, `code`, at `out` to the rule whose steps start at `rule` in
 * `steps`: one more in a run of it, or a step of its own, which makes a run with the RUN_MIN - 1
 * steps before it when they are the same. Returns where the steps now end.
 */
function addSingle(steps: Int32Array, rule: number, out: number, code: number): number {
  const single = STEP_RUN | code;
  const last = out - 1;
  if (last >= rule && (steps[last] & (STEP_ROW | (127 << STEP_SHIFT))) === (RUN_ROW | (code << STEP_SHIFT))) {
    steps[last] += 1 << RUN_SHIFT;
    return out;
  }
  steps[out++] = single;
  let first = out - 1;
  while (first > rule && out - first < RUN_MIN && steps[first - 1] === single) first--;
  if (out - first < RUN_MIN) return out;
  steps[first] = runStep(code, RUN_MIN);
  return first + 1;
}

/**
 * The wildcard and `$` rules `ints[split, end)` of a ranked table (see rank.ts), best first, as
 * piece sequences. An exact rule (`/a/$`) has none: an index finds those by their pattern.
 */
export function sequencesOf(data: RobotsData, split: number, end: number): PieceSequences {
  const ints = data.ints;
  let characters = 0;
  for (let k = split; k < end; k += OTHER_FIELDS) characters += ruleLength(data, ints[k]);
  // A piece follows a `*`: at most one piece per two characters of the patterns.
  const builder = new SequenceBuilder(data, (end - split) / OTHER_FIELDS, characters >>> 1);
  for (let k = split; k < end; k += OTHER_FIELDS) {
    const id = ints[k];
    if (ruleFlags(data, id) & EXACT) builder.skip();
    else builder.add(ruleStart(data, id), ruleMatchLength(data, id));
  }
  const sequences = builder.finish();
  sequences.prepareWalk(data);
  return sequences;
}

/**
 * Where the hash of a piece's text starts (FNV-1a from there), chosen by each process: pieces
 * whose hashes agree are compared one with another, and a file cannot be written to make
 * thousands agree (with a fixed polynomial hash, 16,000 pieces of `Aa` and `BB` took 1.5 s).
 */
const PIECE_SEED = (Math.random() * 2 ** 32) | 0;

/** Collects the rules of one table, best first, into PieceSequences. */
class SequenceBuilder {
  readonly #data: RobotsData;
  /** By rule, where its steps start in #steps; a last entry ends the last rule. */
  readonly #offsets: Int32Array;
  #rules = 0;
  readonly #steps: Int32Array;
  #used = 0;
  /**
   * By id, where the piece is among the file's patterns (as ruleStart gives it), its length, its
   * second character, and the hash of its text (see PIECE_SEED); grown as ids are added.
   */
  #positions: Int32Array;
  #lengths: Int32Array;
  #seconds: Uint16Array;
  #hashes: Int32Array;
  /** By id, the hash of the piece as a window of a path (see lacksWindow). */
  #windows: Int32Array;
  #count = 0;
  /**
   * By rule, two ints: the ids of its longest piece and of its longest other piece (the first on
   * a tie), each -1 when there is no such piece of two characters or more.
   */
  readonly #longest: Int32Array;
  /**
   * The ids by the hash of their text: open addressing, a slot holding an id plus one (0: empty),
   * at most half full, found by the high bits of the hash's product with WALK_SLOT_FACTOR, as
   * the module's sets of windows are.
   */
  #slots: Int32Array;
  #slotShift: number;

  constructor(data: RobotsData, rules: number, pieces: number) {
    this.#data = data;
    this.#offsets = new Int32Array(rules + 1);
    this.#steps = new Int32Array(pieces);
    this.#longest = new Int32Array(2 * rules).fill(-1);
    // Room for a piece of its own per rule, as most large groups have, before the arrays by id
    // grow: growing them and filing every id again, a few times over, cost the first parse of
    // 22,743 rules of two pieces each several milliseconds, in code that had not yet been compiled.
    const ids = Math.max(64, Math.min(rules, pieces));
    this.#positions = new Int32Array(ids);
    this.#lengths = new Int32Array(ids);
    this.#seconds = new Uint16Array(ids);
    this.#hashes = new Int32Array(ids);
    this.#windows = new Int32Array(ids);
    const bits = 32 - Math.clz32(2 * ids - 1);
    this.#slots = new Int32Array(1 << bits);
    this.#slotShift = 32 - bits;
  }

  /**
   * Adds the next rule: its pattern starts at `position` (as ruleStart gives it), its match part
   * is `length` characters long. A piece of one character is written as a step of its own here,
   * and finish makes runs of them. No branch for them: a file whose large groups have none has
   * this loop compiled without one, which a file of `*a` pieces would reach on its first rule,
   * and then run uncompiled for thousands of rules.
   */
  add(position: number, length: number): void {
    const patterns = chunkOf(this.#data, position);
    const start = position & CHUNK_MASK;
    const end = start + length;
    const steps = this.#steps;
    const longestIds = this.#longest;
    const at = 2 * this.#rules;
    let used = this.#used;
    let p = start;
    let longest = 1;
    let second = 1;
    while (p < end && patterns.charCodeAt(p) !== 42 /* * */) p++;
    while (p < end) {
      while (p < end && patterns.charCodeAt(p) === 42) p++;
      if (p === end) break;
      const from = p;
      const first = patterns.charCodeAt(from);
      let hash = PIECE_SEED;
      for (; p < end; p++) {
        const c = patterns.charCodeAt(p);
        if (c === 42) break;
        hash = Math.imul(hash ^ c, 0x01000193);
      }
      const length = p - from;
      // A piece of one ASCII character needs no id; both steps are worked out by the same code.
      const single = STEP_RUN | first;
      const id =
        length + (first >>> 7) === 1
          ? -1
          : this.#idOf(patterns, from, length, position + (from - start), hash);
      steps[used++] = id < 0 ? single : (id << STEP_SHIFT) | Math.min(first, NO_ROW);
      if (length > longest) {
        second = longest;
        longestIds[at + 1] = longestIds[at];
        longest = length;
        longestIds[at] = id;
      } else if (length > second && id !== longestIds[at]) {
        second = length;
        longestIds[at + 1] = id;
      }
    }
    this.#used = used;
    this.#offsets[++this.#rules] = used;
  }

  /** Adds a rule the index never matches through its pieces. */
  skip(): void {
    this.#offsets[++this.#rules] = this.#used;
  }

  /**
   * Rewrites the steps in place: a piece of one character becomes STEP_RUN and the character,
   * and RUN_MIN or more of them in a row, of one character, one run step. The last piece of a
   * rule stays a step of its own: an anchored rule tests it at the end of the path.
   */
  #takeSingles(): void {
    const steps = this.#steps;
    const offsets = this.#offsets;
    let out = 0;
    let from = 0;
    for (let r = 0; r < this.#rules; r++) {
      const to = offsets[r + 1];
      const rule = out;
      for (let j = from; j < to; j++) {
        const step = steps[j];
        if ((step & STEP_RUN) === 0) steps[out++] = step;
        else out = addSingle(steps, rule, out, step & STEP_ROW);
      }
      const last = out - 1;
      if (last >= rule && (steps[last] & STEP_ROW) === RUN_ROW) {
        const step = steps[last];
        const code = (step >>> STEP_SHIFT) & 127;
        const rest = (step >>> RUN_SHIFT) - 1;
        if (rest >= RUN_MIN) steps[last] = runStep(code, rest);
        else for (out = last; out < last + rest; ) steps[out++] = STEP_RUN | code;
        steps[out++] = STEP_RUN | code;
      }
      from = to;
      offsets[r + 1] = out;
    }
    this.#used = out;
  }

  finish(): PieceSequences {
    this.#takeSingles();
    const count = this.#count;
    return new PieceSequences(
      this.#offsets,
      this.#steps.slice(0, this.#used),
      this.#positions.slice(0, count),
      this.#lengths.slice(0, count),
      this.#seconds.slice(0, count),
      this.#windows.slice(0, count),
      this.#longest,
    );
  }

  /**
   * The id of the piece `patterns[from, from + length)`, which lies at `position` among the
   * file's patterns; new if no earlier piece has its text.
   */
  #idOf(patterns: string, from: number, length: number, position: number, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let slot = Math.imul(hash, WALK_SLOT_FACTOR) >>> this.#slotShift;
    for (let held = slots[slot]; held !== 0; held = slots[slot]) {
      const id = held - 1;
      const at = this.#positions[id];
      if (
        this.#hashes[id] === hash &&
        this.#lengths[id] === length &&
        regionMatches(patterns, from, chunkOf(this.#data, at), at & CHUNK_MASK, length)
      )
        return id;
      slot = (slot + 1) & mask;
    }
    const id = this.#count++;
    if (id === this.#positions.length) this.#grow();
    this.#positions[id] = position;
    this.#lengths[id] = length;
    this.#seconds[id] = length > 1 ? patterns.charCodeAt(from + 1) : 0;
    this.#windows[id] = windowHash(patterns, from, length);
    this.#hashes[id] = hash;
    if (2 * this.#count > slots.length) this.#rehash();
    else slots[slot] = id + 1;
    return id;
  }

  /** Room in the arrays by id for one more id than they hold. */
  #grow(): void {
    const used = this.#positions.length;
    this.#positions = withRoom(this.#positions, used, used + 1);
    this.#lengths = withRoom(this.#lengths, used, used + 1);
    this.#seconds = withRoom(this.#seconds, used, used + 1);
    this.#hashes = withRoom(this.#hashes, used, used + 1);
    this.#windows = withRoom(this.#windows, used, used + 1);
  }

  /** Files every id again in a table of twice the slots. */
  #rehash(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    this.#slotShift--;
    for (let id = 0; id < this.#count; id++) {
      let slot = Math.imul(this.#hashes[id], WALK_SLOT_FACTOR) >>> this.#slotShift;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.#slots = slots;
  }
}

/*
 * What the searches for each piece found in the path being checked, by piece id, shared by every
 * index: one check runs at a time. An id's block of FIELDS ints holds:
 * - STAMP: the check the block belongs to; a block of another check is stale, whatever index
 *   wrote it, and is started afresh;
 * - FIRST: its first occurrence (-1: none); LAST: its last once known, else UNKNOWN;
 * - FROM, AT: the last search made, where it started and what it found (-1: nothing).
 */
const FIELDS = 5;
const STAMP = 0;
const FIRST = 1;
const LAST = 2;
const FROM = 3;
const AT = 4;
/** A search that found nothing from some start, where the last occurrence is not yet known. */
const UNKNOWN = -2;
let state = new Int32Array(256 * FIELDS);
/**
 * By id, the piece as a string for the engine's searches, sliced by the check under way; the
 * ids it sliced, cleared by the next check, so that no string of an earlier file's patterns is
 * kept alive here.
 */
let pieces: string[] = new Array(256).fill('');
let sliced = new Int32Array(256);
let slicedCount = 0;
/** The check under way; 0 is no check. */
let check = 0;

/*
 * A check finds pieces through rows of the path: the row of a character is, by position in the
 * path, its first occurrence there or after (NONE for none), and a piece is looked for at the
 * next occurrence of its first character from where the search starts, then the next, and so on.
 * The rows of the characters a check's pieces start with are built as they are needed, a read of
 * the path each (an 8 KB path in about 10 µs; most paths are a few dozen characters), after
 * which a rule of hundreds of one-character pieces (`/*a*c*a*a…`) costs a read of an array per
 * piece, where each was a search of the engine.
 *
 * A run of k pieces of one character (`*a*a*a`) ends one past the k-th occurrence of the
 * character from where it starts: the row gives the first, and the ranks and the list of
 * occurrences kept after the row (see buildRow) the k-th, in three reads, not k.
 */
/** Paths longer than this get no rows: the engine searches them. A row holds positions in 16 bits. */
const ROW_PATH_LIMIT = 16 * 1024;
/** In a row, no occurrence from there on. */
const NONE = 0xffff;
/** A row follows this many false starts of a piece (its first character, not the rest) before the engine searches. */
const ROW_HOPS = 8;
/** The rows of the check under way, one after another, and how much of it they take. */
let rowTable = new Uint16Array(0);
let rowTableUsed = 0;
/**
 * By character (ASCII), where its row starts in rowTable, -1 until it is built for the path in
 * pathCodes; the entries of NO_ROW and RUN_ROW stay -1.
 */
const rowStarts = new Int32Array(RUN_ROW + 1).fill(-1);
/** By character whose row is built, 1 when ranks follow it (see buildRow). */
const rowRanked = new Int32Array(RUN_ROW + 1);

/**
 * The characters of the path being checked, and -1 after them, once a check reaches the pieces
 * of a rule: an array is read faster than the string, which may be a slice of another.
 */
let pathCodes = new Int32Array(0);
/** The check whose path pathCodes holds. */
let codesOf = 0;

function readPath(path: string): void {
  const n = path.length;
  if (pathCodes.length <= n) pathCodes = new Int32Array(Math.max(n + 1, pathCodes.length * 2));
  for (let i = 0; i < n; i++) pathCodes[i] = path.charCodeAt(i);
  pathCodes[n] = -1;
  codesOf = check;
  rowStarts.fill(-1);
}

/** Starts a check of a new path: what the searches of earlier checks found no longer holds. */
export function beginCheck(): void {
  walker()?.discard();
  for (let k = 0; k < slicedCount; k++) pieces[sliced[k]] = '';
  slicedCount = 0;
  rowTableUsed = 0;
  setsCount = 0;
  if (++check === 0x7fffffff) {
    walker()?.discard(true);
    state.fill(0);
    lengthChecks.fill(0);
    check = 1;
  }
}

/** What PieceSequences.matches says of a rule: it does not match, it does, or it waits for walkQueued. */
export const FAILS = 0;
export const MATCHES = 1;
export const QUEUED = 2;

/** Rules left by the walk (see walkQueued) whose steps are taken before they are walked again. */
const LEFT_AT_ONCE = 4;

/** Numbers each PieceSequences, for the walk to know whose copy it holds. */
let serials = 0;

/** By rule queued for the walk: its rank, the end of its steps and the last end of its pieces allowed. */
const queuedRanks = new Int32Array(BATCH_LIMIT);
const queuedEnds = new Int32Array(BATCH_LIMIT);
const queuedLimits = new Int32Array(BATCH_LIMIT);
/** By rule queued, what its walk found: its status, the step and place where it stopped; by rule walked, its rule queued. */
const statuses = new Int32Array(BATCH_LIMIT);
const stepsAt = new Int32Array(BATCH_LIMIT);
const places = new Int32Array(BATCH_LIMIT);
const walkedAs = new Int32Array(BATCH_LIMIT);

/** The rules of an index as steps (see SequenceBuilder). */
export class PieceSequences {
  readonly #serial = ++serials;
  readonly #offsets: Int32Array;
  readonly #steps: Int32Array;
  readonly #positions: Int32Array;
  readonly #lengths: Int32Array;
  readonly #seconds: Uint16Array;
  readonly #windows: Int32Array;
  readonly #longest: Int32Array;

  constructor(
    offsets: Int32Array,
    steps: Int32Array,
    positions: Int32Array,
    lengths: Int32Array,
    seconds: Uint16Array,
    windows: Int32Array,
    longest: Int32Array,
  ) {
    this.#offsets = offsets;
    this.#steps = steps;
    this.#positions = positions;
    this.#lengths = lengths;
    this.#seconds = seconds;
    this.#windows = windows;
    this.#longest = longest;
    // Room for the searches of every piece; a check under way finds its blocks stale and starts them again.
    if (pieces.length < lengths.length) {
      const size = Math.max(lengths.length, pieces.length * 2);
      state = new Int32Array(size * FIELDS);
      pieces = new Array(size).fill('');
    }
  }

  /** Bytes kept: the arrays and the object. */
  get bytes(): number {
    const arrays = [
      this.#offsets,
      this.#steps,
      this.#positions,
      this.#lengths,
      this.#seconds,
      this.#windows,
      this.#longest,
    ];
    return arrays.reduce((sum, array) => sum + 100 + array.byteLength, 64);
  }

  /**
   * Whether the longest piece of rule `rank`, or its second longest, is known to be nowhere in
   * `path`, the path of the last beginCheck (see lacksWindow): the rule does not match it.
   */
  lacksLongest(rank: number, path: string): boolean {
    const longest = this.#longest[2 * rank];
    if (longest < 0) return false;
    if (lacksWindow(this.#windows[longest], this.#lengths[longest], path)) return true;
    const second = this.#longest[2 * rank + 1];
    return second >= 0 && lacksWindow(this.#windows[second], this.#lengths[second], path);
  }

  /**
   * Whether rule `rank` matches `path`, the path of the last beginCheck: MATCHES, FAILS, or
   * QUEUED when the walk of its pieces waits for walkQueued, which the caller then runs before
   * it goes on to another path or another index. The rule's pattern starts at `position` (as
   * ruleStart gives it), its match part has `length` characters (no final `$` or trailing `*`),
   * and it is `anchored` when a `$` ends it.
   */
  matches(
    data: RobotsData,
    rank: number,
    position: number,
    length: number,
    anchored: boolean,
    path: string,
  ): number {
    const patterns = chunkOf(data, position);
    const start = position & CHUNK_MASK;
    // The literal prefix, up to the first `*`: most rules fail on its first octets.
    let s = 0;
    for (; s < length; s++) {
      const c = patterns.charCodeAt(start + s);
      if (c === 42 /* * */) break;
      if (path.charCodeAt(s) !== c) return FAILS;
    }
    const j = this.#offsets[rank];
    let end = this.#offsets[rank + 1];
    if (j === end) return !anchored || s === path.length ? MATCHES : FAILS;
    let limit = path.length;
    if (anchored) {
      // The last piece must end the path: a cheap test that settles most anchored rules.
      end -= 1;
      limit = this.#anchoredLimit(data, end, s, path);
      if (limit < 0) return FAILS;
    }
    // The engine searches a path this long, piece after piece.
    if (path.length > ROW_PATH_LIMIT) return this.#searchPieces(data, j, end, s, limit, path);
    if (j === end) return s <= limit ? MATCHES : FAILS;
    const walk = walker();
    const k = walk === null ? 0 : walk.queued;
    if (
      walk === null ||
      !walk.path(path, check) ||
      (k === 0 && !walk.load(this.#serial, () => this.#source(data)))
    ) {
      if (codesOf !== check) readPath(path);
      return this.#walkRows(data, j, end, s, limit, path) ? MATCHES : FAILS;
    }
    queuedRanks[k] = rank;
    queuedEnds[k] = end;
    queuedLimits[k] = limit;
    // The walk reads every step to the rule's end: an anchored rule's last piece too, which it
    // then finds where it ends the path, found there above, unless the pieces before it run past.
    walk.queue(j + rank + 1, s, rank);
    return QUEUED;
  }

  /*
   * The parts of matches that few checks reach are methods of their own: matches runs for every
   * candidate rule, and its optimized code was ready only after the first checks of a file of
   * hundreds of wildcard rules had run it unoptimized, when its rare parts were in it (the
   * optimizing compiler took 29 ms over it on a busy 2-core machine).
   */

  /**
   * For an anchored rule whose last step is `steps[last]`: where its last piece must start, the
   * pieces before it ending at or before, found from the path's end, or -1 when the path does not
   * end with that piece (or not past `s`).
   */
  #anchoredLimit(data: RobotsData, last: number, s: number, path: string): number {
    const step = this.#steps[last];
    if ((step & STEP_RUN) !== 0) {
      // One character (a rule's last step is one piece).
      const limit = path.length - 1;
      return limit < s || path.charCodeAt(limit) !== (step & STEP_ROW) ? -1 : limit;
    }
    const id = step >>> STEP_SHIFT;
    const length = this.#lengths[id];
    const limit = path.length - length;
    const at = this.#positions[id];
    return limit < s || !regionMatches(path, limit, chunkOf(data, at), at & CHUNK_MASK, length) ? -1 : limit;
  }

  /** Steps `[j, end)` of a rule matched from place `s` by the engine's search of `path`, a path too long for rows. */
  #searchPieces(data: RobotsData, j: number, end: number, s: number, limit: number, path: string): number {
    const steps = this.#steps;
    const lengths = this.#lengths;
    for (; j < end; j++) {
      const step = steps[j];
      if ((step & STEP_RUN) !== 0) {
        const run = (step & STEP_ROW) === RUN_ROW;
        const character = String.fromCharCode(run ? (step >>> STEP_SHIFT) & 127 : step & STEP_ROW);
        for (let k = run ? step >>> RUN_SHIFT : 1; k > 0; k--) {
          const found = path.indexOf(character, s);
          if (found < 0) return FAILS;
          s = found + 1;
        }
        continue;
      }
      const id = step >>> STEP_SHIFT;
      const found = this.#find(data, id, path, s);
      if (found < 0) return FAILS;
      s = found + lengths[id];
    }
    return s <= limit ? MATCHES : FAILS;
  }

  /**
   * Walks the rules `matches` queued, in the order queued: the index of the first that matches
   * `path`, the path they were queued for, or -1. A step the walk leaves (a piece past ROW_HOPS
   * false starts, which the engine searches for, or a piece with no row) is taken here, as the
   * JavaScript walk takes it, and the rules that go on are walked again, together.
   */
  walkQueued(data: RobotsData, path: string): number {
    const walk = walker()!;
    const count = walk.queued;
    for (let k = 0; k < count; k++) walkedAs[k] = k;
    let walked = count;
    for (;;) {
      walk.run();
      // Where the walk stopped matters only for a rule it left: read for those alone.
      for (let a = 0; a < walked; a++) {
        const k = walkedAs[a];
        const status = walk.statusOf(a);
        statuses[k] = status;
        if (status !== WALK_LEFT) continue;
        stepsAt[k] = walk.stepOf(a) - queuedRanks[k] - 1;
        places[k] = walk.placeOf(a);
      }
      let first = 0;
      while (first < count && statuses[first] === WALK_FAILED) first++;
      if (first === count) return -1;
      if (statuses[first] === WALK_MATCHED) return first;
      // The rules left, in order up to the first that matched, a few at a time: one of them
      // may match, and settle the check, before the rest need their steps taken.
      walked = 0;
      let taken = 0;
      for (let k = first; k < count && taken < LEFT_AT_ONCE && statuses[k] !== WALK_MATCHED; k++) {
        if (statuses[k] !== WALK_LEFT) continue;
        taken++;
        const j = stepsAt[k];
        let s = places[k];
        // An anchored rule's last piece was found where it ends the path (see matches).
        if (j < queuedEnds[k]) {
          if (codesOf !== check) readPath(path);
          s = this.#stepOffRows(data, this.#steps[j], s, path);
        }
        if (s >= 0 && j + 1 < queuedEnds[k]) {
          walkedAs[walked++] = k;
          walk.queue(j + 1 + queuedRanks[k] + 1, s, queuedRanks[k]);
        } else {
          statuses[k] = s >= 0 && s <= queuedLimits[k] ? WALK_MATCHED : WALK_FAILED;
          // The rules after it do not count.
          if (statuses[k] === WALK_MATCHED) break;
        }
      }
    }
  }

  /** Copies these sequences for the walk now, if it can run, so that their first check does not. */
  prepareWalk(data: RobotsData): void {
    walker()?.load(this.#serial, () => this.#source(data));
  }

  /** What the walk copies of these sequences (see walk.ts). */
  #source(data: RobotsData): WalkSource {
    const positions = this.#positions;
    const lengths = this.#lengths;
    return {
      offsets: this.#offsets,
      steps: this.#steps,
      seconds: this.#seconds,
      lengths,
      writeText(id, out, at) {
        const patterns = chunkOf(data, positions[id]);
        const start = positions[id] & CHUNK_MASK;
        for (let i = 0; i < lengths[id]; i++) {
          const c = patterns.charCodeAt(start + i);
          out[at + i] = c < 128 ? c : 0xff;
        }
      },
    };
  }

  /**
   * Whether the pieces of `steps[j, end)` follow one another in `path` from `s`, the last ending
   * by `limit`: each found through the row of its first character (see rows).
   */
  #walkRows(data: RobotsData, j: number, end: number, s: number, limit: number, path: string): boolean {
    const steps = this.#steps;
    const lengths = this.#lengths;
    const seconds = this.#seconds;
    const text = pathCodes;
    const starts = rowStarts;
    let table = rowTable;
    for (; j < end; j++) {
      const step = steps[j];
      let row = starts[step & STEP_ROW];
      if (row < 0) {
        if ((step & STEP_ROW) >= NO_ROW) {
          s = this.#stepOffRows(data, step, s, path);
          if (s < 0) return false;
          // A run builds rows too, and may have moved them to a larger table.
          table = rowTable;
          continue;
        }
        row = buildRow(step & STEP_ROW, path.length);
        table = rowTable;
      }
      let found = table[row + s];
      if (found === NONE) return false;
      let length = 1;
      if ((step & STEP_RUN) === 0) {
        // Most pieces are where the row first leads; past a few false starts the engine
        // searches: `ab` in a path of `a`s finds an `a` everywhere.
        const id = step >>> STEP_SHIFT;
        const second = seconds[id];
        length = lengths[id];
        let hops = 0;
        while (text[found + 1] !== second || (length > 2 && !this.#startsAt(data, id, path, found))) {
          if (++hops > ROW_HOPS) {
            found = this.#find(data, id, path, found + 1);
            if (found < 0) return false;
            break;
          }
          found = table[row + found + 1];
          if (found === NONE) return false;
        }
      }
      s = found + length;
    }
    return s <= limit;
  }

  /**
   * Where step `step`, a run or a piece with no row, ends when taken from `s` in `path`; -1 when
   * it cannot be.
   */
  #stepOffRows(data: RobotsData, step: number, s: number, path: string): number {
    if ((step & STEP_ROW) === RUN_ROW) {
      // One past the k-th occurrence of the character from s (see buildRow).
      const code = (step >>> STEP_SHIFT) & 127;
      const n = path.length;
      let row = rowStarts[code];
      if (row < 0 || rowRanked[code] === 0) row = buildRow(code, n, 1);
      const table = rowTable;
      const first = table[row + s];
      if (first === NONE) return -1;
      const rank = table[ranksAt(row, n) + first] - ((step >>> RUN_SHIFT) - 1);
      return rank < 0 ? -1 : table[occurrencesAt(row, n, 1) + rank] + 1;
    }
    const id = step >>> STEP_SHIFT;
    const found = this.#find(data, id, path, s);
    return found < 0 ? -1 : found + this.#lengths[id];
  }

  /** The first index >= `from` where piece `id` occurs in `path`, or -1. */
  #find(data: RobotsData, id: number, path: string, from: number): number {
    const block = id * FIELDS;
    if (state[block + STAMP] !== check) this.#start(data, id, path);
    const first = state[block + FIRST];
    if (first >= from || first < 0) return first;
    const last = state[block + LAST];
    if (last !== UNKNOWN && last < from) return -1;
    const at = state[block + AT];
    if (state[block + FROM] <= from && (at < 0 || at >= from)) return at;
    const piece = pieces[id];
    const found = path.indexOf(piece, from);
    state[block + FROM] = from;
    state[block + AT] = found;
    // Nothing from here on: the last occurrence is before it, and settles every later start.
    if (found < 0 && last === UNKNOWN) state[block + LAST] = path.lastIndexOf(piece, from);
    return found;
  }

  /** Starts the block of piece `id` for the check under way. */
  #start(data: RobotsData, id: number, path: string): void {
    const block = id * FIELDS;
    const position = this.#positions[id];
    const start = position & CHUNK_MASK;
    const length = this.#lengths[id];
    let first = -1;
    // A piece known to be nowhere in the path is not sliced, nor searched for.
    if (!lacksWindow(this.#windows[id], length, path)) {
      const piece = chunkOf(data, position).slice(start, start + length);
      pieces[id] = piece;
      sliced = withRoom(sliced, slicedCount, slicedCount + 1);
      sliced[slicedCount++] = id;
      first = path.indexOf(piece);
    }
    state[block + STAMP] = check;
    state[block + FIRST] = first;
    state[block + LAST] = first < 0 ? -1 : UNKNOWN;
    state[block + FROM] = 0;
    state[block + AT] = first;
  }

  /** Whether piece `id` occurs in `path` at `at`, its first character known to be there. */
  #startsAt(data: RobotsData, id: number, path: string, at: number): boolean {
    const position = this.#positions[id];
    return regionMatches(
      path,
      at + 1,
      chunkOf(data, position),
      (position & CHUNK_MASK) + 1,
      this.#lengths[id] - 1,
    );
  }
}

/*
 * A check whose pieces are searched for by the engine, each along the whole path, and found
 * nowhere: rules filed under a start of their piece that the path holds (`/*abcdefgh<tail>`,
 * each with a tail of its own), or pieces of few letters against a path that holds most strings
 * of them. Past a few searches of pieces of one length, the walk's module hashes every window of
 * the path that long (a read of the path), and a piece whose hash no window has is not there:
 * one hash of the piece instead of a search. A window with the hash may still be another text:
 * the engine then searches. A path the module cannot take is searched.
 */
/** Searches of pieces of one length in a check before the windows of that length are hashed. */
const SEARCHES_BEFORE_WINDOWS = 4;
/** The base of the hash of a piece and of a window, odd, chosen by each process. */
const WINDOW_BASE = (Math.random() * 2 ** 32) | 1;
/**
 * By piece length, in the check `lengthChecks[length]`: the searches made (lengthSearches), and
 * where the set of window hashes starts in the module's memory, -1 for none yet (lengthSets).
 * Allocated by the first check that needs them, for paths up to ROW_PATH_LIMIT characters.
 */
let lengthChecks = new Int32Array(0);
let lengthSearches = new Int32Array(0);
let lengthSets = new Int32Array(0);
/** How many lengths the check under way has hashed windows of. */
let setsCount = 0;

/** The hash of `text[from, from + length)` as a window of a path (see lacksWindow). */
function windowHash(text: string, from: number, length: number): number {
  let hash = 0;
  for (let i = from; i < from + length; i++) hash = (Math.imul(hash, WINDOW_BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Whether no window of `length` characters of `path`, the path of the check under way, has
 * `hash` (see windowHash): a piece with that hash is not in the path. False when one may, for
 * the first searches of each length in a check, before its windows are hashed, and for a path
 * the walk's module cannot take.
 */
function lacksWindow(hash: number, length: number, path: string): boolean {
  const n = path.length;
  if (length < 2 || n > ROW_PATH_LIMIT) return false;
  if (length > n) return true;
  if (lengthChecks.length === 0) {
    lengthChecks = new Int32Array(ROW_PATH_LIMIT + 1);
    lengthSearches = new Int32Array(ROW_PATH_LIMIT + 1);
    lengthSets = new Int32Array(ROW_PATH_LIMIT + 1);
  }
  if (lengthChecks[length] !== check) {
    lengthChecks[length] = check;
    lengthSearches[length] = 0;
    lengthSets[length] = -1;
  }
  let set = lengthSets[length];
  const walk = walker();
  if (set < 0) {
    if (++lengthSearches[length] <= SEARCHES_BEFORE_WINDOWS || setsCount === WALK_WINDOW_SETS) return false;
    if (walk === null || !walk.path(path, check)) return false;
    set = walk.windows(length, WINDOW_BASE);
    lengthSets[length] = set;
    setsCount++;
  }
  const sets = walk!.ints;
  const key = hash | 1;
  const bits = sets[set];
  const mask = (1 << bits) - 1;
  for (let slot = Math.imul(hash, WALK_SLOT_FACTOR) >>> (32 - bits); ; slot = (slot + 1) & mask) {
    const held = sets[set + 1 + slot];
    if (held === key) return false;
    if (held === 0) return true;
  }
}

/**
 * Builds the row of character `code` (see rows) for the path of the check under way, of `n`
 * characters, and says where it starts in rowTable. After the row come, for runs, the rank of
 * each occurrence counted from the last, at its position (`ranked` 1: n of them, read only
 * there; 0: one place written over and over), then the occurrences from the last back. One
 * loop, with no branch of its own for runs, which every check with rows runs: a check with runs
 * would otherwise be the first to reach code of theirs, and run it uncompiled. Ranks only for
 * runs: the rows of an 8 KB path of 25 letters take 430 KB without them and 840 KB with them,
 * memory that the first such check of a process is the first to touch, at about 12 µs a page
 * of 4 KiB on some machines (that check took 8-26 ms in a worker with them, 4-13 ms without).
 */
function buildRow(code: number, n: number, ranked = 0): number {
  const at = rowTableUsed;
  const ranks = ranksAt(at, n);
  const occurrences = occurrencesAt(at, n, ranked);
  rowTable = withRoom(rowTable, at, occurrences + n);
  const table = rowTable;
  let next = NONE;
  let count = 0;
  table[at + n] = NONE;
  for (let i = n - 1; i >= 0; i--) {
    if (pathCodes[i] === code) {
      next = i;
      table[ranks + i * ranked] = count;
      table[occurrences + count++] = i;
    }
    table[at + i] = next;
  }
  rowStarts[code] = at;
  rowRanked[code] = ranked;
  rowTableUsed = occurrences + count;
  return at;
}

/** Where the ranks of the row at `row` start, for a path of `n` characters (see buildRow). */
function ranksAt(row: number, n: number): number {
  return row + n + 1;
}

/** Where the occurrences of the row at `row` start: after n ranks, or the one place they take when the row has none. */
function occurrencesAt(row: number, n: number, ranked: number): number {
  return ranksAt(row, n) + n * ranked + 1;
}

/**
 * `table` if it holds `needed` elements, else a larger copy of its first `used`: the tables a
 * check fills one after another grow to the largest check and stay.
 */
function withRoom<T extends Int32Array | Uint16Array>(table: T, used: number, needed: number): T {
  if (table.length >= needed) return table;
  const grown = new (table.constructor as new (size: number) => T)(Math.max(needed, table.length * 2));
  grown.set(table.subarray(0, used));
  return grown;
}
