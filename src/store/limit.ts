/**
 * At most `limit` tasks at a time; the others wait their turn, first come first served. The
 * store runs its robots.txt fetches through one: a crawl that meets thousands of new origins at
 * once would otherwise open a connection to each, run out of file descriptors and take the local
 * failure (EMFILE) for each site's being unreachable.
 */
export class ConcurrencyLimit {
  readonly #limit: number;
  #running = 0;
  /** Waiting tasks' starts, from `#head` on. */
  #waiting: (() => void)[] = [];
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

  /** Waits for a turn; resolves with the function that ends it (calls after the first do nothing). */
  async acquire(): Promise<() => void> {
    if (this.#running < this.#limit) this.#running++;
    // The turn is handed over by the task that ends: #running stays as it is.
    else await new Promise<void>((start) => this.#waiting.push(start));
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#next();
    };
  }

  #next(): void {
    if (this.#head === this.#waiting.length) {
      this.#running--;
      return;
    }
    const start = this.#waiting[this.#head];
    this.#waiting[this.#head++] = noop;
    // Dropped in halves, so a long queue is not shifted once per task.
    if (this.#head >= 1024 && this.#head * 2 >= this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
    start();
  }
}

function noop(): void {}
