import type { RobotsDropStage } from './record.js';

/**
 * Thrown inside a request's processing (a got `beforeRedirect` hook, the router middleware, a
 * blocked browser navigation) to stop it. The guard catches it in the crawler's error path and
 * turns it into a skip (marked handled, recorded) or a deferral: never a failure, never a retry.
 * It only has that meaning on a crawler the guard is attached to, and when the guard threw it:
 * one made elsewhere has no record behind it and fails the request like any other error.
 */
export class RobotsSkipError extends Error {
  override readonly name = 'RobotsSkipError';

  constructor(
    /** The URL that was not fetched (credentials stripped). */
    readonly url: string,
    readonly stage: RobotsDropStage,
  ) {
    super(`robots.txt: ${url} is not fetched (${stage}); the request is skipped, not failed.`);
  }
}

/** What the guard does with a request whose navigation it stopped. */
export type NavigationBlock =
  /** Skipped; `told` when its drop has told the crawler's `onSkippedRequest` already. */
  | { action: 'skip'; told?: boolean }
  /** Deferred until `until`, or until `wake` settles if it does sooner (see RequestManagerInterceptor.hold). */
  | { action: 'defer'; until: number; wake?: Promise<unknown> };

/** The skips the guard threw: one a handler throws itself is an error like any other. */
const issued = new WeakSet<Error>();

/** A {@link RobotsSkipError} of the guard's own, after it recorded the drop. */
export function robotsSkip(url: string, stage: RobotsDropStage): RobotsSkipError {
  const skip = new RobotsSkipError(url, stage);
  issued.add(skip);
  return skip;
}

/**
 * True when `error` or one of its causes is a {@link RobotsSkipError} the guard threw (got wraps
 * hook errors); a handler may rethrow one it caught.
 */
export function isRobotsSkip(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (issued.has(current)) return true;
    current = current.cause;
  }
  return false;
}
