/**
 * The compiler: the line handler that turns a file into compact tables for matching.
 * A parsed file is kept by the thousand in a crawler's cache, so rules live in typed
 * arrays over one string of patterns rather than as one object each.
 */

import { type TokenTable, tokenOfUserAgentLine } from './agent.js';
import type { GroupIndex } from './decide.js';
import { normalizePattern } from './encoding.js';
import type { Directive, FileSummary, RobotsLineHandler } from './lines.js';

/** Rule flags, stored in the low bits of a rule's third field. */
export const ALLOW = 1;
/** The pattern has a `*` before its end: it needs the wildcard matcher. */
export const WILDCARD = 2;
/** The pattern has no `*` and ends in `$`: the path must equal it. */
export const EXACT = 4;
/** Added by the parser (Google's `index.html` rule). */
export const DERIVED = 8;
/** An empty pattern: it matches nothing (RFC 9309 2.2.2, an empty `disallow` allows all). */
export const EMPTY = 16;
const FLAG_BITS = 5;

/** Fields per rule in `RobotsData.rules`. */
export const RULE_FIELDS = 3;
/** Fields per group as written, in `RobotsData.ints` at `groupsAt`. */
export const GROUP_FIELDS = 7;

/**
 * The compiled file. Rule ids are in file order; a derived rule follows its source.
 * Every integer table lives in `ints`, one allocation:
 * - rules at 0, RULE_FIELDS each: the start of the pattern in `patterns`;
 *   `length << 16 | matchLength`, where `length` ranks the rule and `matchLength` is
 *   the part the path must match (the pattern less its `$` or trailing `*`);
 *   `line << 5 | flags`;
 * - groups as written at `groupsAt`, GROUP_FIELDS each: startLine, endLine, firstAgent,
 *   agentCount, firstRule, ruleCount, crawl-delay in milliseconds (-1 for none);
 * - the line of every user-agent line at `agentsAt`;
 * - merged groups (one per token) at `rangesAt`, two each: from, to (exclusive), the
 *   positions in `ints` of the ids of the groups merged into it. Their rules are ranked
 *   on first use, into `ranked` (see rank.ts).
 */
export interface RobotsData {
  /** Every normalised pattern, back to back. */
  readonly patterns: string;
  readonly ints: Int32Array;
  readonly groupCount: number;
  readonly groupsAt: number;
  readonly agentsAt: number;
  readonly rangesAt: number;
  /** Patterns as written, only where they differ from the normalised form. */
  readonly rawPatterns: ReadonlyMap<number, string> | null;
  readonly agentValues: readonly string[];
  readonly tokens: TokenTable;
  readonly sitemaps: readonly string[];
  /** The ranked rules of each merged group, built on first use (see rank.ts). */
  ranked: Int32Array[] | null;
  /** Indexes of the large merged groups, built on first use (see decide.ts). */
  indexes: GroupIndex[] | null;
  /** Group descriptions for verdicts, built on first use (see explain.ts). */
  choices: Map<string, object> | null;
}

export function ruleStart(data: RobotsData, id: number): number {
  return data.ints[id * RULE_FIELDS];
}
export function ruleLength(data: RobotsData, id: number): number {
  return data.ints[id * RULE_FIELDS + 1] >>> 16;
}
export function ruleMatchLength(data: RobotsData, id: number): number {
  return data.ints[id * RULE_FIELDS + 1] & 0xffff;
}
export function ruleLine(data: RobotsData, id: number): number {
  return data.ints[id * RULE_FIELDS + 2] >>> FLAG_BITS;
}
export function ruleFlags(data: RobotsData, id: number): number {
  return data.ints[id * RULE_FIELDS + 2] & ((1 << FLAG_BITS) - 1);
}
export function rulePattern(data: RobotsData, id: number): string {
  const start = ruleStart(data, id);
  return data.patterns.slice(start, start + ruleLength(data, id));
}
/** One field of group `g` as written (see RobotsData). */
export function groupField(data: RobotsData, g: number, field: number): number {
  return data.ints[data.groupsAt + g * GROUP_FIELDS + field];
}
export const START_LINE = 0;
export const END_LINE = 1;
export const FIRST_AGENT = 2;
export const AGENT_COUNT = 3;
export const FIRST_RULE = 4;
export const RULE_COUNT = 5;
export const CRAWL_DELAY_MS = 6;

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

interface PendingRule {
  normalized: string;
  raw: string;
  line: number;
  flags: number;
  matchLength: number;
}

interface PendingGroup {
  startLine: number;
  endLine: number;
  firstAgent: number;
  agentCount: number;
  firstRule: number;
  ruleCount: number;
  crawlDelay: number;
}

const DELAY = /^\d+(?:\.\d+)?$/;
const INDEX_HTML = /\/index\.htm[^/]*$/;

/** Builds `RobotsData` from the events of one pass. */
export class RobotsCompiler implements RobotsLineHandler {
  private readonly rules: PendingRule[] = [];
  private readonly groups: PendingGroup[] = [];
  private readonly agentLines: number[] = [];
  private readonly agentValues: string[] = [];
  private readonly sitemaps: string[] = [];
  private readonly seenSitemaps = new Set<string>();
  /** Google's group boundary: a user-agent line after a rule line starts a new group. */
  private sawRule = true;
  private ignoreAll = false;

  directive(d: Directive): void {
    if (this.ignoreAll) return;
    const group = this.groups[this.groups.length - 1];
    switch (d.key) {
      case 'user-agent':
        if (this.sawRule || group === undefined) {
          this.groups.push({
            startLine: d.line,
            endLine: d.line,
            firstAgent: this.agentLines.length,
            agentCount: 0,
            firstRule: this.rules.length,
            ruleCount: 0,
            crawlDelay: Number.NaN,
          });
          this.sawRule = false;
        }
        this.agentLines.push(d.line);
        this.agentValues.push(d.value);
        this.current().agentCount++;
        this.current().endLine = d.line;
        return;
      case 'allow':
      case 'disallow':
        // RFC 9309 2.1: rules belong to the group above them; before any group they are void.
        if (group === undefined) return;
        this.sawRule = true;
        this.addRule(group, d.key === 'allow', d.value, d.line);
        return;
      case 'crawl-delay':
        if (group === undefined) return;
        if (DELAY.test(d.value)) {
          // Several delays in one group: keep the most polite.
          const seconds = Number(d.value);
          group.crawlDelay = Number.isNaN(group.crawlDelay) ? seconds : Math.max(group.crawlDelay, seconds);
        }
        group.endLine = d.line;
        return;
      case 'sitemap':
        // Sitemap lines belong to no group (RFC 9309 2.3.5); only absolute URLs are usable.
        if (isAbsoluteHttpUrl(d.value) && !this.seenSitemaps.has(d.value)) {
          this.seenSitemaps.add(d.value);
          this.sitemaps.push(d.value);
        }
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

  private current(): PendingGroup {
    return this.groups[this.groups.length - 1];
  }

  private addRule(group: PendingGroup, allow: boolean, raw: string, line: number): void {
    const normalized = normalizePattern(raw);
    this.pushRule(group, allow, raw, normalized, line, 0);
    // Google treats an allowed `index.html` as allowing its directory too: `/dir/index.html`
    // adds `/dir/$`. Only for allow rules.
    if (allow && INDEX_HTML.test(normalized)) {
      const directory = `${normalized.slice(0, normalized.lastIndexOf('/') + 1)}$`;
      this.pushRule(group, allow, directory, directory, line, DERIVED);
    }
    group.endLine = line;
  }

  private pushRule(
    group: PendingGroup,
    allow: boolean,
    raw: string,
    normalized: string,
    line: number,
    extra: number,
  ): void {
    let flags = extra | (allow ? ALLOW : 0);
    const length = normalized.length;
    const anchored = length > 0 && normalized.charCodeAt(length - 1) === 36; /* $ */
    let end = anchored ? length - 1 : length;
    // A trailing `*` (or `*$`) matches anything after it: the rest matches as a prefix.
    const bodyEnd = end;
    while (end > 0 && normalized.charCodeAt(end - 1) === 42 /* * */) end--;
    const star = normalized.indexOf('*');
    if (length === 0) flags |= EMPTY;
    else if (star >= 0 && star < end) flags |= WILDCARD;
    else if (anchored && end === bodyEnd) flags |= EXACT;
    this.rules.push({ normalized, raw, line, flags, matchLength: end });
    group.ruleCount++;
  }

  /** The compiled tables. Call once, after the pass. */
  finish(): RobotsData {
    const groups = this.ignoreAll ? [] : this.groups;
    const rules = this.ignoreAll ? [] : this.rules;
    const agentLines = this.ignoreAll ? [] : this.agentLines;
    const agentValues = this.ignoreAll ? [] : this.agentValues;

    // All patterns in one flat string of our own (a trailing blank makes `join` build a
    // new string even for one pattern): ranking and matching read it in place.
    const parts: string[] = [];
    for (const rule of rules) parts.push(rule.normalized);
    parts.push(' ');
    const patterns = parts.join('');

    // The groups of each token, merged (RFC 9309 2.2.1). Their rules are ranked on first
    // use (rank.ts): a file keeps many groups nobody asks about.
    const members = new Map<string, number[]>();
    groups.forEach((g, i) => {
      for (let a = g.firstAgent; a < g.firstAgent + g.agentCount; a++) {
        const token = tokenOfUserAgentLine(agentValues[a]);
        if (token === '') continue;
        const list = members.get(token);
        if (list === undefined) members.set(token, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
      }
    });

    const groupsAt = rules.length * RULE_FIELDS;
    const agentsAt = groupsAt + groups.length * GROUP_FIELDS;
    const rangesAt = agentsAt + agentLines.length;
    let membersAt = rangesAt + members.size * 2;
    let total = membersAt;
    for (const list of members.values()) total += list.length;
    const ints = new Int32Array(total);

    const raw = new Map<number, string>();
    let at = 0;
    for (let id = 0; id < rules.length; id++) {
      const rule = rules[id];
      ints[id * RULE_FIELDS] = at;
      ints[id * RULE_FIELDS + 1] = (rule.normalized.length << 16) | rule.matchLength;
      ints[id * RULE_FIELDS + 2] = (rule.line << FLAG_BITS) | rule.flags;
      at += rule.normalized.length;
      if (rule.raw !== rule.normalized && !(rule.flags & DERIVED)) raw.set(id, rule.raw);
    }
    groups.forEach((g, i) => {
      const base = groupsAt + i * GROUP_FIELDS;
      ints[base] = g.startLine;
      ints[base + 1] = g.endLine;
      ints[base + 2] = g.firstAgent;
      ints[base + 3] = g.agentCount;
      ints[base + 4] = g.firstRule;
      ints[base + 5] = g.ruleCount;
      ints[base + 6] = Number.isNaN(g.crawlDelay)
        ? -1
        : Math.min(Math.round(g.crawlDelay * 1000), 2 ** 31 - 1);
    });
    ints.set(agentLines, agentsAt);
    let m = 0;
    for (const list of members.values()) {
      ints[rangesAt + m * 2] = membersAt;
      ints.set(list, membersAt);
      membersAt += list.length;
      ints[rangesAt + m * 2 + 1] = membersAt;
      m++;
    }

    const rawValues = detach([...raw.values()]);
    const tokenList = [...members.keys()];
    return {
      patterns,
      ints,
      groupCount: groups.length,
      groupsAt,
      agentsAt,
      rangesAt,
      rawPatterns: raw.size === 0 ? null : new Map([...raw.keys()].map((id, i) => [id, rawValues[i]])),
      agentValues: detach(agentValues),
      tokens:
        tokenList.length <= SMALL_TOKEN_TABLE ? detach(tokenList) : new Map(tokenList.map((t, i) => [t, i])),
      sitemaps: detach(this.sitemaps),
      ranked: null,
      indexes: null,
      choices: null,
    };
  }
}

/** Up to this many distinct tokens, a list lookup beats a Map and costs less memory. */
const SMALL_TOKEN_TABLE = 8;

export function isAbsoluteHttpUrl(value: string): boolean {
  return /^https?:\/\/[^\s/?#]+/i.test(value);
}
