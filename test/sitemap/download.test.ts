import { PassThrough, Transform } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeThrough, downloadSitemap, type SitemapDownloadSettings } from '../../src/sitemap/download.js';
import type { ListeningServer } from '../support/loopback.js';
import { startRawHttp2Server } from '../support/raw-http2.js';

const settings: SitemapDownloadSettings = {
  userAgent: 'ExampleBot/1.0',
  proxyUrl: undefined,
  connectTimeoutMs: 2000,
  timeoutMs: 3000,
  maxRedirects: 5,
  ignoreTlsErrors: true,
  maxBytes: 1_000_000,
  signal: undefined,
  beforeRedirect: () => undefined,
};

/** The text of a download, or the message of the error that ended it. */
async function read(url: string): Promise<{ text: string; error: string | null }> {
  const body = await downloadSitemap(url, settings);
  if (!body.ok) return { text: '', error: body.why };
  let text = '';
  try {
    for await (const part of body.text) text += part;
    return { text, error: null };
  } catch (error) {
    return { text, error: (error as Error).message };
  }
}

describe('downloadSitemap over HTTP/2', () => {
  let server: ListeningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const lines = 'https://a.example/one\nhttps://a.example/two\n';

  it('fails a body whose stream is reset with NO_ERROR before its end: its last line may be half a URL', async () => {
    // Cut inside the second URL: read whole, it would be a URL the site never listed.
    server = await startRawHttp2Server([lines.slice(0, 35), 0], 30);
    const { error } = await read(`${server.origin}/sitemap.txt`);
    expect(error).toBe(
      'The HTTP/2 stream was reset (code 0, NO_ERROR, before the end of its body) after 35 octets of the body.',
    );
  });

  it('reads a body whose stream ended before such a reset', async () => {
    server = await startRawHttp2Server([lines.slice(0, 35), lines.slice(35), 'end', 0], 30);
    expect(await read(`${server.origin}/sitemap.txt`)).toEqual({ text: lines, error: null });
  });
});

describe('decoders of a body whose connection fails', () => {
  /** A decoder that hands each chunk on later, as zlib does on a busy machine. */
  const slowDecoder = () =>
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        setTimeout(() => done(null, chunk), 20);
      },
    });

  it('decodes what they were given before the failure, then gives the failure', async () => {
    const source = new PassThrough();
    const first = slowDecoder();
    const last = slowDecoder();
    const lost = decodeThrough(source, [first, last]);
    source.write('https://example.com/a\n');
    source.write('https://example.com/b\n');
    setImmediate(() => source.destroy(new Error('socket hang up')));
    const out: string[] = [];
    for await (const chunk of last) out.push(String(chunk));
    expect(out.join('')).toBe('https://example.com/a\nhttps://example.com/b\n');
    expect(lost()).toEqual(new Error('socket hang up'));
  });

  it("passes a decoder's error on to the decoders after it, and stops the source", async () => {
    const source = new PassThrough();
    const corrupt = new Transform({
      transform(_chunk: Buffer, _encoding, done) {
        done(new Error('incorrect header check'));
      },
    });
    const last = new PassThrough();
    const lost = decodeThrough(source, [corrupt, last]);
    source.write('not gzip');
    const reading = (async () => {
      for await (const _chunk of last);
    })();
    await expect(reading).rejects.toThrow('incorrect header check');
    expect(source.destroyed).toBe(true);
    expect(lost()).toBeUndefined();
  });
});
