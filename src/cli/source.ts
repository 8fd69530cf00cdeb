/**
 * Where the robots.txt comes from: the origin over HTTP (through `fetchRobotsTxt`, so the
 * status rules of RFC 9309 2.3.1 are the fetcher's, not a copy), or a local file / stdin
 * answered by a stand-in HTTP client with a real or simulated status.
 */
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  fetchRobotsTxt,
  type RobotsFetchResult,
  type RobotsFetchStatus,
  type RobotsHttpClient,
  type RobotsHttpResult,
} from '../fetch/index.js';
import { DEFAULT_MAX_BYTES } from '../robots/index.js';
import { type CliInput, CliInputError } from './io.js';

export interface RobotsSource {
  /** `http`: fetched from the origin; `file` / `stdin`: read locally. */
  kind: 'http' | 'file' | 'stdin';
  /** The robots.txt URL, the file name as given, or `-`. */
  location: string;
  /** The status given with `--status` for a local file. */
  simulatedStatus?: number;
  /** The fetch outcome: status, hops, policy kind, parsed file. */
  fetch: RobotsFetchResult;
  /** The lines of the file as the parser numbers them (CR, LF and CRLF end lines); empty when there is no body. */
  lines: string[];
}

export interface SourceOptions {
  /** The crawler's User-Agent header for the HTTP request. */
  userAgent: string;
  timeoutMs: number;
  /** `--file`: a file name, or `-` for stdin. */
  file?: string;
  /** `--status` for a local file. */
  status?: number;
  /** The standard input, opened only when it is read. */
  stdin: () => CliInput;
  cwd: string;
}

/**
 * The most a local robots.txt may hold. RFC 9309 2.5 lets a parser stop at 500 KiB; a local
 * file larger than that is refused rather than cut, since it is most likely not a robots.txt
 * (a fetched one is cut and parsed, as a crawler would).
 */
const LOCAL_MAX_BYTES = DEFAULT_MAX_BYTES;

/** Used as the origin of a local file when the URL asked about is a bare path. */
const LOCAL_ORIGIN = 'http://localhost';

/** Fetches or reads the robots.txt that decides about `url`. */
export async function loadRobots(url: string, options: SourceOptions): Promise<RobotsSource> {
  if (options.file === undefined) {
    const fetch = await fetchRobotsTxt(url, { userAgent: options.userAgent, timeoutMs: options.timeoutMs });
    return { kind: 'http', location: fetch.robotsTxtUrl, fetch, lines: linesRead(fetch) };
  }
  const isStdin = options.file === '-';
  const bytes = await readLocal(options.file, options.cwd, options.stdin);
  const status = options.status ?? 200;
  const origin = url.startsWith('/') ? LOCAL_ORIGIN : url;
  const fetch = await fetchRobotsTxt(origin, {
    userAgent: options.userAgent,
    client: localAnswer(bytes, status),
  });
  return {
    kind: isStdin ? 'stdin' : 'file',
    location: options.file,
    ...(options.status === undefined ? {} : { simulatedStatus: options.status }),
    fetch,
    lines: linesRead(fetch),
  };
}

/** A stand-in HTTP client: every request gets `status` with the local bytes as its body. */
function localAnswer(bytes: Uint8Array, status: number): RobotsHttpClient {
  return {
    request: async (): Promise<RobotsHttpResult> => ({
      ok: true,
      status,
      headers: {},
      // As an HTTP client does, the body is read for 2xx answers only.
      body: status >= 200 && status <= 299 ? bytes : new Uint8Array(0),
      truncated: false,
    }),
  };
}

/** Reads a stream up to the cap and stops there: a 500 MB stdin is never buffered. */
async function readCapped(input: CliInput, name: string, kind = ROBOTS_TXT): Promise<Uint8Array> {
  const cap = kind.maxBytes;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // Leaving the loop early (the throw below) destroys the stream: the writer gets EPIPE.
    for await (const chunk of input) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.byteLength;
      if (size > cap) throw tooLarge(name, kind);
      chunks.push(bytes);
    }
  } catch (error) {
    if (error instanceof CliInputError) throw error;
    throw new CliInputError(`cannot read ${name}: ${messageOf(error)}`);
  }
  return Buffer.concat(chunks);
}

/** What a local file is read as: named in messages, with the most octets it may hold. */
export interface LocalFileKind {
  /** `robots.txt`, `URL list`. */
  what: string;
  maxBytes: number;
  /** The cap in words, for the message that refuses a larger file (`4 MiB, the most ...`). */
  limit: string;
  /** What to do about a larger file. */
  advice: string;
}

const ROBOTS_TXT: LocalFileKind = {
  what: 'robots.txt',
  maxBytes: LOCAL_MAX_BYTES,
  limit: '500 KiB, where RFC 9309 2.5 lets parsers stop',
  advice: 'is it really a robots.txt?',
};

/** Reads a local file, or stdin for `-`, refusing more than `kind.maxBytes` octets and binary data. */
export async function readLocal(
  file: string,
  cwd: string,
  stdin: () => CliInput,
  kind = ROBOTS_TXT,
): Promise<Uint8Array> {
  const name = file === '-' ? 'stdin' : file;
  const bytes =
    file === '-'
      ? await readCapped(stdin(), name, kind)
      : await readFileCapped(resolve(cwd, file), name, kind);
  rejectBinary(bytes, name, kind.what);
  return bytes;
}

async function readFileCapped(path: string, name: string, kind: LocalFileKind): Promise<Uint8Array> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new CliInputError(`cannot read ${name}: ${messageOf(error)}`);
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new CliInputError(`cannot read ${name}: it is a directory`);
    // A FIFO or device has no size, nor has a file of /proc or of some FUSE file systems, whose
    // size reads 0 whatever it holds: read those as a stream, with the same cap.
    if (!info.isFile() || info.size === 0)
      return await readCapped(handle.createReadStream({ autoClose: false }), name, kind);
    if (info.size > kind.maxBytes) throw tooLarge(name, kind);
    const buffer = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buffer, 0, info.size, 0);
    return buffer.subarray(0, bytesRead);
  } catch (error) {
    if (error instanceof CliInputError) throw error;
    throw new CliInputError(`cannot read ${name}: ${messageOf(error)}`);
  } finally {
    await handle.close();
  }
}

function tooLarge(name: string, kind: LocalFileKind): CliInputError {
  return new CliInputError(`${name} is larger than ${kind.maxBytes} octets (${kind.limit}); ${kind.advice}`);
}

/**
 * robots.txt is UTF-8 text (RFC 9309 2.2), and so is a URL list. NUL octets, or a body that is
 * mostly control characters, mean an image, an archive or UTF-16: refused with a clear message
 * that names what the file should have been (`what`).
 */
function rejectBinary(bytes: Uint8Array, name: string, what: string): void {
  const head = bytes.subarray(0, 8192);
  const nul = head.indexOf(0);
  let control = 0;
  for (const octet of head) if (octet < 0x20 && octet !== 0x09 && octet !== 0x0a && octet !== 0x0d) control++;
  if (nul >= 0 || (head.length > 0 && control / head.length > 0.1)) {
    const found = bytes[0] === 0x1f && bytes[1] === 0x8b ? 'gzip data' : 'binary data';
    throw new CliInputError(
      `${name} holds ${found}${nul >= 0 ? ` (a NUL octet at offset ${nul})` : ''}, not a UTF-8 ${what}`,
    );
  }
}

const decoder = new TextDecoder('utf-8');

/**
 * The lines the parser read: a file cut at the size limit (RFC 9309 2.5) keeps some octets past
 * it in `body`, whose lines were not read.
 */
function linesRead(fetch: RobotsFetchResult): string[] {
  const lines = linesOf(fetch.body);
  const ignoredFrom = fetch.robots?.lints.find((lint) => lint.code === 'file-too-large')?.line;
  return ignoredFrom === undefined ? lines : lines.slice(0, ignoredFrom - 1);
}

/** The file's lines numbered as the parser numbers them: a byte order mark skipped, CR, LF and CRLF end a line. */
function linesOf(body: Uint8Array | null): string[] {
  if (body === null || body.byteLength === 0) return [];
  // TextDecoder drops a leading BOM, as the parser does.
  const lines = decoder.decode(body).split(/\r\n|\r|\n/);
  // A final line end starts no line of its own.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** Why a file could not be read or written, in words (`no such file`, not `ENOENT`). */
export function messageOf(error: unknown, missing = 'no such file'): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return missing;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'permission denied';
    if (code === 'EISDIR') return 'it is a directory';
    if (code === 'ENOSPC') return 'no space left on device';
    return error.message.split('\n')[0];
  }
  return String(error);
}

/** A robots.txt status as the reports say it: `HTTP 503`, or why there was none (`timeout`). */
export function statusText(status: RobotsFetchStatus): string {
  return typeof status === 'number' ? `HTTP ${status}` : status;
}

/** True when the fetch got no HTTP answer at all (DNS, refused, reset, TLS, timeout). */
export function gotNoAnswer(fetch: RobotsFetchResult): boolean {
  return noAnswer(fetch) !== null;
}

/** What the fetch got instead of an HTTP answer, for stderr (`http://a.test/robots.txt got no usable HTTP answer (timeout)`), or null when it got one. */
export function noAnswer(fetch: RobotsFetchResult): string | null {
  const last = fetch.hops.at(-1);
  if (last === undefined || typeof last.status !== 'string') return null;
  return `${last.url} got no usable HTTP answer (${last.status})`;
}
