/**
 * The streams a command reads and writes. `runCli` takes them as arguments so that tests
 * run the CLI in-process with their own streams, and `main.ts` passes the process's own.
 */

/** A stream the CLI writes text to. */
export interface CliOutput {
  write(text: string): unknown;
  /** Set by Node on a terminal; colours are used only there. */
  isTTY?: boolean;
  /** The file descriptor of a Node stdio stream: `--html` refuses the file stdout writes to. */
  fd?: number;
  /** A Node stream's: 'drain' once what a write that returned false held back has gone out. */
  once?(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * Writes `text` to `output`; when the stream holds it back (a pipe whose reader is slower),
 * resolves once it has gone out. A long output awaited so keeps a bounded memory: Node queues
 * in memory whatever a full pipe cannot take yet.
 */
export function writeInTurn(output: CliOutput, text: string): Promise<void> | undefined {
  if (output.write(text) !== false || output.once === undefined) return undefined;
  return new Promise((resolve) => {
    output.once!('drain', resolve);
    output.once!('close', resolve);
  });
}

/** The standard input: read chunk by chunk, never whole. */
export type CliInput = AsyncIterable<Uint8Array | string>;

export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  stdin: CliInput;
  /**
   * The file descriptor `stdin` reads, when it has one: `audit --html` refuses the file it is
   * (`--file - < robots.txt --html robots.txt`). Unlike `stdin`, asking for it opens nothing.
   */
  stdinFd?: number;
  /**
   * Environment variables (`NO_COLOR`, `FORCE_COLOR`).
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Directory relative file names are read from.
   * @default process.cwd()
   */
  cwd?: string;
  /**
   * Told the exit code as soon as the command knows it, before it writes its report: a process
   * whose reader goes away while it writes (`| head`) can still exit with its verdict.
   */
  onExitCode?: (code: number) => void;
}

/** Exit codes, after Google's `robots_main`: 0 allowed, 1 disallowed, 2 usage or fetch error. */
export const EXIT = { allowed: 0, disallowed: 1, error: 2 } as const;

/**
 * A problem with what the user asked for (an option, a URL, a file): reported as one line on
 * stderr, exit code 2, never a stack trace.
 */
export class CliInputError extends Error {
  override readonly name = 'CliInputError';
}
