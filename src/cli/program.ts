/**
 * The command line: commands, their options and help texts (commander). Actions hand the
 * parsed options to `explain.ts`, `audit.ts` and `sitemaps.ts` and write what they return.
 * Those are imported when their command runs: the store and the seeder load Crawlee, which
 * takes over a second, and `--help`, `--version` or a usage error should not wait for it.
 */
import { createRequire } from 'node:module';
import { Command, Option } from 'commander';
import { checkAgent, joinAgents, parseAgentList } from './agents.js';
import {
  DEFAULT_SITEMAP_URLS,
  MAX_AUDIT_URLS,
  MAX_TIMEOUT_MS,
  readCount,
  readHtmlFile,
  readMaxTime,
  readPath,
  readStatus,
  readTimeout,
  readUrl,
  readUserAgent,
  userAgentHeader,
} from './args.js';
import { parseFailOn } from './fail-on.js';
import { CliInputError, type CliIo, writeInTurn } from './io.js';
import { createStyle, printable, wantsColor } from './style.js';

/** Options both commands share. */
interface CommonFlags {
  agents?: string[];
  file?: string;
  status?: number;
  json?: boolean;
  color?: boolean;
  userAgent?: string;
  timeout: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Builds the program; `setExitCode` receives the exit code of the command that ran. */
export function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  const program = new Command('crawlee-robots')
    .description('Test and audit robots.txt files the way RFC 9309 reads them.')
    .version(packageVersion(), '-V, --version', 'print the version of crawlee-robots')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One line per error: commander puts its "did you mean" suggestion on a line of its own.
      outputError: (text, write) =>
        write(`crawlee-robots: ${printable(oneLine(text.replace(/^error: /, '')))} (see --help)\n`),
    });

  // An option that takes one value, given twice, is a usage error: keeping the last one silently
  // would audit a file, a crawler or a status the user may not have meant.
  const given = new Set<string>();
  const once =
    <T>(option: string, read: (value: string) => T = (value) => value as T) =>
    (value: string): T => {
      refuseOptionAsValue(option, value);
      if (given.has(option)) throw new CliInputError(`${option} was given twice: give it once`);
      given.add(option);
      return read(value);
    };

  const common = (command: Command) =>
    command
      .option(
        '--agents <list>',
        'crawlers to compare, comma-separated; a whole User-Agent header may hold commas in its parentheses (repeatable: the lists are joined; default: search engines and AI crawlers)',
        (value: string, previous: string[] | undefined) => {
          refuseOptionAsValue('--agents', value);
          return joinAgents(previous ?? [], parseAgentList(value));
        },
      )
      .option(
        '-f, --file <path>',
        'read robots.txt from a local file, or - for standard input, instead of fetching it',
        once('--file', (value) => readPath(value, '--file')),
      )
      .option(
        '--status <code>',
        'with --file: simulate the HTTP status the file was served with (e.g. 404, 503)',
        once('--status', readStatus),
      )
      .option('--json', 'print JSON for machines instead of text')
      .addOption(new Option('--color', 'colour the output even when it is not a terminal'))
      .addOption(new Option('--no-color', 'never colour the output (NO_COLOR is honoured too)'))
      .option(
        '--user-agent <header>',
        'User-Agent header sent for robots.txt (default: the crawler token and this tool)',
        once('--user-agent', readUserAgent),
      )
      .option(
        '--timeout <ms>',
        `time allowed for fetching robots.txt (and each sitemap of audit --from-sitemaps), redirects included; at most ${MAX_TIMEOUT_MS}`,
        once('--timeout', readTimeout),
        DEFAULT_TIMEOUT_MS,
      );

  const styleFor = (flags: CommonFlags) =>
    createStyle(!flags.json && wantsColor(flags.color, io.stdout, env));
  const sourceOptions = (flags: CommonFlags, agent: string) => {
    if (flags.status !== undefined && flags.file === undefined) {
      throw new CliInputError('--status simulates the status of a local file: use it together with --file');
    }
    return {
      userAgent: userAgentHeader(agent, flags.userAgent),
      timeoutMs: flags.timeout,
      ...(flags.file === undefined ? {} : { file: flags.file }),
      ...(flags.status === undefined ? {} : { status: flags.status }),
      stdin: () => io.stdin,
      cwd,
    };
  };

  common(
    program
      .command('explain')
      .description(
        'Explain whether a crawler may fetch a URL: verdict, decisive line, group, status and lints.',
      )
      .argument('<url>', 'absolute URL to check (with --file, a path such as /search?q=1 is enough)')
      .requiredOption(
        '-a, --agent <name>',
        'the crawler: its product token (ExampleBot) or a whole User-Agent header',
        once('--agent'),
      ),
  ).action(async (url: string, flags: CommonFlags & { agent: string }) => {
    checkAgent(flags.agent, '--agent');
    const source = sourceOptions(flags, flags.agent);
    const pageUrl = readUrl(url, 'URL', flags.file === undefined ? 'needs-file' : 'accepted');
    const { runExplain } = await import('./explain.js');
    const { output, exitCode, noAnswer } = await runExplain(
      {
        ...source,
        url: pageUrl,
        agent: flags.agent,
        ...(flags.agents === undefined ? {} : { agents: flags.agents }),
        json: flags.json === true,
      },
      styleFor(flags),
    );
    setExitCode(exitCode);
    io.stdout.write(output);
    // As `audit`: why the exit code is 2, for a run whose output is kept or thrown away.
    if (noAnswer !== null && flags.json !== true) io.stderr.write(`crawlee-robots: ${printable(noAnswer)}\n`);
  });

  common(
    program
      .command('audit')
      .description('Audit a site: URLs x crawlers, the AI-crawler policy, lints; --fail-on rules for CI.')
      .argument('<site>', 'the site, e.g. https://example.com (its origin is audited)')
      .option(
        '--urls <file>',
        'URLs or paths to check, one a line (- for standard input); default: / and a path for each rule of the file',
        once('--urls', (value) => readPath(value, '--urls')),
      )
      .option(
        '--fail-on <rule>',
        'exit 1 when a rule trips (repeatable or comma-separated): blocked:<agent>, allowed:<agent>, lint:<error|warning|info|code>, unreachable',
        (value: string, previous: string[] = []) => {
          refuseOptionAsValue('--fail-on', value);
          return [...previous, value];
        },
      )
      .option(
        '--html <file>',
        'also write a self-contained HTML report to this file (- and other names of stdout are refused: stdout holds the text or JSON report)',
        once('--html', (value) => readHtmlFile(readPath(value, '--html'))),
      )
      .option(
        '--from-sitemaps',
        `check the URLs the sitemaps of robots.txt list (the first ${DEFAULT_SITEMAP_URLS}, see --max-urls)`,
      )
      .option(
        '--max-urls <n>',
        `with --from-sitemaps: how many URLs to check (at most ${MAX_AUDIT_URLS})`,
        once('--max-urls', (value) => readCount(value, '--max-urls')),
      )
      .option(
        '--max-time <seconds>',
        'with --from-sitemaps: stop reading sitemaps after this many seconds and audit the URLs read by then (default: no limit; --timeout bounds each file)',
        once('--max-time', readMaxTime),
      ),
  ).action(
    async (
      site: string,
      flags: CommonFlags & {
        urls?: string;
        failOn?: string[];
        html?: string;
        fromSitemaps?: boolean;
        maxUrls?: number;
        maxTime?: number;
      },
    ) => {
      if (flags.fromSitemaps === true && flags.urls !== undefined) {
        throw new CliInputError('--from-sitemaps and --urls both choose the URLs: use one');
      }
      if (flags.maxUrls !== undefined && flags.fromSitemaps !== true) {
        throw new CliInputError(
          '--max-urls caps the URLs read from sitemaps: use it together with --from-sitemaps',
        );
      }
      if (flags.maxTime !== undefined && flags.fromSitemaps !== true) {
        throw new CliInputError(
          '--max-time bounds the reading of sitemaps: use it together with --from-sitemaps',
        );
      }
      if (flags.maxUrls !== undefined && flags.maxUrls > MAX_AUDIT_URLS) {
        throw new CliInputError(`--max-urls: an audit checks at most ${MAX_AUDIT_URLS} URLs`);
      }
      // Every argument is read before the command's modules load: a usage error needs none of them.
      const source = sourceOptions(flags, flags.agents?.[0] ?? '*');
      const siteUrl = readUrl(site, 'site', 'refused');
      const failOn = parseFailOn(flags.failOn ?? []);
      const { runAudit } = await import('./audit.js');
      const { output, exitCode, exitReason, htmlError } = await runAudit(
        {
          ...source,
          site: siteUrl,
          ...(flags.agents === undefined ? {} : { agents: flags.agents }),
          ...(flags.urls === undefined ? {} : { urlsFile: flags.urls }),
          ...(flags.fromSitemaps === true
            ? {
                fromSitemaps: {
                  maxUrls: flags.maxUrls ?? DEFAULT_SITEMAP_URLS,
                  ...(flags.maxTime === undefined ? {} : { maxTimeSeconds: flags.maxTime }),
                },
              }
            : {}),
          failOn,
          ...(flags.html === undefined ? {} : { htmlFile: flags.html }),
          ...(io.stdout.fd === undefined ? {} : { stdoutFd: io.stdout.fd }),
          ...(io.stdinFd === undefined ? {} : { stdinFd: io.stdinFd }),
          json: flags.json === true,
        },
        styleFor(flags),
      );
      setExitCode(exitCode);
      io.stdout.write(output);
      // As `sitemaps`: JSON output carries the reason itself and leaves stderr empty.
      if (exitReason !== null && flags.json !== true)
        io.stderr.write(`crawlee-robots: ${printable(exitReason)}\n`);
      if (htmlError !== null) io.stderr.write(`crawlee-robots: ${printable(htmlError)}\n`);
    },
  );

  program
    .command('sitemaps')
    .description(
      'List the sitemaps a site declares in robots.txt and what they hold: URLs per sitemap, failures, URLs blocked for the agent.',
    )
    .argument('<site>', 'the site, e.g. https://example.com (the Sitemap: lines of its robots.txt are read)')
    .option(
      '-a, --agent <name>',
      'the crawler robots.txt is matched for (default: *, the group every crawler reads)',
      once('--agent'),
    )
    .option('--json', 'print JSON for machines instead of text')
    .option('--urls', 'print only the URLs robots.txt allows, one a line, for piping')
    .option('--strict', 'exit with code 2 when any sitemap could not be read (the list is then incomplete)')
    .option(
      '--max-urls <n>',
      'stop after reading this many URLs from the sitemaps',
      once('--max-urls', (value) => readCount(value, '--max-urls')),
    )
    .option(
      '--max-time <seconds>',
      'stop reading sitemaps after this many seconds and report what was read (default: no limit; --timeout bounds each file)',
      once('--max-time', readMaxTime),
    )
    .addOption(new Option('--color', 'colour the output even when it is not a terminal'))
    .addOption(new Option('--no-color', 'never colour the output (NO_COLOR is honoured too)'))
    .option(
      '--user-agent <header>',
      'User-Agent header sent for robots.txt and the sitemaps',
      once('--user-agent', readUserAgent),
    )
    .option(
      '--timeout <ms>',
      `time allowed for robots.txt and for each sitemap file, redirects included; at most ${MAX_TIMEOUT_MS}`,
      once('--timeout', readTimeout),
      DEFAULT_TIMEOUT_MS,
    )
    .action(
      async (
        site: string,
        flags: {
          agent?: string;
          json?: boolean;
          urls?: boolean;
          strict?: boolean;
          maxUrls?: number;
          maxTime?: number;
          color?: boolean;
          userAgent?: string;
          timeout: number;
        },
      ) => {
        // `*` is the default: given, it means the same.
        if (flags.agent !== undefined) checkAgent(flags.agent, '--agent', true);
        if (flags.json === true && flags.urls === true) {
          throw new CliInputError('--json and --urls are two outputs: choose one');
        }
        const siteUrl = readUrl(site, 'site', 'refused');
        const { runSitemaps } = await import('./sitemaps.js');
        const exitCode = await runSitemaps(
          {
            site: siteUrl,
            agent: flags.agent ?? '*',
            ...(flags.userAgent === undefined ? {} : { userAgent: flags.userAgent }),
            timeoutMs: flags.timeout,
            ...(flags.maxUrls === undefined ? {} : { maxUrls: flags.maxUrls }),
            ...(flags.maxTime === undefined ? {} : { maxTimeSeconds: flags.maxTime }),
            json: flags.json === true,
            urlsOnly: flags.urls === true,
            strict: flags.strict === true,
          },
          createStyle(flags.json !== true && flags.urls !== true && wantsColor(flags.color, io.stdout, env)),
          (text) => writeInTurn(io.stdout, text),
          (text) => io.stderr.write(text),
        );
        setExitCode(exitCode);
      },
    );

  return program;
}

function oneLine(text: string): string {
  return text
    .trim()
    .split(/\n+/)
    .map((part, i) => {
      const inner = part.trim().replace(/^\((.*)\)$/, '$1');
      return i === 0 ? inner : inner.charAt(0).toLowerCase() + inner.slice(1);
    })
    .join('; ');
}

/** The version in the package's package.json (two folders up from src/cli and from dist/cli). */
function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('../../package.json') as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/**
 * An option's value that is another option (`--agent --json`): the value was left out, most
 * often by a shell variable that was empty, and the next option would otherwise be read as it
 * (a crawler named `--json`, an HTML report written to a file named `--json`). `-` alone is a
 * value: standard input.
 */
function refuseOptionAsValue(option: string, value: string): void {
  if (/^-[A-Za-z-]/.test(value)) {
    throw new CliInputError(
      `${option} needs a value, and the next argument is the option ${JSON.stringify(value)}: give ${option} its value (was a shell variable empty?)`,
    );
  }
}
