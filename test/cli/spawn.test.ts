/**
 * The CLI as a real process: `node --import tsx src/cli/main.ts ...`, with pipes for stdout and
 * stderr (so no colours), exit codes from the process itself.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { never, redirect, startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { SHOP_ROBOTS } from './run-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Octets written to stdin before the process closed it. */
  written: number;
}

function spawnCli(
  argv: string[],
  options: {
    stdin?: 'huge' | number;
    /** A descriptor, or `closed`: a pipe whose reader has gone away before the process writes. */
    stdout?: number | 'closed';
    stderr?: number;
    env?: Record<string, string>;
  } = {},
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...options.env };
    delete env['NO_COLOR'];
    delete env['FORCE_COLOR'];
    // A number is a descriptor the process gets as its standard input.
    const stdin = typeof options.stdin === 'number' ? options.stdin : 'pipe';
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...argv], {
      cwd: root,
      env,
      stdio: [stdin, typeof options.stdout === 'number' ? options.stdout : 'pipe', options.stderr ?? 'pipe'],
    });
    // Closed long before the process is up to write: its writes fail with EPIPE.
    if (options.stdout === 'closed') child.stdout?.destroy();
    let stdout = '';
    let stderr = '';
    let written = 0;
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, written }));
    const input = child.stdin;
    if (input === null) return;
    input.on('error', () => {
      // EPIPE: the CLI stopped reading, as it should.
    });
    if (options.stdin === 'huge') {
      // Up to 500 MB, written as fast as the pipe takes it, until the CLI closes its end.
      const chunk = Buffer.alloc(1024 * 1024, 'Disallow: /private/\n');
      const pump = () => {
        while (written < 500 * 1024 * 1024 && !input.destroyed) {
          written += chunk.length;
          if (!input.write(chunk)) {
            input.once('drain', pump);
            return;
          }
        }
        input.end();
      };
      pump();
    } else {
      input.end();
    }
  });
}

let shop: TestHttpServer;
beforeAll(async () => {
  shop = await startHttpServer({ '/robots.txt': text(SHOP_ROBOTS) });
});
afterAll(async () => {
  await shop.close();
});

describe('crawlee-robots as a process', () => {
  it('explain: exit 1 for a disallowed URL, plain text on a pipe', async () => {
    const run = await spawnCli(['explain', `${shop.origin}/cart`, '--agent', 'ExampleBot']);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')[0]).toBe(`DISALLOWED  ${shop.origin}/cart`);
    expect(run.stdout).toContain('   3 |> Disallow: /cart  <- decisive');
    expect(run.stdout).not.toContain('\u001b[');
    expect(run.stderr).toBe('');
  });

  it('explain --json: exit 0 for an allowed URL, JSON on stdout', async () => {
    const run = await spawnCli(['explain', `${shop.origin}/search/help`, '--agent', 'ExampleBot', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ allowed: true, rule: { line: 5 }, exitCode: 0 });
  });

  it('audit --fail-on: exit 1 when a rule trips', async () => {
    const run = await spawnCli(['audit', shop.origin, '--fail-on', 'blocked:Googlebot']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Fail-on: 1 of 1 rules tripped (exit 1)');
  });

  it('an unknown option: one line on stderr, exit 2', async () => {
    const run = await spawnCli(['audit', shop.origin, '--frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe("crawlee-robots: unknown option '--frobnicate' (see --help)\n");
  });

  it('a 500 MB stdin: refused early, never buffered', async () => {
    const started = performance.now();
    const run = await spawnCli(['explain', '/', '--agent', 'A', '--file', '-'], { stdin: 'huge' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'crawlee-robots: stdin is larger than 512000 octets (500 KiB, where RFC 9309 2.5 lets parsers stop); is it really a robots.txt?\n',
    );
    expect(run.written).toBeLessThan(64 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('a directory on stdin: one line, exit 2, not an empty robots.txt', async () => {
    const directory = openSync(tmpdir(), 'r');
    try {
      const run = await spawnCli(['explain', '/x', '--agent', 'A', '--file', '-'], { stdin: directory });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe('crawlee-robots: cannot read stdin: it is a directory\n');
    } finally {
      closeSync(directory);
    }
  });

  it('stdout that cannot be written (a full disk): one line on stderr, exit 2, never a verdict', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      for (const argv of [
        ['explain', `${shop.origin}/search/help`, '--agent', 'ExampleBot'],
        ['audit', shop.origin],
      ]) {
        const run = await spawnCli(argv, { stdout: full });
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(/^crawlee-robots: cannot write to stdout: .*ENOSPC.*\n$/);
      }
      // Nowhere to say it: the exit code alone tells a usage error from a verdict.
      const run = await spawnCli(['explain', '/', '--agnet', 'A'], { stderr: full });
      expect(run.code).toBe(2);
    } finally {
      closeSync(full);
    }
  });

  it('--html naming the file stdout writes to, or /dev/stdout on a pipe: refused, nothing written to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crawlee-robots-stdout-'));
    const out = join(dir, 'out.txt');
    const fd = openSync(out, 'w');
    try {
      // `> out.txt --html out.txt`.
      const run = await spawnCli(['audit', shop.origin, '--html', out], { stdout: fd });
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `crawlee-robots: --html ${out} is standard output: the HTML report goes to a file, as stdout holds the text or JSON report; give a file name such as --html report.html\n`,
      );
      expect(readFileSync(out, 'utf8')).toBe('');
    } finally {
      closeSync(fd);
    }
    const piped = await spawnCli(['audit', shop.origin, '--html', '/dev/stdout']);
    expect(piped.code).toBe(2);
    expect(piped.stdout).toBe('');
    expect(piped.stderr).toMatch(/^crawlee-robots: --html \/dev\/stdout is standard output: /);
    // Another file is written as ever, whatever stdout is.
    const fine = openSync(out, 'w');
    try {
      const run = await spawnCli(['audit', shop.origin, '--html', join(dir, 'report.html')], {
        stdout: fine,
      });
      expect(run.code).toBe(0);
      expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
      expect(readFileSync(out, 'utf8')).toMatch(/^Audit of /);
    } finally {
      closeSync(fine);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--html naming the file stdin is redirected from: refused, the file left as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crawlee-robots-stdin-'));
    const robots = join(dir, 'robots.txt');
    const urls = join(dir, 'urls.txt');
    writeFileSync(robots, SHOP_ROBOTS);
    writeFileSync(urls, '/\n/cart\n');
    try {
      // `--file - < robots.txt --html robots.txt` and `--urls - < urls.txt --html urls.txt`.
      for (const [file, argv] of [
        [robots, ['--file', '-']],
        [urls, ['--urls', '-']],
      ] as const) {
        const fd = openSync(file, 'r');
        try {
          const run = await spawnCli(['audit', shop.origin, ...argv, '--html', file], { stdin: fd });
          expect(run.code).toBe(2);
          expect(run.stderr).toBe(
            `crawlee-robots: --html ${file} is the file standard input reads: the report would overwrite it\n`,
          );
        } finally {
          closeSync(fd);
        }
      }
      expect(readFileSync(robots, 'utf8')).toBe(SHOP_ROBOTS);
      expect(readFileSync(urls, 'utf8')).toBe('/\n/cart\n');
      // Another file stdin is read from leaves the report free to go where it was asked.
      const fd = openSync(robots, 'r');
      try {
        const run = await spawnCli(
          ['audit', shop.origin, '--file', '-', '--html', join(dir, 'report.html')],
          {
            stdin: fd,
          },
        );
        expect(run.code).toBe(0);
        expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
      } finally {
        closeSync(fd);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--max-time bounds the run though a robots.txt fetch it started never ends', async () => {
    // The sitemap redirects to another origin, whose robots.txt is checked first and never answers.
    const silent = await startHttpServer({ '/robots.txt': never() });
    const site = await startHttpServer();
    site.route('/robots.txt', text(`User-agent: *\nAllow: /\n\nSitemap: ${site.origin}/s.xml\n`));
    site.route('/s.xml', redirect(`${silent.origin}/s.xml`, 302));
    try {
      for (const argv of [
        ['sitemaps', site.origin, '--max-time', '1', '--timeout', '60000'],
        ['audit', site.origin, '--from-sitemaps', '--max-time', '1', '--timeout', '60000'],
      ]) {
        const started = performance.now();
        const run = await spawnCli(argv);
        // tsx's start-up included; the fetch alone would hold the process for 60 s.
        expect(performance.now() - started).toBeLessThan(15_000);
        expect(run.code).toBe(2);
        expect(run.stderr).toContain('within --max-time 1 s');
      }
    } finally {
      await site.close();
      await silent.close();
    }
  }, 40_000);

  it('keeps the verdict as exit code when the reader of stdout goes away', async () => {
    const shop = 'test/cli/fixtures/shop.txt';
    for (const [code, ...argv] of [
      [1, 'explain', '/cart', '--agent', 'ExampleBot', '--file', shop],
      [1, 'explain', '/cart', '--agent', 'ExampleBot', '--file', shop, '--json'],
      [0, 'explain', '/', '--agent', 'ExampleBot', '--file', shop],
      [1, 'audit', 'https://shop.example', '--file', shop, '--fail-on', 'blocked:Googlebot'],
      [0, 'audit', 'https://shop.example', '--file', shop],
    ] as [number, ...string[]][]) {
      const run = await spawnCli(argv, { stdout: 'closed' });
      expect(run.code, argv.join(' ')).toBe(code);
      expect(run.stderr, argv.join(' ')).toBe('');
    }
  });

  it('refuses two readers of standard input, whatever its name', async () => {
    for (const [file, urls] of [
      ['/dev/stdin', '-'],
      ['-', '/dev/stdin'],
      ['/dev/stdin', '/proc/self/fd/0'],
    ]) {
      const run = await spawnCli(['audit', 'https://shop.example', '--file', file, '--urls', urls]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `crawlee-robots: --urls ${urls} and --file ${file} cannot both read standard input\n`,
      );
    }
  });

  it('a file that does not exist: one line, exit 2', async () => {
    const run = await spawnCli(['explain', '/', '--agent', 'A', '--file', 'no/such/robots.txt']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('crawlee-robots: cannot read no/such/robots.txt: no such file\n');
  });

  it('--version, --help, a usage error and an audit of listed URLs load no part of Crawlee; sitemaps do', async () => {
    const counter = join(root, 'test/cli/fixtures/count-crawlee-modules.mjs');
    const env = { NODE_OPTIONS: `--import ${counter}` };
    const loaded = (run: Spawned) => Number(/crawlee modules loaded: (\d+)/.exec(run.stderr)?.[1]);
    for (const [code, ...argv] of [
      [0, '--version'],
      [0, '--help'],
      [2, 'audit'],
      [2, 'explain', '/', '--agent', 'A', '--file', 'no/such/file'],
      [2, 'audit', 'localhost:8080'],
      [2, 'sitemaps', 'localhost:8080'],
      [2, 'audit', 'https://example.com', '--fail-on', ','],
      [2, 'audit', 'https://example.com', '--status', '503'],
      [2, 'audit', 'https://example.com', '--file', 'no/such/file'],
    ] as [number, ...string[]][]) {
      const run = await spawnCli(argv, { env });
      expect(run.code, argv.join(' ')).toBe(code);
      expect(loaded(run), argv.join(' ')).toBe(0);
    }
    const audit = await spawnCli(['audit', 'https://example.com', '--file', 'test/cli/fixtures/shop.txt'], {
      env,
    });
    expect(audit.code).toBe(0);
    expect(loaded(audit)).toBe(0);
    // Nothing listens on port 9 of the loopback: robots.txt is unreachable, and the run says so.
    const sitemaps = await spawnCli(['sitemaps', 'http://127.0.0.1:9/'], { env });
    expect(sitemaps.code).toBe(2);
    expect(loaded(sitemaps)).toBeGreaterThan(0);
  });
});
