/**
 * `crawlee-robots audit <site>`: URLs x crawlers, the AI-crawler policy, the lints, and
 * `--fail-on` rules for CI.
 */
import { constants, fstatSync, type Stats, statSync } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { RobotsLint } from '../robots/index.js';
import { DEFAULT_AGENTS, sameAgent } from './agents.js';
import { type AiPolicy, aiPolicy } from './ai-policy.js';
import { htmlOnStdout, MAX_AUDIT_URLS } from './args.js';
import { renderAuditHtml } from './audit-html.js';
import { renderAudit } from './audit-render.js';
import { agentsNamedBy, evaluateFailOn, type FailOnRule, type FailOnTrip } from './fail-on.js';
import { CliInputError, EXIT } from './io.js';
import { jsonText, sourceJson } from './json.js';
import {
  gotNoAnswer,
  type LocalFileKind,
  loadRobots,
  messageOf,
  noAnswer,
  type RobotsSource,
  readLocal,
  type SourceOptions,
} from './source.js';
import type { Style } from './style.js';
import {
  decodeUrlList,
  listedUrls,
  NoUrlToAudit,
  type SitemapSample,
  type UrlSample,
  type UrlSource,
  urlsFromRules,
  urlsFromSitemaps,
} from './urls.js';
import { type CliVerdict, judge } from './verdicts.js';

export interface AuditOptions extends SourceOptions {
  /** The site: its origin is audited. */
  site: string;
  agents?: readonly string[];
  /** `--urls`: a file listing URLs or paths, `-` for stdin. */
  urlsFile?: string;
  failOn: readonly FailOnRule[];
  /** `--from-sitemaps`: the URLs come from the sitemaps robots.txt declares, at most `maxUrls`. */
  fromSitemaps?: { maxUrls: number; maxTimeSeconds?: number };
  /** `--html`: where to write the HTML report. */
  htmlFile?: string;
  /** The file descriptor stdout writes to, when it has one: `--html` refuses that file. */
  stdoutFd?: number;
  /** The file descriptor stdin reads, when it has one: `--html` refuses that file (`--file - < robots.txt`). */
  stdinFd?: number;
  json: boolean;
}

/** Everything `audit` reports, before it is rendered as text, JSON or HTML. */
export interface AuditReport {
  site: string;
  origin: string;
  source: RobotsSource;
  agents: string[];
  urls: string[];
  /**
   * Where the URLs came from: `rules` (none given: the home page and a path made up for each of
   * the file's first rules), a `list` (`--urls`) or the `sitemaps` (`--from-sitemaps`).
   */
  urlsFrom: 'rules' | 'list' | 'sitemaps';
  /** With `--from-sitemaps`: the sitemaps read and those that failed; otherwise null. */
  sitemaps: SitemapSample | null;
  /** Verdicts by URL (rows), then by crawler (in the order of `agents`). */
  matrix: CliVerdict[][];
  ai: AiPolicy;
  lints: readonly RobotsLint[];
  failOn: { rules: string[]; tripped: FailOnTrip[] };
  exitCode: number;
  /** Why the exit code is 2, in a few words (`the sitemap sample is incomplete`), or null. */
  error: string | null;
  /** When the report was made (ISO 8601). */
  generatedAt: string;
}

/** A `--urls` file: a few MiB hold far more lines than an audit checks URLs. */
const URL_LIST: LocalFileKind = {
  what: 'URL list',
  maxBytes: 4 * 1024 * 1024,
  limit: '4 MiB, the most a --urls list may hold',
  advice: `list each URL once (e.g. with sort -u): an audit checks at most ${MAX_AUDIT_URLS}`,
};

export async function runAudit(
  options: AuditOptions,
  style: Style,
): Promise<{ output: string; exitCode: number; exitReason: string | null; htmlError: string | null }> {
  if (
    options.urlsFile !== undefined &&
    options.file !== undefined &&
    readsStdin(options.urlsFile, options) &&
    readsStdin(options.file, options)
  ) {
    throw new CliInputError(
      `--urls ${options.urlsFile} and --file ${options.file} cannot both read standard input`,
    );
  }
  // The local files first: a typo in a path is said at once, not after the network.
  const htmlPath = options.htmlFile === undefined ? undefined : resolve(options.cwd, options.htmlFile);
  if (htmlPath !== undefined) {
    // Before any check of the path: a name of stdout is refused whatever it is on this system.
    if (STDOUT_NAMES.includes(htmlPath)) throw new CliInputError(htmlOnStdout(options.htmlFile!));
    const existing = await checkWritable(htmlPath, options.htmlFile!);
    refuseStdioFile(htmlPath, existing, options);
    await refuseOverwritingInput(htmlPath, existing, options);
  }
  const urlSource = await chooseUrlSource(options);
  const source = await loadRobots(options.site, options);
  let sample: UrlSample;
  try {
    sample = await urlSource({
      origin: source.fetch.origin,
      robots: source.fetch.robots,
      fetch: source.fetch,
    });
  } catch (error) {
    // No URL to audit: one line on stderr, and with --json a document that says why.
    if (!(error instanceof NoUrlToAudit) || !options.json) throw error;
    const output = jsonText(noUrlJson(options.site, source, error));
    return { output, exitCode: EXIT.error, exitReason: null, htmlError: null };
  }
  let report = auditReport(source, sample, options);
  // Why the exit code is 2 is said on stderr too (a robots.txt that got no answer, an incomplete
  // sitemap sample, as `sitemaps` says an incomplete list), for a run whose output is kept.
  const exitReason = noAnswer(source.fetch) ?? report.sitemaps?.incomplete ?? null;
  let htmlError: string | null = null;
  if (htmlPath !== undefined) {
    // A write that fails now (a full disk) loses no more than the page: the report is printed,
    // with the exit code the process ends with.
    htmlError = await writeFile(htmlPath, renderAuditHtml(report)).then(
      () => null,
      (error: unknown) => `cannot write ${options.htmlFile}: ${writeMessage(error, htmlPath)}`,
    );
    if (htmlError !== null) {
      report = {
        ...report,
        exitCode: EXIT.error,
        error: report.error ?? 'the HTML report could not be written',
      };
    }
  }
  const output = options.json ? jsonText(auditJson(report)) : renderAudit(report, style);
  return { output, exitCode: report.exitCode, exitReason, htmlError };
}

/**
 * Refuses a report path whose directory is missing or closed, or that is a directory. Returns
 * what is at the path now, if anything.
 */
async function checkWritable(path: string, given: string): Promise<Stats | undefined> {
  const refuse = (error: unknown): never => {
    throw new CliInputError(`cannot write ${given}: ${writeMessage(error, path)}`);
  };
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) refuse(Object.assign(new Error('directory'), { code: 'EISDIR' }));
  await access(existing === undefined ? dirname(path) : path, constants.W_OK).catch(refuse);
  return existing;
}

/**
 * Why a report could not be written to `path`: a file that cannot be made in a directory that is
 * there (`/proc/x.html`) is not said to lack its directory.
 */
function writeMessage(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if ((code === 'ENOENT' || code === 'ENOTDIR') && isDirectory(dirname(path)))
    return `no file can be made there (${code})`;
  return messageOf(error, 'no such directory');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The names of a process's own stdout, on Linux and macOS. */
const STDOUT_NAMES = ['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1'];

/**
 * Refuses a report path that is the file (pipe, terminal) stdout writes to, as `--html -` is
 * refused: `> out.txt` and `--html out.txt`, a link to /dev/stdout. The page would be mixed with
 * the text or JSON report. /dev/null mixes nothing. Refuses the file stdin reads as well, which
 * the page would replace.
 */
function refuseStdioFile(htmlPath: string, report: Stats | undefined, options: AuditOptions): void {
  if (report === undefined || htmlPath === '/dev/null') return;
  if (options.stdoutFd !== undefined && isFile(options.stdoutFd, report)) {
    throw new CliInputError(htmlOnStdout(options.htmlFile!));
  }
  // `--file - < robots.txt --html robots.txt`: the page would replace what the audit reads, or
  // what the user gave it to read.
  if (options.stdinFd !== undefined && isFile(options.stdinFd, report)) {
    throw new CliInputError(
      `--html ${options.htmlFile} is the file standard input reads: the report would overwrite it`,
    );
  }
}

/**
 * Whether `name` (of `--file` or `--urls`) reads standard input: `-`, or another name of the pipe
 * or terminal it is (`/dev/stdin`), which one reader would empty before the other. A regular file
 * is read from its start by each reader that opens it.
 */
function readsStdin(name: string, options: AuditOptions): boolean {
  if (name === '-') return true;
  if (options.stdinFd === undefined) return false;
  let stats: Stats;
  try {
    stats = statSync(resolve(options.cwd, name));
  } catch {
    // Said when it is read, with the reason.
    return false;
  }
  return !stats.isFile() && isFile(options.stdinFd, stats);
}

/** Whether descriptor `fd` is open on the file `stats` describes. */
function isFile(fd: number, stats: Stats): boolean {
  try {
    const open = fstatSync(fd);
    return open.dev === stats.dev && open.ino === stats.ino;
  } catch {
    // A descriptor that cannot be asked about is no file the report could name.
    return false;
  }
}

/** Refuses a report path that names a file the audit reads (`--file`, `--urls`): the page would replace it. */
async function refuseOverwritingInput(
  htmlPath: string,
  report: Stats | undefined,
  options: AuditOptions,
): Promise<void> {
  for (const [flag, given] of [
    ['--file', options.file],
    ['--urls', options.urlsFile],
  ] as const) {
    if (given === undefined || given === '-') continue;
    const input = resolve(options.cwd, given);
    // The same path, or another name of the same file (a link).
    const same =
      input === htmlPath ||
      (report !== undefined &&
        (await stat(input).then(
          (found) => found.dev === report.dev && found.ino === report.ino,
          () => false,
        )));
    if (same) {
      throw new CliInputError(
        `--html ${options.htmlFile} is the ${flag} file ${given}: the report would overwrite it`,
      );
    }
  }
}

async function chooseUrlSource(options: AuditOptions): Promise<UrlSource> {
  if (options.urlsFile !== undefined) {
    const bytes = await readLocal(options.urlsFile, options.cwd, options.stdin, URL_LIST);
    const name = options.urlsFile === '-' ? 'stdin' : options.urlsFile;
    return listedUrls(decodeUrlList(bytes, name), name, MAX_AUDIT_URLS);
  }
  if (options.fromSitemaps !== undefined) {
    return urlsFromSitemaps({
      ...options.fromSitemaps,
      agent: options.agents?.[0] ?? '*',
      userAgent: options.userAgent,
      timeoutMs: options.timeoutMs,
    });
  }
  return urlsFromRules(options.site);
}

function auditReport(
  source: RobotsSource,
  { urls, sitemaps }: UrlSample,
  options: Omit<AuditOptions, keyof SourceOptions>,
): AuditReport {
  const agents = [...(options.agents ?? DEFAULT_AGENTS)];
  // A crawler named by a --fail-on rule is checked even when --agents leaves it out.
  for (const agent of agentsNamedBy(options.failOn))
    if (!agents.some((a) => sameAgent(a, agent))) agents.push(agent);
  const matrix = urls.map((url) => agents.map((agent) => judge(source.fetch, url, agent)));
  const lints = source.fetch.robots?.lints ?? [];
  const tripped = evaluateFailOn(
    options.failOn,
    { matrix, lints, unreachable: source.fetch.kind === 'disallow-all', why: source.fetch.why },
    sameAgent,
  );
  // Exit 2 when no HTTP answer came back (the audit then says nothing about the site's file), or
  // when sitemaps failed: rules that pass on part of the sample may trip on the rest.
  const error = gotNoAnswer(source.fetch)
    ? 'robots.txt got no HTTP answer'
    : sitemaps !== null && sitemaps.incomplete !== null
      ? 'the sitemap sample is incomplete'
      : null;
  const exitCode = error !== null ? EXIT.error : tripped.length > 0 ? 1 : 0;
  return {
    site: options.site,
    origin: source.fetch.origin,
    source,
    agents,
    urls,
    urlsFrom:
      options.urlsFile !== undefined ? 'list' : options.fromSitemaps !== undefined ? 'sitemaps' : 'rules',
    sitemaps,
    matrix,
    ai: aiPolicy(source.fetch, urls),
    lints,
    failOn: { rules: options.failOn.map((rule) => rule.text), tripped },
    exitCode,
    error,
    generatedAt: new Date().toISOString(),
  };
}

/**
 * The `--json` output of an audit with no URL to check (`--from-sitemaps` found none): the site,
 * robots.txt, the sitemaps as read and the reason, without a matrix or an AI summary that no URL
 * would make true.
 */
function noUrlJson(site: string, source: RobotsSource, error: NoUrlToAudit) {
  return {
    site,
    origin: source.fetch.origin,
    robotsTxt: sourceJson(source),
    urls: [],
    fromSitemaps: error.sitemaps,
    error: error.message,
    exitCode: EXIT.error,
    generatedAt: new Date().toISOString(),
  };
}

/** The `--json` output of `audit`; its shape is documented in README-section.md. */
function auditJson(report: AuditReport) {
  return {
    site: report.site,
    origin: report.origin,
    robotsTxt: sourceJson(report.source),
    agents: report.agents,
    urlsFrom: report.urlsFrom,
    urls: report.matrix.map((row, i) => ({
      url: report.urls[i],
      path: row[0]?.path ?? new URL(report.urls[i]).pathname,
      verdicts: row.map((verdict) => ({
        agent: verdict.agent,
        allowed: verdict.allowed,
        reason: verdict.reason,
        line: verdict.rule?.line ?? null,
        rule: verdict.rule === null ? null : { kind: verdict.rule.kind, pattern: verdict.rule.pattern },
        group: { how: verdict.group.how, token: verdict.group.token },
      })),
    })),
    fromSitemaps: report.sitemaps,
    ai: report.ai,
    lints: report.lints,
    failOn: report.failOn,
    exitCode: report.exitCode,
    // Exit code 2 says why here too: stderr may not be kept with the document.
    error: report.error,
    generatedAt: report.generatedAt,
  };
}
