import { type Configuration, Dataset, type Log } from 'crawlee';
import { outsideRequestHandlers } from '../store/index.js';
import { RecentKeys } from './recent-keys.js';
import type { RobotsDroppedRecord } from './record.js';

/** URLs of a batch that could not be written, named in the error logged. */
const UNWRITTEN_URLS_LOGGED = 20;

/**
 * The named Dataset of dropped URLs. Records are written in batches, off the crawler's hot path:
 * a record is queued at once and written with the others of the same tick; `flush()` waits for
 * all of them (the guard calls it before `crawler.run()` resolves).
 */
export class DroppedDataset {
  readonly #name: string;
  readonly #log: Log;
  #config: Configuration | undefined;
  #dataset: Promise<Dataset> | undefined;
  #buffer: RobotsDroppedRecord[] = [];
  #writing: Promise<void> = Promise.resolve();
  /** Records handed to the Dataset and not yet written. */
  #inFlight = 0;
  #scheduled = false;
  /**
   * The URLs recorded here that may be dropped again with no record (the guard's keys): the last
   * `keptUrls` of them. Each storage gets its own record of a URL.
   */
  readonly recordedUrls: RecentKeys;

  /**
   * Per crawler, when several write here (crawlers of one storage), the keys of recordedUrls its
   * `onSkippedRequest` was told of, each after the number of forgetDrops calls before it: each
   * crawler hears of its own drops, though the storage keeps one record. Weak: a crawler that is
   * done with is not kept.
   */
  readonly #told = new WeakMap<object, RecentKeys>();
  /** How many crawlers were ever counted by writtenBy. */
  #writers = 0;
  #generation = 0;
  readonly #keptUrls: number;

  readonly #onUnwritten: (count: number) => void;

  /** `onUnwritten` hears of the records that could not be written, as the storage failed. */
  constructor(name: string, log: Log, keptUrls: number, onUnwritten: (count: number) => void) {
    this.#name = name;
    this.#log = log;
    this.#onUnwritten = onUnwritten;
    this.#keptUrls = keptUrls;
    this.recordedUrls = new RecentKeys(keptUrls);
  }

  /** Forgets the drops recorded and told: a later run records and tells them again. */
  forgetDrops(): void {
    this.recordedUrls.clear();
    this.#generation++;
  }

  /** Counts `crawler` among those writing here. */
  writtenBy(crawler: object): void {
    if (this.#told.has(crawler)) return;
    this.#told.set(crawler, new RecentKeys(this.#keptUrls));
    this.#writers++;
  }

  /**
   * Whether `crawler`, one of several writing here, is yet to be told of the drop `key`,
   * remembering that it now is. False for the one crawler of a storage: the drops recordedUrls
   * knows were told to it.
   */
  untold(crawler: object, key: string): boolean {
    if (this.#writers < 2) return false;
    return this.#told.get(crawler)?.add(`${this.#generation} ${key}`) ?? false;
  }

  /** The storage configuration of the crawler the records belong to (its storage client). */
  useConfiguration(config: Configuration): void {
    if (this.#config === config) return;
    this.#config = config;
    this.#dataset = undefined;
  }

  /** Opens the Dataset (Crawlee style: by name, with the crawler's configuration). */
  open(): Promise<Dataset> {
    this.#dataset ??= Dataset.open(this.#name, this.#config === undefined ? {} : { config: this.#config });
    return this.#dataset;
  }

  push(record: RobotsDroppedRecord): void {
    this.#buffer.push(record);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#writeBuffer();
    });
  }

  /** Resolves when every queued record is written. */
  async flush(): Promise<void> {
    this.#writeBuffer();
    await this.#writing;
  }

  /**
   * Undefined while at most `limit` records wait to be written; else the promise of their writing.
   * For producers that can wait (a sitemap drops URLs far faster than a Dataset writes them):
   * their records would otherwise pile up in memory.
   */
  backlog(limit: number): Promise<void> | undefined {
    return this.#buffer.length + this.#inFlight > limit ? this.flush() : undefined;
  }

  #writeBuffer(): void {
    if (this.#buffer.length === 0) return;
    const batch = this.#buffer;
    this.#buffer = [];
    this.#inFlight += batch.length;
    // Written outside the request handler that dropped the URL (see outsideRequestHandlers).
    this.#writing = outsideRequestHandlers(() =>
      this.#writing.then(async () => {
        try {
          const dataset = await this.open();
          await dataset.pushData(batch);
        } catch (error) {
          // The URLs were not fetched all the same: the log keeps what the Dataset could not.
          this.#onUnwritten(batch.length);
          const shown = batch.slice(0, UNWRITTEN_URLS_LOGGED).map((record) => record.url);
          const more = batch.length - shown.length;
          this.#log.exception(
            error as Error,
            `Writing ${batch.length} records to Dataset ${this.#name} failed; these dropped URLs have no record: ${shown.join(' ')}${more > 0 ? ` and ${more} more` : ''}`,
          );
        } finally {
          this.#inFlight -= batch.length;
        }
      }),
    );
  }
}
