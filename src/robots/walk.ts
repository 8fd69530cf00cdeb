/**
 * The WebAssembly walk of piece sequences (see sequences.ts, and scripts/build-walk.mjs for the
 * module): one instance per process, made on first use. Its memory holds the path of the check
 * under way, the rows of that path and the sets of the hashes of its windows, a batch of rules to
 * walk and their results, and an arena of copies of the PieceSequences walked lately: their steps
 * in the walk's form and, for pieces longer than two characters, their lengths and texts.
 *
 * The module's code makes no guesses from what ran before: a rule of one-character pieces walks
 * at the same speed whether or not the process met one before, where the same loop in
 * JavaScript, compiled for the pieces of the files checked so far, ran uncompiled for the rest
 * of the check after its first piece of a kind it had not met.
 */

import {
  WALK_ARENA,
  WALK_BATCH,
  WALK_BATCH_LIMIT,
  WALK_MEMORY_BYTES,
  WALK_MODULE,
  WALK_PATH,
  WALK_PATH_LIMIT,
  WALK_RESULTS,
} from './walk-code.js';

interface WalkExports {
  memory: WebAssembly.Memory;
  init(): void;
  convert(steps: number, rules: number, offsets: number, seconds: number, lengths: number): void;
  use(lib: number, lengths: number, texts: number): void;
  begin(n: number): void;
  walk(count: number, steps: number): void;
  windows(length: number, base: number): number;
}

/** What the walk copies of a PieceSequences (see sequences.ts). */
export interface WalkSource {
  /** By rule, where its steps start; one more ends the last. */
  offsets: Int32Array;
  steps: Int32Array;
  /** By piece id: its second character and its length. */
  seconds: Uint16Array;
  lengths: Int32Array;
  /** Writes the text of piece `id` into `out` at `at`: ASCII as it is, 0xFF (which no path has) for the rest. */
  writeText(id: number, out: Uint8Array, at: number): void;
}

/** Where a copy of sequences is in the arena, in bytes (see scripts/build-walk.mjs: ARENA). */
interface Region {
  steps: number;
  lib: number;
  lengths: number;
  texts: number;
}

const encoder = new TextEncoder();

/** Layout values as locals of this module, read in its loops. */
const PATH = WALK_PATH;
const BATCH = WALK_BATCH >>> 2;
const RESULTS = WALK_RESULTS >>> 2;
const ARENA = WALK_ARENA;
/** The most rules one walk takes. */
export const BATCH_LIMIT = WALK_BATCH_LIMIT;

/** The walk's module and the views of its memory. */
export class Walk {
  readonly #exports: WalkExports;
  /** Views of the memory, which never grows (see scripts/build-walk.mjs). */
  readonly #bytes: Uint8Array;
  readonly #ints: Int32Array;
  /** The copies in the arena by the serial of their sequences, where the next one goes, and the one walked. */
  readonly #regions = new Map<number, Region>();
  #arenaEnd = ARENA;
  #steps = 0;
  /** The check whose path the memory holds, and whether the walk can take it. */
  #pathCheck = 0;
  #pathWalkable = false;
  #queued = 0;

  constructor(exports: WalkExports) {
    this.#exports = exports;
    exports.init();
    this.#bytes = new Uint8Array(exports.memory.buffer);
    this.#ints = new Int32Array(exports.memory.buffer);
  }

  /**
   * Puts `path` in memory for check `check`, once a check; false when the walk cannot take it:
   * longer than WALK_PATH_LIMIT, a character outside ASCII (a normalised path has none), or a 0
   * (which ends the module's comparisons).
   */
  path(path: string, check: number): boolean {
    if (this.#pathCheck === check) return this.#pathWalkable;
    this.#pathCheck = check;
    this.#pathWalkable = false;
    const n = path.length;
    if (n > WALK_PATH_LIMIT) return false;
    // A character outside ASCII takes more than one octet: all n are read into n octets only
    // when there is none.
    const octets = this.#bytes.subarray(PATH, PATH + n + 1);
    const { read, written } = encoder.encodeInto(path, octets);
    if (read !== n || written !== n) return false;
    octets[n] = 0;
    if (octets.indexOf(0) !== n) return false;
    this.#exports.begin(n);
    this.#pathWalkable = true;
    return true;
  }

  /**
   * Makes the sequences numbered `serial`, which `source` gives, those the next walks read,
   * copying them into the arena unless a copy is there. Step j of rule `rank` is step
   * `j + rank + 1` of the walk: the walk's first step is the parked lanes', and each rule's steps
   * are followed by an end step. False when the copy is larger than the arena (a group of a
   * file read past the usual 500 KiB): the caller then walks in JavaScript.
   */
  load(serial: number, source: () => WalkSource): boolean {
    const region = this.#regions.get(serial) ?? this.#copy(serial, source());
    if (region === null) return false;
    this.#steps = region.steps;
    this.#exports.use(region.lib, region.lengths, region.texts);
    return true;
  }

  /**
   * Copies `source` to the arena's end, or to its start when the arena is full (the copies of
   * sequences that are gone, or not walked lately, are then dropped); null when the empty arena
   * cannot hold it.
   */
  #copy(serial: number, { offsets, steps, seconds, lengths, writeText }: WalkSource): Region | null {
    const rules = offsets.length - 1;
    const ids = lengths.length;
    let long = false;
    let textBytes = 0;
    for (let id = 0; id < ids; id++) {
      if (lengths[id] > 2) {
        long = true;
        textBytes += lengths[id];
      }
    }
    // In ints: the walk's steps, then for pieces longer than two characters (which the walk
    // compares past their second) the steps as they are, and by id the lengths and the texts'
    // addresses, then the texts. After them, for the conversion only, the rules' offsets and by
    // id the second characters and the lengths.
    const size = steps.length + rules + 1 + (long ? steps.length + 2 * ids + ((textBytes + 3) >>> 2) : 0);
    const bytes = 4 * (size + offsets.length + ((ids + 1) >>> 1) + ids);
    if (this.#arenaEnd + bytes > WALK_MEMORY_BYTES) {
      this.#regions.clear();
      this.#arenaEnd = ARENA;
      if (ARENA + bytes > WALK_MEMORY_BYTES) return null;
    }
    const at = this.#arenaEnd >>> 2;
    const libAt = at + steps.length + rules + 1;
    const lengthsAt = libAt + steps.length;
    const textsAt = lengthsAt + ids;
    const offsetsAt = at + size;
    const secondsAt = offsetsAt + offsets.length;
    const lengthsCopy = secondsAt + ((ids + 1) >>> 1);
    const ints = this.#ints;
    ints.set(steps, at + 1);
    ints.set(offsets, offsetsAt);
    ints.set(lengths, lengthsCopy);
    new Uint16Array(this.#exports.memory.buffer, 4 * secondsAt, ids).set(seconds);
    const region: Region = { steps: 4 * at, lib: 0, lengths: 0, texts: 0 };
    if (long) {
      ints.set(steps, libAt);
      ints.set(lengths, lengthsAt);
      let text = 4 * (textsAt + ids);
      for (let id = 0; id < ids; id++) {
        if (lengths[id] <= 2) continue;
        ints[textsAt + id] = text;
        writeText(id, this.#bytes, text);
        text += lengths[id];
      }
      region.lib = 4 * libAt;
      region.lengths = 4 * lengthsAt;
      region.texts = 4 * textsAt;
    }
    this.#exports.convert(4 * at, rules, 4 * offsetsAt, 4 * secondsAt, 4 * lengthsCopy);
    this.#arenaEnd = 4 * (at + size);
    this.#regions.set(serial, region);
    return region;
  }

  /**
   * A set of the hashes of the windows of `length` characters (2 up to its length) of the path
   * of the check under way, the hash of a text being the sum of its characters each times `base`
   * to the power of the characters after it, wrapping at 32 bits. Says where the set starts in
   * `ints`: its log2 size, then its slots by the high bits of the hash times WALK_SLOT_FACTOR,
   * each the hash with its low bit set, or 0; a hash not found before a 0 is no window's. At
   * most WALK_WINDOW_SETS sets a path.
   */
  windows(length: number, base: number): number {
    return this.#exports.windows(length, base) >>> 2;
  }

  /** The module's memory as ints, for reading the sets of windows. */
  get ints(): Int32Array {
    return this.#ints;
  }

  /** How many rules wait for the next walk. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Drops the rules queued: a check that stopped part way leaves none to the next. With
   * `path`, also forgets the path held, for a count of checks that starts again.
   */
  discard(path = false): void {
    this.#queued = 0;
    if (path) this.#pathCheck = 0;
  }

  /** Queues rule `rank` from its step `j` (of the walk) and place `s`; at most BATCH_LIMIT. */
  queue(j: number, s: number, rank: number): void {
    const at = BATCH + 3 * this.#queued++;
    this.#ints[at] = j;
    this.#ints[at + 1] = s;
    this.#ints[at + 2] = rank;
  }

  /** Walks the queued rules; rule k's result is then read by statusOf(k), stepOf(k) and placeOf(k). */
  run(): void {
    this.#exports.walk(this.#queued, this.#steps);
    this.#queued = 0;
  }

  /** WALK_FAILED, WALK_MATCHED or WALK_LEFT. */
  statusOf(k: number): number {
    return this.#ints[RESULTS + 3 * k];
  }

  /** The step (of the walk) where the walk of rule k stopped, and its place in the path. */
  stepOf(k: number): number {
    return this.#ints[RESULTS + 3 * k + 1];
  }

  placeOf(k: number): number {
    return this.#ints[RESULTS + 3 * k + 2];
  }
}

let walk: Walk | null | undefined;

/** The walk, made on first use; null where WebAssembly cannot run the module. */
export function walker(): Walk | null {
  if (walk !== undefined) return walk;
  try {
    const bytes = Uint8Array.from(atob(WALK_MODULE), (c) => c.charCodeAt(0));
    const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports;
    walk = new Walk(exports as unknown as WalkExports);
  } catch {
    walk = null;
  }
  return walk;
}
