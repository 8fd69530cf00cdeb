import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlerInternals } from './crawler-internals.js';

/**
 * Chromium's "Preload pages" setting at "No preloading": the value of `net.network_prediction_options`
 * that makes every speculation-rules prefetch ineligible in the browser process (measured with
 * Chromium 156), whatever document, shadow root or header the rules came from.
 */
const NO_PRELOADING = { net: { network_prediction_options: 2 } };

/** The profiles made here that a browser still uses, removed as it closes or as the process exits. */
const profiles = new Set<string>();

/**
 * Removes what is left of the profiles made here, if the process exits with browsers still open.
 * It must run after Playwright's own exit handler, which kills those browsers: a Chromium still
 * running would write its profile again as its connection closes. See listenForExit.
 */
function removeLeftProfiles(): void {
  for (const dir of profiles) removeNow(dir);
  profiles.clear();
}

/** Removes profile `dir` before returning; a failure is left to the caller's next removal, if any. */
function removeNow(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // Nothing to report: the profile is a temporary folder of the guard's.
  }
}

/**
 * Puts removeLeftProfiles last among the process's exit listeners. Playwright adds its own, which
 * kills its browsers, when it launches a browser with none running. A listener added before that
 * launch would remove the profiles while Chromium still runs, and Chromium may write its profile
 * again before the kill (a `process.exit()` in a request handler left it in 1 of 15 runs).
 */
function listenForExit(): void {
  process.removeListener('exit', removeLeftProfiles);
  if (profiles.size > 0) process.once('exit', removeLeftProfiles);
}

/** A new, empty profile whose only setting is {@link NO_PRELOADING}. */
function profileWithoutPreloading(): string {
  const dir = mkdtempSync(join(tmpdir(), 'crawlee-robots-profile-'));
  mkdirSync(join(dir, 'Default'));
  writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify(NO_PRELOADING));
  profiles.add(dir);
  listenForExit();
  return dir;
}

/** How long a removed profile must stay gone, and how many removals are tried (see removeProfile). */
const SETTLE_MS = 500;
const REMOVALS = 10;
/** The profiles removeProfile is removing. */
const settling = new Set<string>();

/**
 * Removes profile `dir` for good. Its browser's connection closes before Chromium has exited,
 * and Chromium writes to its profile as it exits (its local state, preferences, the cache's
 * index): removed at once, the profile was written again and left behind. So it is removed
 * until it stays gone for SETTLE_MS. One still there after REMOVALS tries stays listed, for the
 * process's exit.
 */
async function removeProfile(dir: string): Promise<void> {
  if (!profiles.has(dir) || settling.has(dir)) return;
  settling.add(dir);
  try {
    for (let tries = 0; tries < REMOVALS; tries++) {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
      // Awaited with the process kept alive: at its exit Chromium would still write the profile again.
      await sleep(SETTLE_MS);
      if (!existsSync(dir)) {
        profiles.delete(dir);
        if (profiles.size === 0) process.removeListener('exit', removeLeftProfiles);
        return;
      }
    }
  } finally {
    settling.delete(dir);
  }
}

/**
 * Removes profile `dir` as the pool reports its browser closed. Playwright closes a persistent
 * context only once Chromium has exited, so nothing writes to the profile any more: removed at
 * once, before the pool's `close()` and the crawler's `run()` resolve, it is gone even if the
 * process is stopped right after (a test runner ends its workers with SIGTERM, which runs no exit
 * handler). removeProfile then checks that it stays gone, for a close that failed.
 */
function removeClosedProfile(dir: string): void {
  // Even when removeProfile is done with it: Chromium may have taken longer than SETTLE_MS to exit.
  removeNow(dir);
  void removeProfile(dir);
}

/** What the hooks below read of Crawlee's launch context. */
interface LaunchContextLike {
  userDataDir?: string;
  useIncognitoPages?: boolean;
  browserPlugin?: { library?: { name?: () => string } };
}

/** What the hooks below read of Crawlee's browser controller. */
interface BrowserControllerLike {
  launchContext?: LaunchContextLike;
  browser?: { once?: (event: 'disconnected', listener: () => void) => unknown };
  once?: (event: 'browserClosed', listener: () => void) => unknown;
}

/**
 * Launches the crawler's Chromium with preloading off, so that no speculation rule the guard's
 * sweeper did not reach makes the browser fetch a page on its own. The setting is a profile's, so
 * it is given only where the guard may choose the profile: a persistent context (Crawlee's
 * default) with no `userDataDir` of the user's, which would otherwise be a temporary profile of
 * Playwright's. The guard's profile is temporary too: removed as its browser closes, or as the
 * process exits. A profile of the user's is left as it is, and so is the one Playwright makes
 * for incognito pages (`useIncognitoPages`), which no launch option names (README).
 */
export function chromiumPreloadsNothing(crawler: CrawlerInternals): void {
  const pool = crawler.browserPool as { preLaunchHooks?: unknown[]; postLaunchHooks?: unknown[] } | undefined;
  pool?.preLaunchHooks?.push((_pageId: string, launchContext: LaunchContextLike) => {
    if (launchContext.browserPlugin?.library?.name?.() !== 'chromium') return;
    if (launchContext.useIncognitoPages === true) return;
    if (launchContext.userDataDir !== undefined && launchContext.userDataDir !== '') return;
    launchContext.userDataDir = profileWithoutPreloading();
  });
  pool?.postLaunchHooks?.push((_pageId: string, controller: BrowserControllerLike) => {
    const dir = controller.launchContext?.userDataDir;
    if (dir === undefined || !profiles.has(dir)) return;
    // After the launch, which may have added Playwright's exit listener.
    listenForExit();
    if (typeof controller.browser?.once !== 'function') return;
    controller.browser.once('disconnected', () => void removeProfile(dir));
    if (typeof controller.once === 'function')
      controller.once('browserClosed', () => removeClosedProfile(dir));
  });
}
