import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Runs `fn` in the async context this module was loaded in: outside any request handler's.
 *
 * AdaptivePlaywrightCrawler forbids Crawlee storage inside the handler runs it may throw away
 * (`withCheckedStorageAccess`, an AsyncLocalStorage that every Dataset, KeyValueStore and queue
 * call consults, and that timers and promises started there inherit). What the store and the
 * guard keep in Crawlee storage (policies, records of dropped URLs) is no part of a handler's
 * result: it is written whichever run asked for it, so it is written from here.
 */
export const outsideRequestHandlers: <R>(fn: () => R) => R = AsyncLocalStorage.snapshot();
