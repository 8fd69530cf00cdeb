import type { RobotsTxt } from '../robots/index.js';
import type { PolicyEntry } from './entry.js';

/*
 * The size of a cached policy, counted from what it holds rather than guessed from the size of
 * the robots.txt: a file of many user-agent lines or wildcard rules keeps several times its
 * text (about 20 times for thousands of indexed wildcard rules). The parsed file counts its own tables
 * and strings (RobotsTxt.retainedBytes), once prepared for the store's User-Agent so that its
 * checks add nothing; the store adds its own share. Checks for other crawlers (the optional
 * argument of check()) may add their groups' tables uncounted.
 *
 * That share, the entry object, the LRU's node and map slot, and the origin, robots.txt URL
 * and reason of an ordinary entry (about 150 characters), was measured at about 400-530 B per
 * origin (Node 20.20, `node --expose-gc`, heapUsed + arrayBuffers after full GCs, 2,000 origins
 * resolved through a RobotsStore with an in-memory HTTP client); ENTRY_BYTES is rounded up
 * from it. test/robots/retained.test.ts checks in a process of its own that no file, small or
 * adversarial, is counted below what it keeps; the store bench prints the count of a typical
 * entry next to its measured size.
 */
const ENTRY_BYTES = 600;
/** Characters of the origin, robots.txt URL and reason of the entries ENTRY_BYTES was measured on. */
const ORDINARY_STRINGS = 150;
/** A redirect hop as the entry keeps it, without its strings. */
const HOP_BYTES = 96;

/** What an entry holds, as the memory count reads it (see PolicyEntry.held). */
export interface HeldPolicy {
  origin: string;
  robotsTxtUrl: string;
  why: string;
  /** Set when the chain ended elsewhere than at robotsTxtUrl. */
  finalUrl?: string;
  cacheControl?: string;
  /** The hops kept as objects: none when the fetch was one request to robotsTxtUrl. */
  hops: readonly { url: string; location?: string }[];
  robots: RobotsTxt | null;
  /** The last good copy while it is not `robots` (during an outage), if parsed. */
  goodRobots: RobotsTxt | null;
  /** The raw body, when it is kept. */
  body: Uint8Array | null;
}

/** The memory a cached entry takes at most, for the store's LRU (two bytes per character of a string). */
export function entrySize(entry: PolicyEntry): number {
  const held = entry.held();
  // ENTRY_BYTES holds the origin, the robots.txt URL and the reason of an ordinary entry.
  let strings = Math.max(
    0,
    held.origin.length + held.robotsTxtUrl.length + held.why.length - ORDINARY_STRINGS,
  );
  strings += (held.finalUrl?.length ?? 0) + (held.cacheControl?.length ?? 0);
  let bytes = ENTRY_BYTES + 2 * strings + (held.body?.byteLength ?? 0);
  for (const hop of held.hops) bytes += HOP_BYTES + 2 * (hop.url.length + (hop.location?.length ?? 0));
  bytes += held.robots?.retainedBytes ?? 0;
  if (held.goodRobots !== null && held.goodRobots !== held.robots) bytes += held.goodRobots.retainedBytes;
  return bytes;
}
