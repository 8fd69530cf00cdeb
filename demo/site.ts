/**
 * The demo site: three origins on 127.0.0.1, each its own port, that show what the plugin
 * does in one short crawl.
 *
 * - shop: robots.txt with a group for DemoBot and a `*` group, a `Crawl-delay`, a sitemap
 *   index with a gzip child and a plain-text child, pages robots.txt disallows, and a
 *   redirect into a disallowed path;
 * - blog: robots.txt answers 503 until a few seconds after the shop's home page (which
 *   links to the blog) was served, then recovers: the blog's URLs wait, then are crawled;
 * - news: robots.txt with its own sitemap, and a page that navigates by script into a
 *   disallowed path.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface DemoSite {
  shop: string;
  blog: string;
  news: string;
  /** Paths each origin was asked for, in order. */
  requests: Map<string, string[]>;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const html =
  (title: string, links: string[] = [], script = ''): Handler =>
  (_request, response) => {
    const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html><head><title>${title}</title>${script}</head><body><h1>${title}</h1><ul>${anchors}</ul></body></html>`,
      );
  };

const text =
  (body: string | Buffer, type = 'text/plain; charset=utf-8', status = 200): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': type }).end(body);
  };

const urlset = (urls: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
    .map((loc) => `  <url><loc>${loc}</loc><lastmod>2026-11-01</lastmod></url>`)
    .join('\n')}\n</urlset>\n`;

async function listen(
  routes: () => Map<string, Handler>,
  log: string[],
): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    log.push(path);
    const handler = routes().get(path.split('#')[0]);
    if (handler === undefined) response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Starts the demo site. `blogDownMs`: how long the blog's robots.txt still answers 503 once it is
 * asked for after the shop's home page was served (twice at least).
 */
export async function startDemoSite(options: { blogDownMs?: number } = {}): Promise<DemoSite> {
  const requests = new Map<string, string[]>();
  const origins: Record<'shop' | 'blog' | 'news', string> = { shop: '', blog: '', news: '' };
  let shopHomeServedAt: number | undefined;
  /** When the blog's robots.txt was first asked for after the shop's home page was served. */
  let blogDownSince: number | undefined;
  /** 503 answers of the blog's robots.txt since then. */
  let downAnswersAfterShopHome = 0;
  const blogDownMs = options.blogDownMs ?? 3000;

  const shopRoutes = () =>
    new Map<string, Handler>([
      [
        '/robots.txt',
        text(
          [
            '# The demo shop',
            'User-agent: *',
            'Disallow: /',
            '',
            'User-agent: DemoBot',
            'Disallow: /cart',
            'Disallow: /account/',
            'Disallow: /*?sessionid=',
            'Allow: /account/help',
            'Crawl-delay: 0.2',
            '',
            `Sitemap: ${origins.shop}/sitemap_index.xml`,
          ].join('\n'),
        ),
      ],
      [
        '/sitemap_index.xml',
        text(
          `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n  <sitemap><loc>${origins.shop}/sitemaps/products.xml.gz</loc></sitemap>\n  <sitemap><loc>${origins.shop}/sitemaps/pages.txt</loc></sitemap>\n</sitemapindex>\n`,
          'application/xml',
        ),
      ],
      [
        '/sitemaps/products.xml.gz',
        text(
          gzipSync(
            urlset([
              `${origins.shop}/products/lamp`,
              `${origins.shop}/products/chair`,
              `${origins.shop}/products/desk?sessionid=42`,
              `${origins.shop}/cart`,
            ]),
          ),
          'application/gzip',
        ),
      ],
      [
        '/sitemaps/pages.txt',
        text(
          [
            `${origins.shop}/`,
            `${origins.shop}/account/help`,
            `${origins.shop}/account/orders`,
            `${origins.shop}/old-offers`,
          ].join('\n'),
        ),
      ],
      [
        '/',
        (request, response) => {
          shopHomeServedAt ??= Date.now();
          html('Demo shop', ['/products/lamp', `${origins.blog}/`, `${origins.blog}/posts/hello`])(
            request,
            response,
          );
        },
      ],
      ['/products/lamp', html('Lamp', ['/cart', '/products/chair'])],
      ['/products/chair', html('Chair', ['/account/orders'])],
      ['/products/desk?sessionid=42', html('Desk')],
      ['/account/help', html('Help')],
      ['/account/orders', html('Orders (private)')],
      ['/cart', html('Cart (private)')],
      [
        '/old-offers',
        (_request, response) => {
          // A redirect into a path robots.txt disallows: the hop must not be requested.
          response.writeHead(301, { location: '/account/offers' }).end();
        },
      ],
      ['/account/offers', html('Offers (private)')],
    ]);

  const blogRoutes = () =>
    new Map<string, Handler>([
      [
        '/robots.txt',
        (request, response) => {
          // Down until the crawl has met the outage: for blogDownMs from the first request after
          // the shop's home page (which links here), and for at least two requests, the check of
          // the links as they are queued and the one as they leave the queue. Timed from the home
          // page, a busy machine reached the links after the outage, and nothing was deferred.
          if (shopHomeServedAt !== undefined) blogDownSince ??= Date.now();
          if (
            blogDownSince === undefined ||
            downAnswersAfterShopHome < 2 ||
            Date.now() - blogDownSince < blogDownMs
          ) {
            if (blogDownSince !== undefined) downAnswersAfterShopHome++;
            return text('<html>maintenance</html>', 'text/html', 503)(request, response);
          }
          return text('User-agent: *\nDisallow: /drafts/\n')(request, response);
        },
      ],
      ['/', html('Demo blog', ['/posts/hello', '/drafts/next'])],
      ['/posts/hello', html('Hello')],
      ['/drafts/next', html('Next (draft)')],
    ]);

  const newsRoutes = () =>
    new Map<string, Handler>([
      ['/robots.txt', text(`User-agent: *\nDisallow: /internal/\n\nSitemap: ${origins.news}/sitemap.xml\n`)],
      [
        '/sitemap.xml',
        text(
          urlset([`${origins.news}/`, `${origins.news}/today`, `${origins.news}/internal/stats`]),
          'application/xml',
        ),
      ],
      ['/', html('Demo news', ['/today'])],
      // A page that moves itself into a disallowed path: the browser's navigation is stopped.
      [
        '/today',
        html(
          'Today',
          [],
          "<script>addEventListener('load', () => { location.href = '/internal/stats'; });</script>",
        ),
      ],
      ['/internal/stats', html('Stats (internal)')],
    ]);

  const servers: Server[] = [];
  for (const [name, routes] of [
    ['shop', shopRoutes],
    ['blog', blogRoutes],
    ['news', newsRoutes],
  ] as const) {
    const log: string[] = [];
    const { server, origin } = await listen(routes, log);
    origins[name] = origin;
    requests.set(origin, log);
    servers.push(server);
  }

  return {
    ...origins,
    requests,
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
