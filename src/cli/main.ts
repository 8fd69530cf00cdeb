#!/usr/bin/env node
/**
 * `crawlee-robots`: the robots.txt tester (`explain`), auditor (`audit`) and sitemap lister
 * (`sitemaps`).
 *
 * `runCli(argv, io)` runs one command line with the given streams and resolves to the exit
 * code (0 allowed / nothing tripped, 1 disallowed / a --fail-on rule tripped, 2 usage or fetch
 * error), so that tests can run it in-process; run as a program, it uses the process's own.
 */
import { fstatSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import { CliInputError, type CliIo, EXIT } from './io.js';
import { buildProgram } from './program.js';
import { printable } from './style.js';

export type { CliInput, CliIo, CliOutput } from './io.js';

/**
 * Runs `crawlee-robots` with `argv` (the arguments after the program name).
 *
 * @example
 * const code = await runCli(['explain', 'https://example.com/x', '--agent', 'ExampleBot'], {
 *   stdout: process.stdout, stderr: process.stderr, stdin: process.stdin,
 * });
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.allowed;
  const program = buildProgram(io, (code) => {
    exitCode = code;
    io.onExitCode?.(code);
  });
  // `help <command>` for a command there is none of: commander would print the whole help.
  const [first, asked] = argv;
  if (
    first === 'help' &&
    asked !== undefined &&
    !program.commands.some((command) => command.name() === asked)
  ) {
    io.stderr.write(`crawlee-robots: unknown command '${printable(asked)}' (see --help)\n`);
    return EXIT.error;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; every other commander error is a usage error (already printed).
      return error.exitCode === 0 ? 0 : EXIT.error;
    }
    // Messages quote what was given and what a site served: its control characters are shown, not sent.
    if (error instanceof CliInputError) {
      io.stderr.write(`crawlee-robots: ${printable(error.message)}\n`);
      return EXIT.error;
    }
    const message = error instanceof Error ? error.message : String(error);
    // Installed without its peer dependency (`--omit=peer`): say what to install.
    if (
      error instanceof Error &&
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      message.includes("'crawlee'")
    ) {
      io.stderr.write(
        'crawlee-robots: this command needs Crawlee, which is not installed: npm install crawlee\n',
      );
      return EXIT.error;
    }
    // A bug: still one line, never a stack trace.
    io.stderr.write(`crawlee-robots: unexpected error: ${printable(message.split('\n')[0])}\n`);
    return EXIT.error;
  }
}

function isDirectory(fd: number): boolean {
  try {
    return fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    // npm links the bin into node_modules/.bin: compare real paths.
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  // The exit code, once the command knows it (see CliIo.onExitCode).
  let known: number = EXIT.allowed;
  // A reader that goes away (`| head`) is not an error: the exit code is the verdict, as with a
  // reader that reads it all. Any other failed write (a full disk) leaves the output incomplete:
  // exit 2, as for a usage error, never 1, which is a verdict.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(known);
    process.stderr.write(`crawlee-robots: cannot write to stdout: ${error.message}\n`, () => process.exit(2));
  });
  process.stderr.on('error', () => process.exit(2));
  const io: CliIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    // Read lazily: touching process.stdin opens it, which only `--file -` needs.
    get stdin() {
      // Node reads a directory on standard input (`< /tmp`) as an empty stream: an empty file.
      if (isDirectory(0)) throw new CliInputError('cannot read stdin: it is a directory');
      return process.stdin;
    },
    stdinFd: 0,
    onExitCode: (code) => {
      known = code;
    },
  };
  const code = await runCli(process.argv.slice(2), io);
  // Once the output is written, nothing is left to do: a robots.txt fetch that a stop at
  // --max-time left under way must not hold the process until its own timeout.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/** Resolves once what was written to `stream` before has been handed to the system. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed) resolve();
    else stream.write('', () => resolve());
  });
}
