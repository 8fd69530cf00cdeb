import { Readable, type Transform } from 'node:stream';
import { gotScraping } from 'got-scraping';
import {
  classifyFailure,
  contentDecoding,
  gzipDecoder,
  http2ResetMessage,
  watchGotHttp2BodyEnd,
} from '../fetch/index.js';

/** How one sitemap file is fetched. */
export interface SitemapDownloadSettings {
  userAgent: string;
  proxyUrl: string | undefined;
  connectTimeoutMs: number;
  /** Time allowed for waiting on the server (headers and body, redirects included). */
  timeoutMs: number;
  maxRedirects: number;
  ignoreTlsErrors: boolean;
  /** Octets read after all decoding (Content-Encoding, then a gzip file); the rest is not downloaded. */
  maxBytes: number;
  /**
   * Octets the files of a run have read together, and the most they may: each chunk takes only
   * what is left, so files read at the same time cannot overrun it together.
   */
  shared?: SharedByteBudget;
  signal: AbortSignal | undefined;
  /**
   * Called with each redirect target before it is requested, and awaited; a returned sentence
   * stops the download (a loop, a sitemap already read, a target robots.txt does not allow).
   */
  beforeRedirect: (url: string) => string | undefined | Promise<string | undefined>;
}

/** Why a download failed. */
export type SitemapDownloadFailureKind =
  | 'http-status'
  | 'timeout'
  | 'network'
  | 'redirects'
  | 'redirect-stopped'
  | 'decoding'
  | 'aborted';

/** A download that gave no body. */
export interface SitemapDownloadFailure {
  ok: false;
  kind: SitemapDownloadFailureKind;
  why: string;
  /** The redirect targets requested after the first URL. */
  hops: string[];
}

/** See {@link SitemapDownloadSettings.shared}. */
export interface SharedByteBudget {
  used: number;
  readonly max: number;
}

/** The body of a sitemap, as decoded text. */
export interface SitemapBody {
  ok: true;
  /** The URL that answered 2xx (the first one, or the last redirect target). */
  finalUrl: string;
  hops: string[];
  /** True when the file itself was gzip (recognised by its first two octets, 1f 8b). */
  gzip: boolean;
  /** Decoded text, chunk by chunk; read it once. Rejects with a {@link SitemapReadError}. */
  text: AsyncGenerator<string, void, undefined>;
  /** Octets read so far, after all decoding. */
  readonly bytes: number;
  /** True once the body was cut at `maxBytes` or at the shared budget. */
  readonly truncated: boolean;
  /** True when it was the shared budget, not the file's own `maxBytes`, that cut the body. */
  readonly truncatedByShared: boolean;
  /** Stops the download (idempotent); `text` ends. */
  close(): void;
}

/** A body that broke off: the server, the network, the gzip data or the time budget failed. */
export class SitemapReadError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network' | 'gzip' | 'aborted',
    message: string,
  ) {
    super(message);
    this.name = 'SitemapReadError';
  }
}

const TIMED_OUT = Symbol('timed out');

/**
 * The time a file may spend waiting on its server. Only the waits count (for headers and for
 * body chunks), not the time the caller takes between two chunks, so a slow request queue
 * downstream never times a sitemap out.
 */
class WaitBudget {
  #left: number;

  constructor(
    ms: number,
    readonly signal: AbortSignal | undefined,
  ) {
    this.#left = ms;
  }

  get left(): number {
    return this.#left;
  }

  async wait<T>(promise: Promise<T>): Promise<T | typeof TIMED_OUT> {
    if (this.signal?.aborted) throw new SitemapReadError('aborted', 'Aborted.');
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        promise,
        new Promise<typeof TIMED_OUT>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, this.#left));
        }),
        new Promise<never>((_resolve, reject) => {
          if (this.signal === undefined) return;
          onAbort = () => reject(new SitemapReadError('aborted', 'Aborted.'));
          this.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) this.signal?.removeEventListener('abort', onAbort);
      this.#left -= performance.now() - started;
    }
  }
}

type GotStream = ReturnType<typeof gotScraping.stream>;

interface ResponseHead {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Requests a sitemap and hands back its body as a stream of decoded text: redirects followed
 * one by one (each target shown to `beforeRedirect`), the status checked, Content-Encoding
 * decoded by got, a gzip file recognised by its magic octets 1f 8b whatever its name and
 * Content-Type say (sitemaps.org allows gzip-compressed sitemaps), and the decoded size capped.
 * Never rejects: a failure is a {@link SitemapDownloadFailure}.
 */
export async function downloadSitemap(
  url: string,
  settings: SitemapDownloadSettings,
): Promise<SitemapBody | SitemapDownloadFailure> {
  const budget = new WaitBudget(settings.timeoutMs, settings.signal);
  const hops: string[] = [];
  let current = url;
  // A connection the server closed as it was reused (its keep-alive timeout passing as the request
  // went out) fails before any answer: such a request is sent again once, as browsers do.
  let resent = false;
  // Each redirect followed adds its target to `hops`.
  for (;;) {
    let stream: GotStream;
    try {
      stream = openStream(current, settings);
    } catch (error) {
      return { ok: false, kind: 'network', why: `Request failed: ${messageOf(error)}`, hops };
    }
    const resetBeforeEnd = watchGotHttp2BodyEnd(stream);
    let head: ResponseHead | typeof TIMED_OUT;
    try {
      head = await budget.wait(
        new Promise<ResponseHead>((resolve, reject) => {
          stream.once('response', resolve);
          stream.once('error', reject);
        }),
      );
    } catch (error) {
      stream.destroy();
      if (error instanceof SitemapReadError) return { ok: false, kind: 'aborted', why: 'Aborted.', hops };
      const kind = classifyFailure(error);
      if (kind === 'connection-reset' && !resent) {
        resent = true;
        continue;
      }
      return {
        ok: false,
        kind: kind === 'timeout' ? 'timeout' : 'network',
        why: `${kind}: ${messageOf(error)}`,
        hops,
      };
    }
    if (head === TIMED_OUT) {
      stream.destroy();
      return { ok: false, kind: 'timeout', why: `No answer within ${settings.timeoutMs} ms.`, hops };
    }
    const status = head.statusCode;
    const location = head.headers['location'];
    if (status >= 300 && status < 400 && typeof location === 'string' && location !== '') {
      stream.destroy();
      if (hops.length >= settings.maxRedirects) {
        return { ok: false, kind: 'redirects', why: `More than ${settings.maxRedirects} redirects.`, hops };
      }
      let target: URL;
      try {
        target = new URL(location, current);
      } catch {
        return {
          ok: false,
          kind: 'redirects',
          why: `Redirect to an invalid URL ${JSON.stringify(location)}.`,
          hops,
        };
      }
      target.hash = '';
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        return { ok: false, kind: 'redirects', why: `Redirect to a non-http(s) URL ${target.href}.`, hops };
      }
      hops.push(target.href);
      const stop = await settings.beforeRedirect(target.href);
      if (stop !== undefined) return { ok: false, kind: 'redirect-stopped', why: stop, hops };
      current = target.href;
      continue;
    }
    if (status < 200 || status > 299) {
      stream.destroy();
      return { ok: false, kind: 'http-status', why: `HTTP ${status}.`, hops };
    }
    // The codings are undone here, as robots.txt's are, not by got: its decoder flushes a stream
    // cut short as if it had ended, so a truncated body would read as a whole file, its last
    // line cut into a URL nobody listed.
    const decoding = contentDecoding(
      headerText(head.headers['content-encoding']),
      headerText(head.headers['transfer-encoding']),
    );
    if (!decoding.ok) {
      stream.destroy();
      return { ok: false, kind: 'decoding', why: `${decoding.message}.`, hops };
    }
    return readBody(
      stream,
      decoding.decoders.map((decoder) => decoder.stream),
      current,
      hops,
      budget,
      settings,
      resetBeforeEnd,
    );
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function openStream(url: string, settings: SitemapDownloadSettings): GotStream {
  return gotScraping.stream(url, {
    method: 'GET',
    headers: {
      'user-agent': settings.userAgent,
      accept: 'application/xml, text/xml;q=0.9, application/rss+xml;q=0.9, text/plain;q=0.8, */*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    },
    useHeaderGenerator: false,
    followRedirect: false,
    // Decoded in downloadSitemap (see contentDecoding).
    decompress: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    http2: true,
    https: { rejectUnauthorized: !settings.ignoreTlsErrors },
    proxyUrl: settings.proxyUrl,
    // No total timeout of got's (got-scraping's default is 60 s): the budget of downloadSitemap
    // bounds the waits for the site, and leaves out the time the reader spends on what it read
    // (a crawler's queue, the records of dropped URLs), which a total would count.
    timeout: { connect: settings.connectTimeoutMs, request: undefined },
  });
}

async function readBody(
  stream: GotStream,
  content: Transform[],
  finalUrl: string,
  hops: string[],
  budget: WaitBudget,
  settings: SitemapDownloadSettings,
  resetBeforeEnd: () => boolean,
): Promise<SitemapBody | SitemapDownloadFailure> {
  const contentLost = content.length > 0 ? decodeThrough(stream, content) : () => undefined;
  const raw = ((content.at(-1) ?? stream) as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  // The first two octets decide whether the file is gzip: read until there are two.
  let head: Buffer = Buffer.alloc(0);
  try {
    while (head.length < 2) {
      const next = await budget.wait(raw.next());
      if (next === TIMED_OUT) {
        stream.destroy();
        return { ok: false, kind: 'timeout', why: `No body within ${settings.timeoutMs} ms.`, hops };
      }
      if (next.done) break;
      head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
    }
  } catch (error) {
    stream.destroy();
    if (error instanceof SitemapReadError) return { ok: false, kind: 'aborted', why: 'Aborted.', hops };
    // Said as a failure later in the body would say it (a coding cut short before its first octet).
    const failure = readError(error);
    const kind = failure.kind === 'gzip' ? 'decoding' : failure.kind === 'timeout' ? 'timeout' : 'network';
    return { ok: false, kind, why: `${failure.message}.`, hops };
  }
  const gzip = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  const rest = (async function* (): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    for (;;) {
      const next = await raw.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  let decoded: AsyncIterator<Buffer>;
  let gunzip: Transform | undefined;
  let gzipLost: () => unknown = () => undefined;
  if (gzip) {
    // The decoder of `Content-Encoding: gzip`: octets after the last member are ignored, as
    // browsers and robots.txt do, rather than failing the whole file.
    gunzip = gzipDecoder();
    gzipLost = decodeThrough(Readable.from(rest), [gunzip]);
    decoded = gunzip[Symbol.asyncIterator]();
  } else {
    decoded = rest;
  }
  // The error that cut the body off, which a decoder's complaint about the octets it lacks then
  // stands for.
  const lost = () => contentLost() ?? gzipLost();

  let bytes = 0;
  let truncated = false;
  let truncatedByShared = false;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    gunzip?.destroy();
    for (const decoder of content) decoder.destroy();
    stream.destroy();
  };

  async function* text(): AsyncGenerator<string, void, undefined> {
    // The first octets, held until there are enough to choose the decoder (see decoderFor).
    let head: Buffer[] = [];
    let decoder: TextDecoder | undefined;
    const decode = (chunk: Buffer): string => {
      if (decoder !== undefined) return decoder.decode(chunk, { stream: true });
      head.push(chunk);
      const start = head.length === 1 ? chunk : Buffer.concat(head);
      if (!encodingKnown(start)) return '';
      head = [];
      decoder = decoderFor(start);
      return decoder.decode(start, { stream: true });
    };
    try {
      while (!closed) {
        let next: IteratorResult<Buffer> | typeof TIMED_OUT;
        try {
          next = await budget.wait(decoded.next());
        } catch (error) {
          if (closed) return;
          throw readError(lost() ?? error);
        }
        if (next === TIMED_OUT) {
          throw new SitemapReadError(
            'timeout',
            `Timed out after ${settings.timeoutMs} ms, ${bytes} octets read.`,
          );
        }
        if (next.done) {
          const cause = lost();
          if (cause !== undefined) throw readError(cause);
          // Ended by a reset rather than by its end: the last line may be half a URL.
          if (resetBeforeEnd()) {
            throw new SitemapReadError('network', http2ResetMessage(0, bytes));
          }
          break;
        }
        let chunk = next.value;
        const shared = settings.shared;
        const ownRoom = settings.maxBytes - bytes;
        const sharedRoom = shared === undefined ? Infinity : shared.max - shared.used;
        const room = Math.min(ownRoom, sharedRoom);
        if (chunk.length >= room) {
          // The cap counts decoded octets, so a gzip bomb stops here: the rest is never inflated.
          truncated = chunk.length > room;
          // Both at once: the file reached a limit of its own.
          truncatedByShared = truncated && sharedRoom < ownRoom;
          chunk = chunk.subarray(0, room);
        }
        bytes += chunk.length;
        if (shared !== undefined) shared.used += chunk.length;
        const part = decode(chunk);
        if (part.length > 0) yield part;
        if (truncated) break;
      }
      decoder ??= decoderFor(Buffer.concat(head));
      const tail = decoder.decode(head.length > 0 ? Buffer.concat(head) : undefined);
      if (tail.length > 0) yield tail;
    } finally {
      close();
    }
  }

  return {
    ok: true,
    finalUrl,
    hops,
    gzip,
    text: text(),
    get bytes() {
      return bytes;
    },
    get truncated() {
      return truncated;
    },
    get truncatedByShared() {
      return truncatedByShared;
    },
    close,
  };
}

/**
 * Pipes `source` through `decoders`, as pipeline() does, except for an error of the source: it
 * ends the decoders rather than destroying them, so that the octets they were given before are
 * still decoded and read (a decoder may hold many when the machine is busy). The function
 * returned gives that error, once there is one; the reader raises it after what was decoded.
 * An error of a decoder destroys the source and the decoders after it, as pipeline() does.
 */
export function decodeThrough(source: Readable, decoders: Transform[]): () => unknown {
  let lost: unknown;
  let previous: Readable = source;
  for (const decoder of decoders) previous = previous.pipe(decoder);
  source.on('error', (error) => {
    if (lost !== undefined) return;
    lost = error;
    source.unpipe(decoders[0]);
    if (!decoders[0].destroyed && !decoders[0].writableEnded) decoders[0].end();
  });
  decoders.forEach((decoder, i) => {
    decoder.on('error', (error) => {
      source.destroy();
      for (const later of decoders.slice(i + 1)) later.destroy(error);
    });
  });
  return () => lost;
}

/**
 * The most octets read before the decoder is chosen, and the only ones it is chosen from: room
 * for a byte order mark and an XML declaration, padded with blanks or after blank lines. The
 * same octets whether they come in one piece or in many.
 */
const ENCODING_SNIFF_BYTES = 4096;

/** `<?xml ... encoding="..."` at the start of a file (read as Latin-1, so any octets pass). */
const XML_ENCODING = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/;

/**
 * Whether the first octets of a file are enough to choose its decoder: a byte order mark, the
 * end of an XML declaration, or a start that is no XML declaration at all.
 */
function encodingKnown(start: Buffer): boolean {
  if (start.length >= ENCODING_SNIFF_BYTES) return true;
  if (start.length < 2) return false;
  if ((start[0] === 0xff && start[1] === 0xfe) || (start[0] === 0xfe && start[1] === 0xff)) return true;
  // A UTF-8 byte order mark, read as Latin-1, is three characters.
  const text = start
    .toString('latin1')
    .replace(/^\u00EF\u00BB\u00BF/, '')
    .trimStart();
  if (text.length < 5) return false;
  return !text.startsWith('<?xml') || text.includes('?>');
}

/**
 * The decoder of a file, from its first octets. sitemaps.org asks for UTF-8, the default; a UTF-16
 * byte order mark, or an XML declaration naming another encoding (`ISO-8859-1`, `windows-1252`,
 * `Shift_JIS`), is honoured as XML 1.0 (4.3.3) requires, rather than turning each non-ASCII
 * character into U+FFFD. A leading BOM is dropped; invalid sequences become U+FFFD.
 */
function decoderFor(start: Buffer): TextDecoder {
  if (start[0] === 0xff && start[1] === 0xfe) return new TextDecoder('utf-16le');
  if (start[0] === 0xfe && start[1] === 0xff) return new TextDecoder('utf-16be');
  const declared = XML_ENCODING.exec(start.toString('latin1', 0, ENCODING_SNIFF_BYTES))?.[1];
  if (declared !== undefined && !(start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf)) {
    try {
      const decoder = new TextDecoder(declared);
      // A UTF-16 declaration in a file whose octets are ASCII-compatible is a mislabel.
      if (!decoder.encoding.startsWith('utf-16')) return decoder;
    } catch {
      // An encoding TextDecoder does not know: read as UTF-8.
    }
  }
  return new TextDecoder('utf-8');
}

function readError(error: unknown): SitemapReadError {
  if (error instanceof SitemapReadError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new SitemapReadError('gzip', `Corrupt gzip data: ${messageOf(error)}`);
  }
  const kind = classifyFailure(error);
  return new SitemapReadError(kind === 'timeout' ? 'timeout' : 'network', `${kind}: ${messageOf(error)}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
