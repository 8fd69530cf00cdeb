/**
 * The compiler: the line handler that turns a file into compact tables for matching.
 * A parsed file is kept by the thousand in a crawler's cache, so rules live in typed
 * arrays over one string of patterns rather than as one object each.
 */

import { tokenOfUserAgentLine } from './agent.js';
import { BlockList, IntList } from './block-list.js';
import type { GroupIndex } from './decide.js';
import { MAX_EXPANSION, WROTE_END, WROTE_NORMALISED, WROTE_STAR, writePattern } from './encoding.js';
import { type Directive, type FileSummary, type RobotsLineHandler, valueTextOf } from './lines.js';
import { copyPattern, PATTERN_COPY_SLACK, patternCopyMemory } from './pattern-copy.js';
import type { PrefixHash } from './prefixes.js';
import { HTTP_URL_START, urlOrNull } from './url.js';

/** Rule flags, stored in the low bits of a rule's second field. */
export const ALLOW = 1;
/** The pattern has a `*` before its end: it needs the wildcard matcher. */
export const WILDCARD = 2;
/** The pattern has no `*` and ends in `$`: the path must equal it. */
export const EXACT = 4;
/** Added by the parser (Google's `index.html` rule). */
export const DERIVED = 8;
/** An empty pattern: it matches nothing (RFC 9309 2.2.2, an empty `disallow` allows all). */
export const EMPTY = 16;
/** A plain prefix (no `*`, no `$`): found by the binary search of decide.ts, or by hash (prefixes.ts). */
export const PLAIN = 32;
const FLAG_BITS = 6;

/** Fields per rule at the start of `RobotsData.ints`. */
const RULE_FIELDS = 2;
/** Fields per group as written, at `groupsAt`. */
const GROUP_FIELDS = 7;
/** Fields per user-agent line, at `agentsAt`. */
const AGENT_FIELDS = 4;
/** Fields per merged group, at `mergedAt`. */
const MERGED_FIELDS = 6;
/** Fields per ranked table, at `tablesAt`. */
const TABLE_FIELDS = 3;

/**
 * The compiled file: a few strings and one Int32Array, however many rules it has. Rule ids
 * are in file order; a derived rule follows its source.
 * - the patterns: every normalised pattern back to back (rule order), then the tokens, in
 *   `chunks` (see CHUNK_BITS);
 * - the words: the text as written where a verdict quotes it: raw patterns that differ from
 *   their normal form, user-agent values, sitemap URLs, in `words` and `wordChunks` (see
 *   WORD_BITS).
 *
 * `ints` holds, one table after the other:
 * - a header: how many groups, merged groups, sitemaps and raw patterns there are (see
 *   `count`), where each table starts, and how much of `ints` is in use;
 * - rules at RULES_AT, RULE_FIELDS each: the start of the pattern in the patterns (its length is
 *   the distance to the next start; one more start closes the table), `line << 6 | flags`;
 * - groups as written at `groupsAt`, GROUP_FIELDS each: startLine, endLine, firstAgent,
 *   agentCount, firstRule, ruleCount, crawl-delay in milliseconds (-1 for none);
 * - user-agent lines at `agentsAt`, AGENT_FIELDS each: line, position and length of the value
 *   among the words, the merged group its token names (-1 for none);
 * - merged groups (one per token, RFC 9309 2.2.1) at `mergedAt`, MERGED_FIELDS each: start
 *   and length of the token in the patterns, the range of its member group ids (positions
 *   in `ints`), and its parts, the ranked tables that together hold its rules (see
 *   sizeRankedTables): the first, and the position of a list of the others (`[count, t...]`),
 *   0 for none, most merged groups having one part;
 * - the member lists at `membersAt`, the lists of parts after them, then the lists of member
 *   groups (`[count, g...]`) of the ranked tables whose members are no merged group's;
 * - sitemaps at `sitemapsAt`, three each: position and length among the words of the value as
 *   written, and its line;
 * - raw patterns at `rawAt`, three each, by rule id: id, position and length among the words;
 * - for a file of many tokens (a list scan is faster for a few), the merged groups by token at
 *   `slotsAt`: an open-addressing table of `m + 1` (0 for an empty slot) by the hash of the
 *   token (see tokenHash), a power of two of slots; none (0 slots) for other files;
 * - the ranked tables at `tablesAt`, TABLE_FIELDS each: where the table starts, its size in
 *   ints, and its member groups: a merged group with the same members (m), or the position p
 *   of their list as `~p`. A small file
 *   gets a table when a check first needs it, appended (in room left by an earlier one, or
 *   in a longer copy of `ints`), so it pays only for the groups its crawlers ask about; 0
 *   until then. A large file, where that copy would cost a check milliseconds, has room
 *   for every table reserved after the directory. A table's first int is 0 until ranked.
 */
export interface RobotsData {
  /**
   * The normalised patterns and the tokens, one after the other, in chunks: a position `p` is
   * in chunk `p >>> CHUNK_BITS` at `p & CHUNK_MASK` (see chunkOf), and each chunk holds whole
   * the items that start in it. `patterns` is the first chunk, and `chunks` all of them when
   * there are more (null for most files, which then keep no array).
   */
  readonly patterns: string;
  readonly chunks: readonly string[] | null;
  /** The first chunk of the words, and every chunk when there are more (see WORD_BITS). */
  readonly words: string;
  readonly wordChunks: readonly string[] | null;
  /** Replaced by a longer copy when a ranked table is added (see rank.ts); read it after ranking. */
  ints: Int32Array;
  /** Indexes of the ranked tables of many wildcard rules, by table, built on first use (see decide.ts). */
  indexes: GroupIndex[] | null;
  /** For ranked tables of many plain rules, by table, those rules by hash (see prefixes.ts). */
  prefixes: PrefixHash[] | null;
  /** A number of its own among the files compiled by this process (see explain.ts). */
  readonly serial: number;
}

/**
 * A position in the patterns is `chunk << CHUNK_BITS | offset`. One string of a large file's
 * patterns (400 KiB) would be a large object, which V8 allocates in a space of its own where
 * each one costs milliseconds of garbage collection: a parse of a 486 KiB file spent a
 * fifth of its time there. Chunks of 64 Ki characters (and the end of the item that
 * crosses into the next) stay ordinary strings.
 */
export const CHUNK_BITS = 16;
export const CHUNK_MASK = (1 << CHUNK_BITS) - 1;

/**
 * A position among the words is `chunk << WORD_BITS | offset`, for the reason the patterns are in
 * chunks: a chunk of at most 32 Ki characters, two octets each at most, stays an ordinary string
 * (a file of 9,701 sitemap lines on internationalised hosts has 436 KiB of words). Each chunk
 * holds whole words; a word longer than a chunk has one of its own.
 */
const WORD_BITS = 15;
const WORD_MASK = (1 << WORD_BITS) - 1;
/** Words a chunk holds at most: a join of more strings than about 16,000 is slow (see block-list.ts). */
const WORDS_PER_CHUNK = 4096;

/** The word of `length` characters at `position` among the words of `data`. */
function wordAt(data: RobotsData, position: number, length: number): string {
  const chunk = position <= WORD_MASK ? data.words : data.wordChunks![position >>> WORD_BITS];
  const start = position & WORD_MASK;
  return chunk.slice(start, start + length);
}

/**
 * The words of `lists`, one list after the other, in chunks (see WORD_BITS), and the position of
 * each word in that order. The chunks are strings of their own, never slices of the source.
 */
export function wordsOf(lists: readonly BlockList<string>[]): { chunks: string[]; positions: Int32Array } {
  let count = 0;
  for (const list of lists) count += list.length;
  const positions = new Int32Array(count);
  const chunks: string[] = [];
  let pending: string[] = [];
  let offset = 0;
  let k = 0;
  for (const list of lists) {
    for (const block of list.parts()) {
      for (const word of block) {
        if (pending.length === WORDS_PER_CHUNK || (offset > 0 && offset + word.length > WORD_MASK + 1)) {
          chunks.push(joinedCopy(pending));
          pending = [];
          offset = 0;
        }
        positions[k++] = (chunks.length << WORD_BITS) | offset;
        pending.push(word);
        offset += word.length;
      }
    }
  }
  chunks.push(joinedCopy(pending));
  return { chunks, positions };
}

/** `parts` joined, as a new string even of one part (a blank after them makes it one). */
function joinedCopy(parts: string[]): string {
  parts.push(' ');
  return parts.join('');
}

/** The chunk holding the pattern or token that starts at position `start`; read it from `start & CHUNK_MASK`. */
export function chunkOf(data: RobotsData, start: number): string {
  return start <= CHUNK_MASK ? data.patterns : data.chunks![start >>> CHUNK_BITS];
}

/** The header of `ints`: how many of each thing the file has, and where their tables start. */
export const GROUP_COUNT = 0;
export const MERGED_COUNT = 1;
export const SITEMAP_COUNT = 2;
export const RAW_COUNT = 3;
export const TABLE_COUNT = 14;
/** The tables of shared classes (see sharedClasses), which come first among the tables. */
export const SHARED_TABLE_COUNT = 15;
const GROUPS_AT = 4;
const AGENTS_AT = 5;
const MERGED_AT = 6;
const SITEMAPS_AT = 7;
const RAW_AT = 8;
export const TABLES_AT = 9;
/** How much of `ints` is in use: past it, room left for more ranked tables. */
export const INTS_USED = 10;
/** The length of `ints` once every ranked table is in: it never grows past it. */
export const INTS_FULL = 11;
const SLOTS_AT = 12;
const SLOT_COUNT = 13;
/** Rules start after the header. */
const RULES_AT = 16;

/** How many rules the file has. */
export function ruleCount(data: RobotsData): number {
  return (data.ints[GROUPS_AT] - RULES_AT) / RULE_FIELDS - 1;
}

/** One count of the header (GROUP_COUNT, ...). */
export function count(data: RobotsData, slot: number): number {
  return data.ints[slot];
}

export function ruleStart(data: RobotsData, id: number): number {
  return startIn(data.ints, id);
}
export function ruleLength(data: RobotsData, id: number): number {
  return lengthIn(data.ints, id);
}
export function ruleLine(data: RobotsData, id: number): number {
  return data.ints[RULES_AT + id * RULE_FIELDS + 1] >>> FLAG_BITS;
}
export function ruleFlags(data: RobotsData, id: number): number {
  return flagsIn(data.ints, id);
}
/**
 * The same read from `ints` itself: a loop over rules that holds `data.ints` in a local (it
 * is not replaced while a check runs) reads one array instead of the field on every call.
 */
export function startIn(ints: Int32Array, id: number): number {
  return ints[RULES_AT + id * RULE_FIELDS];
}
export function lengthIn(ints: Int32Array, id: number): number {
  const at = RULES_AT + id * RULE_FIELDS;
  return ints[at + RULE_FIELDS] - ints[at];
}
export function flagsIn(ints: Int32Array, id: number): number {
  return ints[RULES_AT + id * RULE_FIELDS + 1] & ((1 << FLAG_BITS) - 1);
}
export function rulePattern(data: RobotsData, id: number): string {
  const position = ruleStart(data, id);
  const start = position & CHUNK_MASK;
  return chunkOf(data, position).slice(start, start + ruleLength(data, id));
}
/** The part of a pattern the path must match: without its final `$` and trailing `*`. */
export function ruleMatchLength(data: RobotsData, id: number): number {
  const position = ruleStart(data, id);
  const patterns = chunkOf(data, position);
  const start = position & CHUNK_MASK;
  const flags = ruleFlags(data, id);
  let end = start + ruleLength(data, id);
  if (flags & (PLAIN | EMPTY)) return end - start;
  if (flags & EXACT) return end - 1 - start;
  // Without WILDCARD every `*` is in the trailing run, which the first `*` starts: found
  // natively, where reading the run back would cost a check its length (16,000 in a long line).
  if (!(flags & WILDCARD)) return patterns.indexOf('*', start) - start;
  if (patterns.charCodeAt(end - 1) === 36 /* $ */) end--;
  while (end > start && patterns.charCodeAt(end - 1) === 42 /* * */) end--;
  return end - start;
}
/** Whether the pattern is its match part, of `matchLength` characters, plus a final `$`. */
export function ruleAnchored(data: RobotsData, id: number, matchLength: number): boolean {
  const position = ruleStart(data, id);
  return (
    ruleLength(data, id) === matchLength + 1 &&
    chunkOf(data, position).charCodeAt((position & CHUNK_MASK) + matchLength) === 36 /* $ */
  );
}
/** The pattern as written. */
export function rawPattern(data: RobotsData, id: number): string {
  const ints = data.ints;
  let lo = 0;
  let hi = ints[RAW_COUNT];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = ints[RAW_AT] + mid * 3;
    if (ints[at] === id) return wordAt(data, ints[at + 1], ints[at + 2]);
    if (ints[at] < id) lo = mid + 1;
    else hi = mid;
  }
  return rulePattern(data, id);
}
/** The rules written differently from their normal form, by rule id: the id and the pattern as written. */
export function writtenPatterns(data: RobotsData): Array<[id: number, pattern: string]> {
  const ints = data.ints;
  const out: Array<[number, string]> = [];
  for (let i = 0; i < ints[RAW_COUNT]; i++) {
    const at = ints[RAW_AT] + i * 3;
    out.push([ints[at], wordAt(data, ints[at + 1], ints[at + 2])]);
  }
  return out;
}
/** One field of group `g` as written (see RobotsData). */
export function groupField(data: RobotsData, g: number, field: number): number {
  return data.ints[data.ints[GROUPS_AT] + g * GROUP_FIELDS + field];
}
export const START_LINE = 0;
export const END_LINE = 1;
export const FIRST_AGENT = 2;
export const AGENT_COUNT = 3;
export const FIRST_RULE = 4;
export const RULE_COUNT = 5;
export const CRAWL_DELAY_MS = 6;

/** One field of user-agent line `a`. */
export function agentField(data: RobotsData, a: number, field: number): number {
  return data.ints[data.ints[AGENTS_AT] + a * AGENT_FIELDS + field];
}
export const AGENT_LINE = 0;
export const AGENT_MERGED = 3;
/** The value of user-agent line `a` as written. */
export function agentValue(data: RobotsData, a: number): string {
  const at = data.ints[AGENTS_AT] + a * AGENT_FIELDS;
  return wordAt(data, data.ints[at + 1], data.ints[at + 2]);
}

/** One field of merged group `m`. */
export function mergedField(data: RobotsData, m: number, field: number): number {
  return data.ints[data.ints[MERGED_AT] + m * MERGED_FIELDS + field];
}
export const MEMBERS_FROM = 2;
export const MEMBERS_TO = 3;
/** The first ranked table of the merged group (an index into the tables at TABLES_AT). */
const FIRST_PART = 4;
/** Where the list of its other tables is in `ints` (`[count, t...]`), 0 for none. */
const MORE_PARTS = 5;

/** How many ranked tables merged group `m` reads its rules from: most often one. */
export function partCount(data: RobotsData, m: number): number {
  const more = mergedField(data, m, MORE_PARTS);
  return more === 0 ? 1 : 1 + data.ints[more];
}

/** Ranked table `i` of merged group `m` (see partCount). */
export function partOf(data: RobotsData, m: number, i: number): number {
  return i === 0 ? mergedField(data, m, FIRST_PART) : data.ints[mergedField(data, m, MORE_PARTS) + i];
}

/** One field of ranked table `t`. */
export function tableField(data: RobotsData, t: number, field: number): number {
  return data.ints[data.ints[TABLES_AT] + t * TABLE_FIELDS + field];
}
/** Where the table starts in `ints`, 0 until it has a place (see rank.ts). */
export const TABLE_START = 0;
export const TABLE_SIZE = 1;
const TABLE_MEMBERS = 2;

/** Where the member group ids of ranked table `t` start in `ints`; they end at tableMembersTo. */
export function tableMembersFrom(data: RobotsData, t: number): number {
  const members = tableField(data, t, TABLE_MEMBERS);
  return members >= 0 ? mergedField(data, members, MEMBERS_FROM) : ~members + 1;
}

export function tableMembersTo(data: RobotsData, t: number): number {
  const members = tableField(data, t, TABLE_MEMBERS);
  return members >= 0 ? mergedField(data, members, MEMBERS_TO) : ~members + 1 + data.ints[~members];
}

/** The position in `ints` of field TABLE_START of ranked table `t`, which rank.ts writes. */
export function tableStartAt(data: RobotsData, t: number): number {
  return data.ints[TABLES_AT] + t * TABLE_FIELDS + TABLE_START;
}

/** The token of merged group `m`, lower-case (`*` for the star group). */
export function mergedToken(data: RobotsData, m: number): string {
  const at = data.ints[MERGED_AT] + m * MERGED_FIELDS;
  const position = data.ints[at];
  const start = position & CHUNK_MASK;
  return chunkOf(data, position).slice(start, start + data.ints[at + 1]);
}

/** The merged group of `token`, or -1. */
export function lookupToken(data: RobotsData, token: string): number {
  const ints = data.ints;
  if (ints[SLOT_COUNT] === 0) {
    for (let m = 0; m < ints[MERGED_COUNT]; m++) if (namesToken(data, m, token)) return m;
    return -1;
  }
  const slots = ints[SLOTS_AT];
  const mask = ints[SLOT_COUNT] - 1;
  for (let slot = tokenHash(token) & mask; ints[slots + slot] !== 0; slot = (slot + 1) & mask) {
    if (namesToken(data, ints[slots + slot] - 1, token)) return ints[slots + slot] - 1;
  }
  return -1;
}

/** Whether merged group `m` is the group of `token`. */
function namesToken(data: RobotsData, m: number, token: string): boolean {
  const ints = data.ints;
  const at = ints[MERGED_AT] + m * MERGED_FIELDS;
  const n = token.length;
  if (ints[at + 1] !== n) return false;
  const patterns = chunkOf(data, ints[at]);
  const start = ints[at] & CHUNK_MASK;
  let i = 0;
  while (i < n && patterns.charCodeAt(start + i) === token.charCodeAt(i)) i++;
  return i === n;
}

/** Ints of a sitemap line (see the layout above). */
const SITEMAP_FIELDS = 3;

/**
 * The absolute sitemap URLs of the file, normalised (see sitemapUrl), each once, in file order.
 * A parse keeps each value as written, and they are read here: a URL that a parser must read (a
 * host outside ASCII, a `..` segment) takes microseconds, and most files' sitemaps are never
 * asked for.
 */
export function sitemapsOf(data: RobotsData): string[] {
  const seen = new Set<string>();
  for (let s = 0; s < data.ints[SITEMAP_COUNT]; s++) {
    const url = sitemapUrl(sitemapValue(data, s));
    if (url !== undefined) seen.add(url);
  }
  // A set lists its members in the order they were first added.
  return [...seen];
}

/** The value of sitemap line `s` (in file order) as written. */
export function sitemapValue(data: RobotsData, s: number): string {
  const at = data.ints[SITEMAPS_AT] + s * SITEMAP_FIELDS;
  return wordAt(data, data.ints[at], data.ints[at + 1]);
}

/** The line of sitemap line `s`. */
export function sitemapLine(data: RobotsData, s: number): number {
  return data.ints[data.ints[SITEMAPS_AT] + s * SITEMAP_FIELDS + 2];
}

/** One shared empty list for every file that has none of something. */
const NOTHING: readonly string[] = Object.freeze([]);

/**
 * Copies strings out of the text they were cut from. V8 keeps a whole file alive for
 * one slice of it; a parsed file must not retain its source.
 */
export function detach(strings: readonly string[]): string[] {
  if (strings.length === 0) return NOTHING as string[];
  // With a separator and two or more parts, join always builds a new flat string.
  const joined = [...strings, ''].join('\n');
  const out: string[] = [];
  let at = 0;
  for (const s of strings) {
    out.push(joined.slice(at, at + s.length));
    at += s.length + 1;
  }
  return out;
}

interface PendingGroup {
  startLine: number;
  endLine: number;
  firstAgent: number;
  agentCount: number;
  firstRule: number;
  ruleCount: number;
  /** Seconds, NaN for none. */
  crawlDelay: number;
}

/** A crawl-delay value: a number of seconds, digits with an optional fraction (`10`, `1.5`, `.5`, `10.`). */
export const CRAWL_DELAY_VALUE = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const INDEX_HTM = Array.from('index.htm', (ch) => ch.charCodeAt(0));

/**
 * The normalised patterns of the file being compiled, as octets (they are ASCII), turned
 * into one string when the pass ends. Shared by every parse: a compiler runs from the
 * start of a pass to `finish()` without giving way to another.
 */
let scratch: Uint8Array = new Uint8Array(16 * 1024);
/** The octets in the memory of the pattern copy, where every pass starts; null where it does not run. */
const copyScratch = patternCopyMemory()?.scratch ?? null;
/** The code units in the memory of the pattern copy (see codeUnitsOf in lines.ts). */
const copyUnits = patternCopyMemory()?.units ?? null;
/** `scratch` as a Buffer, to decode it (see patternChunks). */
let scratchText = Buffer.from(scratch.buffer);
/** The serial number of the file whose patterns `scratch` holds (see compiledOctets); -1 while a pass writes them. */
let scratchSerial = -1;

/**
 * The octets of `data`'s patterns and tokens, position for position, with three to spare after
 * them, when they are still where its compiler wrote them: until the next pass starts. Null
 * when they are not.
 */
export function compiledOctets(data: RobotsData): Uint8Array | null {
  return data.serial === scratchSerial ? scratch : null;
}

const encoder = new TextEncoder();
/**
 * The rules of the file being compiled, by id, RULE_FIELDS each as `ints` holds them: where the
 * pattern starts in `scratch`, `line << FLAG_BITS | flags`. Shared like `scratch`: a parse grows
 * no array of its own for its rules.
 */
let ruleScratch = new Int32Array(1024 * RULE_FIELDS);

/** The rules a pass collected: the first `count` of `ruleScratch`. */
interface RuleList {
  fields: Int32Array;
  count: number;
}

/** Builds `RobotsData` from the events of one pass. */
export class RobotsCompiler implements RobotsLineHandler {
  constructor() {
    // This pass writes over the octets of the last file, where the pattern copy writes when it
    // runs: a file before may have left `scratch` grown past its room, in memory of its own.
    scratchSerial = -1;
    if (copyScratch !== null) scratch = copyScratch;
  }

  /** Octets of `scratch` in use. */
  private used = 0;
  /** How many rules `ruleScratch` holds. */
  private ruleCount = 0;
  /** Ids of the rules written differently from their normal form, and how they were written. */
  private readonly rawIds = new IntList();
  private readonly rawValues = new BlockList<string>();
  private readonly groups = new BlockList<PendingGroup>();
  /** The last of `groups`, read by every line. */
  private group: PendingGroup | undefined = undefined;
  private readonly agentLines = new IntList();
  private readonly agentValues = new BlockList<string>();
  /** The values of `sitemap` lines as written, and their lines (see sitemapsOf). */
  private readonly sitemaps = new BlockList<string>();
  private readonly sitemapLines = new IntList();
  /** Google's group boundary: a user-agent line after a rule line starts a new group. */
  private sawRule = true;
  private ignoreAll = false;

  directive(d: Directive): void {
    if (this.ignoreAll) return;
    const group = this.group;
    switch (d.key) {
      case 'user-agent': {
        let current = group;
        if (this.sawRule || current === undefined) {
          current = {
            startLine: d.line,
            endLine: d.line,
            firstAgent: this.agentLines.length,
            agentCount: 0,
            firstRule: this.ruleCount,
            ruleCount: 0,
            crawlDelay: Number.NaN,
          };
          this.groups.push(current);
          this.group = current;
          this.sawRule = false;
        }
        this.agentLines.push(d.line);
        this.agentValues.push(valueTextOf(d));
        current.agentCount++;
        current.endLine = d.line;
        return;
      }
      case 'allow':
      case 'disallow':
        // RFC 9309 2.1: rules belong to the group above them; before any group they are void.
        if (group === undefined) return;
        this.sawRule = true;
        this.addRule(group, d.key === 'allow', d);
        return;
      case 'crawl-delay': {
        if (group === undefined) return;
        const value = valueTextOf(d);
        if (CRAWL_DELAY_VALUE.test(value)) {
          // Several delays in one group: keep the most polite.
          const seconds = Number(value);
          group.crawlDelay = Number.isNaN(group.crawlDelay) ? seconds : Math.max(group.crawlDelay, seconds);
        }
        group.endLine = d.line;
        return;
      }
      case 'sitemap':
        // Sitemap lines belong to no group (RFC 9309 2.3.5); only absolute URLs are usable.
        this.sitemaps.push(valueTextOf(d));
        this.sitemapLines.push(d.line);
        return;
      default:
        return;
    }
  }

  unparsable(): void {}
  lineTooLong(): void {}

  end(summary: FileSummary): void {
    // An HTML page yields no rules at all.
    if (summary.looksLikeHtml) this.ignoreAll = true;
  }

  /** Makes room for `count` more octets in `scratch`. */
  private reserve(count: number): void {
    if (this.used + count <= scratch.length) return;
    const grown = new Uint8Array(Math.max(scratch.length * 2, this.used + count));
    grown.set(scratch.subarray(0, this.used));
    scratch = grown;
  }

  /** Appends `text`, ASCII, to `scratch`. */
  private append(text: string): void {
    this.reserve(text.length);
    const out = scratch;
    let o = this.used;
    for (let i = 0; i < text.length; i++) out[o++] = text.charCodeAt(i);
    this.used = o;
  }

  /**
   * {@link append}, encoded natively: the tokens of a file that names thousands go in at once,
   * with no loop over them that only such a file runs, and runs cold.
   */
  private appendAscii(text: string): void {
    this.reserve(text.length);
    this.used += encoder.encodeInto(text, scratch.subarray(this.used)).written;
  }

  private addRule(group: PendingGroup, allow: boolean, d: Directive): void {
    const start = this.used;
    this.reserve((d.valueEnd - d.valueStart) * MAX_EXPANSION + PATTERN_COPY_SLACK);
    // The module copies a pattern in normal form when its units and `scratch` are both in its
    // memory (see pattern-copy.ts); writePattern takes the rest. Known by the arrays themselves:
    // reading their `buffer` on every rule made the typical file's parse 15% slower.
    let written =
      d.units === copyUnits && scratch === copyScratch ? copyPattern(d.valueStart, d.valueEnd, start) : -1;
    if (written < 0) written = writePattern(d.source, d.units, d.valueStart, d.valueEnd, scratch, start);
    this.used = written & WROTE_END;
    const star = (written & WROTE_STAR) !== 0;
    // The pattern as written is kept where a verdict quotes it, when it differs.
    if (
      written & WROTE_NORMALISED &&
      !sameOctets(d.units, d.valueStart, d.valueEnd, scratch, start, this.used)
    ) {
      this.rawIds.push(this.ruleCount);
      this.rawValues.push(valueTextOf(d));
    }
    this.pushRule(group, allow, start, d.line, 0, star);
    // Google treats an allowed `index.html` as allowing its directory too: `/dir/index.html`
    // adds `/dir/$`. Only for allow rules.
    if (allow) {
      const slash = this.indexHtmlDirectory(start, this.used);
      if (slash >= 0) {
        const derived = this.used;
        this.reserve(slash - start + 2);
        scratch.copyWithin(derived, start, slash + 1);
        this.used += slash + 1 - start;
        scratch[this.used++] = 36; /* $ */
        this.pushRule(group, allow, derived, d.line, DERIVED, star);
      }
    }
    group.endLine = d.line;
  }

  /** The position of the last `/` of the pattern in `scratch[start, end)` when `index.htm` follows it, else -1. */
  private indexHtmlDirectory(start: number, end: number): number {
    let slash = end - 1;
    while (slash >= start && scratch[slash] !== 47 /* / */) slash--;
    if (slash < start || end - slash - 1 < INDEX_HTM.length) return -1;
    for (let i = 0; i < INDEX_HTM.length; i++) if (scratch[slash + 1 + i] !== INDEX_HTM[i]) return -1;
    return slash;
  }

  /** Records the rule whose pattern is `scratch[start, used)`; `mayHaveStar` false when it has no `*`. */
  private pushRule(
    group: PendingGroup,
    allow: boolean,
    start: number,
    line: number,
    extra: number,
    mayHaveStar: boolean,
  ): void {
    let flags = extra | (allow ? ALLOW : 0);
    const end = this.used;
    if (end === start) flags |= EMPTY;
    else {
      let star = mayHaveStar ? start : end;
      while (star < end && scratch[star] !== 42 /* * */) star++;
      const last = scratch[end - 1];
      if (star === end && last !== 36 /* $ */) flags |= PLAIN;
      else {
        const anchored = last === 36;
        const bodyEnd = anchored ? end - 1 : end;
        // A trailing `*` (or `*$`) matches anything after it: the rest matches as a prefix.
        let matchEnd = bodyEnd;
        while (matchEnd > start && scratch[matchEnd - 1] === 42) matchEnd--;
        if (star < matchEnd) flags |= WILDCARD;
        else if (anchored && matchEnd === bodyEnd) flags |= EXACT;
      }
    }
    const at = this.ruleCount++ * RULE_FIELDS;
    if (at === ruleScratch.length) {
      const grown = new Int32Array(ruleScratch.length * 2);
      grown.set(ruleScratch);
      ruleScratch = grown;
    }
    ruleScratch[at] = start;
    ruleScratch[at + 1] = (line << FLAG_BITS) | flags;
    group.ruleCount++;
  }

  /** The compiled tables. Call once, after the pass. */
  finish(): RobotsData {
    if (this.ignoreAll) return EMPTY_DATA;
    const { groups, agentValues, sitemaps } = this;
    const rules: RuleList = { fields: ruleScratch, count: this.ruleCount };
    const merged = mergeGroups(groups, agentValues);

    // Strings of our own, never slices of the source: patterns and tokens are decoded from
    // `scratch` (a new string), the words joined (see wordsOf).
    const tokensAt = this.used;
    const { tokens, tokenEnds } = merged;
    if (tokens.length > MANY_TOKENS) for (const block of tokens.parts()) this.appendAscii(block.join(''));
    else for (let m = 0; m < tokens.length; m++) this.append(tokens.at(m));
    // Room for a word read across the end of the last item (see compiledOctets).
    this.reserve(3);
    const chunks = patternChunks(this.used, rules, tokensAt, tokenEnds, tokens.length);
    // Raw patterns, then user-agent values, then sitemaps: writeTables reads their positions so.
    const words = wordsOf([this.rawValues, agentValues, sitemaps]);

    const tables = sizeRankedTables(groups, rules, merged);
    const ints = writeTables(
      {
        rules,
        rawIds: this.rawIds,
        rawValues: this.rawValues,
        groups,
        agentLines: this.agentLines,
        agentValues,
        sitemaps,
        sitemapLines: this.sitemapLines,
        wordPositions: words.positions,
      },
      merged,
      tables,
      tokensAt,
    );
    const data: RobotsData = {
      patterns: chunks[0],
      // A copy holds exactly its chunks, where the list grown by push has room for more.
      chunks: chunks.length > 1 ? chunks.slice() : null,
      words: words.chunks[0],
      wordChunks: words.chunks.length > 1 ? words.chunks : null,
      ints,
      indexes: null,
      prefixes: null,
      serial,
    };
    scratchSerial = serial++;
    return data;
  }
}

/**
 * The strings of `scratch[0, used)` (see CHUNK_BITS): chunk k from position k << CHUNK_BITS to
 * the end of the last item (pattern or token) that starts before the next chunk. The items lie
 * back to back: the rules' patterns, then the tokens from `tokensAt`, token m ending at
 * `tokensAt + tokenEnds[m]`.
 */
function patternChunks(
  used: number,
  rules: RuleList,
  tokensAt: number,
  tokenEnds: Int32Array,
  tokenCount: number,
): string[] {
  const chunks: string[] = [];
  // The octets are ASCII, which Latin-1 decodes as UTF-8 does: a copy, with nothing to check.
  if (scratchText.buffer !== scratch.buffer) scratchText = Buffer.from(scratch.buffer);
  // Up to `used` itself: an empty item may start there (a last `Disallow:` with nothing after).
  for (let from = 0; from <= used; from += CHUNK_MASK + 1) {
    const next = from + CHUNK_MASK + 1;
    const end =
      used <= next
        ? used
        : next > tokensAt
          ? tokensAt + firstAtLeast(tokenEnds, tokenCount, 1, next - tokensAt, used - tokensAt)
          : firstAtLeast(rules.fields, rules.count, RULE_FIELDS, next, tokensAt);
    chunks.push(end === from ? '' : scratchText.toString('latin1', from, end));
  }
  return chunks;
}

/**
 * The first of the ascending values `values[i * stride]` (i below `count`) that is at least
 * `position`, or `otherwise` when none is: where the first rule, or token, at or after a
 * position starts (a token starts where the one before it ends).
 */
function firstAtLeast(
  values: Int32Array,
  count: number,
  stride: number,
  position: number,
  otherwise: number,
): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid * stride] < position) lo = mid + 1;
    else hi = mid;
  }
  return lo < count ? values[lo * stride] : otherwise;
}

/*
 * The steps of `finish()`, each a function of its own: the first large file a process parses
 * runs them before the JIT has optimized them, and one function of two hundred lines took
 * the optimizing compiler 90 ms on a busy 2-core machine, in which time it ran unoptimized.
 *
 * The steps run warm from every small file before the first large one, optimized for what
 * the small files did. An operation that only a large file reaches (the body of a loop that
 * doubles a size, a test behind `&&`) has no type feedback then, and reaching it sends the
 * whole step back to the interpreter with thousands of lines to go: such operations are
 * written so that every file runs them.
 */

/** The smallest power of two at least `n` (n >= 1), computed the same way for any n (see above). */
function powerOfTwoAtLeast(n: number): number {
  return 2 ** (32 - Math.clz32(n - 1));
}

/** Whether the code units `units[from, to)` are the octets `out[at, end)`. */
function sameOctets(
  units: Uint16Array,
  from: number,
  to: number,
  out: Uint8Array,
  at: number,
  end: number,
): boolean {
  if (to - from !== end - at) return false;
  for (let i = 0; i < to - from; i++) if (units[from + i] !== out[at + i]) return false;
  return true;
}

/** What a pass collected, as `finish()` hands it to writeTables. */
interface CollectedLines {
  rules: RuleList;
  rawIds: IntList;
  rawValues: BlockList<string>;
  groups: BlockList<PendingGroup>;
  agentLines: IntList;
  agentValues: BlockList<string>;
  sitemaps: BlockList<string>;
  sitemapLines: IntList;
  /** Where each word is (see wordsOf): raw patterns, then user-agent values, then sitemaps. */
  wordPositions: Int32Array;
}

/** The merged groups (RFC 9309 2.2.1): one per token, its member groups in file order. */
interface MergedGroups {
  tokens: BlockList<string>;
  /** By token, where it ends among the tokens written back to back (see patternChunks). */
  tokenEnds: Int32Array;
  /** Members of merged group m: memberList[memberStart[m], memberStart[m + 1]). */
  memberStart: Int32Array;
  memberList: Int32Array;
  /** By user-agent line, the merged group its token names (-1 for none). */
  agentMerged: Int32Array;
  /** The merged groups by token, as `ints` keeps them at SLOTS_AT for a file of many tokens. */
  slots: Int32Array;
}

/**
 * Drawn once per process: a file cannot be written to make its tokens collide (hash flooding),
 * which would make the table probe long runs of slots for every token of the file.
 */
const TOKEN_HASH_SEED = (Math.random() * 2 ** 32) | 0;

/**
 * The hash of a token, whose low bits pick the slot of the token table (SLOTS_AT) it starts from:
 * FNV-1a from the seed, then murmur3's finalizer, so that every bit of the state reaches the low
 * bits (FNV's own low bits depend on nothing else, and tokens that agree there are easy to make).
 */
function tokenHash(token: string): number {
  let h = TOKEN_HASH_SEED ^ 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * (token, group) pairs in file order, then sorted by token into one list (a file may name
 * tens of thousands of tokens).
 */
function mergeGroups(groups: BlockList<PendingGroup>, agentValues: BlockList<string>): MergedGroups {
  // Merged groups by token: a table of our own rather than a Map, kept as the file's index of
  // tokens (a file may name tens of thousands; the Map and the copy of its keys that kept the
  // source free cost a third of such a parse).
  // At most half full with a token per user-agent line, so it never grows while in use.
  const slots = zeroedInts(powerOfTwoAtLeast(Math.max(16, agentValues.length * 2)));
  const slotOf = (token: string): number => {
    const mask = slots.length - 1;
    let slot = tokenHash(token) & mask;
    while (slots[slot] !== 0 && tokens.at(slots[slot] - 1) !== token) slot = (slot + 1) & mask;
    return slot;
  };
  // Sized by the user-agent lines, each naming at most one token and one (token, group) pair:
  // no array grows while a file of tens of thousands of them is read.
  const agents = agentValues.length;
  const tokens = new BlockList<string>();
  const tokenEnds = zeroedInts(agents);
  const memberCount = zeroedInts(agents);
  /** The last group (g + 1, 0 for none) that merged group m took as a member: no fill needed. */
  const lastMember = zeroedInts(agents);
  const pairToken = zeroedInts(agents);
  const pairGroup = zeroedInts(agents);
  let pairs = 0;
  const agentMerged = zeroedInts(agents).fill(-1);
  for (let g = 0; g < groups.length; g++) {
    const group = groups.at(g);
    for (let a = group.firstAgent; a < group.firstAgent + group.agentCount; a++) {
      const token = tokenOfUserAgentLine(agentValues.at(a));
      if (token === '') continue;
      const slot = slotOf(token);
      let m = slots[slot] - 1;
      if (m < 0) {
        m = tokens.length;
        slots[slot] = m + 1;
        tokens.push(token);
        tokenEnds[m] = (m === 0 ? 0 : tokenEnds[m - 1]) + token.length;
      }
      if (lastMember[m] !== g + 1) {
        lastMember[m] = g + 1;
        memberCount[m]++;
        pairToken[pairs] = m;
        pairGroup[pairs] = g;
        pairs++;
      }
      agentMerged[a] = m;
    }
  }
  const memberStart = zeroedInts(tokens.length + 1);
  for (let m = 0; m < tokens.length; m++) memberStart[m + 1] = memberStart[m] + memberCount[m];
  const memberList = zeroedInts(pairs);
  // The counts, no longer needed, become each list's cursor.
  const cursor = memberCount;
  for (let m = 0; m < tokens.length; m++) cursor[m] = memberStart[m];
  for (let p = 0; p < pairs; p++) memberList[cursor[pairToken[p]]++] = pairGroup[p];
  return { tokens, tokenEnds, memberStart, memberList, agentMerged, slots };
}

/**
 * The ranked tables: one per distinct list of member groups, sized now, added on first use.
 * A merged group reads one table, or several (its parts) when some of its groups form a shared
 * class (see sharedClasses).
 */
interface RankedTables {
  /** How many tables there are. */
  tableCount: number;
  /** How many of them, the first, are tables of shared classes. */
  sharedCount: number;
  /** Size in ints of each table (by table, up to tableCount). */
  rankedSize: Int32Array;
  /** By table, the merged group with the same member groups, or -1 when none has them... */
  tableOwner: Int32Array;
  /**
   * ...then its member groups: tableMembers[tableMemberStart[t], tableMemberStart[t + 1]), for a
   * file with shared classes (null for others, whose tables all have an owner).
   */
  tableMemberStart: Int32Array | null;
  tableMembers: Int32Array | null;
  /** By merged group, its first table. */
  firstPart: Int32Array;
  /**
   * For a file with shared classes, the tables of merged group m: partList[partStart[m],
   * partStart[m + 1]); null for others, whose merged groups each read one table.
   */
  partStart: Int32Array | null;
  partList: Int32Array | null;
}

/**
 * A class of groups with more rules than this, named by more than one token, is a table of its
 * own that each of those tokens reads beside the table of its other groups (see sharedClasses).
 */
const SHARED_CLASS_RULES = 16;
/**
 * A token reads at most this many tables of shared classes, its largest: each costs a check a
 * lookup, and a first check a few cache misses (1,700 tables of 17 rules took 1.5 ms).
 */
const MAX_SHARED_PARTS = 32;

function sizeRankedTables(
  groups: BlockList<PendingGroup>,
  rules: RuleList,
  merged: MergedGroups,
): RankedTables {
  const { memberStart, memberList } = merged;
  // Typed arrays of known length: a file of tens of thousands of groups grows no array.
  const groupPlain = zeroedInts(groups.length);
  const groupOther = zeroedInts(groups.length);
  for (let g = 0; g < groups.length; g++) {
    const group = groups.at(g);
    let plain = 0;
    let other = 0;
    for (let id = group.firstRule; id < group.firstRule + group.ruleCount; id++) {
      const flags = rules.fields[id * RULE_FIELDS + 1];
      if (flags & EMPTY) continue;
      if (flags & PLAIN) plain++;
      else other++;
    }
    groupPlain[g] = plain;
    groupOther[g] = other;
  }
  const tokenCount = merged.tokens.length;
  const pairs = memberList.length;
  // Most files name each token in one group: each token reads the table of its groups.
  const shared = pairs > tokenCount ? sharedClasses(merged, groups.length, groupPlain, groupOther) : null;
  // A table per token at most, and one per shared class, which holds at least one group.
  const most = shared === null ? tokenCount : tokenCount + shared.lists.length;
  const sizes = zeroedInts(most);
  const tableOwner = zeroedInts(most);
  // Only tables of shared classes and of what is left of their tokens' groups list members.
  const tableMemberStart = shared === null ? null : zeroedInts(most + 1);
  const tableMembers = shared === null ? null : zeroedInts(pairs + groups.length);
  let tables = 0;
  // The table of a list of one group, by that group (t + 1; 0: none yet).
  const tableOfGroup = zeroedInts(groups.length);
  let tableOfList: Map<string, number> | undefined;
  /**
   * The table of the groups `list[from, to)`, made when no earlier list was the same; `owner`
   * is the merged group whose members they are, -1 for none.
   */
  const tableFor = (list: Int32Array, from: number, to: number, owner: number): number => {
    const key = to - from === 1 ? '' : list.subarray(from, to).join(',');
    const known = key === '' ? tableOfGroup[list[from]] - 1 : (tableOfList?.get(key) ?? -1);
    if (known >= 0) return known;
    let plain = 0;
    let other = 0;
    for (let k = from; k < to; k++) {
      plain += groupPlain[list[k]];
      other += groupOther[list[k]];
    }
    tableOwner[tables] = owner;
    if (tableMemberStart !== null && tableMembers !== null) {
      // Members no merged group lists are copied.
      const first = tableMemberStart[tables];
      if (owner < 0) tableMembers.set(list.subarray(from, to), first);
      tableMemberStart[tables + 1] = owner < 0 ? first + to - from : first;
    }
    const packed = rules.count < PACKED_ID_LIMIT && plain < PACKED_BACK_LIMIT;
    if (key === '') tableOfGroup[list[from]] = tables + 1;
    else {
      tableOfList ??= new Map();
      tableOfList.set(key, tables);
    }
    sizes[tables] = 1 + plain * (packed ? 1 : 2) + other * OTHER_FIELDS;
    return tables++;
  };
  const firstPart = zeroedInts(tokenCount);
  let parts: Parts | null = null;
  if (shared === null) {
    for (let m = 0; m < tokenCount; m++)
      firstPart[m] = tableFor(memberList, memberStart[m], memberStart[m + 1], m);
  } else parts = partsOf(merged, shared, groups.length, tableFor, firstPart);
  return {
    tableCount: tables,
    sharedCount: parts?.sharedCount ?? 0,
    rankedSize: sizes,
    tableOwner,
    tableMemberStart,
    tableMembers,
    firstPart,
    partStart: parts?.partStart ?? null,
    partList: parts?.partList ?? null,
  };
}

/** The tables each merged group reads, for a file with shared classes (see RankedTables). */
interface Parts {
  sharedCount: number;
  partStart: Int32Array;
  partList: Int32Array;
}

/**
 * Makes the tables of the shared classes that tokens read, first, then the table of each
 * token's other groups; writes each token's first table to `firstPart`.
 */
function partsOf(
  merged: MergedGroups,
  { classOf, lists, parts: chosen, chosenStart }: SharedClasses,
  groupCount: number,
  tableFor: (list: Int32Array, from: number, to: number, owner: number) => number,
  firstPart: Int32Array,
): Parts {
  const { memberStart, memberList } = merged;
  const tokenCount = merged.tokens.length;
  // The tables of the classes some token reads, in class order: no table is made before them.
  const read = new Uint8Array(lists.length);
  for (let k = 0; k < chosen.length; k++) read[chosen[k]] = 1;
  const classTable = new Int32Array(lists.length);
  let sharedCount = 0;
  for (let c = 0; c < lists.length; c++) {
    if (read[c] === 0) continue;
    classTable[c] = tableFor(Int32Array.from(lists[c]), 0, lists[c].length, -1);
    sharedCount++;
  }
  const partStart = zeroedInts(tokenCount + 1);
  const partList = zeroedInts(memberList.length);
  let parts = 0;
  const rest = zeroedInts(groupCount);
  /** By class, the last merged group that reads its table (m + 1). */
  const readBy = zeroedInts(lists.length);
  for (let m = 0; m < tokenCount; m++) {
    for (let k = chosenStart[m]; k < chosenStart[m + 1]; k++) {
      readBy[chosen[k]] = m + 1;
      partList[parts++] = classTable[chosen[k]];
    }
    let restCount = 0;
    for (let k = memberStart[m]; k < memberStart[m + 1]; k++) {
      const g = memberList[k];
      if (classOf[g] === 0 || readBy[classOf[g] - 1] !== m + 1) rest[restCount++] = g;
    }
    // All its groups: the members of this merged group.
    if (restCount > 0) {
      const owner = restCount === memberStart[m + 1] - memberStart[m] ? m : -1;
      partList[parts++] = tableFor(rest, 0, restCount, owner);
    }
    partStart[m + 1] = parts;
    firstPart[m] = partList[partStart[m]];
  }
  return { sharedCount, partStart, partList };
}

/** The shared classes of a file's groups, and the ones each token reads (see sharedClasses). */
interface SharedClasses {
  /** By group, 1 + its class, or 0 when it is in none. */
  classOf: Int32Array;
  /** By class, its groups in file order. */
  lists: number[][];
  /** The classes merged group m reads a table of: parts[chosenStart[m], chosenStart[m + 1]). */
  parts: number[];
  chosenStart: Int32Array;
}

/**
 * A class is the groups that the same tokens name (the same list of merged groups); it is
 * shared when more than one token names it and it has more than SHARED_CLASS_RULES rules.
 * Without classes, tokens that name one large group and each a group of its own would each rank
 * a copy of the large group on their first check, and keep it; with them, it is ranked once.
 * Each token reads the tables of its shared classes, the MAX_SHARED_PARTS largest when it has
 * more; its other groups make one table of its own.
 */
function sharedClasses(
  merged: MergedGroups,
  groupCount: number,
  groupPlain: Int32Array,
  groupOther: Int32Array,
): SharedClasses {
  const { memberStart, memberList } = merged;
  const tokenCount = merged.tokens.length;
  // The tokens that name each group, in token order: tokensOf[tokensStart[g], tokensStart[g + 1]).
  const tokensStart = zeroedInts(groupCount + 1);
  for (let k = 0; k < memberList.length; k++) tokensStart[memberList[k] + 1]++;
  for (let g = 0; g < groupCount; g++) tokensStart[g + 1] += tokensStart[g];
  const cursor = zeroedInts(groupCount);
  cursor.set(tokensStart.subarray(0, groupCount));
  const tokensOf = zeroedInts(memberList.length);
  for (let m = 0; m < tokenCount; m++) {
    for (let k = memberStart[m]; k < memberStart[m + 1]; k++) tokensOf[cursor[memberList[k]]++] = m;
  }
  // Groups named by more than one token, by the list of those tokens, in file order.
  const byTokens = new Map<string, number[]>();
  for (let g = 0; g < groupCount; g++) {
    const from = tokensStart[g];
    const to = tokensStart[g + 1];
    if (to - from < 2 || groupPlain[g] + groupOther[g] === 0) continue;
    const key = tokensOf.subarray(from, to).join(',');
    const list = byTokens.get(key);
    if (list === undefined) byTokens.set(key, [g]);
    else list.push(g);
  }
  const classOf = zeroedInts(groupCount);
  const lists: number[][] = [];
  const ruleCounts: number[] = [];
  for (const list of byTokens.values()) {
    let count = 0;
    for (const g of list) count += groupPlain[g] + groupOther[g];
    if (count <= SHARED_CLASS_RULES) continue;
    for (const g of list) classOf[g] = lists.length + 1;
    lists.push(list);
    ruleCounts.push(count);
  }
  const parts: number[] = [];
  const chosenStart = zeroedInts(tokenCount + 1);
  /** By class, the last merged group that listed it (m + 1). */
  const listedBy = zeroedInts(lists.length);
  for (let m = 0; m < tokenCount; m++) {
    const from = parts.length;
    for (let k = memberStart[m]; k < memberStart[m + 1]; k++) {
      const c = classOf[memberList[k]] - 1;
      if (c < 0 || listedBy[c] === m + 1) continue;
      listedBy[c] = m + 1;
      parts.push(c);
    }
    if (parts.length - from > MAX_SHARED_PARTS) {
      // The largest classes, in class order among equals.
      const largest = parts
        .slice(from)
        .sort((a, b) => ruleCounts[b] - ruleCounts[a] || a - b)
        .slice(0, MAX_SHARED_PARTS);
      parts.length = from;
      parts.push(...largest);
    }
    chosenStart[m + 1] = parts.length;
  }
  return { classOf, lists, parts, chosenStart };
}

/** Lays out `ints` (see RobotsData) and fills it. */
function writeTables(
  lines: CollectedLines,
  merged: MergedGroups,
  tables: RankedTables,
  tokensAt: number,
): Int32Array {
  const { rules, rawIds, rawValues, groups, agentLines, agentValues, sitemaps, sitemapLines, wordPositions } =
    lines;
  const { tableCount, rankedSize, tableOwner, tableMemberStart, tableMembers, partStart, partList } = tables;
  const { tokens, memberStart, memberList, agentMerged, slots } = merged;
  const ruleCount = rules.count;
  const groupsAt = RULES_AT + (ruleCount + 1) * RULE_FIELDS;
  const agentsAt = groupsAt + groups.length * GROUP_FIELDS;
  const mergedAt = agentsAt + agentValues.length * AGENT_FIELDS;
  const membersAt = mergedAt + tokens.length * MERGED_FIELDS;
  const partsAt = membersAt + memberList.length;
  // A list of more parts for each merged group of several: their count, then the parts.
  let moreParts = 0;
  if (partStart !== null) {
    for (let m = 0; m < tokens.length; m++)
      if (partStart[m + 1] - partStart[m] > 1) moreParts += partStart[m + 1] - partStart[m];
  }
  const tableMembersAt = partsAt + moreParts;
  // A list of members for each table that no merged group's members are: their count, then the groups.
  let listed = 0;
  if (tableMemberStart !== null) {
    listed = tableMemberStart[tableCount];
    for (let t = 0; t < tableCount; t++) if (tableOwner[t] < 0) listed++;
  }
  const sitemapsAt = tableMembersAt + listed;
  const rawAt = sitemapsAt + sitemaps.length * SITEMAP_FIELDS;
  const slotsAt = rawAt + rawIds.length * 3;
  // Read for every file, used for some: a read that only a file of many tokens reached had no
  // type feedback in the code optimized before it, and sent that code back to the interpreter.
  const tableSlots = slots.length;
  const slotCount = tokens.length > SMALL_TOKEN_TABLE ? tableSlots : 0;
  const tablesAt = slotsAt + slotCount;
  const base = tablesAt + tableCount * TABLE_FIELDS;
  let full = base;
  for (let t = 0; t < tableCount; t++) full += rankedSize[t];
  // Room for every table at once when the tables do not outweigh the rest several times over
  // (tokens naming many combinations of large groups): those wait for the checks that need them.
  // Both tests run for every file (see the steps of finish()).
  const fits = full <= RESERVE_LIMIT * base;
  const reserve = base > LAZY_TABLES_LIMIT && fits;
  const total = reserve ? full : base;
  const ints = keptBlocks.take(total);
  // Each table's place when there is room for all, else 0: placed on first use.
  for (let t = 0, at = base, list = tableMembersAt; t < tableCount; t++) {
    const field = tablesAt + t * TABLE_FIELDS;
    ints[field + TABLE_START] = reserve ? at : 0;
    ints[field + TABLE_SIZE] = rankedSize[t];
    if (tableOwner[t] >= 0) ints[field + TABLE_MEMBERS] = tableOwner[t];
    else if (tableMemberStart !== null && tableMembers !== null) {
      const count = tableMemberStart[t + 1] - tableMemberStart[t];
      ints[field + TABLE_MEMBERS] = ~list;
      ints[list] = count;
      ints.set(tableMembers.subarray(tableMemberStart[t], tableMemberStart[t + 1]), list + 1);
      list += 1 + count;
    }
    at += rankedSize[t];
  }

  ints[GROUP_COUNT] = groups.length;
  ints[MERGED_COUNT] = tokens.length;
  ints[SITEMAP_COUNT] = sitemaps.length;
  ints[RAW_COUNT] = rawIds.length;
  ints[TABLE_COUNT] = tableCount;
  ints[SHARED_TABLE_COUNT] = tables.sharedCount;
  ints[GROUPS_AT] = groupsAt;
  ints[AGENTS_AT] = agentsAt;
  ints[MERGED_AT] = mergedAt;
  ints[SITEMAPS_AT] = sitemapsAt;
  ints[RAW_AT] = rawAt;
  ints[SLOTS_AT] = slotsAt;
  ints[SLOT_COUNT] = slotCount;
  ints[TABLES_AT] = tablesAt;
  ints[INTS_USED] = total;
  ints[INTS_FULL] = full;
  const fields = rules.fields;
  for (let i = 0; i < ruleCount * RULE_FIELDS; i++) ints[RULES_AT + i] = fields[i];
  ints[RULES_AT + ruleCount * RULE_FIELDS] = tokensAt;
  for (let g = 0; g < groups.length; g++) {
    const group = groups.at(g);
    const at = groupsAt + g * GROUP_FIELDS;
    ints[at] = group.startLine;
    ints[at + 1] = group.endLine;
    ints[at + 2] = group.firstAgent;
    ints[at + 3] = group.agentCount;
    ints[at + 4] = group.firstRule;
    ints[at + 5] = group.ruleCount;
    ints[at + 6] = Number.isNaN(group.crawlDelay)
      ? -1
      : Math.min(Math.round(group.crawlDelay * 1000), MAX_CRAWL_DELAY_MS);
  }
  // Where the words are: raw patterns, then user-agent values, then sitemaps (see finish()).
  let word = 0;
  for (let i = 0; i < rawIds.length; i++) {
    const at = rawAt + i * 3;
    ints[at] = rawIds.at(i);
    ints[at + 1] = wordPositions[word++];
    ints[at + 2] = rawValues.at(i).length;
  }
  for (let a = 0; a < agentValues.length; a++) {
    const at = agentsAt + a * AGENT_FIELDS;
    ints[at] = agentLines.at(a);
    ints[at + 1] = wordPositions[word++];
    ints[at + 2] = agentValues.at(a).length;
    ints[at + 3] = agentMerged[a];
  }
  for (let i = 0; i < sitemaps.length; i++) {
    ints[sitemapsAt + i * SITEMAP_FIELDS] = wordPositions[word++];
    ints[sitemapsAt + i * SITEMAP_FIELDS + 1] = sitemaps.at(i).length;
    ints[sitemapsAt + i * SITEMAP_FIELDS + 2] = sitemapLines.at(i);
  }
  ints.set(memberList, membersAt);
  ints.set(slots.subarray(0, slotCount), slotsAt);
  let token = tokensAt;
  let morePartsAt = partsAt;
  for (let m = 0; m < tokens.length; m++) {
    const at = mergedAt + m * MERGED_FIELDS;
    ints[at] = token;
    const length = tokens.at(m).length;
    ints[at + 1] = length;
    token += length;
    ints[at + MEMBERS_FROM] = membersAt + memberStart[m];
    ints[at + MEMBERS_TO] = membersAt + memberStart[m + 1];
    ints[at + FIRST_PART] = tables.firstPart[m];
    const more = partStart === null ? 0 : partStart[m + 1] - partStart[m] - 1;
    if (more > 0 && partStart !== null && partList !== null) {
      ints[at + MORE_PARTS] = morePartsAt;
      ints[morePartsAt] = more;
      ints.set(partList.subarray(partStart[m] + 1, partStart[m + 1]), morePartsAt + 1);
      morePartsAt += 1 + more;
    }
  }
  return ints;
}

/**
 * The typed arrays of a pass that are small (`ints` of a small file, the working tables of
 * finish()'s steps) are views into blocks, as Node's Buffer pool does for small buffers. A
 * typed array of more than 64 bytes of its own is an ArrayBuffer of its own, which V8 allocates
 * outside its heap and tracks through collections: a parse of a two-line file took 4.2 us,
 * 2.6 us of it for its `ints`, and one of a 1.7 KiB file of 41 groups 44-58 us, most of it for
 * the sixteen tables it made. A block is never reused: what is taken from it is zeros.
 */
class IntBlocks {
  private block: ArrayBuffer;
  /** Ints of the block taken. */
  private used = 0;
  constructor(private readonly size: number) {
    this.block = new ArrayBuffer(size * 4);
  }

  /** `length` zeros, from the block when they take at most half of one, else of their own. */
  take(length: number): Int32Array {
    const own = length > this.size / 2;
    // One allocation for both cases: small files reach it too (see the steps of finish()).
    if (own || this.used + length > this.size) {
      const fresh = new Int32Array(own ? length : this.size);
      if (own) return fresh;
      this.block = fresh.buffer;
      this.used = 0;
    }
    // A view made from the buffer: half the time of `subarray`, which looks up a constructor.
    const ints = new Int32Array(this.block, this.used * 4, length);
    this.used += length;
    return ints;
  }
}

/**
 * The `ints` of files, in blocks of 8 KiB shared with the files parsed around them. A file keeps
 * its block alive until its `ints` is replaced: by the first ranked table (see rank.ts), or by
 * ownInts.
 */
const keptBlocks = new IntBlocks(2048);
/** The working tables of passes, which no file keeps: larger blocks, freed as their passes end. */
const workBlocks = new IntBlocks(16 * 1024);

/** `length` zeros for a table used only while a pass or a step runs. */
export function zeroedInts(length: number): Int32Array {
  return workBlocks.take(length);
}

/**
 * Gives the file an `ints` of its own if it still shares a block (see keptBlocks): for a file
 * kept long, which must not keep the files parsed around it alive.
 */
export function ownInts(data: RobotsData): void {
  if (data.ints.byteLength !== data.ints.buffer.byteLength) data.ints = data.ints.slice();
}

/** Fields per rule that is not a plain prefix in a ranked table (see rank.ts): id, mask low, mask high. */
export const OTHER_FIELDS = 3;
/**
 * A plain rule of a ranked table takes one int, `id + back * PACKED_ID_LIMIT` (see rank.ts),
 * when every id of the file is below PACKED_ID_LIMIT and the table has fewer than
 * PACKED_BACK_LIMIT plain rules (no file within the default size cap has more ids); else two.
 */
export const PACKED_ID_LIMIT = 2 ** 17;
const PACKED_BACK_LIMIT = 2 ** 14;

/** The serial number of the next compiled file: exact up to 2^53 files. */
let serial = 0;

/** Files whose tables take more ints than this before any ranked table get room for every ranked table at once. */
const LAZY_TABLES_LIMIT = 16 * 1024;
/** ...as long as that room is at most this many times what the file takes without it. */
const RESERVE_LIMIT = 4;

/** Past this many tokens, finish() writes them natively (see appendAscii); fewer cost less in a loop. */
const MANY_TOKENS = 64;

/** Up to this many distinct tokens, a list scan beats a Map and costs less memory. */
const SMALL_TOKEN_TABLE = 8;

/** What an HTML page compiles to: nothing. */
const EMPTY_DATA: RobotsData = new RobotsCompiler().finish();

// Both ways wordsOf starts a chunk (a full count, a word past the room left), taken once as the
// module loads: see the warm-up of block-list.ts.
{
  const list = new BlockList<string>();
  for (let i = 0; i <= WORDS_PER_CHUNK; i++) list.push('w');
  list.push('x'.repeat(WORD_MASK));
  list.push('y');
  wordsOf([list]);
}

/** Whether `data` is what an HTML page compiles to (finish() returns this one object for them only). */
export function isHtmlPage(data: RobotsData): boolean {
  return data === EMPTY_DATA;
}

/**
 * The longest crawl-delay a group keeps, in milliseconds (the largest int of its table): about
 * 24.8 days, longer than any crawler waits between two requests. A longer one is cut to it,
 * and the linter says so.
 */
export const MAX_CRAWL_DELAY_MS = 2 ** 31 - 1;

const BLANK_IN_URL = /\s/;
/**
 * A URL written as `URL.href` writes it, which most sitemap lines are: they need no parse.
 * Lower-case scheme and host name, whose last label starts with a letter (an IPv4 address
 * ends in a number) and no label is punycode (`xn--`, which WHATWG checks); no user, port,
 * query or fragment; a path of characters WHATWG keeps as they are (no `%`, no `\`) without
 * `.` or `..` segments (DOT_SEGMENT). A property test holds it to `new URL(value).href === value`.
 */
export const NORMAL_HTTP_URL = /^https?:\/\/(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*\/[\w\-.~!$&()*+,;=:@/]*$/;
export const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/**
 * The URL of a `sitemap` line as `URL.href` writes it (scheme and host lower-cased, default
 * port dropped, non-ASCII percent-encoded), or undefined when it is not an absolute http(s)
 * URL, which is all sitemaps.org allows there: written with `http://` or `https://`, no blank
 * (a URL has none: `s.xml extra words` is not one), and read by `new URL` (which needs a host
 * for http and https).
 */
export function sitemapUrl(value: string): string | undefined {
  if (isNormalHttpUrl(value)) return value;
  // WHATWG parsing needs a host for http(s): `https://user@/x` fails, as does `https://exa mple.com`.
  if (HTTP_URL_START.test(value) && !BLANK_IN_URL.test(value)) return urlOrNull(value)?.href;
  return undefined;
}

/** Whether `value` is an http(s) URL as `URL.href` writes it, known without a parse (see NORMAL_HTTP_URL). */
export function isNormalHttpUrl(value: string): boolean {
  return NORMAL_HTTP_URL.test(value) && !DOT_SEGMENT.test(value) && !value.includes('xn--');
}
