/**
 * At most `limit` tasks at a time; the others wait their turn, first come first served. The
 * store runs its robots.txt fetches through one (a crawl meeting thousands of new origins at once
 * would otherwise open a connection to each, run out of file descriptors and take that local
 * failure for each site's being unreachable), and RedisBackend its commands.
 */
export class ConcurrencyLimit {
  readonly #limit: number;
  #running = 0;
  /** Waiting tasks, from `#head` on. */
  #waiting: Waiter[] = [];
  #head = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** True when a turn asked for now would wait. */
  get full(): boolean {
    return this.#running >= this.#limit;
  }

  /** Tasks waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await task();
    } finally {
      release();
    }
  }

  /**
   * Waits for a turn; resolves with the function that ends it (calls after the first do nothing).
   * Rejects when the waiting tasks are failed (see failWaiting).
   */
  async acquire(): Promise<() => void> {
    if (this.#running < this.#limit) this.#running++;
    // The turn is handed over by the task that ends: #running stays as it is.
    else await new Promise<void>((start, fail) => this.#waiting.push({ start, fail }));
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#next();
    };
  }

  /** Rejects every task still waiting with `error`: none of them gets a turn. */
  failWaiting(error: unknown): void {
    const waiting = this.#waiting.slice(this.#head);
    this.#waiting = [];
    this.#head = 0;
    for (const waiter of waiting) waiter.fail(error);
  }

  #next(): void {
    if (this.#head === this.#waiting.length) {
      this.#running--;
      return;
    }
    const { start } = this.#waiting[this.#head];
    this.#waiting[this.#head++] = DONE;
    // Dropped in halves, so a long queue is not shifted once per task.
    if (this.#head >= 1024 && this.#head * 2 >= this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
    start();
  }
}

interface Waiter {
  start: () => void;
  fail: (error: unknown) => void;
}

/** What a waiter that got its turn leaves behind in the queue. */
const DONE: Waiter = { start: () => {}, fail: () => {} };
