import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout split in lines. */
  lines: string[];
}

export interface RunOptions {
  /** Text or bytes on stdin, or a stream. */
  stdin?: string | Uint8Array | AsyncIterable<Uint8Array>;
  env?: Record<string, string | undefined>;
  /** Pretend stdout is a terminal. */
  tty?: boolean;
  cwd?: string;
}

/** Runs the CLI in-process with captured streams. NO_COLOR and FORCE_COLOR are unset unless given. */
export async function runInProcess(argv: string[], options: RunOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const stdin =
    options.stdin === undefined
      ? Readable.from([])
      : typeof options.stdin === 'string' || options.stdin instanceof Uint8Array
        ? Readable.from([Buffer.from(options.stdin)])
        : options.stdin;
  const code = await runCli(argv, {
    stdout: {
      write: (text: string) => {
        stdout += text;
        return true;
      },
      isTTY: options.tty === true,
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    stdin,
    env: options.env ?? {},
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  return { code, stdout, stderr, lines: stdout.split('\n') };
}

export const SHOP_ROBOTS = readFileSync(new URL('./fixtures/shop.txt', import.meta.url), 'utf8');
export const SHOP_ROBOTS_PATH = new URL('./fixtures/shop.txt', import.meta.url).pathname;

/** The line of `lines` that starts (after blanks) with `start`; fails the test when there is none. */
export function lineStarting(lines: readonly string[], start: string | RegExp): string {
  const found = lines.find((line) =>
    typeof start === 'string' ? line.trimStart().startsWith(start) : start.test(line),
  );
  if (found === undefined) throw new Error(`no line starting with ${String(start)} in:\n${lines.join('\n')}`);
  return found;
}

/** A table row split on runs of two or more blanks. */
export function cells(line: string): string[] {
  return line.trim().split(/\s{2,}/);
}
