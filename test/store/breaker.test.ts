import { describe, expect, it } from 'vitest';
import { BackendBreaker } from '../../src/store/breaker.js';

/** A manual clock: the cool-down is tested by moving it, never by sleeping. */
function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    set: (at: number) => {
      now = at;
    },
  };
}

function breaker(clock = manualClock()) {
  return { clock, breaker: new BackendBreaker({ initialDelayMs: 5000, maxDelayMs: 60_000 }, clock.now) };
}

describe('BackendBreaker', () => {
  it('lets every call through while closed', () => {
    const { breaker: subject } = breaker();
    expect([subject.admit(), subject.admit(), subject.admit()]).toEqual(['call', 'call', 'call']);
    expect(subject.isOpen).toBe(false);
  });

  it('opens on a failure: calls are skipped for the cool-down, and waiting calls are told', () => {
    const { breaker: subject, clock } = breaker();
    const told: string[] = [];
    subject.whenOpen(() => told.push('waiting'));
    const forget = subject.whenOpen(() => told.push('settled before'));
    forget();
    expect(told).toEqual([]);
    expect(subject.failed(subject.admit())).toBe('opened');
    expect(subject.isOpen).toBe(true);
    expect(told).toEqual(['waiting']);
    subject.whenOpen(() => told.push('while open'));
    expect(told).toEqual(['waiting', 'while open']);
    clock.advance(4999);
    expect(subject.admit()).toBe('skip');
  });

  it('counts the failures of calls made before it opened once: no doubling, no second warning', () => {
    const { breaker: subject, clock } = breaker();
    const calls = [subject.admit(), subject.admit(), subject.admit()];
    expect(calls.map((call) => subject.failed(call))).toEqual(['opened', undefined, undefined]);
    expect(subject.coolDownMs).toBe(5000);
    clock.advance(5000);
    expect(subject.admit()).toBe('probe');
  });

  it('lets one probe through after the cool-down, and skips the others while it runs', () => {
    const { breaker: subject, clock } = breaker();
    subject.failed(subject.admit());
    clock.advance(5000);
    expect(subject.admit()).toBe('probe');
    expect([subject.admit(), subject.admit()]).toEqual(['skip', 'skip']);
  });

  it('closes when the probe succeeds, and opens again for 5 s at a failure a longest cool-down later', () => {
    const { breaker: subject, clock } = breaker();
    subject.failed(subject.admit());
    clock.advance(5000);
    expect(subject.failed(subject.admit())).toBe('reopened');
    clock.advance(10_000);
    const probe = subject.admit();
    // Only the probe closes it: a call that got through before it opened proves nothing.
    expect(subject.succeeded('call')).toBeUndefined();
    expect(subject.succeeded(probe)).toBe('closed');
    expect(subject.isOpen).toBe(false);
    const told: string[] = [];
    subject.whenOpen(() => told.push('waiting'));
    expect(told).toEqual([]);
    expect(subject.admit()).toBe('call');
    clock.advance(60_000);
    expect(subject.failed('call')).toBe('opened');
    expect(told).toEqual(['waiting']);
    expect(subject.coolDownMs).toBe(5000);
  });

  it('takes a failure soon after a probe closed it as the same outage: the cool-down keeps doubling', () => {
    // A backend that answers the probe (a read) and refuses the next call (a write).
    const { breaker: subject, clock } = breaker();
    expect(subject.failed(subject.admit())).toBe('opened');
    const outcomes: string[] = [];
    const coolDowns: number[] = [];
    for (let round = 0; round < 6; round++) {
      clock.advance(subject.coolDownMs);
      outcomes.push(String(subject.succeeded(subject.admit())));
      const told: string[] = [];
      subject.whenOpen(() => told.push('waiting'));
      clock.advance(100);
      outcomes.push(String(subject.failed(subject.admit())));
      expect(told).toEqual(['waiting']);
      coolDowns.push(subject.coolDownMs);
    }
    expect(outcomes).toEqual([
      'closed',
      'reopened',
      ...Array.from({ length: 5 }, () => ['reclosed', 'reopened']).flat(),
    ]);
    expect(coolDowns).toEqual([10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
    // Quiet for the longest cool-down: the next failure is a new outage, told again.
    clock.advance(subject.coolDownMs);
    expect(subject.succeeded(subject.admit())).toBe('reclosed');
    clock.advance(60_000);
    expect(subject.failed(subject.admit())).toBe('opened');
    expect(subject.coolDownMs).toBe(5000);
    clock.advance(5000);
    expect(subject.succeeded(subject.admit())).toBe('closed');
  });

  it('doubles the cool-down after each failed probe, up to the longest', () => {
    const { breaker: subject, clock } = breaker();
    subject.failed(subject.admit());
    const coolDowns = [subject.coolDownMs];
    for (let probe = 0; probe < 6; probe++) {
      clock.advance(subject.coolDownMs - 1);
      expect(subject.admit()).toBe('skip');
      clock.advance(1);
      expect(subject.failed(subject.admit())).toBe('reopened');
      coolDowns.push(subject.coolDownMs);
    }
    expect(coolDowns).toEqual([5000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });

  it('does not stay open longer than its cool-down when the clock is set back', () => {
    const { breaker: subject, clock } = breaker();
    subject.failed(subject.admit());
    clock.advance(-3_600_000);
    expect(subject.admit()).toBe('probe');
  });
});
