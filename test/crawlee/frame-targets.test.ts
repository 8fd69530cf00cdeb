import { describe, expect, it } from 'vitest';
import { FrameTargetSession } from '../../src/crawlee/frame-targets.js';

/** A parent session that keeps what is sent through it. */
function parentSession(fail = false) {
  const sent: { sessionId: string; message: { id: number; method: string; params: object } }[] = [];
  return {
    sent,
    send(method: string, params?: object): Promise<unknown> {
      if (fail) return Promise.reject(new Error('Target closed'));
      expect(method).toBe('Target.sendMessageToTarget');
      const { sessionId, message } = params as { sessionId: string; message: string };
      sent.push({ sessionId, message: JSON.parse(message) });
      return Promise.resolve({});
    },
    on: () => undefined,
  };
}

describe('FrameTargetSession', () => {
  it("sends through the parent, and answers each command with the target's reply or error", async () => {
    const parent = parentSession();
    const frame = new FrameTargetSession(parent, 'S1');
    const enabled = frame.send('Fetch.enable', { patterns: [] });
    const refused = frame.send('Nope.nothing');
    expect(parent.sent.map(({ sessionId, message }) => [sessionId, message.id, message.method])).toEqual([
      ['S1', 1, 'Fetch.enable'],
      ['S1', 2, 'Nope.nothing'],
    ]);
    frame.receive(JSON.stringify({ id: 2, error: { message: "'Nope.nothing' wasn't found" } }));
    frame.receive(JSON.stringify({ id: 1, result: { ok: true } }));
    await expect(enabled).resolves.toEqual({ ok: true });
    await expect(refused).rejects.toThrow("'Nope.nothing' wasn't found");
  });

  it('hands events to their listeners, and ignores what it cannot read', () => {
    const frame = new FrameTargetSession(parentSession(), 'S1');
    const seen: unknown[] = [];
    frame.on('Fetch.requestPaused', (event) => seen.push(event));
    frame.receive('not json');
    frame.receive(JSON.stringify({ id: 99, result: {} }));
    frame.receive(JSON.stringify({ method: 'Fetch.requestPaused', params: { requestId: 'r1' } }));
    frame.receive(JSON.stringify({ method: 'Page.frameNavigated', params: {} }));
    expect(seen).toEqual([{ requestId: 'r1' }]);
  });

  it('fails the commands in flight and later ones once the target is gone, or the parent refuses', async () => {
    const frame = new FrameTargetSession(parentSession(), 'S1');
    const inFlight = frame.send('Page.enable');
    frame.detach();
    await expect(inFlight).rejects.toThrow('Target closed');
    await expect(frame.send('Page.enable')).rejects.toThrow('Target closed');
    await expect(new FrameTargetSession(parentSession(true), 'S2').send('Page.enable')).rejects.toThrow(
      'Target closed',
    );
  });
});
