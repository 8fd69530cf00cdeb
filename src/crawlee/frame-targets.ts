/**
 * The out-of-process iframes of a page. Chromium runs a frame of another site (`localhost` in a
 * page of `127.0.0.1`, a video player embedded from another domain) in a process of its own,
 * with a CDP target of its own: the page's session then sees the iframe's first request, which
 * its parent makes, but nothing the iframe does itself afterwards (its script navigations, the
 * frames inside it). Each such target is attached from the page's session and watched as the
 * page is.
 *
 * Playwright's CDPSession sends on its own session only, so a target is reached through the page's
 * session with `Target.sendMessageToTarget`, and heard through `Target.receivedMessageFromTarget`
 * (auto-attach without `flatten`). The same goes one level down for an iframe of a third site
 * inside it.
 */

/** A CDP session, as Playwright's CDPSession and {@link FrameTargetSession} offer it. */
export interface CdpSessionLike {
  send(method: string, params?: object): Promise<unknown>;
  on(event: string, listener: (event: never) => void): unknown;
}

interface AttachedEvent {
  sessionId: string;
  targetInfo: { type: string; url: string };
  waitingForDebugger: boolean;
}

interface CdpMessage {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message?: string };
}

/** A session with an iframe's target, reached through the session of the target above it. */
export class FrameTargetSession implements CdpSessionLike {
  readonly #parent: CdpSessionLike;
  readonly #sessionId: string;
  #nextId = 0;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #listeners = new Map<string, ((event: never) => void)[]>();
  #detached = false;

  constructor(parent: CdpSessionLike, sessionId: string) {
    this.#parent = parent;
    this.#sessionId = sessionId;
  }

  send(method: string, params: object = {}): Promise<unknown> {
    if (this.#detached) return Promise.reject(new Error(`Target closed (${method})`));
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      const message = JSON.stringify({ id, method, params });
      this.#parent
        .send('Target.sendMessageToTarget', { sessionId: this.#sessionId, message })
        .catch((error: unknown) => {
          this.#pending.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }

  on(event: string, listener: (event: never) => void): this {
    const listeners = this.#listeners.get(event);
    if (listeners === undefined) this.#listeners.set(event, [listener]);
    else listeners.push(listener);
    return this;
  }

  /** A message of the target: the answer to a command, or an event. */
  receive(text: string): void {
    let message: CdpMessage;
    try {
      message = JSON.parse(text) as CdpMessage;
    } catch {
      return;
    }
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      if (message.error !== undefined) pending.reject(new Error(message.error.message ?? 'CDP error'));
      else pending.resolve(message.result);
      return;
    }
    if (message.method === undefined) return;
    for (const listener of this.#listeners.get(message.method) ?? []) listener(message.params as never);
  }

  /** The target is gone: its commands in flight fail, and later ones too. */
  detach(): void {
    this.#detached = true;
    for (const pending of this.#pending.values()) pending.reject(new Error('Target closed'));
    this.#pending.clear();
  }
}

/**
 * Attaches every out-of-process iframe of the target behind `session` as it is created, paused
 * before it runs, and hands its session to `watch`; the frame goes on once `watch` is done (or
 * failed: a frame is never left paused). Any other target (a worker) goes on at once, unwatched.
 */
export async function watchFrameTargets(
  session: CdpSessionLike,
  watch: (frame: FrameTargetSession) => Promise<void>,
): Promise<void> {
  const frames = new Map<string, FrameTargetSession>();
  session.on('Target.attachedToTarget', (event: AttachedEvent) => {
    const frame = new FrameTargetSession(session, event.sessionId);
    frames.set(event.sessionId, frame);
    const resume = () => {
      if (event.waitingForDebugger) frame.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    };
    if (event.targetInfo.type !== 'iframe') {
      resume();
      frames.delete(event.sessionId);
      session.send('Target.detachFromTarget', { sessionId: event.sessionId }).catch(() => undefined);
      return;
    }
    watch(frame).then(resume, resume);
  });
  session.on('Target.receivedMessageFromTarget', (event: { sessionId: string; message: string }) => {
    frames.get(event.sessionId)?.receive(event.message);
  });
  session.on('Target.detachedFromTarget', (event: { sessionId: string }) => {
    frames.get(event.sessionId)?.detach();
    frames.delete(event.sessionId);
  });
  await session.send('Target.setAutoAttach', {
    autoAttach: true,
    waitForDebuggerOnStart: true,
    flatten: false,
    filter: [{ type: 'iframe', exclude: false }, { exclude: true }],
  });
}
