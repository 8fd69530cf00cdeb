import type { RobotsTxt } from '../robots/index.js';
import type { PolicyEntry } from './entry.js';

/*
 * The size of a cached policy, counted from what it holds rather than guessed from the size of
 * the robots.txt: a file of many user-agent lines or wildcard rules keeps several times its
 * text (up to 3.5 times for 500 KiB of user-agent lines). The parsed file counts its own tables
 * and strings (RobotsTxt.retainedBytes); the store adds its own share.
 *
 * That share, the entry object with its origin and robots.txt URL strings, the LRU's node and
 * map slot, was measured at about 400-530 B per origin (Node 20.20, `node --expose-gc`,
 * heapUsed + arrayBuffers after full GCs, 2,000 origins resolved through a RobotsStore with an
 * in-memory HTTP client); ENTRY_BYTES is rounded up from it. test/store/memory.test.ts checks
 * in a separate process that no file, small or adversarial, is counted below what it takes.
 */
const ENTRY_BYTES = 600;
/** A redirect hop as the entry keeps it, without its strings. */
const HOP_BYTES = 96;

/** What an entry holds, as the memory count reads it. */
export interface HeldPolicy {
  origin: string;
  robotsTxtUrl: string;
  finalUrl: string;
  why: string;
  cacheControl?: string;
  hops: readonly { url: string; location?: string }[];
  robots: RobotsTxt | null;
  /** The last good copy while it is not `robots` (during an outage), if parsed. */
  goodRobots: RobotsTxt | null;
  /** The raw body, when it is kept. */
  body: Uint8Array | null;
}

/** The bytes a cached policy takes at most (two bytes per character of a string). */
export function policyBytes(held: HeldPolicy): number {
  let strings = held.origin.length + held.robotsTxtUrl.length + held.why.length;
  if (held.finalUrl !== held.robotsTxtUrl) strings += held.finalUrl.length;
  strings += held.cacheControl?.length ?? 0;
  let bytes = ENTRY_BYTES + 2 * strings + (held.body?.byteLength ?? 0);
  for (const hop of held.hops) bytes += HOP_BYTES + 2 * (hop.url.length + (hop.location?.length ?? 0));
  bytes += held.robots?.retainedBytes ?? 0;
  if (held.goodRobots !== null && held.goodRobots !== held.robots) bytes += held.goodRobots.retainedBytes;
  return bytes;
}

/** The memory a cached entry takes, for the store's LRU. */
export function entrySize(entry: PolicyEntry): number {
  return policyBytes({ ...entry.policy(), goodRobots: entry.goodRobots, body: entry.body });
}
