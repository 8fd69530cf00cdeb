import {
  type SitemapDroppedUrl,
  type SitemapFilteredUrl,
  type SitemapRequest,
  SitemapSeeder,
  type SitemapSeedInput,
  type SitemapSeedOptions,
} from '../../../src/sitemap/index.js';
import { RobotsStore } from '../../../src/store/index.js';
import { type CapturedLine, captureLog } from '../../support/log.js';

/**
 * One seed run of `inputs` with a store of its own (closed after it), collecting what the run
 * handed on: the requests, the dropped and the filtered URLs, and the log, each line of which is
 * handed to `onLine` as it is logged.
 */
export async function seedInto(
  inputs: SitemapSeedInput[],
  options: Partial<SitemapSeedOptions> = {},
  storeOptions: Partial<ConstructorParameters<typeof RobotsStore>[0]> = {},
  onLine?: (line: CapturedLine) => void,
) {
  const requests: SitemapRequest[] = [];
  const dropped: SitemapDroppedUrl[] = [];
  const filtered: SitemapFilteredUrl[] = [];
  const { log, lines, warnings } = captureLog(onLine);
  const store = new RobotsStore({
    userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)',
    log,
    fetchTimeoutMs: 1000,
    ...storeOptions,
  });
  try {
    const result = await new SitemapSeeder({ store, log, timeoutMs: 2000 }).seed(inputs, {
      enqueue: async (batch) => {
        requests.push(...batch);
      },
      onDropped: (record) => {
        dropped.push(record);
      },
      onFiltered: (record) => filtered.push(record),
      progressIntervalMs: 0,
      ...options,
    });
    return {
      result,
      requests,
      dropped,
      filtered,
      lines,
      warnings,
      urls: requests.map((request) => request.url).sort(),
    };
  } finally {
    await store.close();
  }
}
