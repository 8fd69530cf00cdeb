import { afterEach, describe, expect, it } from 'vitest';
import { downloadSitemap, type SitemapDownloadSettings } from '../../src/sitemap/download.js';
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
