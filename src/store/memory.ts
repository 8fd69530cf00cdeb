/*
 * The size of a cached policy, measured rather than guessed. Heap experiment (Node 20.20,
 * `node --expose-gc`, heapUsed + arrayBuffers after full GCs, 2,000 origins each resolved through
 * a RobotsStore with an in-memory HTTP client, one check per origin, no backend), 2026-11-30:
 *
 *   body      34 B (1 rule)          ->   1,004 B per cached origin
 *   body   2,807 B (typical.txt)     ->   4,058 B
 *   body  22,575 B (typical.txt x 8) ->  29,754 B   (500 origins)
 *
 * The parsed file alone (RobotsTxt.parse + one check) took 472 B and 3,671 B for the first two,
 * so the store's own share (the entry, its origin and robots.txt URL, the LRU slot) is about
 * 400-530 B. A line through the points: ~960 B + ~1.28 B per body octet. 1,000 B + 1.3 B per
 * octet is used: no file is under-counted (typical.txt is over-counted by 15%, the others by
 * under 5%). When a backend is configured the raw body is kept too, at its length. The bench
 * prints measured and calculated sizes side by side: re-run it when the core's representation
 * changes.
 */
const ENTRY_OVERHEAD_BYTES = 1000;
const PARSED_BYTES_PER_BODY_OCTET = 1.3;

/** The memory a cached policy takes, from the measured model above. */
export function entrySize(bodyBytes: number, body: Uint8Array | null): number {
  return Math.ceil(ENTRY_OVERHEAD_BYTES + bodyBytes * PARSED_BYTES_PER_BODY_OCTET + (body?.byteLength ?? 0));
}
