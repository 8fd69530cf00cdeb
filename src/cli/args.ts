/**
 * Reading option values. Each reader turns a command-line string into a value or throws a
 * CliInputError with a message that says what is accepted.
 */
import { parseHttpUrl } from '../fetch/index.js';
import { CliInputError } from './io.js';

/**
 * An absolute http(s) URL. With a local file (`--file`) a bare path such as `/search?q=1` is
 * accepted too: no origin needs to be fetched.
 */
export function readUrl(value: string, what: string, allowPath: boolean): string {
  if (allowPath && value.startsWith('/')) return value;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) {
    const example = `https://${value.replace(/^\/+/, '')}`;
    throw new CliInputError(
      `${what} ${JSON.stringify(value)} has no scheme; write it as an absolute URL, e.g. ${example}${allowPath ? ' (or a path starting with / together with --file)' : ''}`,
    );
  }
  try {
    return parseHttpUrl(value).href;
  } catch (error) {
    throw new CliInputError(`${what}: ${(error as Error).message}`);
  }
}

/** `--status`: an HTTP status from 100 to 599. */
export function readStatus(value: string): number {
  const status = Number(value);
  if (!/^\d{3}$/.test(value) || status < 100 || status > 599) {
    throw new CliInputError(
      `--status takes an HTTP status from 100 to 599, e.g. --status 503; got ${JSON.stringify(value)}`,
    );
  }
  return status;
}

/** `--timeout`: milliseconds, a positive integer. */
export function readTimeout(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1) {
    throw new CliInputError(
      `--timeout takes milliseconds, a positive integer, e.g. --timeout 10000; got ${JSON.stringify(value)}`,
    );
  }
  return ms;
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
