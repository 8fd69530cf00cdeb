/**
 * Reading option values. Each reader turns a command-line string into a value or throws a
 * CliInputError with a message that says what is accepted.
 */
import { parseHttpUrl, withoutCredentials } from '../fetch/index.js';
import { codePointName, HTTP_URL_START, withoutUserinfo } from '../robots/index.js';
import { CliInputError } from './io.js';

/**
 * What a bare path (`/search?q=1`) may stand for: a URL to check against a local file
 * (`accepted`), the same when `--file` is missing (`needs-file`), or nothing (`refused`: a
 * site names an origin).
 */
export type PathUse = 'accepted' | 'needs-file' | 'refused';

/**
 * `localhost:8080/cart`, `example.com:443`: a host and a port with no scheme before them. The
 * URL parser reads `localhost:` as a scheme, so this is told apart before it.
 */
const HOST_AND_PORT = /^[A-Za-z0-9.-]+:\d+(?:[/?#]|$)/;

/** A scheme, e.g. `https:` or `ftp:`. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Text whose first part looks like a host name (`example.com`, `localhost`, `127.0.0.1`,
 * `[::1]`, with an optional port): only then is `https://` put before it as a suggestion.
 */
const LOOKS_LIKE_HOST =
  /^(?:localhost|\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]+)(?::\d+)?(?:[/?#]|$)/;

/**
 * An absolute http(s) URL. With a local file (`--file`) a bare path such as `/search?q=1` is
 * accepted too (`paths: 'accepted'`): no origin needs to be fetched. A path starting with `//`
 * is a path there too, as in a `--urls` list; elsewhere it is read as a URL without a scheme.
 */
export function readUrl(value: string, what: string, paths: PathUse): string {
  // Node reads the arguments as UTF-8 and puts U+FFFD for bytes that are not: `/caf\xE9` would
  // be checked as `/caf%EF%BF%BD`, a URL no one asked about.
  if (value.includes('\uFFFD')) {
    throw new CliInputError(
      `${what} holds bytes that are not UTF-8 (shown as U+FFFD): write it in UTF-8, or percent-encode them (%E9)`,
    );
  }
  if (value.startsWith('/') && paths === 'accepted') return value;
  // Messages quote the value without its credentials, as every output leaves them out.
  const shown = withoutUserinfo(value);
  const isPath = value.startsWith('/') && !value.startsWith('//');
  // A path has no host to suggest: say what would make it work.
  if (isPath) {
    throw new CliInputError(
      paths === 'needs-file'
        ? `${what} ${JSON.stringify(shown)} is a path: give --file with a local robots.txt to check a path, or write the full URL, e.g. https://example.com${value}`
        : `${what} ${JSON.stringify(shown)} is a path: write it as a full URL, e.g. https://example.com`,
    );
  }
  if (HOST_AND_PORT.test(value) || !SCHEME.test(value)) {
    const rest = shown.replace(/^\/+/, '');
    const orPath = paths === 'accepted' ? ' (or a path starting with / together with --file)' : '';
    if (LOOKS_LIKE_HOST.test(rest)) {
      throw new CliInputError(
        `${what} ${JSON.stringify(shown)} has no scheme; write it as an absolute URL, e.g. https://${rest}${orPath}`,
      );
    }
    throw new CliInputError(
      `${what} ${JSON.stringify(shown)} is neither an absolute URL nor a path starting with /; write it as an absolute URL, e.g. ${paths === 'refused' ? 'https://example.com' : 'https://example.com/page'}${orPath}`,
    );
  }
  // `https:///cart` and `https:/cart` are read by URL parsers as the host `cart`: not what was meant.
  if (/^https?:/i.test(value) && !HTTP_URL_START.test(value)) {
    throw new CliInputError(
      `${what} ${JSON.stringify(shown)} does not start with http:// or https:// and a host; a URL parser would take what follows the slashes for the host`,
    );
  }
  try {
    // robots.txt is fetched without them, and a report or CI log must not print them.
    return withoutCredentials(parseHttpUrl(value).href);
  } catch (error) {
    throw new CliInputError(`${what}: ${(error as Error).message}`);
  }
}

/** `--status`: an HTTP status from 100 to 599, except 407. */
export function readStatus(value: string): number {
  const status = Number(value);
  if (!/^\d{3}$/.test(value) || status < 100 || status > 599) {
    throw new CliInputError(
      `--status takes an HTTP status from 100 to 599, e.g. --status 503; got ${JSON.stringify(value)}`,
    );
  }
  // A 407 comes from a proxy in front of the crawler, not from the site: the fetcher reads it as
  // no answer, which for a local file would report a network problem that never happened.
  if (status === 407) {
    throw new CliInputError(
      '--status 407 is a proxy asking the crawler to log in, not an answer of the site; simulate the site with e.g. --status 404 or --status 503',
    );
  }
  return status;
}

/**
 * The longest `--timeout`: ten minutes, more than any robots.txt or sitemap needs. Node's timers
 * hold at most 2^31 - 1 ms (about 24.8 days) and fire at once past that, and the fetcher adds
 * its own slack on top: an unbounded value would time out at once.
 */
export const MAX_TIMEOUT_MS = 600_000;

/** The most URLs an audit checks. */
export const MAX_AUDIT_URLS = 1000;

/** How many sitemap URLs `audit --from-sitemaps` checks unless `--max-urls` says otherwise: a readable matrix. */
export const DEFAULT_SITEMAP_URLS = 50;

/** `--timeout`: milliseconds, from 1 to MAX_TIMEOUT_MS. */
export function readTimeout(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1 || ms > MAX_TIMEOUT_MS) {
    throw new CliInputError(
      `--timeout takes milliseconds, from 1 to ${MAX_TIMEOUT_MS} (10 minutes), e.g. --timeout 10000; got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

/** The longest `--max-time`: a day. */
const MAX_RUN_SECONDS = 86_400;

/** `--max-time`: whole seconds, from 1 to MAX_RUN_SECONDS. */
export function readMaxTime(value: string): number {
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds < 1 || seconds > MAX_RUN_SECONDS) {
    throw new CliInputError(
      `--max-time takes seconds, from 1 to ${MAX_RUN_SECONDS} (a day), e.g. --max-time 300; got ${JSON.stringify(value)}`,
    );
  }
  return seconds;
}

/**
 * RFC 9110 5.5: a field value is visible ASCII, blanks and tabs, and obs-text (0x80-0xFF);
 * node:http refuses anything else (`validateHeaderValue`), a line break above all.
 */
const NOT_IN_A_HEADER = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * What in `value` no User-Agent header can carry (`a line feed (U+000A) at position 4`), or
 * undefined. Checked before any request: the HTTP client would refuse the header, and the
 * fetch would read as "robots.txt unreachable".
 */
export function headerProblem(value: string): string | undefined {
  const bad = NOT_IN_A_HEADER.exec(value);
  if (bad === null) return undefined;
  const code = bad[0].codePointAt(0)!;
  const name = code === 0x0a ? 'a line feed' : code === 0x0d ? 'a carriage return' : 'a character';
  return `${name} (${codePointName(code)}) at position ${bad.index + 1}`;
}

/** `--user-agent`: one header value, not blank. */
export function readUserAgent(value: string): string {
  const problem = headerProblem(value);
  const why =
    problem !== undefined
      ? `holds ${problem}, which no User-Agent header can carry`
      : value.trim() === ''
        ? 'is blank'
        : undefined;
  if (why !== undefined) {
    throw new CliInputError(
      `--user-agent: ${JSON.stringify(value)} ${why}; give one line such as "ExampleBot/1.0 (+https://example.com/bot)"`,
    );
  }
  return value;
}

/** The User-Agent header sent for robots.txt: the crawler's own token in it (RFC 9309 2.2.1). */
export function userAgentHeader(agent: string, given: string | undefined): string {
  if (given !== undefined) return given;
  // A whole header given as --agent is sent as it is.
  if (/[/(; ]/.test(agent)) return agent;
  return `${agent === '*' ? 'crawlee-robots' : agent} (+https://www.npmjs.com/package/crawlee-robots; robots.txt check)`;
}

/** A count such as `--max-urls`: a positive integer. */
export function readCount(value: string, option: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || !Number.isSafeInteger(count)) {
    throw new CliInputError(
      `${option} takes a positive integer, e.g. ${option} 50; got ${JSON.stringify(value)}`,
    );
  }
  return count;
}

/** A file name: not empty (an empty name is the working directory, which no option means). */
export function readPath(value: string, option: string): string {
  if (value === '')
    throw new CliInputError(
      `${option} needs a file name, and got an empty one (was a shell variable empty?)`,
    );
  return value;
}

/**
 * `--html`: a file name. `-` is refused rather than taken for stdout: stdout already carries the
 * text or JSON report, and a file named `-` is never what was meant. (`runAudit` refuses the
 * other names of stdout, `/dev/stdout` and the file it is redirected to.)
 */
export function readHtmlFile(value: string): string {
  if (value === '-') throw new CliInputError(htmlOnStdout(value));
  return value;
}

/** Why `--html` refuses `given`, a name of stdout. */
export function htmlOnStdout(given: string): string {
  return `--html ${given}${given === '-' ? '' : ' is standard output'}: the HTML report goes to a file, as stdout holds the text or JSON report; give a file name such as --html report.html`;
}
