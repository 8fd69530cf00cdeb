import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createInflate, createInflateRaw, type InflateRaw } from 'node:zlib';

/**
 * The content codings of a robots.txt answer (RFC 9110 8.4.1), and any transfer coding besides
 * `chunked` (RFC 9112 7), are undone here, not by the HTTP library: bytes that are still encoded
 * would be parsed as a file without rules, and the crawler would be allowed everywhere. So every
 * listed coding is decoded, or the answer is refused.
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
  ['gzip', () => new GzipDecoder()],
  ['x-gzip', () => new GzipDecoder()],
  ['deflate', () => new InnerDecoder(openInflater)],
  ['br', () => new InnerDecoder(() => createBrotliDecompress())],
]);

/** No server stacks more than two codings; each decoder holds a window of up to 32 KiB. */
const MAX_CODINGS = 4;

/**
 * The decoders for the `Content-Encoding` and `Transfer-Encoding` values of an answer. RFC 9110
 * 8.4: the codings are listed in the order they were applied, so the last one is undone first.
 * RFC 9112 6.1: transfer codings are applied on top of the content codings; Node undoes `chunked`
 * only and leaves any other (`Transfer-Encoding: gzip, chunked`) in the body. `identity` is no
 * coding.
 */
export function contentDecoding(
  contentEncoding: string | undefined,
  transferEncoding?: string,
): ContentDecoding {
  const transferCodings = codingsOf(transferEncoding).filter((coding) => coding !== 'chunked');
  const codings = [...codingsOf(contentEncoding), ...transferCodings];
  const unknown = codings.find((coding) => !DECODERS.has(coding));
  if (unknown !== undefined) {
    const header = transferCodings.includes(unknown) ? 'Transfer-Encoding' : 'Content-Encoding';
    return {
      ok: false,
      message: `${header} ${JSON.stringify(unknown)} cannot be decoded (only gzip, deflate and br are)`,
    };
  }
  if (codings.length > MAX_CODINGS) {
    return {
      ok: false,
      message: `The body stacks ${codings.length} codings (${codings.join(', ')}; at most ${MAX_CODINGS} are decoded)`,
    };
  }
  const decoders = codings.reverse().map((coding) => ({ coding, stream: DECODERS.get(coding)!() }));
  return { ok: true, decoders };
}

/**
 * A decoder of one gzip stream of any number of members, which ignores octets after the last
 * one (as browsers do) and fails on a stream cut short.
 */
export function gzipDecoder(): Transform {
  return new GzipDecoder();
}

function codingsOf(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/**
 * A decoder that fails without losing what it decoded. Node drops the unread output of a stream
 * it destroys, so a reader of a body cut short (or corrupt in its middle) would lose the lines
 * decoded before the fault, all of them in a small file. A fault waits until the reader has
 * taken that output, then destroys the decoder with its error; what comes after it is ignored.
 */
abstract class Decoder extends Transform {
  #failure: Error | undefined;

  /** Whether a fault was met: what comes after it is not decoded. */
  protected get failed(): boolean {
    return this.#failure !== undefined;
  }

  protected fail(error: Error): void {
    if (this.#failure !== undefined || this.destroyed) return;
    this.#failure = error;
    if (this.readableLength === 0) this.destroy(error);
  }

  override read(size?: number): Buffer | null {
    const chunk: Buffer | null = super.read(size);
    if (chunk === null && this.#failure !== undefined && this.readableLength === 0 && !this.destroyed) {
      this.destroy(this.#failure);
    }
    return chunk;
  }
}

/**
 * `deflate` is the zlib format (RFC 9110 8.4.1.2), but some servers send a raw deflate stream, as
 * browsers accept: the first octets tell which (RFC 1950 2.2: CM = 8 and a header checksum).
 */
function openInflater(first: Buffer): Transform {
  return hasZlibHeader(first) ? createInflate() : createInflateRaw();
}

/** A decoder around one of Node's, made when the first octets come (`deflate` chooses by them). */
class InnerDecoder extends Decoder {
  #inner: Transform | undefined;

  constructor(private readonly open: (first: Buffer) => Transform) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.failed) {
      callback();
      return;
    }
    const inner = this.#inner ?? this.#start(chunk);
    if (inner.write(chunk)) callback();
    else inner.once('drain', () => callback());
  }

  override _flush(callback: TransformCallback): void {
    const inner = this.#inner;
    if (inner === undefined) {
      callback();
      return;
    }
    // A body cut short fails the inner decoder when it ends (and this one, with its error).
    inner.once('end', () => callback());
    inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    callback(error);
  }

  #start(first: Buffer): Transform {
    const inner = this.open(first);
    inner.on('data', (data: Buffer) => this.push(data));
    inner.on('error', (error) => this.fail(error));
    this.#inner = inner;
    return inner;
  }
}

function hasZlibHeader(chunk: Buffer): boolean {
  if ((chunk[0] & 0x0f) !== 8) return false;
  return chunk.length < 2 || ((chunk[0] << 8) | chunk[1]) % 31 === 0;
}

/**
 * Where a {@link GzipDecoder} is in its input: in a member's header, deflate data or trailer, or
 * `ignored` after the last member, past octets that start no other member.
 */
type GzipPart = 'header' | 'deflate' | 'trailer' | 'ignored';

/**
 * Longest gzip header read: its optional fields (an extra field of up to 64 KiB, a file name, a
 * comment) come before any data, and a header that never ends must not fill the memory.
 */
const MAX_GZIP_HEADER_OCTETS = 128 * 1024;

/**
 * gzip (RFC 1952), one member after another. Node's gunzip reads whatever follows a member as the
 * next member, so a stray octet after a complete body (a newline some servers append) fails it
 * all; like browsers and curl, this decoder ignores octets after a complete member that do not
 * start another one with a valid header. A member that is cut short or corrupt past its header
 * is still an error.
 */
class GzipDecoder extends Decoder {
  /** Octets received and not used yet. */
  #pending: Buffer = Buffer.alloc(0);
  #part: GzipPart = 'header';
  /** Inflates the deflate data of the current member. */
  #inflater: InflateRaw | undefined;
  /** CRC-32 and length (modulo 2^32) of the current member's output, checked by its trailer. */
  #crc = 0;
  #size = 0;
  /** Complete members so far. */
  #members = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.failed) {
      callback();
      return;
    }
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#advance(callback);
  }

  override _flush(callback: TransformCallback): void {
    // After a complete member, octets that end before another member's header does are ignored.
    const complete = this.#part === 'ignored' || (this.#part === 'header' && this.#members > 0);
    if (complete) {
      callback();
      return;
    }
    if (this.failed) return;
    const cut = () => this.fail(zlibError('unexpected end of file', 'Z_BUF_ERROR'));
    // A member cut short: what its data gives is passed on before the error, so that a reader
    // keeps the lines that came whole (the inflater fails this decoder itself when it ends).
    if (this.#part === 'deflate') this.#inflater!.end(cut);
    else cut();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#inflater?.destroy();
    callback(error);
  }

  /** Uses the pending octets as far as they go, then asks for more. */
  #advance(callback: TransformCallback): void {
    let step = this.#step();
    while (step === 'next') step = this.#step();
    if (step === 'inflate') this.#inflate(callback);
    else if (step === 'wait') callback();
    else {
      this.fail(step);
      callback();
    }
  }

  /**
   * One step through the pending octets: `next` when one more can be taken, `wait` for more
   * octets, `inflate` to give them to the member's inflater, or the error that stops the body.
   */
  #step(): 'next' | 'wait' | 'inflate' | Error {
    switch (this.#part) {
      case 'ignored':
        this.#pending = Buffer.alloc(0);
        return 'wait';
      case 'deflate':
        return this.#pending.length === 0 ? 'wait' : 'inflate';
      case 'trailer':
        return this.#readTrailer();
      case 'header':
        return this.#readHeader();
    }
  }

  #readHeader(): 'next' | 'wait' | Error {
    if (this.#pending.length === 0) return 'wait';
    const header = gzipHeaderLength(this.#pending);
    if (header === 'incomplete' && this.#pending.length <= MAX_GZIP_HEADER_OCTETS) return 'wait';
    if (typeof header !== 'number') {
      // After a complete member, octets that start no member with a valid header are ignored,
      // even when they start as one does (`1f 8b 08` and then no header).
      if (this.#members > 0) {
        this.#part = 'ignored';
        return 'next';
      }
      if (header === 'not-gzip') return zlibError('incorrect header check', 'Z_DATA_ERROR');
      if (header === 'corrupt') return zlibError('invalid gzip header', 'Z_DATA_ERROR');
      return zlibError('gzip header too long', 'Z_DATA_ERROR');
    }
    this.#pending = this.#pending.subarray(header);
    this.#startMember();
    return 'next';
  }

  /** RFC 1952 2.3.1: the member ends with the CRC-32, then the length, of its output. */
  #readTrailer(): 'next' | 'wait' | Error {
    const trailer = this.#pending;
    if (trailer.length < 8) return 'wait';
    if (trailer.readUInt32LE(0) !== this.#crc) return zlibError('incorrect data check', 'Z_DATA_ERROR');
    if (trailer.readUInt32LE(4) !== this.#size) return zlibError('incorrect length check', 'Z_DATA_ERROR');
    this.#pending = trailer.subarray(8);
    this.#members += 1;
    this.#part = 'header';
    return 'next';
  }

  #startMember(): void {
    const inflater = createInflateRaw();
    inflater.on('data', (data: Buffer) => {
      this.#crc = crc32(data, this.#crc);
      this.#size = (this.#size + data.length) % 2 ** 32;
      this.push(data);
    });
    inflater.on('error', (error) => this.fail(error));
    this.#inflater = inflater;
    this.#crc = 0;
    this.#size = 0;
    this.#part = 'deflate';
  }

  /** Gives the pending octets to the inflater; what follows the end of its data is the trailer. */
  #inflate(callback: TransformCallback): void {
    const inflater = this.#inflater!;
    const input = this.#pending;
    this.#pending = Buffer.alloc(0);
    const usedBefore = inflater.bytesWritten;
    inflater.write(input, (error) => {
      // The inflater's 'error' listener fails this decoder; what comes after is ignored.
      if (error) {
        callback();
        return;
      }
      const used = inflater.bytesWritten - usedBefore;
      if (used === input.length) {
        callback();
        return;
      }
      // The deflate data ended inside `input` (an inflater ignores what follows its end).
      this.#pending = input.subarray(used);
      this.#part = 'trailer';
      // The trailer is checked once the inflater has given all of the member's output.
      const next = () => {
        inflater.destroy();
        this.#advance(callback);
      };
      if (inflater.readableEnded) next();
      else inflater.once('end', next);
    });
  }
}

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const RESERVED_FLAGS = 0xe0;

/**
 * The length of the gzip member header at the start of `data` (RFC 1952 2.3): `incomplete` until
 * all of it came, `not-gzip` when `data` does not start with a gzip member (ID1, ID2 and CM 8,
 * deflate), `corrupt` for a member header with reserved flags or a wrong header CRC.
 */
function gzipHeaderLength(data: Buffer): number | 'incomplete' | 'not-gzip' | 'corrupt' {
  const start = [0x1f, 0x8b, 8];
  for (let index = 0; index < start.length; index++) {
    if (index === data.length) return 'incomplete';
    if (data[index] !== start[index]) return 'not-gzip';
  }
  if (data.length < 10) return 'incomplete';
  const flags = data[3];
  if (flags & RESERVED_FLAGS) return 'corrupt';
  let length = 10;
  if (flags & FEXTRA) {
    if (data.length < length + 2) return 'incomplete';
    length += 2 + data.readUInt16LE(length);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (!(flags & flag)) continue;
    // A zero-terminated string.
    const end = data.indexOf(0, length);
    if (end === -1) return 'incomplete';
    length = end + 1;
  }
  if (flags & FHCRC) {
    if (data.length < length + 2) return 'incomplete';
    // The two low octets of the CRC-32 of the header before it.
    if ((crc32(data.subarray(0, length)) & 0xffff) !== data.readUInt16LE(length)) return 'corrupt';
    length += 2;
  }
  return length <= data.length ? length : 'incomplete';
}

/** Lookup table of the CRC-32 of gzip (RFC 1952 8, the one of ISO 3309). */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value;
});

/** The CRC-32 of `data`, continuing from the CRC of the octets before it. */
function crc32(data: Uint8Array, previous = 0): number {
  let crc = ~previous;
  for (let index = 0; index < data.length; index++) {
    crc = CRC_TABLE[(crc ^ data[index]) & 0xff] ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}

/** An error shaped like zlib's, so a failure reads the same whichever decoder found it. */
function zlibError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}
