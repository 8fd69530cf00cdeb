import { Transform, type TransformCallback } from 'node:stream';
import {
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  type Inflate,
  type InflateRaw,
} from 'node:zlib';

/**
 * The content codings of a robots.txt answer (RFC 9110 8.4.1) are undone here, not by the HTTP
 * library: bytes that are still encoded would be parsed as a file without rules, and the crawler
 * would be allowed everywhere. So every listed coding is decoded, or the answer is refused.
 */

/** One decoding step: the coding it undoes and the stream that does it. */
export interface ContentDecoder {
  coding: string;
  stream: Transform;
}

/** The decoders of an answer, in the order the body goes through them, or why there are none. */
export type ContentDecoding = { ok: true; decoders: ContentDecoder[] } | { ok: false; message: string };

/** The codings asked for with `Accept-Encoding` (and `x-gzip`, RFC 9110 8.4.1.3). */
const DECODERS: ReadonlyMap<string, () => Transform> = new Map<string, () => Transform>([
  ['gzip', () => createGunzip()],
  ['x-gzip', () => createGunzip()],
  ['deflate', () => new DeflateDecoder()],
  ['br', () => createBrotliDecompress()],
]);

/** No server stacks more than two codings; each decoder holds a window of up to 32 KiB. */
const MAX_CODINGS = 4;

/**
 * The decoders for a `Content-Encoding` value. RFC 9110 8.4: the codings are listed in the order
 * they were applied, so the last one is undone first. `identity` is no coding.
 */
export function contentDecoding(header: string | undefined): ContentDecoding {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const unknown = codings.find((coding) => !DECODERS.has(coding));
  if (unknown !== undefined) {
    return {
      ok: false,
      message: `Content-Encoding ${JSON.stringify(unknown)} cannot be decoded (only gzip, deflate and br are)`,
    };
  }
  if (codings.length > MAX_CODINGS) {
    return {
      ok: false,
      message: `Content-Encoding ${JSON.stringify(header)} stacks ${codings.length} codings (at most ${MAX_CODINGS} are decoded)`,
    };
  }
  const decoders = codings.reverse().map((coding) => ({ coding, stream: DECODERS.get(coding)!() }));
  return { ok: true, decoders };
}

/**
 * `deflate` is the zlib format (RFC 9110 8.4.1.2), but some servers send a raw deflate stream, as
 * browsers accept: the first octets tell which (RFC 1950 2.2: CM = 8 and a header checksum).
 */
class DeflateDecoder extends Transform {
  #inflater: Inflate | InflateRaw | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const inflater = this.#inflater ?? this.#open(chunk);
    if (inflater.write(chunk)) callback();
    else inflater.once('drain', () => callback());
  }

  override _flush(callback: TransformCallback): void {
    const inflater = this.#inflater;
    if (inflater === undefined) {
      callback();
      return;
    }
    inflater.once('end', () => callback());
    inflater.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#inflater?.destroy();
    callback(error);
  }

  #open(first: Buffer): Inflate | InflateRaw {
    const inflater = hasZlibHeader(first) ? createInflate() : createInflateRaw();
    inflater.on('data', (data: Buffer) => this.push(data));
    inflater.on('error', (error) => this.destroy(error));
    this.#inflater = inflater;
    return inflater;
  }
}

function hasZlibHeader(chunk: Buffer): boolean {
  if ((chunk[0] & 0x0f) !== 8) return false;
  return chunk.length < 2 || ((chunk[0] << 8) | chunk[1]) % 31 === 0;
}
