import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chromiumPreloadsNothing } from '../../src/crawlee/preloading.js';

type Hook = (...args: unknown[]) => unknown;

/** The hooks a browser pool would run, on launch contexts of the shape Crawlee's have. */
function poolWithGuardHooks() {
  const pool = { preLaunchHooks: [] as Hook[], postLaunchHooks: [] as Hook[] };
  chromiumPreloadsNothing({ browserPool: pool } as never);
  /** Runs the hooks around a launch; `duringLaunch` stands for what the launch itself does. */
  const launch = (context: Record<string, unknown>, duringLaunch?: () => void) => {
    for (const hook of pool.preLaunchHooks) hook('page-1', context);
    duringLaunch?.();
    const browser = new EventEmitter();
    const controller = Object.assign(new EventEmitter(), { launchContext: context, browser });
    for (const hook of pool.postLaunchHooks) hook('page-1', controller);
    return Object.assign(browser, { controller });
  };
  return launch;
}

const library = (name: string) => ({ browserPlugin: { library: { name: () => name } } });

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('chromiumPreloadsNothing', () => {
  it("gives a persistent Chromium with no profile of the user's a temporary one with preloading off", async () => {
    const launch = poolWithGuardHooks();
    const context: Record<string, unknown> = {
      ...library('chromium'),
      userDataDir: '',
      useIncognitoPages: false,
    };
    const browser = launch(context);
    const dir = context.userDataDir as string;
    made.push(dir);
    expect(dir.startsWith(join(tmpdir(), 'crawlee-robots-profile-'))).toBe(true);
    const preferences = JSON.parse(readFileSync(join(dir, 'Default', 'Preferences'), 'utf8'));
    expect(preferences).toEqual({ net: { network_prediction_options: 2 } });

    browser.emit('disconnected');
    await expect.poll(() => existsSync(dir)).toBe(false);
  });

  it('gives each browser a profile of its own', () => {
    const launch = poolWithGuardHooks();
    const first: Record<string, unknown> = { ...library('chromium'), userDataDir: '' };
    const second: Record<string, unknown> = { ...library('chromium'), userDataDir: '' };
    launch(first);
    launch(second);
    made.push(first.userDataDir as string, second.userDataDir as string);
    expect(first.userDataDir).not.toBe(second.userDataDir);
  });

  it("leaves the user's profile, incognito pages and other browsers as they are", () => {
    const launch = poolWithGuardHooks();
    const mine = mkdtempSync(join(tmpdir(), 'users-profile-'));
    made.push(mine);
    const contexts: Record<string, unknown>[] = [
      { ...library('chromium'), userDataDir: mine },
      { ...library('chromium'), userDataDir: '', useIncognitoPages: true },
      { ...library('firefox'), userDataDir: '' },
      { userDataDir: '' },
    ];
    for (const context of contexts) launch(context);
    expect(contexts.map((context) => context.userDataDir)).toEqual([mine, '', '', '']);
    expect(existsSync(join(mine, 'Default'))).toBe(false);
  });

  it('removes a profile its browser never reported closed as the process exits', () => {
    const launch = poolWithGuardHooks();
    const context: Record<string, unknown> = { ...library('chromium'), userDataDir: '' };
    launch(context);
    const dir = context.userDataDir as string;
    made.push(dir);
    const listeners = process.listeners('exit');
    expect(listeners.length).toBeGreaterThan(0);
    // The listener the module registered: run it as the process would.
    for (const listener of listeners) if (listener.name === 'removeLeftProfiles') listener.call(process, 0);
    expect(existsSync(dir)).toBe(false);
  });

  it('removes the profile at once when the pool reports its browser closed', () => {
    const launch = poolWithGuardHooks();
    const context: Record<string, unknown> = { ...library('chromium'), userDataDir: '' };
    const browser = launch(context);
    const dir = context.userDataDir as string;
    made.push(dir);
    // Playwright has closed the context, so Chromium has exited: nothing waits.
    browser.controller.emit('browserClosed', browser.controller);
    expect(existsSync(dir)).toBe(false);
  });

  it('removes the profile when the pool reports its browser closed after a late write, though its removal had settled', async () => {
    const launch = poolWithGuardHooks();
    const context: Record<string, unknown> = { ...library('chromium'), userDataDir: '' };
    const browser = launch(context);
    const dir = context.userDataDir as string;
    made.push(dir);
    browser.emit('disconnected');
    // The removal stays settled for 500 ms, then forgets the profile.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(existsSync(dir)).toBe(false);
    // A Chromium that took longer to exit writes its local state again.
    mkdirSync(dir);
    writeFileSync(join(dir, 'Local State'), '{}');
    browser.controller.emit('browserClosed', browser.controller);
    expect(existsSync(dir)).toBe(false);
  });

  it("listens for the process's exit after the listener a launch adds, which kills the browser", () => {
    const launch = poolWithGuardHooks();
    const context: Record<string, unknown> = { ...library('chromium'), userDataDir: '' };
    // What Playwright does as it launches a browser with none running.
    function killBrowsers() {}
    launch(context, () => process.on('exit', killBrowsers));
    made.push(context.userDataDir as string);
    try {
      const names = process.listeners('exit').map((listener) => listener.name);
      expect(names.indexOf('removeLeftProfiles')).toBeGreaterThan(names.indexOf('killBrowsers'));
      expect(names.filter((name) => name === 'removeLeftProfiles')).toHaveLength(1);
    } finally {
      process.removeListener('exit', killBrowsers);
    }
  });
});
