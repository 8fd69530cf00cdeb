/**
 * Finding the decisive rule of a group for a path (RFC 9309 2.2.2): the matching rule
 * with the longest pattern, allow on a tie. A group's rules are ranked once when the
 * file is compiled, so for small groups the first match in rank order decides. Large
 * groups (thousands of rules, common in big sites' files) get an index built on first
 * use, so a check does not visit every rule.
 */

import {
  ALLOW,
  EXACT,
  type RobotsData,
  ruleFlags,
  ruleLength,
  ruleMatchLength,
  rulePattern,
  ruleStart,
  WILDCARD,
} from './compile.js';
import { type CompiledPattern, compilePattern, matchesPattern } from './match.js';

/** Groups with more ranked rules than this are indexed. */
const INDEX_THRESHOLD = 48;
/** Wildcard rules are bucketed by up to this many leading characters of their literal prefix. */
const BUCKET_PREFIX = 6;

interface GroupIndex {
  /** Distinct literal prefixes, sorted, each with its best rule. */
  prefixes: string[];
  prefixRules: Int32Array;
  /** Exact (`$`-anchored, no `*`) patterns to their best rule. */
  exact: Map<string, number>;
  /** Every other rule, by the start of its literal prefix; each bucket in rank order. */
  buckets: Map<string, number[]>;
  bucketLengths: number[];
}

/** Per-file caches that are built lazily; the file itself stays immutable. */
export class RuleCache {
  private compiled: (CompiledPattern | undefined)[] | undefined;
  private indexes: (GroupIndex | undefined)[] | undefined;

  pattern(data: RobotsData, id: number): CompiledPattern {
    this.compiled ??= [];
    let compiled = this.compiled[id];
    if (compiled === undefined) {
      compiled = compilePattern(rulePattern(data, id));
      this.compiled[id] = compiled;
    }
    return compiled;
  }

  index(data: RobotsData, merged: number): GroupIndex {
    this.indexes ??= [];
    let index = this.indexes[merged];
    if (index === undefined) {
      index = buildIndex(data, merged);
      this.indexes[merged] = index;
    }
    return index;
  }
}

/** Whether rule `id` matches `path`. */
export function ruleMatches(data: RobotsData, cache: RuleCache, id: number, path: string): boolean {
  const flags = ruleFlags(data, id);
  if (flags & WILDCARD) return matchesPattern(cache.pattern(data, id), path);
  const length = ruleMatchLength(data, id);
  if (flags & EXACT ? path.length !== length : path.length < length) return false;
  const patterns = data.patterns;
  const start = ruleStart(data, id);
  for (let i = 0; i < length; i++) {
    if (path.charCodeAt(i) !== patterns.charCodeAt(start + i)) return false;
  }
  return true;
}

/** The decisive rule of merged group `merged` for `path`, or -1 when none matches. */
export function decide(data: RobotsData, cache: RuleCache, merged: number, path: string): number {
  const from = data.mergedRanges[merged * 2];
  const to = data.mergedRanges[merged * 2 + 1];
  if (to - from > INDEX_THRESHOLD) return decideIndexed(data, cache, cache.index(data, merged), path);
  const order = data.order;
  for (let k = from; k < to; k++) {
    const id = order[k];
    if (ruleMatches(data, cache, id, path)) return id;
  }
  return -1;
}

/** Every rule of the group that matches, in rank order. */
export function allMatches(data: RobotsData, cache: RuleCache, merged: number, path: string): number[] {
  const found: number[] = [];
  const to = data.mergedRanges[merged * 2 + 1];
  for (let k = data.mergedRanges[merged * 2]; k < to; k++) {
    const id = data.order[k];
    if (ruleMatches(data, cache, id, path)) found.push(id);
  }
  return found;
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

function decideIndexed(data: RobotsData, cache: RuleCache, index: GroupIndex, path: string): number {
  let best = -1;
  const prefix = longestPrefix(index.prefixes, path);
  if (prefix >= 0) best = index.prefixRules[prefix];
  const exact = index.exact.get(path);
  if (exact !== undefined && outranks(data, exact, best)) best = exact;
  for (const length of index.bucketLengths) {
    if (length > path.length) break;
    const bucket = index.buckets.get(path.slice(0, length));
    if (bucket === undefined) continue;
    for (const id of bucket) {
      // Buckets are in rank order: once a rule cannot beat the best, none after it can.
      if (!outranks(data, id, best)) break;
      if (ruleMatches(data, cache, id, path)) {
        best = id;
        break;
      }
    }
  }
  return best;
}

/**
 * The index of the longest string in sorted `keys` that is a prefix of `path`, or -1.
 * Each step jumps to the largest key not above the common prefix of the last miss, which
 * is strictly shorter, so the loop ends after at most `path.length` binary searches and
 * usually after one.
 */
function longestPrefix(keys: readonly string[], path: string): number {
  let probe = path;
  for (;;) {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] <= probe) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1;
    if (i < 0) return -1;
    const key = keys[i];
    if (path.startsWith(key)) return i;
    let common = 0;
    const max = Math.min(key.length, probe.length);
    while (common < max && key.charCodeAt(common) === probe.charCodeAt(common)) common++;
    probe = probe.slice(0, common);
  }
}

function buildIndex(data: RobotsData, merged: number): GroupIndex {
  const from = data.mergedRanges[merged * 2];
  const to = data.mergedRanges[merged * 2 + 1];
  const bestPrefix = new Map<string, number>();
  const exact = new Map<string, number>();
  const buckets = new Map<string, number[]>();
  for (let k = from; k < to; k++) {
    const id = data.order[k];
    const flags = ruleFlags(data, id);
    const text = rulePattern(data, id).slice(0, ruleMatchLength(data, id));
    // Rules come in rank order: the first rule seen for a key is its best.
    if (flags & EXACT) {
      if (!exact.has(text)) exact.set(text, id);
    } else if (!(flags & WILDCARD) && ruleLength(data, id) === text.length) {
      if (!bestPrefix.has(text)) bestPrefix.set(text, id);
    } else {
      // Wildcards, and literal rules whose trailing `*` makes them rank above their text.
      const literal = flags & WILDCARD ? literalPrefix(text) : text;
      const key = literal.slice(0, BUCKET_PREFIX);
      const bucket = buckets.get(key);
      if (bucket === undefined) buckets.set(key, [id]);
      else bucket.push(id);
    }
  }
  const prefixes = [...bestPrefix.keys()].sort();
  return {
    prefixes,
    prefixRules: Int32Array.from(prefixes, (p) => bestPrefix.get(p)!),
    exact,
    buckets,
    bucketLengths: [...new Set([...buckets.keys()].map((k) => k.length))].sort((a, b) => a - b),
  };
}

/** The literal text before the first `*`. */
function literalPrefix(text: string): string {
  const star = text.indexOf('*');
  return star < 0 ? text : text.slice(0, star);
}
