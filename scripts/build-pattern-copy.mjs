/**
 * Writes src/robots/pattern-copy-code.ts: the WebAssembly module that copies the patterns of a
 * file's rules from its code units into the compiler's octets, and reads the filters of the
 * patterns from those octets (see src/robots/pattern-copy.ts), assembled with wabt from the text
 * below. `node scripts/build-pattern-copy.mjs --check` exits 1
 * when the file is not what this script writes, for a test to run.
 *
 * Most patterns are in normal form already: every character is one a path keeps as it is, or a
 * `*`, and the last may be the `$` anchor. The module copies such a pattern sixteen characters at
 * a time and says whether it holds a `*`; for any other it answers -1 and writes nothing the
 * caller keeps, and the caller normalises the pattern itself (see writePattern in encoding.ts,
 * whose result the module's matches).
 *
 * A block of sixteen code units is narrowed to octets (a unit over 255 becomes 255), and each
 * octet's class is read from two tables of sixteen entries, one by its low four bits and one by
 * its high four: the class is the `&` of the two. Every set of octets below 128 whose low halves
 * are the same for each high half they have is given a bit, `*` one of its own. An octet of 128 or
 * more is caught by its sign. The last block of a pattern reads and writes up to fifteen units
 * past it: its lanes past the pattern are masked off, and the octets written past the pattern's
 * end are written over by the next pattern, or never read.
 *
 * Memory, in bytes (pattern-copy.ts reads the same values from pattern-copy-code.ts):
 * - SCRATCH: the compiler's octets, SCRATCH_BYTES of them;
 * - UNITS: the code units of the text being read, UNIT_LIMIT of them, then room for a last block
 *   read past them;
 * - FILTERS: what `characters` and `pairs` find of a pattern in the scratch, for rank.ts and
 *   decide.ts: the filters of its characters and of its pairs of characters, and its pieces.
 */
import { assemble, base64, writeOrCheck } from './wasm.mjs';

/** Characters a path keeps as they are: as encoding.ts has them (its tests compare the two). */
const PLAIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!&'()+,/:;=?@[]";
const STAR = 42;
const DOLLAR = 36;

/** The most code units of a text the module reads: a file at the default size cap, 500 KiB. */
const UNIT_LIMIT = 500 * 1024;
/** Octets of the compiler's patterns the module writes; past them the compiler writes its own. */
const SCRATCH_BYTES = 2 * 1024 * 1024;
const layout = { SCRATCH: 0, UNITS: SCRATCH_BYTES, FILTERS: SCRATCH_BYTES + UNIT_LIMIT * 2 + 64 };
const MEMORY_BYTES = layout.FILTERS + 64;

/** The two tables of classes (see above): bits 0 to 6 for octets to normalise, bit 7 for `*`. */
function classTables() {
  const low = new Uint8Array(16);
  const high = new Uint8Array(16);
  const bitOf = new Map();
  for (let h = 0; h < 8; h++) {
    let lows = 0;
    for (let l = 0; l < 16; l++) {
      const c = h * 16 + l;
      if (c !== STAR && !PLAIN.includes(String.fromCharCode(c))) lows |= 1 << l;
    }
    if (lows === 0) continue;
    if (!bitOf.has(lows)) bitOf.set(lows, 1 << bitOf.size);
    const bit = bitOf.get(lows);
    if (bit > 64) throw new Error('the octets to normalise need more than seven classes');
    high[h] |= bit;
    for (let l = 0; l < 16; l++) if (lows & (1 << l)) low[l] |= bit;
  }
  high[STAR >> 4] |= 128;
  low[STAR & 15] |= 128;
  // The tables must give every octet below 128 its class, and no other.
  for (let c = 0; c < 128; c++) {
    const cls = low[c & 15] & high[c >> 4];
    const expected = c === STAR ? 128 : PLAIN.includes(String.fromCharCode(c)) ? 0 : 'normalise';
    const got = cls === 128 ? 128 : cls === 0 ? 0 : cls < 128 ? 'normalise' : 'both';
    if (got !== expected) throw new Error(`octet ${c}: class ${got}, wanted ${expected}`);
  }
  return { low, high };
}

const { low, high } = classTables();
const i32 = (n) => `(i32.const ${n})`;
const bytes = (table) => `(v128.const i8x16 ${[...table].join(' ')})`;
const splat = (n) => `(v128.const i8x16 ${Array(16).fill(n).join(' ')})`;
const unitAt = (index) => `(i32.load16_u offset=${layout.UNITS} (i32.shl ${index} ${i32(1)}))`;

const wat = `(module
  (memory (export "memory") ${Math.ceil(MEMORY_BYTES / 65536)} ${Math.ceil(MEMORY_BYTES / 65536)})
  ;; Copies the pattern of units [from, to) to octets at at, when it is in normal form: returns
  ;; where it ends, with bit 30 set when it holds a *; -1 when it is not in normal form.
  (func (export "copy") (param $from i32) (param $to i32) (param $at i32) (result i32)
    (local $unit i32) (local $left i32) (local $o i32) (local $anchored i32) (local $star i32)
    (local $keep i32) (local $octets v128) (local $class v128)
    (if (i32.gt_s (local.get $to) (local.get $from))
      (then (local.set $anchored (i32.eq ${unitAt(`(i32.sub (local.get $to) ${i32(1)})`)} ${i32(DOLLAR)}))))
    (local.set $left (i32.sub (i32.sub (local.get $to) (local.get $from)) (local.get $anchored)))
    (local.set $unit (i32.shl (local.get $from) ${i32(1)}))
    (local.set $o (local.get $at))
    (block $done
      (loop $block
        (br_if $done (i32.le_s (local.get $left) ${i32(0)}))
        (local.set $octets
          (i8x16.narrow_i16x8_u
            (v128.load offset=${layout.UNITS} (local.get $unit))
            (v128.load offset=${layout.UNITS + 16} (local.get $unit))))
        (local.set $class
          (v128.and
            (i8x16.swizzle ${bytes(low)} (v128.and (local.get $octets) ${splat(15)}))
            (i8x16.swizzle ${bytes(high)} (i8x16.shr_u (local.get $octets) ${i32(4)}))))
        ;; The lanes of the pattern: all sixteen, or those left.
        (local.set $keep
          (select ${i32(0xffff)} (i32.sub (i32.shl ${i32(1)} (local.get $left)) ${i32(1)})
            (i32.ge_s (local.get $left) ${i32(16)})))
        (if
          (i32.and (local.get $keep)
            (i32.or (i8x16.bitmask (local.get $octets))
              (i8x16.bitmask (i8x16.ne (v128.and (local.get $class) ${splat(127)}) (v128.const i64x2 0 0)))))
          (then (return ${i32(-1)})))
        (local.set $star
          (i32.or (local.get $star) (i32.and (local.get $keep) (i8x16.bitmask (local.get $class)))))
        (v128.store (local.get $o) (local.get $octets))
        (local.set $unit (i32.add (local.get $unit) ${i32(32)}))
        (local.set $o (i32.add (local.get $o) ${i32(16)}))
        (local.set $left (i32.sub (local.get $left) ${i32(16)}))
        (br $block)))
    ;; $left is 0 or less: the last block went that far past the pattern.
    (local.set $o (i32.add (local.get $o) (local.get $left)))
    (if (local.get $anchored)
      (then
        (i32.store8 (local.get $o) ${i32(DOLLAR)})
        (local.set $o (i32.add (local.get $o) ${i32(1)}))))
    (i32.or (local.get $o) (select ${i32(1 << 30)} ${i32(0)} (local.get $star))))

  ;; The filter of the characters of octets [from, to) of the scratch, as charMask in chars.ts has
  ;; it (bit c & 63 of each character but * and $), at FILTERS as two words.
  (func (export "characters") (param $from i32) (param $to i32)
    (local $mask i64) (local $c i32)
    (block $done
      (loop $octet
        (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
        (local.set $c (i32.and (i32.load8_u offset=${layout.SCRATCH} (local.get $from)) ${i32(127)}))
        (local.set $mask
          (i64.or (local.get $mask)
            (select (i64.const 0) (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $c)))
              (i32.or (i32.eq (local.get $c) ${i32(STAR)}) (i32.eq (local.get $c) ${i32(DOLLAR)})))))
        (local.set $from (i32.add (local.get $from) ${i32(1)}))
        (br $octet)))
    (i64.store offset=${layout.FILTERS} ${i32(0)} (local.get $mask)))

  ;; The filter of the pairs of octets [from, to) of the scratch and the shape of its pieces, as
  ;; pairMask in pieces.ts has them, at FILTERS + 8: two words of pairs, then where the first *
  ;; is (-1 for none), where the longest piece after it starts and its length, and the same of
  ;; the second longest. Places are addresses in the scratch.
  (func (export "pairs") (param $from i32) (param $to i32)
    (local $i i32) (local $c i32) (local $previous i32) (local $mask i64) (local $length i32)
    (local $firstStar i32) (local $pieceStart i32) (local $longestAt i32) (local $longestLength i32)
    (local $secondAt i32) (local $secondLength i32)
    (local.set $i (local.get $from))
    (local.set $previous ${i32(STAR)})
    (local.set $firstStar ${i32(-1)})
    (local.set $pieceStart (local.get $from))
    (local.set $longestAt (local.get $from))
    (local.set $secondAt (local.get $from))
    (block $done
      (loop $octet
        (br_if $done (i32.gt_u (local.get $i) (local.get $to)))
        ;; The end of the text ends a piece as a * does.
        (local.set $c
          (select (i32.load8_u offset=${layout.SCRATCH} (local.get $i)) ${i32(STAR)} (i32.lt_u (local.get $i) (local.get $to))))
        (if (i32.and (i32.ne (local.get $previous) ${i32(STAR)}) (i32.ne (local.get $c) ${i32(STAR)}))
          (then
            (local.set $mask
              (i64.or (local.get $mask)
                (i64.shl (i64.const 1)
                  (i64.extend_i32_u
                    (i32.and (i32.add (i32.mul (local.get $previous) ${i32(31)}) (local.get $c)) ${i32(63)}))))))
          (else
            (if (i32.eq (local.get $c) ${i32(STAR)})
              (then
                (local.set $length (i32.sub (local.get $i) (local.get $pieceStart)))
                (if (i32.lt_s (local.get $firstStar) ${i32(0)})
                  (then
                    (local.set $firstStar (select (local.get $i) ${i32(-1)} (i32.lt_u (local.get $i) (local.get $to)))))
                  (else
                    (if (i32.gt_s (local.get $length) (local.get $longestLength))
                      (then
                        (local.set $secondAt (local.get $longestAt))
                        (local.set $secondLength (local.get $longestLength))
                        (local.set $longestAt (local.get $pieceStart))
                        (local.set $longestLength (local.get $length)))
                      (else
                        (if (i32.gt_s (local.get $length) (local.get $secondLength))
                          (then
                            (local.set $secondAt (local.get $pieceStart))
                            (local.set $secondLength (local.get $length))))))))
                (local.set $pieceStart (i32.add (local.get $i) ${i32(1)}))))))
        (local.set $previous (local.get $c))
        (local.set $i (i32.add (local.get $i) ${i32(1)}))
        (br $octet)))
    (i64.store offset=${layout.FILTERS + 8} ${i32(0)} (local.get $mask))
    (i32.store offset=${layout.FILTERS + 16} ${i32(0)} (local.get $firstStar))
    (i32.store offset=${layout.FILTERS + 20} ${i32(0)} (local.get $longestAt))
    (i32.store offset=${layout.FILTERS + 24} ${i32(0)} (local.get $longestLength))
    (i32.store offset=${layout.FILTERS + 28} ${i32(0)} (local.get $secondAt))
    (i32.store offset=${layout.FILTERS + 32} ${i32(0)} (local.get $secondLength)))
)`;

const buffer = await assemble('pattern-copy.wat', wat);

const source = `// Written by scripts/build-pattern-copy.mjs, which holds the module's text: edit that, then run it.

/** The module's bytes. */
export const PATTERN_COPY_MODULE =
  '${base64(buffer)}';

/** Where the module keeps the compiler's octets and the units it reads, in bytes. */
export const PATTERN_COPY_SCRATCH = ${layout.SCRATCH};
export const PATTERN_COPY_SCRATCH_BYTES = ${SCRATCH_BYTES};
export const PATTERN_COPY_UNITS = ${layout.UNITS};
export const PATTERN_COPY_FILTERS = ${layout.FILTERS};

/** The most code units of a text the module reads. */
export const PATTERN_COPY_UNIT_LIMIT = ${UNIT_LIMIT};

/** Octets a copy may write past the end of its pattern. */
export const PATTERN_COPY_SLACK = 16;
`;

writeOrCheck(
  new URL('../src/robots/pattern-copy-code.ts', import.meta.url),
  source,
  'scripts/build-pattern-copy.mjs',
);
