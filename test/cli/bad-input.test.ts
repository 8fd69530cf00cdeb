import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, SHOP_ROBOTS_PATH } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'crawlee-robots-bad-'));

/** One line on stderr, no stack trace, nothing on stdout, exit 2. */
function expectUsageError(
  run: { code: number; stdout: string; stderr: string },
  message: string | RegExp,
): void {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr.startsWith('crawlee-robots: ')).toBe(true);
  if (typeof message === 'string') expect(run.stderr).toContain(message);
  else expect(run.stderr).toMatch(message);
}

describe('bad input: one clear line, exit 2', () => {
  it('an unknown option', async () => {
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--bogus']),
      "unknown option '--bogus'",
    );
  });

  it('a misspelt option, with a suggestion on the same line', async () => {
    const run = await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--agnets', 'B']);
    expectUsageError(run, /unknown option '--agnets'; did you mean --agents\?/);
  });

  it('an unknown command, and no command', async () => {
    expectUsageError(await runInProcess(['frobnicate']), "unknown command 'frobnicate'");
    const none = await runInProcess([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: crawlee-robots');
  });

  it('a missing --agent', async () => {
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/']),
      "required option '-a, --agent <name>' not specified",
    );
  });

  it('a URL without scheme', async () => {
    expectUsageError(
      await runInProcess(['explain', 'example.com/private', '--agent', 'A']),
      'URL "example.com/private" has no scheme; write it as an absolute URL, e.g. https://example.com/private',
    );
    expectUsageError(await runInProcess(['audit', 'example.com']), 'site "example.com" has no scheme');
  });

  it('a URL that is not http(s)', async () => {
    expectUsageError(
      await runInProcess(['explain', 'ftp://a.example/x', '--agent', 'A']),
      'http and https URLs only',
    );
  });

  it('a bare path without --file', async () => {
    expectUsageError(await runInProcess(['explain', '/private', '--agent', 'A']), 'has no scheme');
  });

  it('a crawler name that is no product token', async () => {
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'Foo Bar']),
      '--agent: "Foo Bar" names no crawler',
    );
    expectUsageError(
      await runInProcess(['audit', 'https://a.example/', '--agents', 'Googlebot,1234']),
      '--agents: "1234" names no crawler',
    );
  });

  it('a missing, unreadable or directory file', async () => {
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', join(dir, 'missing.txt')]),
      `cannot read ${join(dir, 'missing.txt')}: no such file`,
    );
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', dir]),
      'it is a directory',
    );
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked.txt');
      writeFileSync(locked, 'User-agent: *\n');
      chmodSync(locked, 0);
      expectUsageError(
        await runInProcess(['explain', '/', '--agent', 'A', '--file', locked]),
        'permission denied',
      );
    }
  });

  it('a binary file: an image, gzip data, UTF-16', async () => {
    const png = join(dir, 'robots.png');
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', png]),
      /holds binary data \(a NUL octet at offset 8\), not a UTF-8 robots.txt/,
    );
    const gz = join(dir, 'robots.txt.gz');
    writeFileSync(gz, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]));
    expectUsageError(await runInProcess(['explain', '/', '--agent', 'A', '--file', gz]), 'holds gzip data');
    const utf16 = join(dir, 'utf16.txt');
    writeFileSync(utf16, Buffer.from('\uFEFFUser-agent: *', 'utf16le'));
    expectUsageError(await runInProcess(['explain', '/', '--agent', 'A', '--file', utf16]), 'binary data');
  });

  it('a 500 MB stdin: refused after reading at most the parser cap', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'Disallow: /x\n');
    let served = 0;
    async function* huge() {
      while (served < 500 * 1024 * 1024) {
        served += chunk.length;
        yield chunk;
      }
    }
    const run = await runInProcess(['explain', '/', '--agent', 'A', '--file', '-'], { stdin: huge() });
    expectUsageError(
      run,
      'stdin is larger than 512000 octets (500 KiB, where RFC 9309 2.5 lets parsers stop)',
    );
    expect(served).toBeLessThan(512_000 + 2 * chunk.length);
  });

  it('a file over 500 KiB', async () => {
    const big = join(dir, 'big.txt');
    writeFileSync(big, 'Disallow: /x\n'.repeat(50_000));
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', big]),
      'is larger than 512000 octets',
    );
  });

  it('bad --status, --timeout, --fail-on values, and --status without --file', async () => {
    expectUsageError(
      await runInProcess(['explain', '/', '--agent', 'A', '--file', SHOP_ROBOTS_PATH, '--status', '5O3']),
      '--status takes an HTTP status from 100 to 599',
    );
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--status', '503']),
      'use it together with --file',
    );
    expectUsageError(
      await runInProcess(['explain', 'https://a.example/', '--agent', 'A', '--timeout', 'soon']),
      '--timeout takes milliseconds',
    );
    expectUsageError(
      await runInProcess(['audit', 'https://a.example/', '--fail-on', 'blocked']),
      '--fail-on "blocked" is not a rule',
    );
  });

  it('both --file - and --urls - on stdin', async () => {
    expectUsageError(
      await runInProcess(['audit', 'https://a.example/', '--file', '-', '--urls', '-'], {
        stdin: 'User-agent: *\n',
      }),
      'cannot both read standard input',
    );
  });

  it('help is not an error', async () => {
    const run = await runInProcess(['explain', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: crawlee-robots explain [options] <url>');
    expect(run.stdout).toContain('--status <code>');
  });
});
