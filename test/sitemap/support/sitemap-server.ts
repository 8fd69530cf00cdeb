import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { TestHttpServer, TestRouteHandler } from '../../support/http-server.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** A fixture of `test/sitemap/fixtures` with `{origin}` replaced. */
export function fixture(name: string, origin: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8').replaceAll('{origin}', origin);
}

/** How a fixture is served. */
export interface ServeOptions {
  /** Gzip the body and serve the gzip octets as the file (whatever its name). */
  gzipFile?: boolean;
  /** Gzip the body and say so in `Content-Encoding`. */
  contentEncoding?: boolean;
  contentType?: string;
}

/** A handler that serves `body`, gzipped as asked. */
export function serveBody(body: string | Uint8Array, options: ServeOptions = {}): TestRouteHandler {
  let octets: Uint8Array = typeof body === 'string' ? Buffer.from(body) : body;
  if (options.gzipFile) octets = gzipSync(octets);
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/xml' };
  if (options.contentEncoding) {
    octets = gzipSync(octets);
    headers['content-encoding'] = 'gzip';
  }
  return (_request, response) => {
    response.writeHead(200, headers).end(octets);
  };
}

/** Writes `text`, waiting when the socket's buffer is full; false when the client went away. */
async function write(response: ServerResponse, text: string | Uint8Array): Promise<boolean> {
  if (response.destroyed) return false;
  if (!response.write(text)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      response.on('drain', done);
      response.on('close', done);
    });
  }
  return !response.destroyed;
}

/** The shape of the large generated sitemap set. */
export interface LargeSet {
  files: number;
  urlsPerFile: number;
  /** Every n-th URL is under `/private/`, which the test robots.txt disallows. */
  privateEvery: number;
}

/** 20 files of 50,000 URLs: one million. */
export const MILLION: LargeSet = { files: 20, urlsPerFile: 50_000, privateEvery: 100 };

/** How many URLs of a large set are under `/private/`. */
export function privateCount(set: LargeSet): number {
  return set.files * Math.floor(set.urlsPerFile / set.privateEvery);
}

/**
 * Adds `/big/index.xml` and `/big/part-<n>.xml` to a server: a sitemap index and its children,
 * generated while they are sent (never held in memory), with backpressure. `origin` is the
 * origin written into the files (e.g. `http://localhost:<port>` to name the server by a domain).
 */
export function routeLargeSet(
  server: TestHttpServer,
  set: LargeSet = MILLION,
  origin = server.origin,
): string {
  const parts = Array.from({ length: set.files }, (_, n) => `${origin}/big/part-${n}.xml`);
  server.route(
    '/big/index.xml',
    serveBody(
      `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${parts
        .map((loc) => `<sitemap><loc>${loc}</loc><lastmod>2024-05-01</lastmod></sitemap>`)
        .join('\n')}\n</sitemapindex>\n`,
    ),
  );
  for (let n = 0; n < set.files; n++) {
    server.route(`/big/part-${n}.xml`, async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      if (
        !(await write(
          response,
          '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n',
        ))
      ) {
        return;
      }
      const step = 500;
      for (let start = 0; start < set.urlsPerFile; start += step) {
        let chunk = '';
        for (let i = start; i < Math.min(start + step, set.urlsPerFile); i++) {
          const dir = i % set.privateEvery === set.privateEvery - 1 ? 'private' : 'page';
          chunk += `<url><loc>${origin}/${dir}/${n}/${i}</loc><lastmod>2024-05-01T12:00:00+00:00</lastmod></url>\n`;
        }
        if (!(await write(response, chunk))) return;
      }
      response.end('</urlset>\n');
    });
  }
  return `${origin}/big/index.xml`;
}

/**
 * A gzip bomb: one small member with a URL, then `members` members of 10 MiB of blanks each
 * (gzip allows members one after another, RFC 1952 2.2), then the closing tag. About 10 KiB per
 * member on the wire, 10 MiB each once inflated.
 */
export function gzipBomb(origin: string, members: number): Buffer {
  const blanks = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20), { level: 9 });
  return Buffer.concat([
    gzipSync(
      `<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/bomb/1</loc></url>`,
    ),
    ...Array.from({ length: members }, () => blanks),
    gzipSync('<url><loc>/bomb/never</loc></url></urlset>'),
  ]);
}
