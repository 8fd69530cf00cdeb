import type { OriginPolicy } from './policy.js';

/*
 * The size of a cached policy, measured rather than guessed. Heap experiment (Node 20.20,
 * `node --expose-gc`, heapUsed + arrayBuffers after full GCs, 3,000 origins each resolved through
 * a RobotsStore with an in-memory HTTP client, one check per origin, no backend), 2026-11-29:
 *
 *   body      47 B (1 rule)          ->   1,673 B per cached origin
 *   body   2,827 B (typical.txt)     ->   6,232 B
 *   body  22,476 B (typical.txt x 8) ->  33,093 B   (500 origins)
 *
 * The parsed file alone (RobotsTxt.parse + one explain) took 894 B and 5,465 B for the first two,
 * so the store's own share (policy object, hop list, LRU slot, strings) is about 780 B. A line
 * through the points: ~1,600 B + ~1.4 B per body octet. 1,700 B + 1.6 B per octet is used: the
 * typical file is then not under-counted (6,223 B calculated, 6,152-6,275 B measured in
 * `bench/store.bench.ts` runs) and the large one is over-counted by 14%. When a backend is
 * configured the raw body is kept too, at its length. The bench prints measured and calculated
 * sizes side by side: re-run it when the core's representation changes.
 */
const ENTRY_OVERHEAD_BYTES = 1700;
const PARSED_BYTES_PER_BODY_OCTET = 1.6;

/** The memory a cached policy takes, from the measured model above. */
export function entrySize(policy: OriginPolicy, body: Uint8Array | null): number {
  return Math.ceil(
    ENTRY_OVERHEAD_BYTES + policy.bodyBytes * PARSED_BYTES_PER_BODY_OCTET + (body?.byteLength ?? 0),
  );
}
