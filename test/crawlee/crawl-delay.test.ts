import { CheerioCrawler, Configuration, HttpCrawler, LogLevel, log } from 'crawlee';
import { describe, expect, it } from 'vitest';
import { CrawlDelayPacer, formatWait } from '../../src/crawlee/crawl-delay.js';
import { RobotsGuard } from '../../src/crawlee/index.js';
import { captureLog } from '../support/log.js';
import { startTimedSites } from '../support/timed-site.js';

describe('formatWait', () => {
  it('says a wait in seconds, minutes, hours or days, whichever reads best', () => {
    expect(formatWait(50_000)).toBe('50 s');
    expect(formatWait(119_000)).toBe('119 s');
    expect(formatWait(120_000)).toBe('2 min');
    expect(formatWait(5_000_000)).toBe('83 min');
    expect(formatWait(7_200_000)).toBe('2.0 h');
    expect(formatWait(150_000_000)).toBe('41.7 h');
    expect(formatWait(172_800_000)).toBe('2.0 days');
    expect(formatWait(4_000_000_000)).toBe('46.3 days');
  });
});

log.setLevel(LogLevel.OFF);

describe('CrawlDelayPacer', () => {
  it('moves a departure after a response that came back while it waited: the request before it reached the server late', () => {
    const pacer = new CrawlDelayPacer();
    const o = 'https://a.example';
    // Three navigations of the origin want to leave at 0: they are spaced by the delay.
    expect([0, 0, 0].map((at) => pacer.leavesNow(o, 2000, at))).toEqual([0, 2001, 4002]);
    // The first left late: its response came back at 300, after the server had it.
    pacer.answered(o, 2000, 300);
    // The second, due at 2001, waits until 2000 after that response, and the third after it.
    expect(pacer.afterAnswers(o, 2000, 2001)).toBe(300);
    pacer.answered(o, 2000, 2350);
    expect(pacer.afterAnswers(o, 2000, 4002)).toBe(349);
    // No response came back late: no more wait.
    expect(pacer.afterAnswers(o, 2000, 6000)).toBe(0);
    // Another origin is not held by this one's responses.
    expect(pacer.afterAnswers('https://b.example', 2000, 2001)).toBe(0);
  });

  it('keeps a later request a delay after one that a late response held back', () => {
    const pacer = new CrawlDelayPacer();
    const o = 'https://a.example';
    expect(pacer.leavesNow(o, 2000, 0)).toBe(0);
    pacer.departed(o, 0);
    // B and C wait for their turns at 2001 and 4002.
    expect([0, 0].map((at) => pacer.leavesNow(o, 2000, at))).toEqual([2001, 4002]);
    // A's response comes back at 1500: B leaves at 3501, not at its turn.
    pacer.answered(o, 2000, 1500);
    expect(pacer.afterAnswers(o, 2000, 2001)).toBe(1500);
    expect(pacer.afterAnswers(o, 2000, 3501)).toBe(0);
    // C's turn comes before B's response: C follows B's departure by the delay.
    expect(pacer.afterAnswers(o, 2000, 4002)).toBe(1500);
    expect(pacer.afterAnswers(o, 2000, 5502)).toBe(0);
  });
});

describe('Crawl-delay as the server sees it', () => {
  it.each([
    ['HttpCrawler', HttpCrawler],
    ['CheerioCrawler', CheerioCrawler],
  ] as const)(
    '%s: each request of a paced origin reaches it a whole delay after the one before',
    async (_name, Crawler) => {
      // A paced origin and a busy one that keeps the crawler asking for requests, in a process
      // of their own, so that the times are the server's. got sends a request some milliseconds
      // after the navigation hooks, tens of them for a new connection: the spacing must hold at
      // the server all the same, the first gap included.
      const { sites, close } = await startTimedSites([
        { robots: 'User-agent: *\nCrawl-delay: 0.3\n' },
        { robots: 'User-agent: *\nAllow: /\n', pageDelayMs: 50 },
      ]);
      const [paced, busy] = sites;
      try {
        const guard = new RobotsGuard({
          productToken: 'ExampleBot',
          userAgent: 'Mozilla/5.0 (compatible; ExampleBot/1.0)',
          logSummary: false,
          log: captureLog().log,
        });
        const crawler = new Crawler(
          { maxConcurrency: 10, requestHandler: async () => {} },
          new Configuration({ persistStorage: false }),
        );
        guard.attach(crawler);
        const urls: string[] = [];
        for (let i = 0; i < 8; i++)
          urls.push(`${paced.origin}/p${i}`, `${busy.origin}/a${i}`, `${busy.origin}/b${i}`);
        await crawler.run(urls);
        const hits = await paced.hits();
        expect(hits).toHaveLength(8);
        const gaps = hits.slice(1).map((hit, i) => hit.at - hits[i].at);
        expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(300);
      } finally {
        await close();
      }
    },
  );
});
