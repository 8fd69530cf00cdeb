import { LogLevel } from 'crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import type { RobotsHttpClient, RobotsHttpRequest } from '../../src/fetch/index.js';
import { MAX_LINE_OCTETS, RobotsTxt } from '../../src/robots/index.js';
import {
  MemoryBackend,
  type RobotsChange,
  RobotsStore,
  type RobotsStoreBackend,
  type RobotsStoreOptions,
} from '../../src/store/index.js';
import { startHttpServer, type TestHttpServer, text } from '../support/http-server.js';
import { captureLog } from '../support/log.js';
import { freePort } from '../support/redis.js';
import { backendScope, policyRecord } from './records.js';

const USER_AGENT = 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A manual clock: lifetimes and backoff are tested by moving it, never by sleeping. */
function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const servers: TestHttpServer[] = [];
const stores: RobotsStore[] = [];

async function server(routes: Parameters<typeof startHttpServer>[0] = {}): Promise<TestHttpServer> {
  const started = await startHttpServer(routes);
  servers.push(started);
  return started;
}

function store(options: Partial<RobotsStoreOptions> = {}): RobotsStore {
  const created = new RobotsStore({
    userAgent: USER_AGENT,
    fetchTimeoutMs: 2000,
    connectTimeoutMs: 1000,
    log: captureLog().log,
    ...options,
  });
  stores.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(stores.splice(0).map((created) => created.close()));
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

describe('RobotsStore.resolve and check', () => {
  it('fetches an origin once and answers checks with the verdict and the policy behind it', async () => {
    const site = await server({
      '/robots.txt': text('User-agent: ExampleBot\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n'),
    });
    const clock = manualClock();
    const robots = store({ clock: clock.now });

    const policy = await robots.resolve(`${site.origin}/a`);
    expect(policy).toMatchObject({
      origin: site.origin,
      robotsTxtUrl: `${site.origin}/robots.txt`,
      kind: 'rules',
      status: 200,
      failures: 0,
      servedFromStaleCopy: false,
      fetchedAt: clock.now(),
      expiresAt: clock.now() + DAY,
    });
    expect(policy.bodyBytes).toBeGreaterThan(0);

    clock.advance(5000);
    const denied = await robots.check(`${site.origin}/private/page?x=1`);
    expect(denied).toMatchObject({
      allowed: false,
      reason: 'matched',
      productToken: 'examplebot',
      path: '/private/page?x=1',
      policyKind: 'rules',
      status: 200,
      ageMs: 5000,
      origin: site.origin,
      rule: { kind: 'disallow', pattern: '/private', line: 2 },
      group: { how: 'token', token: 'examplebot' },
    });
    expect((await robots.check(`${site.origin}/public`)).allowed).toBe(true);
    // Another token gets the * group.
    expect(await robots.check(`${site.origin}/public`, 'OtherBot')).toMatchObject({ allowed: false });
    expect(site.hits('/robots.txt')).toBe(1);
    expect(robots.stats().fetches).toBe(1);
  });

  it('gives every origin its own policy: scheme, host and port', async () => {
    const first = await server({ '/robots.txt': text('User-agent: *\nDisallow: /\n') });
    const second = await server({ '/robots.txt': text('User-agent: *\nAllow: /\n') });
    const robots = store();
    expect((await robots.check(`${first.origin}/x`)).allowed).toBe(false);
    expect((await robots.check(`${second.origin}/x`)).allowed).toBe(true);
    // Same host, default port folded: http://localhost:<port> is another origin than 127.0.0.1.
    expect((await robots.resolve(`http://localhost:${first.port}/`)).origin).toBe(
      `http://localhost:${first.port}`,
    );
  });

  it('runs exactly one fetch per origin: 1,000 concurrent calls for 100 origins make 100 requests', async () => {
    const sites = await Promise.all(
      Array.from({ length: 100 }, () =>
        server({
          '/robots.txt': (_request, response) => {
            setTimeout(() => response.writeHead(200).end('User-agent: *\nDisallow: /x\n'), 20);
          },
        }),
      ),
    );
    const robots = store();
    const calls = Array.from({ length: 1000 }, (_, index) => {
      const site = sites[index % sites.length];
      return index % 2 === 0
        ? robots.resolve(`${site.origin}/p${index}`)
        : robots.check(`${site.origin}/x/${index}`);
    });
    const answers = await Promise.all(calls);
    expect(answers).toHaveLength(1000);
    const requests = sites.reduce((sum, site) => sum + site.hits('/robots.txt'), 0);
    expect(requests).toBe(100);
    expect(robots.stats().fetches).toBe(100);
  });

  it('never rejects for a fetch failure: an unreachable origin resolves to disallow-all', async () => {
    const port = await freePort();
    const robots = store();
    const policy = await robots.resolve(`http://127.0.0.1:${port}/`);
    expect(policy).toMatchObject({ kind: 'disallow-all', status: 'connection-refused', failures: 1 });
    expect(policy.why).toContain('unreachable');
    const check = await robots.check(`http://127.0.0.1:${port}/page`);
    expect(check).toMatchObject({
      allowed: false,
      reason: 'disallow-all',
      policyKind: 'disallow-all',
      rule: null,
    });
    // RFC 9309 2.2.2: /robots.txt itself stays allowed.
    expect(await robots.check(`http://127.0.0.1:${port}/robots.txt`)).toMatchObject({
      allowed: true,
      reason: 'robots-txt-always-allowed',
    });
  });

  it('answers allow-all for a 404 with a verdict-shaped result', async () => {
    const site = await server();
    const check = await store().check(`${site.origin}/anything`);
    expect(check).toMatchObject({
      allowed: true,
      reason: 'allow-all',
      policyKind: 'allow-all',
      status: 404,
      productToken: 'examplebot',
      path: '/anything',
    });
  });

  it('rejects only API misuse', async () => {
    const robots = store();
    await expect(robots.resolve('ftp://example.com/')).rejects.toThrow(TypeError);
    await expect(robots.check('/relative/path')).rejects.toThrow(TypeError);
    expect(() => robots.peek('not a url')).toThrow(TypeError);
    expect(() => new RobotsStore({ userAgent: '' })).toThrow(TypeError);
  });

  it('refuses a check for an agent that names no product token, instead of answering for the * group', async () => {
    const site = await server({
      '/robots.txt': text('User-agent: ExampleBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n'),
    });
    const robots = store();
    for (const agent of ['', '   ', 'Example Bot']) {
      await expect(robots.check(`${site.origin}/page`, agent)).rejects.toThrow(
        `RobotsStore.check's productTokenOrUserAgent must name a product token (RFC 9309 2.2.1: letters, "-" and "_", such as "ExampleBot", alone or in a User-Agent header) or be "*" for the * group alone, got ${JSON.stringify(agent)}.`,
      );
    }
    expect(site.hits('/robots.txt')).toBe(0);
    expect(await robots.check(`${site.origin}/page`)).toMatchObject({ allowed: false });
    expect(() => robots.checkCached(`${site.origin}/page`, '')).toThrow(
      /^RobotsStore\.checkCached's productTokenOrUserAgent must name a product token/,
    );
    expect(robots.checkCached(`${site.origin}/page`, 'ExampleBot')).toMatchObject({ allowed: false });
    // The * group alone, asked for on purpose.
    expect(await robots.check(`${site.origin}/page`, '*')).toMatchObject({ allowed: true });
    expect(robots.checkCached(`${site.origin}/page`, '*')).toMatchObject({ allowed: true });
  });

  it('refuses check options it would misread: { candidates: "yes" } would list no candidate', async () => {
    const site = await server({
      '/robots.txt': text('User-agent: *\nDisallow: /private\nAllow: /private/open\n'),
    });
    const robots = store();
    const url = `${site.origin}/private/open`;
    for (const [options, message] of [
      [null, 'RobotsStore.check() options must be an object, got null.'],
      [5, 'RobotsStore.check() options must be an object, got 5.'],
      [{ candidates: 'yes' }, 'RobotsStore.check() option candidates must be true or false, got "yes".'],
      [{ candidate: true }, 'RobotsStore.check() has no option "candidate": did you mean candidates?'],
    ] as const) {
      await expect(robots.check(url, undefined, options as never)).rejects.toThrow(new TypeError(message));
    }
    expect(site.hits('/robots.txt')).toBe(0);
    const options = { candidates: true };
    expect((await robots.check(url, undefined, options)).candidates).toHaveLength(2);
    // The same object again is not read again; a new bad one still is.
    expect(robots.checkCached(url, undefined, options)?.candidates).toHaveLength(2);
    expect(() => robots.checkCached(url, undefined, { candidates: 1 } as never)).toThrow(
      'RobotsStore.checkCached() option candidates must be true or false, got 1.',
    );
    expect(robots.checkCached(url, undefined, { candidates: false })?.candidates).toHaveLength(1);
  });

  it('matches the * group alone for productToken "*"', async () => {
    const site = await server({
      '/robots.txt': text('User-agent: ExampleBot\nDisallow: /\n\nUser-agent: *\nDisallow: /star\n'),
    });
    const { log, warnings } = captureLog();
    const robots = store({ productToken: '*', log });
    expect(robots.productToken).toBe('*');
    expect(await robots.check(`${site.origin}/page`)).toMatchObject({ allowed: true });
    expect(await robots.check(`${site.origin}/star`)).toMatchObject({ allowed: false });
    expect(warnings()).toEqual([]);
  });

  it('peek and checkCached answer from memory only, never fetch', async () => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /no\n') });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    expect(robots.peek(`${site.origin}/`)).toBeUndefined();
    expect(robots.checkCached(`${site.origin}/no`)).toBeUndefined();
    expect(site.hits('/robots.txt')).toBe(0);
    await robots.resolve(site.origin);
    expect(robots.peek(`${site.origin}/`)?.kind).toBe('rules');
    expect(robots.checkCached(`${site.origin}/no`)).toMatchObject({ allowed: false, reason: 'matched' });
    clock.advance(DAY + 1);
    expect(robots.peek(`${site.origin}/`)).toBeUndefined();
    expect(site.hits('/robots.txt')).toBe(1);
  });

  it('reads every URL of the origin it checked last exactly as the core does', async () => {
    const body =
      'User-agent: ExampleBot\nDisallow: /private\nDisallow: /*?q=\nAllow: /private/ok$\nDisallow: /a%2Fb\nDisallow: /caf%C3%A9\nDisallow: /$\n';
    const site = await server({ '/robots.txt': text(body) });
    const robots = store();
    await robots.resolve(site.origin);
    const core = RobotsTxt.parse(body);
    const tails = [
      ...['', '/', '?q=1', '#x', '/?q=1', '/private', '/private/ok', '/private/ok?', '/private/ok#f'],
      ...['/a%2fb', '/a/b', '/café', '/caf%c3%a9', '/./private', '/x/../private', '/a b', '/%7Eu'],
      ...['/p?q=1#f', '//private', '/private%', '/PRIVATE', '/\u{1F600}', ':80/private', '@x/y'],
    ];
    for (const tail of tails) {
      for (const url of [`${site.origin}${tail}`, `${site.origin.toUpperCase()}${tail}`]) {
        // The origin checked just before: the store reads the URL after the origin alone.
        robots.checkCached(`${site.origin}/`);
        if (!URL.canParse(url)) {
          expect(() => robots.checkCached(url), url).toThrow(TypeError);
          continue;
        }
        // Another origin (`@x/y` names host x): nothing of it is in memory.
        if (new URL(url).origin !== site.origin) {
          expect(robots.checkCached(url), url).toBeUndefined();
          continue;
        }
        const expected = core.explain(url, USER_AGENT, { candidates: false });
        const check = robots.checkCached(url);
        expect(
          check && {
            allowed: check.allowed,
            reason: check.reason,
            productToken: check.productToken,
            path: check.path,
            rule: check.rule,
            group: check.group,
            candidates: check.candidates,
          },
          url,
        ).toEqual(expected);
      }
    }
  });

  it('warns once when the User-Agent lacks the product token', () => {
    const { log, warnings } = captureLog();
    new RobotsStore({ userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)', productToken: 'OtherBot', log });
    new RobotsStore({ userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)', log });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('otherbot');
  });

  it('fetches through an injected HTTP client, with the User-Agent and proxy of the store', async () => {
    const seen: RobotsHttpRequest[] = [];
    const client: RobotsHttpClient = {
      request: async (request) => {
        seen.push(request);
        return {
          ok: true,
          status: 200,
          headers: {},
          body: new TextEncoder().encode('User-agent: *\nDisallow: /\n'),
          truncated: false,
        };
      },
    };
    const robots = store({ httpClient: client, proxyUrl: 'http://proxy.example:8000', maxBytes: 1000 });
    expect((await robots.check('https://shop.example/cart')).allowed).toBe(false);
    expect(seen).toHaveLength(1);
    expect(seen[0].url.href).toBe('https://shop.example/robots.txt');
    // The cap, plus one line so the parser can finish the line in progress.
    expect(seen[0]).toMatchObject({
      proxyUrl: 'http://proxy.example:8000',
      maxBytes: 1000 + MAX_LINE_OCTETS + 1,
    });
    expect(seen[0].headers['user-agent']).toBe(USER_AGENT);
  });

  it('turns a client that throws into an unreachable policy', async () => {
    const robots = store({
      httpClient: {
        request: async () => {
          throw new Error('client bug');
        },
      },
    });
    const policy = await robots.resolve('https://broken.example/');
    expect(policy).toMatchObject({ kind: 'disallow-all', status: 'network-error' });
  });

  it('rejects a closed store, in memory-only calls too', async () => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /no\n') });
    const robots = new RobotsStore({ userAgent: USER_AGENT, log: captureLog().log });
    await robots.resolve(site.origin);
    await robots.close();
    await expect(robots.resolve(site.origin)).rejects.toThrow(/closed/);
    await expect(robots.check(`${site.origin}/no`)).rejects.toThrow(/closed/);
    expect(() => robots.peek(site.origin)).toThrow(/closed/);
    expect(() => robots.checkCached(`${site.origin}/no`)).toThrow(/closed/);
  });

  it('closes once: a second close() waits for what the first waits for', async () => {
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const robots = new RobotsStore({
      userAgent: USER_AGENT,
      log: captureLog().log,
      httpClient: {
        request: async () => {
          await answered;
          return { ok: true, status: 404, headers: {}, body: new Uint8Array(), truncated: false };
        },
      },
    });
    const resolving = robots.resolve('https://slow.example/');
    const settled: string[] = [];
    const first = robots.close().then(() => settled.push('first'));
    const second = robots.close().then(() => settled.push('second'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Neither resolves while the fetch under way is unanswered.
    expect(settled).toEqual([]);
    answer();
    await Promise.all([first, second, resolving]);
    expect(settled.sort()).toEqual(['first', 'second']);
  });

  it('rejects a User-Agent no request can carry when it is made, rather than taking every origin for unreachable', () => {
    const log = captureLog().log;
    for (const [userAgent, character] of [
      ['ExampleBot/1.0\n', 'U+000A'],
      ['ExampleBot/1.0 (\u2192 https://example.com/bot)', 'U+2192'],
      ['ExampleBot/1.0 \u{1F916}', 'U+1F916'],
    ]) {
      expect(() => new RobotsStore({ userAgent, log })).toThrow(TypeError);
      expect(() => new RobotsStore({ userAgent, log })).toThrow(
        `RobotsStore option userAgent must be a value an HTTP header can hold (no line breaks or other control characters, nothing past U+00FF), got ${JSON.stringify(userAgent)} with ${character}.`,
      );
    }
    // Latin-1 (obs-text, RFC 9110 5.5) and tabs are sent as they are.
    expect(() => new RobotsStore({ userAgent: 'ExampleBöt/1.0\t(+https://example.com)', log })).not.toThrow();
  });

  it('rejects a malformed proxyUrl when it is made, naming the option and the value', () => {
    const log = captureLog().log;
    for (const proxyUrl of [
      'not a url',
      '',
      'proxy.example:8000',
      'ftp://proxy.example:21',
      'file:///proxy',
      // got-scraping, which fetches robots.txt, speaks to http and https proxies only.
      'socks5://127.0.0.1:1080',
    ]) {
      expect(() => new RobotsStore({ userAgent: USER_AGENT, proxyUrl, log })).toThrow(TypeError);
      expect(() => new RobotsStore({ userAgent: USER_AGENT, proxyUrl, log })).toThrow(
        `RobotsStore option proxyUrl must be an http:// or https:// URL such as "http://user:pass@proxy.example:8000" (user name and password percent-encoded), got ${JSON.stringify(proxyUrl)}`,
      );
    }
    const notAString = 8000 as unknown as string;
    expect(() => new RobotsStore({ userAgent: USER_AGENT, proxyUrl: notAString, log })).toThrow(/proxyUrl/);
    // The message shows the value without its password.
    expect(
      () => new RobotsStore({ userAgent: USER_AGENT, proxyUrl: 'ftp://crawler:s3cret@proxy.example', log }),
    ).toThrow('got "ftp://crawler:***@proxy.example"');
    for (const proxyUrl of ['http://proxy.example:8000', 'https://crawler:pa%20ss@proxy.example']) {
      expect(() => new RobotsStore({ userAgent: USER_AGENT, proxyUrl, log })).not.toThrow();
    }
  });
});

describe('RobotsStore lifetimes (RFC 9309 2.4), on an injected clock', () => {
  it('keeps a good answer 24 hours at most', async () => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /x\n') });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    await robots.resolve(site.origin);
    clock.advance(DAY - 1);
    await robots.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(1);
    clock.advance(1);
    await robots.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(2);
  });

  it('fetches again after the clock stepped back past the fetch, rather than keep the copy for days', async () => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /x\n') });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    await robots.resolve(site.origin);
    // A step back within the drift of clocks kept by NTP changes nothing, and no age is negative.
    clock.advance(-30_000);
    expect((await robots.check(`${site.origin}/x`)).ageMs).toBe(0);
    expect(site.hits('/robots.txt')).toBe(1);
    // Ten days back: the copy's age is unknown, and it would hold ten days and a day.
    clock.advance(-10 * DAY);
    await robots.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(2);
    clock.advance(DAY);
    await robots.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(3);
  });

  it('retries an unreachable robots.txt after the clock stepped back, rather than wait out the step', async () => {
    let status = 503;
    const site = await server({
      '/robots.txt': (_request, response) => {
        response.writeHead(status, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /x\n');
      },
    });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    expect((await robots.resolve(site.origin)).kind).toBe('disallow-all');
    status = 200;
    clock.advance(-2 * DAY);
    expect((await robots.resolve(site.origin)).kind).toBe('rules');
    expect(site.hits('/robots.txt')).toBe(2);
  });

  it('uses the copy it holds again when robots.txt is answered 304 Not Modified, which it never asks for', async () => {
    let status = 200;
    const site = await server({
      '/robots.txt': (_request, response) => {
        if (status === 304) response.writeHead(304).end();
        else
          response.writeHead(status, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /x\n');
      },
    });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    const first = await robots.resolve(site.origin);
    status = 304;
    clock.advance(DAY);
    const again = await robots.check(`${site.origin}/x`);
    expect(site.hits('/robots.txt')).toBe(2);
    expect(again).toMatchObject({ allowed: false, policyKind: 'rules', status: 'invalid-redirect' });
    expect(again.rule).toMatchObject({ pattern: '/x', line: 2 });
    expect(again.why).toBe(
      `HTTP 304 Not Modified, though the request was not conditional: the copy fetched at ${new Date(first.fetchedAt).toISOString()} is used again, as unchanged.`,
    );
    // Kept as an answer is: a day, then asked again.
    const policy = await robots.resolve(site.origin);
    expect(policy.expiresAt - clock.now()).toBe(DAY);
    // An answer of its own ends it.
    status = 404;
    clock.advance(DAY);
    expect((await robots.resolve(site.origin)).kind).toBe('allow-all');
  });

  it('reads a 304 as unavailable when it holds no copy of robots.txt', async () => {
    const site = await server({ '/robots.txt': (_request, response) => void response.writeHead(304).end() });
    const policy = await store().resolve(site.origin);
    expect(policy).toMatchObject({ kind: 'allow-all', status: 'invalid-redirect' });
    expect(policy.why).toContain('HTTP 304 Not Modified, though the request was not conditional');
  });

  it('cuts maxAgeMs to 24 hours', async () => {
    const { log, warnings } = captureLog();
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /x\n') });
    const clock = manualClock();
    const robots = store({ clock: clock.now, maxAgeMs: 7 * DAY, log });
    const policy = await robots.resolve(site.origin);
    expect(policy.expiresAt - policy.fetchedAt).toBe(DAY);
    expect(warnings()[0]).toContain('24 hours');
  });

  it('honours Cache-Control: max-age=60', async () => {
    const site = await server({
      '/robots.txt': text('User-agent: *\nDisallow: /x\n', 200, { 'cache-control': 'max-age=60' }),
    });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    const policy = await robots.resolve(site.origin);
    expect(policy.expiresAt - clock.now()).toBe(60_000);
    expect(policy.cacheControl).toBe('max-age=60');
    clock.advance(59_999);
    await robots.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(1);
    clock.advance(1);
    await robots.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(2);
  });

  it('never keeps an answer shorter than minAgeMs, even with max-age=0', async () => {
    const site = await server({
      '/robots.txt': text('User-agent: *\nDisallow: /x\n', 200, { 'cache-control': 'no-cache, max-age=0' }),
    });
    const clock = manualClock();
    const policy = await store({ clock: clock.now }).resolve(site.origin);
    expect(policy.expiresAt - clock.now()).toBe(60_000);
  });

  it('retries a 5xx with doubling backoff, then recovers', async () => {
    const site = await server({ '/robots.txt': text('down', 503) });
    const clock = manualClock();
    const robots = store({ clock: clock.now, retry: { initialDelayMs: 60_000, maxDelayMs: 4 * 60_000 } });
    const changes: RobotsChange[] = [];
    robots.onChange((change) => changes.push(change));

    const start = clock.now();
    let policy = await robots.resolve(site.origin);
    expect(policy).toMatchObject({ kind: 'disallow-all', status: 503, failures: 1, unreachableSince: start });
    expect(policy.retryAt).toBe(start + 60_000);

    // Within the backoff: no new request.
    clock.advance(59_000);
    await robots.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(1);

    const delays: number[] = [];
    for (let attempt = 2; attempt <= 5; attempt++) {
      clock.advance(policy.retryAt! - clock.now());
      policy = await robots.resolve(site.origin);
      delays.push(policy.retryAt! - clock.now());
      expect(policy).toMatchObject({ failures: attempt, unreachableSince: start, kind: 'disallow-all' });
    }
    expect(delays).toEqual([120_000, 240_000, 240_000, 240_000]);
    expect(site.hits('/robots.txt')).toBe(5);
    expect(changes).toHaveLength(0);

    site.route('/robots.txt', text('User-agent: *\nDisallow: /private\n'));
    clock.advance(policy.retryAt! - clock.now());
    policy = await robots.resolve(site.origin);
    expect(policy).toMatchObject({ kind: 'rules', status: 200, failures: 0 });
    expect(policy.unreachableSince).toBeUndefined();
    expect(changes).toEqual([
      expect.objectContaining({
        origin: site.origin,
        previous: expect.objectContaining({ kind: 'disallow-all', status: 503 }),
        current: expect.objectContaining({ kind: 'rules', status: 200 }),
      }),
    ]);
  });

  it('waits at least Retry-After (up to the longest delay)', async () => {
    const site = await server({ '/robots.txt': text('slow down', 429, { 'retry-after': '600' }) });
    const clock = manualClock();
    const policy = await store({ clock: clock.now }).resolve(site.origin);
    expect(policy).toMatchObject({ kind: 'disallow-all', status: 429 });
    expect(policy.retryAt! - clock.now()).toBe(600_000);
  });

  it('uses the last good copy only after unreachableGraceDays of outage', async () => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /private\n') });
    const clock = manualClock();
    const robots = store({ clock: clock.now, retry: { initialDelayMs: DAY, maxDelayMs: 4 * DAY } });
    await robots.resolve(site.origin);

    site.route('/robots.txt', text('maintenance', 500));
    clock.advance(DAY);
    const outageStart = clock.now();
    let policy = await robots.resolve(site.origin);
    expect(policy.kind).toBe('disallow-all');
    while (clock.now() - outageStart < 30 * DAY) {
      expect(policy).toMatchObject({ kind: 'disallow-all', servedFromStaleCopy: false });
      expect((await robots.check(`${site.origin}/public`)).allowed).toBe(false);
      clock.advance(policy.retryAt! - clock.now());
      policy = await robots.resolve(site.origin);
    }
    expect(policy).toMatchObject({ kind: 'rules', status: 500, servedFromStaleCopy: true });
    expect(policy.goodCopyFetchedAt).toBe(outageStart - DAY);
    // The copy decides now: the why no longer says that everything is disallowed.
    expect(policy.why).toMatch(
      /^HTTP 500: robots\.txt is unreachable, which alone would disallow everything \(RFC 9309 2\.3\.1\.4\)\. Unreachable for \d+ days: the copy fetched at .* is used again/,
    );
    expect(policy.why).not.toContain('everything is disallowed');
    const check = await robots.check(`${site.origin}/public`);
    expect(check).toMatchObject({ allowed: true, servedFromStaleCopy: true, policyKind: 'rules' });
    expect(check.ageMs).toBe(clock.now() - (outageStart - DAY));
    expect((await robots.check(`${site.origin}/private/x`)).allowed).toBe(false);
  });

  it('applies its own unreachableGraceDays to an outage record another store wrote, either way', async () => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /private\n') });
    const clock = manualClock();
    const backend = new MemoryBackend({ clock: clock.now });
    const shared = { clock: clock.now, backend, retry: { initialDelayMs: DAY, maxDelayMs: DAY } };
    const patient = store({ ...shared, unreachableGraceDays: 365 });
    const impatient = store({ ...shared, unreachableGraceDays: 30 });
    await patient.resolve(site.origin);
    site.route('/robots.txt', text('maintenance', 503));
    clock.advance(DAY);
    // 40 days of outage, its records written by the patient store only.
    for (let day = 0; day < 40; day++) {
      await patient.resolve(site.origin);
      clock.advance(DAY);
    }
    await patient.resolve(site.origin);
    expect(await patient.check(`${site.origin}/public`)).toMatchObject({
      allowed: false,
      policyKind: 'disallow-all',
      servedFromStaleCopy: false,
    });
    // Read from the backend by a store whose grace is over: the good copy, as it would have chosen.
    const lenient = await impatient.check(`${site.origin}/public`);
    expect(lenient).toMatchObject({
      allowed: true,
      policyKind: 'rules',
      servedFromStaleCopy: true,
      status: 503,
    });
    expect(lenient.why).toMatch(/Unreachable for 40 days: the copy fetched at .* is used again/);
    expect(lenient.why).not.toContain('everything is disallowed');
    expect((await impatient.check(`${site.origin}/private/x`)).allowed).toBe(false);
    expect(impatient.stats()).toMatchObject({ fetches: 0, backendHits: 1 });

    // And the other way: the impatient store writes the stale-copy record, the patient one reads it.
    clock.advance(DAY);
    await impatient.resolve(site.origin);
    const fresh = store({ ...shared, unreachableGraceDays: 365 });
    const strict = await fresh.check(`${site.origin}/public`);
    expect(strict).toMatchObject({ allowed: false, policyKind: 'disallow-all', servedFromStaleCopy: false });
    // Read back from the record the impatient store wrote: disallowed, and said so again.
    expect(strict.why).toMatch(
      /^HTTP 503: robots\.txt is unreachable, everything is disallowed .* Next attempt at /,
    );
    expect(fresh.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
  });

  it('keeps an origin that never answered disallowed after the grace period', async () => {
    const site = await server({ '/robots.txt': text('maintenance', 500) });
    const clock = manualClock();
    const robots = store({
      clock: clock.now,
      unreachableGraceDays: 2,
      retry: { initialDelayMs: DAY, maxDelayMs: DAY },
    });
    let policy = await robots.resolve(site.origin);
    for (let day = 0; day < 4; day++) {
      clock.advance(DAY);
      policy = await robots.resolve(site.origin);
    }
    expect(policy).toMatchObject({ kind: 'disallow-all', failures: 5, servedFromStaleCopy: false });
  });
});

describe('RobotsStore change detection', () => {
  it('says which rules and sitemaps were added or removed', async () => {
    const site = await server({
      '/robots.txt': text(
        'User-agent: *\nDisallow: /old\nDisallow: /kept\nSitemap: https://a.example/old.xml\n',
      ),
    });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    const changes: RobotsChange[] = [];
    const stop = robots.onChange((change) => changes.push(change));
    await robots.resolve(site.origin);
    expect(changes).toHaveLength(0);

    // Same rules on other lines: not a change.
    site.route(
      '/robots.txt',
      text('# moved\nUser-agent: *\nDisallow: /kept\nDisallow: /old\nSitemap: https://a.example/old.xml\n'),
    );
    clock.advance(DAY);
    await robots.resolve(site.origin);
    expect(changes).toHaveLength(0);

    site.route(
      '/robots.txt',
      text('User-agent: *\nDisallow: /kept\nAllow: /new\nSitemap: https://a.example/new.xml\n'),
    );
    clock.advance(DAY);
    await robots.resolve(site.origin);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      origin: site.origin,
      previous: { kind: 'rules', status: 200 },
      current: { kind: 'rules', status: 200 },
      addedRules: [{ userAgents: ['*'], kind: 'allow', pattern: '/new', line: 3 }],
      removedRules: [{ userAgents: ['*'], kind: 'disallow', pattern: '/old', line: 4 }],
      addedSitemaps: ['https://a.example/new.xml'],
      removedSitemaps: ['https://a.example/old.xml'],
    });

    stop();
    site.route('/robots.txt', text('User-agent: *\nDisallow: /\n'));
    clock.advance(DAY);
    await robots.resolve(site.origin);
    expect(changes).toHaveLength(1);
  });
});

describe('RobotsStore change detection across outages and crawl-delays', () => {
  const A = 'User-agent: *\nDisallow: /old-secret\nSitemap: https://a.example/s.xml\n';
  const B = 'User-agent: *\nDisallow: /new-secret\nSitemap: https://a.example/s.xml\n';

  it('compares a file that changed during an outage with the last good copy', async () => {
    const site = await server({ '/robots.txt': text(A) });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    const changes: RobotsChange[] = [];
    robots.onChange((change) => changes.push(change));
    await robots.resolve(site.origin);

    site.route('/robots.txt', text('down', 503));
    clock.advance(DAY);
    await robots.resolve(site.origin);
    site.route('/robots.txt', text(B));
    clock.advance(60_000);
    await robots.resolve(site.origin);

    expect(changes).toHaveLength(2);
    // The outage itself: the file did not change, the site went down.
    expect(changes[0]).toMatchObject({
      previous: { kind: 'rules', status: 200 },
      current: { kind: 'disallow-all', status: 503 },
      addedRules: [],
      removedRules: [],
      addedSitemaps: [],
      removedSitemaps: [],
    });
    expect(changes[1]).toMatchObject({
      previous: { kind: 'disallow-all', status: 503 },
      current: { kind: 'rules', status: 200 },
      addedRules: [{ userAgents: ['*'], kind: 'disallow', pattern: '/new-secret', line: 2 }],
      removedRules: [{ userAgents: ['*'], kind: 'disallow', pattern: '/old-secret', line: 2 }],
      addedSitemaps: [],
      removedSitemaps: [],
    });
  });

  it('compares with the good copy of an outage another store saved in the backend', async () => {
    const site = await server({ '/robots.txt': text(A) });
    const clock = manualClock();
    const shared = new MemoryBackend({ clock: clock.now });
    const first = store({ clock: clock.now, backend: shared });
    await first.resolve(site.origin);
    site.route('/robots.txt', text('down', 503));
    clock.advance(DAY);
    await first.resolve(site.origin);

    // The second store learns of the outage from the backend: its good copy is a body, not parsed.
    const second = store({ clock: clock.now, backend: shared });
    const changes: RobotsChange[] = [];
    second.onChange((change) => changes.push(change));
    expect((await second.resolve(site.origin)).kind).toBe('disallow-all');
    site.route('/robots.txt', text(B));
    clock.advance(60_000);
    await second.resolve(site.origin);

    expect(site.hits('/robots.txt')).toBe(3);
    expect(changes).toMatchObject([
      {
        previous: { kind: 'disallow-all', status: 503 },
        current: { kind: 'rules', status: 200 },
        addedRules: [{ pattern: '/new-secret' }],
        removedRules: [{ pattern: '/old-secret' }],
      },
    ]);
  });

  it('reports no change when a 304 confirms the copy held, nor when the same file follows it', async () => {
    let file = A;
    let notModified = false;
    const site = await server({
      '/robots.txt': (_request, response) => {
        if (notModified) response.writeHead(304).end();
        else response.writeHead(200, { 'content-type': 'text/plain' }).end(file);
      },
    });
    const clock = manualClock();
    // In memory alone, and with a backend, whose records are compared as well.
    for (const backend of [undefined, new MemoryBackend({ clock: clock.now })]) {
      file = A;
      notModified = false;
      const robots = store({ clock: clock.now, ...(backend === undefined ? {} : { backend }) });
      const changes: RobotsChange[] = [];
      robots.onChange((change) => changes.push(change));
      await robots.resolve(site.origin);
      notModified = true;
      clock.advance(DAY + 1);
      expect(await robots.resolve(site.origin)).toMatchObject({ kind: 'rules', status: 'invalid-redirect' });
      notModified = false;
      clock.advance(DAY + 1);
      expect(await robots.resolve(site.origin)).toMatchObject({ kind: 'rules', status: 200 });
      expect(changes).toEqual([]);

      // A new file after a 304 is compared with the copy the 304 kept.
      notModified = true;
      clock.advance(DAY + 1);
      await robots.resolve(site.origin);
      notModified = false;
      file = B;
      clock.advance(DAY + 1);
      await robots.resolve(site.origin);
      expect(changes).toMatchObject([
        {
          previous: { kind: 'rules', status: 'invalid-redirect' },
          current: { kind: 'rules', status: 200 },
          addedRules: [{ pattern: '/new-secret' }],
          removedRules: [{ pattern: '/old-secret' }],
        },
      ]);
      expect(changes).toHaveLength(1);
      await robots.close();
    }
  });

  it('reports a change against its own copy, though the backend holds a newer one', async () => {
    const site = await server({ '/robots.txt': text(A) });
    const clock = manualClock();
    const shared = new MemoryBackend({ clock: clock.now });
    const first = store({ clock: clock.now, backend: shared });
    const second = store({ clock: clock.now, backend: shared });
    await first.resolve(site.origin);
    await second.resolve(site.origin);
    const changes: RobotsChange[] = [];
    second.onChange((change) => changes.push(change));

    // The site changes; the first store sees it and saves the new file to the backend.
    site.route('/robots.txt', text(B));
    clock.advance(DAY + 1000);
    await first.resolve(site.origin);
    // A day later both copies have expired: the second store still holds A, and hears of A to B.
    clock.advance(DAY + 1000);
    await second.resolve(site.origin);
    expect(changes).toMatchObject([
      { addedRules: [{ pattern: '/new-secret' }], removedRules: [{ pattern: '/old-secret' }] },
    ]);
  });

  it('reports a change against the record a backend kept, when this store has none of its own', async () => {
    const site = await server({ '/robots.txt': text(A) });
    const clock = manualClock();
    const firstFetch = clock.now();
    const shared = new MemoryBackend({ clock: clock.now });
    await store({ clock: clock.now, backend: shared }).resolve(site.origin);

    // Another process (or a resumed crawl) meets the origin again once the record has expired.
    site.route('/robots.txt', text(B));
    clock.advance(DAY + 1);
    const second = store({ clock: clock.now, backend: shared });
    const changes: RobotsChange[] = [];
    second.onChange((change) => changes.push(change));
    await second.resolve(site.origin);
    expect(site.hits('/robots.txt')).toBe(2);
    expect(changes).toMatchObject([
      {
        previous: { kind: 'rules', status: 200, fetchedAt: firstFetch },
        current: { kind: 'rules', status: 200, fetchedAt: clock.now() },
        addedRules: [{ pattern: '/new-secret' }],
        removedRules: [{ pattern: '/old-secret' }],
      },
    ]);

    // The same file again: no change.
    clock.advance(DAY + 1);
    await store({ clock: clock.now, backend: shared }).resolve(site.origin);
    const third = store({ clock: clock.now, backend: shared });
    third.onChange((change) => changes.push(change));
    clock.advance(DAY + 1);
    await third.resolve(site.origin);
    expect(changes).toHaveLength(1);
  });

  it('reports a change of an origin the LRU dropped, against the record of its backend', async () => {
    const site = await server({ '/robots.txt': text(A) });
    const other = await server({ '/robots.txt': text('User-agent: *\nDisallow: /\n') });
    const clock = manualClock();
    const robots = store({
      clock: clock.now,
      backend: new MemoryBackend({ clock: clock.now }),
      maxEntries: 1,
    });
    const changes: RobotsChange[] = [];
    robots.onChange((change) => changes.push(change));
    await robots.resolve(site.origin);
    await robots.resolve(other.origin);
    expect(robots.peek(site.origin)).toBeUndefined();

    site.route('/robots.txt', text(B));
    clock.advance(DAY + 1);
    await robots.resolve(site.origin);
    expect(changes).toMatchObject([
      {
        origin: site.origin,
        addedRules: [{ pattern: '/new-secret' }],
        removedRules: [{ pattern: '/old-secret' }],
      },
    ]);
  });

  it('reports a crawl-delay that changed, appeared or went, per group', async () => {
    const site = await server({
      '/robots.txt': text(
        'User-agent: *\nCrawl-delay: 1\nDisallow: /private\n\nUser-agent: SlowBot\nCrawl-delay: 5\n',
      ),
    });
    const clock = manualClock();
    const robots = store({ clock: clock.now });
    const changes: RobotsChange[] = [];
    robots.onChange((change) => changes.push(change));
    await robots.resolve(site.origin);

    site.route(
      '/robots.txt',
      text('User-agent: *\nCrawl-delay: 60\nDisallow: /private\n\nUser-agent: FastBot\nCrawl-delay: 0.5\n'),
    );
    clock.advance(DAY);
    await robots.resolve(site.origin);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      previous: { kind: 'rules', status: 200 },
      current: { kind: 'rules', status: 200 },
      addedRules: [],
      removedRules: [],
      addedSitemaps: [],
      removedSitemaps: [],
    });
    expect(changes[0].changedCrawlDelays).toEqual([
      { userAgents: ['*'], previous: 1, current: 60 },
      { userAgents: ['slowbot'], previous: 5, current: null },
      { userAgents: ['fastbot'], previous: null, current: 0.5 },
    ]);

    // The same delays on other lines: not a change.
    site.route(
      '/robots.txt',
      text(
        '# reordered\nUser-agent: *\nDisallow: /private\nCrawl-delay: 60\n\nUser-agent: FastBot\nCrawl-delay: 0.5\n',
      ),
    );
    clock.advance(DAY);
    await robots.resolve(site.origin);
    expect(changes).toHaveLength(1);
  });

  it('logs a listener that throws or rejects, and still tells the others', async () => {
    const site = await server({ '/robots.txt': text(A) });
    const clock = manualClock();
    const { log, lines } = captureLog();
    const robots = store({ clock: clock.now, log });
    const changes: RobotsChange[] = [];
    robots.onChange(async () => {
      throw new Error('async listener bug');
    });
    robots.onChange(() => {
      throw new Error('listener bug');
    });
    robots.onChange((change) => changes.push(change));
    await robots.resolve(site.origin);
    site.route('/robots.txt', text(B));
    clock.advance(DAY);
    await robots.resolve(site.origin);
    // Let the rejection be handled (it is settled already; only its handler is queued).
    await new Promise((resolve) => setImmediate(resolve));

    expect(changes).toHaveLength(1);
    const failures = lines.filter((line) => line.level === LogLevel.ERROR).map((line) => line.message);
    expect(failures).toEqual([
      expect.stringContaining('listener failed'),
      expect.stringContaining('listener failed'),
    ]);
  });
});

describe('RobotsStore memory bounds', () => {
  it('keeps at most maxEntries origins', async () => {
    const sites = await Promise.all(
      Array.from({ length: 5 }, () => server({ '/robots.txt': text('User-agent: *\nDisallow: /x\n') })),
    );
    const robots = store({ maxEntries: 3 });
    for (const site of sites) await robots.resolve(site.origin);
    expect(robots.stats().entries).toBe(3);
    expect(robots.peek(sites[0].origin)).toBeUndefined();
    expect(robots.peek(sites[4].origin)).toBeDefined();
  });

  it('counts an entry by what its parsed file keeps, not by the size of its text', async () => {
    // 26,000 user-agent lines take several times their text once parsed (one token each).
    const agents = Array.from({ length: 26_000 }, (_, index) => `User-agent: ua-${index.toString(36)}`);
    const body = `${agents.join('\n')}\nDisallow: /x\n`;
    const site = await server({ '/robots.txt': text(body) });
    const robots = store();
    const policy = await robots.resolve(site.origin);
    const { bytesInMemory } = robots.stats();
    expect(bytesInMemory).toBeGreaterThanOrEqual(policy.robots!.retainedBytes);
    expect(bytesInMemory).toBeGreaterThan(2 * body.length);
  });

  it('keeps a file larger than maxBytesInMemory outside the cache, says so, and does not fetch it again', async () => {
    const agents = Array.from({ length: 26_000 }, (_, index) => `User-agent: ua-${index.toString(36)}`);
    let fetches = 0;
    const site = await server({
      '/robots.txt': (_request, response) => {
        fetches++;
        response.writeHead(200).end(`User-agent: *\n${agents.join('\n')}\nDisallow: /x\n`);
      },
    });
    const { log, warnings } = captureLog();
    const robots = store({ maxBytesInMemory: 200_000, log });
    expect((await robots.check(`${site.origin}/x`)).allowed).toBe(false);
    expect((await robots.check(`${site.origin}/y`)).allowed).toBe(true);
    expect(robots.checkCached(`${site.origin}/x`)?.allowed).toBe(false);
    expect(fetches).toBe(1);
    expect(robots.stats().entries).toBe(0);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('more than maxBytesInMemory (200000)');
  });

  it('keeps at most maxBytesInMemory, each entry measured by what it holds', async () => {
    const big = `User-agent: *\n${Array.from({ length: 2000 }, (_, index) => `Disallow: /private/section-${index}/`).join('\n')}\n`;
    const sites = await Promise.all(Array.from({ length: 4 }, () => server({ '/robots.txt': text(big) })));
    const small = await server({ '/robots.txt': text('User-agent: *\nDisallow: /x\n') });
    const robots = store({ maxBytesInMemory: 250_000 });
    await robots.resolve(small.origin);
    const smallSize = robots.stats().bytesInMemory;
    for (const site of sites) await robots.resolve(site.origin);
    const { entries, bytesInMemory } = robots.stats();
    expect(bytesInMemory).toBeLessThanOrEqual(250_000);
    expect(entries).toBeLessThan(5);
    expect(bytesInMemory / (entries - (robots.peek(small.origin) ? 1 : 0))).toBeGreaterThan(big.length);
    expect(smallSize).toBeLessThan(4096);
  });
});

describe('MemoryBackend', () => {
  it('drops a shared record it cannot install, with a warning, and fetches instead', async () => {
    const site = await server({ '/robots.txt': text('User-agent: *\nDisallow: /private\n') });
    const clock = manualClock();
    const shared = new MemoryBackend({ clock: clock.now });
    // A rules record without the body its rules are parsed from, fresh for a year.
    const broken = policyRecord(site.origin, clock.now(), {
      kind: 'rules',
      status: 200,
      expiresAt: clock.now() + 365 * DAY,
    });
    await shared.save(site.origin, { record: broken, body: null }, 365 * DAY, backendScope(USER_AGENT));
    const { log, warnings } = captureLog();
    const robots = store({ clock: clock.now, backend: shared, log });

    expect(await robots.check(`${site.origin}/private/x`)).toMatchObject({
      allowed: false,
      reason: 'matched',
      policyKind: 'rules',
      status: 200,
    });
    expect(site.hits('/robots.txt')).toBe(1);
    expect(robots.stats()).toMatchObject({ fetches: 1, backendHits: 0 });
    expect(warnings()).toEqual([expect.stringContaining(`record of ${site.origin} cannot be used`)]);
    // The answer fetched replaced it.
    expect((await shared.load(site.origin, backendScope(USER_AGENT)))?.body).not.toBeNull();
  });

  it('shares policies and the fetch lock between stores of one process', async () => {
    const site = await server({
      '/robots.txt': (_request, response) => {
        setTimeout(() => response.writeHead(200).end('User-agent: *\nDisallow: /private\n'), 50);
      },
    });
    const shared = new MemoryBackend();
    const first = store({ backend: shared, lockPollMs: 10 });
    const second = store({ backend: shared, lockPollMs: 10 });
    const [a, b] = await Promise.all([
      first.check(`${site.origin}/private/1`),
      second.check(`${site.origin}/private/2`),
    ]);
    expect([a.allowed, b.allowed]).toEqual([false, false]);
    expect(site.hits('/robots.txt')).toBe(1);
    expect(first.stats().fetches + second.stats().fetches).toBe(1);
  });
});

describe('RobotsStore with a shared backend', () => {
  it("keeps each User-Agent's answer apart, and shares it between stores of the same User-Agent", async () => {
    const site = await server({
      '/robots.txt': (request, response) => {
        // A server may answer each crawler differently: here a 503 to one of them.
        if (String(request.headers['user-agent']).includes('BadBot')) response.writeHead(503).end('no');
        else response.writeHead(200).end('User-agent: *\nDisallow: /private\n');
      },
    });
    const shared = new MemoryBackend();
    const bad = store({ userAgent: 'BadBot/1.0', backend: shared });
    const good = store({ userAgent: 'GoodBot/2.0', backend: shared });
    const sameAsGood = store({ userAgent: 'GoodBot/2.0', backend: shared });

    expect(await bad.check(`${site.origin}/x`)).toMatchObject({ allowed: false, status: 503 });
    expect(await good.check(`${site.origin}/x`)).toMatchObject({ allowed: true, status: 200 });
    expect(await sameAsGood.check(`${site.origin}/private`)).toMatchObject({ allowed: false, status: 200 });
    expect(site.requests.map((request) => request.headers['user-agent'])).toEqual([
      'BadBot/1.0',
      'GoodBot/2.0',
    ]);
    expect(sameAsGood.stats()).toMatchObject({ fetches: 0, backendHits: 1 });
  });

  it('never replaces a newer policy it fetched during a backend outage with an older shared one', async () => {
    let body = 'User-agent: *\nDisallow: /v1\n';
    let headers: Record<string, string> = {};
    const site = await server({
      '/robots.txt': (_request, response) => {
        response.writeHead(200, headers).end(body);
      },
    });
    const clock = manualClock();
    const shared = new MemoryBackend({ clock: clock.now });
    let down = false;
    const unless = <T>(call: () => Promise<T>) => (down ? Promise.reject(new Error('backend down')) : call());
    const flaky: RobotsStoreBackend = {
      name: 'flaky',
      load: (origin, scope) => unless(() => shared.load(origin, scope)),
      save: (origin, policy, retainMs, scope) => unless(() => shared.save(origin, policy, retainMs, scope)),
      lock: (origin, ttlMs, scope) => unless(() => shared.lock(origin, ttlMs, scope)),
      close: async () => {},
    };
    // v1 is shared for 24 hours.
    await store({ clock: clock.now, backend: shared }).resolve(site.origin);

    // An hour later the file changed; this store fetches v2 while the backend is down.
    clock.advance(HOUR);
    body = 'User-agent: *\nDisallow: /v2\n';
    headers = { 'cache-control': 'max-age=120' };
    const robots = store({ clock: clock.now, backend: flaky });
    const changes: RobotsChange[] = [];
    robots.onChange((change) => changes.push(change));
    down = true;
    expect((await robots.check(`${site.origin}/v2`)).allowed).toBe(false);

    // The backend is back, v2 has expired here: the shared v1 is older, so the file is fetched.
    down = false;
    clock.advance(180_000);
    expect((await robots.check(`${site.origin}/v2`)).allowed).toBe(false);
    expect((await robots.check(`${site.origin}/v1`)).allowed).toBe(true);
    expect(robots.stats()).toMatchObject({ fetches: 2, backendHits: 0 });
    expect(changes).toEqual([]);
    // The fleet gets the newer answer.
    expect((await shared.load(site.origin, backendScope(USER_AGENT)))?.record.fetchedAt).toBe(clock.now());
  });
});

describe('backend circuit breaker', () => {
  /** A promise settled by the test. */
  function deferred<T>() {
    let resolve!: (value: T) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<T>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    return { promise, resolve, reject };
  }

  it('gives back a fetch lock that was granted after the store stopped waiting for it', async () => {
    const locked = await server({ '/robots.txt': text('User-agent: *\nDisallow: /private\n') });
    const failing = await server({ '/robots.txt': text('User-agent: *\nDisallow: /\n') });
    const shared = new MemoryBackend();
    const lockAnswer = deferred<void>();
    const loadAnswer = deferred<void>();
    const asked = { lock: deferred<void>(), load: deferred<void>() };
    // The backend grants the first origin's lock late, and fails the second origin's load.
    const backend: RobotsStoreBackend = {
      name: 'scripted',
      load: async (origin, scope) => {
        if (origin === failing.origin) {
          asked.load.resolve();
          await loadAnswer.promise;
        }
        return shared.load(origin, scope);
      },
      save: (origin, policy, retainMs, scope) => shared.save(origin, policy, retainMs, scope),
      lock: async (origin, ttlMs, scope) => {
        asked.lock.resolve();
        await lockAnswer.promise;
        return shared.lock(origin, ttlMs, scope);
      },
      close: async () => {},
    };
    const robots = store({ backend });

    try {
      const holding = robots.resolve(locked.origin);
      await asked.lock.promise;
      const failed = robots.resolve(failing.origin);
      await asked.load.promise;
      loadAnswer.reject(new Error('backend down'));
      // The breaker opens: the store stops waiting for the lock and fetches the file itself.
      const inTime = <T>(promise: Promise<T>) =>
        Promise.race([
          promise,
          new Promise<never>((_resolve, reject) => {
            setTimeout(() => reject(new Error('the store is still waiting for the lock')), 1000).unref();
          }),
        ]);
      expect((await inTime(holding)).kind).toBe('rules');
      expect((await failed).kind).toBe('rules');
      expect(robots.stats()).toMatchObject({ fetches: 2, backendErrors: 1 });

      // The lock arrives late: nobody holds it for long, it is released at once.
      lockAnswer.resolve();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await shared.lock(locked.origin, 60_000, backendScope(USER_AGENT))).toBeDefined();
    } finally {
      // Never leaves the store waiting (close() waits for running resolves).
      lockAnswer.resolve();
    }
  }, 5000);
});
