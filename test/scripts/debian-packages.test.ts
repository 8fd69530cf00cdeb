/**
 * scripts/debian-packages.mjs, which `.ci/run`, `npm test` and `npm start` run first: it finds
 * Chromium and redis-server, installs the missing ones with apt-get as root, and otherwise names
 * the command. apt-get here is a shell script of the test's own that logs its arguments.
 */
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type How = { root?: boolean; aptGet?: string; programs?: Record<string, string> };
const script = '../../scripts/debian-packages.mjs';
const { ensurePackages } = (await import(script)) as {
  ensurePackages: (names: string[], how?: How) => string[];
};

let dir: string;
let log: string;
let messages: string[];
const saved = { chromium: process.env['CHROMIUM_PATH'], redis: process.env['REDIS_SERVER'] };

/** Where the programs are looked for, standing in for Debian's /usr/bin. */
let programs: Record<string, string>;

/** A fake apt-get: logs each call; `install` creates the programs, or fails with `failInstall`. */
function fakeAptGet(failInstall = false): string {
  const path = join(dir, 'apt-get');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo "$*" >> "${log}"`,
      'if [ "$1" = install ]; then',
      failInstall
        ? '  echo "E: Unable to locate package" >&2; exit 100'
        : `  for p in "$@"; do [ "$p" = chromium ] && touch "${programs['chromium']}"; [ "$p" = redis-server ] && touch "${programs['redis-server']}"; done`,
      'fi',
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crawlee-robots-packages-'));
  log = join(dir, 'calls.log');
  programs = { chromium: join(dir, 'chromium'), 'redis-server': join(dir, 'redis-server') };
  delete process.env['CHROMIUM_PATH'];
  delete process.env['REDIS_SERVER'];
  messages = [];
  vi.spyOn(console, 'error').mockImplementation((message: string) => {
    messages.push(message);
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    messages.push(String(chunk));
    return true;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  for (const [key, value] of [
    ['CHROMIUM_PATH', saved.chromium],
    ['REDIS_SERVER', saved.redis],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('ensurePackages', () => {
  it('does nothing when the programs are there', () => {
    writeFileSync(join(dir, 'chromium'), '');
    writeFileSync(join(dir, 'redis-server'), '');
    expect(
      ensurePackages(['chromium', 'redis-server'], { programs, root: true, aptGet: fakeAptGet() }),
    ).toEqual([]);
    expect(existsSync(log)).toBe(false);
    expect(messages).toEqual([]);
  });

  it('installs the missing ones as root: apt-get update, then install of those alone', () => {
    writeFileSync(join(dir, 'chromium'), '');
    expect(
      ensurePackages(['chromium', 'redis-server'], { programs, root: true, aptGet: fakeAptGet() }),
    ).toEqual([]);
    expect(readFileSync(log, 'utf8')).toBe(
      'update -qq\ninstall -y -qq --no-install-recommends redis-server\n',
    );
    expect(messages.join('\n')).toContain(`Installing redis-server (${join(dir, 'redis-server')})`);
  });

  it('names the command and installs nothing when it is not root', () => {
    const aptGet = fakeAptGet();
    expect(ensurePackages(['chromium', 'redis-server'], { programs, root: false, aptGet })).toEqual([
      'chromium',
      'redis-server',
    ]);
    expect(existsSync(log)).toBe(false);
    expect(messages.join('\n')).toContain(
      "Install Debian's packages (sudo apt-get install chromium redis-server), or set CHROMIUM_PATH and REDIS_SERVER to programs of your own.",
    );
  });

  it('names the command when there is no apt-get', () => {
    expect(ensurePackages(['chromium'], { programs, root: true, aptGet: join(dir, 'no-apt-get') })).toEqual([
      'chromium',
    ]);
    expect(messages.join('\n')).toContain(
      '(apt-get install chromium), or set CHROMIUM_PATH to a program of your own.',
    );
  });

  it('reports a failed install with what apt-get said, and what is still missing', () => {
    expect(ensurePackages(['chromium'], { programs, root: true, aptGet: fakeAptGet(true) })).toEqual([
      'chromium',
    ]);
    const said = messages.join('\n');
    expect(said).toContain('E: Unable to locate package');
    expect(said).toContain('install -y -qq --no-install-recommends chromium failed (exit code 100)');
    expect(said).toContain('Still missing after apt-get: chromium.');
  });

  it('takes the program a variable names instead, and installs nothing for it', () => {
    writeFileSync(join(dir, 'own-chromium'), '');
    process.env['CHROMIUM_PATH'] = join(dir, 'own-chromium');
    expect(ensurePackages(['chromium'], { programs, root: true, aptGet: fakeAptGet() })).toEqual([]);
    expect(existsSync(log)).toBe(false);
  });

  it('says a variable names nothing, rather than installing a package it would not use', () => {
    process.env['REDIS_SERVER'] = join(dir, 'no-such-redis');
    expect(
      ensurePackages(['chromium', 'redis-server'], { programs, root: true, aptGet: fakeAptGet() }),
    ).toEqual(['redis-server']);
    expect(readFileSync(log, 'utf8')).toBe('update -qq\ninstall -y -qq --no-install-recommends chromium\n');
    expect(messages.join('\n')).toContain(
      `REDIS_SERVER names ${join(dir, 'no-such-redis')}, which does not exist.`,
    );
  });

  it('refuses a package it does not know', () => {
    expect(() => ensurePackages(['postgresql'], { programs, root: false, aptGet: 'apt-get' })).toThrow(
      'unknown package: postgresql',
    );
  });
});

describe('startRedis without a redis-server', () => {
  it('rejects with what to install, and leaves no folder behind', async () => {
    const { startRedis } = await import('../support/redis.js');
    const folders = () => readdirSync(tmpdir()).filter((name) => name.startsWith('crawlee-robots-redis-'));
    const before = folders();
    await expect(startRedis(join(dir, 'no-redis-server'))).rejects.toThrow(
      `${join(dir, 'no-redis-server')} could not be started (spawn ${join(dir, 'no-redis-server')} ENOENT): install Debian's redis-server`,
    );
    expect(folders()).toEqual(before);
  });
});
