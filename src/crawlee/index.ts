/**
 * The Crawlee plugin: RobotsGuard wraps a crawler's request manager, checks redirect hops and
 * browser navigations, defers URLs of unreachable robots.txt, paces Crawl-delay, and records every
 * URL it did not let the crawler fetch.
 */
export { RobotsGuard } from './guard.js';
export {
  GUARD_DEFAULTS,
  type RobotsCrawlDelayOptions,
  type RobotsGuardOptions,
  type RobotsSeedFromSitemapsOptions,
  type RobotsUnreachableOptions,
} from './options.js';
export type { RobotsDroppedRecord, RobotsDropReason, RobotsDropStage } from './record.js';
export { RobotsSkipError } from './skip.js';
export type { RobotsOriginSummary, RobotsRuleDrops, RobotsRunCounts, RobotsRunSummary } from './summary.js';
