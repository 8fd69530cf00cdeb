/**
 * Writes src/robots/walk-code.ts: the WebAssembly module that walks the piece sequences of
 * wildcard rules along a path (see src/robots/walk.ts), assembled with wabt from the text
 * below. `node scripts/build-walk.mjs --check` exits 1 when the file is not what this script
 * writes, for a test to run.
 *
 * The walk takes rules four at a time, one lane each, and moves every lane a step a round: a
 * step of one rule waits on a read of a row its last step chose, and four independent reads
 * are under way at once where one rule's reads come one after another. A lane's usual step has
 * no branch the processor can guess wrong: whether the piece is where its row leads, and so
 * whether the rule moves on to its next piece or looks past a false start, is a select.
 * Everything else (a row not yet built, the end of a rule, a piece longer than two characters
 * to compare, too many false starts, a step the walk leaves to the caller) leaves the loop of
 * rounds for `rare`, which takes that lane's step with branches, its state in memory.
 *
 * Memory, in bytes (walk.ts reads the same values from walk-code.ts):
 * - PATH: the path, of at most PATH_LIMIT characters, ASCII, then a 0;
 * - ROW_STARTS: by row selector (a step's low 8 bits), the address of its row;
 * - UNBUILT, ESCAPE, END: rows whose every entry says so, for characters whose row is not built,
 *   for steps left to the caller, and for the step after a rule's last;
 * - ZERO: a row of zeros, read by parked lanes (see load);
 * - LANES: by lane, its step, its place in the path, its false starts, its rule in the batch;
 * - BATCH: by rule of the batch, its first step and its start in the path;
 * - RESULTS: by rule of the batch, its status, and the step and place where its walk stopped;
 * - RANK_STARTS: by character, where the ranks of its places start (0: not built), for runs;
 * - ROWS: the rows of the path, built as steps need them, and the ranks and places of the
 *   characters of runs;
 * - PREFIXES: by i, the hash of the path's first i characters, for the sets of windows;
 * - SETS: the sets of the hashes of the path's windows of a length, built as the caller asks
 *   (see windows), at most WINDOW_SETS of them a path;
 * - ARENA: the sequences walked lately (see walk.ts), each its steps in the walk's form, then,
 *   where it has pieces longer than two characters, its steps as the caller has them, and by
 *   piece id the lengths and the addresses of the texts, then those texts; ARENA_BYTES of them.
 *
 * The memory has its whole size from the start and cannot grow. Growing it would detach its
 * buffer, and the first buffer detached in a process has V8 throw away all the optimized code
 * that reads typed arrays, then compile it again with a check of every array for a detached
 * buffer: the copy of the first large wildcard group made most of the parser and the matcher
 * start over. Pages never written cost no memory.
 */
import { assemble, base64, writeOrCheck } from './wasm.mjs';

const PATH_LIMIT = 16 * 1024;
/** Rules walked side by side, and the most rules one walk takes. */
const LANE_COUNT = 4;
const BATCH_LIMIT = 64;
/**
 * False starts of one piece before the walk leaves it to the caller, which has the engine search
 * for it and remembers what it found (see sequences.ts). A false start costs the walk a few
 * nanoseconds, and leaving a piece to the caller about a microsecond: three times the caller's
 * own ROW_HOPS. With rules of two-letter pieces strewn along a path (the bench's case u3), 8 left
 * 87 pieces a check to the caller, 24 none.
 */
const ROW_HOPS = 24;

const ROW_BYTES = (PATH_LIMIT + 1) * 2;
/**
 * Sets of windows a path has at most, and the bytes of the largest: its log2 size, then its
 * slots, at least four for each window (see windows), 2^16 for a path of PATH_LIMIT characters.
 */
const WINDOW_SETS = 32;
const SET_BYTES = 4 + 4 * 2 ** Math.ceil(Math.log2(4 * PATH_LIMIT));
/** Spreads a hash over the slots of a set of windows, by the high bits of the product. */
const WINDOW_SLOT_FACTOR = 0x9e3779b1 | 0;
const align = (n) => (n + 63) & ~63;
const layout = {};
layout.PATH = 0;
layout.ROW_STARTS = align(PATH_LIMIT + 1);
layout.UNBUILT = align(layout.ROW_STARTS + 256 * 4);
layout.ESCAPE = align(layout.UNBUILT + ROW_BYTES);
layout.END = align(layout.ESCAPE + ROW_BYTES);
layout.ZERO = align(layout.END + ROW_BYTES);
layout.LANES = layout.ZERO + 64;
layout.BATCH = align(layout.LANES + LANE_COUNT * 32);
layout.RESULTS = align(layout.BATCH + BATCH_LIMIT * 12);
layout.RANK_STARTS = align(layout.RESULTS + BATCH_LIMIT * 12);
layout.ROWS = align(layout.RANK_STARTS + 128 * 4);
// A row, and for a run's character its ranks and places too: at most three rows' room each, and
// up to 15 bytes before the row to start it at a multiple of 16.
layout.PREFIXES = align(layout.ROWS + 128 * (3 * ROW_BYTES + 16));
layout.SETS = align(layout.PREFIXES + (PATH_LIMIT + 1) * 4);
layout.ARENA = align(layout.SETS + WINDOW_SETS * SET_BYTES);
/**
 * Bytes of copies the arena holds. A copy takes some 8 bytes a step, plus the arrays the
 * conversion reads after it: the largest group a file of 500 KiB can have takes a few MiB.
 */
const ARENA_BYTES = 32 * 1024 * 1024;
const PAGES = Math.ceil((layout.ARENA + ARENA_BYTES) / 65536);

/** A rule's status in RESULTS. */
const status = { FAILED: 0, MATCHED: 1, LEFT: 2 };
/** Row entries past any position: no occurrence from here on, and the three rows of their own. */
const NONE = 0xffff;
const UNBUILT = 0xfffe;
const ESCAPE = 0xfffd;
const END = 0xfffc;
/** Row selectors of steps with no row of a character: left to the caller, and a rule's end. */
const ESCAPE_ROW = 128;
const RUN_ROW = 129;
/** Bytes of ROWS that init writes once (see init). */
const ROWS_TOUCHED = 2 * 1024 * 1024;
const END_ROW = 255;
/** A step's bits above its row selector for a piece of one character: no second character, length 1. */
const SIMPLE = 1 << 16;

const i32 = (n) => `(i32.const ${n})`;
const get = (name) => `(local.get $${name})`;
const set = (name, value) => `(local.set $${name} ${value})`;
/** A lane's fields: its step, place and false starts, its rule in the batch and that rule's rank. */
const field = { j: 0, s: 4, h: 8, slot: 12, rank: 16 };
const laneLoad = (lane, name) => `(i32.load offset=${layout.LANES + field[name]} ${lane})`;
const laneStore = (lane, name, value) => `(i32.store offset=${layout.LANES + field[name]} ${lane} ${value})`;
/** The entry of the row of `selector` at place `s`. */
const rowAt = (selector, s) =>
  `(i32.load16_u (i32.add (i32.load offset=${layout.ROW_STARTS} (i32.shl ${selector} ${i32(2)})) (i32.shl ${s} ${i32(1)})))`;

/**
 * The usual step of lane k, its state in locals. A step is its row selector (its piece's first
 * character, or ESCAPE_ROW, or END_ROW), its piece's second character above 8 bits (0 for a
 * piece of one, 255 for one no path has), and above 16 bits how far a match moves on: 1 or 2
 * for a piece of that length, 0 for a longer one, which `rare` compares.
 */
const lane = (k) => `
      ${set('step', `(i32.load (i32.add ${get('steps')} (i32.shl ${get(`j${k}`)} ${i32(2)})))`)}
      ${set('found', rowAt(`(i32.and ${get('step')} ${i32(255)})`, get(`s${k}`)))}
      ${set('second', `(i32.and (i32.shr_u ${get('step')} ${i32(8)}) ${i32(255)})`)}
      ${set('length', `(i32.shr_u ${get('step')} ${i32(16)})`)}
      ${set('ok', `(i32.or (i32.eqz ${get('second')}) (i32.eq (i32.load8_u offset=${layout.PATH + 1} ${get('found')}) ${get('second')}))`)}
      (if
        (i32.or
          (i32.ge_u ${get('found')} ${i32(END)})
          (select (i32.eqz ${get('length')}) (i32.ge_s ${get(`h${k}`)} ${i32(ROW_HOPS)}) ${get('ok')}))
        (then ${set('which', i32(k))} (br $rare)))
      ${set(`s${k}`, `(i32.add ${get('found')} (select ${get('length')} ${i32(1)} ${get('ok')}))`)}
      ${set(`j${k}`, `(i32.add ${get(`j${k}`)} ${get('ok')})`)}
      ${set(`h${k}`, `(select ${i32(0)} (i32.add ${get(`h${k}`)} ${i32(1)}) ${get('ok')})`)}`;

/**
 * The step of lane k in the loop of one-character pieces: a piece of one character with a row is
 * found where its row leads, with nothing to compare and no false start, so the step is its row's
 * entry alone. Any other step, and any entry that is no place, leaves that loop for the usual one
 * before the lane moves.
 */
const simpleLane = (k) => `
      ${set('step', `(i32.load (i32.add ${get('steps')} (i32.shl ${get(`j${k}`)} ${i32(2)})))`)}
      ${set('found', rowAt(`(i32.and ${get('step')} ${i32(255)})`, get(`s${k}`)))}
      (br_if $usual
        (i32.or (i32.ge_u ${get('found')} ${i32(END)}) (i32.ne (i32.and ${get('step')} ${i32(-256)}) ${i32(SIMPLE)})))
      ${set(`s${k}`, `(i32.add ${get('found')} ${i32(1)})`)}
      ${set(`j${k}`, `(i32.add ${get(`j${k}`)} ${i32(1)})`)}`;

/** By lane of half `half` (low or high) of a block at place i, its place where c is there, NONE elsewhere. */
const placesOf = (half, first) =>
  `(v128.or (i16x8.extend_${half}_i8x16_s (v128.not ${get('block')})) (i16x8.add (v128.const i16x8 ${Array.from({ length: 8 }, (_, k) => first + k).join(' ')}) (i16x8.splat ${get('i')})))`;
/** Each lane of local `name` (eight of 16 bits) made the minimum of itself and the lanes above it. */
const suffixMin = (name) =>
  [1, 2, 4]
    .map((by) => {
      const lanes = Array.from({ length: 16 }, (_, b) => 2 * by + b).join(' ');
      return set(
        name,
        `(i16x8.min_u ${get(name)} (i8x16.shuffle ${lanes} ${get(name)} (v128.const i32x4 -1 -1 -1 -1)))`,
      );
    })
    .join(' ');
/** The first lane of local `name` (of 16 bits) in all eight. */
const firstLane = (name) => `(i8x16.shuffle ${'0 1 '.repeat(8).trim()} ${get(name)} ${get(name)})`;

const lanes = Array.from({ length: LANE_COUNT }, (_, k) => k);
const toLocals = (k) =>
  ['j', 's', 'h'].map((name) => set(`${name}${k}`, laneLoad(i32(k * 32), name))).join(' ');
const toMemory = (k) =>
  ['j', 's', 'h'].map((name) => laneStore(i32(k * 32), name, get(`${name}${k}`))).join(' ');

const wat = `(module
  (memory (export "memory") ${PAGES} ${PAGES})
  ;; Where the arrays of the sequences walked are (see use), and the steps of the walk under way.
  (global $lib (mut i32) ${i32(0)})
  (global $lengths (mut i32) ${i32(0)})
  (global $texts (mut i32) ${i32(0)})
  (global $steps (mut i32) ${i32(0)})
  ;; The path's length, where the next row goes, the rules of the batch, the next to start, and
  ;; how many lanes have one.
  (global $n (mut i32) ${i32(0)})
  (global $rowsEnd (mut i32) ${i32(layout.ROWS)})
  (global $count (mut i32) ${i32(0)})
  (global $next (mut i32) ${i32(0)})
  (global $live (mut i32) ${i32(0)})
  ;; Where the next set of windows goes, and whether PREFIXES holds the path's (see windows).
  (global $setsEnd (mut i32) ${i32(layout.SETS)})
  (global $prefixed (mut i32) ${i32(0)})

  ;; Fills the rows of their own, and points the selectors that have no row of a character at them.
  (func (export "init")
    (local $i i32)
    (loop $fill
      (i32.store16 offset=${layout.UNBUILT} (i32.shl ${get('i')} ${i32(1)}) ${i32(UNBUILT)})
      (i32.store16 offset=${layout.ESCAPE} (i32.shl ${get('i')} ${i32(1)}) ${i32(ESCAPE)})
      (i32.store16 offset=${layout.END} (i32.shl ${get('i')} ${i32(1)}) ${i32(END)})
      ${set('i', `(i32.add ${get('i')} ${i32(1)})`)}
      (br_if $fill (i32.le_u ${get('i')} ${i32(PATH_LIMIT)})))
    ${set('i', i32(ESCAPE_ROW))}
    (loop $escapes
      (i32.store offset=${layout.ROW_STARTS} (i32.shl ${get('i')} ${i32(2)}) ${i32(layout.ESCAPE)})
      ${set('i', `(i32.add ${get('i')} ${i32(1)})`)}
      (br_if $escapes (i32.lt_u ${get('i')} ${i32(END_ROW)})))
    (i32.store offset=${layout.ROW_STARTS + END_ROW * 4} ${i32(0)} ${i32(layout.END)})
    ;; Touches the first 2 MiB of the rows once: the tables of a path of 8 KB for 64 characters.
    ;; The first write to a page of memory costs far more than the next (12 us a page of 4 KiB on
    ;; some machines), and the first check with a long path would pay for every page it fills.
    (memory.fill ${i32(layout.ROWS)} ${i32(0)} ${i32(ROWS_TOUCHED)}))

  ;; Writes the steps of sequences in the walk's form at steps, where the caller copied them as
  ;; it has them from steps + 4 on; the offsets of their rules' steps (rules + 1 of them), and by
  ;; piece id its second character (16 bits) and its length, are at the addresses given. Step j
  ;; of rule r goes to j + r + 1, after the parked lanes' step, and each rule's steps are followed
  ;; by an end step; read from the last, no step is written over before it is read. The parked
  ;; lanes' step reads the row of character 0, which no other step reads and which leads to 0
  ;; from 0 and 1, and wants a second character no path has: it never matches, and keeps the lane
  ;; at place 1; the lane's false starts begin at -2^30, which no walk brings to ROW_HOPS.
  (func (export "convert") (param $steps i32) (param $rules i32) (param $offsets i32) (param $seconds i32)
    (param $lengths i32)
    (local $r i32) (local $j i32) (local $first i32) (local $step i32) (local $row i32) (local $id i32)
    (local $second i32)
    ${set('r', get('rules'))}
    (block $done
      (loop $rule
        (br_if $done (i32.eqz ${get('r')}))
        ${set('r', `(i32.sub ${get('r')} ${i32(1)})`)}
        ${set('first', `(i32.load (i32.add ${get('offsets')} (i32.shl ${get('r')} ${i32(2)})))`)}
        ${set('j', `(i32.load (i32.add ${get('offsets')} (i32.shl (i32.add ${get('r')} ${i32(1)}) ${i32(2)})))`)}
        (i32.store (i32.add ${get('steps')} (i32.shl (i32.add (i32.add ${get('j')} ${get('r')}) ${i32(1)}) ${i32(2)})) ${i32(END_ROW)})
        (block $stepsDone
          (loop $back
            (br_if $stepsDone (i32.le_u ${get('j')} ${get('first')}))
            ${set('j', `(i32.sub ${get('j')} ${i32(1)})`)}
            ${set('step', `(i32.load offset=4 (i32.add ${get('steps')} (i32.shl ${get('j')} ${i32(2)})))`)}
            ${set('row', `(i32.and ${get('step')} ${i32(255)})`)}
            (i32.store (i32.add ${get('steps')} (i32.shl (i32.add (i32.add ${get('j')} ${get('r')}) ${i32(1)}) ${i32(2)}))
              (if (result i32) (i32.ge_u ${get('row')} ${i32(128)})
                ;; A run: RUN_ROW, its character, its count; a piece with no row: left to the caller.
                (then
                  (if (result i32) (i32.eq ${get('row')} ${i32(129)})
                    (then
                      (i32.or (i32.or ${i32(RUN_ROW)} (i32.shl (i32.and (i32.shr_u ${get('step')} ${i32(10)}) ${i32(127)}) ${i32(8)}))
                        (i32.shl (i32.shr_u ${get('step')} ${i32(17)}) ${i32(16)})))
                    (else ${i32(ESCAPE_ROW)})))
                (else
                  (if (result i32) (i32.and ${get('step')} ${i32(0x100)})
                    (then (i32.or ${get('row')} ${i32(1 << 16)}))
                    (else
                      ${set('id', `(i32.shr_u ${get('step')} ${i32(10)})`)}
                      ${set('second', `(i32.load16_u (i32.add ${get('seconds')} (i32.shl ${get('id')} ${i32(1)})))`)}
                      (i32.or
                        (i32.or ${get('row')}
                          (i32.shl
                            (select ${get('second')} ${i32(255)} (i32.lt_u (i32.sub ${get('second')} ${i32(1)}) ${i32(127)}))
                            ${i32(8)}))
                        (select ${i32(2 << 16)} ${i32(0)}
                          (i32.eq (i32.load (i32.add ${get('lengths')} (i32.shl ${get('id')} ${i32(2)}))) ${i32(2)}))))))))
            (br $back)))
        (br $rule)))
    (i32.store ${get('steps')} ${i32(255 << 8)}))

  ;; The arrays the rare steps of the next walks read: the steps as the caller has them, and by
  ;; piece id the lengths and the addresses of the texts (see ARENA).
  (func (export "use") (param $lib i32) (param $lengths i32) (param $texts i32)
    (global.set $lib ${get('lib')})
    (global.set $lengths ${get('lengths')})
    (global.set $texts ${get('texts')}))

  ;; A new path of n characters at PATH, a 0 after it: no row of a character is built.
  (func (export "begin") (param $n i32)
    (local $i i32)
    (global.set $n ${get('n')})
    (global.set $rowsEnd ${i32(layout.ROWS)})
    (global.set $setsEnd ${i32(layout.SETS)})
    (global.set $prefixed ${i32(0)})
    ${set('i', i32(1))}
    (loop $reset
      (i32.store offset=${layout.ROW_STARTS} (i32.shl ${get('i')} ${i32(2)}) ${i32(layout.UNBUILT)})
      ${set('i', `(i32.add ${get('i')} ${i32(1)})`)}
      (br_if $reset (i32.lt_u ${get('i')} ${i32(ESCAPE_ROW)})))
    (i32.store offset=${layout.ROW_STARTS} ${i32(0)} ${i32(layout.ZERO)})
    (memory.fill ${i32(layout.RANK_STARTS)} ${i32(0)} ${i32(128 * 4)}))

  ;; The row of character c: by place, its first occurrence there or after, NONE for none. From
  ;; the last place down to a multiple of 16 one place at a time, then sixteen at a time: a block
  ;; without c takes the occurrence after it throughout; in another, each half holds its places
  ;; of c and NONE elsewhere, and takes the minimum of itself and the lanes above it, then of the
  ;; occurrence after it. A row starts at a multiple of 16 bytes, for the blocks' stores.
  (func $buildRow (param $c i32)
    (local $at i32) (local $i i32) (local $next i32)
    (local $char v128) (local $block v128) (local $low v128) (local $high v128) (local $after v128)
    ${set('at', `(i32.and (i32.add (global.get $rowsEnd) ${i32(15)}) ${i32(-16)})`)}
    (i32.store offset=${layout.ROW_STARTS} (i32.shl ${get('c')} ${i32(2)}) ${get('at')})
    (global.set $rowsEnd (i32.add ${get('at')} (i32.shl (i32.add (global.get $n) ${i32(1)}) ${i32(1)})))
    ${set('i', '(global.get $n)')}
    ${set('next', i32(NONE))}
    (i32.store16 (i32.add ${get('at')} (i32.shl ${get('i')} ${i32(1)})) ${get('next')})
    (block $done
      (loop $back
        (br_if $done (i32.eqz (i32.and ${get('i')} ${i32(15)})))
        ${set('i', `(i32.sub ${get('i')} ${i32(1)})`)}
        ${set('next', `(select ${get('i')} ${get('next')} (i32.eq (i32.load8_u offset=${layout.PATH} ${get('i')}) ${get('c')}))`)}
        (i32.store16 (i32.add ${get('at')} (i32.shl ${get('i')} ${i32(1)})) ${get('next')})
        (br $back)))
    ${set('char', `(i8x16.splat ${get('c')})`)}
    ${set('after', `(i16x8.splat ${get('next')})`)}
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.eqz ${get('i')}))
        ${set('i', `(i32.sub ${get('i')} ${i32(16)})`)}
        ${set('block', `(i8x16.eq (v128.load offset=${layout.PATH} ${get('i')}) ${get('char')})`)}
        (if (i32.eqz (v128.any_true ${get('block')}))
          (then
            (v128.store (i32.add ${get('at')} (i32.shl ${get('i')} ${i32(1)})) ${get('after')})
            (v128.store offset=16 (i32.add ${get('at')} (i32.shl ${get('i')} ${i32(1)})) ${get('after')})
            (br $blocks)))
        ${set('low', placesOf('low', 0))}
        ${set('high', placesOf('high', 8))}
        ${suffixMin('high')}
        ${suffixMin('low')}
        ${set('high', `(i16x8.min_u ${get('high')} ${get('after')})`)}
        ${set('low', `(i16x8.min_u ${get('low')} ${firstLane('high')})`)}
        (v128.store (i32.add ${get('at')} (i32.shl ${get('i')} ${i32(1)})) ${get('low')})
        (v128.store offset=16 (i32.add ${get('at')} (i32.shl ${get('i')} ${i32(1)})) ${get('high')})
        ${set('after', firstLane('low'))}
        (br $blocks))))

  ;; A new set of the hashes of the path's windows of length characters, 2 to n, the hash of a
  ;; text being the sum of each character times base to the power of the characters after it
  ;; (wrapping at 32 bits); says where the set starts. A window's hash is the difference of two
  ;; hashes of prefixes of the path. The set is open addressing, at most a quarter full: its log2
  ;; size, then by slot a hash with its low bit set, or 0. At most WINDOW_SETS sets a path.
  (func (export "windows") (param $length i32) (param $base i32) (result i32)
    (local $i i32) (local $hash i32) (local $power i32) (local $bits i32) (local $at i32)
    (local $count i32) (local $slot i32) (local $key i32) (local $held i32)
    (if (i32.eqz (global.get $prefixed))
      (then
        (global.set $prefixed ${i32(1)})
        (i32.store offset=${layout.PREFIXES} ${i32(0)} ${i32(0)})
        (block $done
          (loop $prefix
            (br_if $done (i32.ge_u ${get('i')} (global.get $n)))
            ${set('hash', `(i32.add (i32.mul ${get('hash')} ${get('base')}) (i32.load8_u offset=${layout.PATH} ${get('i')}))`)}
            ${set('i', `(i32.add ${get('i')} ${i32(1)})`)}
            (i32.store offset=${layout.PREFIXES} (i32.shl ${get('i')} ${i32(2)}) ${get('hash')})
            (br $prefix)))))
    ${set('count', `(i32.add (i32.sub (global.get $n) ${get('length')}) ${i32(1)})`)}
    ${set('bits', i32(4))}
    (block $sized
      (loop $grow
        (br_if $sized (i32.ge_u (i32.shl ${i32(1)} ${get('bits')}) (i32.shl ${get('count')} ${i32(2)})))
        ${set('bits', `(i32.add ${get('bits')} ${i32(1)})`)}
        (br $grow)))
    ${set('power', i32(1))}
    ${set('i', i32(0))}
    (block $powered
      (loop $multiply
        (br_if $powered (i32.ge_u ${get('i')} ${get('length')}))
        ${set('power', `(i32.mul ${get('power')} ${get('base')})`)}
        ${set('i', `(i32.add ${get('i')} ${i32(1)})`)}
        (br $multiply)))
    ${set('at', '(global.get $setsEnd)')}
    (i32.store ${get('at')} ${get('bits')})
    (memory.fill (i32.add ${get('at')} ${i32(4)}) ${i32(0)} (i32.shl ${i32(4)} ${get('bits')}))
    (global.set $setsEnd (i32.add (i32.add ${get('at')} ${i32(4)}) (i32.shl ${i32(4)} ${get('bits')})))
    ${set('i', i32(0))}
    (block $hashed
      (loop $window
        (br_if $hashed (i32.ge_u ${get('i')} ${get('count')}))
        ${set(
          'hash',
          `(i32.sub
          (i32.load offset=${layout.PREFIXES} (i32.shl (i32.add ${get('i')} ${get('length')}) ${i32(2)}))
          (i32.mul (i32.load offset=${layout.PREFIXES} (i32.shl ${get('i')} ${i32(2)})) ${get('power')}))`,
        )}
        ${set('key', `(i32.or ${get('hash')} ${i32(1)})`)}
        ${set('slot', `(i32.shr_u (i32.mul ${get('hash')} ${i32(WINDOW_SLOT_FACTOR)}) (i32.sub ${i32(32)} ${get('bits')}))`)}
        (block $placed
          (loop $probe
            ${set('held', `(i32.load offset=4 (i32.add ${get('at')} (i32.shl ${get('slot')} ${i32(2)})))`)}
            (br_if $placed (i32.or (i32.eqz ${get('held')}) (i32.eq ${get('held')} ${get('key')})))
            ${set('slot', `(i32.and (i32.add ${get('slot')} ${i32(1)}) (i32.sub (i32.shl ${i32(1)} ${get('bits')}) ${i32(1)}))`)}
            (br $probe)))
        (i32.store offset=4 (i32.add ${get('at')} (i32.shl ${get('slot')} ${i32(2)})) ${get('key')})
        ${set('i', `(i32.add ${get('i')} ${i32(1)})`)}
        (br $window)))
    ${get('at')})

  ;; The ranks of character c's places in the path, each counted from the last (at its place,
  ;; n of them), then its places from the last back; says where they start.
  (func $buildRanks (param $c i32) (result i32)
    (local $at i32) (local $places i32) (local $i i32) (local $count i32)
    ${set('at', '(global.get $rowsEnd)')}
    ${set('places', `(i32.add ${get('at')} (i32.shl (global.get $n) ${i32(1)}))`)}
    ${set('i', '(global.get $n)')}
    (block $done
      (loop $back
        (br_if $done (i32.eqz ${get('i')}))
        ${set('i', `(i32.sub ${get('i')} ${i32(1)})`)}
        (if (i32.eq (i32.load8_u offset=${layout.PATH} ${get('i')}) ${get('c')})
          (then
            (i32.store16 (i32.add ${get('at')} (i32.shl ${get('i')} ${i32(1)})) ${get('count')})
            (i32.store16 (i32.add ${get('places')} (i32.shl ${get('count')} ${i32(1)})) ${get('i')})
            ${set('count', `(i32.add ${get('count')} ${i32(1)})`)}))
        (br $back)))
    (global.set $rowsEnd (i32.add ${get('places')} (i32.shl ${get('count')} ${i32(1)})))
    (i32.store offset=${layout.RANK_STARTS} (i32.shl ${get('c')} ${i32(2)}) ${get('at')})
    ${get('at')})

  ;; Where a run of k places of character c that starts at s ends: one past its k-th place from
  ;; s, found by the ranks of the places (see buildRanks); -1 when the path has fewer.
  (func $runEnd (param $c i32) (param $k i32) (param $s i32) (result i32)
    (local $first i32) (local $ranks i32) (local $rank i32)
    (if (i32.eq ${rowAt(get('c'), get('s'))} ${i32(UNBUILT)}) (then (call $buildRow ${get('c')})))
    ${set('first', rowAt(get('c'), get('s')))}
    (if (i32.eq ${get('first')} ${i32(NONE)}) (then (return ${i32(-1)})))
    ${set('ranks', `(i32.load offset=${layout.RANK_STARTS} (i32.shl ${get('c')} ${i32(2)}))`)}
    (if (i32.eqz ${get('ranks')}) (then ${set('ranks', `(call $buildRanks ${get('c')})`)}))
    ${set('rank', `(i32.sub (i32.load16_u (i32.add ${get('ranks')} (i32.shl ${get('first')} ${i32(1)}))) (i32.sub ${get('k')} ${i32(1)}))`)}
    (if (i32.lt_s ${get('rank')} ${i32(0)}) (then (return ${i32(-1)})))
    (i32.add
      (i32.load16_u (i32.add (i32.add ${get('ranks')} (i32.shl (global.get $n) ${i32(1)})) (i32.shl ${get('rank')} ${i32(1)})))
      ${i32(1)}))

  ;; Starts the next rule of the batch in the lane at LANES + lane, or parks the lane.
  (func $refill (param $lane i32)
    (local $slot i32)
    (if (i32.lt_u (global.get $next) (global.get $count))
      (then
        ${set('slot', '(global.get $next)')}
        (global.set $next (i32.add ${get('slot')} ${i32(1)}))
        ${laneStore(get('lane'), 'j', `(i32.load offset=${layout.BATCH} (i32.mul ${get('slot')} ${i32(12)}))`)}
        ${laneStore(get('lane'), 's', `(i32.load offset=${layout.BATCH + 4} (i32.mul ${get('slot')} ${i32(12)}))`)}
        ${laneStore(get('lane'), 'rank', `(i32.load offset=${layout.BATCH + 8} (i32.mul ${get('slot')} ${i32(12)}))`)}
        ${laneStore(get('lane'), 'h', i32(0))}
        ${laneStore(get('lane'), 'slot', get('slot'))})
      (else
        ${laneStore(get('lane'), 'j', i32(0))}
        ${laneStore(get('lane'), 's', i32(0))}
        ${laneStore(get('lane'), 'h', i32(-(2 ** 30)))})))

  ;; Ends the rule of a lane with a status, where its walk stopped, and starts the next.
  (func $finish (param $lane i32) (param $status i32) (param $j i32) (param $s i32)
    (local $at i32)
    ${set('at', `(i32.mul ${laneLoad(get('lane'), 'slot')} ${i32(12)})`)}
    (i32.store offset=${layout.RESULTS} ${get('at')} ${get('status')})
    (i32.store offset=${layout.RESULTS + 4} ${get('at')} ${get('j')})
    (i32.store offset=${layout.RESULTS + 8} ${get('at')} ${get('s')})
    (call $refill ${get('lane')})
    (if (i32.eqz ${laneLoad(get('lane'), 'j')})
      (then (global.set $live (i32.sub (global.get $live) ${i32(1)})))))

  ;; Whether the piece whose text is at text, length characters, is at place at of the path, its
  ;; first two characters known to be there. The 0 after the path ends any comparison.
  (func $rest (param $text i32) (param $at i32) (param $length i32) (result i32)
    (local $i i32)
    ${set('i', i32(2))}
    (block $done
      (loop $compare
        (br_if $done (i32.ge_u ${get('i')} ${get('length')}))
        (if (i32.ne
              (i32.load8_u offset=${layout.PATH} (i32.add ${get('at')} ${get('i')}))
              (i32.load8_u (i32.add ${get('text')} ${get('i')})))
          (then (return ${i32(0)})))
        ${set('i', `(i32.add ${get('i')} ${i32(1)})`)}
        (br $compare)))
    ${i32(1)})

  ;; One step of the lane at LANES + lane, whatever it meets.
  (func $rare (param $lane i32)
    (local $j i32) (local $s i32) (local $h i32)
    (local $step i32) (local $found i32) (local $length i32) (local $second i32) (local $match i32) (local $id i32)
    ${set('j', laneLoad(get('lane'), 'j'))}
    ${set('s', laneLoad(get('lane'), 's'))}
    ${set('h', laneLoad(get('lane'), 'h'))}
    ${set('step', `(i32.load (i32.add (global.get $steps) (i32.shl ${get('j')} ${i32(2)})))`)}
    ${set('found', rowAt(`(i32.and ${get('step')} ${i32(255)})`, get('s')))}
    (if (i32.eq ${get('found')} ${i32(UNBUILT)})
      (then
        (call $buildRow (i32.and ${get('step')} ${i32(255)}))
        ${set('found', rowAt(`(i32.and ${get('step')} ${i32(255)})`, get('s')))}))
    (if (i32.eq ${get('found')} ${i32(END)})
      (then (call $finish ${get('lane')} ${i32(status.MATCHED)} ${get('j')} ${get('s')}) (return)))
    (if (i32.eq ${get('found')} ${i32(ESCAPE)})
      (then
        (if (i32.ne (i32.and ${get('step')} ${i32(255)}) ${i32(RUN_ROW)})
          (then (call $finish ${get('lane')} ${i32(status.LEFT)} ${get('j')} ${get('s')}) (return)))
        ${set('s', `(call $runEnd (i32.and (i32.shr_u ${get('step')} ${i32(8)}) ${i32(255)}) (i32.shr_u ${get('step')} ${i32(16)}) ${get('s')})`)}
        (if (i32.lt_s ${get('s')} ${i32(0)})
          (then (call $finish ${get('lane')} ${i32(status.FAILED)} ${get('j')} ${get('s')}) (return)))
        ${laneStore(get('lane'), 'j', `(i32.add ${get('j')} ${i32(1)})`)}
        ${laneStore(get('lane'), 's', get('s'))}
        ${laneStore(get('lane'), 'h', i32(0))}
        (return)))
    (if (i32.eq ${get('found')} ${i32(NONE)})
      (then (call $finish ${get('lane')} ${i32(status.FAILED)} ${get('j')} ${get('s')}) (return)))
    ${set('length', `(i32.shr_u ${get('step')} ${i32(16)})`)}
    ${set('second', `(i32.and (i32.shr_u ${get('step')} ${i32(8)}) ${i32(255)})`)}
    ${set('match', `(i32.or (i32.eqz ${get('second')}) (i32.eq (i32.load8_u offset=${layout.PATH + 1} ${get('found')}) ${get('second')}))`)}
    (if (i32.and ${get('match')} (i32.eqz ${get('length')}))
      (then
        ;; Step j of the walk is step j - rank - 1 of the sequences (see convert).
        ${set('id', `(i32.shr_u (i32.load (i32.add (global.get $lib) (i32.shl (i32.sub (i32.sub ${get('j')} ${laneLoad(get('lane'), 'rank')}) ${i32(1)}) ${i32(2)}))) ${i32(10)})`)}
        ${set('length', `(i32.load (i32.add (global.get $lengths) (i32.shl ${get('id')} ${i32(2)})))`)}
        ${set('match', `(call $rest (i32.load (i32.add (global.get $texts) (i32.shl ${get('id')} ${i32(2)}))) ${get('found')} ${get('length')})`)}))
    (if ${get('match')}
      (then
        ${set('j', `(i32.add ${get('j')} ${i32(1)})`)}
        ${set('s', `(i32.add ${get('found')} ${get('length')})`)}
        ${set('h', i32(0))})
      (else
        ${set('s', `(i32.add ${get('found')} ${i32(1)})`)}
        ${set('h', `(i32.add ${get('h')} ${i32(1)})`)}
        (if (i32.gt_s ${get('h')} ${i32(ROW_HOPS)})
          (then (call $finish ${get('lane')} ${i32(status.LEFT)} ${get('j')} ${get('s')}) (return)))))
    ${laneStore(get('lane'), 'j', get('j'))}
    ${laneStore(get('lane'), 's', get('s'))}
    ${laneStore(get('lane'), 'h', get('h'))})

  ;; Walks the count rules of BATCH through the steps at steps (see convert), and writes each
  ;; one's status, step and place to RESULTS.
  (func (export "walk") (param $count i32) (param $steps i32)
    ${lanes.map((k) => `(local $j${k} i32) (local $s${k} i32) (local $h${k} i32)`).join(' ')}
    (local $step i32) (local $found i32) (local $length i32) (local $second i32) (local $ok i32) (local $which i32)
    (if (i32.eqz ${get('count')}) (then (return)))
    (global.set $count ${get('count')})
    (global.set $next ${i32(0)})
    (global.set $steps ${get('steps')})
    (global.set $live (select ${get('count')} ${i32(LANE_COUNT)} (i32.lt_u ${get('count')} ${i32(LANE_COUNT)})))
    ${lanes.map((k) => `(call $refill ${i32(k * 32)}) ${toLocals(k)}`).join('\n    ')}
    (loop $lanes
      ;; While every lane is at a piece of one character, the loop of such pieces; from the first
      ;; lane that is not, the usual loop, until a rare step.
      (block $usual
        (loop $simple
          ${lanes.map(simpleLane).join('\n')}
          (br $simple)))
      (block $rare
        (loop $round
          ${lanes.map(lane).join('\n')}
          (br $round)))
      ;; Lane $which has a rare step: taken with its state in memory; then the lanes go on.
      ${lanes.map((k) => `(if (i32.eq ${get('which')} ${i32(k)}) (then ${toMemory(k)} (call $rare ${i32(k * 32)}) ${toLocals(k)}))`).join('\n      ')}
      (br_if $lanes (global.get $live))))
)`;

const buffer = await assemble('walk.wat', wat);

const source = `// Written by scripts/build-walk.mjs, which holds the module's text: edit that, then run it.

/** The module's bytes. */
export const WALK_MODULE =
  '${base64(buffer)}';

/** Where the module keeps what walk.ts writes and reads, in bytes. */
${['PATH', 'BATCH', 'RESULTS', 'ARENA'].map((name) => `export const WALK_${name} = ${layout[name]};`).join('\n')}
/** The size of the memory, which never grows (see scripts/build-walk.mjs). */
export const WALK_MEMORY_BYTES = ${PAGES * 65536};

/** The longest path the module walks, and the most rules a walk takes. */
export const WALK_PATH_LIMIT = ${PATH_LIMIT};
export const WALK_BATCH_LIMIT = ${BATCH_LIMIT};

/** The most sets of windows the module builds for a path (see windows). */
export const WALK_WINDOW_SETS = ${WINDOW_SETS};
/** Spreads a hash over the slots of a set of windows, by the high bits of the product. */
export const WALK_SLOT_FACTOR = ${WINDOW_SLOT_FACTOR >>> 0};

/** A rule's status after a walk: no match, a match, or left to the caller at the step and place given. */
export const WALK_FAILED = ${status.FAILED};
export const WALK_MATCHED = ${status.MATCHED};
export const WALK_LEFT = ${status.LEFT};
`;

writeOrCheck(new URL('../src/robots/walk-code.ts', import.meta.url), source, 'scripts/build-walk.mjs');
