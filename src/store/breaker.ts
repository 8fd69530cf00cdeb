/** Settings of a {@link BackendBreaker}. */
export interface BackendBreakerSettings {
  /** The first cool-down after a failure. */
  initialDelayMs: number;
  /** The longest cool-down; each failed probe doubles it up to this. */
  maxDelayMs: number;
}

/**
 * What the breaker lets a backend call do: go through (`call`), go through as the one probe
 * of a backend that failed (`probe`), or not be made at all (`skip`).
 */
export type BackendAdmission = 'call' | 'probe' | 'skip';

/**
 * The circuit breaker of a store's calls to its backend. A slow or dead backend costs every
 * call its full timeout; after one failure the breaker keeps the store from calling it at all.
 *
 * - Closed: every call goes through.
 * - A failure opens it: calls are skipped for a cool-down, and calls still waiting for the
 *   backend stop waiting ({@link BackendBreaker.whenOpen}).
 * - After the cool-down, one call is the probe (the others are still skipped while it runs):
 *   its success closes the breaker, its failure opens it again for twice as long, up to
 *   `maxDelayMs`.
 * - A failure less than `maxDelayMs` after a probe closed it is the same outage again (a
 *   backend that answers reads and refuses writes, say): it opens the breaker for twice as
 *   long, like a failed probe. A failure after that is a new outage, with the cool-down back
 *   at `initialDelayMs`.
 *
 * Times are read on the store's clock, so tests need no sleeps.
 */
export class BackendBreaker {
  readonly #settings: BackendBreakerSettings;
  readonly #clock: () => number;
  /** Clock time until which calls are skipped; undefined while the breaker is closed. */
  #openUntil: number | undefined;
  #coolDownMs: number;
  #probing = false;
  /** When a probe last closed the breaker; undefined since a new outage opened it. */
  #closedAt: number | undefined;
  /** Whether a probe closed the breaker since the outage began: its recovery was told. */
  #recovered = false;
  /** Calls waiting for the backend, told when it opens. */
  readonly #waiting = new Set<() => void>();

  constructor(settings: BackendBreakerSettings, clock: () => number) {
    this.#settings = settings;
    this.#clock = clock;
    this.#coolDownMs = settings.initialDelayMs;
  }

  /** Whether the backend is taken as down: between a failure and the next successful probe. */
  get isOpen(): boolean {
    return this.#openUntil !== undefined;
  }

  /** The cool-down the breaker is (or was last) open for. */
  get coolDownMs(): number {
    return this.#coolDownMs;
  }

  /**
   * Calls `listener` when the breaker opens, or at once if it is open: a call waiting for the
   * backend stops waiting for its timeout once the backend is known to be down. Returns the
   * function that forgets the listener, to be called when the call settles.
   */
  whenOpen(listener: () => void): () => void {
    if (this.#openUntil !== undefined) {
      listener();
      return () => undefined;
    }
    this.#waiting.add(listener);
    return () => this.#waiting.delete(listener);
  }

  /** Decides about a call about to be made; a `probe` must be reported by succeeded or failed. */
  admit(): BackendAdmission {
    if (this.#openUntil === undefined) return 'call';
    if (this.#probing) return 'skip';
    const now = this.#clock();
    // A clock set back must not stretch the cool-down: it never lasts longer than its length.
    if (now < this.#openUntil && this.#openUntil - now <= this.#coolDownMs) return 'skip';
    this.#probing = true;
    return 'probe';
  }

  /**
   * A call succeeded. Returns `closed` when it was the probe and closed the breaker for the first
   * time in this outage, `reclosed` when it closed it after a relapse, else undefined.
   */
  succeeded(admission: BackendAdmission): 'closed' | 'reclosed' | undefined {
    if (admission !== 'probe') return undefined;
    this.#probing = false;
    this.#openUntil = undefined;
    this.#closedAt = this.#clock();
    if (this.#recovered) return 'reclosed';
    this.#recovered = true;
    return 'closed';
  }

  /**
   * A call failed. Returns `opened` when it opened the breaker for a new outage, `reopened` when
   * it was the probe or a relapse (see the class), and undefined for a call that fails while the
   * breaker is open already.
   */
  failed(admission: BackendAdmission): 'opened' | 'reopened' | undefined {
    const probe = admission === 'probe';
    if (!probe && this.#openUntil !== undefined) return undefined;
    this.#probing = false;
    const now = this.#clock();
    const sinceClosed = this.#closedAt === undefined ? Number.POSITIVE_INFINITY : now - this.#closedAt;
    // A clock set back gives a negative time: taken as a new outage, never as a long relapse.
    const again = probe || (sinceClosed >= 0 && sinceClosed < this.#settings.maxDelayMs);
    if (again) this.#coolDownMs = Math.min(this.#coolDownMs * 2, this.#settings.maxDelayMs);
    else {
      this.#coolDownMs = Math.min(this.#settings.initialDelayMs, this.#settings.maxDelayMs);
      this.#closedAt = undefined;
      this.#recovered = false;
    }
    this.#openUntil = now + this.#coolDownMs;
    // Calls still waiting stop waiting (none wait while a probe runs: the breaker was open).
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const listener of waiting) listener();
    return again ? 'reopened' : 'opened';
  }
}
