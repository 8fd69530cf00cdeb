/** What {@link untilAborted} resolves with when the signal aborts first. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * `promise`, or {@link ABORTED} as soon as `signal` aborts. For waits that take no signal of
 * their own (the store's robots.txt fetches): the promise is left to settle, its robots.txt then
 * serves later checks, and a rejection after the abort is ignored.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
