/**
 * Ranking the rules of a merged group, once, on the first check that needs it, into the
 * table the compiler reserved for it in `RobotsData.ints`.
 *
 * Plain prefix rules (`/private/`) are sorted by pattern for a binary search; each keeps
 * a link to its parent, the longest other plain pattern that is a prefix of it. Every
 * other rule (with `*` or `$`) is sorted best first (RFC 9309 2.2.2: longest pattern,
 * then allow) with a 64-bit filter of its characters. Layout of a table:
 * `[split, (id, parent)..., (id, maskLow, maskHigh)...]`, where `split` is the position
 * of the first other rule; positions (split, parents) are indexes into `ints`, a parent
 * is -1 when there is none.
 */

import {
  ALLOW,
  EMPTY,
  FIRST_RULE,
  groupField,
  MEMBERS_FROM,
  MEMBERS_TO,
  mergedField,
  OTHER_RULE_FIELDS,
  PLAIN,
  RANKED_FROM,
  type RobotsData,
  RULE_COUNT,
  ruleFlags,
  ruleLength,
  rulePattern,
  ruleStart,
} from './compile.js';

/** Fields per wildcard or `$` rule: id, mask low, mask high. */
export const OTHER_FIELDS = OTHER_RULE_FIELDS;

/** The position in `data.ints` of the ranked table of merged group `merged`, ranked on first use. */
export function rankedRules(data: RobotsData, merged: number): number {
  const at = mergedField(data, merged, RANKED_FROM);
  if (data.ints[at] === 0) rank(data, merged, at);
  return at;
}

/** RFC 9309 2.2.2: the longest pattern first; on equal length allow first; then file order. */
export function compareRank(data: RobotsData, a: number, b: number): number {
  return (
    ruleLength(data, b) - ruleLength(data, a) ||
    (ruleFlags(data, b) & ALLOW) - (ruleFlags(data, a) & ALLOW) ||
    a - b
  );
}

/** Compares the patterns of two rules in code unit order, in place. */
function compareText(data: RobotsData, a: number, b: number): number {
  const patterns = data.patterns;
  const n = Math.min(ruleLength(data, a), ruleLength(data, b));
  const sa = ruleStart(data, a);
  const sb = ruleStart(data, b);
  for (let i = 0; i < n; i++) {
    const d = patterns.charCodeAt(sa + i) - patterns.charCodeAt(sb + i);
    if (d !== 0) return d;
  }
  return ruleLength(data, a) - ruleLength(data, b);
}

/** Whether the pattern of rule `short` is a prefix of the pattern of rule `long`. */
function isPrefixOf(data: RobotsData, short: number, long: number): boolean {
  const n = ruleLength(data, short);
  if (n > ruleLength(data, long)) return false;
  const patterns = data.patterns;
  const ss = ruleStart(data, short);
  const sl = ruleStart(data, long);
  for (let i = 0; i < n; i++) if (patterns.charCodeAt(sl + i) !== patterns.charCodeAt(ss + i)) return false;
  return true;
}

/**
 * A 64-bit filter of the characters in `text[start, start + length)` (bit `c & 63`),
 * written as two words at `out[at]`. A rule can only match a path whose filter has every
 * bit of the rule's: one AND rules out most wildcard rules without reading the path
 * again (`/*?sort=` cannot match a path without `?`).
 */
export function charMask(text: string, start: number, length: number, out: Int32Array, at: number): void {
  let low = 0;
  let high = 0;
  for (let i = start; i < start + length; i++) {
    const c = text.charCodeAt(i) & 127;
    low |= LOW_BIT[c];
    high |= HIGH_BIT[c];
  }
  out[at] = low;
  out[at + 1] = high;
}

/** The filter bit of each character (`c & 63`), in the low or the high word; none for `*` and `$`. */
const LOW_BIT = new Int32Array(128);
const HIGH_BIT = new Int32Array(128);
for (let c = 0; c < 128; c++) {
  if (c === 42 /* * */ || c === 36 /* $ */) continue;
  const bit = c & 63;
  if (bit < 32) LOW_BIT[c] = 1 << bit;
  else HIGH_BIT[c] = 1 << (bit - 32);
}

/** Above this many rules, sorting by pattern uses the engine's own string sort. */
const NATIVE_SORT = 256;

/**
 * Sorts plain rules by pattern; among equal patterns the best comes last, where the binary
 * search in decide.ts lands. Large groups (thousands of rules) are sorted as strings by the
 * engine, many times faster than a comparator called from the sort.
 */
function sortByPattern(data: RobotsData, plain: number[]): void {
  if (plain.length <= NATIVE_SORT) {
    plain.sort((a, b) => compareText(data, a, b) || compareRank(data, b, a));
    return;
  }
  // Patterns are normalised ASCII without control characters: NUL sorts below all of them.
  const keys = plain.map((id, i) => `${rulePattern(data, id)}\u0000${i}`);
  keys.sort();
  const sorted = keys.map((key) => plain[Number(key.slice(key.lastIndexOf('\u0000') + 1))]);
  let run = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && compareText(data, sorted[i], sorted[run]) === 0) continue;
    if (i - run > 1) {
      const equal = sorted.slice(run, i).sort((a, b) => compareRank(data, b, a));
      for (let k = 0; k < equal.length; k++) sorted[run + k] = equal[k];
    }
    run = i;
  }
  for (let i = 0; i < sorted.length; i++) plain[i] = sorted[i];
}

function rank(data: RobotsData, merged: number, at: number): void {
  const plain: number[] = [];
  const other: number[] = [];
  const ints = data.ints;
  for (let k = mergedField(data, merged, MEMBERS_FROM); k < mergedField(data, merged, MEMBERS_TO); k++) {
    const g = ints[k];
    const first = groupField(data, g, FIRST_RULE);
    for (let id = first; id < first + groupField(data, g, RULE_COUNT); id++) {
      const flags = ruleFlags(data, id);
      if (flags & EMPTY) continue;
      (flags & PLAIN ? plain : other).push(id);
    }
  }
  sortByPattern(data, plain);
  other.sort((a, b) => compareRank(data, a, b));

  const split = at + 1 + plain.length * 2;
  const chain: number[] = [];
  plain.forEach((id, i) => {
    const position = at + 1 + i * 2;
    while (chain.length > 0 && !isPrefixOf(data, ints[chain[chain.length - 1]], id)) chain.pop();
    const top = chain.length > 0 ? chain[chain.length - 1] : -1;
    ints[position] = id;
    if (top >= 0 && ruleLength(data, ints[top]) === ruleLength(data, id)) {
      // Same pattern, better rule: it takes the place of the previous one.
      ints[position + 1] = ints[top + 1];
      chain[chain.length - 1] = position;
    } else {
      ints[position + 1] = top;
      chain.push(position);
    }
  });
  other.forEach((id, i) => {
    const position = split + i * OTHER_FIELDS;
    ints[position] = id;
    charMask(data.patterns, ruleStart(data, id), ruleLength(data, id), ints, position + 1);
  });
  // Written last: a table with a split is complete.
  ints[at] = split;
}
